"""Gate and up as two weights with F on a second FSDP axis, written the way MaxText writes it.

MaxText's two-stage FSDP configs shard an MoE layer's ``wi_0[E, D, F]`` and ``wi_1[E, D, F]``
by logical axes: ``embed`` (D) on ``fsdp`` and ``mlp`` (F) on ``fsdp_transpose``.  The layer
names its shardings by those logical axes too (``nn.with_logical_constraint``,
``nn.logical_to_mesh_axes``); here a jax-only stand-in maps them with the same rules
(``LOGICAL_AXIS_RULES``, ``logical_to_mesh_axes``, ``with_logical_constraint``).

* ``form="implicit"`` (MaxText's ``sparse_matmul``): each weight is constrained to its
  gathered logical sharding (``("exp", None, None)``: FSDP dropped, the partitioner gathers
  D and F) and enters a ``shard_map`` whose body runs one GMM per weight;
* ``form="explicit"``: the weights enter the ``shard_map`` as their FSDP shards and are
  gathered there, ``jax.lax.all_gather`` over ``fsdp`` (D) and over ``fsdp_transpose`` (F).

Concatenating the two weights along F before those gathers gives each device
``[gate_k | up_k]``; gathered along F, gate and up come out interleaved by shard (block k:
gate's k-th F shard, then up's).  ``variant="fused"`` is the hand-written fused twin: the
shards joined, one gather, one GMM, its output split by blocks (``split_blocked``).
``variant="pair"`` is the program as written: two gathers, two GMMs.  Both compute the same
function.  ``mode``: ``forward``, or ``grad`` (value and gradients of a loss w.r.t. both weights).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from examples.moe import MoEConfig, _ffn_tail, gmm, make_group_sizes

FORMS = ("implicit", "explicit")
VARIANTS = ("pair", "fused")
MODES = ("forward", "grad")
MESH_AXES = ("fsdp", "fsdp_transpose")
# MaxText's rules for these logical axes (base.yml: embed -> fsdp, mlp -> fsdp_transpose, ...).
LOGICAL_AXIS_RULES: tuple[tuple[str, str | None], ...] = (
    ("exp", None), ("activation_batch", None), ("activation_embed", None),
    ("embed", "fsdp"), ("mlp", "fsdp_transpose"))
WEIGHT_AXES = ("exp", "embed", "mlp")  # wi_0, wi_1 [E, D, F]


def logical_to_mesh_axes(axes: tuple[str | None, ...]) -> P:
    """``nn.logical_to_mesh_axes``: each logical axis to the mesh axis its rule names."""
    rules = dict(LOGICAL_AXIS_RULES)
    return P(*(rules.get(a) if a is not None else None for a in axes))


def with_logical_constraint(x: jax.Array, axes: tuple[str | None, ...], mesh: Mesh) -> jax.Array:
    """``nn.with_logical_constraint`` on ``mesh``."""
    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, logical_to_mesh_axes(axes)))


def make_mesh(shape: tuple[int, int] = (4, 2)) -> Mesh:
    return jax.make_mesh(shape, MESH_AXES, axis_types=(jax.sharding.AxisType.Auto,) * 2,
                         devices=jax.devices()[:shape[0] * shape[1]])


def split_blocked(h: jax.Array, shards: int) -> tuple[jax.Array, jax.Array]:
    """Gate and up columns of ``h = x @ [gate_0 | up_0 | gate_1 | up_1 | ...]``: per block k of
    ``shards``, gate's columns then up's."""
    blocks = h.reshape(*h.shape[:-1], shards, 2, h.shape[-1] // (2 * shards))
    gate, up = blocks[..., 0, :], blocks[..., 1, :]
    return gate.reshape(*h.shape[:-1], -1), up.reshape(*h.shape[:-1], -1)


def layer_fn(mesh: Mesh, form: str, variant: str) -> Callable:
    """``(x, gs, wi_0, wi_1, wo) -> [T, D]``."""
    n_f = mesh.shape["fsdp_transpose"]
    fused = variant == "fused"

    def gmms(x, gs, w0, w1, wo):
        if fused:  # w0 is both weights, joined shard by shard
            gate, up = split_blocked(gmm(x, w0, gs), n_f)
        else:
            gate, up = gmm(x, w0, gs), gmm(x, w1, gs)
        return _ffn_tail(gate, up, gs, wo)

    if form == "explicit":
        def body(x, gs, w0, w1, wo):
            def gather(w):  # FSDP: D over fsdp, F over fsdp_transpose
                w = jax.lax.all_gather(w, "fsdp", axis=1, tiled=True)
                return jax.lax.all_gather(w, "fsdp_transpose", axis=2, tiled=True)
            if fused:
                w = gather(jnp.concatenate([w0, w1], axis=-1))  # [gate_k | up_k] on each device
                return gmms(x, gs, w, w, wo)
            return gmms(x, gs, gather(w0), gather(w1), wo)

        w_spec = logical_to_mesh_axes(WEIGHT_AXES)
        return jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), w_spec, w_spec, P()), out_specs=P(),
                             check_vma=False)

    operands = 4 if fused else 5
    mapped = jax.shard_map(gmms if not fused else (lambda x, gs, w, wo: gmms(x, gs, w, w, wo)), mesh=mesh,
                           in_specs=(P(),) * operands, out_specs=P(), check_vma=False)

    def gathered(w):
        return with_logical_constraint(w, ("exp", None, None), mesh)

    def layer(x, gs, wi_0, wi_1, wo):
        if fused:
            # Each device's shards side by side: [E, D, F] -> [E, D, n, F/n], joined, -> [E, D, 2F].
            e, d, f = wi_0.shape
            joined = jnp.concatenate([wi_0.reshape(e, d, n_f, f // n_f), wi_1.reshape(e, d, n_f, f // n_f)], -1)
            joined = with_logical_constraint(joined.reshape(e, d, 2 * f), WEIGHT_AXES, mesh)
            return mapped(x, gs, gathered(joined), wo)
        return mapped(x, gs, gathered(wi_0), gathered(wi_1), wo)

    return layer


def build(form: str = "implicit", variant: str = "pair", mode: str = "forward",
          cfg: MoEConfig | None = None) -> tuple[Callable, tuple[jax.Array, ...]]:
    """``(jitted function, device arguments)`` on a 4 x 2 mesh of 8 CPU devices."""
    if form not in FORMS or variant not in VARIANTS or mode not in MODES:
        raise ValueError(f"form in {FORMS}, variant in {VARIANTS}, mode in {MODES}")
    cfg = cfg or MoEConfig()
    mesh = make_mesh()
    layer = layer_fn(mesh, form, variant)
    fn = layer
    if mode == "grad":
        def fn(x, gs, wi_0, wi_1, wo):
            loss = lambda a, b: jnp.mean(jnp.square(layer(x, gs, a, b, wo)))  # noqa: E731
            return jax.value_and_grad(loss, argnums=(0, 1))(wi_0, wi_1)

    return jax.jit(fn), inputs(mesh, cfg)


def host_inputs(cfg: MoEConfig) -> tuple[np.ndarray, ...]:
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    rng = np.random.default_rng(cfg.seed)
    x = rng.standard_normal((t, d), dtype=np.float32)
    wi_0, wi_1 = ((rng.standard_normal((e, d, f)) / np.sqrt(d)).astype(np.float32) for _ in range(2))
    wo = (rng.standard_normal((e, f, d)) / np.sqrt(f)).astype(np.float32)
    return x, make_group_sizes(cfg), wi_0, wi_1, wo


def inputs(mesh: Mesh, cfg: MoEConfig) -> tuple[jax.Array, ...]:
    w = NamedSharding(mesh, logical_to_mesh_axes(WEIGHT_AXES))
    shardings = (NamedSharding(mesh, P()),) * 2 + (w, w, NamedSharding(mesh, P()))
    return tuple(jax.device_put(a, s) for a, s in zip(host_inputs(cfg), shardings))


if __name__ == "__main__":
    import os
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    for form in FORMS:
        for mode in MODES:
            outs = [jax.tree.map(np.asarray, f(*a)) for f, a in (build(form, v, mode) for v in VARIANTS)]
            same = all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(outs[0]), jax.tree.leaves(outs[1])))
            print(form, mode, "pair == fused:", same)
