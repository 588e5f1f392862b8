"""``gpu-ffi``: ragged-dots become custom calls to hlo_passes' CUDA grouped-matmul handlers.

Each canonical GMM (see ``_normalize``) is replaced by a typed-FFI custom call
with no attributes (the handlers read the sizes from the operand and result
types):

* HLO:       ``custom-call(lhs, rhs, gs), custom_call_target="hlo_passes_gmm_cuda",
  api_version=API_VERSION_TYPED_FFI, operand_layout_constraints={...}``
* StableHLO: ``"stablehlo.custom_call"(lhs, rhs, gs) {call_target_name =
  "hlo_passes_gmm_cuda", api_version = 4 : i32, operand_layouts = [...],
  result_layouts = [...]}``

with operands and result pinned to row-major layouts, as the kernels read
and write them.

``hlo_passes_gmm_cuda`` takes lhs ``[m, k]``, rhs ``[g, k, n]``;
``hlo_passes_tgmm_cuda`` lhs ``[m, k]``, rhs ``[m, n]`` (the same contract as
the CPU handlers).  f32 or bf16 operands and results, s32 or s64 group sizes;
other element types stay ragged-dots, with the reason reported.  The call
keeps the ragged-dot's metadata (HLO) or location (MLIR) and frontend
attributes and carries ``hlo_passes.rule="gmm-lowering"``.

This is a graph edit only: it needs neither jax nor a GPU, so a module can be
lowered here and run elsewhere.  Running it needs the targets registered with
XLA:GPU, which ``hlo_passes.kernels.gpu.register()`` does (building the
kernel with nvcc on first use).
"""
from __future__ import annotations

from pathlib import Path

from ..ir import Instruction, Module
from ..ir.rewriter import Rewriter
from . import _ffi_calls, _normalize

TARGETS: dict[str, str] = {_normalize.GMM: "hlo_passes_gmm_cuda", _normalize.TGMM: "hlo_passes_tgmm_cuda"}
# Found by path, not imported: importing the kernels package builds the CPU handlers.
CUDA_SOURCE = Path(__file__).resolve().parent.parent / "kernels" / "gpu" / "grouped_matmul.cu"


def unavailable_reason() -> str | None:
    """None when the CUDA kernel's source is present (the lowering itself needs nothing else)."""
    if not CUDA_SOURCE.is_file():
        return f"the CUDA kernel source {CUDA_SOURCE} is missing"
    return None


def refusal(instr: Instruction) -> str | None:
    """Why the CUDA handlers cannot run this canonical ragged-dot (element types), or None."""
    return _ffi_calls.refusal(instr, "CUDA")


def lower(rw: Rewriter, module: Module) -> int:
    """Replace every ragged-dot the CUDA handlers implement, through ``rw`` (the lowering
    stage's); returns how many were replaced."""
    return _ffi_calls.lower(rw, module, TARGETS, "CUDA")


def lower_one(rw: Rewriter, instr: Instruction, plan: _normalize.Plan) -> Instruction:
    """Replace ``instr`` by the custom call (and the transposes / reshapes ``plan`` needs)."""
    return _ffi_calls.lower_one(rw, instr, plan, TARGETS)
