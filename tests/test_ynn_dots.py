"""jax 0.12.1's XLA:CPU runs every dot through YNNPACK, each in a custom fusion whose body is the dot
alone (``kind=kCustom``, ``"fusion_config":{"kind":"__ynn_fusion"}``): the engine reads such a
fusion as its dot (``ir.analysis.as_dot``), and never runs two of them as one GMM, since YNNPACK's
rounding depends on the dot's shape (docs/optimized-hlo.md): it fuses the collectives only, each GMM
kept as written.

The module is ``tests/fixtures/moe-gradient-fusion/ynn_compiled.hlo``: the optimized training step of
``interleaved_split_mesh1_grad`` dumped by jax 0.12.1 (the fixture says how).  The tests that import
jax measure the reason for keeping the GMMs on the XLA:CPU installed, and run the combined form
(the kept GMMs' reductions, one combined reduce-scatter per stage) compiled inside XLA.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlo_passes
from hlo_passes.ir.analysis import as_dot, fused_dot
from hlo_passes.passes import run_passes
from hlo_passes.rewrites.split.gmms import is_gmm_op, unfused_dots_refusal

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "moe-gradient-fusion" / "ynn_compiled.hlo"
RULES = ["moe-gather-fusion", "moe-gradient-fusion", "moe-pair-gather-fusion", "moe-pair-gradient-fusion"]


def _module():
    return hlo_passes.parse(FIXTURE.read_text())


def _op(module, name: str):
    (found,) = [i for i in module.instructions() if i.name == name]
    return found


def test_a_custom_fusion_of_one_dot_is_read_as_that_dot() -> None:
    module = _module()
    gmm = _op(module, "ynn_fusion.1")
    dot = as_dot(gmm)
    assert dot is not None and dot is fused_dot(gmm) and dot.opcode == "dot"
    assert dot is gmm.called_computations[0].root
    assert is_gmm_op(gmm) and gmm.shape.dims == dot.shape.dims
    # A custom fusion computing more than a dot (YNNPACK's reduction: multiply, then reduce), a
    # loop fusion, and a plain op are no dots.
    for name in ("ynn_fusion.4", "pad_add_fusion", "reduce_scatter.15"):
        assert as_dot(_op(module, name)) is None and not is_gmm_op(_op(module, name))
    # A plain dot is its own.
    assert as_dot(dot) is dot


@pytest.mark.jax_free
def test_the_gradient_site_fuses_its_reductions_and_keeps_the_ynn_gmms() -> None:
    """On jax 0.12.0's text (plain dots) the site is ``split_reduction``, its GMMs merged; on 0.12.1's
    the halves' GMMs are YNNPACK fusions, which one GMM on the joined operand would not round as the
    two: the GMMs are kept as written and their two reduce-scatters become one combined reduce-scatter
    of both results (XLA's own combined form, a tuple read by get-tuple-elements): each operand is
    reduced as before, nothing is joined or copied (copies 0 added, 0 removed: the fusion that puts the
    reduced halves back together reads them as before).  Collectives 2 -> 1, as the module after the
    rewrite holds.  An optimized module is not compiled again (no executable of it here); the same
    form made inside XLA compiles, runs and is bit-equal to jax.jit's (``test_backward_forms.py``,
    ``test_optimized_gradient_rewritten_inside_xla[interleaved_split_mesh1_grad]``;
    ``test_remat_scan_train.py``)."""
    before = _module()
    rs_before = sum(i.opcode == "reduce-scatter" for i in before.instructions())
    result = run_passes(_module(), RULES, strict=True)
    assert result.near_misses == []
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [
        ("moe-gather-fusion", "split_gather", True), ("moe-gradient-fusion", "split_reduction", True)]
    (site,) = [s for s in result.sites if s.rule == "moe-gradient-fusion"]
    assert (site.before.count, site.after.count) == (2, 1)
    assert site.gmm_launches_saved == 0 and site.details.not_rewritten is None
    kept = site.details.gmms_kept or ""
    assert kept.startswith("GMMs kept apart") and "ynn_fusion.1" in kept and "YNNPACK" in kept
    assert "GMMs kept apart" in str(site) and site.details.to_json()["gmms_kept"] == kept
    assert "combined reduce-scatter" in kept and (site.copies_added, site.copies_removed) == (0, 0)
    assert site.pays
    after = result.module
    # One combined reduce-scatter of the two GMMs' results; both GMMs stay, each the dot it was.
    assert rs_before == 2 and sum(i.opcode == "reduce-scatter" for i in after.instructions()) == 1
    gmms = [_op(after, "ynn_fusion.1"), _op(after, "ynn_fusion.2")]
    assert [g.shape.dims for g in gmms] == [_op(before, "ynn_fusion.1").shape.dims,
                                            _op(before, "ynn_fusion.2").shape.dims]
    (scatter,) = [i for i in after.instructions() if i.opcode == "reduce-scatter"]
    assert scatter.shape.is_tuple and len(scatter.operands) == 2
    # Each operand is a half's own layout copy of its GMM's result, as each half's scatter read it.
    sources = []
    for operand in scatter.operands:
        while operand.opcode != "fusion" or operand.name.startswith("wrapped_copy"):
            operand = operand.operands[0]
        sources.append(operand.name)
    assert sources == ["ynn_fusion.1", "ynn_fusion.2"]
    assert not any(i.opcode == "concatenate" for i in after.entry.instructions)
    # Each result is read where the half's own scatter was read: the fusion that pads them back.
    readers = {u.name for u in scatter.users}
    assert all(u.opcode == "get-tuple-element" for u in scatter.users) and len(readers) == 2
    assert {r.name for u in scatter.users for r in u.users} == {"pad_add_fusion"}
    assert sum(i.opcode == "all-gather" for i in after.instructions()) == 1
    # The combined op is the rule's own: a second run finds nothing more to fuse, and no near miss.
    again = run_passes(after, RULES, strict=True)
    assert [s for s in again.sites if s.rule == "moe-gradient-fusion"] == [] and again.near_misses == []


def test_the_hold_back_names_only_fused_dots() -> None:
    module = _module()
    fused = [_op(module, "ynn_fusion.1"), _op(module, "ynn_fusion.2")]
    why = unfused_dots_refusal(fused)
    assert why is not None and "ynn_fusion.1" in why and "YNNPACK" in why
    assert unfused_dots_refusal([as_dot(g) for g in fused]) is None  # plain dots: merged as before


def test_one_dot_for_two_is_bit_equal_only_without_ynnpack() -> None:
    """The reason for the hold-back, measured on the installed XLA:CPU with the fixture's shapes (the
    weight-gradient GMM ``[4, 64, 64] x [4, 64, 32] -> [4, 64, 32]``, contracting dimension 1, the
    halves 32 wide): where the compiled dot is a ``__ynn_fusion`` (jax >= 0.12.1), one dot of the
    joined operand differs from the two halves' dots; with plain dots (Eigen) it is bit-equal.  If a
    later YNNPACK made them equal, this fails: the hold-back could then be lifted."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((4, 64, 64)), jnp.float32)
    b0, b1 = (jnp.asarray(rng.standard_normal((4, 64, 32)), jnp.float32) for _ in range(2))
    dims = (((1,), (1,)), ((0,), (0,)))
    dot = jax.jit(lambda x, y: lax.dot_general(x, y, dims))  # (the tests run on CPU devices)
    halves = np.concatenate([np.asarray(dot(a, b0)), np.asarray(dot(a, b1))], axis=2)
    one = np.asarray(dot(a, jnp.concatenate([b0, b1], axis=2)))
    ynn = "__ynn_fusion" in dot.lower(a, b0).compile().as_text()
    if ynn:
        assert (one != halves).any()
        np.testing.assert_allclose(one, halves, rtol=0, atol=1e-4)  # the last bits, not a wrong value
    else:
        np.testing.assert_array_equal(one, halves)


@pytest.mark.jax_free
def test_before_optimization_the_context_keeps_the_gmms_and_fuses_the_reductions() -> None:
    """The two-GMM weight gradient in StableHLO (``two_gmm.mlir``): where the entry point found its
    backend's dots round by their shape (``PassContext.dots_round_by_shape``: ``hlo_passes.jit`` on
    XLA:CPU), both GMMs stay, their results are concatenated and reduce-scattered once; without it
    (no backend known) the two GMMs become one on the joined activation gradients, as before.  Either
    way one reduce-scatter for two; the site says which, and its picture draws what is made."""
    from hlo_passes.pass_interface import PassContext

    text = (FIXTURE.parent / "two_gmm.mlir").read_text()
    done = {}
    for keeps in (True, False):
        context = PassContext.for_platform("cpu", dots_round_by_shape=keeps)
        result = run_passes(hlo_passes.parse(text), ["moe-gradient-fusion"], strict=True, context=context)
        (site,) = result.sites
        ops = [i.opcode for i in result.module.instructions()]
        done[keeps] = (site, ops.count("dot"), ops.count("reduce-scatter"), ops.count("concatenate"))
    kept, merged = done[True], done[False]
    assert (kept[1:], merged[1:3]) == ((2, 1, 1), (1, 1))
    for site in (kept[0], merged[0]):
        assert site.rewritten and (site.before.count, site.after.count) == (2, 1)
    assert kept[0].gmm_launches_saved == 0 and merged[0].gmm_launches_saved == 1
    assert "GMMs kept apart" in (kept[0].details.gmms_kept or "") and merged[0].details.gmms_kept is None
    labels = [n.label for n in kept[0].picture.after.nodes]
    assert sum("kept" in label for label in labels) == 2 and not any("one GMM" in label for label in labels)


@pytest.mark.parametrize("mesh", ["mesh1", "mesh2"])
def test_kept_gmms_reductions_combined_inside_xla_run_bit_equal(mesh: str) -> None:
    """The combined form compiled and run by XLA:CPU: ``examples/moe.py``'s two-GMM training step
    (one FSDP stage, and two: ``mesh2``, one combined reduce-scatter per stage) under
    ``install(mode="rewrite")`` (the gradient rule alone).  Where this XLA:CPU's dots round by their
    shape (asked of it, as install() asks), the weight-gradient GMMs are kept and their reductions
    combined; the compiled program runs the claimed reduce-scatters fewer, each a combined op of two
    operands, no near miss is left behind, and the loss and gradients equal ``jax.jit``'s bit for bit."""
    import jax

    from examples import moe
    from hlo_passes.gmm.target import dots_round_by_shape_here
    from hlo_passes.runtime import count_ops

    if not dots_round_by_shape_here("cpu"):
        pytest.skip("this XLA:CPU's dots do not round by their shape: its GMMs are merged (test_backward_forms)")
    spec = moe.ProgramSpec(variant="two_gmm", mesh=mesh, mode="grad")
    m = moe.program_mesh(spec)
    fn, args = moe.program_fn(spec, m), moe.inputs(spec, m)
    plain = jax.jit(fn).lower(*args).compile()
    want = plain(*args)
    jax.clear_caches()
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=["moe-gradient-fusion"])
    try:
        compiled = jax.jit(fn).lower(*args).compile()
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
        jax.clear_caches()
    (site,) = [s for mod in report.modules for s in mod.sites]
    assert site.rewritten and "combined reduce-scatter" in (site.details.gmms_kept or "")
    assert (site.copies_added, site.copies_removed, site.bytes_saved) == (0, 0, 0)
    assert [n for mod in report.modules for n in mod.near_misses] == []
    stages = site.after.count
    assert (site.before.count, stages) == ((2, 1) if mesh == "mesh1" else (4, 2))
    before, after = (count_ops(t.as_text())["reduce-scatter"] for t in (plain, compiled))
    assert before - after == site.before.count - site.after.count
    combined = [line for line in compiled.as_text().splitlines()
                if " reduce-scatter(" in line and line.split("=", 1)[1].lstrip().startswith("(")]
    assert len(combined) == stages, combined
    got = compiled(*args)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
