"""Helpers for tests that run grouped matmuls through the cpu-ffi kernel.

A module lowered for TPU or GPU keeps ``ragged-dot`` / ``chlo.ragged_dot``,
which XLA:CPU cannot compile; lowered to the cpu-ffi custom calls it runs
here, and its numbers are compared with jax's own CPU program of the same
function (``jax.jit``, which decomposes ragged_dot into a masked dense dot).
"""
from __future__ import annotations

import functools

import jax
import numpy as np

import hlo_passes
import hlo_passes.kernels  # noqa: F401  (registers hlo_passes_gmm / hlo_passes_tgmm for CPU)
from examples import moe
from examples.moe import ProgramSpec
from hlo_passes.lowering import GmmLowering, lower_gmms
from hlo_passes.passes import run_passes
from moe_cases import run_text, tolerance


@functools.lru_cache(maxsize=None)
def platform_text(spec: ProgramSpec, platform: str, dialect: str) -> str:
    return moe.lower(spec, platforms=(platform,)).as_text(dialect=dialect)


@functools.lru_cache(maxsize=None)
def jax_reference(spec: ProgramSpec) -> tuple[np.ndarray, ...]:
    """jax.jit's results of the program on the CPU devices, as f32 leaves."""
    return tuple(np.asarray(a, dtype=np.float32) for a in jax.tree.leaves(moe.run(spec)))


def to_cpu_ffi(text: str) -> tuple[str, list[GmmLowering]]:
    """``text`` with every ragged-dot lowered to the cpu-ffi kernel (all must be)."""
    module = hlo_passes.parse(text)
    records = lower_gmms(module, "cpu-ffi")
    assert records and all(r.lowered for r in records), [str(r) for r in records]
    new_text = module.to_text()
    assert "ragged_dot" not in new_text and "ragged-dot(" not in new_text
    return new_text, records


def rewrite_and_lower(text: str, passes: list[str] | None = None):
    """The passes, then the cpu-ffi lowering: (result of run_passes, text, lowering records)."""
    result = run_passes(hlo_passes.parse(text), passes)
    lowered, records = to_cpu_ffi(result.module.to_text())
    return result, lowered, records


def check_matches_jax(text: str, spec: ProgramSpec) -> None:
    """Run ``text`` (already lowered to cpu-ffi) on the spec's devices; compare with jax.jit."""
    _, got = run_text(text, spec)
    want = jax_reference(spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))
