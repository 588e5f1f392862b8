"""A Mixtral-like FSDP model as an outside library writes it (issue 43): attention with separate
query/key/value/output projection weights ``[heads, D, head_dim]`` (grouped-query: fewer key/value
heads), a top-2 MoE feed-forward of two weights ``w1``, ``w3`` ``[E, D, F]`` and ``w2`` through
``jax.lax.ragged_dot``, mean-square loss and its gradient.  Every parameter is sharded over an
8-device ``fsdp`` axis with ``jax.sharding.NamedSharding`` (the projections along ``head_dim``), and
the attention gathers its weights before use with ``with_sharding_constraint`` to replicated, as
FSDP libraries do.  In the module XLA:CPU compiles, the key and value weights are two gathers of
``f32[2,64,32]{1,0,2}`` shards to ``[2,64,256]`` read only by fusions: the form MOE003's optimized-HLO
pairing merged (``docs/optimized-hlo.md``, "Two weights that are not gate and up").

``build()`` returns ``(fn, args)`` with a fresh ``jax.jit`` each call (jax would reuse an executable
compiled for the same function), ``fn(params, x) -> ((loss, y), grads)``.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

D, HEADS, KV_HEADS, HEAD_DIM, EXPERTS, F, SEQ, BATCH = 64, 4, 2, 256, 4, 128, 16, 16

_SPECS = {"wq": P(None, None, "fsdp"), "wk": P(None, None, "fsdp"), "wv": P(None, None, "fsdp"),
          "wo": P(None, None, "fsdp"), "router": P("fsdp", None), "w1": P(None, "fsdp", None),
          "w3": P(None, "fsdp", None), "w2": P(None, None, "fsdp")}


def init(key: Any) -> dict[str, Any]:
    ks = jax.random.split(key, 8)
    shapes = {"wq": (HEADS, D, HEAD_DIM), "wk": (KV_HEADS, D, HEAD_DIM), "wv": (KV_HEADS, D, HEAD_DIM),
              "wo": (HEADS, HEAD_DIM, D), "router": (D, EXPERTS), "w1": (EXPERTS, D, F),
              "w3": (EXPERTS, D, F), "w2": (EXPERTS, F, D)}
    return {name: 0.1 * jax.random.normal(k, shape) for k, (name, shape) in zip(ks, shapes.items())}


def _rms(x: Any) -> Any:
    return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6)


def model(mesh: Mesh, p: dict[str, Any], x: Any) -> Any:
    def gathered(w: Any) -> Any:  # FSDP: the weight all-gathered where it is used
        return jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P()))

    wq, wk, wv, wo = (gathered(p[n]) for n in ("wq", "wk", "wv", "wo"))
    h = _rms(x)
    q = jnp.einsum("btd,hdk->bthk", h, wq)
    k = jnp.repeat(jnp.einsum("btd,hdk->bthk", h, wk), HEADS // KV_HEADS, axis=2)
    v = jnp.repeat(jnp.einsum("btd,hdk->bthk", h, wv), HEADS // KV_HEADS, axis=2)
    s = jnp.einsum("bqhk,bthk->bhqt", q, k) / np.sqrt(HEAD_DIM)
    s = jnp.where(jnp.tril(jnp.ones((SEQ, SEQ), bool)), s, -1e9)
    o = jnp.einsum("bhqt,bthk->bqhk", jax.nn.softmax(s, -1), v)
    x = x + jax.lax.with_sharding_constraint(jnp.einsum("bqhk,hkd->bqd", o, wo), NamedSharding(mesh, P("fsdp")))
    # Top-2 MoE: tokens sorted by expert, two GMMs of the same tokens (w1, w3), one back (w2).
    t = _rms(x).reshape(-1, D)
    weights, experts = jax.lax.top_k(jax.nn.softmax(t @ p["router"], -1), 2)
    flat = experts.reshape(-1)
    order = jnp.argsort(flat)
    xs = jnp.repeat(t, 2, axis=0)[order]
    sizes = jnp.bincount(flat, length=EXPERTS).astype(jnp.int32)
    hidden = jax.nn.silu(jax.lax.ragged_dot(xs, p["w1"], sizes)) * jax.lax.ragged_dot(xs, p["w3"], sizes)
    y = jax.lax.ragged_dot(hidden, p["w2"], sizes)
    y = jnp.zeros_like(y).at[order].set(y).reshape(-1, 2, D)
    return x + (y * weights[..., None]).sum(1).reshape(x.shape)


def build(devices: int = 8) -> tuple[Any, tuple[Any, Any]]:
    mesh = Mesh(np.array(jax.devices()[:devices]), ("fsdp",))

    def loss(p: dict[str, Any], x: Any) -> tuple[Any, Any]:
        y = model(mesh, p, x)
        return jnp.mean(y ** 2), y

    params = {n: jax.device_put(w, NamedSharding(mesh, _SPECS[n])) for n, w in init(jax.random.key(0)).items()}
    x = jax.device_put(jax.random.normal(jax.random.key(1), (BATCH, SEQ, D)), NamedSharding(mesh, P("fsdp")))
    step = jax.value_and_grad(loss, has_aux=True)
    return jax.jit(lambda p, x: step(p, x)), (params, x)
