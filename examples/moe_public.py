"""MoE layers as public Mixtral and Qwen3-MoE code shards them: experts × tensor parallelism, no FSDP.

Negative controls for the lint (issue 27): gate and up are two weights fed to two grouped
matmuls, as in the public layers, but the weights are split over the experts and over F
(tensor parallelism), never over the embedding, so nothing gathers them: the FSDP axis the
code names has size 1 (the default mesh of such trainers), and the gathers and ``psum``s over
it move nothing.  No rule may report a site here, in any text form.

* ``mixtral`` — Mixtral-style block (``w1`` gate, ``w3`` up, ``w2`` down, each ``[E, D, F]`` /
  ``[E, F, D]``) inside ``jax.shard_map`` over the whole mesh: the weights are "gathered" over
  the FSDP axis (size 1, as MaxText's layer writes it whatever the mesh), each device runs its
  experts on its F shard, ``psum`` over the tensor axis and then over the experts; the
  training step's gradients are ``psum``-ed over the FSDP axis (size 1) too.
* ``qwen3`` — Qwen3-MoE-style block: a router (softmax, top-k, renormalised), tokens sorted by
  expert, the expert FFN with ``gate_proj``/``up_proj``/``down_proj`` on an
  ``expert`` × ``tensor`` mesh (the weights placed by ``NamedSharding``, no FSDP axis at all),
  unsorted and combined; the shard_map takes every operand replicated over the data axis.

``build(kind, mode)`` gives ``(jitted function, device arguments)`` on 8 CPU devices;
``mode`` is ``forward`` or ``grad`` (``jax.value_and_grad`` w.r.t. the three weights).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

KINDS = ("mixtral", "qwen3")
MODES = ("forward", "grad")
E, D, F, T, TOP_K = 8, 32, 64, 64, 2


def mesh() -> jax.sharding.Mesh:
    """``expert`` 4 × ``tensor`` 2, with the ``fsdp`` axis of size 1 that trainers keep by default."""
    return jax.make_mesh((1, 4, 2), ("fsdp", "expert", "tensor"),
                         axis_types=(jax.sharding.AxisType.Auto,) * 3, devices=jax.devices()[:8])


def _local_experts(x: jax.Array, gs: jax.Array, w_gate, w_up, w_down) -> jax.Array:
    """This device's experts on its F shard: the tokens of its experts moved to the front, two
    grouped matmuls (gate, up), the down projection, and the tokens moved back."""
    n = w_gate.shape[0]
    first = jax.lax.axis_index("expert") * n
    offset = jnp.sum(jnp.where(jnp.arange(gs.shape[0]) < first, gs, 0))
    local = jax.lax.dynamic_slice_in_dim(gs, first, n)
    rows = jnp.roll(x, -offset, axis=0)
    gate = jax.lax.ragged_dot(rows, w_gate, local)
    up = jax.lax.ragged_dot(rows, w_up, local)
    out = jax.lax.ragged_dot(jax.nn.silu(gate) * up, w_down, local)
    return jnp.roll(out, offset, axis=0)


def mixtral(m) -> Callable:
    """``(x [T, D], gs [E], w1, w3 [E, D, F], w2 [E, F, D]) -> [T, D]``."""
    wspec, w2spec = P("expert", None, "tensor"), P("expert", "tensor", None)

    def block(x, gs, w1, w3, w2):
        # As MaxText's layer writes it: gather the FSDP shards (here the axis has size 1).
        w1 = jax.lax.all_gather(w1, "fsdp", axis=1, tiled=True)
        w3 = jax.lax.all_gather(w3, "fsdp", axis=1, tiled=True)
        out = _local_experts(x, gs, w1, w3, w2)
        return jax.lax.psum(jax.lax.psum(out, "tensor"), "expert")

    return jax.shard_map(block, mesh=m, in_specs=(P(), P(), wspec, wspec, w2spec), out_specs=P(),
                         check_vma=False)


def qwen3(m) -> Callable:
    """``(x [T, D], w_router [D, E], gate_proj, up_proj [E, D, F], down_proj [E, F, D]) -> [T, D]``."""
    experts = jax.shard_map(lambda x, gs, g, u, d: jax.lax.psum(jax.lax.psum(_local_experts(x, gs, g, u, d),
                                                                             "tensor"), "expert"),
                            mesh=m, in_specs=(P(), P(), P("expert", None, "tensor"), P("expert", None, "tensor"),
                                              P("expert", "tensor", None)), out_specs=P(), check_vma=False)

    def block(x, w_router, gate_proj, up_proj, down_proj):
        probs = jax.nn.softmax((x @ w_router).astype(jnp.float32), axis=-1)
        weights, chosen = jax.lax.top_k(probs, TOP_K)
        weights = (weights / jnp.sum(weights, axis=-1, keepdims=True)).astype(x.dtype)  # norm_topk_prob
        flat = chosen.reshape(-1)
        order = jnp.argsort(flat, stable=True)
        gs = jnp.bincount(flat, length=E).astype(jnp.int32)
        ys = experts(x[order // TOP_K], gs, gate_proj, up_proj, down_proj)
        unsorted = jnp.zeros_like(ys).at[order].set(ys).reshape(x.shape[0], TOP_K, -1)
        return jnp.einsum("tkd,tk->td", unsorted, weights)

    return block


def host_inputs(kind: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, D), dtype=np.float32)
    up, gate = (rng.standard_normal((E, D, F), dtype=np.float32) / np.sqrt(D) for _ in range(2))
    down = rng.standard_normal((E, F, D), dtype=np.float32) / np.sqrt(F)
    if kind == "mixtral":
        gs = np.array([10, 0, 9, 7, 12, 3, 15, 8], np.int32)
        return x, gs, gate, up, down
    return x, rng.standard_normal((D, E), dtype=np.float32), gate, up, down


def build(kind: str = "mixtral", mode: str = "forward") -> tuple[Callable, tuple[jax.Array, ...]]:
    """The layer (``mode="grad"``: its loss and the gradients of its three weights), jitted, and its
    arguments placed: the weights split over the experts and F, everything else replicated."""
    if kind not in KINDS or mode not in MODES:
        raise ValueError(f"kind in {KINDS}, mode in {MODES}; got {kind!r}, {mode!r}")
    m = mesh()
    layer = mixtral(m) if kind == "mixtral" else qwen3(m)
    specs = (P(), P(), P("expert", None, "tensor"), P("expert", None, "tensor"), P("expert", "tensor", None))
    args = tuple(jax.device_put(a, NamedSharding(m, s)) for a, s in zip(host_inputs(kind), specs))
    if mode == "grad":
        def train(x, a, w_gate, w_up, w_down):
            loss = lambda *ws: jnp.mean(jnp.square(layer(x, a, *ws)))  # noqa: E731
            return jax.value_and_grad(loss, argnums=(0, 1, 2))(w_gate, w_up, w_down)

        return jax.jit(train), args
    return jax.jit(layer), args


def reference(kind: str) -> np.ndarray:
    """The forward value on one device, without a mesh."""
    x, a, gate, up, down = (jnp.asarray(v) for v in host_inputs(kind))

    def ffn(rows, gs):
        return jax.lax.ragged_dot(jax.nn.silu(jax.lax.ragged_dot(rows, gate, gs)) * jax.lax.ragged_dot(rows, up, gs),
                                  down, gs)

    if kind == "mixtral":
        return np.asarray(ffn(x, a))
    probs = jax.nn.softmax(x @ a, axis=-1)
    weights, chosen = jax.lax.top_k(probs, TOP_K)
    weights = weights / jnp.sum(weights, axis=-1, keepdims=True)
    flat = chosen.reshape(-1)
    order = jnp.argsort(flat, stable=True)
    ys = ffn(x[order // TOP_K], jnp.bincount(flat, length=E).astype(jnp.int32))
    unsorted = jnp.zeros_like(ys).at[order].set(ys).reshape(T, TOP_K, -1)
    return np.asarray(jnp.einsum("tkd,tk->td", unsorted, weights))
