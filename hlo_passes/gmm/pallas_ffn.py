"""The expert FFN as one Pallas kernel for TPU (the fused-FFN rule's TPU counterpart of the CPU kernel).

``moe_ffn(x, w_in, w_out, group_sizes)`` computes ``gmm(silu(gate) * up, w_out)`` with gate and
up the halves of ``gmm(x, w_in)`` (``up_first``: swapped; ``w_up`` given: ``w_in`` is the gate
weight and ``w_up`` the up one), rows grouped by ``group_sizes`` as ``jax.lax.ragged_dot``
groups them (rows past the sum are +0).

Its grid is ``(steps, F blocks)``.  A step is one (group, tile of ``tm`` tokens) pair that the
group's rows touch, in row order (a tile two groups share is visited twice, consecutively), then
one step per tile past all the groups (written 0), then steps that do nothing (the grid is
static: ``tiles + E - 1`` steps bound every distribution of the rows).  Which group and tile a
step reads is prefetched to SMEM (``step_group``, ``step_tile``, ``step_kind``), so a step's
blocks are that group's weights only: ``[D, bf]`` of gate and of up and ``[bf, N]`` of the down
weight for F block ``j`` — each expert's weights are read once per tile its rows touch, never
for tiles they miss.  F is streamed: the ``[tm, bf]`` activation ``silu(gate) * up`` lives in
VMEM only, and the down projection accumulates over the F blocks in an f32 ``[tm, N]`` scratch;
at the last F block the group's rows of the tile are stored (rounded once), the tile's other
rows kept (or, at its first visit, set to 0).  The compute type is ``x``'s: the GMM results are
rounded to it and the activation computed in it, as XLA computes the unfused program.

``tm`` / ``bf`` default to ``block_sizes``; ``vmem_bytes`` is the VMEM the blocks take
(double-buffered), and the kernel asks Mosaic for that much scoped VMEM (plus headroom).
``interpret=True`` runs the same program in Pallas's interpret mode (on CPU), which is how the
numerics are checked off the chip; on TPU, F and D must suit Mosaic's (8, 128) tiling.  jax is
imported on first use only.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

# The pallas_call's name: the ``kernel_name`` of its tpu_custom_call.
KERNEL_NAME = "hlo_passes_moe_ffn"
# Scoped VMEM the kernel may ask Mosaic for: v5e/v6e have 128 MiB of VMEM (v5e's default scoped
# limit is 16 MiB); the largest blocks chosen take under 64 MiB (measured on a v5e,
# benchmarks/results/tpu_kernels.md).
VMEM_CAP = 100 * 2**20
_BYTES = {"float32": 4, "bfloat16": 2, "f32": 4, "bf16": 2}


def vmem_bytes(tm: int, d: int, bf: int, n: int, dtype: str) -> int:
    """VMEM the kernel's blocks take, double-buffered: a token tile ``[tm, D]``, gate and up
    ``[D, bf]``, down ``[bf, N]``, the output tile ``[tm, N]``, the f32 accumulator and the
    step's f32 intermediates ``[tm, bf]``."""
    size = _BYTES[dtype]
    return (2 * size * (tm * d + 2 * d * bf + bf * n + tm * n) + 4 * tm * n + 3 * 4 * tm * bf)


def block_sizes(t: int, d: int, f: int, n: int, e: int, dtype: str) -> tuple[int, int]:
    """``(tm, bf)``: tokens per tile and F per block.  ``tm`` 256 (all of ``t`` when fewer,
    rounded to the sublanes), ``bf`` the largest of 512, 256, 128 dividing F (F itself when no
    multiple of 128): the fastest blocks measured on a v5e at E 8, m 4096/16384, D 1024-4096,
    F 512-2048 (1.04-1.16x XLA's chain where D >= 2048; benchmarks/results/tpu_kernels.md).
    ``tm`` halves until the blocks fit ``VMEM_CAP``."""
    sub = 16 if _BYTES[dtype] == 2 else 8
    tm = -(-max(t, 1) // sub) * sub if t <= 256 else 256
    blocks = [b for b in (512, 256, 128) if f % b == 0] or [f]
    while True:
        for bf in blocks:
            if vmem_bytes(tm, d, bf, n, dtype) <= VMEM_CAP * 0.8:
                return tm, bf
        if tm <= sub:
            return tm, blocks[-1]
        tm = max(sub, tm // 2)


def step_tables(group_sizes: Any, t: int, tm: int, e: int) -> tuple[Any, Any, Any]:
    """The grid's step list for rows ``t`` in tiles of ``tm`` and ``e`` groups: per step the group
    whose weights it reads, the token tile, and its kind (0: the group's rows of the tile;
    1: a tile past every group, written 0; 2: nothing, repeating the previous step's blocks)."""
    import jax.numpy as jnp  # deferred: with jax

    tiles = -(-t // tm)
    steps = tiles + max(e - 1, 0)
    sizes = jnp.maximum(group_sizes.astype(jnp.int32), 0)
    ends = jnp.minimum(jnp.cumsum(sizes), t)
    starts = jnp.concatenate([jnp.zeros((1,), jnp.int32), ends[:-1]])
    nonempty = ends > starts
    first = starts // tm
    last = (jnp.maximum(ends, 1) - 1) // tm
    visits = jnp.where(nonempty, last - first + 1, 0)
    visit_end = jnp.cumsum(visits)
    total = visit_end[-1]
    covered = -(-ends[-1] // tm)  # tiles holding some group's rows
    s = jnp.arange(steps, dtype=jnp.int32)
    g = jnp.minimum(jnp.searchsorted(visit_end, s, side="right"), e - 1).astype(jnp.int32)
    tile = first[g] + s - (visit_end[g] - visits[g])
    zero_tile = covered + (s - total)
    last_group = jnp.minimum(jnp.searchsorted(visit_end, jnp.maximum(total - 1, 0), side="right"), e - 1)
    kind = jnp.where(s < total, 0, jnp.where(zero_tile < tiles, 1, 2)).astype(jnp.int32)
    tile = jnp.where(kind == 0, tile, jnp.where(kind == 1, zero_tile, tiles - 1)).astype(jnp.int32)
    group = jnp.where(kind == 0, g, last_group.astype(jnp.int32)).astype(jnp.int32)
    return group, tile, kind


def _kernel(nf: int, tm: int, dtype: Any) -> Callable[..., None]:
    """The kernel of ``moe_ffn``'s grid step ``(s, j)`` for ``nf`` F blocks, tiles of ``tm`` rows and
    compute type ``dtype`` (the module docstring says what a step does).  A function of its own so
    that ``moe_ffn`` reads as its steps: sizes, step tables, block specs, the call."""
    import jax  # deferred: seconds to import, only when a kernel is built
    import jax.numpy as jnp  # deferred: with jax
    from jax.experimental import pallas as pl  # deferred: with jax

    def kernel(group_ref: Any, tile_ref: Any, kind_ref: Any, starts_ref: Any, ends_ref: Any, x_ref: Any,
               wg_ref: Any, wu_ref: Any, wo_ref: Any, o_ref: Any, acc_ref: Any) -> None:
        s, j = pl.program_id(0), pl.program_id(1)
        k = kind_ref[s]

        @pl.when(k == 0)
        def _() -> None:
            xt = x_ref[...]
            gate = jnp.dot(xt, wg_ref[0], preferred_element_type=jnp.float32).astype(dtype)
            up = jnp.dot(xt, wu_ref[0], preferred_element_type=jnp.float32).astype(dtype)
            one = jnp.ones((), dtype)
            act = gate * (one / (one + jnp.exp(-gate))) * up
            y = jnp.dot(act, wo_ref[0], preferred_element_type=jnp.float32)

            @pl.when(j == 0)
            def _() -> None:
                acc_ref[...] = y

            @pl.when(j > 0)
            def _() -> None:
                acc_ref[...] += y

            @pl.when(j == nf - 1)
            def _() -> None:
                g = group_ref[s]
                prev = jnp.maximum(s - 1, 0)
                first_visit = (s == 0) | (tile_ref[prev] != tile_ref[s])
                rows = tile_ref[s] * tm + jax.lax.broadcasted_iota(jnp.int32, (tm, 1), 0)
                mine = (rows >= starts_ref[g]) & (rows < ends_ref[g])
                kept = jnp.where(first_visit, jnp.zeros_like(o_ref), o_ref[...])
                o_ref[...] = jnp.where(mine, acc_ref[...].astype(o_ref.dtype), kept)

        @pl.when((k == 1) & (j == 0))
        def _() -> None:
            o_ref[...] = jnp.zeros_like(o_ref)

    return kernel


def moe_ffn(x: Any, w_in: Any, w_out: Any, group_sizes: Any, *, w_up: Any = None, up_first: bool = False,
            tm: int | None = None, bf: int | None = None, interpret: bool = False) -> Any:
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
    auto_tm, auto_bf = block_sizes(t, d, f, n, e, jnp.dtype(dtype).name)
    tm = tm or auto_tm
    bf = bf or auto_bf
    if f % bf:
        raise ValueError(f"pallas moe_ffn: F = {f} is no multiple of the F block {bf}")
    nf = f // bf
    tiles = -(-t // tm)
    xp = jnp.pad(x, ((0, tiles * tm - t), (0, 0)))
    sizes = jnp.maximum(group_sizes.astype(jnp.int32), 0)
    ends = jnp.minimum(jnp.cumsum(sizes), t).astype(jnp.int32)
    starts = jnp.concatenate([jnp.zeros((1,), jnp.int32), ends[:-1]])
    group, tile, kind = step_tables(group_sizes, t, tm, e)
    steps = int(group.shape[0])

    kernel = _kernel(nf, tm, dtype)

    def w_block(j: Any, s: Any, kind_ref: Any, offset: int) -> Any:
        # A step that computes nothing keeps the last F block's index: no weight is fetched.
        return jnp.where(kind_ref[s] == 0, j, nf - 1) + offset

    if pair:
        weights = (w_in, w_up)
        offsets = (0, 0)
    else:
        weights = (w_in, w_in)
        offsets = (nf, 0) if up_first else (0, nf)
    w_specs = [pl.BlockSpec((1, d, bf), lambda s, j, gr, ti, ki, st, en, o=o: (gr[s], 0, w_block(j, s, ki, o)))
               for o in offsets]
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=5,
        grid=(steps, nf),
        in_specs=[pl.BlockSpec((tm, d), lambda s, j, gr, ti, ki, st, en: (ti[s], 0)), *w_specs,
                  pl.BlockSpec((1, bf, n), lambda s, j, gr, ti, ki, st, en: (gr[s], w_block(j, s, ki, 0), 0))],
        out_specs=pl.BlockSpec((tm, n), lambda s, j, gr, ti, ki, st, en: (ti[s], 0)),
        scratch_shapes=[pltpu.VMEM((tm, n), jnp.float32)],
    )
    need = vmem_bytes(tm, d, bf, n, jnp.dtype(dtype).name)
    params = pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary"),
                                  vmem_limit_bytes=int(min(max(need * 1.25, 16 * 2**20), VMEM_CAP)))
    out = pl.pallas_call(kernel, grid_spec=grid_spec, out_shape=jax.ShapeDtypeStruct((tiles * tm, n), dtype),
                         name=KERNEL_NAME, interpret=interpret, compiler_params=params)(
        group, tile, kind, starts, ends, xp, *weights, w_out)
    return out[:t]
