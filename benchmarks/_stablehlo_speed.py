"""StableHLO rows of ``parse_speed.py``: our parse + print against jaxlib's MLIR parser + printer.

The reference is ``ir.Module.parse(text)`` followed by
``module.operation.get_asm(enable_debug_info=True)`` (locations kept, like
ours), timed in a subprocess so that each side pays its own imports only
once and an MLIR abort cannot take the benchmark down.  Inputs: the largest
StableHLO files of the corpus and samples, then generated modules shaped like
lowered JAX programs (functions of elementwise ops, dot_general, all_gather,
slice, a reduce region, calls, inline locations).

    python benchmarks/parse_speed.py --dialects stablehlo
    python benchmarks/_stablehlo_speed.py            # the same rows on their own
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hlo_passes.text import parse_stablehlo  # noqa: E402

SHARED = REPO.parent / "shared"
if not SHARED.is_dir():
    SHARED = Path("/work/shared")

_MLIR_TIMER = r"""
import gc, sys, time, statistics, json
from hlo_passes import _jax_compat as compat
ir = compat.ir
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
times, cpu = [], []
with compat.make_ir_context():
    for _ in range(n):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        m = ir.Module.parse(text)
        m.operation.get_asm(enable_debug_info=True)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        del m
print(json.dumps([statistics.median(times), statistics.median(cpu)]))
"""


def mlir_time(path: Path, repeats: int) -> tuple[float, float] | None:
    """(wall, CPU) medians of jaxlib's parse + print of ``path``."""
    r = subprocess.run([sys.executable, "-c", _MLIR_TIMER, str(path), str(repeats)],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        return None
    wall, cpu = json.loads(r.stdout.strip().splitlines()[-1])
    return wall, cpu


def generated_stablehlo(megabytes: float) -> str:
    """A module like a lowered training step: many layer functions called from main."""
    target = int(megabytes * 1_000_000)
    t = "tensor<128x256xf32>"
    w = "tensor<256x256xf32>"
    g = "tensor<128x2048xf32>"
    head = ("module @jit_generated attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n")
    parts: list[str] = []
    size = len(head)
    k = 0
    while size < target:
        lines = [f"  func.func private @layer_{k}(%arg0: {t} loc(\"x\"), %arg1: {w} loc(\"w\")) -> {t} {{\n"]
        prev = "%arg0"
        for j in range(40):
            loc = f'loc("jit(step)/layer_{k}/op_{j}"("/src/model.py":{j + 10}:{j % 7}))'
            if j % 8 == 3:
                lines.append(f"    %{j} = stablehlo.dot_general {prev}, %arg1, contracting_dims = [1] x [0], "
                             f"precision = [DEFAULT, DEFAULT] : ({t}, {w}) -> {t} {loc}\n")
            elif j % 8 == 5:
                lines.append(f'    %g{j} = "stablehlo.all_gather"({prev}) <{{all_gather_dim = 1 : i64, '
                             f"channel_handle = #stablehlo.channel_handle<handle = {j + 1}, type = 1>, "
                             f"replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, "
                             f"use_global_device_ids}}> : ({t}) -> {g} {loc}\n")
                lines.append(f"    %{j} = stablehlo.slice %g{j} [0:128, 256:512] : ({g}) -> {t} {loc}\n")
            elif j % 8 == 7:
                lines.append(f"    %c{j} = stablehlo.constant dense<0.000000e+00> : tensor<f32> {loc}\n")
                lines.append(f"    %r{j} = stablehlo.reduce({prev} init: %c{j}) applies stablehlo.add across "
                             f"dimensions = [1] : ({t}, tensor<f32>) -> tensor<128xf32> {loc}\n")
                lines.append(f"    %{j} = stablehlo.broadcast_in_dim %r{j}, dims = [0] : (tensor<128xf32>) -> {t} {loc}\n")
            elif j % 2:
                lines.append(f"    %{j} = stablehlo.multiply {prev}, {prev} : {t} {loc}\n")
            else:
                lines.append(f"    %{j} = stablehlo.add {prev}, {prev} : {t} {loc}\n")
            prev = f"%{j}"
        lines.append(f"    return {prev} : {t} loc(\"return\")\n  }}\n")
        body = "".join(lines)
        parts.append(body)
        size += len(body)
        k += 1
    main = [f"  func.func public @main(%arg0: {t}, %arg1: {w}) -> ({t} {{jax.result_info = \"result\"}}) {{\n"]
    prev = "%arg0"
    for i in range(k):
        main.append(f"    %{i} = func.call @layer_{i}({prev}, %arg1) : ({t}, {w}) -> {t}\n")
        prev = f"%{i}"
    main.append(f"    return {prev} : {t}\n  }}\n")
    return head + "".join(main) + "".join(parts) + "}\n"


def _median(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(wall, CPU) medians.  CPU time (``process_time``) is the steadier figure
    on a shared machine; both sides are measured the same way."""
    # Free the previous run's module first (its reference cycles wait for the
    # cyclic GC), so that no run pays for another run's garbage.
    times, cpu = [], []
    for _ in range(repeats):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu)


def bench_one(label: str, text: str, path: Path, repeats: int) -> dict:
    module = parse_stablehlo(text)
    n = sum(1 for _ in module.instructions())
    parse_t, _ = _median(lambda: parse_stablehlo(text), repeats)
    both_t, both_cpu = _median(lambda: parse_stablehlo(text).to_text(), repeats)
    regen_t, _ = _median(lambda: module.to_text(regenerate=True), max(1, repeats // 2))
    ref = mlir_time(path, repeats)
    mb = len(text.encode()) / 1e6
    return {
        "input": f"stablehlo {label}", "MB": round(mb, 2), "instructions": n,
        "parse_s": round(parse_t, 4), "parse_print_s": round(both_t, 4), "regenerate_s": round(regen_t, 4),
        "xla_parse_print_s": None if ref is None else round(ref[0], 4),
        "ratio_vs_xla": None if ref is None else round(both_t / ref[0], 2),
        "parse_print_cpu_s": round(both_cpu, 4),
        "xla_parse_print_cpu_s": None if ref is None else round(ref[1], 4),
        "cpu_ratio_vs_xla": None if ref is None else round(both_cpu / max(ref[1], 1e-9), 2),
        "MB_per_s": round(mb / both_t, 2), "instr_per_s": int(n / both_t),
        "peak_bytes_per_instr": None,
    }


def stablehlo_rows(args: argparse.Namespace, tmp: Path) -> list[dict]:
    """Rows for ``parse_speed.py``; prints the scaling of the generated modules."""
    files = list((SHARED / "corpus" / "stablehlo").glob("*.mlir")) + list((SHARED / "samples").rglob("*.mlir"))
    largest = sorted(files, key=lambda p: p.stat().st_size, reverse=True)[: args.largest]
    rows = [bench_one(p.name, p.read_text(), p, args.repeats) for p in largest]
    gen = []
    for mb in args.sizes:
        text = generated_stablehlo(mb)
        p = tmp / f"generated_{mb}MB.mlir"
        p.write_text(text)
        rows.append(bench_one(f"generated {mb:g} MB", text, p, max(1, args.repeats if mb < 8 else 3)))
        gen.append((mb, rows[-1]))
    if len(gen) >= 2:
        rlo, rhi = gen[0][1], gen[-1][1]
        print(f"stablehlo scaling: {rhi['MB'] / rlo['MB']:.1f}x the text in "
              f"{rhi['parse_print_s'] / rlo['parse_print_s']:.1f}x the wall time, "
              f"{rhi['parse_print_cpu_s'] / rlo['parse_print_cpu_s']:.1f}x the CPU time (parse+print)",
              flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description="StableHLO parse+print speed against jaxlib")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--largest", type=int, default=3)
    ap.add_argument("--sizes", default="1,4,16")
    ap.add_argument("--json")
    args = ap.parse_args()
    args.sizes = [float(s) for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        rows = stablehlo_rows(args, Path(tmp))
    cols = ["input", "MB", "instructions", "parse_s", "parse_print_s", "xla_parse_print_s",
            "ratio_vs_xla", "parse_print_cpu_s", "xla_parse_print_cpu_s", "cpu_ratio_vs_xla",
            "MB_per_s", "instr_per_s", "regenerate_s"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
