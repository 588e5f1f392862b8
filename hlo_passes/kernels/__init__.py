"""Native grouped-matmul (GMM) kernels registered with XLA as typed-FFI targets.

Importing this module builds ``cpu/grouped_matmul.cc`` (once per machine; see
``_build``) and registers for platform ``"cpu"``:

* ``hlo_passes_gmm`` (``CPU_GMM_TARGET``): ``lhs[m,k], rhs[g,k,n],
  group_sizes[g] -> out[m,n]``; rows of group i follow those of groups
  0..i-1, rows past ``sum(group_sizes)`` are zero, groups are clipped at m.
* ``hlo_passes_tgmm`` (``CPU_TGMM_TARGET``): ``lhs[m,k], rhs[m,n],
  group_sizes[g] -> out[g,k,n]`` with ``out[i] = lhs[rows_i]^T @ rhs[rows_i]``
  (zeros for an empty group).

* ``hlo_passes_moe_ffn_silu`` / ``hlo_passes_moe_ffn_silu_up_first`` /
  ``hlo_passes_moe_ffn_silu_pair`` (``CPU_MOE_FFN_TARGETS``): the whole expert
  FFN ``gmm(silu(gate) * up, w_out)`` (``moe_ffn``; the call the fused-FFN rule emits).

lhs and rhs are f32 or bf16 (independently), group_sizes s32 or s64, the
output f32 or bf16; products accumulate in f32. The kernels use
one thread per hardware thread (``std::thread::hardware_concurrency``) unless ``$HLO_PASSES_GMM_THREADS`` says
otherwise (read on every call).

A missing compiler or missing FFI headers raise
``hlo_passes.errors.KernelBuildError`` from the import.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from hlo_passes.errors import KernelBuildError

from ._build import build_library

__all__ = [
    "CPU_GMM_TARGET",
    "CPU_MOE_FFN_TARGETS",
    "CPU_TGMM_TARGET",
    "KernelBuildError",
    "gmm",
    "library_path",
    "moe_ffn",
    "tgmm",
]

CPU_GMM_TARGET = "hlo_passes_gmm"
CPU_TGMM_TARGET = "hlo_passes_tgmm"
# The fused expert FFN by form: the gate half first, the up half first, two weights.
CPU_MOE_FFN_TARGETS = {"gate_first": "hlo_passes_moe_ffn_silu", "up_first": "hlo_passes_moe_ffn_silu_up_first",
                       "pair": "hlo_passes_moe_ffn_silu_pair"}
_FFN_SYMBOLS = {"gate_first": "HloPassesMoeFfnSilu", "up_first": "HloPassesMoeFfnSiluUpFirst",
                "pair": "HloPassesMoeFfnSiluPair"}

SOURCE = Path(__file__).resolve().parent / "cpu" / "grouped_matmul.cc"

_FLOATS = (np.dtype(jnp.float32), np.dtype(jnp.bfloat16))
_INTS = (np.dtype(np.int32), np.dtype(np.int64))


def _load_and_register() -> tuple[Path, ctypes.CDLL]:
    built = build_library(SOURCE, what="the CPU grouped-matmul kernel")
    try:
        lib = ctypes.CDLL(str(built.path))
    except OSError as err:
        raise KernelBuildError(f"built kernel library {built.path} cannot be loaded: {err}") from err
    for name, symbol in ((CPU_GMM_TARGET, "HloPassesGmm"), (CPU_TGMM_TARGET, "HloPassesTgmm"),
                         *((CPU_MOE_FFN_TARGETS[form], sym) for form, sym in _FFN_SYMBOLS.items())):
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(getattr(lib, symbol)), platform="cpu")
    return built.path, lib


# The CDLL stays referenced for the life of the process: XLA keeps raw
# pointers to its handlers.
library_path, _library = _load_and_register()


def _out_dtype(lhs: jax.Array, rhs: jax.Array, preferred_element_type) -> np.dtype:
    dtype = np.dtype(jnp.result_type(lhs.dtype, rhs.dtype) if preferred_element_type is None
                     else preferred_element_type)
    if dtype not in _FLOATS:
        raise ValueError(f"output dtype must be float32 or bfloat16, got {dtype}")
    return dtype


def _check_operands(op: str, lhs: jax.Array, rhs: jax.Array, group_sizes: jax.Array) -> None:
    for name, x in (("lhs", lhs), ("rhs", rhs)):
        if np.dtype(x.dtype) not in _FLOATS:
            raise ValueError(f"{op}: {name} must be float32 or bfloat16, got {x.dtype}")
    if np.dtype(group_sizes.dtype) not in _INTS or group_sizes.ndim != 1:
        raise ValueError(
            f"{op}: group_sizes must be a rank-1 int32 or int64 array, got {group_sizes.dtype}"
            f"{list(group_sizes.shape)}"
        )
    if lhs.ndim != 2:
        raise ValueError(f"{op}: lhs must be rank 2 [m,k], got shape {tuple(lhs.shape)}")


def gmm(lhs, rhs, group_sizes, preferred_element_type=None) -> jax.Array:
    """``lhs[m,k] @ rhs[g,k,n]`` per row group -> ``[m,n]`` (like ``jax.lax.ragged_dot``) on CPU."""
    lhs, rhs, group_sizes = jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(group_sizes)
    _check_operands("gmm", lhs, rhs, group_sizes)
    if rhs.ndim != 3 or rhs.shape[0] != group_sizes.shape[0] or rhs.shape[1] != lhs.shape[1]:
        raise ValueError(
            f"gmm: expected lhs[m,k], rhs[g,k,n], group_sizes[g]; got {tuple(lhs.shape)}, "
            f"{tuple(rhs.shape)}, {tuple(group_sizes.shape)}"
        )
    out = jax.ShapeDtypeStruct((lhs.shape[0], rhs.shape[2]), _out_dtype(lhs, rhs, preferred_element_type))
    return jax.ffi.ffi_call(CPU_GMM_TARGET, out)(lhs, rhs, group_sizes)


def tgmm(lhs, rhs, group_sizes, preferred_element_type=None) -> jax.Array:
    """``out[i] = lhs[rows_i]^T @ rhs[rows_i]`` -> ``[g,k,n]`` (ragged_dot's rhs gradient) on CPU."""
    lhs, rhs, group_sizes = jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(group_sizes)
    _check_operands("tgmm", lhs, rhs, group_sizes)
    if rhs.ndim != 2 or rhs.shape[0] != lhs.shape[0]:
        raise ValueError(
            f"tgmm: expected lhs[m,k], rhs[m,n], group_sizes[g]; got {tuple(lhs.shape)}, "
            f"{tuple(rhs.shape)}, {tuple(group_sizes.shape)}"
        )
    out = jax.ShapeDtypeStruct(
        (group_sizes.shape[0], lhs.shape[1], rhs.shape[1]), _out_dtype(lhs, rhs, preferred_element_type)
    )
    return jax.ffi.ffi_call(CPU_TGMM_TARGET, out)(lhs, rhs, group_sizes)


def moe_ffn(x, w_in, w_out, group_sizes, *, w_up=None, up_first: bool = False) -> jax.Array:
    """The expert FFN ``gmm(silu(gate) * up, w_out)`` in one kernel on CPU (the call the fused-FFN rule emits).

    ``w_in[g,d,2f]`` holds gate then up (``up_first``: up then gate); with ``w_up`` given,
    ``w_in`` is the gate weight ``[g,d,f]`` alone.  The result (and every intermediate, rounded
    op by op as XLA computes the unfused program) has ``x``'s element type.
    """
    x, w_in, w_out, group_sizes = (jnp.asarray(a) for a in (x, w_in, w_out, group_sizes))
    _check_operands("moe_ffn", x, w_in, group_sizes)
    form = "pair" if w_up is not None else ("up_first" if up_first else "gate_first")
    f = w_out.shape[1] if w_out.ndim == 3 else -1
    want_in = (group_sizes.shape[0], x.shape[1], f if w_up is not None else 2 * f)
    if w_out.ndim != 3 or tuple(w_in.shape) != want_in or (
            w_up is not None and tuple(jnp.shape(w_up)) != want_in):
        raise ValueError(f"moe_ffn: expected x[m,d], w_in{list(want_in)}, w_out[g,f,n], group_sizes[g]; got "
                         f"{tuple(x.shape)}, {tuple(w_in.shape)}, {tuple(w_out.shape)}, {tuple(group_sizes.shape)}")
    out = jax.ShapeDtypeStruct((x.shape[0], w_out.shape[2]), _out_dtype(x, x, None))
    weights = (w_in,) if w_up is None else (w_in, jnp.asarray(w_up))
    return jax.ffi.ffi_call(CPU_MOE_FFN_TARGETS[form], out)(x, *weights, w_out, group_sizes)
