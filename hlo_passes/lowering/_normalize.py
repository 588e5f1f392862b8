"""Bring a ``ragged-dot`` into one of the two canonical grouped-matmul forms.

Kernels implement two shapes of grouped matmul (the contract of issue 7):

* ``gmm``:  lhs ``[m, k]``, rhs ``[g, k, n]``, group sizes ``[g]`` → ``[m, n]``
  (the ragged dimension of lhs is a row dimension: each group of rows meets
  its own ``rhs[i]``);
* ``tgmm``: lhs ``[m, k]``, rhs ``[m, n]``, group sizes ``[g]`` → ``[g, k, n]``
  (the ragged dimension is contracted: ``out[i] = lhs[rows_i]^T @ rhs[rows_i]``,
  the weight gradient).

A ``ragged-dot`` (HLO) or ``chlo.ragged_dot`` (StableHLO) may number its
dimensions any way: jax's own gradient contracts rhs on dimension 2, a
lowering may put the ragged rows last, several contracting or free
dimensions may stand for one.  ``plan`` works out the transposes (and
reshapes, where several dimensions make one) that give a kernel canonical
operands, and ``canonical_operands`` / ``replace_with`` insert them, so a
backend only ever builds its kernel call on canonical shapes.  What cannot
be made canonical without changing the group sizes (batch dimensions, a
ragged batch dimension, free lhs dimensions beside the ragged rows) is
reported with the reason and left to XLA.
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ir import Instruction, Module, Shape, Value
from ..ir.rewriter import Operand, Rewriter
from ..gmm import placement as _placement

GMM = "gmm"
TGMM = "tgmm"
# The value of the ``hlo_passes.rule`` frontend attribute on every op a GMM lowering adds.
RULE = "gmm-lowering"



@dataclass(frozen=True)
class Plan:
    """How to feed one ragged-dot to a canonical kernel.

    ``lhs_perm`` / ``rhs_perm`` are transpose permutations (None: already in
    order); ``lhs_dims`` / ``rhs_dims`` the canonical operand sizes (a reshape
    follows the transpose when they differ from the permuted sizes);
    ``out_dims`` the canonical result, reshaped to the ragged-dot's own result
    when the two differ.
    """

    form: str
    lhs_perm: tuple[int, ...] | None
    rhs_perm: tuple[int, ...] | None
    lhs_dims: tuple[int, ...]
    rhs_dims: tuple[int, ...]
    out_dims: tuple[int, ...]
    groups: int


class NotCanonical(Exception):
    """A ragged-dot no canonical kernel form covers; ``form`` says which kind it is."""

    def __init__(self, form: str, reason: str) -> None:
        super().__init__(reason)
        self.form = form
        self.reason = reason


def _dims(instr: Instruction, key: str) -> tuple[int, ...]:
    if key not in instr.attributes:
        return ()
    return tuple(int(d) for d in instr.attributes[key])


def plan(instr: Instruction) -> Plan:
    """The canonical form of ``instr`` (a ragged-dot), or ``NotCanonical`` saying why not."""
    if instr.opcode != "ragged-dot":
        raise ValueError(f"{instr.name} is a {instr.opcode}, not a ragged-dot")
    if len(instr.operands) != 3:
        raise NotCanonical("unsupported", f"ragged-dot with {len(instr.operands)} operands (lhs, rhs, group sizes expected)")
    if _in_fusion(instr):
        raise NotCanonical("unsupported", "inside a fused computation (optimized HLO): a kernel call cannot go there")
    lhs, rhs, sizes = (o.result_shape(r) for o, r in zip(instr.operands, instr.operand_results))
    out = instr.shape
    if not (lhs.is_array and rhs.is_array and sizes.is_array and out.is_array) or any(
            d < 0 for s in (lhs, rhs, sizes, out) for d in s.dims):
        raise NotCanonical("unsupported", "operands or result are not arrays of static size")
    lc, rc = _dims(instr, "lhs_contracting_dims"), _dims(instr, "rhs_contracting_dims")
    lb, rb = _dims(instr, "lhs_batch_dims"), _dims(instr, "rhs_batch_dims")
    ragged, group = _dims(instr, "lhs_ragged_dims"), _dims(instr, "rhs_group_dims")
    if len(ragged) != 1:
        raise NotCanonical("unsupported", f"lhs_ragged_dims={list(ragged)}: exactly one ragged dimension expected")
    r = ragged[0]
    if r in lb:
        raise NotCanonical("batched", "the ragged dimension is a batch dimension (ragged batch): left to XLA")
    if lb or rb:
        raise NotCanonical("batched", f"batch dimensions lhs {list(lb)} / rhs {list(rb)}: left to XLA")
    if sizes.rank != 1:
        raise NotCanonical("unsupported", f"group sizes of rank {sizes.rank} (one size per group expected)")
    g = sizes.dims[0]
    if len(lc) != len(rc):
        raise NotCanonical("unsupported", "lhs and rhs name different numbers of contracting dimensions")
    lhs_free = [d for d in range(lhs.rank) if d not in lc and d != r]
    if r in lc:
        return _plan_tgmm(lhs, rhs, out, lc, rc, lhs_free, group, r, g)
    return _plan_gmm(lhs, rhs, out, lc, rc, lhs_free, group, r, g)


# Module -> (number of computations when computed, names of fused computations): one
# scan per module rather than one per ragged-dot (a new fusion brings a new computation).
_FUSED: "weakref.WeakKeyDictionary[Any, tuple[int, frozenset[str]]]" = weakref.WeakKeyDictionary()


def _in_fusion(instr: Instruction) -> bool:
    comp, module = instr.computation, instr.module
    if comp is None or module is None or module.dialect != "hlo":
        return False  # StableHLO has no fusions
    size = len(module.computations)
    cached = _FUSED.get(module)
    if cached is None or cached[0] != size:
        names = frozenset(c.name for i in module.instructions() if i.opcode == "fusion" for c in i.called_computations)
        cached = _FUSED[module] = (size, names)
    return comp.name in cached[1]


def _plan_gmm(lhs: Shape, rhs: Shape, out: Shape, lc: tuple[int, ...], rc: tuple[int, ...], lhs_free: list[int],
              group: tuple[int, ...], r: int, g: int) -> Plan:
    if len(group) != 1:
        raise NotCanonical("unsupported", f"rhs_group_dims={list(group)}: one group dimension expected")
    if lhs_free:
        # Folding them into the rows would need every group size scaled.
        raise NotCanonical("unsupported", f"lhs dimensions {lhs_free} are neither ragged nor contracting")
    gd = group[0]
    if rhs.dims[gd] != g:
        raise NotCanonical("unsupported", f"rhs has {rhs.dims[gd]} groups, group sizes {g}")
    rhs_free = [d for d in range(rhs.rank) if d not in rc and d != gd]
    m = lhs.dims[r]
    k = math.prod(lhs.dims[d] for d in lc)
    n = math.prod(rhs.dims[d] for d in rhs_free)
    want_out = (m, *(rhs.dims[d] for d in rhs_free))
    if tuple(out.dims) != want_out:
        raise NotCanonical("unsupported", f"result {list(out.dims)} is not [rows, rhs free dims] = {list(want_out)}")
    return Plan(
        form=GMM,
        lhs_perm=_perm((r, *lc)),
        rhs_perm=_perm((gd, *rc, *rhs_free)),
        lhs_dims=(m, k),
        rhs_dims=(g, k, n),
        out_dims=(m, n),
        groups=g,
    )


def _plan_tgmm(lhs: Shape, rhs: Shape, out: Shape, lc: tuple[int, ...], rc: tuple[int, ...], lhs_free: list[int],
               group: tuple[int, ...], r: int, g: int) -> Plan:
    if group:
        raise NotCanonical("unsupported", "a ragged contracting dimension with rhs group dimensions")
    if len(lc) != 1:
        # Rows of a group would mix with the other contracted dimensions.
        raise NotCanonical("unsupported", f"the ragged dimension is contracted together with {len(lc) - 1} more")
    c = rc[0]
    rhs_free = [d for d in range(rhs.rank) if d != c]
    m = lhs.dims[r]
    k = math.prod(lhs.dims[d] for d in lhs_free)
    n = math.prod(rhs.dims[d] for d in rhs_free)
    want_out = (g, *(lhs.dims[d] for d in lhs_free), *(rhs.dims[d] for d in rhs_free))
    if tuple(out.dims) != want_out:
        raise NotCanonical("unsupported", f"result {list(out.dims)} is not [groups, lhs free, rhs free] = {list(want_out)}")
    return Plan(
        form=TGMM,
        lhs_perm=_perm((r, *lhs_free)),
        rhs_perm=_perm((c, *rhs_free)),
        lhs_dims=(m, k),
        rhs_dims=(m, n),
        out_dims=(g, k, n),
        groups=g,
    )


def _perm(order: tuple[int, ...]) -> tuple[int, ...] | None:
    return None if order == tuple(range(len(order))) else tuple(order)


@dataclass
class Canonical:
    """Canonical operands built in front of a ragged-dot, and what was inserted for them.

    ``operands`` are values: lhs, rhs, group sizes (an MLIR operand may be one result of a
    multi-result op).
    """

    operands: list[Value]
    out_shape: Shape
    inserted: list[Instruction]


def canonical_operands(rw: Rewriter, instr: Instruction, p: Plan) -> Canonical:
    """Insert the transposes / reshapes of ``p`` before ``instr``."""
    inserted: list[Instruction] = []
    ops = instr.operand_values
    lhs = _arrange(rw, instr, ops[0], p.lhs_perm, p.lhs_dims, inserted)
    rhs = _arrange(rw, instr, ops[1], p.rhs_perm, p.rhs_dims, inserted)
    out_shape = Shape.array(instr.shape.element_type, p.out_dims)
    return Canonical([lhs, rhs, ops[2]], out_shape, inserted)


def _arrange(rw: Rewriter, before: Instruction, value: Value, perm: tuple[int, ...] | None,
             dims: tuple[int, ...], inserted: list[Instruction]) -> Value:
    shape = value.shape
    if perm is not None:
        shape = Shape.array(shape.element_type, [shape.dims[d] for d in perm])
        transposed = rw.create("transpose", shape, [value], {"dimensions": perm}, before=before,
                               name_hint="transpose", like=before)
        inserted.append(transposed)
        value = Value(transposed)
    if tuple(shape.dims) != tuple(dims):
        reshaped = _reshape(rw, before, Shape.array(shape.element_type, dims), value)
        inserted.append(reshaped)
        value = Value(reshaped)
    return value


def _reshape(rw: Rewriter, before: Instruction, shape: Shape, value: Operand) -> Instruction:
    return rw.create("reshape", shape, [value], None, before=before, name_hint="reshape", like=before)


def replace_with(rw: Rewriter, instr: Instruction, call: Instruction) -> list[Instruction]:
    """Make ``call`` (the canonical result) stand for ``instr`` and remove ``instr``.

    Returns the ops inserted on the way (a reshape back to the ragged-dot's
    result dimensions, when the canonical result folds several into one).
    """
    inserted: list[Instruction] = []
    value = call
    if tuple(call.shape.dims) != tuple(instr.shape.dims):
        value = _reshape(rw, instr, Shape.array(instr.shape.element_type, instr.shape.dims), call)
        inserted.append(value)
    rw.replace_all_uses(instr, value)
    rw.erase(instr)
    return inserted


def lowerable(module: Module, refusal: Callable[[Instruction], str | None]) -> list[tuple[Instruction, Plan]]:
    """The ragged-dots of ``module`` in a canonical form whose ``refusal`` is None, with their plans.

    A list made before any edit, so a backend can replace them one by one.  A ragged-dot
    whose operands may be split across devices is never among them (``_placement``): the
    partitioner would gather them for a kernel call.
    """
    _placement.forget(module)
    found = []
    for instr in [i for i in module.instructions() if i.opcode == "ragged-dot"]:
        try:
            p = plan(instr)
        except NotCanonical:
            continue
        if _placement.refusal(instr) is None and refusal(instr) is None:
            found.append((instr, p))
    return found
