"""A MoE training step built the way production trainers build it (issue 31).

Nothing here is shaped for a rule: it is the step a MaxText-style trainer compiles.

* The decoder's layers are stacked and run by ``jax.lax.scan`` under ``jax.checkpoint``
  (the backward recomputes each layer, gathers included).
* Parameters are stored in f32 and the layer computes in bf16: each weight is cast where
  the layer reads it, on its FSDP shard, so a convert sits before each gather.
* The expert FFN runs in a ``jax.shard_map`` whose ``in_specs`` take the weights whole: the
  partitioner inserts the FSDP gathers at the shard_map's entry (no collective in the code).
* The update is optax's Adam.
* ``layout``: ``prefused`` — one ``wi[E, D, 2F]`` per layer, sliced into gate and up *before*
  the shard_map (so each half is gathered on its own: the pattern); ``pair`` — ``wi_0`` and
  ``wi_1`` stored apart (MOE003's form); ``fused`` — the negative control: ``wi`` gathered
  whole and split inside, as the hand fix does.
* ``ffn``: ``shard_map`` (above) or ``partitioner`` — no shard_map: the tokens are sharded over
  the FSDP axes (data parallelism) and the layer constrains each weight whole
  (``with_sharding_constraint``) before the grouped matmuls, so the partitioner inserts both the
  gathers and the weight gradients' reductions (the lowered text has no collective).
* ``fsdp``: ``one`` — ``D`` sharded over one axis of 8 devices; ``two`` — ``D`` over two axes,
  ``fsdp`` (4) × ``fsdp_transpose`` (2); ``split`` — ``D`` over ``fsdp`` (4) and the ``F``
  dimension (the split one) over ``fsdp_transpose`` (2), as MaxText's ``fsdp_transpose`` configs
  shard the MLP dimension.

``build(layout, fsdp)`` gives ``(step, state)``: ``step(*state)`` returns the next state and
the loss; ``train(layout, fsdp, steps, jit=...)`` runs ``steps`` steps and returns the losses
and the final parameters (host arrays).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

LAYOUTS = ("prefused", "pair", "fused")
FSDP_KINDS = ("one", "two", "split")
FFN_KINDS = ("shard_map", "partitioner")

EXPERTS, EMBED, MLP, TOKENS, LAYERS = 4, 64, 32, 64, 2
COMPUTE = jnp.bfloat16


def mesh(fsdp: str) -> Mesh:
    devices = jax.devices()[:8]
    if fsdp == "one":
        return Mesh(np.array(devices).reshape(8), ("fsdp",))
    return Mesh(np.array(devices).reshape(4, 2), ("fsdp", "fsdp_transpose"))


def _specs(fsdp: str) -> tuple[P, P]:
    """(the input weights' spec ``[L, E, D, F-ish]``, the output weight's ``[L, E, F, D]``)."""
    if fsdp == "one":
        return P(None, None, "fsdp", None), P(None, None, None, "fsdp")
    if fsdp == "two":
        both = ("fsdp", "fsdp_transpose")
        return P(None, None, both, None), P(None, None, None, both)
    return P(None, None, "fsdp", "fsdp_transpose"), P(None, None, "fsdp_transpose", "fsdp")


def _expert_ffn(x: jax.Array, gs: jax.Array, gate_w: jax.Array, up_w: jax.Array, wo: jax.Array) -> jax.Array:
    gate = jax.lax.ragged_dot(x, gate_w, gs)
    up = jax.lax.ragged_dot(x, up_w, gs)
    return jax.lax.ragged_dot(jax.nn.silu(gate) * up, wo, gs)


def _fused_ffn(x: jax.Array, gs: jax.Array, wi: jax.Array, wo: jax.Array) -> jax.Array:
    h = jax.lax.ragged_dot(x, wi, gs)
    return jax.lax.ragged_dot(jax.nn.silu(h[:, :MLP]) * h[:, MLP:], wo, gs)


def _constrained(ffn: Callable, m: Mesh) -> Callable:
    """``ffn`` on weights constrained whole (the partitioner gathers them, and reduces their
    gradients), the tokens as they come."""
    whole = NamedSharding(m, P())

    def constrained(x: jax.Array, gs: jax.Array, *weights: jax.Array) -> jax.Array:
        return ffn(x, gs, *(jax.lax.with_sharding_constraint(w, whole) for w in weights))

    return constrained


def _layer(layout: str, m: Mesh, ffn: str = "shard_map") -> Callable:
    whole = P()
    body = _fused_ffn if layout == "fused" else _expert_ffn
    if ffn == "partitioner":
        inner = _constrained(body, m)
    else:
        inner = jax.shard_map(body, mesh=m, in_specs=(whole,) * (4 if layout == "fused" else 5), out_specs=whole,
                              check_vma=False)

    def layer(h: jax.Array, params: dict[str, jax.Array]) -> tuple[jax.Array, None]:
        wo = params["wo"].astype(COMPUTE)
        if layout == "pair":
            out = inner(h, params["gs"], params["wi_0"].astype(COMPUTE), params["wi_1"].astype(COMPUTE), wo)
        else:
            wi = params["wi"].astype(COMPUTE)
            if layout == "fused":
                out = inner(h, params["gs"], wi, wo)
            else:
                out = inner(h, params["gs"], wi[..., :MLP], wi[..., MLP:], wo)
        return h + out, None

    return jax.checkpoint(layer)


def init(layout: str, fsdp: str, seed: int = 0) -> dict[str, jax.Array]:
    m = mesh(fsdp)
    wi_spec, wo_spec = _specs(fsdp)
    rng = np.random.default_rng(seed)

    def weight(shape: tuple[int, ...], fan_in: int, spec: P) -> jax.Array:
        return jax.device_put((rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32),
                              NamedSharding(m, spec))

    params = {"wo": weight((LAYERS, EXPERTS, MLP, EMBED), MLP, wo_spec)}
    if layout == "pair":
        params["wi_0"] = weight((LAYERS, EXPERTS, EMBED, MLP), EMBED, wi_spec)
        params["wi_1"] = weight((LAYERS, EXPERTS, EMBED, MLP), EMBED, wi_spec)
    else:
        params["wi"] = weight((LAYERS, EXPERTS, EMBED, 2 * MLP), EMBED, wi_spec)
    return params


def group_sizes() -> np.ndarray:
    sizes = np.array([TOKENS // 2, 0, TOKENS // 4, TOKENS - TOKENS // 2 - TOKENS // 4], np.int32)
    assert sizes.sum() == TOKENS and len(sizes) == EXPERTS
    return sizes


def _token_spec(fsdp: str, ffn: str) -> P:
    """The tokens' spec: replicated into the shard_map, else split over the FSDP axes."""
    if ffn == "shard_map":
        return P()
    return P("fsdp" if fsdp == "one" else ("fsdp", "fsdp_transpose"), None)


def build(layout: str = "prefused", fsdp: str = "one", *, jit: Callable = jax.jit,
          learning_rate: float = 1e-2, ffn: str = "shard_map") -> tuple[Callable, tuple[Any, ...]]:
    import optax  # a test and example dependency, not the package's

    if layout not in LAYOUTS or fsdp not in FSDP_KINDS or ffn not in FFN_KINDS:
        raise ValueError(f"layout in {LAYOUTS}, fsdp in {FSDP_KINDS}, ffn in {FFN_KINDS}")
    m = mesh(fsdp)
    layer = _layer(layout, m, ffn)
    optimizer = optax.adam(learning_rate)

    def loss_fn(params: dict[str, jax.Array], x: jax.Array, gs: jax.Array) -> jax.Array:
        stacked = dict(params, gs=jnp.broadcast_to(gs, (LAYERS, *gs.shape)))
        h, _ = jax.lax.scan(layer, x.astype(COMPUTE), stacked)
        return jnp.mean(jnp.square(h.astype(jnp.float32)))

    def step(params: dict[str, jax.Array], opt_state: Any, x: jax.Array, gs: jax.Array) -> tuple:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, gs)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    params = init(layout, fsdp)
    rng = np.random.default_rng(1)
    replicated = NamedSharding(m, P())
    x = jax.device_put(rng.standard_normal((TOKENS, EMBED)).astype(np.float32),
                       NamedSharding(m, _token_spec(fsdp, ffn)))
    gs = jax.device_put(group_sizes(), replicated)
    return jit(step), (params, optimizer.init(params), x, gs)


def train(layout: str = "prefused", fsdp: str = "one", steps: int = 5, *,
          jit: Callable = jax.jit, ffn: str = "shard_map") -> tuple[list[float], dict[str, np.ndarray]]:
    """``steps`` steps from the same start; (losses, final parameters on the host)."""
    step, (params, opt_state, x, gs) = build(layout, fsdp, jit=jit, ffn=ffn)
    losses = []
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state, x, gs)
        losses.append(float(loss))
    return losses, {k: np.asarray(v) for k, v in params.items()}


if __name__ == "__main__":  # pragma: no cover - a script for trying the installed pass by hand
    import os
    import sys

    if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
        sys.exit("set XLA_FLAGS=--xla_force_host_platform_device_count=8 before running this")
    layout = sys.argv[1] if len(sys.argv) > 1 else "prefused"
    fsdp = sys.argv[2] if len(sys.argv) > 2 else "one"
    ffn = sys.argv[3] if len(sys.argv) > 3 else "shard_map"
    losses, _ = train(layout, fsdp, ffn=ffn)
    print(" ".join(f"{v:.6f}" for v in losses))
