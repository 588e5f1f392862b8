"""MOE004 on optimized HLO whose two weight gradients XLA's combiner already reduces in one op.

The fixtures of tests/fixtures/compiled/ (``tests/make_compiled_fixtures.py``: examples/moe_pair.py's
training step, gate and up as two weights, FSDP over fsdp 4 x fsdp_transpose 2, adam, compiled by
jax 0.10.2 on 8 host CPU devices) are read as text; nothing here imports jax.

* ``implicit``: the partitioner reduces each weight's gradient with an all-reduce, and XLA:CPU's
  combiner put both (and wo's) into one tuple all-reduce.  The compiled program runs one collective
  for the two already; fusing them would save none, so "collectives 2 -> 1" would be a false claim:
  MOE004 names a near miss (``xla-combined``, as MOE002 names one weight's halves), no site, and
  leaves the module as it is.  The same module with that op taken apart into one all-reduce per
  operand (``held.unhold(mark=False)``) is a site again: the check is about the combined op alone.
* ``explicit``: a reduce-scatter per weight and stage (XLA:CPU combines no reduce-scatter): a site,
  4 -> 2, rewritten.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.passes import run_passes
from hlo_passes.rewrites.split.held import unhold

pytestmark = pytest.mark.jax_free

RULE = "moe-pair-gradient-fusion"
COMPILED = Path(__file__).resolve().parent / "fixtures" / "compiled"


def _text(form: str) -> str:
    with gzip.open(COMPILED / f"pair_train_{form}_mesh2.cpu_after_optimizations.txt.gz", "rt", encoding="utf-8") as f:
        return f.read()


def _ops(module, opcode: str) -> list:
    return [i for i in module.instructions() if i.opcode == opcode]


def test_the_fixtures_are_what_they_say() -> None:
    """The implicit step's only all-reduce is one tuple op reducing both weights' gradients (two
    [E, D, F] dots) and wo's; the explicit step reduce-scatters each weight's in two stages."""
    implicit = hlo_passes.parse(_text("implicit"))
    (combined,) = _ops(implicit, "all-reduce")
    assert combined.shape.is_tuple and len(combined.operands) == 3
    assert [op.opcode for op in combined.operands] == ["dot", "dot", "dot"]
    assert [tuple(op.shape.dims) for op in combined.operands] == [(4, 64, 32), (4, 64, 32), (4, 32, 64)]
    explicit = hlo_passes.parse(_text("explicit"))
    assert len(_ops(explicit, "reduce-scatter")) == 4 and not any(op.shape.is_tuple for op in
                                                                  _ops(explicit, "reduce-scatter"))


def test_combined_gradients_are_a_near_miss_not_a_site() -> None:
    text = _text("implicit")
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert result.sites == []
    (miss,) = result.near_misses
    assert (miss.rule, miss.check) == (RULE, "xla-combined")
    assert miss.reason.startswith("XLA's combiner already reduces the 2 weights' gradients in one op (1 step, one "
                                  "collective each): the compiled program runs no more collectives than the fix would")
    # Placed where the site would be: the combined op's line (each member is reported where it was).
    assert "all-reduce(" in text.splitlines()[miss.location.line - 1]
    assert result.module.to_text() == text
    # The lint: no MOE004 finding (the near miss is said under --explain only).
    assert [f for f in hlo_passes.lint(hlo_passes.parse(text)) if f.rule == "MOE004"] == []


def test_the_same_gradients_reduced_apart_are_a_site() -> None:
    """The implicit step with its combined all-reduce taken apart for good (what a program without
    the combiner would run): each weight's gradient reduced by its own all-reduce, fused 2 -> 1."""
    module = hlo_passes.parse(_text("implicit"))
    unhold(Rewriter(module), module, ["all-reduce"], mark=False)
    apart = module.to_text()
    assert len(_ops(hlo_passes.parse(apart), "all-reduce")) == 3
    result = run_passes(hlo_passes.parse(apart), [RULE])
    (site,) = result.sites
    assert result.near_misses == []
    assert site.form == "two_gmm_apart" and (site.before.count, site.after.count) == (2, 1) and site.rewritten
    after = hlo_passes.parse(result.module.to_text(), validate=True)
    after.verify()
    assert len(_ops(after, "all-reduce")) == 2


@pytest.mark.parametrize("rewrite", [False, True])
def test_separate_reduce_scatters_are_still_a_site(rewrite: bool) -> None:
    text = _text("explicit")
    result = run_passes(hlo_passes.parse(text), [RULE], rewrite=rewrite)
    (site,) = result.sites
    assert result.near_misses == []
    assert site.form == "two_gmm_apart" and (site.before.count, site.after.count) == (4, 2)
    assert site.rewritten == rewrite
    if rewrite:
        after = hlo_passes.parse(result.module.to_text(), validate=True)
        after.verify()
        assert len(_ops(after, "reduce-scatter")) == 2
    else:
        assert result.module.to_text() == text
