"""Write the texts of a scanned MoE training step as a trainer lowers it: ``python benchmarks/_make_trainer_texts.py OUT``.

The program is written the way training code is, not shaped for any parser
or rule: a decoder of ``LAYERS`` blocks (RMS norm, attention, a top-k routed
MoE FFN through ``jax.lax.ragged_dot``) run by ``jax.lax.scan`` over stacked
layer weights, each block under ``jax.checkpoint`` (remat), bf16 compute from
f32 master weights, a cross-entropy loss, ``optax.adamw`` with global-norm
clipping, the weights and the batch FSDP-sharded with ``NamedSharding`` over
an 8-device mesh (``data`` x ``fsdp``) and partitioned by Shardy.

Files written into OUT (the jax version in their names, so that both
interpreters can fill one folder):

* ``trainer_jax<V>.stablehlo.debuginfo.mlir``: ``lowered.as_text(debug_info=True)``
  (``loc(...)`` on every op, ``#loc`` aliases, call-site and fused locations);
* ``trainer_jax<V>.stablehlo.mlir``: ``lowered.as_text()`` (no locations);
* ``trainer_jax<V>.hlo.txt``: the module before optimizations as XLA's printer
  writes it (``as_hlo_module().to_string()``: op metadata, and the stack-frame
  tables where this jax emits them);
* ``trainer_jax<V>.compiled.hlo.txt``: the optimized, SPMD-partitioned module
  (``compiled.as_text()``: fusions, layouts, metadata).

jax writes only what it was asked to, so the texts are reproducible for one
jax version and device count; benchmarks/real_text.py calls this script with
each installed Python when its cache lacks a file.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # flags must precede the jax import
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

from dataclasses import dataclass  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402


@dataclass(frozen=True)
class Config:
    vocab: int = 512
    embed: int = 256
    heads: int = 4
    mlp: int = 128
    experts: int = 8
    top_k: int = 2
    layers: int = 4
    batch: int = 8
    seq: int = 64


def make_mesh():
    import jax
    import numpy as np
    from jax.sharding import Mesh

    devices = np.array(jax.devices()[:8]).reshape(2, 4)
    return Mesh(devices, ("data", "fsdp"))


def init_params(cfg: Config, key):
    import jax
    import jax.numpy as jnp

    ks = jax.random.split(key, 8)
    L, D, F, E, V = cfg.layers, cfg.embed, cfg.mlp, cfg.experts, cfg.vocab

    def normal(k, shape, scale):
        return (jax.random.normal(k, shape, jnp.float32) * scale).astype(jnp.float32)

    return {
        "embed": normal(ks[0], (V, D), 0.02),
        "layers": {
            "attn_norm": jnp.ones((L, D), jnp.float32),
            "wqkv": normal(ks[1], (L, D, 3 * D), D ** -0.5),
            "wo": normal(ks[2], (L, D, D), D ** -0.5),
            "mlp_norm": jnp.ones((L, D), jnp.float32),
            "router": normal(ks[3], (L, D, E), D ** -0.5),
            "w_gate_up": normal(ks[4], (L, E, D, 2 * F), D ** -0.5),
            "w_down": normal(ks[5], (L, E, F, D), F ** -0.5),
        },
        "final_norm": jnp.ones((D,), jnp.float32),
        "unembed": normal(ks[6], (D, V), D ** -0.5),
    }


def param_specs(params):
    """FSDP: every weight sharded on its embed dimension over ``fsdp`` (MaxText's rules)."""
    import jax
    from jax.sharding import PartitionSpec as P

    rules = {
        "embed": P(None, "fsdp"),
        "attn_norm": P(None, None), "mlp_norm": P(None, None), "final_norm": P(None),
        "wqkv": P(None, "fsdp", None), "wo": P(None, None, "fsdp"),
        "router": P(None, "fsdp", None),
        "w_gate_up": P(None, None, "fsdp", None), "w_down": P(None, None, None, "fsdp"),
        "unembed": P("fsdp", None),
    }
    return jax.tree_util.tree_map_with_path(lambda path, _: rules[path[-1].key], params)


def rms_norm(x, scale):
    import jax
    import jax.numpy as jnp

    x32 = x.astype(jnp.float32)
    y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-6)
    return (y * scale).astype(x.dtype)


def attention(x, p, cfg: Config):
    import jax
    import jax.numpy as jnp

    b, t, d = x.shape
    h = cfg.heads
    qkv = jnp.einsum("btd,de->bte", x, p["wqkv"].astype(jnp.bfloat16))
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q, k, v = (a.reshape(b, t, h, d // h) for a in (q, k, v))
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / (d // h) ** 0.5
    mask = jnp.tril(jnp.ones((t, t), bool))
    logits = jnp.where(mask, logits, -1e9)
    w = jax.nn.softmax(logits, axis=-1).astype(jnp.bfloat16)
    out = jnp.einsum("bhqk,bkhd->bqhd", w, v).reshape(b, t, d)
    return jnp.einsum("btd,de->bte", out, p["wo"].astype(jnp.bfloat16))


def moe(x, p, cfg: Config):
    """Top-k routing, tokens sorted by expert, grouped matmuls, unsort and combine."""
    import jax
    import jax.numpy as jnp

    b, t, d = x.shape
    tokens = x.reshape(b * t, d)
    logits = jnp.einsum("nd,de->ne", tokens, p["router"].astype(jnp.bfloat16)).astype(jnp.float32)
    weights, experts = jax.lax.top_k(jax.nn.softmax(logits, axis=-1), cfg.top_k)
    weights = weights / jnp.sum(weights, axis=-1, keepdims=True)
    flat = experts.reshape(-1)
    order = jnp.argsort(flat)
    sorted_tokens = jnp.take(tokens, order // cfg.top_k, axis=0)
    group_sizes = jnp.bincount(flat, length=cfg.experts).astype(jnp.int32)
    gate_up = jax.lax.ragged_dot(sorted_tokens, p["w_gate_up"].astype(jnp.bfloat16), group_sizes)
    gate, up = jnp.split(gate_up, 2, axis=-1)
    hidden = jax.nn.silu(gate) * up
    out = jax.lax.ragged_dot(hidden, p["w_down"].astype(jnp.bfloat16), group_sizes)
    unsorted = jnp.zeros_like(out).at[order].set(out)
    combined = (unsorted.reshape(b * t, cfg.top_k, d) * weights[..., None].astype(out.dtype)).sum(axis=1)
    aux = jnp.mean(jnp.sum(jax.nn.one_hot(experts, cfg.experts), axis=1) * jax.nn.softmax(logits, -1))
    return combined.reshape(b, t, d), aux


def block(x, p, cfg: Config):
    from jax.lax import with_sharding_constraint
    from jax.sharding import PartitionSpec as P

    x = with_sharding_constraint(x, P(("data", "fsdp"), None, None))
    x = x + attention(rms_norm(x, p["attn_norm"]), p, cfg)
    y, aux = moe(rms_norm(x, p["mlp_norm"]), p, cfg)
    return x + y, aux


def loss_fn(params, batch, cfg: Config):
    import jax
    import jax.numpy as jnp

    x = jnp.take(params["embed"], batch["inputs"], axis=0).astype(jnp.bfloat16)
    body = jax.checkpoint(partial(block, cfg=cfg), policy=jax.checkpoint_policies.nothing_saveable)

    def step(h, layer_params):
        h, aux = body(h, layer_params)
        return h, aux

    x, aux = jax.lax.scan(step, x, params["layers"])
    x = rms_norm(x, params["final_norm"])
    logits = jnp.einsum("btd,dv->btv", x, params["unembed"].astype(jnp.bfloat16)).astype(jnp.float32)
    labels = jax.nn.one_hot(batch["targets"], cfg.vocab)
    xent = -jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1)
    return jnp.mean(xent) + 0.01 * jnp.mean(aux)


def make_step(cfg: Config, mesh, params):
    import jax
    import optax
    from jax.sharding import NamedSharding, PartitionSpec as P

    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(3e-4, weight_decay=0.1))
    p_shard = jax.tree.map(lambda s: NamedSharding(mesh, s), param_specs(params))
    opt_state = jax.eval_shape(tx.init, params)
    o_shard = jax.tree.map(lambda a: NamedSharding(mesh, P()), opt_state)
    # Adam's moments are shaped and sharded like the weights.
    o_shard = optax.tree_utils.tree_map_params(tx, lambda _, s: s, o_shard, p_shard,
                                               transform_non_params=lambda s: s) \
        if hasattr(optax, "tree_utils") and hasattr(optax.tree_utils, "tree_map_params") else o_shard
    b_shard = {k: NamedSharding(mesh, P(("data", "fsdp"), None)) for k in ("inputs", "targets")}

    def train_step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch, cfg)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    step = jax.jit(train_step, in_shardings=(p_shard, o_shard, b_shard),
                   out_shardings=(p_shard, o_shard, NamedSharding(mesh, P())), donate_argnums=(0, 1))
    return step, opt_state


def lower(cfg: Config = Config()):
    import jax
    import jax.numpy as jnp

    mesh = make_mesh()
    params = jax.eval_shape(lambda: init_params(cfg, jax.random.key(0)))
    step, opt_state = make_step(cfg, mesh, params)
    batch = {k: jax.ShapeDtypeStruct((cfg.batch, cfg.seq), jnp.int32) for k in ("inputs", "targets")}
    with (jax.set_mesh(mesh) if hasattr(jax, "set_mesh") else mesh):
        return step.lower(params, opt_state, batch)


def write(out: Path) -> list[Path]:
    import jax

    out.mkdir(parents=True, exist_ok=True)
    lowered = lower()
    tag = f"trainer_jax{jax.__version__}"
    texts = {
        f"{tag}.stablehlo.debuginfo.mlir": lowered.as_text(debug_info=True),
        f"{tag}.stablehlo.mlir": lowered.as_text(),
        f"{tag}.hlo.txt": lowered.as_text(dialect="hlo", debug_info=True),
        f"{tag}.compiled.hlo.txt": lowered.compile().as_text(),
    }
    written = []
    for name, text in texts.items():
        path = out / name
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(path)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write(Path(sys.argv[1])):
        print(p, p.stat().st_size)
