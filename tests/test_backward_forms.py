"""The backward of the weight layouts that do not hold gate and up side by side (issue 32,
``docs/weight-forms.md``): a separate size-2 axis ``W[E, 2, D, F]`` and interleaved halves
``W[..., ::2]``, ``W[..., 1::2]``.  In the training step (``mode="grad"`` of
``examples/moe_weight_forms.py``, dumped by ``examples/dump_backward_programs.py``) each half's
weight gradient is reduce-scattered on its own and put back into W's layout by pads (into the
stacking axis; with interior padding).  MOE002 makes that one weight-gradient GMM on the joined
activation gradients, one reduce-scatter, and the reduced shard put into W's layout
(``rewrites/split/reordered.py``):

* found in every text form jax and XLA write (StableHLO pretty, generic, with debug locations;
  HLO before optimizations, after Shardy's import, after SPMD partitioning, optimized);
* rewritten, compiled and run against the original: bit-equal (the fused GMM's columns are the
  halves' own dot products, and only the reductions move), compiled reduce-scatters fewer by the
  site's count; after partitioning each device's program gives that device's shards of jax's
  results; optimized HLO rewritten inside XLA;
* the fused twins: no site and no near miss in any form.
"""
from __future__ import annotations

import numpy as np
import pytest

import hlo_passes
from examples import moe_weight_forms as wf
from examples.dump_backward_programs import BACKWARD_DUMP_PROGRAMS, PAIR_BACKWARD_PROGRAMS
from hlo_passes import runtime
from hlo_passes.pass_interface import PassContext
from hlo_passes.passes import run_passes
from moe_cases import check_per_device
from programs import compiled_here_context, ynn_dots

RULES = ["moe-gather-fusion", "moe-gradient-fusion", "moe-pair-gather-fusion", "moe-pair-gradient-fusion"]
SPLIT = sorted(n for n, s in BACKWARD_DUMP_PROGRAMS.items() if s.variant == "split")
TWINS = sorted(n for n, s in BACKWARD_DUMP_PROGRAMS.items() if s.variant == "fused")
LOWERED = ["stablehlo", "stablehlo_generic", "stablehlo_debuginfo", "before_optimizations", "after_shardy",
           "after_spmd_partitioning"]
ALL_STAGES = [*LOWERED, "after_optimizations"]
# Compiled as global programs (the generic and debug-location texts are the pretty one's, printed
# otherwise: found and rewritten there, test_gradient_site_found_in_every_form).
GLOBAL = ["stablehlo", "before_optimizations", "after_shardy"]
FORM = {"size2": "stacked_pad_add", "interleaved": "interleaved_pad_add"}


def _context() -> PassContext:
    return compiled_here_context()


@pytest.fixture(scope="module")
def backward_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """``{(program, stage): text}``, dumped once per module in a fresh process."""
    import programs

    out = tmp_path_factory.mktemp("backward_dumps")
    manifest = programs.run_dump_script(out, script="dump_backward_programs.py")
    return {(p, s): (out / rel).read_text() for p, stages in manifest.items() for s, rel in stages.items()}


@pytest.fixture(scope="module")
def linted(backward_dumps):
    """``lint(program, stage)``: the rules' result on one dump, each computed once per module."""
    cache: dict[tuple[str, str], object] = {}

    def lint(program: str, stage: str):
        if (program, stage) not in cache:
            cache[program, stage] = run_passes(hlo_passes.parse(backward_dumps[program, stage]), RULES, strict=True,
                                               context=_context())
        return cache[program, stage]

    return lint


def _gradient_site(result):
    (site,) = [s for s in result.sites if s.rule == "moe-gradient-fusion"]
    return site


def _reductions(exe: runtime.Executable) -> int:
    counts = runtime.count_ops(exe.compiled_text)
    return counts["reduce-scatter"] + counts["all-reduce"]


def _bit_equal(got, want) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("program", SPLIT)
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_gradient_site_found_in_every_form(backward_dumps, linted, program: str, stage: str) -> None:
    """The forward's site (MOE001) and the gradient's (MOE002, in W's layout before optimization;
    optimized, the halves' reductions read by the fusion that joins them), nothing refused, rewritten.
    Where XLA:CPU's dots round by their shape (YNNPACK: the context says so, or, optimized, the GMMs
    are its fusions, ``ynn_dots``), the GMMs are kept as written and only the reductions fused."""
    spec = BACKWARD_DUMP_PROGRAMS[program]
    result = linted(program, stage)
    assert result.near_misses == []
    want = "split_reduction" if stage == "after_optimizations" else FORM[spec.form]
    site = _gradient_site(result)
    assert (site.form, site.rewritten, site.before.count, site.after.count) == (want, True, 2, 1)
    kept = site.details.gmms_kept
    assert bool(kept) == _context().dots_round_by_shape or (
        stage == "after_optimizations" and ynn_dots(backward_dumps[program, stage]))
    assert site.gmm_launches_saved == (0 if kept else 1)
    assert [s.rule for s in result.sites] == ["moe-gather-fusion", "moe-gradient-fusion"]


@pytest.mark.parametrize("program", SPLIT)
@pytest.mark.parametrize("stage", GLOBAL)
def test_rewritten_gradient_runs_bit_equal(backward_dumps, linted, program: str, stage: str) -> None:
    spec = BACKWARD_DUMP_PROGRAMS[program]
    text = backward_dumps[program, stage]
    result = linted(program, stage)
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    site = _gradient_site(result)
    assert _reductions(original) - _reductions(rewritten) == site.before.count - site.after.count == 1
    args = wf.host_inputs(spec)
    got = rewritten.run(*args)
    _bit_equal(got, original.run(*args))
    if stage == "stablehlo":
        # Each half's gradient lands at its own place in W: gate's and up's differ, so a reorder
        # that exchanged them (or mixed their elements) would not give the original's.
        gate, up = (np.asarray(h) for h in wf._halves(spec)(np.asarray(got[1])))
        assert np.abs(gate - up).max() > 1e-3


@pytest.mark.parametrize("program", SPLIT)
def test_partitioned_gradient_runs_per_device(backward_dumps, linted, program: str) -> None:
    """After SPMD partitioning: each device's rewritten program gives that device's shards of jax's
    loss and gradients (bit-equal), with one reduce-scatter fewer."""
    spec = BACKWARD_DUMP_PROGRAMS[program]
    result = linted(program, "after_spmd_partitioning")
    original = runtime.compile_text(backward_dumps[program, "after_spmd_partitioning"], num_devices=8,
                                    partitioned=True)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8, partitioned=True)
    assert _reductions(original) - _reductions(rewritten) == 1
    fn, device_args = wf.build(spec)
    check_per_device((original, rewritten), fn, device_args, list(wf.program_mesh(spec).devices.flat),
                     _bit_equal)


def _reduced_operands(exe: runtime.Executable) -> int:
    """Reductions of the compiled program, each operand of a combined one counted (XLA:CPU's
    combiner makes the psums of a step one all-reduce: the halves ride in it as operands)."""
    return sum(len(i.operands) for i in hlo_passes.parse(exe.compiled_text).instructions()
               if i.opcode in ("reduce-scatter", "all-reduce"))


@pytest.mark.parametrize("spec", [wf.FormSpec(form="size2", mode="grad", mesh="mesh2"),
                                  wf.FormSpec(form="interleaved", mode="grad", collectives="implicit", mesh="mesh2")],
                         ids=lambda s: s.name)
def test_two_stage_and_implicit_gradient_runs_bit_equal(spec: wf.FormSpec) -> None:
    """FSDP in two stages (``mesh2``: two reduce-scatters per half) and MaxText's implicit form
    (the halves replicated into the shard_map: a psum of each inside it), lowered here: one site,
    the compiled reductions fewer by it, loss and gradients bit-equal (StableHLO)."""
    fn, device_args = wf.build(spec)
    text = fn.lower(*device_args).as_text()
    result = run_passes(hlo_passes.parse(text), ["moe-gradient-fusion"], strict=True, context=_context())
    (site,) = result.sites
    assert (site.form, site.rewritten) == (FORM[spec.form], True)
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    assert _reduced_operands(original) - _reduced_operands(rewritten) == site.before.count - site.after.count
    args = wf.host_inputs(spec)
    _bit_equal(rewritten.run(*args), original.run(*args))


@pytest.mark.parametrize("program", SPLIT)
def test_optimized_gradient_rewritten_inside_xla(program: str) -> None:
    """Optimized HLO, as XLA compiles it (``hlo_passes.install(mode="rewrite")``, the gradient rule
    alone): one reduce-scatter fewer, loss and gradients bit-equal to ``jax.jit``'s."""
    spec = BACKWARD_DUMP_PROGRAMS[program]
    fn, args = wf.build(spec)
    plain = fn.lower(*args).compile()
    want = plain(*args)
    fn, args = wf.build(spec)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=["moe-gradient-fusion"])
    try:
        compiled = fn.lower(*args).compile()
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    sites = [s for m in report.modules for s in m.sites]
    # Where XLA:CPU runs the halves' GMMs through YNNPACK (``ynn_dots``), or install() found its dots
    # round by their shape, the GMMs are kept as written: the reductions alone are fused.
    assert [(s.form, s.rewritten) for s in sites] == [("split_reduction", True)]
    kept = ynn_dots(plain.as_text()) or _context().dots_round_by_shape
    assert [bool(s.details.gmms_kept) for s in sites] == [kept]
    assert [m.found for m in report.modules] == [1]
    assert runtime.count_ops(plain.as_text())["reduce-scatter"] - \
        runtime.count_ops(compiled.as_text())["reduce-scatter"] == 1
    _bit_equal(compiled(*args)[1], want[1])
    np.testing.assert_array_equal(np.asarray(compiled(*args)[0]), np.asarray(want[0]))


@pytest.mark.parametrize("program", TWINS)
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_fused_twin_has_no_findings(linted, program: str, stage: str) -> None:
    result = linted(program, stage)
    assert result.sites == [] and result.near_misses == []


# ---- two weights with F on a second FSDP axis (examples/moe_pair_fsdp_transpose.py) ----------
# Each weight's gradient is reduce-scattered along F over ``fsdp_transpose`` and along D over
# ``fsdp`` (explicit: psum_scatter in the shard_map; implicit: the partitioner's all-reduce at the
# shard_map's exit).  MOE004 joins the activation gradients in blocks of F/2 (block k of each in
# turn), so that one scatter along F leaves each device ``[dW0_k | dW1_k]``, sliced apart.

PAIR_RULE = "moe-pair-gradient-fusion"  # opt-in: asked for
PAIR_SPLIT = sorted(n for n, (_, variant, _) in PAIR_BACKWARD_PROGRAMS.items() if variant == "pair")
PAIR_TWINS = sorted(n for n, (_, variant, _) in PAIR_BACKWARD_PROGRAMS.items() if variant == "fused")
# Reductions of the two gradients before -> after, per form, in the lowered text.
PAIR_COUNTS = {"explicit": (4, 2), "implicit": (2, 1)}


@pytest.mark.parametrize("program", PAIR_SPLIT)
@pytest.mark.parametrize("stage", LOWERED)
def test_pair_gradient_site_found_in_every_lowered_form(linted, program: str, stage: str) -> None:
    form = PAIR_BACKWARD_PROGRAMS[program][0]
    result = linted(program, stage)
    assert result.near_misses == []
    (site,) = [s for s in result.sites if s.rule == PAIR_RULE]
    assert (site.form, site.rewritten, (site.before.count, site.after.count)) == \
        ("two_gmm_apart", True, PAIR_COUNTS[form])


@pytest.mark.parametrize("program", PAIR_SPLIT)
def test_pair_gradient_sites_in_optimized_hlo(backward_dumps, linted, program: str, xla_reference) -> None:
    """Optimized: the explicit form's two stages, a layout copy between them, are one site of both
    stages' reductions, 4 -> 2; the rewritten text is XLA's to parse, with two reductions fewer.  Implicit: both gradients
    are operands of the one all-reduce XLA:CPU's combiner made, so fusing them saves no collective:
    the ``xla-combined`` near miss (issue 47), no site."""
    form = PAIR_BACKWARD_PROGRAMS[program][0]
    result = linted(program, "after_optimizations")
    assert [(m.rule, m.check) for m in result.near_misses] == ([] if form == "explicit" else
                                                               [(PAIR_RULE, "xla-combined")])
    sites = [s for s in result.sites if s.rule == PAIR_RULE]
    # Explicit: one site for both stages, the layout copy XLA puts between them followed up to the
    # first stage's reduction (issue 47: it was a site per stage, the pair counted twice).
    want = [("two_gmm_apart", True, 4, 2)] if form == "explicit" else []
    # (YNNPACK's GMMs, ``ynn_dots``: kept as written, the reductions fused all the same.)
    assert [(s.form, s.rewritten, s.before.count, s.after.count) for s in sites] == want
    printed = xla_reference.to_string(result.module.to_text())
    assert printed.ok, printed.error
    counts = [runtime.count_ops(t) for t in (backward_dumps[program, "after_optimizations"], printed.text)]
    if form == "explicit":  # (implicit: the halves are operands of one combined all-reduce)
        assert counts[0]["reduce-scatter"] - counts[1]["reduce-scatter"] == 2


@pytest.mark.parametrize("program", PAIR_SPLIT)
@pytest.mark.parametrize("stage", GLOBAL)
def test_pair_gradient_runs_bit_equal(backward_dumps, linted, program: str, stage: str) -> None:
    from examples import moe_pair_fsdp_transpose as ft
    from examples.moe import MoEConfig

    form = PAIR_BACKWARD_PROGRAMS[program][0]
    result = linted(program, stage)
    original = runtime.compile_text(backward_dumps[program, stage], num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    before, after = PAIR_COUNTS[form]
    if form == "explicit":  # (implicit: the partitioner's all-reduce, combined either way)
        assert _reductions(original) - _reductions(rewritten) == before - after
    args = ft.host_inputs(MoEConfig())
    _bit_equal(rewritten.run(*args), original.run(*args))


@pytest.mark.parametrize("program", PAIR_SPLIT)
def test_pair_partitioned_gradient_runs_per_device(backward_dumps, linted, program: str) -> None:
    from examples import moe_pair_fsdp_transpose as ft

    spec = PAIR_BACKWARD_PROGRAMS[program]
    result = linted(program, "after_spmd_partitioning")
    original = runtime.compile_text(backward_dumps[program, "after_spmd_partitioning"], num_devices=8,
                                    partitioned=True)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8, partitioned=True)
    fn, device_args = ft.build(*spec)
    check_per_device((original, rewritten), fn, device_args, list(ft.make_mesh().devices.flat), _bit_equal)


@pytest.mark.parametrize("program", PAIR_SPLIT)
def test_pair_gradient_inside_xla(program: str) -> None:
    """The module XLA compiles, MOE004 asked for, rewritten: loss and both gradients bit-equal to
    ``jax.jit``'s.  Implicit: no site, the ``xla-combined`` near miss (both gradients are operands
    of XLA:CPU's one combined all-reduce: fusing them saves no collective).  Explicit: one site of
    both stages (``two_gmm_apart``, 4 -> 2: the layout copy of each first-stage reduce-scatter
    followed up to it), 2 reduce-scatters fewer, the values bit-equal."""
    import jax

    from examples import moe_pair_fsdp_transpose as ft

    spec = PAIR_BACKWARD_PROGRAMS[program]
    fn, args = ft.build(*spec)
    want_compiled = fn.lower(*args).compile()
    want = want_compiled(*args)
    fn, args = ft.build(*spec)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=[PAIR_RULE])
    try:
        compiled = fn.lower(*args).compile()
        modules = hlo_passes.installed_report().modules
    finally:
        hlo_passes.uninstall()
    sites = [(s.form, s.rewritten) for m in modules for s in m.sites]
    refused = [n.check for m in modules for n in m.near_misses]
    if spec[0] == "implicit":
        assert (sites, refused) == ([], ["xla-combined"])
    else:  # (YNNPACK's GMMs, ``ynn_dots``: kept as written, the reductions fused all the same)
        assert (sites, refused) == ([("two_gmm_apart", True)], [])  # both stages: one site, 4 -> 2
        scatters = [runtime.count_ops(c.as_text())["reduce-scatter"] for c in (want_compiled, compiled)]
        assert scatters[0] - scatters[1] == 2
    for g, w in zip(jax.tree.leaves(compiled(*args)), jax.tree.leaves(want)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("program", PAIR_TWINS)
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_pair_fused_twin_has_no_findings(linted, program: str, stage: str) -> None:
    result = linted(program, stage)
    assert result.sites == [] and result.near_misses == []
