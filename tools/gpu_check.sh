#!/usr/bin/env bash
# The prepared GPU check of the gpu-ffi path (issue 7), for a lent GPU machine:
# builds the CUDA grouped-matmul kernel with nvcc, runs the GPU tests
# (tests/test_lowering_gpu_ffi.py: the handlers against numpy, the lowered MoE
# modules against jax's native ragged_dot, and MOE005's fused-FFN kernel call
# against the unfused program: test_moe_ffn_fusion_runs_on_gpu) and times the handlers against
# jax.lax.ragged_dot (benchmarks/gpu_gmm.py), and runs the pass inside XLA on the GPU
# (tools/xla_pass_gpu_check.py). Well under 10 minutes on an H200.
# Everything it finds goes to $OUT (env.txt, pytest.txt, benchmark.txt,
# gpu_gmm.md, gpu_gmm.json); the exit status is 0 only if all passed.
# Copy gpu_gmm.md into benchmarks/results/ afterwards: run_all.py puts it in
# benchmarks/RESULTS.md.
#
#   bash tools/gpu_check.sh --prepare   # here, before: pure-Python test deps into build/gpu_deps
#   bash tools/gpu_check.sh             # on the GPU machine (device tool: carry build/gpu_deps)
#
# The GPU machine gets the checkout and its own jax/jaxlib but may lack the
# project's pure-Python dependencies; build/gpu_deps (git-ignored) carries
# them and is used only when an import is missing there.
set -uo pipefail
cd "$(dirname "$0")/.."
DEPS=build/gpu_deps
PURE_DEPS="networkx==3.6.1 lark==1.3.1 pytest==9.0.3 pluggy==1.6.0 iniconfig==2.3.0 packaging==26.2
pygments==2.20.0 hypothesis==6.155.2 sortedcontainers==2.4.0 attrs==26.1.0 optax==0.2.8 absl-py==2.5.1"

if [ "${1:-}" = "--prepare" ]; then
    rm -rf "$DEPS"
    # shellcheck disable=SC2086
    python -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version 3.12 --target "$DEPS" $PURE_DEPS || exit 1
    # Their own test suites and caches only weigh on the transfer.
    find "$DEPS" -depth \( -name tests -o -name __pycache__ \) -type d -exec rm -rf {} +
    rm -rf "$DEPS/bin"
    du -sh "$DEPS"
    exit 0
fi

OUT="${OUT:-/tmp/hlo_passes_gpu_check}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if ! python -c "import networkx, lark, pytest, hypothesis" 2>/dev/null; then
    if [ -d "$DEPS" ]; then
        export PYTHONPATH="$PYTHONPATH:$PWD/$DEPS"
    else
        echo "missing Python packages (networkx, lark, pytest, hypothesis) and no $DEPS: run --prepare first" >&2
    fi
fi
export HLO_PASSES_CACHE_DIR="${HLO_PASSES_CACHE_DIR:-/tmp/hlo_passes_cache}"
export XLA_PYTHON_CLIENT_PREALLOCATE=false

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    nvcc --version | tail -2
    g++ --version | head -1
    python -c "import sys, jax, jaxlib; print(sys.version.split()[0], 'jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

status=0
# Only the tests that need the GPU or nvcc: the others lower 8-device
# programs, which this one-GPU machine cannot place (they run on CPU in CI).
# "on_gpu" includes test_moe_ffn_fusion_runs_on_gpu and test_jit_moe_ffn_fusion_on_gpu
# (the CUDA fused-FFN kernel, executed equal to the unfused program on the GPU).
timeout 360 python -m pytest -q -rs -p no:cacheprovider tests/test_lowering_gpu_ffi.py \
    -k "gpu_handlers or on_gpu or builds_with_nvcc or nvcc_output" > "$OUT/pytest.txt" 2>&1 || status=1
tail -n 25 "$OUT/pytest.txt"
timeout 200 python benchmarks/gpu_gmm.py --out "$OUT" > "$OUT/benchmark.txt" 2>&1 || status=1
tail -n 25 "$OUT/benchmark.txt"
# The pass inside XLA (issue 31): install(mode="rewrite", platforms="cuda") under plain jax.jit,
# registered through the CUDA plugin's PJRT extension, against the pass off.
timeout 200 python tools/xla_pass_gpu_check.py --platform cuda > "$OUT/xla_pass.txt" 2>&1 || status=1
tail -n 8 "$OUT/xla_pass.txt"
# The MOE rules on XLA:GPU's optimized module: the MoE training step compiled (not run) for a
# mocked 8-GPU topology, pass off and on; the compiled texts go to $OUT for reading.
timeout 240 python tools/xla_pass_gpu_moe.py --out "$OUT" > "$OUT/xla_pass_moe.txt" 2>&1 || status=1
tail -n 12 "$OUT/xla_pass_moe.txt"
echo "gpu_check: exit $status; results in $OUT"
exit $status
