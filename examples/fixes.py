"""How to fix the model code a finding points at: each form as a model writes it, and the
change that removes the finding (the README's "Fix your model code" shows the blocks between
the ``# ---`` markers; tests/test_readme.py checks that the README shows them as they are here,
that hlo-lint's rules find each "before" and nothing in each "after", and that both compute
the same values and gradients).

    python examples/fixes.py      # each pair: the findings before and after, on 8 CPU devices

The layer is the usual MoE feed-forward block: tokens ``x [T, D]`` sorted by expert,
``gs [E]`` tokens per expert, the up projection (gate and up), ``silu(gate) * up``, the
down projection ``wo [E, F, D]``; the up weight FSDP-sharded on ``D`` over the mesh axis
``"fsdp"``.  ``gmm`` is ``jax.lax.ragged_dot`` (Pallas megablox or a TransformerEngine
grouped GEMM are used the same way).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable

if __name__ == "__main__":  # flags before jax is imported; `examples` importable
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

E, T, D, F = 4, 32, 64, 32  # experts, tokens, embed, mlp (per gate or up)


def gmm(x, w, gs):
    return jax.lax.ragged_dot(x, w, gs)


# --- MOE001 before ---
def ffn(x, gs, w, wo):  # inside jax.shard_map; w: [E, D/fsdp, 2F] = gate | up
    gate_w = jax.lax.all_gather(w[..., :F], "fsdp", axis=1, tiled=True)  # slice, then gather
    up_w = jax.lax.all_gather(w[..., F:], "fsdp", axis=1, tiled=True)  # each half on its own
    h = gmm(x, jnp.concatenate([gate_w, up_w], axis=-1), gs)
    return gmm(jax.nn.silu(h[:, :F]) * h[:, F:], wo, gs)
# --- end ---

moe001_before = ffn


# --- MOE001 after ---
def ffn(x, gs, w, wo):  # inside jax.shard_map; w: [E, D/fsdp, 2F] = gate | up
    w = jax.lax.all_gather(w, "fsdp", axis=1, tiled=True)  # gather W once
    h = gmm(x, w, gs)  # one GMM: [T, 2F]
    return gmm(jax.nn.silu(h[:, :F]) * h[:, F:], wo, gs)  # slice the activations after
# --- end ---

moe001_after = ffn


def shard_mapped(body: Callable, mesh: jax.sharding.Mesh) -> Callable:
    """The explicit forms: the weight(s) arrive as their local FSDP shards."""
    fsdp = P(None, "fsdp", None)
    weights = (fsdp, fsdp) if body.__code__.co_argcount == 5 else (fsdp,)
    # check_vma=False: the gathered output is replicated, which shard_map cannot infer here.
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), *weights, P()), out_specs=P(), check_vma=False)


# --- MOE001 implicit before ---
def layer(x, gs, w, wo, *, mesh):  # w: [E, D, 2F], sharded P(None, "fsdp", None)
    replicated = NamedSharding(mesh, P())
    gate_w = jax.lax.with_sharding_constraint(w[..., :F], replicated)  # the partitioner gathers
    up_w = jax.lax.with_sharding_constraint(w[..., F:], replicated)  # each half on its own
    body = lambda x, gs, gate_w, up_w, wo: gmm(  # noqa: E731
        jax.nn.silu(gmm(x, gate_w, gs)) * gmm(x, up_w, gs), wo, gs)
    return jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(x, gs, gate_w, up_w, wo)
# --- end ---

moe001_implicit_before = layer


# --- MOE001 implicit after ---
def layer(x, gs, w, wo, *, mesh):  # w: [E, D, 2F], sharded P(None, "fsdp", None)
    w = jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P()))  # W whole: one gather

    def body(x, gs, w, wo):
        h = gmm(x, w, gs)  # one GMM, sliced after
        return gmm(jax.nn.silu(h[:, :F]) * h[:, F:], wo, gs)

    return jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(x, gs, w, wo)
# --- end ---

moe001_implicit_after = layer


# --- MOE003 before ---
def ffn(x, gs, wi_0, wi_1, wo):  # inside jax.shard_map; wi_0, wi_1: [E, D/fsdp, F]
    wi_0 = jax.lax.all_gather(wi_0, "fsdp", axis=1, tiled=True)  # two gathers,
    wi_1 = jax.lax.all_gather(wi_1, "fsdp", axis=1, tiled=True)  # two GMMs on the same tokens
    return gmm(jax.nn.silu(gmm(x, wi_0, gs)) * gmm(x, wi_1, gs), wo, gs)
# --- end ---

moe003_before = ffn


# --- MOE003 after ---
def ffn(x, gs, wi_0, wi_1, wo):  # inside jax.shard_map; wi_0, wi_1: [E, D/fsdp, F]
    w = jnp.concatenate([wi_0, wi_1], axis=-1)  # the local shards: no communication
    w = jax.lax.all_gather(w, "fsdp", axis=1, tiled=True)  # one gather of [E, D, 2F]
    h = gmm(x, w, gs)  # one GMM, split after
    return gmm(jax.nn.silu(h[:, :F]) * h[:, F:], wo, gs)
# --- end ---

moe003_after = ffn

# (name, before, after, the rules the "before" training step holds)
PAIRS = (
    ("MOE001", moe001_before, moe001_after, ("MOE001", "MOE002")),
    ("MOE001 implicit", moe001_implicit_before, moe001_implicit_after, ("MOE001",)),
    ("MOE003", moe003_before, moe003_after, ("MOE003", "MOE004")),
)


def make_mesh() -> jax.sharding.Mesh:
    """8 devices on one FSDP axis; Auto axes, as with_sharding_constraint (MaxText's style) needs."""
    return jax.make_mesh((8,), ("fsdp",), axis_types=(jax.sharding.AxisType.Auto,))


def program(fn: Callable, mesh: jax.sharding.Mesh) -> Callable:
    """The training step's loss and gradients of the layer ``fn`` (one of the pairs' functions)."""
    implicit = "mesh" in fn.__code__.co_varnames[:fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]
    layer_fn = (lambda *a: fn(*a, mesh=mesh)) if implicit else shard_mapped(fn, mesh)

    def loss(weights, x, gs):
        return jnp.mean(jnp.square(layer_fn(x, gs, *weights)))

    return jax.value_and_grad(loss)


def inputs(fn: Callable, mesh: jax.sharding.Mesh) -> tuple:
    """``(weights, x, gs)`` for ``fn``: the up weight(s) sharded on D over "fsdp", the rest replicated."""
    rng = np.random.default_rng(0)
    fsdp, replicated = NamedSharding(mesh, P(None, "fsdp", None)), NamedSharding(mesh, P())
    w = rng.standard_normal((E, D, 2 * F), np.float32) / np.sqrt(D)
    wo = jax.device_put(rng.standard_normal((E, F, D), np.float32) / np.sqrt(F), replicated)
    pair = fn.__code__.co_argcount == 5
    ups = (w[..., :F], w[..., F:]) if pair else (w,)
    weights = (*(jax.device_put(u, fsdp) for u in ups), wo)
    x = jax.device_put(rng.standard_normal((T, D), np.float32), replicated)
    gs = jax.device_put(np.array([10, 6, 0, 16], np.int32), replicated)
    return weights, x, gs


def main() -> int:
    import hlo_passes

    mesh = make_mesh()
    for name, before, after, _ in PAIRS:
        for label, fn in (("before", before), ("after", after)):
            found = sorted({f.rule for f in hlo_passes.lint_fn(program(fn, mesh), *inputs(fn, mesh))})
            print(f"{name} {label}: {', '.join(found) or 'no finding'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
