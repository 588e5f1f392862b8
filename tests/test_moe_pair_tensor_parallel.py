"""Two gate/up weights whose F is on a tensor-parallel mesh axis (issue 27): one verdict per site.

MaxText's rules name a tensor axis on F; on an FSDP-only mesh it has size 1 and splits nothing,
on a real tensor-parallel mesh F stays split into the shard_map that runs the GMMs.  Until issue
27 the verdict depended on the text: with F on an axis of size 1 MOE003 was refused as
``concat-dim-sharded`` in jax 0.12's HLO before optimizations and reported elsewhere; with F on a
size-2 axis it was refused in StableHLO (``hlo_passes.jit`` could not fuse it) and reported after
SPMD partitioning (CI failed).  Now both are sites in every form: each device's pieces of gate
and up are joined side by side — the sharded globals shard by shard (``[.., F] -> [.., n, F/n]``,
joined, ``-> [.., 2F]``), a shard_map's local pieces as they are — and the rewritten programs
compute what the originals compute, with half the all-gathers and no collective added.  Where
F is gathered on the way, the gathered array holds gate and up in blocks, one per F shard
(issue 32): a site in every form too, its GMM output split by those blocks
(tests/test_moe_pair_fsdp_transpose.py runs such programs).
(XLA's own dumps of these programs are in examples/dump_pair_programs.py: their stages are
rewritten and run in test_moe_pair_gather_fusion_dumps, their figures compared in
test_cost_model.)
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import hlo_passes
from examples import moe_pair
from examples.moe_pair import PAIR_FORMS, PairSpec
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from moe_cases import DIALECTS

RULES = ["moe-pair-gather-fusion", "moe-pair-gradient-fusion"]
SPECS = [PairSpec(form=f, tensor=t, mode=m) for t in (1, 2) for f in PAIR_FORMS for m in ("forward", "grad")]


@functools.lru_cache(maxsize=None)
def _text(spec: PairSpec, dialect: str) -> str:
    return moe_pair.lower(spec).as_text(dialect=dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_tensor_parallel_weights_joined_per_shard_and_equal(spec: PairSpec, dialect: str) -> None:
    text = _text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), RULES, strict=True)
    assert result.near_misses == [], [str(m) for m in result.near_misses]
    gathers = [s for s in result.sites if s.rule == RULES[0]]
    assert len(gathers) == 1 and gathers[0].rewritten and (gathers[0].before.count, gathers[0].after.count) == (2, 1)
    new_text = result.module.to_text()
    args = moe_pair.host_inputs(spec)
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(new_text, num_devices=8)
    for got, want in zip(rewritten.run(*args), original.run(*args)):
        if spec.mode == "forward":
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        else:
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
    before, after = (runtime.count_collectives(e.compiled_text) for e in (original, rewritten))
    assert after["all-gather"] * 2 == before["all-gather"] == 2
    assert after["all-to-all"] == after["collective-permute"] == 0
    # The rewritten program computes what jax computes, and a second run finds nothing.
    import jax

    for got, w in zip(rewritten.run(*args), jax.tree.leaves(moe_pair.run(spec))):
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=1e-5, atol=1e-5)
    assert run_passes(hlo_passes.parse(new_text), RULES).sites == []


def _f_gathered_text(tensor: int, form: str) -> str:
    """F split on the tensor axis and gathered before the GMMs (a constraint drops every axis)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    spec = PairSpec(form="implicit", tensor=tensor)
    mesh = moe_pair.program_mesh(spec)
    inner = jax.shard_map(lambda x, gs, a, b: jax.lax.ragged_dot(x, a, gs) * jax.lax.ragged_dot(x, b, gs),
                          mesh=mesh, in_specs=(P(),) * 4, out_specs=P(), check_vma=False)

    def layer(x, gs, w0, w1, wo):
        drop = lambda w: jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P()))  # noqa: E731
        return jnp.sum(inner(x, gs, drop(w0), drop(w1))) + jnp.sum(wo)

    lowered = jax.jit(layer).lower(*moe_pair.inputs(spec, mesh))
    return {"stablehlo": lowered.as_text, "hlo": lambda: lowered.as_text(dialect="hlo"),
            "compiled": lambda: lowered.compile().as_text()}[form]()


@pytest.mark.parametrize("form", ["stablehlo", "hlo", "compiled"])
def test_f_gathered_on_the_way_is_a_blocked_site_in_every_form(form: str) -> None:
    result = run_passes(hlo_passes.parse(_f_gathered_text(2, form)), RULES[:1], rewrite=False)
    f_shard = PairSpec().cfg.mlp // 2
    assert [s.details.blocked for s in result.sites] == [f"split by blocks of {f_shard}"], (
        [str(m) for m in result.near_misses])
    assert result.near_misses == []
    # On an axis of size 1 nothing splits F: a site, in every form.
    assert [s.rule for s in run_passes(hlo_passes.parse(_f_gathered_text(1, form)), RULES[:1],
                                       rewrite=False).sites] == RULES[:1]
