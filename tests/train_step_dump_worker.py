"""Dump a training step the way a CI job does: ``python tests/train_step_dump_worker.py OUT``.

A user's training step — the MoE layer of examples/moe.py in MaxText's Shardy-implicit form
on a two-stage FSDP mesh, a loss, ``jax.value_and_grad`` and an optax adam update (the step of
tests/multihost_worker.py), jitted as ``step`` — runs once with ``XLA_FLAGS="--xla_dump_to=OUT
--xla_dump_hlo_as_text"`` and ``JAX_DUMP_IR_TO=OUT`` (the same folder): what ``hlo-lint OUT`` sees
in CI, XLA's names and all (``module_NNNN.jit_step.*.txt``, ``module_NNNN.jit_step/module.mlir``,
jax's ``jax_irNNNN_jit_step_compile.mlir``, and the modules of the small helpers jax compiles on
the way).  A process of its own: XLA reads its dump flags once.

``--forward``: the MoE program's forward step instead (smaller: the snapshot input of
tests/test_diagnostics_snapshots.py); ``--relative-sources``: jax records source files relative
to the repository (``jax_hlo_source_file_canonicalization_regex``), so that the dump names the
same files in every checkout.  ``--xla-only``: no ``JAX_DUMP_IR_TO``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--forward", action="store_true")
    parser.add_argument("--relative-sources", action="store_true")
    parser.add_argument("--xla-only", action="store_true")
    args = parser.parse_args(argv)
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if not f.startswith("--xla_dump")]
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in flags):
        flags.append("--xla_force_host_platform_device_count=8")
    os.environ["XLA_FLAGS"] = " ".join(flags + [f"--xla_dump_to={args.out}", "--xla_dump_hlo_as_text"])
    if not args.xla_only:
        os.environ["JAX_DUMP_IR_TO"] = str(args.out)
    sys.path.insert(0, str(REPO))

    import jax  # the flags above must precede it

    from examples import moe

    if args.relative_sources:
        jax.config.update("jax_hlo_source_file_canonicalization_regex", "^" + str(REPO) + "/")
    if args.forward:
        spec = moe.ProgramSpec(variant="concat", mesh="mesh2", form="explicit", mode="forward")
        fn, fn_args = moe.build(spec)
        jax.block_until_ready(fn(*fn_args))
        return 0
    step, state = _train_step()
    jax.block_until_ready(step(*state))
    return 0


def _train_step():
    import jax

    from examples import moe
    from multihost_worker import train_step  # the training step of the multi-process tests

    spec = moe.ProgramSpec(variant="concat", mesh="mesh2", form="implicit")
    step, params, opt_state, x, gs = train_step(moe.program_mesh(spec), spec, moe)
    return jax.jit(step), (params, opt_state, x, gs)


if __name__ == "__main__":
    sys.exit(main())
