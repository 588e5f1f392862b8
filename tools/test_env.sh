#!/usr/bin/env bash
# test_env.sh DIR X.Y JAX_REQUIREMENT... — a virtual environment for one test run.
#
# Creates DIR with Python X.Y (tools/find_python.sh) unless it is there,
# installs the jax release asked for FIRST (e.g. `jax jaxlib` for the newest,
# or `jax==0.11.2 jaxlib==0.11.2`), then the project with its test extras, and
# fails if installing the project changed jax or jaxlib: hlo_passes must never
# move a user's jax (issue 12).  Prints the interpreter's path last.
set -euo pipefail
dir=${1:?usage: test_env.sh DIR X.Y JAX_REQUIREMENT...}
want=${2:?usage: test_env.sh DIR X.Y JAX_REQUIREMENT...}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
pip_flags=(--quiet --disable-pip-version-check)

python=$("$here/find_python.sh" "$want")
if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)"; then
  rm -rf "$dir"
  "$python" -m venv "$dir"
fi
venv_python="$dir/bin/python"

versions() {
  "$venv_python" -c "import importlib.metadata as m; print('jax', m.version('jax'), 'jaxlib', m.version('jaxlib'))"
}

echo "== $dir: Python $want ($python), $*" >&2
"$venv_python" -m pip install "${pip_flags[@]}" --upgrade "$@"
before=$(versions)
# (-e writes into the checkout: one such install at a time, tools/pip_lock.sh)
"$here/pip_lock.sh" "$venv_python" -m pip install "${pip_flags[@]}" -e "$root[test]"
after=$(versions)
if [ "$before" != "$after" ]; then
  echo "test_env.sh: installing hlo_passes changed the environment's jax: $before -> $after" >&2
  exit 1
fi
echo "== $dir: $after, kept by pip install -e .[test]" >&2
echo "$venv_python"
