"""What the engine needs to know of grouped matmuls (GMMs): where a weight's
dimension lands in the result, whether two GMMs differ only in their weight.

Two GMMs are ``ragged-dot`` / ``dot`` ops, the same in the custom fusion XLA:CPU runs each dot
in (jax >= 0.12.1's ``__ynn_fusion``: ``ir.analysis.as_dot`` reads one as its dot), or calls of a
grouped-matmul kernel (``hlo_passes.gmm.kernel_calls``: Pallas megablox, the CPU and CUDA kernels).
"""
from __future__ import annotations

from ...checks import Refusal
from ...gmm import kernel_calls
from ...gmm.kernel_calls import gmm_kernel
from ...ir import Instruction
from ...ir.analysis import DOT_OPCODES, as_dot, behaviour, free_dim_position, same_op, same_value, ynn_dot
from .chains import dim_size

# The opcodes a GMM's op may have (what the finders visit): a dot, or the custom fusion that runs
# one (``as_dot``).
GMM_OP_OPCODES = DOT_OPCODES | {"fusion"}


def is_gmm_op(instr: Instruction) -> bool:
    """A ``dot`` / ``ragged-dot``, possibly in its custom fusion (``as_dot``)."""
    return as_dot(instr) is not None


def fused_dots(gmms: list[Instruction]) -> list[Instruction]:
    """The GMMs of ``gmms`` that run in a custom fusion of their own (XLA:CPU's YNNPACK dots)."""
    return [g for g in gmms if g.opcode == "fusion" and is_gmm_op(g)]


def unfused_dots_refusal(gmms: list[Instruction]) -> str | None:
    """Why GMMs that XLA:CPU runs through YNNPACK (``__ynn_fusion``: 2-D dots on jax 0.10.2, batched
    ones too on 0.12.1) are not run as
    one GMM on the joined operand (None: none of ``gmms`` is such a fusion).  YNNPACK picks its
    kernel, and with it the order it sums the contracted dimension in, by the dot's shape:
    measured on jax 0.12.1's XLA:CPU (and 0.10.2's for 2-D dots), ``dot(a, concat(b0, b1))`` is not
    bit-equal to ``concat(dot(a, b0), dot(a, b1))`` for output widths 8 to 48 and 96 joined (up to 2e-5
    on values of 1), and is for widths of 64 and 128 (docs/optimized-hlo.md).  Which shapes agree is
    YNNPACK's choice, not stated in the module: the merge is not provably exact."""
    fused = fused_dots(gmms)
    if not fused:
        return None
    library = "YNNPACK" if ynn_dot(fused[0]) else "a library"
    return (f"{fused[0].ref} is a dot XLA:CPU runs through {library} (a custom fusion), whose rounding "
            "depends on the dot's shape: one GMM on the joined operand is not bit-equal to the halves' GMMs")


def difference(a: Instruction, b: Instruction) -> str:
    ba, bb = behaviour(a), behaviour(b)
    if (ba.opcode, ba.element_type) != (bb.opcode, bb.element_type):
        return f"opcode or element type ({ba.opcode} {ba.element_type} vs {bb.opcode} {bb.element_type})"
    if ba.has_channel != bb.has_channel:
        return "channel kind (one has channel_id, the other not)"
    da, db = dict(ba.attributes), dict(bb.attributes)
    keys = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    return ", ".join(f"{k} ({da.get(k)} vs {db.get(k)})" for k in keys) or "attributes"


def check_gmms(gmms: list[Instruction], w_dim: int) -> int:
    """The GMMs differ only in their weight: same lhs, group sizes and dimension numbers."""
    first = gmms[0]
    for g in gmms[1:]:
        if not same_value(g.operands[0], first.operands[0]):
            raise Refusal("same-lhs", f"{g.ref} and {first.ref} do not provably share their "
                          "left-hand side", g)
        if len(g.operands) != len(first.operands) or not all(
            same_value(a, b) for a, b in zip(g.operands[2:], first.operands[2:])
        ):
            raise Refusal("same-group-sizes", f"{g.ref} and {first.ref} use different group sizes", g)
        if not same_gmm(g, first):
            raise Refusal("same-gmm", f"{g.ref} and {first.ref} differ in {difference(first, g)}", g)
        if g.computation is not first.computation:
            raise Refusal("same-computation", f"{g.ref} is in another computation than {first.ref}", g)
    if gmm_kernel(first) is not None:
        out_dim = kernel_calls.kernel_output_dim(first, w_dim)
    else:
        out_dim = gmm_output_dim(first, w_dim)
    if out_dim is None:
        raise Refusal("gmm-contracts-split", f"{first.ref} contracts or groups over the split "
                      "dimension of its weight; the halves cannot be separated after it", first)
    for g in gmms:
        dim_size(g.shape, out_dim, g)  # the halves' results are cut (and joined) along it
    return out_dim


def same_gmm(a: Instruction, b: Instruction) -> bool:
    """The same grouped matmul up to its weight.  Two megablox kernel calls are when they
    solve the same problem (kind, dtypes, lhs and group sizes): their functions differ
    only in names and, possibly, tiling, which changes no result."""
    if gmm_kernel(a) is not None and gmm_kernel(b) is not None:
        sa, sb = kernel_calls.megablox_spec(a), kernel_calls.megablox_spec(b)
        if not isinstance(sa, str) and not isinstance(sb, str):
            return (sa.mode, sa.lhs_shape, sa.lhs_dtype, sa.rhs_dtype, sa.groups_shape, sa.groups_dtype,
                    sa.out_dtype) == (sb.mode, sb.lhs_shape, sb.lhs_dtype, sb.rhs_dtype, sb.groups_shape,
                                      sb.groups_dtype, sb.out_dtype)
    return same_op(a, b)


def gmm_output_dim(gmm: Instruction, rhs_dim: int) -> int | None:
    """Where dimension ``rhs_dim`` of the weight appears in the GMM's result (None if consumed)."""
    dim_size(gmm.operands[1].shape, rhs_dim, gmm, f"the weight of {gmm.ref}")
    gmm = as_dot(gmm) or gmm
    a = gmm.attributes
    lhs_rank = gmm.operands[0].shape.rank
    rhs_rank = gmm.operands[1].shape.rank
    rhs_contract = tuple(a.get("rhs_contracting_dims", ()))
    rhs_batch = tuple(a.get("rhs_batch_dims", ()))
    rhs_group = tuple(a.get("rhs_group_dims", ())) if gmm.opcode == "ragged-dot" else ()
    if rhs_dim in rhs_contract or rhs_dim in rhs_batch or rhs_dim in rhs_group:
        return None
    lhs_contract = tuple(a.get("lhs_contracting_dims", ()))
    lhs_batch = tuple(a.get("lhs_batch_dims", ()))
    lhs_free = [d for d in range(lhs_rank) if d not in lhs_contract and d not in lhs_batch]
    rhs_free = [d for d in range(rhs_rank) if d not in rhs_contract and d not in rhs_batch and d not in rhs_group]
    return len(lhs_batch) + len(lhs_free) + rhs_free.index(rhs_dim)


def gmm_operand_dim(gmm: Instruction, operand: int, out_dim: int) -> int | None:
    """The free dimension of ``operand`` (0: lhs, 1: rhs) that becomes ``out_dim`` of the result."""
    if operand not in (0, 1):
        return None
    for d in range(gmm.operands[operand].shape.rank):
        if free_dim_position(gmm, operand, d) == out_dim:
            return d
    return None


def reemit_refusal(gmm: Instruction) -> str | None:
    """None if the grouped-matmul kernel ``gmm`` runs can be emitted for the fused shape
    (Pallas megablox gmm for TPU); otherwise why not."""
    if kernel_calls.megablox_callee(gmm) is None:
        return "hlo_passes emits no kernel of this kind"
    return kernel_calls.reemit_refusal(gmm)
