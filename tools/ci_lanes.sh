#!/usr/bin/env bash
# ci_lanes.sh — `make test`'s stages on CI's two cores: two lanes of about equal length, side by side.
#
# Measured (stop of 2026-12-06, CI 2,991 s in all, the lanes then: A = jax 0.11.2's environment,
# 3.11, trainer; B = 3.12's environment, 3.12, jax 0.11.2): Python 3.11's runs ~2,300 s (its
# jax-free run 306 s of it), Python 3.12's ~2,100 s (with the jax-free tests again, ~350 s),
# jax 0.11.2's 329 s, MaxText's trainer 166 s (its venv included), each environment a minute or two.
# The jax-free tests now run once (Makefile), and the lanes are
#   A: the default Python's test needs, Python 3.11's runs, (nothing else: ~2,450 s)
#   B: Python 3.12's and jax 0.11.2's environments, Python 3.12's run, jax 0.11.2's run, the trainer
# so lane A no longer waits for `make install-test` before lane B may start, and neither lane
# needs the other's environment.  $CI_SETUP_DONE (set by .ci/run): a file that appears when CI's
# own set-up (Graphviz) has ended; each lane waits for it (at most 5 minutes) before its tests.
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

setup_done() {  # wait (at most 300 s) for CI's own set-up to end, if it said it runs
    local waited=0
    [ -n "${CI_SETUP_DONE:-}" ] || return 0
    while [ ! -e "$CI_SETUP_DONE" ] && [ $waited -lt 300 ]; do sleep 2; waited=$((waited + 2)); done
}

{ stage install install-test a; setup_done; stage 3.11 test-py311-run a; } &
{ stage 3.12-env env-py312 b; stage jax011-env env-py312-jax011 b; setup_done; stage 3.12 test-py312-run b
  stage jax011 test-py312-jax011-run b; stage trainers test-trainers b; } &
wait
failed=0
for lane in a b; do
    while read -r label rc seconds; do
        echo "make test: $label exit $rc in $seconds s"
        [ "$rc" = 0 ] || failed=1
    done <"$results/$lane"
done
exit $failed
