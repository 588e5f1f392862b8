"""The README's hlo_passes.install() quick start: plain jax.jit on a training step whose
prefused MoE weight is sliced before its FSDP gathers; every module XLA compiles is linted.

    python examples/quickstart_install.py

It runs on 8 fake CPU devices; the README shows the code below the marker.
"""
import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # `examples` importable

# --- quick start ---
import logging

import jax

import hlo_passes
from examples import moe

logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
spec = moe.ProgramSpec(variant="concat", mesh="mesh2", mode="grad")
mesh = moe.program_mesh(spec)
train_step, args = moe.program_fn(spec, mesh), moe.inputs(spec, mesh)

hlo_passes.install(mode="log")  # from here on, every module XLA compiles in this process is linted
jax.jit(train_step)(*args)  # plain jax.jit: each unfused site is logged once; the program is not changed
