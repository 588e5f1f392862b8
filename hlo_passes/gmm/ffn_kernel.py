"""The fused expert FFN's Pallas kernel (``pallas_ffn``) as a call in a module.

``FfnSpec`` is one site's problem: the form (``gate_first``, ``up_first``, ``pair``) and the
shapes and element types of the call's operands ``(x, w_in[, w_up], w_out, group_sizes)``,
exactly those of the chain it replaces, so the lowered program stands for the chain one for
one.  ``tpu_refusal`` says why a problem cannot be emitted for TPU (Mosaic's block tiling, the
kernel's one compute type, int32 group offsets, an estimate of VMEM); ``splice_ffn`` adds the
kernel, lowered with jax for TPU (``tpu_custom_call``) or, with ``interpret``, in Pallas's
interpret mode for CPU (the same program, runnable here: how the numerics are checked), and
its call.  ``spliced_ffn_spec`` reads the problem back off such a call, so that
``lowering.pallas_tpu.to_interpret`` can swap a TPU kernel for its twin.  jax is imported only
when a kernel is lowered.
"""
from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ir import Instruction, Shape, Value
from ..ir.rewriter import Rewriter
from .kernel_calls import _runs_tpu_kernel, splice_program
from .megablox import _NP_OF
from .pallas_ffn import VMEM_CAP, block_sizes, moe_ffn, vmem_bytes

# The entry of a spliced fused-FFN kernel: ``hlo_passes_moe_ffn_<form><n>_main``.
SPLICED_FFN = re.compile(r"^hlo_passes_moe_ffn_(gate_first|up_first|pair)\d+_main(?:\.\d+)?$")
# Mosaic's block tiling: a block's last dimension a multiple of 128 or the whole array's.
_LANES = 128
# What the kernel's blocks may take of VMEM, double-buffered (the kernel raises Mosaic's scoped
# VMEM limit to what its blocks need, up to ``pallas_ffn.VMEM_CAP``; v5e/v6e hold 128 MiB).
VMEM_BUDGET = VMEM_CAP


@dataclass(frozen=True)
class FfnSpec:
    """One fused-FFN call: its form, its operands' shapes (``x [T, D]``, ``w_in [E, D, 2F]``
    (pair: ``[E, D, F]``, and ``w_up`` alike), ``w_out [E, F, N]``, ``group_sizes [E]``) and
    element types (the result is ``[T, N]`` in ``dtype``)."""

    form: str
    x: tuple[int, ...]
    w_in: tuple[int, ...]
    w_out: tuple[int, ...]
    groups: tuple[int, ...]
    dtype: str  # x's and the result's: the compute type
    weight_dtype: str
    groups_dtype: str

    @property
    def mlp(self) -> int:
        return self.w_out[1]

    @property
    def tile_rows(self) -> int:
        """Tokens per grid step (``pallas_ffn.block_sizes``)."""
        return block_sizes(self.x[0], self.x[1], self.mlp, self.w_out[2], self.w_out[0], _NP_OF[self.dtype])[0]

    @property
    def out_shape(self) -> Shape:
        return Shape.array(self.dtype, (self.x[0], self.w_out[2]))

    def operand_shapes(self) -> list[tuple[tuple[int, ...], str]]:
        weights = [self.w_in, self.w_in] if self.form == "pair" else [self.w_in]
        return [(self.x, self.dtype), *((w, self.weight_dtype) for w in weights), (self.w_out, self.weight_dtype),
                (self.groups, self.groups_dtype)]


def spec_of(form: str, operands: Sequence[Value], out: Shape) -> FfnSpec:
    """The problem of a call of ``form`` on ``operands`` (``x, w_in[, w_up], w_out, gs``) giving ``out``."""
    shapes = [v.shape for v in operands]
    x, w_in, w_out, groups = shapes[0], shapes[1], shapes[-2], shapes[-1]
    return FfnSpec(form, x.dims, w_in.dims, w_out.dims, groups.dims, out.element_type, w_in.element_type,
                   groups.element_type)


def unavailable_reason() -> str | None:
    """Why the Pallas kernel cannot be lowered here (no jax), or None (jax is not imported)."""
    try:
        found = importlib.util.find_spec("jax") is not None
    except (ImportError, ValueError) as err:  # an import hook refusing jax, a broken install
        return f"jax, which lowers the Pallas kernel, cannot be imported ({err})"
    return None if found else "jax, which lowers the Pallas kernel, is not installed"


# Whether the rule emits the kernel on TPU only where it measured faster than XLA's unfused chain
# (``speed_refusal``); the tests of the splice itself, at tiny shapes, turn it off.
SPEED_GATE = True
# Where the fused kernel measured clearly faster than XLA:TPU's chain (v5e, jax 0.10.2, libtpu 0.0.42.1;
# 256x512 blocks; runs of 2026-12-05 22:38 and 2026-12-06 03:15 UTC, benchmarks/results/tpu_kernels.md):
# from ``_ROWS_PER_EXPERT`` rows per expert (T / E) at D >= ``_MIN_D`` (1.13-1.16x, E 8), and from
# ``_ROWS_LARGE`` rows per expert where D * F >= ``_LARGE_DF`` (the DeepSeek-v3 and Mixtral layers:
# 1.42-2.10x, the chain there at 42-47 % of the chip's matmul rate).  Only a clear margin counts: the
# two runs differed by up to 0.05x at 256x512 blocks (0.12x between block sizes), and issue 45 asks
# >= 1.25x where the chain runs below half the chip's rate, so the shapes that measured 1.05-1.11x
# with the chain below or near half of it (64-512 rows per expert at smaller D * F; E 64 at 256 rows:
# 1.13-1.17x, chain at 37-42 %; Qwen3-MoE at 256 rows: 1.08x) are left to XLA's chain, and so are
# those at D 1024 (0.92-1.01x).
_ROWS_PER_EXPERT, _MIN_D, _ROWS_ANY_D = 2048, 2048, 1 << 62
_ROWS_LARGE, _LARGE_DF = 512, 12 * 2**20
# The largest layer measured there (E, D, F): beyond it the kernel was never timed on the chip, so
# XLA's chain stays.
_MEASURED_E, _MEASURED_D, _MEASURED_F = 32, 7168, 14336


def speed_refusal(spec: FfnSpec) -> str | None:
    """Why the kernel would be slower than XLA:TPU's own chain for ``spec`` (as measured), or None."""
    if not SPEED_GATE:
        return None
    (t, d), e = spec.x, spec.w_out[0]
    rows = t / max(e, 1)
    if (rows >= _ROWS_ANY_D or (rows >= _ROWS_PER_EXPERT and d >= _MIN_D)
            or (rows >= _ROWS_LARGE and d * spec.mlp >= _LARGE_DF)):
        if e > _MEASURED_E or d > _MEASURED_D or spec.mlp > _MEASURED_F:
            return (f"E {e}, D {d}, F {spec.mlp} is beyond the layers the fused kernel was timed at on a TPU v5e "
                    f"(E <= {_MEASURED_E}, D <= {_MEASURED_D}, F <= {_MEASURED_F}: benchmarks/results/tpu_kernels.md), "
                    "so XLA's unfused chain stays")
        return None
    return (f"{rows:.0f} rows per expert (T {t}, E {e}) at D {d}: on a TPU v5e the fused kernel measured slower "
            f"than XLA's unfused chain there, or not clearly faster (under 1.25x where the chain runs below half "
            f"the chip's matmul rate, or within two runs' spread; it is clearly faster "
            f"from {_ROWS_PER_EXPERT} rows per expert at D >= {_MIN_D}, and from {_ROWS_LARGE} where "
            f"D * F >= {_LARGE_DF:,}: benchmarks/results/tpu_kernels.md), "
            "so XLA's chain stays")


def tpu_refusal(spec: FfnSpec) -> str | None:
    """Why the Pallas kernel cannot be emitted for TPU for ``spec``, or None."""
    if spec.weight_dtype != spec.dtype:
        return (f"its weights are {spec.weight_dtype} and its tokens {spec.dtype}: the Pallas kernel computes "
                "in one type")
    if spec.groups_dtype != "s32":
        return f"its group sizes are {spec.groups_dtype}: the Pallas kernel prefetches int32 group offsets"
    if spec.form != "pair" and spec.mlp % _LANES:
        return (f"F = {spec.mlp} is no multiple of {_LANES}: Mosaic cannot cut the gate and up halves of the "
                "[E, D, 2F] weight into blocks")
    (t, d), f, n, e = spec.x, spec.mlp, spec.w_out[2], spec.w_out[0]
    tm, bf = block_sizes(t, d, f, n, e, _NP_OF[spec.dtype])
    vmem = vmem_bytes(tm, d, bf, n, _NP_OF[spec.dtype])
    if vmem > VMEM_BUDGET:
        return (f"its blocks (a {tm}-token tile [{tm}, {d}], gate and up blocks [{d}, {bf}], a down block "
                f"[{bf}, {n}], the output tile and its f32 accumulator) take ~{vmem / 2**20:.0f} MiB of VMEM "
                f"double-buffered, over {VMEM_BUDGET // 2**20} MiB")
    return speed_refusal(spec)


def _program(spec: FfnSpec, interpret: bool) -> Any:
    from .._jax_compat import jax_jit  # jax's own jit, also where jax.jit = hlo_passes.jit

    tm = spec.tile_rows

    def run(x: Any, *rest: Any) -> Any:
        if spec.form == "pair":
            w_gate, w_up, w_out, gs = rest
            return moe_ffn(x, w_gate, w_out, gs, w_up=w_up, tm=tm, interpret=interpret)
        w_in, w_out, gs = rest
        return moe_ffn(x, w_in, w_out, gs, up_first=spec.form == "up_first", tm=tm, interpret=interpret)

    run.__name__ = f"hlo_passes_moe_ffn_{spec.form}"
    return jax_jit(run)


@functools.lru_cache(maxsize=32)
def kernel_text(spec: FfnSpec, *, interpret: bool, dialect: str) -> str:
    """The program ``(x, w_in[, w_up], w_out, gs) -> y`` lowered for TPU (the ``tpu_custom_call``
    of the Pallas kernel), or with ``interpret`` in interpret mode for CPU; ``dialect`` is
    ``"stablehlo"`` or ``"hlo"``."""
    import jax  # deferred: seconds to import, only when a kernel is emitted

    args = [jax.ShapeDtypeStruct(dims, _NP_OF[dtype]) for dims, dtype in spec.operand_shapes()]
    platform = "cpu" if interpret else "tpu"
    text: str = _program(spec, interpret).trace(*args).lower(lowering_platforms=(platform,)).as_text(dialect=dialect)
    return text


def splice_ffn(rw: Rewriter, spec: FfnSpec, operands: Sequence[Value], *, before: Instruction,
               interpret: bool) -> Instruction:
    """The kernel for ``spec`` added to the rewriter's module and a call of it on ``operands``,
    placed before ``before``; returns the call."""
    text = kernel_text(spec, interpret=interpret, dialect=rw.module.dialect)
    return splice_program(rw, text, f"moe_ffn_{spec.form}", spec.out_shape, operands, before=before)


def spliced_ffn_spec(call: Instruction) -> FfnSpec | None:
    """The problem of a call of a fused-FFN kernel spliced for TPU here (None: it is none)."""
    if call.opcode != "call" or not call.called_computations:
        return None
    callee = call.called_computations[0]
    m = SPLICED_FFN.match(callee.name)
    if m is None or not _runs_tpu_kernel(callee, 1):
        return None
    return spec_of(m.group(1), call.operand_values, call.shape)
