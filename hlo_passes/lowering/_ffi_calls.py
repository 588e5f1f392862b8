"""What the CPU and CUDA backends share: canonical GMMs become typed-FFI custom calls.

Both handler sets follow one contract (see ``_normalize``): no attributes, the
sizes read from the operand and result types, row-major buffers, f32 or bf16
operands and results, s32 or s64 group sizes.  Only the target names differ.
"""
from __future__ import annotations

from ..ir import Instruction, Module
from ..ir.rewriter import Rewriter
from ..gmm.ffi_call import API_VERSION, pin_default_layouts
from . import _normalize

FLOAT_TYPES = frozenset({"f32", "bf16"})
SIZE_TYPES = frozenset({"s32", "s64"})


def refusal(instr: Instruction, handlers: str) -> str | None:
    """Why ``handlers`` (e.g. ``"CPU"``) cannot run this canonical ragged-dot (element types), or None."""
    lhs, rhs, sizes = (o.result_shape(r).element_type
                       for o, r in zip(instr.operands, instr.operand_results))
    out = instr.shape.element_type
    bad = [f"{what} {t}" for what, t, ok in (("lhs", lhs, FLOAT_TYPES), ("rhs", rhs, FLOAT_TYPES),
                                              ("result", out, FLOAT_TYPES), ("group sizes", sizes, SIZE_TYPES))
           if t not in ok]
    if bad:
        return (f"the {handlers} handlers take f32/bf16 operands and results and s32/s64 group sizes, "
                f"not {', '.join(bad)}")
    return None


def lower(rw: Rewriter, module: Module, targets: dict[str, str], handlers: str) -> int:
    """Replace every ragged-dot the handlers implement by a call to ``targets[form]``, through
    ``rw``; returns how many."""
    found = _normalize.lowerable(module, lambda instr: refusal(instr, handlers))
    for instr, plan in found:
        lower_one(rw, instr, plan, targets)
    return len(found)


def lower_one(rw: Rewriter, instr: Instruction, plan: _normalize.Plan, targets: dict[str, str]) -> Instruction:
    """Replace ``instr`` by the custom call (and the transposes / reshapes ``plan`` needs), through ``rw``."""
    module = instr.module
    assert module is not None and instr.computation is not None and rw.module is module
    with rw.batch():
        canonical = _normalize.canonical_operands(rw, instr, plan)
        target = targets[plan.form]
        attrs = {"custom_call_target": target, "api_version": API_VERSION[module.dialect]}
        call = rw.create("custom-call", canonical.out_shape, canonical.operands, attrs, name_hint=target,
                         before=instr)
        # The kernels index row-major buffers; unpinned, XLA may pick other layouts
        # (XLA:CPU chose {2,0,1} for a tgmm result).
        pin_default_layouts(rw, call)
        if "frontend_attributes" in instr.attributes:
            # MaxText's tiling hints and the like say what the GMM is for; they stay with it.
            rw.set_attribute(call, "frontend_attributes", dict(instr.attributes["frontend_attributes"]))
        rw.carry_location(instr, call)
        _normalize.replace_with(rw, instr, call)
    return call
