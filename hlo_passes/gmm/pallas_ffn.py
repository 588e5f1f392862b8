"""The expert FFN as one Pallas kernel for TPU (the fused-FFN rule's TPU counterpart of the CPU kernel).

``moe_ffn(x, w_in, w_out, group_sizes)`` computes ``gmm(silu(gate) * up, w_out)`` with gate and
up the halves of ``gmm(x, w_in)`` (``up_first``: swapped; ``w_up`` given: ``w_in`` is the gate
weight and ``w_up`` the up one), rows grouped by ``group_sizes`` as ``jax.lax.ragged_dot``
groups them (rows past the sum are +0).  The grid runs over tiles of ``tm`` tokens and, inside
each, over the experts; the group offsets are prefetched scalars, and an expert whose rows miss
the tile does no work.  A tile's ``[tm, 2F]`` up-projection and ``[tm, F]`` activation live in
VMEM only; its output accumulates in f32 over the experts (each row gets one expert's product)
and is rounded once.  The compute type is ``x``'s: the GMM results are rounded to it and the
activation computed in it, as XLA computes the unfused program.

``interpret=True`` runs the same program in Pallas's interpret mode (on CPU), which is how the
numerics are checked here; on TPU, F and D must suit Mosaic's (8, 128) tiling.  jax is imported
on first use only.
"""
from __future__ import annotations

from typing import Any

# The pallas_call's name: the ``kernel_name`` of its tpu_custom_call.
KERNEL_NAME = "hlo_passes_moe_ffn"


def moe_ffn(x: Any, w_in: Any, w_out: Any, group_sizes: Any, *, w_up: Any = None, up_first: bool = False,
            tm: int = 128, interpret: bool = False) -> Any:
    import jax  # deferred: seconds to import, only when a kernel is built
    import jax.numpy as jnp  # deferred: with jax
    from jax.experimental import pallas as pl  # deferred: with jax
    from jax.experimental.pallas import tpu as pltpu  # deferred: with jax

    t, d = x.shape
    e, f, n = w_out.shape
    pair = w_up is not None
    if w_in.shape != (e, d, f if pair else 2 * f) or (pair and w_up.shape != w_in.shape):
        raise ValueError(f"pallas moe_ffn: expected x[t,d], w_in[e,d,{'f' if pair else '2f'}], w_out[e,f,n]; got "
                         f"{x.shape}, {w_in.shape}, {w_out.shape}")
    dtype = x.dtype
    tiles = -(-t // tm)
    xp = jnp.pad(x, ((0, tiles * tm - t), (0, 0)))
    sizes = jnp.maximum(group_sizes.astype(jnp.int32), 0)
    ends = jnp.minimum(jnp.cumsum(sizes), t).astype(jnp.int32)
    starts = jnp.concatenate([jnp.zeros((1,), jnp.int32), ends[:-1]])
    gate_half, up_half = (1, 0) if up_first else (0, 1)

    def kernel(starts_ref, ends_ref, x_ref, wg_ref, wu_ref, wo_ref, o_ref):
        i, g = pl.program_id(0), pl.program_id(1)
        lo, hi = starts_ref[g], ends_ref[g]

        @pl.when(g == 0)
        def _():
            o_ref[...] = jnp.zeros_like(o_ref)

        @pl.when((lo < (i + 1) * tm) & (hi > i * tm) & (lo < hi))
        def _():
            xt = x_ref[...]
            gate = jnp.dot(xt, wg_ref[0], preferred_element_type=jnp.float32).astype(dtype)
            up = jnp.dot(xt, wu_ref[0], preferred_element_type=jnp.float32).astype(dtype)
            one = jnp.ones((), dtype)
            act = gate * (one / (one + jnp.exp(-gate))) * up
            y = jnp.dot(act, wo_ref[0], preferred_element_type=jnp.float32)
            rows = i * tm + jax.lax.broadcasted_iota(jnp.int32, (tm, 1), 0)
            o_ref[...] += jnp.where((rows >= lo) & (rows < hi), y, 0.0)

    if pair:
        weights = (w_in, w_up)
        w_specs = [pl.BlockSpec((1, d, f), lambda i, g, s, en: (g, 0, 0))] * 2
    else:
        weights = (w_in, w_in)
        w_specs = [pl.BlockSpec((1, d, f), lambda i, g, s, en, h=h: (g, 0, h)) for h in (gate_half, up_half)]
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=2,
        grid=(tiles, e),
        in_specs=[pl.BlockSpec((tm, d), lambda i, g, s, en: (i, 0)), *w_specs,
                  pl.BlockSpec((1, f, n), lambda i, g, s, en: (g, 0, 0))],
        out_specs=pl.BlockSpec((tm, n), lambda i, g, s, en: (i, 0)),
    )
    out = pl.pallas_call(kernel, grid_spec=grid_spec, out_shape=jax.ShapeDtypeStruct((tiles * tm, n), jnp.float32),
                         name=KERNEL_NAME, interpret=interpret)(starts, ends, xp, *weights, w_out)
    return out[:t].astype(dtype)
