"""``--kernel pallas``: grouped matmuls as Pallas megablox kernels, lowered for their shape.

* Numerics: the examples' MoE modules lowered for TPU (so they hold
  ``ragged-dot``), rewritten by the MoE rules, with every GMM replaced by
  megablox (gmm, and tgmm for the weight gradients) in Pallas interpret mode,
  run on 8 CPU devices and match jax's reference (a training step's loss and
  gradients; bf16 with f32 weights; empty groups; one- and two-stage FSDP;
  rows padded to the tile, groups clipped, rows past the groups zero).
* TPU text: the same with the TPU kernel: one ``tpu_custom_call`` per GMM, of
  the fused shape for the fused one; the module parses, prints (splice and
  regenerate) and verifies in both dialects, and XLA's and MLIR's parsers take it.
* Fixed-shape kernels: a real JAX program whose two up projections are
  megablox calls (lowered for TPU) is rewritten to one gather per stage and
  one megablox kernel of the fused shape; run on CPU through the kernels'
  interpret-mode twins it matches the reference.  Kernels hlo_passes cannot
  emit again stay near misses with the reason.
"""
from __future__ import annotations

import re
from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes.lowering import lower_gmms, pallas_tpu
from hlo_passes.gmm import kernel_calls
from hlo_passes.gmm.megablox import tiling_for
from hlo_passes.passes import run_passes
from moe_cases import DIALECTS, check_parsers, count, run_text, tolerance, tpu_kernels

RULE = "moe-gather-fusion"


def _pallas(module, *, interpret: bool = False) -> int:
    """How many ragged-dots the pallas lowering replaced (a pipeline stage: ``lower_gmms``); on
    CPU its interpret-mode kernel."""
    return sum(r.lowered for r in lower_gmms(module, "pallas", platform="cpu" if interpret else "tpu"))


def _tpu_text(spec: ProgramSpec, dialect: str) -> str:
    return moe.lower(spec, platforms=("tpu",)).as_text(dialect=dialect)


def _fused(text: str) -> hlo_passes.Module:
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert len(result.sites) == 1 and result.sites[0].rewritten, result.near_misses
    return hlo_passes.parse(result.module.to_text())


def _ragged_dots(module: hlo_passes.Module) -> int:
    return sum(i.opcode == "ragged-dot" for i in module.instructions())


# ---- numerics in interpret mode ---------------------------------------------
# Interpret mode is slow to compile: few cases, each covering several axes.
NUMERIC_CASES = [
    # Forward and backward: the weight gradients are ragged contractions (tgmm).
    (ProgramSpec(variant="two_gmm", mesh="mesh1", form="explicit", mode="grad"), "hlo"),
    (ProgramSpec(variant="two_gmm", mesh="mesh2", form="implicit",
                 cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")), "stablehlo"),
]


@pytest.mark.parametrize("spec,dialect", NUMERIC_CASES, ids=lambda c: c.name if isinstance(c, ProgramSpec) else c)
def test_interpret_kernels_run_the_fused_module(spec: ProgramSpec, dialect: str) -> None:
    text = _tpu_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), None)
    assert result.sites and all(s.rewritten for s in result.sites), result.near_misses
    module = hlo_passes.parse(result.module.to_text())
    gmms = _ragged_dots(module)
    # Fused up projection and down projection; with the gradient, dx and dW of each.
    assert gmms == (5 if spec.mode == "grad" else 2)
    assert _pallas(module, interpret=True) == gmms
    assert _ragged_dots(module) == 0
    text = module.to_text()
    check_parsers(text, dialect)
    _, got = run_text(text, spec)
    want = jax.tree.leaves(moe.run(spec)) if spec.mode == "grad" else [moe.reference(spec)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, np.float32), **tolerance(spec.cfg))


def test_tgmm_form_runs_in_interpret_mode() -> None:
    """The ragged-contracting form (a weight gradient) becomes megablox tgmm; groups past m
    are clipped and empty groups give zeros, as ragged_dot says."""
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((40, 24), np.float32)
    rhs = rng.standard_normal((20, 40), np.float32)  # [n, m]: the normalizer transposes it
    gs = np.array([10, 0, 25, 20], np.int32)
    dims = jax.lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=(([0], [1]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[])

    def f(a, b, g):
        return jax.lax.ragged_dot_general(a, b, g, dims)

    want = np.asarray(f(lhs, rhs, gs))
    lowered = jax.jit(f).trace(lhs, rhs, gs).lower(lowering_platforms=("tpu",))
    module = hlo_passes.parse(lowered.as_text())
    # Through the dispatcher: pallas on CPU is the interpret-mode kernel.
    (record,) = lower_gmms(module, "pallas", platform="cpu")
    assert record.lowered and record.form == "tgmm"
    exe = hlo_passes.runtime.compile_text(module.to_text(), num_devices=1)
    np.testing.assert_allclose(np.asarray(exe.run(lhs, rhs, gs)[0]), want, rtol=1e-5, atol=1e-5)
    for dialect in DIALECTS:
        tpu = hlo_passes.parse(lowered.as_text(dialect=dialect))
        assert _pallas(tpu) == 1
        check_parsers(tpu.to_text(), dialect)
        (kernel,) = tpu_kernels(hlo_passes.parse(tpu.to_text()))
        assert kernel.shape.dims == (4, 24, 20)


def test_gmm_pads_rows_to_the_tile_and_zeroes_rows_past_the_groups() -> None:
    """m = 150 rows take two 128-row tiles (padded to 256); lhs arrives as [k, m] (the
    normalizer transposes it); bf16 operands accumulate into an f32 result; one group is
    empty and rows past the groups are zero."""
    rng = np.random.default_rng(1)
    lhs = jnp.asarray(rng.standard_normal((24, 150)), jnp.bfloat16)
    rhs = jnp.asarray(rng.standard_normal((3, 24, 40)), jnp.bfloat16)
    gs = np.array([60, 0, 50], np.int32)
    dims = jax.lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=(([0], [1]), ([], [])), lhs_ragged_dimensions=[1], rhs_group_dimensions=[0])

    def f(a, b, g):
        return jax.lax.ragged_dot_general(a, b, g, dims, preferred_element_type=jnp.float32)

    assert tiling_for(150, 24, 40, "bf16") == ((128, 24, 40), 256)
    want = np.asarray(f(lhs, rhs, gs))
    module = hlo_passes.parse(jax.jit(f).trace(lhs, rhs, gs).lower(lowering_platforms=("tpu",)).as_text())
    assert _pallas(module, interpret=True) == 1
    exe = hlo_passes.runtime.compile_text(module.to_text(), num_devices=1)
    got = np.asarray(exe.run(lhs, rhs, gs)[0])
    assert got.dtype == np.float32 and got[:110].any() and not got[110:].any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---- the TPU lowering text ---------------------------------------------------
@pytest.mark.parametrize("dialect", DIALECTS)
def test_tpu_kernels_of_the_fused_shape(dialect: str) -> None:
    spec = ProgramSpec(variant="concat", mesh="mesh1", form="explicit")
    cfg = spec.cfg
    module = _fused(_tpu_text(spec, dialect))
    records = lower_gmms(module, "pallas")
    assert [r.lowered for r in records] == [True, True]
    regenerated = module.to_text(regenerate=True)
    text = module.to_text()
    for t in (text, regenerated):
        check_parsers(t, dialect)
    after = hlo_passes.parse(text)
    kernels = tpu_kernels(after)
    assert len(kernels) == 2 and _ragged_dots(after) == 0
    operand_shapes = [[o.shape.dims for o in k.operands] for k in kernels]
    fused_w = (cfg.experts, cfg.embed, 2 * cfg.mlp)
    (fused,) = [k for k, shapes in zip(kernels, operand_shapes) if fused_w in shapes]
    (tm, _, _), m_pad = tiling_for(cfg.tokens, cfg.embed, 2 * cfg.mlp, "f32")
    assert fused.shape.dims == (m_pad, 2 * cfg.mlp)
    assert (m_pad, cfg.embed) in [o.shape.dims for o in fused.operands]
    if dialect == "stablehlo":
        assert fused.attributes.raw("kernel_name") == f'"{kernel_calls.MEGABLOX_KERNEL_NAME}"'
    # Mosaic's serialized kernel rides along; megablox's own wrapper function calls it.
    assert '"custom_call_config"' in text.replace("\\22", '"')
    assert re.search(r"hlo_passes_gmm\d+_gmm", text)
    # The call that stands for the ragged-dot carries the lowering's tag.
    calls = [i for i in after.instructions() if i.opcode in ("call", "func.call")
             and kernel_calls.SPLICED.match(i.called_computations[0].name)]
    assert len(calls) == 2


def test_added_functions_print_in_both_modes() -> None:
    """The printers' handling of computations a pass adds from another module's text:
    StableHLO keeps each function's own spelling; HLO prints them from the graph,
    ahead of their caller (XLA reads callees first)."""
    spec = ProgramSpec(variant="fused", mesh="mesh1", form="explicit")
    for dialect in DIALECTS:
        text = _tpu_text(spec, dialect)
        module = hlo_passes.parse(text)
        replaced = [i.name for i in module.instructions() if i.opcode == "ragged-dot"]
        assert _pallas(module, interpret=True) == 2
        out = module.to_text()
        names = list(module.computations)
        body = next(c for c in module.computations.values()
                    if any(i.opcode in ("call", "func.call") and kernel_calls.SPLICED.match(
                        i.called_computations[0].name) for i in c.instructions))
        if dialect == "hlo":
            kernel_main = next(n for n in names if kernel_calls.SPLICED.match(n))
            assert names.index(kernel_main) < names.index(_top(body).name)
            assert out.index(f"{kernel_main} {{") < out.index(f"{_top(body).name} ")
        else:
            # Every line but those of the replaced ops and their uses prints byte for byte.
            kept = set(out.splitlines())
            touched = re.compile("|".join(rf"%{re.escape(n)}\b" for n in replaced))
            assert [ln for ln in text.splitlines() if not touched.search(ln) and ln not in kept] == []
        assert module.to_text(regenerate=True) == hlo_passes.parse(out).to_text(regenerate=True)


def _top(comp):
    while comp.parent is not None:
        comp = comp.parent.computation
    return comp


# ---- two GMMs over fixed-shape megablox kernels ------------------------------
def _megablox_gmm(interpret: bool):
    from jax.experimental.pallas.ops.tpu.megablox.gmm import gmm

    def call(lhs, rhs, group_sizes):
        return gmm(lhs, rhs, group_sizes, preferred_element_type=lhs.dtype, interpret=interpret,
                   tiling=lambda m, k, n: tiling_for(m, k, n, "f32")[0])

    return call


def _megablox_program(spec: ProgramSpec, dialect: str) -> str:
    """examples/moe.py's program with every GMM a megablox call, lowered for TPU."""
    with mock.patch.object(moe, "gmm", _megablox_gmm(interpret=False)):
        return _tpu_text(spec, dialect)


@pytest.mark.parametrize("spec,dialect", [
    (ProgramSpec(variant="two_gmm", mesh="mesh1", form="explicit"), "stablehlo"),
    (ProgramSpec(variant="two_gmm", mesh="mesh2", form="explicit"), "hlo"),
    # Shardy's implicit gathers: W enters the shard_map whole before the kernel is emitted.
    (ProgramSpec(variant="two_gmm", mesh="mesh2", form="implicit"), "hlo"),
], ids=lambda c: c.name if isinstance(c, ProgramSpec) else c)
def test_two_megablox_gmms_become_one_kernel_of_the_fused_shape(spec: ProgramSpec, dialect: str) -> None:
    cfg = spec.cfg
    text = _megablox_program(spec, dialect)
    before = hlo_passes.parse(text)
    assert _ragged_dots(before) == 0 and len(tpu_kernels(before)) == 3
    result = run_passes(before, [RULE])
    (site,) = result.sites
    assert site.form == "two_gmm" and site.rewritten and result.near_misses == []
    stages = len(moe.gather_stages(spec.mesh))
    assert site.before.count == 2 * site.after.count
    # One all-gather per stage, explicit or derived from the shardings (issue 16).
    assert site.after.count == stages
    new_text = result.module.to_text()
    check_parsers(new_text, dialect)
    after = hlo_passes.parse(new_text)
    if spec.form == "explicit":
        gathers = [i for i in after.instructions() if i.opcode == "all-gather"]
        assert len(gathers) == stages
        assert gathers[-1].shape.dims == (cfg.experts, cfg.embed, 2 * cfg.mlp)
    kernels = tpu_kernels(after)
    assert len(kernels) == 2  # the fused up projection and the down projection
    # The halves' kernels are gone with their calls, not left behind as dead functions.
    assert sum("tpu_custom_call" in str(i.attributes.get("custom_call_target", ""))
               for i in after.instructions()) == 2
    fused_w = (cfg.experts, cfg.embed, 2 * cfg.mlp)
    assert sum(fused_w in [o.shape.dims for o in k.operands] for k in kernels) == 1
    assert run_passes(after, [RULE]).sites == []

    # On CPU: each TPU kernel swapped for its interpret-mode twin.
    assert pallas_tpu.to_interpret(after) == 2
    assert tpu_kernels(after) == []
    exe, got = run_text(after.to_text(), spec)
    np.testing.assert_allclose(got[0], np.asarray(moe.reference(spec), np.float32), **tolerance(cfg))
    # Shardy may gather both mesh axes in one collective.
    assert count(exe, "all-gather") in (stages, 1)


def test_training_step_over_megablox_kernels() -> None:
    """megablox's differentiable gmm (custom_vjp: gmm with a transposed rhs and tgmm in the
    backward) in a training step lowered for TPU: the forward's two up projections become
    one kernel of the fused shape; loss and gradients, run on CPU through the kernels'
    interpret-mode twins, match jax's run of the ragged_dot program."""
    from jax.experimental.pallas.ops.tpu.megablox import gmm

    def differentiable(lhs, rhs, group_sizes):
        return gmm(lhs, rhs, group_sizes, preferred_element_type=lhs.dtype,
                   tiling=lambda m, k, n: tiling_for(m, k, n, "f32")[0])

    spec = ProgramSpec(variant="two_gmm", mesh="mesh1", form="explicit", mode="grad")
    with mock.patch.object(moe, "gmm", differentiable):
        text = _tpu_text(spec, "stablehlo")
    result = run_passes(hlo_passes.parse(text), None)
    assert [(s.form, s.rewritten) for s in result.sites] == [("two_gmm", True)]
    after = hlo_passes.parse(result.module.to_text())
    fused_w = (spec.cfg.experts, spec.cfg.embed, 2 * spec.cfg.mlp)
    assert sum(fused_w in [o.shape.dims for o in k.operands] for k in tpu_kernels(after)) == 1
    kernels = len(tpu_kernels(after))
    assert pallas_tpu.to_interpret(after) == kernels
    _, got = run_text(after.to_text(), spec)
    want = jax.tree.leaves(moe.run(spec))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, np.float32), rtol=1e-5, atol=1e-5)


def test_kernels_that_cannot_be_emitted_again_stay_near_misses() -> None:
    spec = ProgramSpec(variant="two_gmm", mesh="mesh1", form="explicit")
    text = _megablox_program(spec, "stablehlo")
    # Not megablox by name: a grouped-matmul kernel hlo_passes has no emitter for.
    foreign = re.sub(r"@gmm\b", "@grouped_kernel", text)
    result = run_passes(hlo_passes.parse(foreign), [RULE])
    assert result.sites == [] and result.module.to_text() == foreign
    (miss,) = result.near_misses
    assert miss.check == "fixed-shape-kernel" and "emits no kernel of this kind" in miss.reason


def test_unavailable_reason_and_bad_types() -> None:
    assert pallas_tpu.unavailable_reason() is None
    lhs = jnp.zeros((16, 8), jnp.float16)
    rhs = jnp.zeros((2, 8, 8), jnp.float16)
    gs = jnp.array([8, 8], jnp.int32)
    text = jax.jit(jax.lax.ragged_dot).trace(lhs, rhs, gs).lower(lowering_platforms=("tpu",)).as_text()
    module = hlo_passes.parse(text)
    (rd,) = [i for i in module.instructions() if i.opcode == "ragged-dot"]
    assert "f16" in pallas_tpu.refusal(rd)
    assert _pallas(module) == 0 and module.to_text() == text


# ---- TPU's default: XLA's ragged-dot unless megablox measured faster -------------------------
def test_tpu_default_splices_megablox_only_where_the_tile_table_says() -> None:
    """``--kernel auto --platform tpu``: the tile table's shapes where megablox measured at least
    ``MARGIN`` times XLA's ragged-dot get megablox at the searched tiling (lowered for TPU: the
    ``tpu_custom_call``); shapes measured slower, and shapes never measured, keep the ragged-dot
    with the measurement as the reason.  (Run on the chip: tests/test_tpu_kernels.py.)"""
    from hlo_passes.gmm import tpu_tiling

    fast = tpu_tiling.choice_for("gmm", 8, 4096, 2048, 2048, "bf16")
    assert fast.kernel == "megablox" and fast.tiling == (256, 2048, 1024)
    noisy = tpu_tiling.choice_for("gmm", 8, 4096, 1024, 1024, "bf16")  # 1.19x, 1.07x, then 0.89x
    assert noisy.kernel == "xla" and "0.89x" in noisy.why
    slow = tpu_tiling.choice_for("tgmm", 8, 4096, 1024, 1024, "bf16")
    assert slow.kernel == "xla" and "0.92x" in slow.why
    assert "no tiling" in tpu_tiling.choice_for("gmm", 64, 4096, 1024, 1024, "bf16").why
    assert all(k == "xla" or s >= tpu_tiling.MARGIN for k, s in
               ((tpu_tiling.choice_for(key[0], *key[1:]).kernel, v[1]) for key, v in tpu_tiling.TABLE.items()))

    def f(a, b, g):
        return jax.lax.ragged_dot(a, b, g)

    for m, k, n, lowered in ((4096, 2048, 2048, True), (512, 256, 256, False)):
        args = (jax.ShapeDtypeStruct((m, k), jnp.bfloat16), jax.ShapeDtypeStruct((8, k, n), jnp.bfloat16),
                jax.ShapeDtypeStruct((8,), jnp.int32))
        module = hlo_passes.parse(jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)).as_text())
        (record,) = lower_gmms(module, "auto", platform="tpu")
        assert (record.lowered, record.kernel) == ((True, "pallas") if lowered else (False, "xla"))
        assert ("tpu_custom_call" in module.to_text()) == lowered
        if not lowered:
            assert "tile table" in record.reason
