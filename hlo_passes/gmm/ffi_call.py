"""A typed-FFI custom call as the kernels of this package expect it, in either dialect.

The GMM lowerings (``lowering._ffi_calls``) and the fused expert-FFN rule
both emit one: no attributes (the handlers read
everything from the operand and result types), row-major operand and result
layouts pinned (XLA's layout assignment would otherwise be free to pick any,
e.g. ``{2,0,1}``, while a kernel indexes row-major buffers; jax's ``ffi_call``
pins them the same way).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..ir import Instruction, Shape
from ..ir.rewriter import Operand, Rewriter

# XLA's spelling of the typed FFI in each dialect.
API_VERSION = {"hlo": "API_VERSION_TYPED_FFI", "stablehlo": "4 : i32"}


def create_ffi_call(rw: Rewriter, target: str, shape: Shape, operands: Sequence[Operand], *,
                    before: Instruction) -> Instruction:
    """A custom call of ``target`` on ``operands`` placed before ``before``, its layouts pinned."""
    module = rw.module
    attrs = {"custom_call_target": target, "api_version": API_VERSION[module.dialect]}
    call = rw.create("custom-call", shape, operands, attrs, name_hint=target, before=before)
    pin_default_layouts(rw, call)
    return call


def pin_default_layouts(rw: Rewriter, call: Instruction) -> None:
    """Constrain a kernel custom call's operands and result to row-major layouts."""
    module = call.module
    assert module is not None
    shapes = [o.result_shape(r) for o, r in zip(call.operands, call.operand_results)]
    if module.dialect == "hlo":
        def spelled(s: Shape) -> str:
            return f"{Shape.array(s.element_type, s.dims)}{_hlo_layout(s.rank)}"

        rw.set_attribute(call, "operand_layout_constraints", "{" + ", ".join(spelled(s) for s in shapes) + "}")
        out = call.shape
        rw.set_shape(call, Shape(out.element_type, out.dims, out.dynamic, layout=_hlo_layout(out.rank)))
    else:
        rw.set_attribute(call, "operand_layouts", "[" + ", ".join(_mlir_layout(s.rank) for s in shapes) + "]")
        rw.set_attribute(call, "result_layouts", "[" + _mlir_layout(call.shape.rank) + "]")


def _hlo_layout(rank: int) -> str:
    return "{" + ",".join(str(d) for d in reversed(range(rank))) + "}"


def _mlir_layout(rank: int) -> str:
    minor_to_major = ", ".join(str(d) for d in reversed(range(rank)))
    return f"dense<[{minor_to_major}]> : tensor<{rank}xindex>" if rank else "dense<> : tensor<0xindex>"
