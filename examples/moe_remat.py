"""A rematerialized MoE training step whose every weight is FSDP-gathered (issue 27).

The layer runs under ``jax.checkpoint``, as trainers run their decoder layers: the backward
gathers each weight again.  Every weight is FSDP-sharded and gathered where it is used — the
gate/up weight (prefused ``W[E, D, 2F]``, or ``wi_0``/``wi_1``) *and* the down projection
``wo[E, F, D]`` (sharded on ``D``, MaxText's ``embed`` axis) — so the optimized program holds,
for ``wo``, a forward gather and its recomputation of the same array: one weight gathered
twice, not gate and up.

``build(layout, form, mesh)`` gives ``(jitted training step, device arguments)`` on 8 CPU
devices: ``layout`` ``prefused`` or ``pair``; ``form`` ``explicit`` (``jax.lax.all_gather``
in a shard_map) or ``implicit`` (sharding constraints, MaxText's two stages on ``mesh2``);
``mesh`` as ``examples.moe``.
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from examples.moe import MoEConfig, _gather, fsdp_axes, gather_stages, gmm, make_group_sizes, make_mesh

LAYOUTS = ("prefused", "pair")
FORMS = ("explicit", "implicit")


def build(layout: str = "pair", form: str = "implicit", mesh_kind: str = "mesh2",
          cfg: MoEConfig | None = None) -> tuple[Callable, tuple[jax.Array, ...]]:
    cfg = cfg or MoEConfig()
    if layout not in LAYOUTS or form not in FORMS:
        raise ValueError(f"layout in {LAYOUTS}, form in {FORMS}")
    mesh = make_mesh(mesh_kind, 8, explicit=False)
    fsdp = fsdp_axes(mesh_kind)
    stages = gather_stages(mesh_kind)
    f = cfg.mlp
    w_spec, wo_spec = P(None, fsdp, None), P(None, None, fsdp)

    def ffn(x, gs, gate_w, up_w, wo):  # noqa: ANN001
        gate, up = gmm(x, gate_w, gs), gmm(x, up_w, gs)
        return gmm(jax.nn.silu(gate) * up, wo, gs)

    if form == "explicit":
        def body(x, gs, *ws):
            *wi, wo = ws
            if layout == "prefused":  # sliced, then each half gathered (MOE001's pattern)
                wi = [wi[0][..., :f], wi[0][..., f:]]
            gate_w, up_w = (_gather(w, stages) for w in wi)
            for axis in stages:
                wo = jax.lax.all_gather(wo, axis, axis=2, tiled=True)
            return ffn(x, gs, gate_w, up_w, wo)

        n = 1 if layout == "prefused" else 2
        layer = jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), *[w_spec] * n, wo_spec), out_specs=P(),
                              check_vma=False)
    else:
        inner = jax.shard_map(lambda x, gs, *ws: ffn(x, gs, *ws), mesh=mesh, in_specs=(P(),) * 5,
                              out_specs=P(), check_vma=False)
        constrain = lambda a, s: jax.lax.with_sharding_constraint(a, NamedSharding(mesh, s))  # noqa: E731

        def drop(w, d):
            if mesh_kind == "mesh2":
                spec = [None] * w.ndim
                spec[d] = fsdp[0]
                w = jax.lax.optimization_barrier(constrain(w, P(*spec)))
            return constrain(w, P())

        def layer(x, gs, *ws):
            *wi, wo = ws
            if layout == "prefused":
                gate_w, up_w = drop(wi[0][..., :f], 1), drop(wi[0][..., f:], 1)
            else:
                gate_w, up_w = drop(wi[0], 1), drop(wi[1], 1)
            return inner(x, gs, gate_w, up_w, drop(wo, 2))

    step_layer = jax.checkpoint(layer)

    def train(x, gs, *ws):
        loss = lambda *w: jnp.mean(jnp.square(step_layer(x, gs, *w).astype(jnp.float32)))  # noqa: E731
        return jax.value_and_grad(loss, argnums=tuple(range(len(ws))))(*ws)

    rng = np.random.default_rng(cfg.seed)
    e, d, t = cfg.experts, cfg.embed, cfg.tokens
    wi = ([rng.standard_normal((e, d, 2 * f), dtype=np.float32)] if layout == "prefused"
          else [rng.standard_normal((e, d, f), dtype=np.float32) for _ in range(2)])
    wo = rng.standard_normal((e, f, d), dtype=np.float32)
    cast = lambda a: np.asarray(a).astype(cfg.jdtype)  # noqa: E731  (f32 unless cfg.dtype says otherwise)
    args = (jax.device_put(cast(rng.standard_normal((t, d), dtype=np.float32)), NamedSharding(mesh, P())),
            jax.device_put(make_group_sizes(cfg), NamedSharding(mesh, P())),
            *[jax.device_put(cast(w / np.sqrt(d)), NamedSharding(mesh, w_spec)) for w in wi],
            jax.device_put(cast(wo / np.sqrt(f)), NamedSharding(mesh, wo_spec)))
    return jax.jit(train), args
