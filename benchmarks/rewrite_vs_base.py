"""The rewrite's CPU time against an earlier commit's, on the same generated modules.

    python benchmarks/rewrite_vs_base.py BASE_REV [--rounds N] [--mb M]

Issue 16 asked that restructuring the engine leave the rewrite's speed within noise of
what it was before.  Each round runs ``run_passes`` (default passes) on tool_speed's
generated MoE modules of ``M`` MB (HLO and StableHLO, generated once by this tree's
generators, so both trees get the same text) in a fresh subprocess per tree — BASE_REV
checked out into a temporary git worktree, and this checkout — one after the other,
the order flipping each round; each process takes the best of 3 rewrites (CPU time,
parse and the def→use graph excluded).  Printed: per dialect the median over rounds of the per-round ratio
new / base, its range, and the ratio of the medians.  Nothing is asserted: on a shared
machine the per-round ratio is the figure to quote.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import IN_TREE, REPO, base_worktree, interleaved  # noqa: E402

DIALECTS = ("hlo", "stablehlo")

# Run in the tree under test: its hlo_passes, the texts from files written beforehand.
_CHILD = IN_TREE + r'''
import gc, time
from hlo_passes.passes import run_passes
out = []
for path in args:
    text = open(path, encoding="utf-8").read()
    best = []
    for _ in range(3):
        module = hlo_passes.parse(text)
        module.graph  # built by the parse before the graph was lazy: the rewrite alone is timed either way
        gc.collect()
        t = time.process_time()
        run_passes(module, copy=False)
        best.append(time.process_time() - t)
    out.append(min(best))
print(*out)
'''


def _generate(folder: Path, mb: int) -> list[Path]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import tool_speed

    paths = []
    for dialect, make in zip(DIALECTS, (tool_speed.moe_hlo, tool_speed.moe_stablehlo)):
        path = folder / f"moe_{mb}mb.{dialect}"
        path.write_text(make(mb), encoding="utf-8")
        paths.append(path)
    return paths


def _rewrite_seconds(root: Path, paths: list[Path]) -> list[float]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(root), *map(str, paths)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"rewrite in {root} failed:\n{proc.stderr[-3000:]}")
    return [float(x) for x in proc.stdout.split()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the commit to compare with (e.g. 3bfd838)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--mb", type=int, default=4, help="size of the generated modules")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rewrite_vs_base.") as tmp, base_worktree(args.base, Path(tmp)) as base:
        paths = _generate(Path(tmp), args.mb)
        seconds = interleaved({"base": base, "new": REPO}, args.rounds, lambda tree: _rewrite_seconds(tree, paths))
    print(f"rewrite CPU time of the generated {args.mb} MB modules, this tree / {args.base}, {args.rounds} rounds:")
    for i, dialect in enumerate(DIALECTS):
        pairs = sorted(n[i] / b[i] for n, b in zip(seconds["new"], seconds["base"]))
        medians = [statistics.median(s[i] for s in seconds[k]) for k in ("new", "base")]
        print(f"  {dialect}: per-round ratio median {statistics.median(pairs):.3f} (range {pairs[0]:.3f}–"
              f"{pairs[-1]:.3f}); ratio of medians {medians[0] / medians[1]:.3f} "
              f"({medians[0]:.3f} s / {medians[1]:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
