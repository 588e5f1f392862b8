#!/usr/bin/env bash
# ci_trainers.sh [VARIANT...] — MaxText 0.2.5's own training loop in CI (issue 46): each variant
# (default prefused_fsdp8, and unfused_fsdp8: MaxText's default layout of two weights) with
# HLO_PASSES unset, with HLO_PASSES=rewrite and (prefused) with the hand fix in MaxText's model code
# (tools/check_trainers.py --require): the rewrite's losses equal the unset run's, a site rewritten,
# no fallback, and its compiled step's all-gathers and gradient reductions at most the hand fix's.
#
# The venv (Python 3.12, MaxText 0.2.5 and what its train entry imports, pinned by the shared
# requirements.lock; this checkout installed editable) is made by ../shared/trainers/maxtext's
# make_venv.sh under $VENVS/maxtext-trainer, once: again only when pyproject.toml or the lock change.
# Without ../shared/trainers/maxtext (a checkout without the shared folder) it says so and passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
S=${HLO_PASSES_TRAINERS:-$root/../shared/trainers/maxtext}
if [ ! -f "$S/make_venv.sh" ] || [ ! -f "$S/train_main.py" ]; then
  echo "ci_trainers.sh: skipped: no MaxText trainer at $S (the shared folder beside the checkout)"
  exit 0
fi
venv=${VENVS:-.venv}/maxtext-trainer
stamp=$(cat pyproject.toml "$S/requirements.lock" | sha1sum | cut -c1-12)
start=$SECONDS
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
  # (make_venv.sh installs this checkout with -e, which writes into it: tools/pip_lock.sh)
  PYTHON_312=$("$here/find_python.sh" 3.12) "$here/pip_lock.sh" bash "$S/make_venv.sh" "$venv" 2>&1 | grep -v "^WARNING: Location" || true
  "$venv/bin/python" -c "import maxtext, hlo_passes" || { echo "ci_trainers.sh: the venv was not made"; exit 1; }
  echo "$stamp" > "$venv/.stamp"
  echo "ci_trainers.sh: venv made in $((SECONDS - start)) s"
fi
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(prefused_fsdp8 unfused_fsdp8)
HLO_PASSES_TRAINERS="$S" "$venv/bin/python" tools/check_trainers.py "${variants[@]}" --venv "$venv" --require
echo "ci_trainers.sh: passed in $((SECONDS - start)) s"
