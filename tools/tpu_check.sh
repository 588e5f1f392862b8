#!/usr/bin/env bash
# The TPU check of the project's kernels (issue 45), for a TPU machine (the twin of
# tools/gpu_check.sh): run it at every stop that touches a kernel.
#
#   1. installs what the tests need that the machine lacks (networkx, lark, pytest, hypothesis)
#      from the machine's own package index into $HLO_PASSES_TPU_SITE (default /tmp/site);
#   2. runs the kernel tests on the chip: tests/test_tpu_kernels.py with HLO_PASSES_TEST_TPU=1
#      (Mosaic-compiled megablox gmm/tgmm and the fused expert FFN against f32 references, TPU's
#      default GMM choice, MOE005's rewrite run on the chip against XLA's program);
#   3. meanwhile, in a process kept off the chip (JAX_PLATFORMS=cpu), the kernel and rule test files
#      as CI runs them (interpret-mode twins, CPU FFI kernels, 8 fake CPU devices; `-m "not tpu"`),
#      so that nothing in them is compiled for the chip: $CPU_TESTS, or "none" to leave them out;
#   4. benchmarks/tpu_kernels.py (GMM and tgmm: XLA's ragged-dot, megablox at the project's and
#      at the table's tiling, the TPU default; the fused FFN against XLA's chain; roofline columns).
#
# Everything goes to $OUT (env.txt, pytest_tpu.txt, pytest_cpu.txt, benchmark.txt, tpu_kernels.md,
# tpu_kernels.json); the exit status is 0 only if every step passed.  Copy tpu_kernels.md and the
# log into benchmarks/results/ afterwards (run_all.py puts the fragment in RESULTS.md).
#
#   bash tools/tpu_check.sh               # on the TPU machine (device tool: carry this checkout)
#   BENCH_ARGS="--search" bash tools/tpu_check.sh   # also search megablox tilings / FFN blocks
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/hlo_passes_tpu_check}"
SITE="${HLO_PASSES_TPU_SITE:-/tmp/site}"
PY="${PYTHON:-python3}"
CPU_TESTS="${CPU_TESTS:-tests/test_lowering_pallas.py tests/test_moe_ffn_fusion.py tests/test_kernels_cpu.py}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export HLO_PASSES_CACHE_DIR="${HLO_PASSES_CACHE_DIR:-/tmp/hlo_passes_cache}"

if ! "$PY" -c "import networkx, lark, pytest, hypothesis, xdist" 2>/dev/null; then
    PIP_CONFIG_FILE=/dev/null "$PY" -m pip install -q --isolated --disable-pip-version-check --only-binary=:all: \
        --index-url "${PIP_INDEX:-file:///opt/pypi/simple}" --target "$SITE" networkx lark pytest hypothesis pytest-xdist \
        > "$OUT/pip.txt" 2>&1 || { echo "tpu_check: installing the test dependencies failed (see $OUT/pip.txt)"; exit 1; }
fi
# The machine's own jax and libtpu first; the installed packages after them.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}:$SITE"

{
    date -u
    "$PY" -c "import sys, jax, jaxlib; from importlib import metadata as m; print(sys.version.split()[0], 'jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'libtpu', m.version('libtpu'), jax.devices())"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

status=0
cpu_pid=""
if [ "$CPU_TESTS" != "none" ]; then
    # shellcheck disable=SC2086
    xdist=""
    if "$PY" -c "import xdist" 2>/dev/null; then xdist="-n ${CPU_WORKERS:-4}"; fi
    cpu_limit=900
    if [ -n "${TPU_CHECK_DEADLINE_S:-}" ]; then cpu_limit=$((TPU_CHECK_DEADLINE_S - SECONDS - 15)); fi
    (JAX_PLATFORMS=cpu HLO_PASSES_TEST_TPU=1 nice -n 19 timeout "$cpu_limit" "$PY" -m pytest -q -rs -p no:cacheprovider \
        $xdist -m "not tpu" $CPU_TESTS > "$OUT/pytest_cpu.txt" 2>&1) &
    cpu_pid=$!
fi
HLO_PASSES_TEST_TPU=1 timeout 300 "$PY" -m pytest -q -rs -p no:cacheprovider tests/test_tpu_kernels.py \
    > "$OUT/pytest_tpu.txt" 2>&1 || status=1
tail -n 15 "$OUT/pytest_tpu.txt"
# shellcheck disable=SC2086
# TPU_CHECK_DEADLINE_S: the whole check's time limit (a device call's); the benchmark stops
# starting problems in time and lists those it did not measure.
budget=400
if [ -n "${TPU_CHECK_DEADLINE_S:-}" ]; then budget=$((TPU_CHECK_DEADLINE_S - SECONDS - 30)); fi
timeout 600 "$PY" benchmarks/tpu_kernels.py --out "$OUT" --budget-s "$budget" ${BENCH_ARGS:-} \
    > "$OUT/benchmark.txt" 2>&1 || status=1
grep -v "^|" "$OUT/benchmark.txt" | tail -n 40
if [ -n "$cpu_pid" ]; then
    wait "$cpu_pid" || status=1
    tail -n 8 "$OUT/pytest_cpu.txt"
fi
echo "tpu_check: exit $status; results in $OUT"
exit $status
