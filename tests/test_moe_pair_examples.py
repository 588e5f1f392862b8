"""The two-weight MoE programs of examples/moe_pair.py (the forms MOE003/MOE004 rewrite).

The libraries' way (``pair``) and the hand-fused target (``fused``) compute the same
function as plain jnp on one device, and the target's compiled program gathers the
weights half as often: what the rule must reach without the program's author.
"""
from __future__ import annotations

import re

import jax
import numpy as np
import pytest

from examples.moe import MoEConfig
from examples.moe_pair import PAIR_FORMS, PairSpec, lower, reference, run

_ALL_GATHER = re.compile(r"\ball-gather(?:-start)?\(")


def _compiled_all_gathers(spec: PairSpec) -> int:
    return len(_ALL_GATHER.findall(lower(spec).compile().as_text()))


@pytest.mark.parametrize("mesh", ["mesh1", "mesh2"])
@pytest.mark.parametrize("form", PAIR_FORMS)
def test_pair_and_fused_agree_and_fused_gathers_half(form: str, mesh: str) -> None:
    spec = PairSpec(form=form, mesh=mesh)
    fused = spec.replace(variant="fused")
    out = run(spec)
    np.testing.assert_array_equal(out, reference(spec))  # f32 forward: the same sums in the same order
    np.testing.assert_array_equal(run(fused), out)
    pair_gathers, fused_gathers = _compiled_all_gathers(spec), _compiled_all_gathers(fused)
    assert pair_gathers == 2 * fused_gathers > 0, (pair_gathers, fused_gathers)


@pytest.mark.parametrize("spec", [
    PairSpec(form="explicit", mesh="mesh2", mode="scan_grad", checkpoint=True),
    PairSpec(form="implicit", mode="grad", checkpoint=True),
    PairSpec(form="implicit", lhs="padded_twice"),
    PairSpec(form="concat_inside", mode="grad", cfg=MoEConfig(dtype="bfloat16")),
], ids=lambda s: s.name)
def test_training_and_mixed_forms_agree(spec: PairSpec) -> None:
    loss, grads = (run(spec), None) if spec.mode == "forward" else run(spec)
    fused = run(spec.replace(variant="fused"))
    if spec.mode == "forward":
        np.testing.assert_array_equal(fused, loss)
        np.testing.assert_array_equal(loss, reference(spec))
        return
    f_loss, f_grads = fused
    # Reductions of the weight gradients run in another order in the fused program: at
    # the compute dtype's rounding (bf16 grads are bf16 numbers; f32 a few ulps).
    tol = dict(rtol=2 ** -7, atol=2 ** -7) if spec.cfg.dtype == "bfloat16" else dict(rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.float32(f_loss), np.float32(loss), **tol)
    np.testing.assert_allclose(np.float32(loss), reference(spec), **tol)
    for a, b in zip(jax.tree.leaves(grads), jax.tree.leaves(f_grads)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(np.asarray(a, np.float32), np.asarray(b, np.float32), **tol)
