"""moe-pair-gather-fusion (MOE003) on XLA's own dumps of the two-weight programs
(``examples/dump_pair_programs.py``: explicit two-stage, implicit training step,
concatenated inside, and F on a tensor-parallel axis of size 2 and 1, joined shard by shard),
in the jax version under test:

* StableHLO and HLO before optimizations and after Shardy import: rewritten, compiled
  and run against the original (equal outputs, half the all-gathers);
* after SPMD partitioning: each device's program fed the shards jax gives that device,
  original and rewritten equal to that device's shards of jax's results;
* optimized HLO: rewritten through its fusions, the result valid for XLA's own parser
  with half the all-gathers (tests/test_compiled_rewrite.py runs it inside XLA).
"""
from __future__ import annotations

import numpy as np
import pytest

import hlo_passes
from examples import moe_pair
from examples.dump_pair_programs import PAIR_DUMP_PROGRAMS
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from moe_cases import check_per_device

RULE = "moe-pair-gather-fusion"
PROGRAMS = sorted(PAIR_DUMP_PROGRAMS)
GLOBAL_STAGES = ["stablehlo", "before_optimizations", "after_shardy"]


_CACHE: dict[tuple[str, str], object] = {}


def _rewrite(dumps, program: str, stage: str):
    if (program, stage) not in _CACHE:
        _CACHE[program, stage] = run_passes(hlo_passes.parse(dumps[program, stage]), [RULE], strict=True)
    return _CACHE[program, stage]


def _form(program: str) -> str:
    return "concat" if PAIR_DUMP_PROGRAMS[program].form == "concat_inside" else "two_gmm"


def _gathers(exe: runtime.Executable) -> int:
    return runtime.count_ops(exe.compiled_text)["all-gather"]


def _assert_close(got, want, spec) -> None:
    exact = spec.mode == "forward" and spec.cfg.dtype == "float32"
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("stage", GLOBAL_STAGES)
def test_global_stage_rewritten_and_equal(pair_dumps, program: str, stage: str) -> None:
    spec = PAIR_DUMP_PROGRAMS[program]
    text = pair_dumps[program, stage]
    result = _rewrite(pair_dumps, program, stage)
    assert [s.form for s in result.sites] == [_form(program)] and not result.near_misses
    site = result.sites[0]
    if not site.rewritten:
        # jax 0.12's XLA aborts propagating mesh shardings through the reshapes of weights joined
        # shard by shard after Shardy's import: detected, and left as it is, saying so.
        assert stage == "after_shardy" and spec.tensor > 1 and "GSPMD" in site.details.not_rewritten
        assert result.module.to_text() == text
        return
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    assert _gathers(rewritten) * 2 == _gathers(original) >= 2
    args = moe_pair.host_inputs(spec)
    want = original.run(*args)
    _assert_close(rewritten.run(*args), want, spec)
    import jax

    # The dump, run here, computes what jax.jit computes.
    _assert_close(want, jax.tree.leaves(moe_pair.run(spec)), spec)


@pytest.mark.parametrize("program", PROGRAMS)
def test_partitioned_dump_rewritten_and_equal_to_jax(pair_dumps, program: str) -> None:
    spec = PAIR_DUMP_PROGRAMS[program]
    text = pair_dumps[program, "after_spmd_partitioning"]
    result = _rewrite(pair_dumps, program, "after_spmd_partitioning")
    assert [s.form for s in result.sites] == [_form(program)] and result.sites[0].rewritten
    assert result.sites[0].details.collectives == "explicit"  # the partitioner made them explicit
    original = runtime.compile_text(text, num_devices=8, partitioned=True)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8, partitioned=True)
    assert _gathers(rewritten) * 2 == _gathers(original) >= 2
    fn, device_args = moe_pair.build(spec)
    check_per_device((original, rewritten), fn, device_args, list(moe_pair.program_mesh(spec).devices.flat),
                     lambda got, want: _assert_close(got, want, spec))


@pytest.mark.parametrize("program", PROGRAMS)
def test_optimized_dump_rewritten_and_valid(pair_dumps, program: str, xla_reference) -> None:
    text = pair_dumps[program, "after_optimizations"]
    result = _rewrite(pair_dumps, program, "after_optimizations")
    (site,) = result.sites
    assert site.rewritten and not site.details.not_rewritten
    assert site.form == ("concat" if _form(program) == "concat" else "split_gather")
    assert site.before.count == 2 * site.after.count
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    printed = xla_reference.to_string(new_text)
    assert printed.ok, printed.error
    assert runtime.count_ops(printed.text)["all-gather"] == runtime.count_ops(text)["all-gather"] - site.after.count
