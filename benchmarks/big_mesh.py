"""Hook and compile time of a MoE training step on meshes of 8, 64 and 256 devices.

    python benchmarks/big_mesh.py [--repeats 7] [--quick]

One process per mesh size (jax fixes the fake CPU device count when it
starts).  The program: examples/moe.py's training step (the ``concat``
variant, forward + backward + SGD update; both rules fire) with ``W[4, 256, 64]``
FSDP-sharded over all N devices, in one stage (mesh1: N) and two (mesh2:
2 × 4, 8 × 8, 16 × 16).  The shapes are the same at every size (D = 256):
only the mesh, and with it the replica groups, grows.

Per round, on a fresh function (jax caches per function): the hook's own
time (``jax_hook._rewrite``: StableHLO text, pre-scan, parse, passes, print,
MLIR re-parse), ``hlo_passes.jit(f).lower(...)``'s ``compile()`` of the
rewritten module, and ``jax.jit(f).lower(...).compile()`` as the reference
in the same process; medians.  Kernel ``xla``: both compile the same grouped
matmul.  Target: the hook's own time at 256 devices ≤ 1.2 × its time at 8.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CHILD = "--child" in sys.argv
if CHILD:
    _n = sys.argv[sys.argv.index("--child") + 1]
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={_n}"

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, fmt, machine_line, md_table, median, utc_now, write_fragment  # noqa: E402

SIZES = (8, 64, 256)
MESHES = ("mesh1", "mesh2")
TARGET = 1.2
EMBED = 256  # divisible by every size: the same program at every size


def training_step(spec, mesh):
    """``step(params, x, gs) -> (params, loss)``: the MoE layer's forward, backward and an SGD update."""
    import jax
    import jax.numpy as jnp

    from examples import moe

    forward = moe.program_fn(spec.replace(mode="forward"), mesh)

    def step(params, x, gs):
        def loss(p):
            return jnp.mean(jnp.square(forward(x, gs, p["w"], p["wo"]).astype(jnp.float32)))

        value, grads = jax.value_and_grad(loss)(params)
        return jax.tree.map(lambda p, g: p - 1e-2 * g, params, grads), value

    x, gs, w, wo = moe.inputs(spec, mesh)
    return step, ({"w": w, "wo": wo}, x, gs)


def child(n: int, repeats: int) -> list[dict]:
    """Rows for one mesh size (runs in the process with ``n`` devices)."""
    import jax

    import hlo_passes
    from examples import moe
    from hlo_passes import runtime
    from hlo_passes.dialects.stablehlo import attrs as mlir_attrs
    from hook_overhead import _RewriteTimer

    rows = []
    with _RewriteTimer() as timer:
        for kind in MESHES:
            spec = moe.ProgramSpec(variant="concat", mesh=kind, num_devices=n,
                                   cfg=moe.MoEConfig(embed=EMBED, tokens=32))
            mesh = moe.program_mesh(spec)
            step, inputs = training_step(spec, mesh)

            def fresh():
                return lambda *a: step(*a)

            def hooked() -> tuple[float, float, float, int, int]:
                gc.collect()  # a collection inside the step would count the whole heap (256 devices' objects)
                timer.last = timer.last_cpu = 0.0
                # Cold: the first compile of a process decodes every attribute text anew.
                mlir_attrs._DECODE_CACHE.clear()
                mlir_attrs._DECODE_CACHE_CHARS[0] = 0
                low = hlo_passes.jit(fresh(), kernel="xla").lower(*inputs)
                t0 = time.perf_counter()
                compiled = low.compile()
                took = time.perf_counter() - t0
                if not low.rewritten:
                    raise RuntimeError(f"{kind} at {n} devices: not rewritten ({low.error})")
                return (timer.last, timer.last_cpu, took, len(low.report),
                        runtime.count_ops(compiled.as_text())["all-gather"])

            def plain() -> tuple[float, int]:
                gc.collect()
                t0 = time.perf_counter()
                compiled = jax.jit(fresh()).lower(*inputs).compile()
                return time.perf_counter() - t0, runtime.count_ops(compiled.as_text())["all-gather"]

            hooked(), plain()  # warm-up: tracing caches, the parser's grammar, XLA's
            hook_s, hook_cpu_s, compile_s, jax_s = [], [], [], []
            for i in range(repeats):
                first, second = (hooked, plain) if i % 2 == 0 else (plain, hooked)
                a, b = first(), second()
                h, p = (a, b) if first is hooked else (b, a)
                hook_s.append(h[0])
                hook_cpu_s.append(h[1])
                compile_s.append(h[2])
                jax_s.append(p[0])
            rows.append({"devices": n, "mesh": "×".join(map(str, mesh.shape.values())), "kind": kind,
                         "sites": h[3], "gathers": [p[1], h[4]], "hook_s": median(hook_s),
                         "hook_cpu_s": median(hook_cpu_s), "compile_s": median(compile_s),
                         "jax_s": median(jax_s), "repeats": repeats})
    return rows


def run_sizes(repeats: int, sizes: tuple[int, ...]) -> list[dict]:
    rows = []
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    for n in sizes:
        r = subprocess.run([sys.executable, __file__, "--child", str(n), "--repeats", str(repeats)],
                           capture_output=True, text=True, cwd=REPO, env=env, timeout=1800)
        if r.returncode != 0:
            raise RuntimeError(f"{n} devices: exit {r.returncode}\n{r.stderr[-3000:]}")
        got = json.loads(r.stdout.strip().splitlines()[-1])
        for row in got:
            print(f"{row['devices']:4} devices {row['kind']} {row['mesh']:>6}: hook {1e3 * row['hook_s']:.1f} ms "
                  f"(CPU {1e3 * row['hook_cpu_s']:.1f} ms), "
                  f"compile {row['compile_s']:.2f} s (jax.jit {row['jax_s']:.2f} s)", flush=True)
        rows += got
    return rows


def report(rows: list[dict], command: str) -> list[str]:
    table = [[str(r["devices"]), f"{r['kind']} ({r['mesh']})", str(r["sites"]), f"{r['gathers'][0]} → {r['gathers'][1]}",
              fmt(1e3 * r["hook_s"]), fmt(1e3 * r["hook_cpu_s"]), fmt(r["compile_s"]), fmt(r["jax_s"]),
              f"{100 * r['hook_s'] / r['jax_s']:.1f} %"]
             for r in rows]
    lines = [
        "## Big meshes: the hook's time and the compile time at 8, 64 and 256 devices",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `{command}`; one process per size (N fake CPU devices); medians of "
        f"{rows[0]['repeats'] if rows else 0} interleaved rounds after a warm-up, a fresh function each round",
        "- program: examples/moe.py's training step (concat, forward + backward + SGD update; both rules), "
        f"W[4, {EMBED}, 64] FSDP-sharded over all devices; the same shapes at every size; kernel `xla`",
        "- hook = the hook's own rewrite step (StableHLO text, pre-scan, parse, passes, print, MLIR re-parse), "
        "cold (the attribute-decoding cache emptied before each round, as in a process's first compile), wall "
        "time and this thread's CPU time (steadier when other jobs share the machine; the target is read on it); "
        "compile = XLA compiling the rewritten module; jax.jit = jax.jit's lower + compile of the original "
        "(the reference, same process)",
        "",
        *md_table(["devices", "mesh", "sites", "all-gathers (jax → hlo_passes)", "hook ms", "hook CPU ms",
                   "compile s", "jax.jit s", "hook / jax.jit"], table),
        "",
    ]
    for kind in MESHES:
        by_n = {r["devices"]: r for r in rows if r["kind"] == kind}
        if 8 in by_n and 256 in by_n:
            ratio = by_n[256]["hook_cpu_s"] / by_n[8]["hook_cpu_s"]
            wall = by_n[256]["hook_s"] / by_n[8]["hook_s"]
            lines.append(f"- {kind}: hook time at 256 devices ≤ {TARGET:g}× its time at 8: "
                         f"**{'met' if ratio <= TARGET else 'not met'}** (CPU {ratio:.2f}×: "
                         f"{fmt(1e3 * by_n[256]['hook_cpu_s'])} ms vs {fmt(1e3 * by_n[8]['hook_cpu_s'])} ms; "
                         f"wall {wall:.2f}×)")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="smoke run: 8 and 64 devices, 1 round")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.repeats)))
        return 0
    sizes = (8, 64) if args.quick else SIZES
    repeats = 1 if args.quick else args.repeats
    rows = run_sizes(repeats, sizes)
    command = "python benchmarks/big_mesh.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(rows, command.strip())
    print("\n".join(lines))
    write_fragment("big_mesh", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
