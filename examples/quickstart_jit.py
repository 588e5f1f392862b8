"""The README's hlo_passes.jit quick start: a training step (value and gradient of an MoE
layer whose prefused weight is sliced before its FSDP gathers) through hlo_passes.jit.

    python examples/quickstart_jit.py

It runs on 8 fake CPU devices; the README shows the code below the marker and its output.
"""
import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # `examples` importable

# --- quick start ---
import jax
import numpy as np

import hlo_passes
from examples import moe

spec = moe.ProgramSpec(variant="concat", mesh="mesh2", mode="grad")  # W[E, D, 2F] sliced, halves gathered apart
mesh = moe.program_mesh(spec)
train_step, args = moe.program_fn(spec, mesh), moe.inputs(spec, mesh)

step = hlo_passes.jit(train_step)  # in place of jax.jit(train_step): the same numbers, bit for bit
for got, want in zip(jax.tree.leaves(step(*args)), jax.tree.leaves(jax.jit(train_step)(*args))):
    np.testing.assert_array_equal(got, want)
print(step.explain(*args))  # what was rewritten, where in the source, collectives before -> after
