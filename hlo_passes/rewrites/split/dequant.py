"""Dequantization on a half's way: a quantized weight's halves gathered apart, then each
multiplied by its scale (MaxText's quantized all-gather over FSDP; docs/weight-forms.md,
"Quantized weights").

A half's chain may pass a ``multiply`` one of whose operands is the chain (a ``convert`` of the
gathered int8 or fp8 ``qvalue``) and the other its *scale*.  Multiplying commutes with slicing
only if each half's scale is that half's piece of one scale split the same way, or one value
that does not vary along the split dimension:

* *sliced*: each half's scale is the same ops (gathers not along the split dimension,
  converts, broadcasts, reshapes that keep the split dimension, transposes) applied to its
  slice of one array ``S``, cut as the weight is: the fused chain multiplies by those ops
  applied once to ``S`` whole (a sharded scale is gathered once);
* *uniform*: the halves' scales are the same value, broadcast along the split dimension from
  something that does not have it (a scalar, a per-row scale): the fused chain multiplies by
  that broadcast made to the whole array's size.

Anything else is refused (``dequant-operand``), naming the multiply and its operand.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from ...checks import Refusal
from ...ir import ELEMENT_BITS, Instruction, Value
from ...ir.rewriter import Operand, Rewriter
from ...ir.analysis import is_sharding_call, resized, same_op, same_value
from .chains import GATHERS, bitcast_keeps_order
from .cost import CollectiveModel
from .sources import check_slices, cut_of
from .types import Chain

CHECK = "dequant-operand"
# Side steps that keep each element's place along every dimension but the ones they reshape.
_SIDE_UNARY = frozenset({"convert", "copy", "transpose", "reshape", "bitcast", "broadcast"})
# Not followed further: a real scale is a slice, a gather, a broadcast and a reshape or two.
_MAX_SIDE_STEPS = 16


def _quantized(instr: Instruction) -> bool:
    """A convert from a number type of at most 8 bits (int8, int4, the fp8 types: the types a
    quantized weight is stored in; both dialects spell element types as HLO does)."""
    if instr.opcode != "convert" or len(instr.operands) != 1:
        return False
    stored = instr.operands[0].shape.element_type
    return stored != "pred" and 0 < ELEMENT_BITS.get(stored, 0) <= 8


def dequant_operand(instr: Instruction) -> int | None:
    """The operand a half's chain follows through ``instr`` where ``instr`` dequantizes (a
    multiply of a converted int8 or fp8 value by a scale); None for any other op."""
    if instr.opcode != "multiply" or len(instr.operands) != 2 or instr.num_results != 1:
        return None
    for k, operand in enumerate(instr.operands):
        if _quantized(operand):
            return k
    return None


def _reshape_dim(src: tuple[int, ...], dst: tuple[int, ...], dim: int) -> int | None:
    """Where dimension ``dim`` of ``src`` lies in ``dst`` when the reshape leaves it alone:
    the same size, with as many elements before it and after it (None: it moves)."""
    before, after = math.prod(src[:dim]), math.prod(src[dim + 1:])
    for d, size in enumerate(dst):
        if size == src[dim] and math.prod(dst[:d]) == before and math.prod(dst[d + 1:]) == after:
            return d
    return None


@dataclass
class SideOperand:
    """The scale operand of the dequantizing multiply at step ``step`` of the halves' chains."""

    step: int
    main: int  # the operand the chain follows (the other is the scale)
    base: Instruction  # what the fused scale's ops start from: ``S`` whole, or what is broadcast
    base_result: int
    ops: list[Instruction]  # the first half's ops from ``base`` up to the multiply
    dims: list[int]  # the split dimension in each op's result
    sliced: bool
    halves: list[Any] = field(default_factory=list)  # list[Chain]: each half's scale as a chain (sliced)

    def fused(self, rw: Rewriter, total: int, before: Instruction) -> Operand:
        """The scale of the whole array: the side ops applied to ``base``, each grown to ``total``
        along the split dimension, placed ``before`` the halves' first multiply."""
        value: Operand = Value(self.base, self.base_result) if self.base_result else self.base
        for op, dim in zip(self.ops, self.dims):
            value = rw.clone(op, [value], resized(op.shape, dim, total), before=before)
        return value


def _refuse(mul: Instruction, side: Instruction, why: str) -> Refusal:
    return Refusal(CHECK, f"{mul.ref} dequantizes a half by {side.ref}, {why}; fusing would multiply the "
                          "whole weight by something else", mul)


class _Walk(NamedTuple):
    """A scale operand walked down from the multiply."""

    ops: list[Instruction]  # from the multiply down
    dims: list[int]  # the split dimension in each op's result
    stop: Instruction  # a slice (``sliced``), or the broadcast that makes the split dimension
    sliced: bool
    dim: int  # the split dimension in the stop's result


def _walk(mul: Instruction, main: int, dim: int) -> _Walk:
    """Down the scale operand of ``mul`` from the split dimension ``dim`` to a slice or to the
    broadcast that makes that dimension."""
    side = mul.operands[1 - main]
    ops: list[Instruction] = []
    dims: list[int] = []
    cur = side
    while True:
        if len(ops) > _MAX_SIDE_STEPS:
            raise _refuse(mul, side, f"a value more than {_MAX_SIDE_STEPS} steps from a slice or broadcast")
        if cur.computation is not mul.computation:
            raise _refuse(mul, side, f"which comes from {cur.ref} in another computation")
        if cur.opcode == "slice" and len(cur.operands) == 1:
            return _Walk(ops, dims, cur, True, dim)
        shape = cur.shape
        if not shape.is_array or dim >= shape.rank or len(cur.operands) != 1 or cur.num_results != 1 \
                or not (cur.opcode in _SIDE_UNARY or cur.opcode in GATHERS or is_sharding_call(cur)):
            raise _refuse(mul, side, f"which {cur.ref} ({cur.opcode}) makes: not a slice of an array split "
                                     "as the weight is, nor a broadcast along the split dimension")
        below = cur.operands[0].shape
        if cur.opcode == "broadcast":
            kept = tuple(cur.attributes["dimensions"])
            if dim not in kept:  # made here: the same along the split dimension
                ops.append(cur)
                dims.append(dim)
                return _Walk(ops, dims, cur, False, dim)
            dim_in = kept.index(dim)
        elif cur.opcode == "transpose":
            dim_in = tuple(cur.attributes["dimensions"])[dim]
        elif cur.opcode in ("reshape", "bitcast"):
            if cur.opcode == "bitcast" and not bitcast_keeps_order(cur):
                # The bytes kept, read in another order: elements move (issue 43).
                raise _refuse(mul, side, f"which {cur.ref} reads {below} as {shape} in another order "
                                         "(a bitcast between layouts)")
            found = _reshape_dim(shape.dims, below.dims, dim)
            if found is None:
                raise _refuse(mul, side, f"which {cur.ref} reshapes {below} -> {shape} across the split "
                                         "dimension")
            dim_in = found
        else:
            dim_in = dim
        if cur.opcode in GATHERS and dim in tuple(cur.attributes.get("dimensions") or ()):
            raise _refuse(mul, side, f"which {cur.ref} gathers along the split dimension")
        if not below.is_array or dim_in >= below.rank or below.dims[dim_in] != shape.dims[dim]:
            raise _refuse(mul, side, f"which {cur.ref} resizes along the split dimension ({below} -> {shape})")
        ops.append(cur)
        dims.append(dim)
        cur, dim = cur.operands[0], dim_in


def check_sides(chains: list[Chain], split_dims: list[int], side_by_side: bool) -> list[SideOperand]:
    """Each dequantizing multiply on the halves' way, with its scale proven the matching half
    of one array or one value constant along the split dimension (else ``dequant-operand``).
    ``side_by_side``: the halves are slices of one weight, side by side along the split
    dimension; only then is a scale cut the same way matched to them (interleaved halves, a
    stacking axis, two weights joined or resharded pieces are fused from another array than
    the one whose slices the scale's would mirror)."""
    found = []
    for k, op in enumerate(chains[0].ops):
        main = dequant_operand(op) if isinstance(op, Instruction) else None
        if main is None:
            continue
        muls = [c.ops[k] for c in chains]
        for mul in muls:
            if dequant_operand(mul) != main:
                raise _refuse(mul, mul.operands[1 - main], "whose operands are not in the order of the other "
                                                           "halves' multiplies")
        walks = [_walk(mul, main, split_dims[k]) for mul in muls]
        first = walks[0]
        scale = muls[0].operands[1 - main]
        for mul, walk in zip(muls[1:], walks[1:]):
            other = mul.operands[1 - main]
            if walk.sliced != first.sliced or len(walk.ops) != len(first.ops) or not all(
                    same_op(a, b) for a, b in zip(first.ops, walk.ops)):
                raise _refuse(mul, other, f"which takes another path than the first half's scale {scale.ref}")
            if not first.sliced and not same_value(other, scale):
                raise _refuse(mul, other, f"which is not provably the value the first half is multiplied by "
                                          f"({scale.ref})")
        stop = first.stop
        side = SideOperand(k, main, stop.operands[0], stop.operand_results[0], list(reversed(first.ops)),
                           list(reversed(first.dims)), first.sliced)
        if first.sliced and not side_by_side:
            raise _refuse(muls[0], scale, "a slice of a scale, where the weight's halves are not slices side by "
                                          "side (interleaved, a stacking axis, two weights): the whole scale would "
                                          "not line up with the fused weight")
        if first.sliced:
            for mul, walk in zip(muls, walks):
                shared = next((op for op in [*walk.ops, walk.stop] if len(op.users) != 1), None)
                if shared is not None:  # its gathers would stay for the other readers
                    raise _refuse(mul, mul.operands[1 - main], f"whose {shared.ref} has {len(shared.users)} users: "
                                                               "the half's scale would stay besides the whole one")
            # Each half's scale as a chain of its own, so that its slices are checked as the
            # weight's are and its collectives counted as theirs.
            side.halves = [replace(chains[0], start=w.stop, ops=list(reversed(w.ops)), cut=cut_of(w.stop),
                                   result=None, walked=None, place=None) for w in walks]
            try:
                cut_dim, _ = check_slices(side.halves)
            except Refusal as err:
                raise _refuse(muls[0], scale, "whose slices are not cut from one array as the weight's halves are "
                                              f"({err.check}: {err.reason})") from None
            if cut_dim != first.dim:
                raise _refuse(muls[0], scale, f"whose slices cut dimension {cut_dim} of {stop.operands[0].ref}, "
                                              f"not dimension {first.dim}, the one that becomes the split one")
        found.append(side)
    return found


def side_costs(sides: list[SideOperand], steps: CollectiveModel) -> tuple[int, int, int]:
    """(collectives of the halves' scales, those of the fused scale, bytes each moves per device)."""
    before = after = moved = 0
    for side in sides:
        for half in side.halves:
            for reshard in steps.chain(half).values():
                before += reshard.count
                moved += reshard.bytes_moved
        if side.halves:
            after += sum(r.count for r in steps.chain(side.halves[0]).values())
    return before, after, moved
