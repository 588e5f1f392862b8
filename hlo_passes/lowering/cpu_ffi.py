"""``cpu-ffi``: ragged-dots become custom calls to hlo_passes' CPU grouped-matmul handlers.

Each canonical GMM (see ``_normalize``) is replaced by a typed-FFI custom call
(no attributes; the handlers read everything from the operand and result
types), its operands and result pinned to row-major layouts:

* HLO:       ``custom-call(lhs, rhs, gs), custom_call_target="hlo_passes_gmm",
  api_version=API_VERSION_TYPED_FFI, operand_layout_constraints={...}``
* StableHLO: ``"stablehlo.custom_call"(lhs, rhs, gs) {call_target_name =
  "hlo_passes_gmm", api_version = 4 : i32, operand_layouts = [...],
  result_layouts = [...]}``

``hlo_passes_gmm`` takes lhs ``[m, k]``, rhs ``[g, k, n]``; ``hlo_passes_tgmm``
lhs ``[m, k]``, rhs ``[m, n]``.  The handlers take f32 or bf16 operands and
results and s32 or s64 group sizes; other element types stay ragged-dots.
The call keeps the ragged-dot's metadata (HLO) or location (MLIR) and its
frontend attributes, and carries ``hlo_passes.rule="gmm-lowering"`` like
every op the lowering inserts.  The targets are registered with XLA by
``import hlo_passes.kernels`` (the graph edit itself needs neither that nor jax).
"""
from __future__ import annotations

import importlib.util

from ..ir import Instruction, Module
from ..rewrites._chains import tag_created
from . import _normalize

TARGETS: dict[str, str] = {_normalize.GMM: "hlo_passes_gmm", _normalize.TGMM: "hlo_passes_tgmm"}
FLOAT_TYPES = frozenset({"f32", "bf16"})
SIZE_TYPES = frozenset({"s32", "s64"})
# XLA's spelling of the typed FFI in each dialect.
API_VERSION = {"hlo": "API_VERSION_TYPED_FFI", "stablehlo": "4 : i32"}
KERNELS_PACKAGE = "hlo_passes.kernels"
RULE = "gmm-lowering"


def unavailable_reason() -> str | None:
    """None when the CPU kernel package is present (it builds on first import)."""
    spec = importlib.util.find_spec(KERNELS_PACKAGE)
    # A bare directory (no __init__.py yet) imports as a namespace package that registers nothing.
    if spec is None or spec.origin is None:
        return f"the CPU kernel package {KERNELS_PACKAGE} (hlo_passes/kernels/) is missing"
    return None


def refusal(instr: Instruction) -> str | None:
    """Why the handlers cannot run this canonical ragged-dot (element types), or None."""
    types = [_normalize.operand_shape(o, r).element_type for o, r in zip(instr.operands, instr.operand_results)]
    lhs, rhs, sizes = types
    out = instr.shape.element_type
    bad = [f"{what} {t}" for what, t, ok in (("lhs", lhs, FLOAT_TYPES), ("rhs", rhs, FLOAT_TYPES),
                                              ("result", out, FLOAT_TYPES), ("group sizes", sizes, SIZE_TYPES))
           if t not in ok]
    if bad:
        return f"the CPU handlers take f32/bf16 operands and results and s32/s64 group sizes, not {', '.join(bad)}"
    return None


def lower(module: Module) -> int:
    """Replace every ragged-dot the CPU handlers implement; returns how many were replaced."""
    count = 0
    for instr in [i for i in module.instructions() if i.opcode == "ragged-dot"]:
        try:
            plan = _normalize.plan(instr)
        except _normalize.NotCanonical:
            continue
        if refusal(instr) is not None:
            continue
        lower_one(instr, plan)
        count += 1
    return count


def _tag(instr: Instruction) -> None:
    tag_created(instr, RULE)


def lower_one(instr: Instruction, plan: _normalize.Plan) -> Instruction:
    """Replace ``instr`` by the custom call (and the transposes / reshapes ``plan`` needs)."""
    module = instr.module
    comp = instr.computation
    assert module is not None and comp is not None
    canonical = _normalize.canonical_operands(instr, plan, _tag)
    attrs = {"custom_call_target": TARGETS[plan.form], "api_version": API_VERSION[module.dialect]}
    call = comp.add("custom-call", canonical.out_shape, [v for v, _ in canonical.operands], attrs,
                    name_hint=TARGETS[plan.form], before=instr)
    call.operand_results = [r for _, r in canonical.operands]
    _normalize.pin_default_layouts(call)
    if "frontend_attributes" in instr.attributes:
        # MaxText's tiling hints and the like say what the GMM is for; they stay with it.
        call.attributes["frontend_attributes"] = dict(instr.attributes["frontend_attributes"])
    _normalize.carry_location(instr, call)
    _tag(call)
    _normalize.replace_with(instr, call, _tag)
    return call
