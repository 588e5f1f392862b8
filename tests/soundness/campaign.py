"""The long differential run, ``python -m soundness`` (from ``tests/``; ``make soundness``).

Programs ``spec_from_seed(seed)`` for ``seed`` in ``[--seed, --seed + --programs)``, each through
the entry points (``--entries``, default the pass inside XLA) in ``--workers`` worker processes
(each a fresh interpreter with 8 fake CPU devices), compared with the program compiled without
the pass.  Every value difference is printed at once as a ``DIFF`` line (its seed and spec rebuild
the program: ``python -m soundness --programs 1 --seed SEED``); the last line is the summary.
Exit 1 on any difference or a rewritten program that fails to run.

``--platform tpu``: the TPU mode (one chip, in this process: no workers; meshes of one device;
entries ``xla`` and ``jit``; XLA:TPU's own ragged-dot), for ``tools/tpu_soundness.sh``.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Small programs compile in LLVM more than in XLA's HLO passes: the backend's optimization level
# changes what LLVM makes of the kernels, not the optimized HLO module the pass sees.
CPU_FLAGS = ("--xla_force_host_platform_device_count=8 --xla_backend_optimization_level=0 "
             "--xla_llvm_disable_expensive_passes=true")


def _cpu_environment() -> None:
    flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {CPU_FLAGS}".strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # the SPMD partitioner's warnings would bury the DIFF lines


def _run_chunk(task: tuple[list[int], tuple[str, ...], int]) -> list[dict[str, Any]]:
    seeds, entries, max_devices = task
    from soundness.check import run_one
    from soundness.programs import spec_from_seed

    out = []
    for seed in seeds:
        for o in run_one(spec_from_seed(seed, max_devices), entries):
            out.append({"seed": seed, "entry": o.entry, "ok": o.ok, "sites": o.sites, "changed": o.changed,
                        "fallback": o.fallback, "error": o.error, "max_diff": o.max_diff, "scale": o.scale,
                        "seconds": round(o.seconds, 3), "line": o.line()})
    return out


def _worker_init() -> None:
    _cpu_environment()
    here = str(Path(__file__).resolve().parent.parent)
    if here not in sys.path:
        sys.path.insert(0, here)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m soundness", description=__doc__.splitlines()[0])
    p.add_argument("--programs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0, help="the first program's seed")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--entries", default=None, help="comma-separated: xla (the pass inside XLA), jit (hlo_passes.jit)")
    p.add_argument("--platform", choices=("cpu", "tpu"), default="cpu")
    p.add_argument("--chunk", type=int, default=10, help="programs per task handed to a worker")
    p.add_argument("--out", type=Path, default=None, help="write every outcome here (JSON lines)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds the whole run may take")
    p.add_argument("--spec", default=None, help="run the one program a result line spells (family=... seed=...), "
                                                 "in this process, and print its line")
    p.add_argument("--family", default=None, help="comma-separated: only the seeds of the range whose program is "
                                                   "of one of these families (moe_pair,block)")
    p.add_argument("--step", choices=("forward", "train"), default=None,
                   help="only the seeds of the range whose program is this step")
    args = p.parse_args(argv)
    entries = tuple((args.entries or ("xla,jit" if args.platform == "tpu" else "xla")).split(","))
    if args.spec:
        if args.platform == "cpu":
            _cpu_environment()
        from soundness.check import run_one
        from soundness.programs import spec_from_line

        outs = run_one(spec_from_line(args.spec), entries)
        for o in outs:
            print(o.line(), flush=True)
        return 1 if any(not o.ok for o in outs) else 0
    seeds = list(range(args.seed, args.seed + args.programs))
    if args.family or args.step:
        from soundness.programs import spec_from_seed

        families = set(args.family.split(",")) if args.family else None
        specs = {s: spec_from_seed(s) for s in seeds}
        seeds = [s for s in seeds if (families is None or specs[s].family in families)
                 and (args.step is None or specs[s].step == args.step)]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    out = args.out.open("w") if args.out else None

    def take(rows: list[dict[str, Any]]) -> None:
        for r in rows:
            results.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            if not r["ok"]:
                print(r["line"], flush=True)
        done = len({r["seed"] for r in results})
        if done // 100 != (done - len({r["seed"] for r in rows})) // 100 or done == len(seeds):
            print(f"soundness: {done}/{len(seeds)} programs, {time.perf_counter() - start:.0f} s", flush=True)

    chunks = [seeds[i:i + args.chunk] for i in range(0, len(seeds), args.chunk)]
    if args.platform == "tpu":
        import jax

        max_devices = len(jax.devices())
        for c in chunks:
            take(_run_chunk((c, entries, max_devices)))
    else:
        _cpu_environment()
        ctx = mp.get_context("spawn")
        with ctx.Pool(args.workers, initializer=_worker_init, maxtasksperchild=20) as pool:
            pending = pool.imap_unordered(_run_chunk, [(c, entries, 8) for c in chunks])
            for _ in chunks:
                take(pending.next(timeout=max(1.0, args.timeout - (time.perf_counter() - start))))
    if out:
        out.close()
    print(summary(results, entries, len(seeds), args.seed, time.perf_counter() - start, args.platform,
                  last=args.seed + args.programs - 1 if (args.family or args.step) else None), flush=True)
    return 1 if any(not r["ok"] for r in results) else 0


def summary(results: list[dict[str, Any]], entries: tuple[str, ...], programs: int, first: int,
            seconds: float, platform: str, last: int | None = None) -> str:
    """``last``: the range's last seed where only some of its seeds ran (``--family``, ``--step``)."""
    by_entry = {e: [r for r in results if r["entry"] == e] for e in entries}
    parts = []
    for e, rows in by_entry.items():
        diffs = sum(1 for r in rows if not r["ok"])
        changed = sum(1 for r in rows if r["changed"])
        sites = Counter(s.rsplit(" ", 1)[0] for r in rows for s in r["sites"])
        errors = sum(1 for r in rows if r["error"] and r["ok"])
        falls = sum(1 for r in rows if r["fallback"])
        parts.append(f"{e}: {diffs} value differences, {changed} programs rewritten "
                     f"({sum(sites.values())} sites: {', '.join(f'{k} {v}' for k, v in sorted(sites.items())) or '-'}), "
                     f"{len(rows) - changed - errors} unchanged, {falls} fallbacks, {errors} programs that do not build")
    seeds = f"seeds {first}..{first + programs - 1}" if last is None else f"of seeds {first}..{last}"
    return (f"soundness summary ({platform}): {programs} programs ({seeds}), "
            f"{seconds:.0f} s; " + "; ".join(parts))


if __name__ == "__main__":
    sys.exit(main())
