"""The jax side of the Pallas path: megablox ``gmm`` / ``tgmm`` lowered for one GMM shape.

``pallas_tpu`` is pure graph code; everything that needs jax is here and is
imported only when a kernel is emitted.  A kernel is lowered with jax as a
small program ``(lhs, rhs, group_sizes) -> out`` whose operands are exactly
the ragged-dot's (same shapes, dimension order and dtypes), so the spliced
function replaces the op one for one: the transposes into megablox's layout,
the int32 group sizes it insists on, the padding of ``m`` to a tile multiple
and the clipping of groups at ``m`` all happen inside the lowered program.

Megablox's constraints (jax.experimental.pallas.ops.tpu.megablox.gmm):
``m`` must divide by the m tile (``_calculate_num_tiles``), ``k`` and ``n``
may be ragged (masked); lhs/rhs must be f32 or bf16; group sizes int32.
Mosaic wants every block's last two dimensions to be multiples of (8, 128)
or the whole array dimension, which ``tiling_for`` respects for both kernels
(tgmm reads lhs as ``[k, m]`` blocks of ``(tk, tm)``).
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

# Largest tiles: megablox's defaults are 128; 512 on k and n keeps the grid
# small for the shapes MoE layers have without exceeding VMEM on any TPU.
_MAX_TM = 128
_MAX_TKN = 512


@dataclass(frozen=True)
class GmmSpec:
    """One ragged-dot, as the kernel sees it.

    ``mode`` is ``"gmm"`` (ragged rows of lhs, one rhs matrix per group:
    ``[m, k] x [g, k, n] -> [m, n]``) or ``"tgmm"`` (ragged contracting
    dimension: ``[m, k] x [m, n] -> [g, k, n]``).  ``lhs_perm``/``rhs_perm``
    put the operands as given into that canonical order.
    """

    mode: str
    lhs_shape: tuple[int, ...]
    lhs_dtype: str
    rhs_shape: tuple[int, ...]
    rhs_dtype: str
    groups_shape: tuple[int, ...]
    groups_dtype: str
    out_dtype: str
    lhs_perm: tuple[int, ...]
    rhs_perm: tuple[int, ...]


# HLO element types ↔ numpy names (the kernel supports only these).
_NP_OF = {"f32": "float32", "bf16": "bfloat16", "s32": "int32", "s64": "int64", "u32": "uint32"}


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def tiling_for(m: int, k: int, n: int, dtype: str) -> tuple[tuple[int, int, int], int]:
    """``((tm, tk, tn), padded m)`` for a problem of ``m × k × n`` rows in ``dtype``.

    Up to 128 rows ``tm`` is all of the (padded) m, otherwise 128; m is padded
    to a tile multiple because megablox refuses any other m.  ``tk``/``tn``
    are the whole dimension up to 512, else 512 (ragged remainders are
    masked by the kernel).
    """
    sublanes = 16 if dtype == "bf16" else 8
    tm = _round_up(max(m, 1), sublanes) if m <= _MAX_TM else _MAX_TM
    m_pad = _round_up(max(m, 1), tm)
    tk = k if k <= _MAX_TKN else _MAX_TKN
    tn = n if n <= _MAX_TKN else _MAX_TKN
    return (tm, tk, tn), m_pad


def _program(spec: GmmSpec, interpret: bool, tiling: tuple[int, int, int] | None = None) -> Any:
    """The jitted program ``(lhs, rhs, group_sizes) -> out`` of ``spec``; ``tiling`` (tm, tk, tn)
    overrides ``tiling_for``'s (m is then padded to a multiple of tm)."""
    # deferred: jax (seconds to import) only when a kernel is emitted
    import jax
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.tpu.megablox.gmm import gmm, tgmm

    out_dtype = jnp.dtype(_NP_OF[spec.out_dtype])

    def clipped_groups(group_sizes: Any, m: int) -> Any:
        # ragged_dot clips groups at m; megablox would read past the rows.
        ends = jnp.minimum(jnp.cumsum(group_sizes.astype(jnp.int32)), m)
        starts = jnp.concatenate([jnp.zeros((1,), jnp.int32), ends[:-1]])
        return ends - starts

    def run(lhs: Any, rhs: Any, group_sizes: Any) -> Any:
        lhs = jnp.transpose(lhs, spec.lhs_perm)
        rhs = jnp.transpose(rhs, spec.rhs_perm)
        m, k = lhs.shape
        n = rhs.shape[-1]
        if tiling is None:
            tiles, m_pad = tiling_for(m, k, n, spec.lhs_dtype)
        else:
            tiles, m_pad = tiling, _round_up(max(m, 1), tiling[0])
        groups = clipped_groups(group_sizes, m)
        if spec.mode == "gmm":
            lhs = jnp.pad(lhs, ((0, m_pad - m), (0, 0)))
            out = gmm(lhs, rhs, groups, preferred_element_type=out_dtype, tiling=tiles, interpret=interpret)
            # megablox leaves rows past the last group unwritten (NaN in interpret mode,
            # whatever VMEM held on TPU); ragged_dot makes them zero.
            rows = jax.lax.broadcasted_iota(jnp.int32, (m, 1), 0)
            return jnp.where(rows < jnp.sum(groups), out[:m], jnp.zeros((), out_dtype))
        # Zero rows add nothing to any group's lhs^T @ rhs.
        lhs = jnp.pad(lhs, ((0, m_pad - m), (0, 0)))
        rhs = jnp.pad(rhs, ((0, m_pad - m), (0, 0)))
        return tgmm(lhs.T, rhs, groups, preferred_element_type=out_dtype, tiling=tiles, interpret=interpret)

    run.__name__ = f"hlo_passes_{spec.mode}"
    from .._jax_compat import jax_jit  # jax's own jit, also where jax.jit = hlo_passes.jit

    return jax_jit(run)


@functools.lru_cache(maxsize=64)
def kernel_text(spec: GmmSpec, *, interpret: bool, dialect: str, tiling: tuple[int, int, int] | None = None) -> str:
    """The lowered program for ``spec``: megablox for TPU (``tpu_custom_call``), or,
    with ``interpret``, Pallas interpret mode lowered for CPU (runs anywhere).

    ``dialect`` is ``"stablehlo"`` or ``"hlo"``; ``tiling`` overrides ``tiling_for``'s.
    """
    import jax  # deferred: seconds to import, only when a kernel is emitted

    args = (
        jax.ShapeDtypeStruct(spec.lhs_shape, _NP_OF[spec.lhs_dtype]),
        jax.ShapeDtypeStruct(spec.rhs_shape, _NP_OF[spec.rhs_dtype]),
        jax.ShapeDtypeStruct(spec.groups_shape, _NP_OF[spec.groups_dtype]),
    )
    program = _program(spec, interpret, tiling)
    if interpret:
        lowered = program.trace(*args).lower(lowering_platforms=("cpu",))
    else:
        lowered = program.trace(*args).lower(lowering_platforms=("tpu",))
    text: str = lowered.as_text(dialect=dialect)
    return text


def unavailable_reason() -> str | None:
    """Why megablox cannot be emitted here, or None."""
    try:
        importlib.import_module("jax.experimental.pallas.ops.tpu.megablox.gmm")
    except ImportError as e:  # pragma: no cover - depends on the installation
        return f"Pallas megablox is not importable ({e}); install jax with Pallas (jax>=0.4.31)"
    return None


def supported_dtype(element_type: str) -> bool:
    return element_type in ("f32", "bf16")


def groups_dtype_ok(element_type: str) -> bool:
    return element_type in _NP_OF and element_type.startswith(("s", "u"))


