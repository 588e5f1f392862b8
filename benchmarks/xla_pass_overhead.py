"""What ``install(mode="rewrite")`` (the pass inside XLA's pipeline) adds to ``jax.jit(f).lower().compile()``.

    python benchmarks/xla_pass_overhead.py [--repeats 5] [--layers 60] [--quick]

Programs (8 CPU devices; the stacks are benchmarks/hook_overhead.py's), each compiled with plain
``jax.jit`` with the pass off and on, interleaved (order alternating), each compile on a new
function object (jax caches executables per function), after a warm-up of each:

* with sites: ``--layers`` MoE FFN layers, each with its prefused weight sliced and each half
  all-gathered: the pre-filter lets the module through, it is parsed, the MOE rules rewrite every
  site (the fusions on its path opened, docs/optimized-hlo.md) and XLA compiles the module handed
  back; the step column is what the rewrite buys at run time;
* with sites, rewritten: the same with the test rule ``XPA001`` of tests/xla_pass_rules.py added
  (reorders the operands of every add): the whole path — parse, rules, print, XLA's parser, the
  proto — and XLA compiling the module handed back;
* collectives, weight gathered whole: the same stack with the prefused weight gathered in one piece
  (what the rules would make of the first);
* no collective: grouped-matmul layers on one device: the pre-filter skips the module.

Reported: medians of each compile, the median of per-round ratios (pass on / pass off), the
callback's own time (``xla_pass._transform``) as a share of the plain compile, and the executed
step time of the two executables (ratio).  Targets: ≤ 1.05× with a site, ≤ 1.01× without collectives.
"""
from __future__ import annotations

import os
import sys

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, fmt, machine_line, md_table, median, utc_now, write_fragment  # noqa: E402
from hook_overhead import ffn_stack, plain_stack  # noqa: E402

import jax  # noqa: E402

import hlo_passes  # noqa: E402
from hlo_passes import xla_pass  # noqa: E402

TARGET_SITE = 0.05
TARGET_NO_COLLECTIVE = 0.01
RULES = REPO / "tests" / "xla_pass_rules.py"


class _CallbackTimer:
    """Times the callback's work (``xla_pass._transform``, which ``_on_compile`` calls)."""

    def __init__(self) -> None:
        self.real = xla_pass._transform
        self.total = 0.0

    def __enter__(self) -> "_CallbackTimer":
        def timed(serialized: bytes):
            t0 = time.perf_counter()
            try:
                return self.real(serialized)
            finally:
                self.total += time.perf_counter() - t0

        xla_pass._transform = timed
        return self

    def __exit__(self, *exc) -> None:
        xla_pass._transform = self.real


def _step_time(executable, args: tuple, repeats: int) -> float:
    jax.block_until_ready(executable(*args))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(executable(*args))
        times.append(time.perf_counter() - t0)
    return median(times)


def measure(name: str, fn: Callable, args: tuple, passes: list[str] | None, repeats: int,
            timer: _CallbackTimer) -> dict:
    def compile_once(on: bool) -> tuple[float, float, object]:
        f = lambda *a: fn(*a)  # noqa: E731 - a new function object: jax compiles it anew
        if on:
            hlo_passes.install("rewrite", platforms="cpu", passes=passes)
        gc.collect()
        timer.total = 0.0
        try:
            t0 = time.perf_counter()
            executable = jax.jit(f).lower(*args).compile()
            wall = time.perf_counter() - t0
            report = hlo_passes.installed_report() if on else None
        finally:
            if on:
                hlo_passes.uninstall()
        if report is not None and report.fallbacks:
            raise RuntimeError(f"{name}: the pass fell back: {report.fallbacks}")
        return wall, timer.total, report if on else executable

    compile_once(False)
    _, _, report = compile_once(True)
    ons, offs, own, ratios = [], [], [], []
    for i in range(repeats):
        if i % 2:
            on, own_s, _ = compile_once(True)
            off, _, _ = compile_once(False)
        else:
            off, _, _ = compile_once(False)
            on, own_s, _ = compile_once(True)
        ons.append(on)
        offs.append(off)
        own.append(own_s)
        ratios.append(on / off)
    # The executables: with the pass on and off, their step time.
    _, _, plain = compile_once(False)
    hlo_passes.install("rewrite", platforms="cpu", passes=passes)
    try:
        rewritten = jax.jit(lambda *a: fn(*a)).lower(*args).compile()
    finally:
        hlo_passes.uninstall()
    step_ratio = _step_time(rewritten, args, repeats) / _step_time(plain, args, repeats)
    return {"program": name, "looked_at": len(report.modules), "skipped": report.skipped,
            "found": sum(m.found for m in report.modules), "rewritten": report.sites_rewritten,
            "off_s": median(offs), "on_s": median(ons), "ratio": median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "own_s": median(own), "own_share": median(own) / median(offs),
            "step_ratio": step_ratio, "repeats": repeats}


def report(rows: list[dict], command: str) -> list[str]:
    table = [[r["program"], "skipped (pre-filter)" if r["skipped"] and not r["looked_at"] else "parsed",
              str(r["found"]), str(r["rewritten"]), fmt(r["off_s"]), fmt(r["on_s"]),
              f"{r['ratio']:.3f}× ({r['ratio_min']:.3f} … {r['ratio_max']:.3f})",
              f"{fmt(r['own_s'])} s = {100 * r['own_share']:.1f} %", f"{r['step_ratio']:.3f}×"]
             for r in rows]
    lines = [
        "## The pass inside XLA: compile time with install(mode=\"rewrite\") vs without",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `{command}`; medians of {rows[0]['repeats'] if rows else 0} interleaved rounds (order "
        "alternating) after a warm-up of each; plain `jax.jit(f).lower(*args).compile()`, 8 CPU devices",
        "- ratio = median over rounds of (compile with the pass / compile without); the callback's own time "
        "(proto → text, pre-filter, parse, rules, print, text → proto) as a share of the compile without; "
        "step = median executed step time of the executable compiled with the pass / without",
        "",
        *md_table(["program", "module", "sites found", "rewritten", "compile off s", "compile on s", "ratio",
                   "callback's own", "step"], table),
        "",
    ]
    for r in rows:
        has_site = r["found"] > 0
        no_collective = r["skipped"] and not r["looked_at"]
        if not (has_site or no_collective):
            lines.append(f"- {r['program']}: {r['ratio']:.3f}× (no target)")
            continue
        target = TARGET_SITE if has_site else TARGET_NO_COLLECTIVE
        if no_collective:
            # XLA compiles its own module; the callback's own time is all that differs, measured
            # directly (the end-to-end ratio of two ~equal numbers is mostly the machine's noise).
            ok, why = r["own_share"] <= target, (f"the callback's own {fmt(r['own_s'])} s = "
                                                 f"{100 * r['own_share']:.2f} %; end to end {r['ratio']:.3f}×")
        else:
            ok, why = r["ratio"] <= 1 + target, (f"{r['ratio']:.3f}×, rounds {r['ratio_min']:.3f} … "
                                                 f"{r['ratio_max']:.3f}; the callback's own "
                                                 f"{100 * r['own_share']:.1f} %")
        lines.append(f"- {r['program']}: ≤ {1 + target:g}×: **{'met' if ok else 'not met'}** ({why})")
    return lines


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--layers", type=int, default=60, help="FFN layers of the stacks")
    ap.add_argument("--quick", action="store_true", help="smoke run: 2 layers, 1 round")
    args = ap.parse_args(argv)
    if args.quick:
        args.layers, args.repeats = 2, 1
    hlo_passes.load_plugin(str(RULES))
    moe_passes = ["MOE001", "MOE002", "MOE003", "MOE004"]
    stack = ffn_stack("concat", args.layers)
    programs = [
        (f"with sites, rewritten by the MOE rules ({args.layers} FFN layers, split gathers)", *stack, moe_passes),
        (f"with sites, rewritten by the test rule XPA001 ({args.layers} FFN layers)", *stack,
         [*moe_passes, "XPA001"]),
        (f"collectives, weight gathered whole ({args.layers} fused FFN layers)", *ffn_stack("fused", args.layers),
         moe_passes),
        (f"no collective ({args.layers} one-device GMM layers)", *plain_stack(args.layers), moe_passes),
    ]
    rows = []
    with _CallbackTimer() as timer:
        for name, fn, fargs, passes in programs:
            rows.append(measure(name, fn, fargs, passes, args.repeats, timer))
            r = rows[-1]
            print(f"{name}: off {r['off_s']:.3f} s, on {r['on_s']:.3f} s, ratio {r['ratio']:.3f}, "
                  f"own {r['own_s']:.4f} s, found {r['found']}, rewritten {r['rewritten']}", flush=True)
    command = "python benchmarks/xla_pass_overhead.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(rows, command.strip())
    print("\n".join(lines))
    write_fragment("xla_pass_overhead", lines)
    return rows


if __name__ == "__main__":
    main()
