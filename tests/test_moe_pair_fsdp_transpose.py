"""moe-pair-gather-fusion (MOE003) on two weights whose F is on a second FSDP axis (issue 32):
MaxText's two-stage layout, written with its logical axes (``examples/moe_pair_fsdp_transpose.py``:
D over ``fsdp``, F over ``fsdp_transpose``), on XLA's own dumps in the jax version under test
(``examples/dump_pair_fsdp_transpose.py``).  Each device joins its shards ``[gate_k | up_k]``,
one gather over both axes leaves gate and up in blocks of F/2, and the GMM's output is split by
them (strided slices read in place; where the halves are joined, the gathered weight is put
back in order instead, the cost model's choice):

* StableHLO (pretty, generic, with debug locations) and HLO before optimizations and after
  Shardy import: one site, rewritten, compiled and run bit-equal to the original (f32: only
  collectives move) with half the all-gathers (jax 0.12 after Shardy's import: reported, not
  rewritten, the shard-by-shard join of the sharded globals being GSPMD's to propagate);
* after SPMD partitioning: each device's program fed that device's shards, equal to jax's;
* optimized HLO: rewritten through its fusions, valid for XLA's parser, and inside XLA
  (``hlo_passes.install(mode="rewrite")``) bit-equal with the all-gathers fewer by the sites;
* the hand-fused twins: no site and no near miss in any form;
* halves joined after their gathers (a concatenate): the gathered weight put back in order.
"""
from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import hlo_passes
from examples import moe_pair_fsdp_transpose as ft
from examples.dump_pair_fsdp_transpose import FSDP_TRANSPOSE_PROGRAMS
from examples.moe import MoEConfig
from hlo_passes import runtime, xla_pass
from hlo_passes.passes import run_passes
from moe_cases import check_per_device

RULE = "moe-pair-gather-fusion"  # opt-in: asked for
PAIRS = sorted(n for n, (_, variant, _) in FSDP_TRANSPOSE_PROGRAMS.items() if variant == "pair")
TWINS = sorted(n for n, (_, variant, _) in FSDP_TRANSPOSE_PROGRAMS.items() if variant == "fused")
GLOBAL_STAGES = ["stablehlo", "stablehlo_debuginfo", "stablehlo_generic", "before_optimizations", "after_shardy"]
ALL_STAGES = [*GLOBAL_STAGES, "after_spmd_partitioning", "after_optimizations"]
BLOCKS = f"split by blocks of {MoEConfig().mlp // 2}"  # F/2: one block per fsdp_transpose shard


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """``{(program, stage): text}``, dumped once per module in a fresh process."""
    import programs

    out = tmp_path_factory.mktemp("fsdp_transpose_dumps")
    manifest = programs.run_dump_script(out, script="dump_pair_fsdp_transpose.py")
    return {(p, s): (out / rel).read_text() for p, stages in manifest.items() for s, rel in stages.items()}


_CACHE: dict[tuple[str, str], object] = {}


def _rewrite(dumps, program: str, stage: str):
    if (program, stage) not in _CACHE:
        _CACHE[program, stage] = run_passes(hlo_passes.parse(dumps[program, stage]), [RULE], strict=True)
    return _CACHE[program, stage]


def _gathers(text: str) -> int:
    return runtime.count_ops(text)["all-gather"]


def _equal(got, want) -> None:
    got, want = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("form", ft.FORMS)
def test_pair_and_fused_twin_compute_the_same(form: str) -> None:
    (want, _), (got, _) = (ft.build(form, variant) for variant in ft.VARIANTS)
    args = ft.inputs(ft.make_mesh(), MoEConfig())
    _equal(got(*args), want(*args))


@pytest.mark.parametrize("program", PAIRS)
@pytest.mark.parametrize("stage", GLOBAL_STAGES)
def test_global_stage_rewritten_and_equal(dumps, program: str, stage: str) -> None:
    form, _, _ = FSDP_TRANSPOSE_PROGRAMS[program]
    text = dumps[program, stage]
    result = _rewrite(dumps, program, stage)
    assert [(s.form, s.details.blocked) for s in result.sites] == [("two_gmm", BLOCKS)]
    assert result.near_misses == []
    site = result.sites[0]
    assert (site.before.count, site.after.count) == (4, 2)
    if not site.rewritten:
        # jax 0.12's XLA aborts propagating mesh shardings through the reshapes of the sharded
        # globals joined shard by shard after Shardy's import: reported, left as it is.
        assert (stage, form) == ("after_shardy", "implicit") and "GSPMD" in site.details.not_rewritten
        assert result.module.to_text() == text
        return
    if stage == "stablehlo_generic" and form == "implicit":
        # Rewriting a shard_map operand away leaves its block argument in generic form's region
        # header (docs/weight-forms.md, "Known limits"): found and rewritten, not compiled.
        return
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    assert _gathers(original.compiled_text) - _gathers(rewritten.compiled_text) == 2
    args = ft.host_inputs(MoEConfig())
    want = original.run(*args)
    _equal(rewritten.run(*args), want)
    fn, device_args = ft.build(form)
    _equal(want, fn(*device_args))  # the dump computes what jax.jit does
    again = run_passes(hlo_passes.parse(result.module.to_text()), [RULE])
    assert again.sites == [] and again.near_misses == []


@pytest.mark.parametrize("program", PAIRS)
def test_partitioned_dump_rewritten_and_equal_to_jax(dumps, program: str) -> None:
    form, _, _ = FSDP_TRANSPOSE_PROGRAMS[program]
    text = dumps[program, "after_spmd_partitioning"]
    result = _rewrite(dumps, program, "after_spmd_partitioning")
    assert [(s.form, s.rewritten, s.details.blocked) for s in result.sites] == [("two_gmm", True, BLOCKS)]
    original = runtime.compile_text(text, num_devices=8, partitioned=True)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8, partitioned=True)
    assert _gathers(original.compiled_text) - _gathers(rewritten.compiled_text) == 2
    fn, device_args = ft.build(form)
    check_per_device((original, rewritten), fn, device_args, list(ft.make_mesh().devices.flat), _equal)


@pytest.mark.parametrize("program", PAIRS)
def test_optimized_dump_rewritten_and_valid(dumps, program: str, xla_reference) -> None:
    text = dumps[program, "after_optimizations"]
    result = _rewrite(dumps, program, "after_optimizations")
    (site,) = result.sites
    assert (site.form, site.rewritten, site.details.blocked) == ("split_gather", True, BLOCKS)
    assert result.near_misses == [] and (site.before.count, site.after.count) == (4, 2)
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    printed = xla_reference.to_string(new_text)
    assert printed.ok, printed.error
    assert _gathers(printed.text) == _gathers(text) - 2


@pytest.mark.parametrize("mode", ft.MODES)
@pytest.mark.parametrize("form", ft.FORMS)
def test_rewritten_inside_xla(form: str, mode: str) -> None:
    """``hlo_passes.install(mode="rewrite")``: the module XLA compiles rewritten, bit-equal,
    with the all-gathers fewer by what the sites save (the training step's too)."""
    fn, args = ft.build(form, "pair", mode)
    plain = fn.lower(*args).compile()
    want = plain(*args)
    fn, args = ft.build(form, "pair", mode)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=[RULE])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", xla_pass.XlaPassFallbackWarning)
            compiled = fn.lower(*args).compile()
        modules = hlo_passes.installed_report().modules
    finally:
        hlo_passes.uninstall()
    sites = [s for m in modules for s in m.sites]
    assert [(s.form, s.rewritten, s.details.blocked) for s in sites] == [("split_gather", True, BLOCKS)]
    assert [m.check for r in modules for m in r.near_misses] == []
    assert _gathers(compiled.as_text()) == _gathers(plain.as_text()) - 2
    _equal(compiled(*args), want)


@pytest.mark.parametrize("program", TWINS)
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_fused_twin_has_no_findings(dumps, program: str, stage: str) -> None:
    result = _rewrite(dumps, program, stage)
    assert result.sites == [] and result.near_misses == []


def test_joined_halves_take_the_weight_reordered_inside_xla() -> None:
    """A meeting that joins the halves reads them in order: the gathered weight is put back in
    order (a copy of it, priced by the cost model).  ``examples/moe_split_sharded.py``'s prefused
    weight on the same mesh: in the module XLA compiles, the partitioner's collective-permutes
    have made its halves two arrays, which the layer concatenates after their gathers."""
    from examples import moe_split_sharded

    fn, args = moe_split_sharded.build("prefused", 2)
    plain = fn.lower(*args).compile()
    want = plain(*args)
    fn, args = moe_split_sharded.build("prefused", 2)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=[RULE])
    try:
        compiled = fn.lower(*args).compile()
        modules = hlo_passes.installed_report().modules
    finally:
        hlo_passes.uninstall()
    sites = [s for m in modules for s in m.sites]
    assert [(s.form, s.details.blocked) for s in sites] == [("concat", f"weight reordered from blocks of "
                                                                       f"{MoEConfig().mlp // 2}")]
    weight = 2 * MoEConfig().experts * MoEConfig().embed * MoEConfig().mlp * 4  # gathered, f32, per device
    assert sites[0].copies_added >= weight
    assert _gathers(compiled.as_text()) == _gathers(plain.as_text()) - 2
    _equal(compiled(*args), want)


def test_production_style_training_step_rewritten_inside_xla() -> None:
    """``examples/moe_trainer.py``'s ``pair`` layout with ``fsdp="split"`` (D over ``fsdp``, F over
    ``fsdp_transpose``; a scan over layers under ``jax.checkpoint``, optax's Adam): inside XLA the
    forward's gathers and their recomputation are fused (split by blocks), two steps give the
    same losses and parameters, bit for bit, with 4 all-gathers fewer in the compiled step."""
    from examples import moe_trainer

    step, state = moe_trainer.build("pair", "split")
    plain = step.lower(*state).compile().as_text()
    want_losses, want_params = moe_trainer.train("pair", "split", steps=2)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=[RULE])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", xla_pass.XlaPassFallbackWarning)
            losses, params = moe_trainer.train("pair", "split", steps=2)
            step, state = moe_trainer.build("pair", "split")
            text = step.lower(*state).compile().as_text()
        modules = hlo_passes.installed_report().modules
    finally:
        hlo_passes.uninstall()
    with_sites = [m for m in modules if m.sites]
    assert with_sites and all([(s.form, s.details.blocked) for s in m.sites] == [("split_gather", BLOCKS)] * 2
                              for m in with_sites)
    assert _gathers(text) == _gathers(plain) - 4
    assert losses == want_losses
    _equal(params, want_params)
