"""MoE weights with a second FSDP axis on the split dimension: MaxText's two-stage layout.

The gate/up weight — prefused ``W[E, D, 2F]``, or two weights ``wi_0``, ``wi_1`` ``[E, D, F]`` —
is sharded on ``D`` over ``fsdp`` and on ``F`` (``2F``) over an ``fsdp_transpose``-like axis, as
MaxText shards its MoE weights (``embed`` on ``fsdp``, ``mlp`` on ``fsdp_transpose``).  The
layer slices the prefused weight into gate and up (each half then lives on part of the
``fsdp_transpose`` shards: the partitioner moves pieces with collective-permutes to slice it)
and drops both axes with sharding constraints before a shard_map that runs the GMMs:

* ``stages=1``: one constraint to replicated (the partitioner gathers ``F`` and ``D``: an
  all-gather per dimension);
* ``stages=2``: MaxText's two stages, ``F`` first (``P(None, "fsdp", None)``), an
  optimization barrier, then ``D``.

For two weights, joining them along ``F`` before the gathers leaves gate and up in blocks, one
per ``F`` shard (``F`` is gathered on the way): MOE003 joins them shard by shard and splits the
GMM's output by those blocks (issue 32; ``docs/weight-forms.md``, "F on a second FSDP axis").

``mode``: ``forward``, ``grad`` (a training step's value and gradients) or ``remat_grad`` (the
same under ``jax.checkpoint``, as trainers run their decoder layers; the down projection
``wo[E, F, D]`` is then FSDP-sharded too, as MaxText shards it (``F`` on ``fsdp_transpose``, ``D``
on ``fsdp``), and dropped in the same stages — its first stage moves ``fsdp`` from ``D`` to ``F``
— and the backward gathers every weight again).
``build(weights, stages, mode)`` gives ``(jitted function, device arguments)`` on a 4 × 2 mesh of
8 CPU devices.
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from examples.moe import MoEConfig, gmm, make_group_sizes

WEIGHTS = ("prefused", "pair")
MODES = ("forward", "grad", "remat_grad")


def mesh(shape: tuple[int, int] = (4, 2)) -> jax.sharding.Mesh:
    return jax.make_mesh(shape, ("fsdp", "fsdp_transpose"), axis_types=(jax.sharding.AxisType.Auto,) * 2,
                         devices=jax.devices()[:8])


def layer_fn(m, weights: str, stages: int, f: int, gather_wo: bool = False) -> Callable:
    """``(x, gs, W, wo)`` or ``(x, gs, wi_0, wi_1, wo)`` -> ``[T, D]``; ``gather_wo``: ``wo`` is
    FSDP-sharded and dropped like the gate/up weights."""
    constrain = lambda a, s: jax.lax.with_sharding_constraint(a, NamedSharding(m, s))  # noqa: E731

    def drop(w):
        if stages == 2:  # MaxText: the minor axis first (here F's), fenced, then the rest
            w = jax.lax.optimization_barrier(constrain(w, P(None, "fsdp", None)))
        return constrain(w, P())

    def body(x, gs, w0, w1, wo):
        if weights == "prefused":
            h = gmm(x, jnp.concatenate([w0, w1], -1), gs)
            gate, up = h[:, :f], h[:, f:]
        else:
            gate, up = gmm(x, w0, gs), gmm(x, w1, gs)
        return gmm(jax.nn.silu(gate) * up, wo, gs)

    mapped = jax.shard_map(body, mesh=m, in_specs=(P(),) * 5, out_specs=P(), check_vma=False)
    down = drop if gather_wo else (lambda wo: wo)
    if weights == "prefused":
        return lambda x, gs, w, wo: mapped(x, gs, drop(w[..., :f]), drop(w[..., f:]), down(wo))
    return lambda x, gs, w0, w1, wo: mapped(x, gs, drop(w0), drop(w1), down(wo))


def build(weights: str = "prefused", stages: int = 2, mode: str = "forward",
          cfg: MoEConfig | None = None) -> tuple[Callable, tuple[jax.Array, ...]]:
    if weights not in WEIGHTS or stages not in (1, 2) or mode not in MODES:
        raise ValueError(f"weights in {WEIGHTS}, stages 1 or 2, mode in {MODES}")
    cfg = cfg or MoEConfig()
    m = mesh()
    layer = layer_fn(m, weights, stages, cfg.mlp, gather_wo=mode == "remat_grad")
    if mode == "remat_grad":
        layer = jax.checkpoint(layer)
    fn = layer
    if mode != "forward":
        def fn(x, gs, *ws):
            loss = lambda *w: jnp.mean(jnp.square(layer(x, gs, *w)))  # noqa: E731
            return jax.value_and_grad(loss, argnums=tuple(range(len(ws))))(*ws)

    return jax.jit(fn), inputs(m, weights, cfg, wo_sharded=mode == "remat_grad")


def host_inputs(weights: str, cfg: MoEConfig | None = None) -> tuple[np.ndarray, ...]:
    cfg = cfg or MoEConfig()
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    rng = np.random.default_rng(cfg.seed)
    x = rng.standard_normal((t, d), dtype=np.float32)
    ws = ([rng.standard_normal((e, d, 2 * f), dtype=np.float32) / np.sqrt(d)] if weights == "prefused"
          else [rng.standard_normal((e, d, f), dtype=np.float32) / np.sqrt(d) for _ in range(2)])
    wo = rng.standard_normal((e, f, d), dtype=np.float32) / np.sqrt(f)
    return (x, make_group_sizes(cfg), *ws, wo)


def inputs(m, weights: str, cfg: MoEConfig, wo_sharded: bool = False) -> tuple[jax.Array, ...]:
    host = host_inputs(weights, cfg)
    w_sharding = NamedSharding(m, P(None, "fsdp", "fsdp_transpose"))
    shardings = [NamedSharding(m, P())] * 2 + [w_sharding] * (len(host) - 3) + [
        NamedSharding(m, P(None, "fsdp_transpose", "fsdp") if wo_sharded else P())]
    return tuple(jax.device_put(a, s) for a, s in zip(host, shardings))
