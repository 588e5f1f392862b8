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
from dataclasses import replace
from typing import Any, NamedTuple

from ...checks import Refusal
from ...ir import Computation, Instruction, Shape
from ...ir.op_table import Trait, with_trait
from ...ir.rewriter import Rewriter

# Ops that act on each element (or move whole elements) without looking at
# neighbours: applying them to W and then slicing equals slicing then applying.
ELEMENTWISE_UNARY = frozenset({"convert", "copy", "opt-barrier", "sdy.sharding_constraint"})
GATHERS = frozenset({"all-gather"})
# Attributes that say *what* a step does, as opposed to its result size.
# Everything else (names, metadata, shapes) may differ between the halves.
_IGNORED_ATTRIBUTES = frozenset({"metadata", "frontend_attributes", "sharding", "channel_id", "backend_config",
                                 # called computations: compared by content in same_value
                                 "to_apply", "calls", "condition", "body", "branch_computations"})


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


# Custom calls that only annotate or re-view a value: sharding constraints,
# and the full <-> shard shape changes around manual (shard_map) regions.
SHARDING_CALLS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


def is_sharding_call(instr: Instruction) -> bool:
    return instr.opcode == "custom-call" and instr.attributes.get("custom_call_target") in SHARDING_CALLS


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


class Behaviour(NamedTuple):
    """What an op does, independent of its size: two ops with equal behaviours do the
    same thing to arrays of the same element type."""

    opcode: str
    element_type: str
    has_channel: bool  # channel kind: a collective with a channel_id and one without differ
    attributes: tuple  # (name, frozen value) of every semantic attribute, sorted by name


def behaviour(instr: Instruction) -> Behaviour:
    """The ``Behaviour`` of ``instr``: what it does, whatever the size of its operands."""
    attrs = []
    for key in sorted(instr.attributes):
        if key in _IGNORED_ATTRIBUTES:
            continue
        try:
            value = instr.attributes[key]
        except ValueError:
            value = instr.attributes.raw(key)
        attrs.append((key, _freeze(value)))
    has_channel = "channel_id" in instr.attributes
    return Behaviour(instr.opcode, instr.shape.element_type, has_channel, tuple(attrs))


def same_op(a: Instruction, b: Instruction) -> bool:
    """Same op with the same semantic attributes and equivalent called computations."""
    if behaviour(a) != behaviour(b) or len(a.called_computations) != len(b.called_computations):
        return False
    return all(ca is cb or _same_computation(ca, cb, 12)
               for ca, cb in zip(a.called_computations, b.called_computations))


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def same_value(a: Instruction, b: Instruction, depth: int = 12, params: bool = False) -> bool:
    """Whether two instructions certainly compute the same value.

    The same instruction, or the same pure op on operands that are the same
    value; bounded in depth, so a "no" may be a "could not prove it".
    Lowered programs repeat the masking of ragged_dot's decomposition per
    call (with a copy of each called computation), so the two GMMs'
    left-hand sides are often equal only in this sense.  ``params`` is set
    while comparing two called computations: there, parameters with the same
    number stand for the same argument.
    """
    if a is b:
        return True
    if depth == 0 or a.opcode != b.opcode or a.shape != b.shape:
        return False
    if a.opcode == "parameter":
        return params and a.attributes.get("parameter_number") == b.attributes.get("parameter_number")
    if a.opcode in ("rng", "rng-bit-generator", "custom-call", "infeed", "recv") or a.opcode in GATHERS:
        return False
    if a.opcode == "iota":
        return behaviour(a) == behaviour(b)
    if a.opcode == "constant":
        return behaviour(a) == behaviour(b) and _literal(a) == _literal(b)
    if len(a.operands) != len(b.operands) or a.operand_results != b.operand_results:
        return False
    if behaviour(a) != behaviour(b):
        return False
    if len(a.called_computations) != len(b.called_computations):
        return False
    for ca, cb in zip(a.called_computations, b.called_computations):
        if ca is not cb and not _same_computation(ca, cb, depth - 1):
            return False
    return all(same_value(x, y, depth - 1, params) for x, y in zip(a.operands, b.operands))


def _same_computation(ca: Computation, cb: Computation, depth: int) -> bool:
    if ca.root is None or cb.root is None or len(ca.instructions) != len(cb.instructions):
        return False
    if [p.shape for p in ca.parameters] != [p.shape for p in cb.parameters]:
        return False
    return same_value(ca.root, cb.root, depth, params=True)


def literal(instr: Instruction) -> tuple[str, Any] | None:
    """A constant's value, comparable between constants of one module (None: unknown)."""
    attrs = instr.attributes
    if "literal" in attrs:  # HLO
        return ("literal", _freeze(attrs["literal"]))
    if "value" in attrs:  # MLIR generic form
        return ("value", attrs.raw("value") or str(attrs["value"]))
    pretty = instr.mlir_pretty_value  # MLIR pretty form: ``stablehlo.constant dense<0> : tensor<i32>``
    return ("text", pretty) if pretty is not None else None


def _literal(instr: Instruction) -> object:
    value = literal(instr)
    # Unknown values never compare equal, not even to themselves.
    return value if value is not None else object()


def resized(shape: Shape, dim: int, size: int) -> Shape:
    """``shape`` with dimension ``dim`` set to ``size``, keeping its layout."""
    dims = list(shape.dims)
    dims[dim] = size
    return replace(shape, dims=tuple(dims), text=None)


def remove_dead(rw: Rewriter, roots: list[Instruction]) -> list[Instruction]:
    """Remove ``roots`` and then their operands, while nothing uses them; returns what went."""
    removed: list[Instruction] = []
    work = list(roots)
    while work:
        instr = work.pop()
        comp = instr.computation
        if comp is None or instr.users or instr is comp.root or instr.opcode == "parameter":
            continue
        if instr.is_terminator or (instr.opcode in _SIDE_EFFECTING and not is_sharding_call(instr)):
            continue
        operands = list(instr.operands)
        rw.erase(instr)
        removed.append(instr)
        work.extend(operands)
    return removed


_SIDE_EFFECTING = frozenset(d.name for d in with_trait(Trait.SIDE_EFFECTS))


def in_dependency_order(rw: Rewriter, comp: Computation) -> None:
    """Reorder ``comp``'s instructions so each comes after its operands, moving as little as
    possible (a stable topological order).  The two weights' chains start wherever the
    program computes them: the concatenate of both, and the one GMM after it, may sit
    before the later weight's definition, which then moves up with what it reads."""
    instructions = comp.instructions
    here = {id(i) for i in instructions}
    placed: set[int] = set()
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
            stack.append((cur, True))
            stack.extend((op, False) for op in reversed(cur.operands) if id(op) in here and id(op) not in placed)
    if order != instructions:
        rw.reorder(comp, order)
