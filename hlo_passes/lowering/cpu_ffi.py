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
from ..ir.rewriter import Rewriter
from . import _ffi_calls, _normalize

TARGETS: dict[str, str] = {_normalize.GMM: "hlo_passes_gmm", _normalize.TGMM: "hlo_passes_tgmm"}
KERNELS_PACKAGE = "hlo_passes.kernels"


def unavailable_reason() -> str | None:
    """None when the CPU kernel package is present (it builds on first import)."""
    spec = importlib.util.find_spec(KERNELS_PACKAGE)
    # A bare directory (no __init__.py yet) imports as a namespace package that registers nothing.
    if spec is None or spec.origin is None:
        return f"the CPU kernel package {KERNELS_PACKAGE} (hlo_passes/kernels/) is missing"
    return None


def refusal(instr: Instruction) -> str | None:
    """Why the CPU handlers cannot run this canonical ragged-dot (element types), or None."""
    return _ffi_calls.refusal(instr, "CPU")


def lower(rw: Rewriter, module: Module) -> int:
    """Replace every ragged-dot the CPU handlers implement, through ``rw`` (the lowering
    stage's); returns how many were replaced."""
    return _ffi_calls.lower(rw, module, TARGETS, "CPU")


def lower_one(rw: Rewriter, instr: Instruction, plan: _normalize.Plan) -> Instruction:
    """Replace ``instr`` by the custom call (and the transposes / reshapes ``plan`` needs)."""
    return _ffi_calls.lower_one(rw, instr, plan, TARGETS)
