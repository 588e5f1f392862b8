"""What ``hlo_passes.jit`` adds to jax.jit's lower + compile, small and large programs.

    python benchmarks/hook_overhead.py [--repeats 3] [--layers 240] [--quick]

Programs (8 CPU devices):

* small: the project's MoE FFN layer (``examples/moe.py``, mesh1, explicit
  gathers, forward): one candidate;
* large, candidate: ``--layers`` such FFN layers unrolled (each a shard_map
  whose prefused weight is sliced and each half all-gathered), ≥ 10k ops;
* large, collectives but no candidate: the same stack with the weight
  gathered whole (``fused``): the pre-scan must let it through, the rules
  find nothing;
* large, no candidate: a stack of grouped-matmul FFN layers on one device
  with no collective at all (inference-like): the pre-scan skips the parse.

Per round, interleaved: ``jax.jit(f).lower(*args).compile()`` and
``hlo_passes.jit(f).lower(*args).compile()``, each on a new function object
wrapping the program (jax caches traces and executables per function: a
cached compile is not what a program's first call costs) (kernel ``xla`` when the hook
has the option, so both compile the same grouped matmul), both after a
warm-up of each (tracing caches are jax's own, shared by both).  Reported:
medians of each, the median of the per-round ratios (extra = ratio − 1), and
the hook's own time (``_rewrite``: text, pre-scan, parse, passes, print,
MLIR re-parse) as a share of jax's lower + compile.  Targets on the large
programs: ≤ 10 % extra with a candidate, ≤ 2 % without.
"""
from __future__ import annotations

import os
import sys

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import gc  # noqa: E402
import inspect  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, machine_line, md_table, median, utc_now, write_fragment  # noqa: E402

import jax  # noqa: E402

import hlo_passes  # noqa: E402
from examples import moe  # noqa: E402
from examples.moe import ProgramSpec  # noqa: E402
from hlo_passes import jax_hook  # noqa: E402

TARGET_CANDIDATE = 0.10
TARGET_NO_CANDIDATE = 0.02


def ffn_stack(variant: str, layers: int) -> tuple[Callable, tuple]:
    """``layers`` FFN layers of the MoE program, unrolled, each with its own weights."""
    spec = ProgramSpec(variant=variant, mesh="mesh1", form="explicit", mode="forward")
    mesh = moe.program_mesh(spec)
    ffn = moe.ffn_fn(spec, mesh)
    x, gs, w, wo = moe.inputs(spec, mesh)
    ws = [w] * layers
    wos = [wo] * layers

    def stack(x, gs, ws, wos):
        h = x
        for wl, wol in zip(ws, wos):
            h = h + ffn(h, gs, wl, wol)
        return h

    return stack, (x, gs, ws, wos)


def plain_stack(layers: int) -> tuple[Callable, tuple]:
    """Grouped-matmul FFN layers on one device: no collective anywhere."""
    spec = ProgramSpec(variant="fused")
    f = spec.cfg.mlp
    x, gs, w, wo = moe.host_inputs(spec)

    def stack(x, gs, ws, wos):
        h = x
        for wl, wol in zip(ws, wos):
            gu = moe.gmm(h, wl, gs)
            h = h + moe.gmm(jax.nn.silu(gu[:, :f]) * gu[:, f:], wol, gs)
        return h

    return stack, (x, gs, [w] * layers, [wo] * layers)


def small() -> tuple[Callable, tuple]:
    fn, args = moe.build(ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="forward"))
    return fn.__wrapped__, args


def _hook_kwargs() -> dict:
    params = inspect.signature(hlo_passes.jit).parameters
    return {"kernel": "xla"} if "kernel" in params else {}


class _RewriteTimer:
    """Times the hook's own step (``jax_hook._rewrite``) while installed."""

    def __init__(self) -> None:
        self.real = jax_hook._rewrite
        self.last = 0.0
        self.last_cpu = 0.0  # this thread's CPU time in the step: steadier on a shared machine
        self.last_result = None

    def __enter__(self) -> "_RewriteTimer":
        def timed(*a, **k):
            t0, c0 = time.perf_counter(), time.thread_time()
            out = self.real(*a, **k)
            self.last += time.perf_counter() - t0
            self.last_cpu += time.thread_time() - c0
            self.last_result = out[1]
            return out

        jax_hook._rewrite = timed
        return self

    def __exit__(self, *exc) -> None:
        jax_hook._rewrite = self.real


def measure(name: str, fn: Callable, args: tuple, repeats: int, timer: _RewriteTimer) -> dict:
    kwargs = _hook_kwargs()

    def fresh() -> Callable:
        # A new function each time: jax caches traces and executables per
        # function, and a cached compile is not what a first call costs.
        return lambda *a: fn(*a)

    def plain_jax() -> tuple[float, float]:
        f = fresh()
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        jax.jit(f).lower(*args).compile()
        return time.perf_counter() - t0, time.process_time() - c0

    def hooked() -> tuple[float, float, float]:
        f = fresh()
        gc.collect()
        timer.last = 0.0
        t0, c0 = time.perf_counter(), time.process_time()
        low = hlo_passes.jit(f, **kwargs).lower(*args)
        low.compile()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if low.fell_back:
            raise RuntimeError(f"{name}: the hook fell back: {low.error}")
        return wall, cpu, timer.last

    low = jax.jit(fn).lower(*args)
    text = low.as_text()
    n_ops = sum(1 for _ in hlo_passes.parse(text).instructions())
    plain_jax()
    hooked()
    sites = len(timer.last_result.sites) if timer.last_result is not None else 0
    skipped = timer.last_result is None
    js, hs, hook_own, ratios, cpu_ratios, jcpu = [], [], [], [], [], []
    for i in range(repeats):
        # Alternate which side goes first, so that neither always runs on a warmer machine.
        if i % 2:
            h, hc, own = hooked()
            j, jc = plain_jax()
        else:
            j, jc = plain_jax()
            h, hc, own = hooked()
        js.append(j)
        hs.append(h)
        jcpu.append(jc)
        hook_own.append(own)
        ratios.append(h / j)
        cpu_ratios.append(hc / jc)
    return {"program": name, "ops": n_ops, "MB": len(text) / 1e6, "sites": sites, "skipped": skipped,
            "jax_s": median(js), "hook_s": median(hs), "extra": median(ratios) - 1, "extra_min": min(ratios) - 1,
            "extra_max": max(ratios) - 1, "extra_cpu": median(cpu_ratios) - 1, "jax_cpu_s": median(jcpu),
            "own_s": median(hook_own), "own_share": median(hook_own) / median(js), "repeats": repeats}


def report(rows: list[dict], command: str) -> list[str]:
    table = [[r["program"], f"{r['ops']:,}", f"{r['MB']:.2f}", str(r["sites"]),
              "skipped (pre-scan)" if r["skipped"] else "parsed", fmt(r["jax_s"]), fmt(r["hook_s"]),
              f"{100 * r['extra']:+.1f} % ({100 * r['extra_min']:+.1f} … {100 * r['extra_max']:+.1f})",
              f"{100 * r['extra_cpu']:+.1f} %", f"{fmt(r['own_s'])} s = {100 * r['own_share']:.1f} %"]
             for r in rows]
    lines = [
        "## Hook overhead: hlo_passes.jit lower + rewrite + compile vs jax.jit lower + compile",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `{command}`; medians of {rows[0]['repeats'] if rows else 0} interleaved rounds (order "
        f"alternating), after a warm-up of each; hook options {_hook_kwargs() or '{}'}; 8 CPU devices",
        "- extra = median over rounds of (hlo_passes.jit time / jax.jit time) − 1, min … max in brackets; "
        "hook's own = time inside the hook's rewrite step (StableHLO text, pre-scan, parse, passes, print, "
        "MLIR re-parse) as a share of jax's lower + compile (wall); extra (CPU) = the same ratio of process "
        "CPU time (all threads; steadier than wall time when other jobs share the machine)",
        "",
        *md_table(["program", "ops", "MB", "sites", "module", "jax.jit s", "hlo_passes.jit s", "extra (wall)",
                   "extra (CPU)", "hook's own"], table),
        "",
    ]
    for r in rows:
        if r["program"].startswith("large"):
            target = TARGET_CANDIDATE if r["sites"] else TARGET_NO_CANDIDATE
            spread = (f"rounds {100 * r['extra_min']:+.1f} … {100 * r['extra_max']:+.1f} %")
            if r["skipped"]:
                # XLA compiles the very module jax.jit compiles: the hook's own step is
                # all that differs, and it is measured directly (the end-to-end
                # difference of two ~same numbers is mostly the machine's noise).
                ok = r["own_share"] <= target
                why = (f"the hook's own step {fmt(r['own_s'])} s = {100 * r['own_share']:.1f} % of jax's "
                       f"lower + compile (the module XLA compiles is jax's own); end to end "
                       f"{100 * r['extra']:+.1f} % wall, {100 * r['extra_cpu']:+.1f} % CPU, {spread}")
            else:
                # Both clocks must agree: wall time is what a user waits, CPU time is what
                # survives other jobs sharing the machine.
                ok = r["extra"] <= target and r["extra_cpu"] <= target
                why = (f"end to end {100 * r['extra']:+.1f} % wall, {100 * r['extra_cpu']:+.1f} % CPU, {spread}; "
                       f"the hook's own step {fmt(r['own_s'])} s = {100 * r['own_share']:.1f} %")
            lines.append(f"- {r['program']}: ≤ {100 * target:g} % extra: **{'met' if ok else 'not met'}** ({why})")
        else:
            lines.append(f"- {r['program']}: {100 * r['extra']:+.1f} % extra (hook's own step "
                         f"{fmt(r['own_s'])} s, {100 * r['own_share']:.1f} % of jax's lower + compile; no target)")
    return lines


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--layers", type=int, default=240, help="FFN layers of the large programs")
    ap.add_argument("--quick", action="store_true", help="smoke run: 4 layers, 1 round")
    args = ap.parse_args(argv)
    if args.quick:
        args.layers, args.repeats = 4, 1
    programs = [
        ("small, candidate (1 FFN layer)", *small()),
        (f"large, candidate ({args.layers} FFN layers)", *ffn_stack("concat", args.layers)),
        (f"large, collectives, no candidate ({args.layers} fused FFN layers)", *ffn_stack("fused", args.layers)),
        (f"large, no candidate ({args.layers + args.layers // 6} one-device GMM layers)",
         *plain_stack(args.layers + args.layers // 6)),
    ]
    rows = []
    with _RewriteTimer() as timer:
        for name, fn, fargs in programs:
            rows.append(measure(name, fn, fargs, args.repeats, timer))
            r = rows[-1]
            print(f"{name}: {r['ops']} ops, jax {r['jax_s']:.3f} s, hook {r['hook_s']:.3f} s, "
                  f"extra {100 * r['extra']:+.1f} % (CPU {100 * r['extra_cpu']:+.1f} %), own {r['own_s']:.3f} s",
                  flush=True)
    command = "python benchmarks/hook_overhead.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(rows, command.strip())
    print("\n".join(lines))
    write_fragment("hook_overhead", lines)
    return rows


if __name__ == "__main__":
    main()
