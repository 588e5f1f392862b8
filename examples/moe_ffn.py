"""Expert FFNs as MoE libraries write them, for MOE005 (moe-ffn-fusion) and its benchmark.

``y = gmm(silu(gate) * up, w_out)`` over tokens sorted by expert (``gmm`` is
``jax.lax.ragged_dot``), with gate and up

* ``gate_first``: the halves of one GMM on a prefused ``w_in[E, D, 2F]`` (MaxText's ``wi``),
* ``up_first``:  the same with the up half first (``h[:, F:]`` activated),
* ``pair``:      two GMMs on ``w_gate[E, D, F]`` and ``w_up[E, D, F]`` (``wi_0`` / ``wi_1``).

Modes: ``forward``; ``grad`` (``jax.value_and_grad`` of a loss w.r.t. the tokens and every
weight: the backward reads the forward's intermediates, so the rule must refuse); ``remat``
(the same under ``jax.checkpoint``, as trainers run decoder layers: the forward's intermediates
are recomputed, so its FFN fuses).  Near misses (``NEAR_MISSES``: the check each must fail) and
negative controls (``NEGATIVE``: no expert FFN at all to the rule) are FFNs written slightly
otherwise.  Group sizes include an empty expert; rows past their sum are padding.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

FORMS = ("gate_first", "up_first", "pair")
MODES = ("forward", "grad", "remat")
# Programs the rule refuses, with the check that refuses them.
NEAR_MISSES = {"other_group_sizes": "ffn-group-sizes", "third_user": "ffn-intermediate-users",
               "mixed_precision": "ffn-element-type"}
# Programs with no expert FFN to the rule: no finding, no near miss.
NEGATIVE = ("relu_gate", "dense_swiglu", "silu_no_gate")


def gmm(x: jax.Array, w: jax.Array, gs: jax.Array) -> jax.Array:
    return jax.lax.ragged_dot(x, w, gs)


def ffn(form: str) -> Callable[..., jax.Array]:
    """``(x, gs, *weights) -> y``: weights ``(w_in, w_out)`` or ``(w_gate, w_up, w_out)``."""
    if form == "pair":
        return lambda x, gs, wg, wu, wo: gmm(jax.nn.silu(gmm(x, wg, gs)) * gmm(x, wu, gs), wo, gs)

    def prefused(x, gs, w_in, wo):
        h = gmm(x, w_in, gs)
        f = wo.shape[1]
        gate, up = (h[:, :f], h[:, f:]) if form == "gate_first" else (h[:, f:], h[:, :f])
        return gmm(jax.nn.silu(gate) * up, wo, gs)
    return prefused


def _near_miss(name: str) -> Callable[..., Any]:
    if name == "other_group_sizes":  # the second GMM groups by other sizes (another routing)
        return lambda x, gs, w_in, wo: _tail(gmm(x, w_in, gs), wo, jnp.roll(gs, 1))
    if name == "third_user":  # the up-projection is also returned (a debug tap, an aux loss)
        def tapped(x, gs, w_in, wo):
            h = gmm(x, w_in, gs)
            return _tail(h, wo, gs), jnp.mean(h)
        return tapped
    def mixed(x, gs, w_in, wo):  # the activation in f32 over bf16 GMMs (a mixed-precision recipe)
        gate, up = (a.astype(jnp.float32) for a in _halves(gmm(x, w_in, gs), wo))
        return gmm((jax.nn.silu(gate) * up).astype(x.dtype), wo, gs)
    return mixed


def _tail(h: jax.Array, wo: jax.Array, gs: jax.Array) -> jax.Array:
    f = wo.shape[1]
    return gmm(jax.nn.silu(h[:, :f]) * h[:, f:], wo, gs)


def _negative(name: str) -> Callable[..., jax.Array]:
    if name == "relu_gate":
        def relu(x, gs, w_in, wo):
            gate, up = _halves(gmm(x, w_in, gs), wo)
            return gmm(jax.nn.relu(gate) * up, wo, gs)
        return relu
    if name == "dense_swiglu":  # one expert's FFN with dense matmuls: no GMM
        def dense(x, gs, w_in, wo):
            h = x @ w_in[0]
            f = wo.shape[1]
            return (jax.nn.silu(h[:, :f]) * h[:, f:]) @ wo[0]
        return dense
    return lambda x, gs, w_in, wo: gmm(jax.nn.silu(gmm(x, w_in[..., : wo.shape[1]], gs)), wo, gs)


def _halves(h: jax.Array, wo: jax.Array) -> tuple[jax.Array, jax.Array]:
    f = wo.shape[1]
    return h[:, :f], h[:, f:]


def function(name: str, mode: str = "forward") -> Callable[..., Any]:
    """The program ``name`` (a form, a near miss or a negative control) in ``mode``."""
    fn = ffn(name) if name in FORMS else _near_miss(name) if name in NEAR_MISSES else _negative(name)
    if mode == "forward":
        return fn
    layer = jax.checkpoint(fn) if mode == "remat" else fn

    def step(x, gs, *weights):
        def loss(x, *weights):
            return jnp.mean(jnp.square(layer(x, gs, *weights).astype(jnp.float32)))
        return jax.value_and_grad(loss, argnums=tuple(range(1 + len(weights))))(x, *weights)
    return step


def inputs(name: str, *, experts: int = 8, tokens: int = 256, embed: int = 64, mlp: int = 96,
           dtype: Any = jnp.float32, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``(x, gs, *weights)`` on the host: ``tokens`` rows of which the last few are padding,
    one empty expert."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((tokens, embed), dtype=np.float32)
    sizes = rng.multinomial(tokens - tokens // 16, np.ones(experts) / experts).astype(np.int32)
    sizes[0] += sizes[1]
    sizes[1] = 0
    w_in = rng.standard_normal((experts, embed, 2 * mlp), dtype=np.float32) / np.sqrt(embed)
    wo = rng.standard_normal((experts, mlp, embed), dtype=np.float32) / np.sqrt(mlp)
    weights = (w_in[..., :mlp], w_in[..., mlp:], wo) if name == "pair" else (w_in, wo)
    cast = lambda a: np.asarray(a).astype(dtype)  # noqa: E731
    return (cast(x), sizes, *(cast(w) for w in weights))


def lower(name: str, mode: str = "forward", dialect: str = "stablehlo", **sizes: Any) -> str:
    """The program's text, lowered for TPU from this machine (the GMMs stay ragged-dots)."""
    args = inputs(name, **sizes)
    lowered = jax.jit(function(name, mode)).trace(*args).lower(lowering_platforms=("tpu",))
    return lowered.as_text(dialect=dialect)
