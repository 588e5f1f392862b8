"""A weight's forward gather and its rematerialization are one weight (issue 27).

Under ``jax.checkpoint`` the backward gathers every weight again.  In the optimized training
step of a production trainer (two-stage layout) the down projection's forward gather and its
recomputation, each fed by an all-to-all of the same operand, were read as gate and up:
MOE003 "gate and up weights gathered apart: 2 weights" — at compile time by ``install()`` too,
and again after the program was rewritten.  Now two collectives alike over one array are one
array computed twice (``same-weight``): ``tests/fixtures/moe-pair-gather-fusion/near_miss.hlo``
holds that optimized module; here the training steps of ``examples/moe_remat.py`` (every
weight FSDP-gathered, the down projection too, under ``jax.checkpoint``), in both layouts and
both forms, are linted in every text and at compile time: MOE003 speaks only of gate and up.

The trainer's case itself: ``examples/moe_split_sharded.py``'s ``remat_grad`` step (MaxText's
layout on a 4 x 2 mesh, every weight FSDP-sharded on two axes, ``wo`` too, dropped in one or two
stages under ``jax.checkpoint``).  In its optimized two-stage step XLA moves ``wo``'s shards
with tuple all-to-alls, and the forward's and the recomputation's pieces are each a
``get-tuple-element`` of one: MOE003 reported them as "gate and up weights gathered apart: 2
weights (copy_bitcast_fusion.6, copy_bitcast_fusion.1)" (split sizes [D, D]: ``wo``'s, not
gate and up's) until the tuple element was followed to the collective.  Every MOE003 finding
there is about gate and up: since issue 32 two weights whose F is split on ``fsdp_transpose``
are joined shard by shard and gathered once (in optimized HLO also the prefused weight's halves,
once the partitioner's collective-permutes made them two arrays: the layer's concatenate of
them, forward and recomputation); ``wo``'s pieces never.
"""
from __future__ import annotations

import warnings

import pytest

import hlo_passes
from examples import moe_remat, moe_split_sharded
from examples.moe import MoEConfig
from hlo_passes import jax_hook
from hlo_passes.passes import run_passes

CASES = [(layout, form) for layout in moe_remat.LAYOUTS for form in moe_remat.FORMS]
F = MoEConfig().mlp


def _moe003_about_gate_and_up(findings) -> bool:
    """Every MOE003 finding joins two weights of F columns (gate and up), never the down
    projection (whose pieces would be joined along D)."""
    return all(f.details.get("split_sizes") == [F, F] for f in findings if f.rule == "MOE003")


def _moe003_in_every_text(built) -> dict[str, tuple[str, list]]:
    """Per text of the jitted step (its StableHLO, HLO and compiled module): the text and its
    MOE003 findings (``--select``: paying or not)."""
    fn, args = built
    lowered = fn.lower(*args)
    texts = {"stablehlo": lowered.as_text(), "hlo": lowered.as_text(dialect="hlo"),
             "compiled": lowered.compile().as_text()}
    return {name: (text, hlo_passes.lint(hlo_passes.parse(text), select=["MOE003"])) for name, text in texts.items()}


@pytest.mark.parametrize("layout,form", CASES)
def test_rematerialized_gathers_are_one_weight_in_every_text(layout: str, form: str) -> None:
    for name, (_, findings) in _moe003_in_every_text(moe_remat.build(layout, form, "mesh2")).items():
        assert _moe003_about_gate_and_up(findings), (name, [(f.message, f.details.get("split_sizes"))
                                                            for f in findings])
        if layout == "prefused":
            assert findings == [], (name, [f.message for f in findings])


INSTALLED = {**{f"remat_{layout}": (lambda layout=layout: moe_remat.build(layout, "implicit", "mesh2"))
                for layout in moe_remat.LAYOUTS},
             # Gate and up only (issue 32: F on fsdp_transpose, gathered in blocks), never wo.
             **{f"split_sharded_{w}": (lambda w=w: moe_split_sharded.build(w, 2, "remat_grad"))
                for w in moe_split_sharded.WEIGHTS}}


@pytest.mark.parametrize("program", INSTALLED)
def test_install_warns_of_no_rematerialized_pair(program: str) -> None:
    fn, args = INSTALLED[program]()
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            fn.lower(*args).compile()
    finally:
        hlo_passes.uninstall()
    lint = [str(w.message) for w in record if issubclass(w.category, jax_hook.MoELintWarning)]
    moe003 = [m for m in lint if "MOE003" in m]
    if program == "split_sharded_prefused":
        # The layer's concatenate of the permuted halves, in the forward and its recomputation: one
        # weight's halves, MOE001's sites, said once each (XLA's fusions made them look like two
        # weights to MOE003 too, which reported them a second time before the lint kept one finding
        # per op and pieces).
        moe001 = [m for m in lint if m.startswith("MOE001")]
        assert moe003 == [] and len(moe001) == 2 and all("shard_map/concatenate" in m for m in moe001), lint
        assert sum("rematted_computation" in m for m in moe001) == 1, moe001
        return
    if program in ("remat_pair", "split_sharded_pair"):
        # Gate and up once per round (the forward's gathers, then their recomputation: four
        # gathers alike paired by round, issue 32); a weight and its recomputation are no pair.
        assert len(moe003) == 2 and "rematted_computation" not in moe003[0] and \
            "rematted_computation" in moe003[1], moe003
        return
    assert moe003 == []


@pytest.mark.parametrize("weights", moe_split_sharded.WEIGHTS)
@pytest.mark.parametrize("stages", [1, 2])
def test_rematerialized_weights_on_two_fsdp_axes_are_no_pair(weights: str, stages: int) -> None:
    linted = _moe003_in_every_text(moe_split_sharded.build(weights, stages, "remat_grad"))
    for name, (_, findings) in linted.items():
        # Gate and up, whole or (optimized HLO) each device's F shard of them; never wo's [D, D].
        assert all(f.details.get("split_sizes") in ([F, F], [F // 2, F // 2]) for f in findings), (
            name, [(f.message, f.details.get("split_sizes")) for f in findings])
        if weights == "prefused" and name != "compiled":
            assert findings == []  # MOE001's halves of one weight
    if stages == 2:
        # The case that was reported: wo's pieces, tuple elements of two all-to-alls.
        compiled = linted["compiled"][0]
        assert "all-to-all(" in compiled
        misses = run_passes(hlo_passes.parse(compiled), ["moe-pair-gather-fusion"]).near_misses
        assert any(m.check == "same-weight" and "rematerialization" in m.reason for m in misses), [
            (m.check, m.reason) for m in misses]
