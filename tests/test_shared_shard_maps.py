"""Halves that enter several shard_maps alike (issue 47): MOE001 on the lowered text.

A ``jax.checkpoint`` layer's recomputation hands the forward's halves of a prefused weight to two
shard_maps, the recomputed forward and the backward's transpose, each taking them whole: the
partitioner gathers each half for each, and XLA's CSE runs the equal gathers once.  MOE001 fuses
such a site: every shard_map that takes the halves as the site's takes the whole weight instead
and reads its halves as slices of it, so the program gathers once.  A shard_map that takes them
otherwise (another sharding, one half only) keeps the refusal ``extra-users``.

The programs here are written the way a layer library writes them (a weight sliced outside, the
expert FFN in ``jax.shard_map`` with whole ``in_specs``); each rewrite is compiled, executed and
compared with the original, and its gathers counted in XLA's compiled program.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import hlo_passes
from hlo_passes import runtime
from hlo_passes.ir import Instruction
from hlo_passes.passes import run_passes

RULE = "moe-gather-fusion"
E, D, F, T = 4, 32, 16, 32
GROUPS = np.array([T // 2, 0, T // 4, T - T // 2 - T // 4], np.int32)


def _mesh() -> Mesh:
    return Mesh(np.array(jax.devices()[:8]), ("fsdp",))


def _gmms(x, gs, gate, up):
    return jax.nn.silu(jax.lax.ragged_dot(x, gate, gs)) * jax.lax.ragged_dot(x, up, gs)


def _mixes(x, gs, gate, up):
    # Not a meeting of the halves: each is read with its own left-hand side.
    return jax.lax.ragged_dot(x, gate, gs) + jax.lax.ragged_dot(2.0 * x, up, gs)


@functools.lru_cache(maxsize=None)
def _program(second: str):
    """``(text, inputs)``: the halves of ``w[E, D, 2F]`` (``D`` over 8 devices) enter the site's
    shard_map and a second one, ``second``: ``alike`` (both halves, whole), ``resharded`` (both,
    still sharded on ``D``), ``one_half`` (the gate half only)."""
    mesh = _mesh()
    whole, on_d = P(), P(None, "fsdp", None)
    first = jax.shard_map(_gmms, mesh=mesh, in_specs=(P(), P(), whole, whole), out_specs=P(), check_vma=False)
    if second == "one_half":
        other = jax.shard_map(lambda x, gs, g: jax.lax.ragged_dot(x, g, gs), mesh=mesh,
                              in_specs=(P(), P(), whole), out_specs=P(), check_vma=False)
    elif second == "alike":
        other = jax.shard_map(_mixes, mesh=mesh, in_specs=(P(), P(), whole, whole), out_specs=P(), check_vma=False)
    else:  # each device's shards of both halves, as they are: nothing gathered
        other = jax.shard_map(lambda x, gs, g, u: 2.0 * g - u, mesh=mesh, in_specs=(P(), P(), on_d, on_d),
                              out_specs=on_d, check_vma=False)

    def step(x, gs, w):
        gate, up = w[..., :F], w[..., F:]
        y = first(x, gs, gate, up)
        z = other(x, gs, gate) if second == "one_half" else other(x, gs, gate, up)
        return y, z

    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, D)).astype(np.float32)
    w = (rng.standard_normal((E, D, 2 * F)) / np.sqrt(D)).astype(np.float32)
    args = (jax.device_put(x, NamedSharding(mesh, P())), jax.device_put(GROUPS, NamedSharding(mesh, P())),
            jax.device_put(w, NamedSharding(mesh, P(None, "fsdp", None))))
    return jax.jit(step).lower(*args), (x, GROUPS, w)


def _run(text: str, inputs) -> tuple[list[np.ndarray], int]:
    exe = runtime.compile_text(text, num_devices=8)
    return [np.asarray(o) for o in exe.run(*inputs)], runtime.count_ops(exe.compiled_text)["all-gather"]


def _ways_in(module: hlo_passes.Module) -> list[Instruction]:
    """What takes values into each shard_map: StableHLO's manual computations, HLO's
    ``GlobalToLocalShape`` calls (jax's HLO before XLA's import)."""
    return [i for i in module.instructions() if i.opcode == "sdy.manual_computation" or (
        i.opcode == "custom-call" and i.attributes.get("custom_call_target") == "xla.sdy.GlobalToLocalShape")]


@pytest.mark.parametrize("dialect", ["stablehlo", "hlo"])
def test_halves_entering_two_shard_maps_alike_are_gathered_once(dialect: str) -> None:
    lowered, inputs = _program("alike")
    text = lowered.as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    (site,) = result.sites
    assert site.rewritten and (site.before.count, site.after.count) == (2, 1), str(site)
    new_text = result.module.to_text()
    # Both shard_maps take the whole weight: one operand each where there were two halves.
    ways = _ways_in(result.module)
    assert [len(c.operands) for c in ways] == [3, 3], [c.ref for c in ways]
    assert not [i for i in result.module.instructions()
                if i.opcode == "slice" and i.computation is ways[0].computation]
    want, gathers = _run(text, inputs)
    got, fused = _run(new_text, inputs)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert (gathers, fused) == (2, 1), (gathers, fused)  # XLA's CSE: one gather per half, then one
    assert run_passes(hlo_passes.parse(new_text), [RULE]).sites == []


@pytest.mark.parametrize("dialect", ["stablehlo", "hlo"])
@pytest.mark.parametrize("second", ["resharded", "one_half"])
def test_halves_entering_another_shard_map_otherwise_are_refused(second: str, dialect: str) -> None:
    text = _program(second)[0].as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert result.sites == [] and result.module.to_text() == text
    (miss,) = [m for m in result.near_misses if m.check == "extra-users"]
    assert "is used outside" in miss.reason and miss.location.line > 0, str(miss)


def _remat_step():
    """A ``jax.checkpoint`` layer in f32 (no convert: the halves are sliced straight off the weight,
    one result of the checkpoint's optimization barrier) whose expert FFN runs in a shard_map taking
    the halves whole; the gradient of a loss over it."""
    mesh = _mesh()
    ffn = jax.shard_map(_gmms, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)

    @jax.checkpoint
    def layer(x, gs, w):
        return ffn(x, gs, w[..., :F], w[..., F:])

    def loss(w, x, gs):
        return jnp.sum(layer(x, gs, w) ** 2)

    rng = np.random.default_rng(1)
    x = jax.device_put(rng.standard_normal((T, D)).astype(np.float32), NamedSharding(mesh, P()))
    w = jax.device_put((rng.standard_normal((E, D, 2 * F)) / np.sqrt(D)).astype(np.float32),
                       NamedSharding(mesh, P(None, "fsdp", None)))
    return jax.grad(loss), (w, x, jax.device_put(GROUPS, NamedSharding(mesh, P())))


def test_a_rematerialized_layers_halves_cut_off_the_checkpoints_barrier() -> None:
    """Through ``hlo_passes.jit``: both gather sites rewritten in the lowered text (the recomputed
    forward's halves enter the backward's shard_map too), the fused weight named by its result of
    the barrier (it read result 0, which MLIR refused: the jit fell back to jax's program), the
    gradient bit-equal to ``jax.jit``'s with fewer all-gathers compiled."""
    step, args = _remat_step()
    low = hlo_passes.jit(step, passes=("MOE001",)).lower(*args)
    assert not low.fell_back, low.error
    gathers = [s for s in low.report if s.rule == RULE]
    assert len(gathers) == 2 and all(s.rewritten for s in gathers), str(low)
    want = jax.jit(step)(*args)
    got = hlo_passes.jit(step, passes=("MOE001",))(*args)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    plain = runtime.count_ops(jax.jit(step).lower(*args).compile().as_text())["all-gather"]
    fused = runtime.count_ops(low.compile().as_text())["all-gather"]
    assert fused < plain, (fused, plain)
