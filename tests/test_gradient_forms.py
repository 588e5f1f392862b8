"""Weight gradients in the production-style training step of examples/moe_trainer.py (issue 32):
scan over layers under ``jax.checkpoint``, f32 parameters computed in bf16, optax's Adam.

* The prefused weight ``wi[E, D, 2F]`` with its FFN in a shard_map (``ffn="shard_map"``, the
  partitioner gathers at the entry): the backward is MOE002's ``pad_add`` site — one weight's two
  halves — in the StableHLO and in HLO before optimizations, after Shardy import and after SPMD
  partitioning (never MOE004, and no internal error), at the line that slices the weight;
  rewritten, run, equal to the original with one all-reduce fewer.  In optimized HLO XLA's
  all-reduce combiner has put the halves into one tuple all-reduce; taken apart, they are MOE002's
  ``split_reduction`` (never MOE004's).
* No shard_map (``ffn="partitioner"``): the SPMD partitioner alone reduces the gradients.  The
  lowered forms (StableHLO, before optimizations, after Shardy) name the site as a near miss
  (``partitioner-reduction``); after SPMD partitioning the reductions are ops and MOE002 fuses
  them (run per device, equal, one all-reduce fewer); optimized HLO: as above.
* The two weights (``pair``): MOE004's site where it was; without a shard_map named in the lowered
  text (``partitioner-reduction``) and MOE004's site after partitioning (the first weight's
  gradient, stacked into the scan's result before the second's is computed, moves after the fused
  reduction: nothing of the second reads it); in optimized HLO MOE004's site among the operands
  of XLA's combined all-reduce.
* The negative control (``fused``: the weight gathered whole): no finding and no near miss of the
  gradient rules in any form.

The dumps come from ``examples/dump_trainer_programs.py`` (one fresh process per session).
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import hlo_passes
from examples import moe_trainer
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from programs import REPO_ROOT, ynn_dots

GRADIENT_RULES = ["moe-gradient-fusion", "moe-pair-gradient-fusion"]
PARTITIONER = "partitioner-reduction"
LOWERED = ["stablehlo", "before_optimizations", "after_shardy"]
UNOPTIMIZED = [*LOWERED, "after_spmd_partitioning"]
STAGES = [*UNOPTIMIZED, "after_optimizations"]


@pytest.fixture(scope="module")
def dumps(trainer_dumps: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    # The StableHLO with its source locations (the pretty form without them is the same module).
    return {(p, s if s != "stablehlo_debuginfo" else "stablehlo"): text for (p, s), text in trainer_dumps.items()
            if s not in ("stablehlo", "stablehlo_generic")}


_RESULTS: dict[tuple[str, str], object] = {}


def _result(dumps, program: str, stage: str):
    """Both gradient rules on one form (once per module: several tests read it)."""
    if (program, stage) not in _RESULTS:
        _RESULTS[program, stage] = run_passes(hlo_passes.parse(dumps[program, stage]), GRADIENT_RULES)
    return _RESULTS[program, stage]


def _slicing_line() -> str:
    source = (REPO_ROOT / "examples" / "moe_trainer.py").read_text().splitlines()
    return f"examples/moe_trainer.py:{1 + next(i for i, s in enumerate(source) if 'wi[..., :MLP], wi[..., MLP:]' in s)}"


def _all_reduces(text: str) -> int:
    """All-reduces of HLO text, or of StableHLO text."""
    return runtime.count_ops(text)["all-reduce"] + text.count('"stablehlo.all_reduce"(')


@pytest.mark.parametrize("stage", UNOPTIMIZED)
def test_prefused_gradient_is_one_weight_in_every_form(dumps, stage: str) -> None:
    result = _result(dumps, "trainer_prefused_shard_map", stage)
    (site,) = result.sites
    assert (site.rule, site.form, site.rewritten) == ("moe-gradient-fusion", "pad_add", True)
    assert (site.before.count, site.after.count) == (2, 1) and site.details.halves == 2
    assert site.location.line > 0 and site.location.source.endswith(_slicing_line()), site.location
    assert [m.check for m in result.near_misses] == []
    # One all-reduce fewer in the text (the halves' two psums are one of the whole gradient).
    assert _all_reduces(result.module.to_text()) == _all_reduces(dumps["trainer_prefused_shard_map", stage]) - 1
    findings = hlo_passes.lint(hlo_passes.parse(dumps["trainer_prefused_shard_map", stage]))
    assert not [f for f in findings if f.rule in ("MOE004", "internal-error")], findings
    assert [f.rule for f in findings if f.rule == "MOE002"] == ["MOE002"]


def _state(layout: str, ffn: str) -> list:
    _, state = moe_trainer.build(layout, "one", ffn=ffn)
    return jax.tree.leaves(state)


def _equal(got: list, want: list) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        # The fused reduction adds the same values in the same order: bit-equal.
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("stage", ["stablehlo", "before_optimizations"])
def test_prefused_gradient_rewritten_and_equal(dumps, stage: str) -> None:
    text = dumps["trainer_prefused_shard_map", stage]
    result = _result(dumps, "trainer_prefused_shard_map", stage)
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    args = [np.asarray(a) for a in _state("prefused", "shard_map")]
    _equal(rewritten.run(*args), original.run(*args))
    # Compiled, XLA combines every psum of the step into one tuple all-reduce either way.
    assert _all_reduces(rewritten.compiled_text) == _all_reduces(original.compiled_text) == 1


def _per_device(leaves: list) -> list[list[np.ndarray]]:
    devices = list(moe_trainer.mesh("one").devices.flat)

    def shard_on(array, device) -> np.ndarray:
        # An array on one device (optax's step count) is replicated for the step: all of it.
        return np.asarray(next((s.data for s in array.addressable_shards if s.device == device), array))

    return [[shard_on(a, d) for d in devices] for a in leaves]


PARTITIONED = [("prefused", "shard_map", "moe-gradient-fusion"), ("prefused", "partitioner", "moe-gradient-fusion"),
               ("pair", "partitioner", "moe-pair-gradient-fusion")]


@pytest.mark.parametrize("layout,ffn,rule", PARTITIONED)
def test_partitioned_step_rewritten_and_equal(dumps, layout: str, ffn: str, rule: str) -> None:
    """After SPMD partitioning (each device's program fed its shards): the gradient's halves
    reduced once, whether jax (a shard_map's psum) or the partitioner put the reductions there.
    The two weights without a shard_map: the partitioner stacks the first weight's reduced
    gradient into the scan's result before the second's is computed; nothing of the second reads
    it, so the stacking moves after the fused reduction (MOE004, once refused as ``order``)."""
    program = f"trainer_{layout}_{ffn}"
    text = dumps[program, "after_spmd_partitioning"]
    result = _result(dumps, program, "after_spmd_partitioning")
    (site,) = result.sites
    assert site.rule == rule and site.rewritten and site.details.collectives == "explicit"
    assert result.near_misses == []
    new_text = result.module.to_text()
    assert _all_reduces(new_text) == _all_reduces(text) - (site.before.count - site.after.count)
    original = runtime.compile_text(text, num_devices=8, partitioned=True)
    rewritten = runtime.compile_text(new_text, num_devices=8, partitioned=True)
    args = _per_device(_state(layout, ffn))
    want, got = original.run_per_device(*args), rewritten.run_per_device(*args)
    assert len(got) == len(want)
    for g_dev, w_dev in zip(got, want):
        _equal(g_dev, w_dev)


@pytest.mark.parametrize("stage", LOWERED)
def test_partitioner_reduced_gradient_named_in_the_lowered_text(dumps, stage: str) -> None:
    """No collective in the text: not a finding, a near miss that says the partitioner reduces each
    half there and where the rule fuses them."""
    result = _result(dumps, "trainer_prefused_partitioner", stage)
    assert result.sites == []
    (miss,) = result.near_misses
    assert (miss.rule, miss.check) == ("moe-gradient-fusion", PARTITIONER)
    assert "partitioner reduces each half" in miss.reason and "after-SPMD-partitioning" in miss.reason
    assert miss.location.line > 0
    if stage == "stablehlo":
        assert miss.location.source and "examples/moe_trainer.py:" in miss.location.source


@pytest.mark.parametrize("program", ["trainer_prefused_shard_map", "trainer_prefused_partitioner"])
def test_prefused_gradient_is_moe002s_in_optimized_hlo(dumps, program: str) -> None:
    """XLA:CPU's combiner has made the step's reductions one tuple all-reduce, taken apart for the
    rules (``rewrites/split/held``): the prefused weight's two weight-gradient GMMs, whose reduced values
    one fusion puts back together (past their converts), are one weight's — MOE002's, never MOE004's.
    Both halves' reductions ride in that one op already, so fusing them saves no collective: the
    ``xla-combined`` near miss (issue 47), not a site whose "2 -> 1" the compiled program would not
    bear out."""
    result = _result(dumps, program, "after_optimizations")
    assert result.sites == []
    (miss,) = result.near_misses
    assert (miss.rule, miss.check) == ("moe-gradient-fusion", "xla-combined")
    assert "one op" in miss.reason and miss.location.line > 0


@pytest.mark.parametrize("program", ["trainer_pair_shard_map", "trainer_pair_partitioner"])
def test_pair_gradients_in_one_combined_all_reduce_are_moe004s(dumps, program: str) -> None:
    """The two weights' gradients among the operands of the combined all-reduce: MOE004's (never
    MOE002's), and, both reductions riding in that one op already, fusing them saves no collective:
    MOE004's ``xla-combined`` near miss (issue 47), at the line of the combined op, not a site whose
    "2 -> 1" the compiled program would not bear out."""
    text = dumps[program, "after_optimizations"]
    result = _result(dumps, program, "after_optimizations")
    assert result.sites == []
    (miss,) = result.near_misses
    assert (miss.rule, miss.check) == ("moe-pair-gradient-fusion", "xla-combined")
    assert "2 weights' gradients in one op" in miss.reason
    assert "all-reduce(" in text.splitlines()[miss.location.line - 1]


def test_pair_gradients_stay_moe004s(dumps) -> None:
    """The two weights' gradients, reduced in the shard_map: MOE004's site in every unoptimized form."""
    for stage in UNOPTIMIZED:
        result = _result(dumps, "trainer_pair_shard_map", stage)
        assert [(s.rule, s.form) for s in result.sites] == [("moe-pair-gradient-fusion", "two_gmm_apart")], stage


def test_pair_gradients_reduced_by_the_partitioner_named(dumps) -> None:
    """The two weights without a shard_map: named in the lowered text (``partitioner-reduction``,
    saying where the rule fuses them); after SPMD partitioning the reductions are ops and MOE004's
    site (``test_partitioned_step_rewritten_and_equal``)."""
    for stage in LOWERED:
        result = _result(dumps, "trainer_pair_partitioner", stage)
        assert result.sites == []
        assert [(m.rule, m.check) for m in result.near_misses] == [("moe-pair-gradient-fusion", PARTITIONER)], stage
        assert "refuses it" not in result.near_misses[0].reason


@pytest.mark.parametrize("ffn", ["shard_map", "partitioner"])
def test_already_fused_weight_left_alone(dumps, ffn: str) -> None:
    """The negative control: the weight gathered whole, its gradient one array: no finding and no
    near miss of the gradient rules in any form."""
    for stage in STAGES:
        result = _result(dumps, f"trainer_fused_{ffn}", stage)
        assert result.sites == [] and result.near_misses == [], (stage, result.near_misses)


def test_prefused_training_step_through_hlo_passes_jit() -> None:
    """``hlo_passes.jit`` rewrites the step's StableHLO: MOE002, and MOE001's two gather sites (the
    forward's, and the recomputation's, whose halves both the recomputed forward's shard_map and the
    backward's take: each takes the whole weight, ``test_shared_shard_maps``): two optax steps give
    the parameters ``jax.jit`` gives, with two all-gathers fewer compiled (the step's all-reduces are
    one tuple all-reduce either way)."""
    want_losses, want_params = moe_trainer.train("prefused", "one", steps=2)
    step, state = moe_trainer.build("prefused", "one", jit=hlo_passes.jit)
    said = step.explain(*state)
    assert "MOE002 moe-gradient-fusion [pad_add] at " + _slicing_line() in said, said
    plain_step, plain_state = moe_trainer.build("prefused", "one")
    plain = runtime.count_ops(plain_step.lower(*plain_state).compile().as_text())
    fused = runtime.count_ops(step.lower(*state).compile().as_text())
    assert fused["all-gather"] == plain["all-gather"] - 2 and fused["all-reduce"] == plain["all-reduce"] == 1, \
        (fused, plain)
    losses, params = moe_trainer.train("prefused", "one", steps=2, jit=hlo_passes.jit)
    assert losses == want_losses
    _equal(list(params.values()), list(want_params.values()))
