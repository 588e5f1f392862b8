#!/usr/bin/env bash
# ci_lanes.sh — `make test`'s stages on CI's two cores: two lanes of about equal length, side by side.
#
# Measured at the stop of 2026-12-06 (.ci/run on a fresh clone, 2,998 s in all): Python 3.11's runs
# 2,294 s, Python 3.12's 2,086 s, jax 0.11.2's 329 s, MaxText's trainer 166 s (its venv included),
# and each virtual environment a minute or two.  The old split (3.11 | 3.12, jax 0.11.2, trainer,
# after every environment was made) left the second lane 5 minutes longer; these lanes are
#   A: jax 0.11.2's environment, Python 3.11's runs, the trainer
#   B: Python 3.12's environment, Python 3.12's run, jax 0.11.2's run
# Every stage runs even when one before it failed (CI's log then names all that fail); each output
# line starts with its stage's label, and the last lines give every stage's exit status.
# `pip install -e` writes into the checkout: tools/test_env.sh and tools/ci_trainers.sh take turns
# at it (tools/pip_lock.sh), so the lanes may make environments at the same time.
set -uo pipefail
cd "$(dirname "$0")/.."
results=$(mktemp -d "${TMPDIR:-/tmp}/hlo_passes_lanes.XXXXXX") || exit 1
trap 'rm -rf "$results"' EXIT

stage() {  # stage LABEL MAKE-TARGET LANE: run it, label its lines, record its status in LANE's file
    local label=$1 target=$2 lane=$3 start=$SECONDS
    ${MAKE:-make} --no-print-directory "$target" 2>&1 | sed -u "s/^/[$label] /"
    local rc=${PIPESTATUS[0]}
    echo "$label $rc $((SECONDS - start))" >>"$results/$lane"
}

{ stage jax011-env env-py312-jax011 a; stage 3.11 test-py311-run a; stage trainers test-trainers a; } &
{ stage 3.12-env env-py312 b; stage 3.12 test-py312-run b; stage jax011 test-py312-jax011-run b; } &
wait
failed=0
for lane in a b; do
    while read -r label rc seconds; do
        echo "make test: $label exit $rc in $seconds s"
        [ "$rc" = 0 ] || failed=1
    done <"$results/$lane"
done
exit $failed
