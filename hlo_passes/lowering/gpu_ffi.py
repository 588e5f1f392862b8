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
from ..rewrites._chains import tag_created
from . import _normalize

TARGETS: dict[str, str] = {_normalize.GMM: "hlo_passes_gmm_cuda", _normalize.TGMM: "hlo_passes_tgmm_cuda"}
FLOAT_TYPES = frozenset({"f32", "bf16"})
SIZE_TYPES = frozenset({"s32", "s64"})
# XLA's spelling of the typed FFI in each dialect.
API_VERSION = {"hlo": "API_VERSION_TYPED_FFI", "stablehlo": "4 : i32"}
RULE = "gmm-lowering"
# Found by path, not imported: importing the kernels package builds the CPU handlers.
CUDA_SOURCE = Path(__file__).resolve().parent.parent / "kernels" / "gpu" / "grouped_matmul.cu"


def unavailable_reason() -> str | None:
    """None when the CUDA kernel's source is present (the lowering itself needs nothing else)."""
    if not CUDA_SOURCE.is_file():
        return f"the CUDA kernel source {CUDA_SOURCE} is missing"
    return None


def refusal(instr: Instruction) -> str | None:
    """Why the handlers cannot run this canonical ragged-dot (element types), or None."""
    lhs, rhs, sizes = (_normalize.operand_shape(o, r).element_type
                       for o, r in zip(instr.operands, instr.operand_results))
    out = instr.shape.element_type
    bad = [f"{what} {t}" for what, t, ok in (("lhs", lhs, FLOAT_TYPES), ("rhs", rhs, FLOAT_TYPES),
                                              ("result", out, FLOAT_TYPES), ("group sizes", sizes, SIZE_TYPES))
           if t not in ok]
    if bad:
        return f"the CUDA handlers take f32/bf16 operands and results and s32/s64 group sizes, not {', '.join(bad)}"
    return None


def lower(module: Module) -> int:
    """Replace every ragged-dot the CUDA handlers implement; returns how many were replaced."""
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
    target = TARGETS[plan.form]
    attrs = {"custom_call_target": target, "api_version": API_VERSION[module.dialect]}
    call = comp.add("custom-call", canonical.out_shape, [v for v, _ in canonical.operands], attrs,
                    name_hint=target, before=instr)
    call.operand_results = [r for _, r in canonical.operands]
    # The kernels index row-major buffers; unpinned, XLA may pick other layouts.
    _normalize.pin_default_layouts(call)
    if "frontend_attributes" in instr.attributes:
        call.attributes["frontend_attributes"] = dict(instr.attributes["frontend_attributes"])
    _normalize.carry_location(instr, call)
    _tag(call)
    _normalize.replace_with(instr, call, _tag)
    return call
