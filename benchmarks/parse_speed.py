"""Parse + print throughput of hlo_passes against XLA's C++ parser, same text, same run.

    python benchmarks/parse_speed.py [--repeats N] [--sizes 1,4,16] [--json OUT] [--markdown OUT.md]

For each input (the largest HLO files of the corpus, then generated modules
of the given sizes in MB) it prints: size, instructions, our parse time and
parse+to_text time (medians of N runs), XLA's ``hlo_module_from_text`` +
``to_string()`` time (median, in a subprocess so that an XLA abort cannot
take the benchmark down), the time ratio, MB/s, instructions/s and peak
Python memory per instruction (tracemalloc, one separate run).

Scaling is time(largest generated) / time(smallest generated), to be read
against the size ratio (16 for the default sizes).  The two sizes are timed
in interleaved pairs, each run after a ``gc.collect()``, and the reported
ratio is the median of the per-pair ratios: on a small shared machine the
load drifts over the minutes a run takes, and two medians taken minutes
apart (small module first, large one later) gave anything from 14x to 26x
for the same code.  A pair shares the machine's state of the moment.

``--markdown FILE`` writes the table, the scaling lines and the set-up
(Python, jaxlib, CPUs, repeats) as markdown; ``--json FILE`` the rows.

Dialects register a row producer in ``BENCHES``; StableHLO can add its own.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import hlo_passes  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")

_XLA_TIMER = r"""
import sys, time, statistics, json
from hlo_passes import _jax_compat as compat
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
times = []
for _ in range(n):
    t0 = time.perf_counter()
    m = compat.hlo_module_from_text(text)
    m.to_string()
    times.append(time.perf_counter() - t0)
print(json.dumps(statistics.median(times)))
"""


def xla_time(path: Path, repeats: int) -> float | None:
    r = subprocess.run([sys.executable, "-c", _XLA_TIMER, str(path), str(repeats)],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        return None
    return float(r.stdout.strip().splitlines()[-1])


def generated_hlo(megabytes: float) -> str:
    """A module shaped like a real training step: many small computations of
    elementwise, dot, collective and tuple instructions with metadata."""
    target = int(megabytes * 1_000_000)
    parts = ["HloModule generated, entry_computation_layout={(f32[128,256]{1,0})->f32[128,256]{1,0}}\n"]
    size = len(parts[0])
    k = 0
    comps = []
    while size < target:
        lines = [f"\n%region_{k} (p.{k}: f32[128,256]) -> f32[128,256] {{\n",
                 f"  %p.{k} = f32[128,256]{{1,0}} parameter(0)\n"]
        prev = f"p.{k}"
        for j in range(40):
            name = f"v.{k}.{j}"
            meta = (f', metadata={{op_name="jit(step)/layer_{k}/op_{j}" '
                    f'source_file="/src/model.py" source_line={j + 10}}}')
            if j % 5 == 4:
                lines.append(f"  %{name} = f32[128,256]{{1,0}} all-reduce(%{prev}), channel_id={k * 40 + j + 1}, "
                             f"replica_groups={{{{0,1,2,3}},{{4,5,6,7}}}}, use_global_device_ids=true, "
                             f"to_apply=%add{meta}\n")
            elif j % 5 == 2:
                lines.append(f"  %{name} = f32[128,256]{{1,0}} dot(%{prev}, %c.{k}), lhs_contracting_dims={{1}}, "
                             f"rhs_contracting_dims={{0}}{meta}\n")
            elif j == 1:
                lines.append(f"  %c.{k} = f32[256,256]{{1,0}} broadcast(%one.{k}), dimensions={{}}\n")
                lines.append(f"  %one.{k} = f32[] constant(1)\n")
                lines.append(f"  %{name} = f32[128,256]{{1,0}} multiply(%{prev}, %{prev}){meta}\n")
            else:
                lines.append(f"  %{name} = f32[128,256]{{1,0}} add(%{prev}, %{prev}){meta}\n")
            prev = name
        lines.append(f"  ROOT %out.{k} = f32[128,256]{{1,0}} copy(%{prev})\n}}\n")
        # constants must precede their users for XLA: move %one before %c
        body = "".join(lines)
        body = body.replace(f"  %c.{k} = f32[256,256]{{1,0}} broadcast(%one.{k}), dimensions={{}}\n  %one.{k} = f32[] constant(1)\n",
                            f"  %one.{k} = f32[] constant(1)\n  %c.{k} = f32[256,256]{{1,0}} broadcast(%one.{k}), dimensions={{}}\n")
        parts.append(body)
        comps.append(f"region_{k}")
        size += len(body)
        k += 1
    add = ("\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
           "  ROOT %s = f32[] add(%x, %y)\n}\n")
    entry = ["\nENTRY %main (a: f32[128,256]) -> f32[128,256] {\n  %a = f32[128,256]{1,0} parameter(0)\n"]
    prev = "a"
    for i, c in enumerate(comps):
        entry.append(f"  %call.{i} = f32[128,256]{{1,0}} call(%{prev}), to_apply=%{c}\n")
        prev = f"call.{i}"
    entry.append(f"  ROOT %r = f32[128,256]{{1,0}} copy(%{prev})\n}}\n")
    return parts[0] + add + "".join(parts[1:]) + "".join(entry)


def _timed(fn: Callable[[], object]) -> float:
    # The previous run's module is a heap of reference cycles that only the
    # cyclic GC frees; collect it now so that no run pays for another's.
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    return statistics.median(_timed(fn) for _ in range(repeats))


def _parse_print(text: str, dialect: str = "hlo") -> Callable[[], object]:
    return lambda: hlo_passes.parse(text, dialect=dialect).to_text()


def measure_scaling(small: str, big: str, repeats: int, dialect: str = "hlo") -> dict:
    """time(big) / time(small) for parse+print, from interleaved pairs of runs."""
    small_fn, big_fn = _parse_print(small, dialect), _parse_print(big, dialect)
    small_fn()  # warm the shape and attribute caches for both
    big_fn()
    pairs = []
    for _ in range(repeats):
        s_t = _timed(small_fn)
        b_t = _timed(big_fn)
        pairs.append((s_t, b_t))
    ratios = sorted(b / s for s, b in pairs)
    return {
        "size_ratio": round(len(big) / len(small), 2),
        "time_ratio": round(statistics.median(ratios), 2),
        "time_ratio_min": round(ratios[0], 2),
        "time_ratio_max": round(ratios[-1], 2),
        "small_s": round(statistics.median(s for s, _ in pairs), 4),
        "big_s": round(statistics.median(b for _, b in pairs), 4),
        "pairs": len(pairs),
    }


def bench_hlo(label: str, text: str, path: Path, repeats: int) -> dict:
    module = hlo_passes.parse(text, dialect="hlo")
    n_instr = sum(1 for _ in module.instructions())
    parse_t = _median_time(lambda: hlo_passes.parse(text, dialect="hlo"), repeats)
    both_t = _median_time(lambda: hlo_passes.parse(text, dialect="hlo").to_text(), repeats)
    regen_t = _median_time(lambda: module.to_text(regenerate=True), max(1, repeats // 2))
    gc.collect()
    tracemalloc.start()
    m = hlo_passes.parse(text, dialect="hlo")
    m.graph  # noqa: B018 - built on first use: counted, as the rules will build it
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del m
    xla = xla_time(path, repeats)
    mb = len(text.encode()) / 1e6
    return {
        "input": label, "MB": round(mb, 2), "instructions": n_instr,
        "parse_s": round(parse_t, 4), "parse_print_s": round(both_t, 4),
        "regenerate_s": round(regen_t, 4),
        "xla_parse_print_s": None if xla is None else round(xla, 4),
        "ratio_vs_xla": None if xla is None else round(both_t / xla, 2),
        "MB_per_s": round(mb / both_t, 2), "instr_per_s": int(n_instr / both_t),
        "peak_bytes_per_instr": int(peak / max(n_instr, 1)),
    }


BENCHES: dict[str, Callable[[argparse.Namespace, Path], list[dict]]] = {}


def hlo_rows(args: argparse.Namespace, tmp: Path) -> list[dict]:
    rows = []
    valid = CORPUS / "hlo" / "valid"
    largest = sorted(valid.glob("*.hlo"), key=lambda p: p.stat().st_size, reverse=True)[: args.largest]
    for p in largest:
        rows.append(bench_hlo(p.name, p.read_text(), p, args.repeats))
    texts = {}
    for mb in args.sizes:
        text = texts[mb] = generated_hlo(mb)
        p = tmp / f"generated_{mb}MB.hlo"
        p.write_text(text)
        rows.append(bench_hlo(f"generated {mb:g} MB", text, p, max(1, args.repeats if mb < 8 else 3)))
    if len(texts) >= 2:
        lo, hi = min(texts), max(texts)
        sc = measure_scaling(texts[lo], texts[hi], max(3, args.repeats))
        SCALING.append(
            f"hlo scaling (parse+print, generated {lo:g} MB → {hi:g} MB): {sc['size_ratio']:.1f}x the text "
            f"in {sc['time_ratio']:.1f}x the time (median of {sc['pairs']} interleaved pairs; "
            f"{sc['time_ratio_min']:.1f}x–{sc['time_ratio_max']:.1f}x; {sc['small_s']} s → {sc['big_s']} s)")
        print(SCALING[-1], flush=True)
    return rows


# Lines about scaling, printed as they come and repeated in --markdown.
SCALING: list[str] = []


BENCHES["hlo"] = hlo_rows

# StableHLO rows (parse+print against jaxlib's MLIR parser) live in their own file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stablehlo_speed import stablehlo_rows  # noqa: E402

BENCHES["stablehlo"] = stablehlo_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--largest", type=int, default=3)
    ap.add_argument("--sizes", default="1,4,16")
    ap.add_argument("--dialects", default=",".join(BENCHES))
    ap.add_argument("--json")
    ap.add_argument("--markdown", metavar="FILE", help="write the results as a markdown table")
    args = ap.parse_args()
    args.sizes = [float(s) for s in args.sizes.split(",") if s]
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in args.dialects.split(","):
            rows.extend(BENCHES[d](args, Path(tmp)))
    cols = ["input", "MB", "instructions", "parse_s", "parse_print_s", "xla_parse_print_s",
            "ratio_vs_xla", "MB_per_s", "instr_per_s", "peak_bytes_per_instr", "regenerate_s"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(_cell(r.get(c)) for c in cols))
    if "stablehlo" in args.dialects.split(",") and len(args.sizes) >= 2:
        # Measured like the HLO line: interleaved pairs, each run after gc.collect().
        from _stablehlo_speed import generated_stablehlo

        lo, hi = min(args.sizes), max(args.sizes)
        sc = measure_scaling(generated_stablehlo(lo), generated_stablehlo(hi), max(3, args.repeats), "stablehlo")
        SCALING.append(
            f"stablehlo scaling (parse+print, generated {lo:g} MB → {hi:g} MB): {sc['size_ratio']:.1f}x the "
            f"text in {sc['time_ratio']:.1f}x the time (median of {sc['pairs']} interleaved pairs; "
            f"{sc['time_ratio_min']:.1f}x–{sc['time_ratio_max']:.1f}x; {sc['small_s']} s → {sc['big_s']} s)")
    for line in SCALING:
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(markdown_report(rows, cols, args))


def _cell(value: object) -> str:
    return "–" if value is None else str(value)


def markdown_report(rows: list[dict], cols: list[str], args: argparse.Namespace) -> str:
    """The results as a markdown document: set-up, one table, scaling lines."""
    try:
        from jaxlib import version as jaxlib_version

        jaxlib = jaxlib_version.__version__
    except Exception:  # noqa: BLE001 - the set-up line is informative only
        jaxlib = "unknown"
    out = [
        "# Parse + print speed: hlo_passes against XLA's C++ parser",
        "",
        f"- date (UTC): {time.strftime('%Y-%m-%d %H:%M', time.gmtime())}",
        f"- Python {platform.python_version()}, jaxlib {jaxlib}, {os.cpu_count()} CPUs, {platform.machine()}",
        f"- command: `python benchmarks/parse_speed.py {' '.join(sys.argv[1:])}`",
        f"- times are medians of {args.repeats} runs (3 for inputs of 8 MB and more); "
        "`xla_parse_print_s` is jaxlib's parse + `to_string()` (MLIR parse + print for StableHLO rows); "
        "`ratio_vs_xla` = `parse_print_s` / `xla_parse_print_s`",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---" if c == "input" else "---:" for c in cols) + "|",
    ]
    for r in rows:
        out.append("| " + " | ".join(_cell(r.get(c)).replace("|", "\\|") for c in cols) + " |")
    if SCALING:
        out.append("")
        out.extend(f"- {line}" for line in SCALING)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
