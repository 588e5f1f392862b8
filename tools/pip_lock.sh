#!/usr/bin/env bash
# pip_lock.sh COMMAND... — run COMMAND holding this checkout's pip lock.  `pip install -e` writes
# into the checkout (its .egg-info), so two at once (make test's lanes, tools/ci_lanes.sh; the demo
# test, tests/test_readme.py, which takes the same file) take turns.  The lock file's name is the
# one tests/test_readme.py computes: hlo_passes_pip.<first 12 hex of sha1(checkout path)>.lock.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
lock="${TMPDIR:-/tmp}/hlo_passes_pip.$(printf %s "$root" | sha1sum | cut -c1-12).lock"
exec flock "$lock" "$@"
