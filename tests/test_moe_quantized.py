"""Quantized fused gate/up weights (issue 32, ``examples/moe_quantized.py``,
``docs/weight-forms.md`` "Quantized weights"): MaxText's quantized all-gather over FSDP (each
half's int8 or fp8 ``qvalue`` gathered apart, dequantized by its own half of the scales,
replicated or sharded and gathered too; met at a concatenate or at two GMMs) and XLA's
CollectiveQuantizer form (a convert to fp8 before each half's gather, back after it), on XLA's
own dumps (``examples/dump_quantized_programs.py``) in the jax version under test:

* StableHLO (pretty; generic and with debug locations: found and rewritten, not compiled again),
  HLO before optimizations and after Shardy's import: one MOE001 site, rewritten, compiled and run
  against the original: bit-identical (the
  rewrite only moves collectives; the quantized values are integers), with fewer all-gathers by
  what the site saves (the ``qvalue``'s gather, and a sharded scale's);
* after SPMD partitioning: the same, each device's program fed that device's shards;
* optimized HLO: the halves' gathers (the ``qvalue``'s, and a sharded scale's) rewritten through
  their fusions; inside XLA (``hlo_passes.install(mode="rewrite")``) the compiled program runs
  those gathers fewer and gives jax's values bit for bit;
* the already-fused twins: no site, no near miss, the text unchanged, in every form.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import hlo_passes
from examples import moe_quantized as mq
from examples.dump_quantized_programs import QUANT_DUMP_PROGRAMS
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from moe_cases import check_per_device
from programs import dump_texts
from test_compiled_rewrite import _rewritten_inside_xla

RULES = ["moe-gather-fusion", "moe-gradient-fusion", "moe-pair-gather-fusion", "moe-pair-gradient-fusion"]
SPLIT = sorted(n for n, s in QUANT_DUMP_PROGRAMS.items() if s.variant == "split")
TWINS = sorted(n for n, s in QUANT_DUMP_PROGRAMS.items() if s.variant == "fused")
GLOBAL_STAGES = ["stablehlo", "before_optimizations", "after_shardy"]
ALL_STAGES = [*GLOBAL_STAGES, "stablehlo_generic", "stablehlo_debuginfo", "after_spmd_partitioning",
              "after_optimizations"]


@pytest.fixture(scope="module")
def quant_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """``{(program, stage): text}``, dumped once per module in a fresh process."""
    return dump_texts(tmp_path_factory.mktemp("quant_dumps"), "dump_quantized_programs.py")


_CACHE: dict[tuple[str, str], object] = {}


def _lint(dumps, program: str, stage: str):
    if (program, stage) not in _CACHE:
        _CACHE[program, stage] = run_passes(hlo_passes.parse(dumps[program, stage]), RULES, strict=True)
    return _CACHE[program, stage]


@functools.lru_cache(maxsize=None)
def _jax_result(program: str) -> np.ndarray:
    """What ``jax.jit`` computes (once per program: every stage's test compares with it)."""
    return mq.run(QUANT_DUMP_PROGRAMS[program])


def _saved(spec: mq.QuantSpec) -> int:
    """All-gathers one site saves: the ``qvalue``'s, and a sharded scale's."""
    return 2 if spec.form == "maxtext" and spec.scale == "sharded" else 1


def _gathers(exe: runtime.Executable) -> int:
    return runtime.count_ops(exe.compiled_text)["all-gather"]


def _identical(got, want) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("program", sorted(QUANT_DUMP_PROGRAMS))
def test_program_computes_the_dequantized_layer(program: str) -> None:
    """Against the weight dequantized whole on one device, at the GMM dtype's rounding."""
    spec = QUANT_DUMP_PROGRAMS[program]
    tol = 1e-2 if spec.dequant_dtype == "bfloat16" else 1e-6
    np.testing.assert_allclose(_jax_result(program), mq.reference(spec), rtol=tol, atol=tol)


@pytest.mark.parametrize("program", SPLIT)
@pytest.mark.parametrize("stage", GLOBAL_STAGES)
def test_global_stage_rewritten_bit_identical(quant_dumps, program: str, stage: str) -> None:
    spec = QUANT_DUMP_PROGRAMS[program]
    text = quant_dumps[program, stage]
    result = _lint(quant_dumps, program, stage)
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [("moe-gather-fusion", spec.meet, True)]
    assert result.near_misses == []
    site = result.sites[0]
    assert site.before.count - site.after.count == _saved(spec)
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    assert _gathers(original) - _gathers(rewritten) == _saved(spec)
    args = mq.host_inputs(spec)
    want = original.run(*args)
    _identical(rewritten.run(*args), want)
    _identical(want, [_jax_result(program)])  # the dump computes what jax.jit does
    assert run_passes(hlo_passes.parse(result.module.to_text()), RULES).sites == []


@pytest.mark.parametrize("program", SPLIT)
def test_generic_form_site_rewritten(quant_dumps, program: str) -> None:
    """Generic-form StableHLO: the same site, rewritten, the text valid (the pretty form's
    program: executed in test_global_stage_rewritten_bit_identical)."""
    result = _lint(quant_dumps, program, "stablehlo_generic")
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [
        ("moe-gather-fusion", QUANT_DUMP_PROGRAMS[program].meet, True)]
    assert result.near_misses == []
    hlo_passes.parse(result.module.to_text(), validate=True).verify()


@pytest.mark.parametrize("program", SPLIT)
def test_debuginfo_site_points_at_the_program(quant_dumps, program: str) -> None:
    """With debug locations: the same site, rewritten; its halves are cut in the example's code
    (the text is the pretty form's with locations: compiled there)."""
    result = _lint(quant_dumps, program, "stablehlo_debuginfo")
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [
        ("moe-gather-fusion", QUANT_DUMP_PROGRAMS[program].meet, True)]
    assert any(loc.source is not None and "moe_quantized.py:" in loc.source for loc in result.sites[0].pieces)


@pytest.mark.parametrize("program", SPLIT)
def test_partitioned_dump_rewritten_bit_identical(quant_dumps, program: str) -> None:
    spec = QUANT_DUMP_PROGRAMS[program]
    result = _lint(quant_dumps, program, "after_spmd_partitioning")
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [("moe-gather-fusion", spec.meet, True)]
    assert result.near_misses == []
    original = runtime.compile_text(quant_dumps[program, "after_spmd_partitioning"], num_devices=8,
                                    partitioned=True)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8, partitioned=True)
    assert _gathers(original) - _gathers(rewritten) == _saved(spec)
    fn, device_args = mq.build(spec)
    check_per_device((original, rewritten), fn, device_args, list(mq.program_mesh(spec).devices.flat),
                     lambda got, want: _identical(got, want))


@pytest.mark.parametrize("program", SPLIT)
def test_optimized_dump_rewritten(quant_dumps, program: str) -> None:
    """Optimized HLO: XLA fuses each half's dequantization into the fusion that reads the halves,
    so each array's gathered halves (the ``qvalue``'s, a sharded scale's) are a site of their own
    (``split_gather``), rewritten to one gather and a slice per half for those fusions; the
    CollectiveQuantizer form's halves still meet at a concatenate of their own."""
    spec = QUANT_DUMP_PROGRAMS[program]
    result = _lint(quant_dumps, program, "after_optimizations")
    form = "concat" if (spec.form, spec.meet) == ("collective_quantizer", "concat") else "split_gather"
    assert [(s.rule, s.form, s.rewritten) for s in result.sites] == [("moe-gather-fusion", form, True)] \
        * _saved(spec)
    assert result.near_misses == []
    assert all(s.before.count - s.after.count == 1 for s in result.sites)
    hlo_passes.parse(result.module.to_text(), validate=True).verify()


@pytest.mark.parametrize("program", SPLIT)
def test_rewritten_inside_xla_bit_identical(program: str) -> None:
    """The module XLA compiles, rewritten in its pipeline: fewer all-gathers by the sites',
    the same values bit for bit."""
    _rewritten_inside_xla(mq.build, QUANT_DUMP_PROGRAMS[program])


@pytest.mark.parametrize("program", TWINS)
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_fused_twin_has_no_findings(quant_dumps, program: str, stage: str) -> None:
    result = _lint(quant_dumps, program, stage)
    assert result.sites == [] and result.near_misses == []
    assert result.module.to_text() == hlo_passes.parse(quant_dumps[program, stage]).to_text()


def test_specs_are_checked() -> None:
    with pytest.raises(ValueError, match="qtype"):
        mq.QuantSpec(qtype="int4")
    with pytest.raises(ValueError, match="collective_quantizer"):
        mq.QuantSpec(form="collective_quantizer", qtype="int8")
