"""What the optimized-HLO stage of ``hlo_passes.jit``'s compile costs and reaches (issue 46).

On ``examples/remat_scan_train.py``'s step (8 fake CPU devices): the compiled step's all-gathers and
reduce-scatters and 3 steps' losses through plain ``jax.jit`` and ``hlo_passes.jit`` (default
arguments), then the compile time of ``hlo_passes.jit(step).lower(...).compile()`` with the stage and
without it (the stage switched off for the measurement), medians of interleaved rounds, wall-clock
and CPU time of the process (on a shared machine read the CPU figures), and the stage's own parts:
the copy of the module that carries the token, and the rules on the optimized module.

    python tools/jit_stage_cost.py [--repeats 5] [--layers 4]
"""
from __future__ import annotations

import os
import sys

_flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in _flags:
    os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402

import hlo_passes  # noqa: E402
from examples import remat_scan_train as user  # noqa: E402
from hlo_passes import xla_stage  # noqa: E402


def _timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--layers", type=int, default=user.LAYERS)
    args = ap.parse_args(argv)
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, layers {args.layers}")
    plain_losses, plain_text = user.train(3, layers=args.layers)
    losses, text = user.train(3, layers=args.layers, jit=hlo_passes.jit)
    fixed_losses, fixed_text = user.train(3, layers=args.layers, fixed=True)
    for name, ls, t in (("jax.jit", plain_losses, plain_text), ("hlo_passes.jit", losses, text),
                        ("hand fix (jax.jit)", fixed_losses, fixed_text)):
        c = user.collectives(t)
        print(f"{name:20s} all-gathers {c['all-gather']}, reduce-scatters {c['reduce-scatter']}, losses {ls}")
    print(f"hlo_passes.jit losses bit-equal to jax.jit's: {losses == plain_losses}")

    mesh = user.make_mesh()
    init, step = user.make_train_step(mesh)
    params, x, gs = user.inputs(mesh, layers=args.layers)
    state = init(params)
    why_not = xla_stage.why_not
    rows: dict[str, list[tuple[float, float]]] = {"stage on": [], "stage off": []}
    parts: dict[str, list[float]] = {"mark (copy the module with its token)": [], "the rules on the optimized module": []}
    transform, marked = xla_stage.Stage.transform, xla_stage.marked

    def timed_transform(self, serialized):  # type: ignore[no-untyped-def]
        out, wall, _ = _timed(lambda: transform(self, serialized))
        parts["the rules on the optimized module"].append(wall)
        return out

    def timed_marked(lowered, passes):  # type: ignore[no-untyped-def]
        out, wall, _ = _timed(lambda: marked(lowered, passes))
        parts["mark (copy the module with its token)"].append(wall)
        return out

    for _ in range(args.repeats):
        for label in ("stage on", "stage off"):
            low = hlo_passes.jit(step).lower(state, x, gs)
            if label == "stage off":
                xla_stage.why_not = lambda *a, **k: "switched off for the measurement"  # type: ignore[assignment]
            else:
                xla_stage.Stage.transform, xla_stage.marked = timed_transform, timed_marked  # type: ignore[method-assign]
            try:
                _, wall, cpu = _timed(low.compile)
            finally:
                xla_stage.why_not, xla_stage.Stage.transform, xla_stage.marked = why_not, transform, marked  # type: ignore[method-assign]
            rows[label].append((wall, cpu))
    for label, got in rows.items():
        print(f"compile, {label}: median wall {statistics.median(w for w, _ in got):.3f} s, "
              f"CPU {statistics.median(c for _, c in got):.3f} s ({args.repeats} rounds)")
    on, off = (statistics.median(c for _, c in rows[k]) for k in ("stage on", "stage off"))
    print(f"CPU ratio on / off: {on / off:.3f}")
    for label, got in parts.items():
        print(f"  {label}: median {statistics.median(got) * 1000:.1f} ms wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
