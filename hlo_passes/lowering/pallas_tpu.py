"""``--kernel pallas``: each grouped matmul becomes Pallas megablox, lowered for its shape.

A ragged-dot (``ragged-dot`` / ``chlo.ragged_dot``) in one of the two GMM
forms — ragged rows (``[m, k] x [g, k, n] -> [m, n]``, megablox ``gmm``) or
ragged contracting rows (``[m, k] x [m, n] -> [g, k, n]``, ``tgmm``), each
with its dimensions in any order — is replaced by a call of the kernel
lowered with jax for exactly that shape and dtype:

* for TPU (default): the program holds the ``tpu_custom_call`` with the
  Mosaic body; the module then runs on TPU only;
* ``interpret=True``: the same Pallas program in interpret mode lowered for
  CPU (while loops and dynamic slices), which runs anywhere and is what the
  numerics are checked with.

Splicing (``gmm.kernel_calls``, shared with the rewrites): the kernel's lowered module is parsed in the target's dialect and
its functions are moved into the target (HLO: computations under fresh
names, ahead of the caller's computation; StableHLO: ``func.func``s whose
symbols get a unique prefix, printed from the kernel's own text), and the
ragged-dot is replaced by a ``call`` / ``func.call`` of the kernel's entry.

The rest of the module stays graph-only: jax is imported (through
``_megablox``) only when a kernel is emitted.

Fixed-shape kernels: a megablox ``gmm`` already in the input (``call @gmm``
around a ``tpu_custom_call``) is built for one shape.  ``reemit_refusal`` says
whether one can be emitted again for another shape, ``reemit_gmm`` does it
(moe-gather-fusion's two-GMM form over megablox kernels), and
``to_interpret`` swaps every such TPU kernel (and the fused expert FFN's TPU kernel that
the expert-FFN fusion rule splices, ``gmm.ffn_kernel``) for its interpret-mode twin so that a TPU module
runs on CPU.
"""
from __future__ import annotations

from ..gmm.ffn_kernel import splice_ffn, spliced_ffn_spec
from ..gmm.kernel_calls import drop_unused, megablox_callee, megablox_spec, splice_kernel, unavailable_reason
from ..gmm import tpu_tiling
from ..gmm.megablox import GmmSpec, groups_dtype_ok, supported_dtype
from ..ir import Instruction, Module
from ..ir.rewriter import Rewriter
from ..pass_interface import Changes, PassContext, Stage
from ..pipeline_driver import Pipeline
from . import _normalize

# ---- lowering ----------------------------------------------------------------


def refusal(rd: Instruction) -> str | None:
    """Why megablox cannot run this canonical ragged-dot (element types), or None."""
    types = [o.result_shape(r).element_type for o, r in zip(rd.operands, rd.operand_results)]
    bad = [f"{what} {t}" for what, t in zip(("lhs", "rhs"), types[:2]) if not supported_dtype(t)]
    if not supported_dtype(rd.shape.element_type):
        bad.append(f"result {rd.shape.element_type}")
    if not groups_dtype_ok(types[2]):
        bad.append(f"group sizes {types[2]}")
    if bad:
        return f"megablox takes f32/bf16 operands and results and integer group sizes, not {', '.join(bad)}"
    return None


def lower(rw: Rewriter, module: Module, *, interpret: bool = False) -> int:
    """Replace every ragged-dot in a canonical GMM form by a megablox kernel; returns how many.

    Ragged-dots the normalizer cannot make canonical (batch dimensions) or of
    other element types stay as they are.  ``interpret`` emits the
    CPU-runnable interpret-mode kernel instead of the TPU one.  Through ``rw`` (the lowering
    stage's).
    """
    reason = unavailable_reason()
    if reason is not None:
        raise RuntimeError(f"the pallas kernel is unavailable: {reason}")
    found = _normalize.lowerable(module, refusal)
    for rd, plan in found:
        lower_one(rw, rd, plan, interpret=interpret)
    return len(found)


def plan_spec(rd: Instruction, plan: "_normalize.Plan") -> GmmSpec:
    """The canonical problem the kernel solves for ``rd`` fed as ``plan`` says."""
    types = [o.result_shape(r).element_type for o, r in zip(rd.operands, rd.operand_results)]
    groups = rd.operands[2].result_shape(rd.operand_results[2]).dims
    return GmmSpec(plan.form, plan.lhs_dims, types[0], plan.rhs_dims, types[1], groups, types[2],
                   rd.shape.element_type, (0, 1), tuple(range(len(plan.rhs_dims))))


def default_refusal(rd: Instruction) -> str | None:
    """Why TPU's default keeps XLA's ragged-dot for ``rd`` (``tpu_tiling.choice``), or None
    where megablox at a searched tiling measured faster (and Pallas is available here)."""
    why = refusal(rd)
    if why is not None:
        return why
    try:
        plan = _normalize.plan(rd)
    except _normalize.NotCanonical as err:
        return err.reason
    chosen = tpu_tiling.choice(plan_spec(rd, plan))
    if chosen.kernel != "megablox":
        return chosen.why
    missing = unavailable_reason()
    return None if missing is None else f"{chosen.why}, but Pallas is unavailable here ({missing})"


def lower_default(rw: Rewriter, module: Module) -> int:
    """TPU's default (``--kernel auto --platform tpu``): megablox, at its searched tiling, for
    each ragged-dot the tile table says it beats XLA's ragged-dot on; the others stay.
    Returns how many were replaced.  jax is imported only where the table picks megablox."""
    found = _normalize.lowerable(module, default_refusal)
    for rd, plan in found:
        lower_one(rw, rd, plan)
    return len(found)


def lower_one(rw: Rewriter, rd: Instruction, plan: "_normalize.Plan", *, interpret: bool = False) -> Instruction:
    """Replace one ragged-dot by the call of its kernel (after the transposes / reshapes
    ``plan`` needs); returns the call.  For TPU the kernel takes the tile table's tiling
    where it holds one (``tpu_tiling.tiling``), else ``megablox.tiling_for``'s."""
    if rd.module is None or rd.module is not rw.module:
        raise ValueError(f"{rd.ref} is in no module, or not in the rewriter's")
    with rw.batch():
        canonical = _normalize.canonical_operands(rw, rd, plan)
        lhs_s, rhs_s, groups_s = (v.shape for v in canonical.operands)
        spec = GmmSpec(plan.form, lhs_s.dims, lhs_s.element_type, rhs_s.dims, rhs_s.element_type, groups_s.dims,
                       groups_s.element_type, rd.shape.element_type, (0, 1), tuple(range(rhs_s.rank)))
        tiling = None if interpret else tpu_tiling.tiling(spec)
        call = splice_kernel(rw, spec, canonical.operands, before=rd, interpret=interpret, tiling=tiling)
        if "frontend_attributes" in rd.attributes:
            # MaxText's tiling hints and the like say what the GMM is for; they stay with it.
            rw.set_attribute(call, "frontend_attributes", dict(rd.attributes["frontend_attributes"]))
        rw.carry_location(rd, call)
        _normalize.replace_with(rw, rd, call)
    return call


def to_interpret(module: Module) -> int:
    """Replace every megablox TPU kernel call, and every fused-FFN TPU kernel call spliced
    here, by the interpret-mode kernel of the same problem, so that the module runs on CPU
    (in place: the ``ToInterpret`` stage, through a pipeline); returns how many."""
    stage = ToInterpret()
    Pipeline([stage], strict=True).run(module, copy=False)
    return stage.count


class ToInterpret(Stage):
    """``to_interpret`` as a pipeline stage: the same program, run another way (its new ops carry
    no rule's tag); one round does all of it."""

    name = "pallas-to-interpret"
    repeats = False

    def __init__(self) -> None:
        self.count = 0

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        self.count = _to_interpret(rewriter, module)
        return Changes(changed=self.count > 0)


def _to_interpret(rw: Rewriter, module: Module) -> int:
    count = 0
    found = [(i, spliced_ffn_spec(i)) for i in module.instructions()]
    for call, ffn in [(i, f) for i, f in found if f is not None or megablox_callee(i) is not None]:
        if ffn is not None:
            new = splice_ffn(rw, ffn, call.operand_values, before=call, interpret=True)
        else:
            spec = megablox_spec(call)
            if isinstance(spec, str):
                raise ValueError(f"cannot run on CPU: {spec}")
            new = splice_kernel(rw, spec, call.operand_values, before=call, interpret=True)
        callee = call.called_computations[0]
        rw.replace_all_uses(call, new)
        rw.erase(call)
        if ffn is not None:
            drop_unused(rw, [callee])
        count += 1
    return count
