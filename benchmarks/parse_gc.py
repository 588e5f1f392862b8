"""Parsing many modules in one process: memory and speed of what the parsers do with the collector.

    python benchmarks/parse_gc.py [--rounds 12] [--repeats 3] [--quick]

A parse runs with the cyclic collector paused (hlo_passes/_gc.py);
what it built is then either left in the youngest generation or promoted to
the oldest one at once.  Three ways, each timed in fresh interpreters
(alternating, ``--repeats`` processes each):

* ``young``: the collector resumes with the module in the youngest
  generation (the reference: CPython's own bookkeeping);
* ``promoted``: promoted and not counted (hlo_passes before issue 19: the
  oldest generation is never collected, memory grows without bound);
* ``counted``: promoted, counted, and a full collection run before a parse
  once a quarter of the heap may be garbage (what the parsers do now).

Two workloads per dialect, over a round of generated modules (0.05, 0.2 and
0.5 MB; HLO and StableHLO shaped like lowered training steps):

* ``drop``: parse every module of the round and drop it (the jit hook,
  ``install()``, ``hlo-lint`` over a dump folder); per round: CPU time, and
  the growth of the process's resident memory from the second round to the last;
* ``keep``: parse them and keep every module of every round (a caller that
  holds what it parsed); per round: CPU time.

Times are the process's CPU time per round (the machine is shared: wall time
drifts with the other processes' load), medians over rounds, then over
processes, given as ratios to ``young`` of the same dialect and workload.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, machine_line, md_table, median, run_json, utc_now, write_fragment  # noqa: E402

STRATEGIES = ("young", "promoted", "counted")
SIZES_MB = (0.05, 0.2, 0.5)
QUICK_SIZES_MB = (0.02, 0.05)

_CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, "benchmarks")
from parse_speed import generated_hlo
from _stablehlo_speed import generated_stablehlo
import hlo_passes
from hlo_passes import _gc

strategy, dialect, workload, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sizes = json.loads(sys.argv[5])
if strategy == "young":
    _gc.promote_young_objects = lambda: None
elif strategy == "promoted":
    _gc.collect_if_due = lambda: False
make = generated_hlo if dialect == "hlo" else generated_stablehlo
texts = [make(mb) for mb in sizes]

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

kept, times, rss = [], [], []
gc.collect()
for _ in range(rounds):
    t0 = time.process_time()
    for text in texts:
        m = hlo_passes.parse(text, dialect=dialect)
        if workload == "keep":
            kept.append(m)
        del m
    times.append(time.process_time() - t0)
    rss.append(rss_mb())
print(json.dumps({"times": times, "rss": rss}))
"""


def measure(strategy: str, dialect: str, workload: str, rounds: int, sizes: tuple[float, ...]) -> dict:
    out = run_json(_CHILD, strategy, dialect, workload, str(rounds), json.dumps(sizes))
    times = out["times"][1:]  # the first round also warms the interpreter up
    return {"time": median(times), "growth": out["rss"][-1] - out["rss"][1], "rss": out["rss"][-1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=5, help="processes per strategy and workload")
    ap.add_argument("--quick", action="store_true", help="smoke run: small modules, 3 rounds, 1 process")
    args = ap.parse_args(argv)
    sizes = QUICK_SIZES_MB if args.quick else SIZES_MB
    rounds = 3 if args.quick else args.rounds
    repeats = 1 if args.quick else args.repeats

    results: dict[tuple[str, str, str], list[dict]] = {}
    for dialect in ("stablehlo", "hlo"):
        for workload in ("drop", "keep"):
            for rep in range(repeats):
                # Alternate the order so that no strategy always runs on a warmer machine.
                order = STRATEGIES if rep % 2 == 0 else tuple(reversed(STRATEGIES))
                for strategy in order:
                    r = measure(strategy, dialect, workload, rounds, sizes)
                    results.setdefault((dialect, workload, strategy), []).append(r)
                    print(f"{dialect:9} {workload:4} {strategy:8} round {r['time'] * 1e3:8.1f} CPU ms  "
                          f"growth {r['growth']:8.1f} MB", flush=True)

    rows = []
    for dialect in ("stablehlo", "hlo"):
        for workload in ("drop", "keep"):
            ref = median([r["time"] for r in results[(dialect, workload, "young")]])
            for strategy in STRATEGIES:
                runs = results[(dialect, workload, strategy)]
                t = median([r["time"] for r in runs])
                growth = median([r["growth"] for r in runs])
                rows.append([dialect, workload, strategy, f"{t * 1e3:.1f}", f"{t / ref:.3f}",
                             fmt(growth, 3) if workload == "drop" else "–",
                             fmt(median([r["rss"] for r in runs]), 4)])
    lines = [
        "## Parsing many modules in one process: memory and speed",
        "",
        f"`python benchmarks/parse_gc.py{' --quick' if args.quick else ''}` — {utc_now()}; {machine_line()}.",
        f"A round parses generated modules of {', '.join(f'{s} MB' for s in sizes)}; {rounds} rounds per process, "
        f"{repeats} process(es) per row; times are medians over rounds then processes, as ratios to `young`.",
        "Memory growth: resident memory after the last round minus after the second (drop: nothing is kept).",
        "",
        *md_table(["dialect", "workload", "strategy", "round (CPU ms)", "× young", "memory growth (MB)",
                   "final RSS (MB)"], rows),
        "",
        "`young`: the module left in the youngest generation; `promoted`: moved to the oldest and never counted "
        "(before issue 19: memory grows with every parse); `counted`: moved, counted, and collected once a "
        "quarter of the heap may be garbage (the parsers now).",
    ]
    path = write_fragment("parse_gc", lines)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
