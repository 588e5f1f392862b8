"""A user's own MoE training loop: scanned, rematerialized layers, FSDP by hand, optax (issue 46).

Written as a user writes one, nothing shaped for hlo_passes: the expert weight is prefused
``w[L, E, D, 2F]`` (gate and up side by side), sharded on ``D`` over the 8-device ``fsdp`` axis;
each layer runs in a ``jax.shard_map`` that casts its shard to bf16, slices it into gate and up
and gathers each half on its own (``jax.lax.all_gather``), then the down projection ``wo``;
``L`` layers run under ``jax.lax.scan(jax.checkpoint(layer))``; Adam from optax.

Under ``jax.checkpoint`` the backward gathers every weight again: the optimized step holds the
forward's gathers of gate and up (in the forward loop) and their recomputation (in the backward
loop), both read from one slice of one converted weight, and the gradient's reduce-scatters.

``fixed=True`` is the hand fix, made in the model code: the weight gathered once, one grouped
matmul, the activations split (``jax.lax.ragged_dot`` on the whole ``[E, D, 2F]``).  The same
function; compiled by plain ``jax.jit`` its collective counts are what a rewrite must reach.

    python examples/remat_scan_train.py [--fixed] [--steps N]

prints the losses and the compiled step's collectives (8 fake CPU devices).
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - only when run as a script
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()

import functools
import re
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS, EXPERTS, EMBED, MLP, TOKENS = 4, 8, 64, 128, 64


def make_mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((8,), ("fsdp",))


def group_sizes() -> np.ndarray:
    sizes = np.full(EXPERTS, TOKENS // EXPERTS, dtype=np.int32)
    sizes[1], sizes[2] = 0, 2 * TOKENS // EXPERTS  # an empty expert, a busy one
    return sizes


def init_params(seed: int = 0, layers: int = LAYERS) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"wi": (rng.standard_normal((layers, EXPERTS, EMBED, 2 * MLP)) / np.sqrt(EMBED)).astype(np.float32),
            "wo": (rng.standard_normal((layers, EXPERTS, MLP, EMBED)) / np.sqrt(MLP)).astype(np.float32)}


def moe_ffn(x: jax.Array, gs: jax.Array, wi: jax.Array, wo: jax.Array, *, fixed: bool) -> jax.Array:
    """One layer's expert FFN on this device's shards (inside the shard_map)."""
    if fixed:  # the hand fix: one gather, one grouped matmul, the activations split
        h = jax.lax.ragged_dot(x, jax.lax.all_gather(wi, "fsdp", axis=1, tiled=True), gs)
        gate, up = h[:, :MLP], h[:, MLP:]
    else:      # each half gathered on its own
        gate_w = jax.lax.all_gather(wi[..., :MLP], "fsdp", axis=1, tiled=True)
        up_w = jax.lax.all_gather(wi[..., MLP:], "fsdp", axis=1, tiled=True)
        gate = jax.lax.ragged_dot(x, gate_w, gs)
        up = jax.lax.ragged_dot(x, up_w, gs)
    wo = jax.lax.all_gather(wo, "fsdp", axis=2, tiled=True)
    return jax.lax.ragged_dot(jax.nn.silu(gate) * up, wo, gs)


def make_train_step(mesh: jax.sharding.Mesh, *, fixed: bool = False,
                    optimizer: optax.GradientTransformation | None = None) -> tuple[Callable, Callable]:
    """(init(params) -> state, train_step(state, x, gs) -> (state, loss)), un-jitted."""
    optimizer = optimizer or optax.adam(1e-3)
    ffn = jax.shard_map(functools.partial(moe_ffn, fixed=fixed), mesh=mesh,
                        in_specs=(P(), P(), P(None, "fsdp", None), P(None, None, "fsdp")),
                        out_specs=P(), check_vma=False)

    def loss_fn(params, x, gs):
        def layer(x, ws):
            wi, wo = ws
            return x + ffn(x, gs, wi, wo).astype(x.dtype), None

        compute = jax.tree.map(lambda w: w.astype(jnp.bfloat16), params)  # bf16 compute, f32 weights
        y, _ = jax.lax.scan(jax.checkpoint(layer, prevent_cse=False), x.astype(jnp.bfloat16), (compute["wi"], compute["wo"]))
        return jnp.mean(jnp.square(y.astype(jnp.float32)))

    def init(params):
        return params, optimizer.init(params)

    def train_step(state, x, gs):
        params, opt_state = state
        loss, grads = jax.value_and_grad(loss_fn)(params, x, gs)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return init, train_step


def inputs(mesh: jax.sharding.Mesh, seed: int = 0, layers: int = LAYERS) -> tuple:
    """(params, x, gs) on the mesh: weights sharded on D, the tokens and group sizes replicated."""
    params = init_params(seed, layers)
    specs = {"wi": P(None, None, "fsdp", None), "wo": P(None, None, None, "fsdp")}
    params = {k: jax.device_put(v, NamedSharding(mesh, specs[k])) for k, v in params.items()}
    x = np.random.default_rng(seed + 1).standard_normal((TOKENS, EMBED)).astype(np.float32)
    return params, jax.device_put(x, NamedSharding(mesh, P())), jax.device_put(group_sizes(), NamedSharding(mesh, P()))


COLLECTIVES = ("all-gather", "reduce-scatter", "all-reduce", "collective-permute", "all-to-all")


def collectives(compiled_text: str) -> dict[str, int]:
    """Collectives of a compiled module's text (an async pair counted once)."""
    return {k: len(re.findall(rf"\s{k}(?:-start)?\(", compiled_text)) for k in COLLECTIVES}


def train(steps: int = 5, *, fixed: bool = False, jit: Callable = jax.jit,
          layers: int = LAYERS) -> tuple[list[float], str]:
    """``steps`` training steps through ``jit``: (losses, the compiled step's text).  With one
    layer XLA drops the scan's loops: the forward and its recomputation then read one slice."""
    mesh = make_mesh()
    init, train_step = make_train_step(mesh, fixed=fixed)
    params, x, gs = inputs(mesh, layers=layers)
    step = jit(train_step, donate_argnums=(0,))
    state = init(params)
    compiled = step.lower(state, x, gs).compile()
    losses = []
    for _ in range(steps):
        state, loss = compiled(state, x, gs)
        losses.append(float(loss))
    return losses, compiled.as_text()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - a script
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixed", action="store_true", help="the hand fix in the model code")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--layers", type=int, default=LAYERS)
    args = ap.parse_args(argv)
    losses, text = train(args.steps, fixed=args.fixed, layers=args.layers)
    print("losses", losses)
    print("compiled step", collectives(text))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
