"""MOE001 on every text of the training step whose split dimension is sharded on a second mesh axis.

``examples/moe_trainer.py`` ``prefused``/``split``: ``W[L, E, D, 2F]`` with ``D`` over ``fsdp`` (4) and
``2F`` over ``fsdp_transpose`` (2), sliced into gate and up before a shard_map that takes them whole.
``examples/dump_trainer_programs.py`` dumps its texts once per session (``trainer_dumps``).

* Global texts (StableHLO, HLO before optimizations, after Shardy's import): the halves are slices
  of the sharded W and the partitioner makes their pieces; the rewrite gathers W whole.
* After SPMD partitioning and in the optimized module: each device's piece of a half is made by a
  collective-permute, a concatenate and a dynamic-slice at its partition's offset, then gathered
  along the split dimension; ``rewrites/split/reshard`` proves, device by device, that the pieces are the
  half's slice of the shard gathered whole, and the rewrite gathers the shard whole.

In the forward of every text a site is rewritten; the backward's recomputation reads the halves'
slices a second time (``extra-users``) in every text but the optimized one, where XLA gave each round
its own slices (tests/test_compiled_rewrite.py runs that one inside XLA, 12 -> 8 all-gathers).
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import hlo_passes
from examples import moe_trainer
from hlo_passes import runtime
from hlo_passes.passes import run_passes

PROGRAM = "trainer_prefused_split"
RULES = ["moe-gather-fusion"]
STAGES = ["stablehlo", "before_optimizations", "after_shardy", "after_spmd_partitioning", "after_optimizations"]


@pytest.fixture(scope="module")
def texts(trainer_dumps: dict[tuple[str, str], str]) -> dict[str, str]:
    return {stage: text for (program, stage), text in trainer_dumps.items() if program == PROGRAM}


@pytest.fixture(scope="module")
def rewritten(texts: dict[str, str]) -> dict[str, object]:
    return {stage: run_passes(hlo_passes.parse(texts[stage]), RULES) for stage in STAGES}


def _counts(text: str) -> tuple[int, int]:
    counts = runtime.count_ops(text)
    return counts["all-gather"], counts["collective-permute"]


def test_every_text_rewrites_the_forward(rewritten: dict[str, object]) -> None:
    lines = open(moe_trainer.__file__).read().splitlines()
    slicing = 1 + next(i for i, line in enumerate(lines) if "wi[..., :MLP], wi[..., MLP:]" in line)
    for stage, result in rewritten.items():
        sites = [(s.form, s.before.count, s.after.count) for s in result.sites]
        misses = [m.check for m in result.near_misses]
        assert sites and all(s.rewritten for s in result.sites), (stage, sites)
        # Two stages per half and, where the text has them, the permutes that make the pieces: 6 -> 2.
        if stage == "after_optimizations":  # the forward and its recomputation, each with its own slices
            assert sites == [("split_gather", 6, 2)] * 2 and not misses, (stage, sites, misses)
        elif stage == "after_spmd_partitioning":
            assert sites == [("two_gmm", 6, 2)] and misses == ["extra-users"] * 2, (stage, sites, misses)
        elif stage in ("stablehlo", "before_optimizations"):
            # The recomputation's halves enter its shard_map and the backward's alike: both take
            # the whole weight (``crossings.shared_callers``), a second site; or, where jax gave the
            # recomputation slices of its own (jax 0.12's HLO), a second site and the backward's
            # transposed GMMs refused (same-lhs).
            assert [form for form, _, _ in sites] == ["two_gmm"] * 2 and misses in ([], ["same-lhs"]), \
                (stage, sites, misses)
        else:
            # The partitioner's collectives, counted from the shardings.  The recomputation reads
            # the forward's slices (extra-users: after Shardy's import each operand enters through
            # its own SPMDFullToShardShape call, not followed to the backward's) or, where jax gave
            # it its own, is a second site (then the backward's transposed GMMs are refused:
            # same-lhs), as for D on two axes.
            assert all(form == "two_gmm" and before > after >= 1 for form, before, after in sites), (stage, sites)
            assert misses in (["extra-users"] * 2, ["same-lhs"]) and len(sites) + len(misses) == 3, (stage, misses)
        # Where the halves are cut (the plain StableHLO print carries no locations).
        places = [p.source for s in result.sites for p in (s.location, *s.pieces) if p.source]
        assert stage == "stablehlo" or any(p.endswith(f"moe_trainer.py:{slicing}") for p in places), (stage, places)


@pytest.mark.parametrize("stage", ["stablehlo", "before_optimizations"])
def test_global_text_rewritten_runs_equal(texts: dict[str, str], rewritten: dict[str, object], stage: str) -> None:
    """Compiled again and run on the step's inputs: the same outputs, bit for bit (only the
    gathers move), and the forward's two gathers and two permutes per half gone."""
    original = runtime.compile_text(texts[stage], num_devices=8)
    new = runtime.compile_text(rewritten[stage].module.to_text(), num_devices=8)
    before, after = _counts(original.compiled_text), _counts(new.compiled_text)
    rounds = len(rewritten[stage].sites)  # each round of halves: 2 of its 4 gathers, both permutes
    assert before == (12, 4) and after == (12 - 2 * rounds, 4 - 2 * rounds), (before, after)
    _, state = moe_trainer.build("prefused", "split")
    args = [np.asarray(a) for a in jax.tree.leaves(state)]
    for got, want in zip(new.run(*args), original.run(*args), strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("stage", ["after_shardy", "after_spmd_partitioning", "after_optimizations"])
def test_partitioned_text_rewritten_valid(texts: dict[str, str], rewritten: dict[str, object], stage: str,
                                          xla_reference) -> None:
    """Texts this runtime does not run again (after Shardy's import the scanned step aborts XLA's
    import, a partitioned module with collective-permutes does not run as replicas here, a
    scheduled module does not compile again): valid for XLA's own parser, with the all-gathers
    the sites report gone (and, in the partitioned forms, the forward's collective-permutes)."""
    result = rewritten[stage]
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    printed = xla_reference.to_string(new_text)
    assert printed.ok, printed.error
    saved = sum(s.before.count - s.after.count for s in result.sites)
    (gathers, permutes), (gathers_after, permutes_after) = _counts(texts[stage]), _counts(printed.text)
    if stage == "after_shardy":  # the partitioner's gathers are not in this text yet
        assert gathers == gathers_after == 0 and saved > 0
        return
    # A site's halves: one permute each, counted with the gathers the site saves.
    assert permutes_after == permutes - 2 * len(result.sites)
    assert gathers_after + permutes_after == gathers + permutes - saved
    assert saved == (8 if stage == "after_optimizations" else 4)


@pytest.mark.parametrize(("original", "wrong"), [
    # Each device's offset taken from the other device of its pair: it cuts the piece it does not need.
    ("constant({0, 1, 0, 1, 0, 1, 0, 1})", "constant({1, 0, 1, 0, 1, 0, 1, 0})"),
    # One pair's piece sent the wrong way: device 7 receives nothing (zeros) where its piece belongs.
    ("source_target_pairs={{0,1},{2,3},{4,5},{6,7}}", "source_target_pairs={{0,1},{2,3},{4,5},{7,6}}"),
], ids=["offsets", "permute-pairs"])
def test_pieces_not_in_place_refused(texts: dict[str, str], original: str, wrong: str) -> None:
    """The device-by-device proof refuses pieces that are not the half's part at their place in the
    gathered shard: a near miss (``resharded-pieces``) that says which device holds what."""
    text = texts["after_spmd_partitioning"]
    assert original in text
    result = run_passes(hlo_passes.parse(text.replace(original, wrong)), RULES)
    assert not result.sites
    refused = [m for m in result.near_misses if m.check == "resharded-pieces"]
    assert refused and all("on device" in m.reason for m in refused), [str(m) for m in result.near_misses]
