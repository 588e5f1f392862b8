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
"""
from __future__ import annotations

import warnings

import pytest

import hlo_passes
from examples import moe_remat
from examples.moe import MoEConfig
from hlo_passes import jax_hook

CASES = [(layout, form) for layout in moe_remat.LAYOUTS for form in moe_remat.FORMS]
F = MoEConfig().mlp


def _moe003_about_gate_and_up(findings) -> bool:
    """Every MOE003 finding joins two weights of F columns (gate and up), never the down
    projection (whose pieces would be joined along D)."""
    return all(f.details.get("split_sizes") == [F, F] for f in findings if f.rule == "MOE003")


@pytest.mark.parametrize("layout,form", CASES)
def test_rematerialized_gathers_are_one_weight_in_every_text(layout: str, form: str) -> None:
    fn, args = moe_remat.build(layout, form, "mesh2")
    lowered = fn.lower(*args)
    texts = {"stablehlo": lowered.as_text(), "hlo": lowered.as_text(dialect="hlo"),
             "compiled": lowered.compile().as_text()}
    for name, text in texts.items():
        findings = hlo_passes.lint(hlo_passes.parse(text), select=["MOE003"])
        assert _moe003_about_gate_and_up(findings), (name, [(f.message, f.details.get("split_sizes"))
                                                            for f in findings])
        if layout == "prefused":
            assert findings == [], (name, [f.message for f in findings])


@pytest.mark.parametrize("layout", moe_remat.LAYOUTS)
def test_install_warns_of_no_rematerialized_pair(layout: str) -> None:
    fn, args = moe_remat.build(layout, "implicit", "mesh2")
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            fn.lower(*args).compile()
    finally:
        hlo_passes.uninstall()
    moe003 = [str(w.message) for w in record if issubclass(w.category, jax_hook.MoELintWarning)
              and "MOE003" in str(w.message)]
    if layout == "prefused":
        assert moe003 == []
    assert len(moe003) <= 1, moe003  # gate and up, once: the rematerialized gathers are no pair
