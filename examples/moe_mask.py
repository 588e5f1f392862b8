"""MoE expert layers that mask their grouped matmuls' rows, as MaxText and TransformerEngine write them.

Tokens are sorted by expert; the rows past ``sum(group_sizes)`` belong to no expert (dropped
tokens, padding, the tail of a receive buffer) and hold whatever was there — here NaN and Inf,
as garbage can.  The layers mask them with ``jnp.where(jnp.arange(T)[:, None] < jnp.sum(gs), x, 0)``
before the grouped matmul, after it, or both (MaxText's ``sparse_matmul`` masks its inputs after a
ragged all-to-all so); MOE006 (``gmm-redundant-mask``) removes the masks a GMM makes redundant and
refuses the others (``NEGATIVE``).  ``build(name, dtype)`` is ``(jitted function, host inputs)``;
``lower(name, dtype, dialect)`` its text lowered for TPU, where ``ragged_dot`` stays one op.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

T, D, F, E, LAYERS = 64, 32, 48, 4, 2
DROPPED = 20  # tokens routed to no expert: their rows sort last and hold garbage
DEVICES = {"shard_map": 4}  # the devices a program runs on (others: one)

# The programs MOE006 rewrites (form of each site), and those it must refuse (the check id).
POSITIVE: dict[str, tuple[str, ...]] = {
    "lhs": ("lhs",),
    "result": ("result",),
    "both": ("lhs", "result"),
    "ffn": ("lhs", "result"),  # one masked x read by the gate and up GMMs; the down GMM's result masked
    "select_n": ("lhs",),
    "mirrored": ("result",),  # sum(gs) > iota
    "complement": ("lhs",),  # jnp.where(iota >= sum(gs), 0, x)
    "le_sum_minus_one": ("result",),  # iota <= sum(gs) - 1
    "convert": ("lhs",),  # an s16 iota converted; sum over converted group sizes
    "lhs_fill": ("lhs",),  # the lhs fill is never read: any value goes
    "scan": ("lhs", "result"),  # scanned layers: the masks in the while body
    "shard_map": ("lhs", "result"),  # tokens split over devices, routed and masked per shard
}
NEGATIVE: dict[str, str] = {
    "bound_minus_one": "mask-bound",  # iota < sum(gs) - 1
    "constant_bound": "mask-bound",  # iota < 48
    "other_sizes": "mask-bound",  # the sum of another array than the GMM's group sizes
    "nonzero_fill": "mask-false-value",  # the result's masked rows filled with 1
    "column_mask": "mask-dim",  # the iota runs along the features
    "masked_x_returned": "mask-users",  # the masked lhs is also a result of the program
}
PROGRAMS = (*POSITIVE, *NEGATIVE)


def group_sizes(expert: jax.Array) -> jax.Array:
    """Tokens per expert; a token with id E (dropped) counts for none (MaxText: sum of one-hots)."""
    return jnp.sum(jax.nn.one_hot(expert, E, dtype=jnp.int32), axis=0)


def rows_below(n: int, gs: jax.Array) -> jax.Array:
    return jnp.arange(n)[:, None] < jnp.sum(gs)


def _gmm(x: jax.Array, w: jax.Array, gs: jax.Array) -> jax.Array:
    return jax.lax.ragged_dot(x, w, gs, preferred_element_type=x.dtype)


def expert_ffn(name: str, xs: jax.Array, gs: jax.Array, w_gate: jax.Array, w_up: jax.Array,
               w_down: jax.Array, gs_other: jax.Array) -> Any:
    """The expert FFN on tokens sorted by expert, masked as ``name`` says."""
    n = xs.shape[0]
    live = rows_below(n, gs)
    if name in ("lhs", "both", "ffn", "scan", "shard_map", "masked_x_returned"):
        xs = jnp.where(live, xs, 0)
    elif name == "select_n":
        xs = jax.lax.select_n(jnp.broadcast_to(live, xs.shape), jnp.zeros_like(xs), xs)
    elif name == "complement":
        xs = jnp.where(jnp.arange(n)[:, None] >= jnp.sum(gs), 0, xs)
    elif name == "convert":
        idx = jax.lax.iota(jnp.int16, n).astype(jnp.int32)
        xs = jnp.where(idx[:, None] < jnp.sum(gs.astype(jnp.int32)), xs, 0)
    elif name == "lhs_fill":
        xs = jnp.where(live, xs, -7.0)
    elif name == "bound_minus_one":
        xs = jnp.where(jnp.arange(n)[:, None] < jnp.sum(gs) - 1, xs, 0)
    elif name == "constant_bound":
        xs = jnp.where(jnp.arange(n)[:, None] < 48, xs, 0)
    elif name == "other_sizes":
        xs = jnp.where(rows_below(n, gs_other), xs, 0)
    elif name == "column_mask":
        xs = jnp.where(jnp.arange(xs.shape[1])[None, :] < jnp.sum(gs), xs, 0)
    masked_x = xs
    h = jax.nn.silu(_gmm(xs, w_gate, gs)) * _gmm(xs, w_up, gs)
    y = _gmm(h, w_down, gs)
    if name in ("result", "both", "ffn", "scan", "shard_map"):
        y = jnp.where(live, y, 0)
    elif name == "mirrored":
        y = jnp.where(jnp.sum(gs) > jnp.arange(n)[:, None], y, 0)
    elif name == "le_sum_minus_one":
        y = jnp.where(jnp.arange(n)[:, None] <= jnp.sum(gs) - 1, y, 0)
    elif name == "nonzero_fill":
        y = jnp.where(live, y, 1)
    if name == "masked_x_returned":
        return y, masked_x
    return y


def moe_layer(name: str, x: jax.Array, expert: jax.Array, w_gate: jax.Array, w_up: jax.Array,
              w_down: jax.Array) -> Any:
    """Sort the tokens by expert, run the expert FFN, put them back in token order."""
    order = jnp.argsort(expert, stable=True)
    gs = group_sizes(expert)
    gs_other = jnp.roll(gs, 1)
    out = expert_ffn(name, x[order], gs, w_gate, w_up, w_down, gs_other)
    inverse = jnp.argsort(order)
    if isinstance(out, tuple):
        return out[0][inverse], out[1]
    return out[inverse]


def build(name: str, dtype: Any = jnp.float32) -> tuple[Callable[..., Any], tuple[np.ndarray, ...]]:
    """The program ``name`` and its inputs: tokens whose dropped rows hold NaN, Inf and huge values."""
    rng = np.random.default_rng(0)
    expert = rng.integers(0, E, T).astype(np.int32)
    dropped = rng.choice(T, DROPPED, replace=False)
    expert[dropped] = E
    x = rng.standard_normal((T, D)).astype(np.float32)
    x[dropped] = np.nan
    x[dropped[0]], x[dropped[1]], x[dropped[2]] = np.inf, -np.inf, 3e38
    x = x.astype(dtype)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) / np.sqrt(shape[-2])).astype(dtype)

    if name == "scan":
        ws = (weights(LAYERS, E, D, F), weights(LAYERS, E, D, F), weights(LAYERS, E, F, D))

        def scanned(x: jax.Array, expert: jax.Array, w_gate: jax.Array, w_up: jax.Array,
                    w_down: jax.Array) -> jax.Array:
            def layer(h: jax.Array, w: tuple[jax.Array, ...]) -> tuple[jax.Array, None]:
                return moe_layer(name, h, expert, *w), None
            return jax.lax.scan(layer, x, (w_gate, w_up, w_down))[0]
        return jax.jit(scanned), (x, expert, *ws)
    ws = (weights(E, D, F), weights(E, D, F), weights(E, F, D))
    if name == "shard_map":
        mesh = Mesh(np.asarray(jax.devices()[:DEVICES[name]]), ("data",))
        body = jax.shard_map(partial(moe_layer, name), mesh=mesh,
                             in_specs=(P("data"), P("data"), P(), P(), P()), out_specs=P("data"))
        return jax.jit(body), (x, expert, *ws)
    return jax.jit(partial(moe_layer, name)), (x, expert, *ws)


def build_grad(name: str, dtype: Any = jnp.float32) -> tuple[Callable[..., Any], tuple[np.ndarray, ...]]:
    """A training step's gradients of program ``name``: d(sum of squares)/d(x, weights)."""
    fn, args = build(name, dtype)

    def loss(x: jax.Array, expert: jax.Array, *w: jax.Array) -> jax.Array:
        out = fn(x, expert, *w)
        return jnp.sum(jnp.square(out[0] if isinstance(out, tuple) else out).astype(jnp.float32))
    return jax.jit(jax.grad(loss, argnums=(0, 2, 3, 4))), args


def lower(name: str, dtype: Any = jnp.float32, dialect: str = "stablehlo", grad: bool = False) -> str:
    """The program lowered for TPU (``ragged_dot`` kept: ``ragged-dot`` / ``chlo.ragged_dot``)."""
    fn, args = (build_grad if grad else build)(name, dtype)
    return fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text(dialect=dialect)
