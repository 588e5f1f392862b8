"""One process of a multi-process jax job on this machine (tests/test_multihost.py starts N of them).

    python tests/multihost_worker.py SCENARIO --process I --processes N --devices K --port P --out DIR

Each process has K fake CPU devices; the job's N × K devices form one mesh
(``mesh2`` of examples/moe.py: 2 × N·K/2, so the FSDP gathers of W cross
processes) and the collectives between processes go over Gloo on loopback.
The MoE training step (forward, backward, optax update; both rules) runs
through ``jax.jit`` and ``hlo_passes.jit``.  Scenarios:

* ``agree`` — every process rewrites alike: 5 steps each way;
* ``disagree`` — process 1 alone has a plugin pass that adds an attribute to
  one instruction: the processes must all compile the original; then, for
  another function, process 1's XLA alone rejects the rewrite: the same;
* ``silent`` — process 1 stops before the exchange (it sleeps): the others
  must raise ``AgreementTimeoutError`` naming it;
* ``xla-pass`` — plain ``jax.jit`` under ``install(mode="rewrite")`` with the test rule
  of tests/xla_pass_rules.py: first with a rule that raises in process 1 only (every
  process must keep XLA's module), then alike (every process rewrites).

Each process writes ``DIR/p<I>.json`` (what it saw: report, decisions, op
counts, warnings, errors), ``DIR/p<I>.npz`` (its shards of the parameters
after the steps, both ways) and ``DIR/p<I>.rewritten.mlir``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

SCENARIOS = ("agree", "disagree", "silent", "xla-pass")


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", choices=SCENARIOS)
    ap.add_argument("--process", type=int, required=True)
    ap.add_argument("--processes", type=int, required=True)
    ap.add_argument("--devices", type=int, required=True, help="fake CPU devices of this process")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", type=int, default=5)
    return ap.parse_args(argv)


ARGS = _args() if __name__ == "__main__" else None
if ARGS is not None:
    # The device count is fixed when jax starts: before the import.
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={ARGS.devices}"
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

PLUGIN = "test-tag-one-op"


class TagOneOp:
    """A plugin pass that adds a frontend attribute to the first op it can: a different module."""

    name = PLUGIN
    description = "adds an attribute to one instruction (registered in one process only)"

    def apply(self, module, *, rewrite: bool):
        for instr in module.instructions():
            if rewrite and instr.opcode not in ("parameter", "constant") and not instr.dialect_data.get("terminator"):
                attrs = dict(instr.attributes["frontend_attributes"]) if "frontend_attributes" in instr.attributes else {}
                if "test.host_tag" not in attrs:
                    attrs["test.host_tag"] = "1"
                    instr.attributes["frontend_attributes"] = attrs
                break
        return [], []


def train_step(mesh, spec, moe, optimizer=None):
    """The MoE training step (forward, backward, optax update; Adam by default) on ``mesh``
    and its inputs, placed shard by shard from host data (each process places its own)."""
    forward = moe.program_fn(spec.replace(mode="forward"), mesh)
    optimizer = optimizer if optimizer is not None else optax.adam(1e-2)

    def step(params, opt_state, x, gs):
        def loss(p):
            return jnp.mean(jnp.square(forward(x, gs, p["w"], p["wo"]).astype(jnp.float32)))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    def put(a, pspec):
        # Every process holds the same host data and places its own shards.
        return jax.make_array_from_callback(a.shape, NamedSharding(mesh, pspec), lambda idx: a[idx])

    x, gs, w, wo = moe.host_inputs(spec)
    params = {"w": put(w, P(None, moe.fsdp_axes(spec.mesh), None)), "wo": put(wo, P())}
    return step, params, optimizer.init(params), put(x, P()), put(gs, P())


def _shards(tree: dict) -> dict[str, np.ndarray]:
    return {f"{name}/{i}": np.asarray(s.data) for name, a in tree.items()
            for i, s in enumerate(sorted(a.addressable_shards, key=lambda s: s.device.id))}


def run(args: argparse.Namespace, record: dict) -> None:
    import hlo_passes
    from examples import moe
    from hlo_passes import jax_hook, runtime, xla_pass
    from hlo_passes.errors import AgreementTimeoutError
    from hlo_passes.passes import register

    spec = moe.ProgramSpec(variant="concat", mesh="mesh2", num_devices=args.processes * args.devices)
    mesh = moe.program_mesh(spec)
    step, params, opt_state, x, gs = train_step(mesh, spec, moe)
    plain, fused = jax.jit(step), hlo_passes.jit(step)
    record["mesh"] = dict(mesh.shape)
    if args.scenario == "xla-pass":
        record["xla_pass"] = _xla_pass(args, step, (params, opt_state, x, gs), hlo_passes)
        return

    if args.scenario == "silent":
        if args.process == 1:
            record["stopped"] = True
            _write(args, record)
            time.sleep(600)  # stops before the exchange; the test kills it
            return
        t0 = time.monotonic()
        try:
            fused(params, opt_state, x, gs)
        except AgreementTimeoutError as err:
            record["error"] = {"type": type(err).__name__, "message": str(err), "silent": list(err.silent),
                               "after_s": time.monotonic() - t0}
        return

    if args.scenario == "disagree" and args.process == 1:
        register(TagOneOp())
    hlo_passes.install()  # lints what XLA compiles: one report per job, from process 0
    lowered = fused.lower(params, opt_state, x, gs)
    record["report"] = sorted({s.rule for s in lowered.report})
    record["rewritten_locally"] = lowered.rewritten
    (args.out / f"p{args.process}.rewritten.mlir").write_text(lowered.as_text(debug_info=True))

    p0, s0, p1, s1 = params, opt_state, params, opt_state
    losses = []
    for _ in range(args.steps):
        p0, s0, l0 = plain(p0, s0, x, gs)
        p1, s1, l1 = fused(p1, s1, x, gs)
        losses.append([float(l0), float(l1)])
    record["losses"] = losses
    entries = list(fused._cache.values())
    record["compiled_rewrite"] = [e.lowered.rewritten for e in entries]
    record["fell_back"] = [type(e.lowered.error).__name__ if e.lowered.error else None for e in entries]
    record["gathers"] = {
        "jax": runtime.count_ops(plain.lower(params, opt_state, x, gs).compile().as_text())["all-gather"],
        "hlo_passes": [runtime.count_ops(e.compiled.as_text())["all-gather"] for e in entries],
    }
    np.savez(args.out / f"p{args.process}.npz", **{f"jax/{k}": v for k, v in _shards(p0).items()},
             **{f"hlo_passes/{k}": v for k, v in _shards(p1).items()})
    record["lint_findings"] = len(xla_pass.installed_findings())
    hlo_passes.uninstall()
    if args.scenario == "disagree":
        record["rejected"] = _xla_rejects_in_process_1(args, step, (params, opt_state, x, gs), hlo_passes, jax_hook,
                                                       runtime)


def _xla_rejects_in_process_1(args, step, inputs, hlo_passes, jax_hook, runtime) -> dict:
    """The processes rewrite alike, but process 1's XLA refuses the rewrite: all compile the original."""
    def rejected_step(*a):
        return step(*a)

    if args.process == 1:
        real = jax_hook._rewrite

        class Refused:
            """jax's Lowered of the rewritten module, whose compile XLA refuses (as out of memory)."""

            def __init__(self, lowered):
                self._lowered = lowered

            def compile(self, *a, **k):
                raise RuntimeError("RESOURCE_EXHAUSTED: test: out of memory compiling the rewrite")

            def __getattr__(self, name):
                return getattr(self._lowered, name)

        def refuse(lowered, *a, **k):
            new, result, gmms = real(lowered, *a, **k)
            return (Refused(new) if new is not lowered else new), result, gmms

        jax_hook._rewrite = refuse
    fused = hlo_passes.jit(rejected_step, passes=["moe-gather-fusion", "moe-gradient-fusion"])
    want = jax.jit(rejected_step)(*inputs)
    got = fused(*inputs)
    (entry,) = fused._cache.values()
    return {
        "compiled_rewrite": entry.lowered.rewritten,
        "fell_back": type(entry.lowered.error).__name__ if entry.lowered.error else None,
        "gathers": runtime.count_ops(entry.compiled.as_text())["all-gather"],
        "equal": all(np.array_equal(np.asarray(s.data), np.asarray(t.data))
                     for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want))
                     for s, t in zip(a.addressable_shards, b.addressable_shards)),
    }


def _xla_pass(args, step, inputs, hlo_passes) -> dict:
    """The pass inside XLA in every process: a failure in process 1 alone, then none."""
    import hashlib

    from hlo_passes import xla_pass

    hlo_passes.load_plugin(str(Path(__file__).with_name("xla_pass_rules.py")))

    def steps(fn) -> tuple[dict, list[float]]:
        p, s, losses = inputs[0], inputs[1], []
        for _ in range(args.steps):
            p, s, loss = fn(p, s, *inputs[2:])
            losses.append(float(loss))
        return _shards(p), losses

    def compiled():
        # A new function object: jax compiles it anew (with whatever hook is installed).
        return jax.jit(lambda *a: step(*a)).lower(*inputs).compile()

    want, want_losses = steps(compiled())
    out = {}
    for phase, passes in (("failure", ["XPA001", *(["XPA002"] if args.process == 1 else [])]),
                          ("alike", ["XPA001"])):
        hlo_passes.install("rewrite", platforms="cpu", passes=passes)
        executable = compiled()
        report = xla_pass.installed_report()
        got, losses = steps(executable)
        out[phase] = {
            "equal": sorted(got) == sorted(want) and all(np.array_equal(got[k], want[k]) for k in want),
            "losses_equal": losses == want_losses,
            "rewritten": report.sites_rewritten,
            "fallbacks": [m.fallback for m in report.fallbacks],
            "compiled": hashlib.sha256(executable.as_text().encode()).hexdigest(),
        }
        hlo_passes.uninstall()
    return out


def _write(args: argparse.Namespace, record: dict) -> None:
    path = args.out / f"p{args.process}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, default=str))
    os.replace(tmp, path)


def main(args: argparse.Namespace) -> int:
    record: dict = {"process": args.process, "scenario": args.scenario}
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"127.0.0.1:{args.port}", num_processes=args.processes, process_id=args.process)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run(args, record)
            status = 0
        except BaseException:  # the test reads what went wrong from the record
            record["crash"] = traceback.format_exc()
            status = 1
    record["warnings"] = [{"category": w.category.__name__, "message": str(w.message)} for w in caught
                          if w.category.__module__.startswith("hlo_passes")]
    record["process_count"] = jax.process_count()
    _write(args, record)
    if args.scenario == "silent" or status:
        # A job with a stopped process cannot shut down cleanly (the shutdown
        # barrier waits for everyone): leave at once, the test kills the rest.
        sys.stdout.flush()
        os._exit(status)
    jax.distributed.shutdown()
    return status


if __name__ == "__main__":
    sys.exit(main(ARGS))
