"""Pattern and legality helpers shared by the MoE rules.

Both rules look at *chains*: the path a slice of the prefused weight takes
to the point where the halves meet again (forward: slice → gathers →
concatenate; backward: GMM → slice → reductions → pad/add).  A chain is a
list of unary ops (and shard_map boundaries) that each keep the split
dimension where it is or move it in a way we can follow (transpose).  Two chains
can be fused when they are the same sequence of the same ops, attribute for
attribute, differing only in how much of the split dimension they carry.
"""
from __future__ import annotations

import re

from ...checks import Refusal
from ...ir import Computation, Instruction, Shape
from ...ir.rewriter import Rewriter
from ...ir.analysis import is_sharding_call, same_value

# Ops that act on each element (or move whole elements) without looking at
# neighbours: applying them to W and then slicing equals slicing then applying.
ELEMENTWISE_UNARY = frozenset({"convert", "copy", "opt-barrier", "sdy.sharding_constraint"})
GATHERS = frozenset({"all-gather"})


# Text can parse with shapes that disagree (a slice with a dimension more than
# its operand, an all-gather of another rank): the rules check before they index.
INCONSISTENT = "inconsistent-shapes"


def dim_size(shape: Shape, dim: int, instr: Instruction, what: str = "") -> int:
    """Size of dimension ``dim`` of ``shape`` (``instr``'s, or what it reads: ``what``),
    refusing the site when the shape has no such dimension."""
    if not 0 <= dim < len(shape.dims):
        raise Refusal(INCONSISTENT, f"{what or instr.ref} is {shape.text or shape} (rank {len(shape.dims)}): "
                      f"it has no dimension {dim}, which the halves are split along", instr)
    return shape.dims[dim]


# Collectives of the weight gradient: each device ends up with the same sum,
# whole or its shard of it.
REDUCTIONS = frozenset({"reduce-scatter", "all-reduce"})


# Ops that cut a window out of their first operand at offsets given by the
# others: after SPMD partitioning, a reduction to a sharded layout is an
# all-reduce and then each device's dynamic-slice of the sum.  Applying one to
# W and then slicing equals slicing and then applying it when the window keeps
# the split dimension whole and the halves' offsets are the same values
# (``check_windows``).
WINDOWS = frozenset({"dynamic-slice"})


def is_chain_op(instr: Instruction) -> bool:
    if instr.opcode in GATHERS or instr.opcode in REDUCTIONS or instr.opcode in ELEMENTWISE_UNARY or is_sharding_call(instr):
        return len(instr.operands) == 1 and instr.num_results == 1
    if instr.opcode in ("transpose", "reshape", "bitcast"):
        return len(instr.operands) == 1
    if instr.opcode in WINDOWS:
        return len(instr.operands) >= 2 and instr.num_results == 1
    return False


def check_windows(steps: list[Instruction], dim: int) -> None:
    """The halves' windows keep the split dimension ``dim`` whole and start at the
    same offsets elsewhere."""
    first = steps[0]
    for step in steps:
        whole = step.operands[0].shape
        if not whole.is_array or dim >= whole.rank or step.shape.rank != whole.rank \
                or step.shape.dims[dim] != whole.dims[dim]:
            raise Refusal("window-split-dim", f"{step.ref} cuts the split dimension {dim} "
                          f"({whole} -> {step.shape}): the halves would not be whole pieces of it", step)
        if len(step.operands) != len(first.operands) or not all(
                same_value(a, b) for a, b in zip(step.operands[1:], first.operands[1:])):
            raise Refusal("same-offsets", f"{step.ref} and {first.ref} cut their windows at offsets "
                          "not provably the same", step)


def map_split_dim(instr: Instruction, dim_in: int) -> int:
    """Where the split dimension of ``instr``'s operand lands in its result."""
    op = instr.opcode
    if op == "transpose":
        perm = tuple(instr.attributes["dimensions"])
        if sorted(perm) != list(range(instr.operands[0].shape.rank)) or len(perm) != instr.shape.rank:
            raise Refusal(INCONSISTENT, f"{instr.ref} permutes {list(perm)}, not the dimensions of its "
                          f"operand {instr.operands[0].shape} into {instr.shape}", instr)
        return perm.index(dim_in)
    if op in ("reshape", "bitcast"):
        src, dst = instr.operands[0].shape, instr.shape
        if op == "bitcast" and src.dims == dst.dims and src.layout_text != dst.layout_text:
            # The same dimensions in another layout: the same bytes read in another order, a
            # transpose (of dimensions of one size: [E, F, D] -> [E, D, F] with F = D).
            return bitcast_permutation(instr).index(dim_in)
        if src.dims == dst.dims:
            return dim_in
        raise Refusal(
            "reshape-moves-split",
            f"{op} {src} -> {dst} between the slice and the concatenate changes dimensions; "
            "the split dimension cannot be followed through it",
            instr,
        )
    return dim_in


def _minor_to_major(layout: str) -> tuple[int, ...] | None:
    """The dimension order of a layout ``{2,1,0}``; None for a tiled one or another spelling
    (``{1,0:T(8,128)}``: its bytes are not a permutation of the elements alone)."""
    m = re.fullmatch(r"\{\s*(\d+(?:\s*,\s*\d+)*)?\s*\}", layout)
    if m is None:
        return None
    return tuple(int(d) for d in (m.group(1) or "").replace(" ", "").split(",") if d)


def bitcast_permutation(instr: Instruction) -> tuple[int, ...]:
    """The transpose a bitcast between two layouts of the same dimensions is: ``perm`` with
    result dimension ``j`` operand dimension ``perm[j]`` (a transpose's ``dimensions``), read
    from the physical order of both (the element at each byte stays).  Refused
    (``bitcast-moves-split``) where that is no permutation: tiled layouts, or a dimension whose
    bytes would be read as one of another size."""
    src, dst = instr.operands[0].shape, instr.shape
    a, b = _minor_to_major(src.layout_text), _minor_to_major(dst.layout_text)
    rank = src.rank
    if a is None or b is None or sorted(a) != list(range(rank)) or sorted(b) != list(range(rank)) \
            or dst.rank != rank:
        raise Refusal("bitcast-moves-split", f"{instr.ref} reads {src} as {dst}: the elements move in a way "
                      "that cannot be followed (not a permutation of the dimensions)", instr)
    perm = [0] * rank
    for p in range(rank):
        perm[b[p]] = a[p]
    if any(dst.dims[j] != src.dims[perm[j]] for j in range(rank)):
        raise Refusal("bitcast-moves-split", f"{instr.ref} reads {src} as {dst}: not a transpose of its "
                      "dimensions, the elements move in a way that cannot be followed", instr)
    return tuple(perm)


def _nonunit_order(shape: Shape) -> tuple[int, ...] | None:
    """The dimensions of size other than 1, major to minor as the bytes hold them (None: a tiled
    or unreadable layout).  No layout stated: XLA's default, the logical order."""
    text = shape.layout_text
    order = _minor_to_major(text) if text else tuple(range(shape.rank - 1, -1, -1))
    if order is None or sorted(order) != list(range(shape.rank)):
        return None
    return tuple(d for d in reversed(order) if shape.dims[d] != 1)


def bitcast_keeps_order(instr: Instruction) -> bool:
    """Whether a bitcast is a reshape: it reads its operand's elements in their logical (row-major)
    order.  A bitcast keeps the bytes, so it is one exactly where both layouts lay the elements out
    in that order, or where it keeps the dimensions and their layout (sizes of 1 anywhere); a
    bitcast between other layouts moves the elements (a transpose, or worse): issue 43's MOE004 bug
    read one as in place.  False where a layout cannot be read."""
    if instr.opcode != "bitcast" or len(instr.operands) != 1:
        return False
    src, dst = instr.operands[0].shape, instr.shape
    if not (src.is_array and dst.is_array):
        return False
    a, b = _nonunit_order(src), _nonunit_order(dst)
    if a is None or b is None:
        return False
    keep_a = [d for d in range(src.rank) if src.dims[d] != 1]
    keep_b = [d for d in range(dst.rank) if dst.dims[d] != 1]
    if [src.dims[d] for d in keep_a] == [dst.dims[d] for d in keep_b]:
        # The same dimensions but for sizes of 1 (one inserted or dropped): a reshape where
        # both lay those dimensions out in the same order.
        return [keep_a.index(d) for d in a] == [keep_b.index(d) for d in b]
    return list(a) == sorted(a) and list(b) == sorted(b)


def in_dependency_order(rw: Rewriter, comp: Computation) -> None:
    """Reorder ``comp``'s instructions so each comes after its operands, moving as little as
    possible (a stable topological order).  The two weights' chains start wherever the
    program computes them: the concatenate of both, and the one GMM after it, may sit
    before the later weight's definition, which then moves up with what it reads."""
    instructions = comp.instructions
    here = {id(i) for i in instructions}
    placed: set[int] = set()
    entered: set[int] = set()
    order: list[Instruction] = []
    for instr in instructions:
        stack = [(instr, False)]
        while stack:
            cur, ready = stack.pop()
            if id(cur) in placed:
                continue
            if ready:
                placed.add(id(cur))
                order.append(cur)
                continue
            if id(cur) in entered:
                # Reached again before it was placed: it reads its own result (never loop on it).
                raise ValueError(f"{comp.name}: {cur.name} reads its own result: no dependency order exists")
            entered.add(id(cur))
            stack.append((cur, True))
            stack.extend((op, False) for op in reversed(cur.operands) if id(op) in here and id(op) not in placed)
    if order != instructions:
        rw.reorder(comp, order)
