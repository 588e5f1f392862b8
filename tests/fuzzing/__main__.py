"""``python -m fuzzing`` (from tests/): a fuzz campaign; exit 1 if anything broke the contract."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .campaign import run_campaign, summary_markdown


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzzing", description=__doc__)
    ap.add_argument("--mutants", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"))
    ap.add_argument("--no-reduce", action="store_true", help="keep the mutants as found")
    ap.add_argument("--reduce-seconds", type=float, default=60.0, help="reduction budget per finding class")
    ap.add_argument("--shared", type=Path, default=None, help="the shared folder (default ../shared)")
    ap.add_argument("--bundled-only", action="store_true",
                    help="run without the shared corpus, seeded by examples/data alone")
    args = ap.parse_args(argv)
    summary = run_campaign(args.mutants, args.seed, args.out, workers=args.workers, timeout=args.timeout,
                           reduce_each=not args.no_reduce, reduce_seconds=args.reduce_seconds, progress=True,
                           shared=args.shared, bundled_only=args.bundled_only)
    print(summary_markdown(summary))
    print(f"written: {args.out}/summary.md, summary.json, findings.jsonl, reproducers/")
    return 1 if summary["non_contract"] else 0


if __name__ == "__main__":
    sys.exit(main())
