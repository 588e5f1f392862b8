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
# One process per block of programs: on the chip a process that compiled ~15 of them with the pass
# installed and taken off again died in XLA:TPU's compile (SIGSEGV, 2026-12-06; the 16th program alone
# compiles with and without the pass), so a block's crash is recorded and the next block runs.
first="${SOUNDNESS_SEED:-0}"; total="${SOUNDNESS_PROGRAMS:-40}"; block="${SOUNDNESS_BLOCK:-5}"
dest="$(cd "$out" && pwd)"; : > "$dest/soundness_tpu.jsonl"; crashed=0
for ((s = first; s < first + total; s += block)); do
  n=$(( first + total - s < block ? first + total - s : block ))
  if ! python3 -m soundness --platform tpu --programs "$n" --seed "$s" --entries xla,jit --chunk "$n" \
       --out "$dest/part.jsonl" > "$dest/part.log" 2>&1; then
    echo "CRASH seeds $s..$((s + n - 1)): $(grep -m1 -E 'Fatal Python error|Error' "$dest/part.log" || tail -n 1 "$dest/part.log")"
    crashed=$((crashed + 1))
  fi
  grep -h '^DIFF' "$dest/part.log" || true
  cat "$dest/part.jsonl" >> "$dest/soundness_tpu.jsonl" 2>/dev/null || true
done
rm -f "$dest/part.jsonl" "$dest/part.log"
python3 - "$dest/soundness_tpu.jsonl" "$crashed" <<'SUM'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
for entry in ("xla", "jit"):
    mine = [r for r in rows if r["entry"] == entry]
    print(f"tpu_soundness {entry}: {len({r['seed'] for r in mine})} programs, "
          f"{sum(not r['ok'] for r in mine)} value differences, {sum(bool(r['changed']) for r in mine)} changed, "
          f"{sum(bool(r['fallback']) for r in mine)} fallbacks")
print(f"tpu_soundness: {sys.argv[2]} block(s) crashed")
sys.exit(1 if any(not r["ok"] for r in rows) else 0)
SUM
