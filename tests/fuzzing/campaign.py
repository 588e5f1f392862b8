"""A fuzz campaign: N mutants through the worker pool, findings reduced and written down.

``run_campaign`` returns the summary (also written as ``summary.json`` and
``summary.md`` under ``out``): mutants run, seconds, outcomes per kind, the
non-contract findings per signature with the mutation classes that led there,
and for each signature one reduced reproducer (``reproducers/``).  Every
finding is one line of ``findings.jsonl`` (mutant index, seed module,
mutation classes, signature, message), so any of them can be made again with
``make_mutant(seeds, index, seed)``.
"""
from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .mutators import Mutant, Seed, load_seeds, make_mutant
from .oracle import NON_CONTRACT
from .pool import Pool
from .reduce import reduce

REPO = Path(__file__).resolve().parents[2]
# A hang is an input under this size still running at the timeout (issue 21).
LARGE_INPUT = 1 << 20
SHARED_PARTS = ("samples", "corpus/hlo/valid", "corpus/stablehlo")


def default_shared() -> Path:
    import os

    env = os.environ.get("HLO_PASSES_SHARED")
    return Path(env).resolve() if env else REPO.parent / "shared"


def _mutants(seeds: list[Seed], count: int, seed: int, start: int = 0) -> Iterator[tuple[int, str]]:
    for i in range(start, start + count):
        yield i, make_mutant(seeds, i, seed).text


def run_campaign(mutants: int, seed: int, out: Path, *, workers: int = 2, timeout: float = 10.0,
                 reduce_each: bool = True, reduce_seconds: float = 60.0, max_bytes: int = 120_000,
                 progress: bool = False, shared: Path | None = None, bundled_only: bool = False) -> dict[str, Any]:
    shared = shared or default_shared()
    if not bundled_only and not all((shared / part).is_dir() for part in SHARED_PARTS):
        # A campaign seeded by the few bundled examples alone is a weak one (a second 10^5
        # run from a scratch checkout drew on 2 modules): it must be asked for.
        raise SystemExit(f"the shared corpus is not at {shared} (needs {', '.join(SHARED_PARTS)}): "
                         "set HLO_PASSES_SHARED or --shared, or pass --bundled-only to seed from "
                         "examples/data alone")
    seeds = load_seeds(shared, REPO, max_bytes=max_bytes)
    if not seeds:
        raise SystemExit("no seed modules found (set HLO_PASSES_SHARED to the shared folder)")
    out.mkdir(parents=True, exist_ok=True)
    pool = Pool(workers=workers, timeout=timeout)
    outcomes: Counter[str] = Counter()
    late: Counter[str] = Counter()
    by_signature: dict[str, list[dict[str, Any]]] = defaultdict(list)
    slowest: list[tuple[float, int]] = []
    t0 = time.perf_counter()
    findings_path = out / "findings.jsonl"
    with findings_path.open("w") as findings:
        def record(index: int, result: dict[str, Any]) -> None:
            kind = result["outcome"]
            if result.get("masked"):
                outcomes["parse-error-masked-internal"] += 1
            if kind == "hang" and len(make_mutant(seeds, index, seed).text) >= LARGE_INPUT:
                kind = result["outcome"] = "slow-large-input"  # the contract bounds inputs under 1 MB
            outcomes[kind] += 1
            for stage in result.get("late", ()):
                late[stage] += 1
            slowest.append((result.get("seconds", 0.0), index))
            if kind in NON_CONTRACT:
                m = make_mutant(seeds, index, seed)
                entry = {"index": index, "seed_module": m.seed, "dialect": m.dialect, "classes": list(m.classes),
                         "bytes": len(m.text), **{k: result.get(k) for k in
                                                  ("outcome", "stage", "type", "where", "message", "signature")}}
                if result.get("flake"):
                    entry["flake"] = True
                findings.write(json.dumps(entry) + "\n")
                by_signature[result["signature"]].append(entry)

        done = 0
        for index, result in pool.run(_mutants(seeds, mutants, seed)):
            record(index, result)
            done += 1
            if progress and done % 1000 == 0:
                print(f"  {done}/{mutants} mutants, {time.perf_counter() - t0:.0f} s, "
                      f"{sum(outcomes[k] for k in NON_CONTRACT)} findings", flush=True)
        # Deaths: run alone in a fresh worker; a death again is a defect, anything else a harness flake.
        flakes = 0
        for index, result in pool.rerun_alone():
            if result.get("flake"):
                flakes += 1
                outcomes["death-rerun-survived"] += 1
                continue
            record(index, result)
    run_seconds = time.perf_counter() - t0
    try:
        reproducers = _reduce_all(pool, seeds, seed, by_signature, out, reduce_each, reduce_seconds)
    finally:
        pool.close()
    summary = {
        "mutants": mutants, "seed": seed, "workers": workers, "timeout_s": timeout,
        "seconds": round(run_seconds, 1), "reduce_seconds": round(time.perf_counter() - t0 - run_seconds, 1),
        "outcomes": dict(outcomes), "late_parse_errors": dict(late),
        "non_contract": sum(outcomes[k] for k in NON_CONTRACT), "worker_death_flakes": flakes,
        "seed_modules": len(seeds),
        "slowest": [{"index": i, "seconds": s} for s, i in sorted(slowest, reverse=True)[:5]],
        "signatures": {sig: {"count": len(v), "classes": dict(Counter(c for e in v for c in e["classes"])),
                             "first_index": v[0]["index"], "message": v[0]["message"],
                             "reproducer": reproducers.get(sig)}
                       for sig, v in sorted(by_signature.items(), key=lambda kv: -len(kv[1]))},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "summary.md").write_text(summary_markdown(summary))
    return summary


def _reduce_all(pool: Pool, seeds: list[Seed], seed: int, by_signature: dict[str, list[dict[str, Any]]],
                out: Path, enabled: bool, seconds: float) -> dict[str, str]:
    """One reduced reproducer per signature (the smallest mutant of it, shrunk), as a path under ``out``."""
    paths: dict[str, str] = {}
    folder = out / "reproducers"
    folder.mkdir(exist_ok=True)
    for n, (sig, entries) in enumerate(sorted(by_signature.items())):
        first = min(entries, key=lambda e: e["bytes"])
        mutant: Mutant = make_mutant(seeds, first["index"], seed)
        text = mutant.text
        if enabled and not first.get("flake"):
            def same(t: str, sig: str = sig) -> bool:
                return pool.run_one(t).get("signature") == sig
            budget = seconds if not sig.startswith(("hang", "death")) else max(seconds, 4 * pool.timeout)
            text, _ = reduce(text, same, max_seconds=budget)
        suffix = ".hlo" if mutant.dialect == "hlo" else ".mlir"
        path = folder / f"{n:03d}_{sig.split('|')[0]}{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        paths[sig] = str(path.relative_to(out))
    return paths


def summary_markdown(summary: dict[str, Any]) -> str:
    lines = [
        f"# fuzz campaign: {summary['mutants']} mutants, seed {summary['seed']}",
        "",
        f"{summary['seconds']} s on {summary['workers']} workers (timeout {summary['timeout_s']} s per input), "
        f"{summary['seed_modules']} seed modules; reduction {summary['reduce_seconds']} s.",
        "",
        "| outcome | count |",
        "| --- | --- |",
    ]
    lines += [f"| {k} | {v} |" for k, v in sorted(summary["outcomes"].items())]
    lines += ["", f"Non-contract outcomes: **{summary['non_contract']}**; worker deaths that did not repeat when "
              f"run alone: {summary['worker_death_flakes']}; late ParseErrors (allowed) per stage: "
              f"{summary['late_parse_errors'] or 'none'}.", ""]
    if summary["signatures"]:
        lines += ["| count | signature | mutation classes | reproducer |", "| --- | --- | --- | --- |"]
        for sig, info in summary["signatures"].items():
            classes = ", ".join(f"{c} {n}" for c, n in sorted(info["classes"].items(), key=lambda kv: -kv[1]))
            lines.append(f"| {info['count']} | `{sig}` | {classes} | {info['reproducer']} |")
    return "\n".join(lines) + "\n"
