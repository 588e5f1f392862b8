#!/usr/bin/env bash
# The differential soundness campaign's generator on one TPU chip (issue 43): programs of
# tests/soundness/programs.py on a mesh of the one device there is (XLA:TPU's own ragged-dot, its
# own fusions and layouts), each through the pass inside XLA (every rule enabled) and through
# hlo_passes.jit (every rule, kernel auto: XLA's own ragged-dot), compared with jax.jit on the chip.
#
#   tools/tpu_soundness.sh [OUT_DIR]      (env: SOUNDNESS_PROGRAMS, default 40; SOUNDNESS_SEED, default 0)
#
# Writes OUT_DIR/soundness_tpu.jsonl (one line per program and entry) and prints DIFF lines and the
# summary line; exit 1 on a value difference.  On the TPU machine, install the parser's
# dependencies first when missing (below: from the machine's local package index).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-.}}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if ! python3 -c "import lark, networkx" 2>/dev/null && [ -d /opt/pypi/simple ]; then
  PIP_CONFIG_FILE=/dev/null python3 -m pip install -q --isolated --only-binary=:all: \
    --index-url file:///opt/pypi/simple --target /tmp/site networkx lark hypothesis
  export PYTHONPATH="${PYTHONPATH:-}:/tmp/site"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}"
python3 - <<'PY'
import datetime, importlib.metadata as md, jax
try:
    libtpu = md.version("libtpu")
except md.PackageNotFoundError:
    libtpu = "-"
d = jax.devices()[0]
print(f"tpu_soundness: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, jax {jax.__version__}, "
      f"libtpu {libtpu}, {len(jax.devices())} x {d.platform} {getattr(d, 'device_kind', '')}", flush=True)
PY
cd tests
python3 -m soundness --platform tpu --programs "${SOUNDNESS_PROGRAMS:-40}" --seed "${SOUNDNESS_SEED:-0}" \
  --entries xla,jit --chunk 5 --out "$(cd "$out" && pwd)/soundness_tpu.jsonl"
