#!/usr/bin/env bash
# find_python.sh X.Y — print the path of a CPython X.Y interpreter that runs.
#
# Tried in order: $PYTHON_XY (e.g. PYTHON_312=/opt/py/bin/python3.12), pyenv's
# newest X.Y (a bare `python3.12` may be a pyenv shim that fails unless a
# version is selected, so the real binary under `pyenv root` is used), then
# pythonX.Y on PATH.  Fails loudly, naming everything it tried: CI must never
# quietly run one environment instead of two.
set -u
want=${1:?usage: find_python.sh X.Y}
tried=()

works() {
  "$1" -c "import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)" >/dev/null 2>&1
}

try() {
  tried+=("$1")
  if works "$1"; then
    echo "$1"
    exit 0
  fi
}

var="PYTHON_${want/./}"
[ -n "${!var:-}" ] && try "${!var}"

if command -v pyenv >/dev/null 2>&1; then
  version=$(pyenv latest "$want" 2>/dev/null || pyenv versions --bare 2>/dev/null | grep -E "^${want//./\\.}\.[0-9]+$" | sort -V | tail -n 1)
  [ -n "$version" ] && try "$(pyenv root)/versions/$version/bin/python$want"
fi

if command -v "python$want" >/dev/null 2>&1; then
  try "$(command -v "python$want")"
fi

echo "find_python.sh: no working Python $want (tried: ${tried[*]:-nothing}; set $var to one)" >&2
exit 1
