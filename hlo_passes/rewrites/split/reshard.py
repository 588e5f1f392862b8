"""Halves the partitioner cut out of a weight whose split dimension is itself sharded.

``W[E, D, 2F]`` with ``2F`` over a mesh axis of ``n`` devices (MaxText's ``fsdp_transpose``):
each device holds ``S = 2F / n`` of ``2F``, and a half (``F`` wide) sharded the same way is
``F / n`` per device, not all of it held by the device that needs it.  XLA's partitioner makes
each device's piece of a half from its own shard ``X``: slices of ``X``, some moved to another
device by a ``collective-permute``, joined by a ``concatenate`` and cut by a ``dynamic-slice``
at an offset computed from the ``partition-id``.  Each half's piece is then gathered along the
split dimension over those ``n`` devices (and over the other axes after it).

Gathered along the split dimension over the same devices, ``X`` itself is ``2F`` whole, in
order, with the halves side by side: the half's gathered pieces are its slice of that gather
*when each device's piece is the part of the half that belongs at its place in the group*.
``ReshardSource.check`` proves that device by device: it evaluates, for every device of every
group, which device's ``X`` and which range of it the piece holds (through the slices, the
permutes' pairs, the concatenate and the window at that device's offset), and compares it with
the range the gather of ``X`` puts there.  The fused chain then starts at ``X``: the halves'
gather along the split dimension, applied to ``X`` (``SourcePlan.reassembled``), is that gather.

The pieces are evaluated by ``pieces``, through fusions of optimized HLO as well; where ``X``
lives inside the halves' slice fusions, those fusions are opened to rewrite (``Resharded.fusions``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...checks import Refusal
from ...ir import Instruction
from ...ir.rewriter import Rewriter
from .fusions import FusedCopy, FusedValue
from .pieces import (Pieces, Segment, between_partitions, dynamic_window, enter, float_bits, is_reshard, joined,
                      narrowest, operand, says, under_in_place)
from .sources import Source
from .types import Chain, Meeting, SourcePlan


@dataclass
class Resharded:
    """``SourcePlan.extra`` of ``ReshardSource``: the array the pieces are cut from (each
    device's shard ``X``), the element type the fused chain starts in, and the fusions that
    hold ``X`` in optimized HLO (opened to rewrite)."""

    x: Instruction | FusedValue
    element_type: str
    fusions: list[Instruction]


class ReshardSource(Source):
    """Halves whose pieces the partitioner cut out of a shard of W sharded along the split
    dimension (see the module docstring)."""

    start_opcodes = frozenset(("dynamic-slice", "fusion"))

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        return steps > 0 and is_reshard(instr)

    def check(self, chains: list[Chain], meeting: Meeting) -> SourcePlan:
        proof = Pieces(meeting.anchor)
        at = {_reassembling(c) for c in chains}
        if len(at) != 1 or None in at:
            raise proof.refuse(f"the piece {chains[0].start.ref} is not gathered right away (after layout "
                               "copies and converts)", chains[0].start)
        reassembled = at.pop()
        assert reassembled is not None
        gathers = [c.ops[reassembled] for c in chains]
        for c in chains:
            proof.types.update(op.shape.element_type for op in c.ops[:reassembled]
                               if isinstance(op, FusedCopy) or op.opcode == "convert")
        proof.dim = dim = _window_dim(chains[0].start)  # the split dimension: where the start cuts
        groups = gathers[0].attributes.get("replica_groups")
        if dim is None or tuple(gathers[0].attributes.get("dimensions") or ()) != (dim,) or not groups:
            raise proof.refuse(f"{gathers[0].ref} does not gather the pieces along the split dimension", gathers[0])
        module = gathers[0].module
        replicas = module.declared_devices[0] if module is not None else 1
        if not between_partitions(gathers[0]) or replicas > 1:
            # The partition id the offsets are computed from names the devices the groups name
            # only in a module of one replica whose collectives run between partitions.
            raise proof.refuse(f"{gathers[0].ref} gathers between replicas, not between the partitions the "
                               "offsets are computed for", gathers[0])
        groups = [tuple(int(d) for d in g) for g in groups]
        n = len(groups[0])
        if any(len(group) != n for group in groups):
            raise proof.refuse(f"{gathers[0].ref} gathers over groups of different sizes", gathers[0])
        base = 0
        sizes = []
        for c, gather in zip(chains, gathers):
            if gather.attributes.get("replica_groups") != gathers[0].attributes.get("replica_groups"):
                raise Refusal("same-collectives", f"{gather.ref} and {gathers[0].ref} gather over other devices",
                              gather)
            width = c.start.shape.dims[dim]
            for group in groups:
                _check_in_place(proof, c.start, group, base, width)
            sizes.append(n * width)
            base += n * width
        assert proof.x is not None
        whole = proof.x.shape.dims[dim]
        if base != n * whole:
            raise Refusal("slices-cover", f"the halves take {base} of dimension {dim}, of {n * whole} gathered",
                          meeting.anchor)
        floor = narrowest(proof.x)
        start_type = chains[0].start.shape.element_type
        for t in proof.types | {start_type}:
            if float_bits(t) < float_bits(floor) or not float_bits(floor):
                raise proof.refuse(f"the pieces are converted to {t} on the way, which does not hold every "
                                   f"{floor} value of {proof.x.ref}")
        return SourcePlan(dim, sizes, Resharded(proof.x, start_type, list(proof.fusions.values())),
                          reassembled=reassembled)

    def weight(self, chains: list[Chain]) -> str:
        """The shard the halves' pieces are cut from."""
        start = chains[0].start
        x = _cut_array(Pieces(start, dim=_window_dim(start)), start)
        return x.ref if x is not None else start.ref

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list[Chain]) -> tuple[Instruction, int]:
        extra = plan.extra
        assert isinstance(extra, Resharded) and isinstance(extra.x, Instruction), "opened before the rewrite"
        x = extra.x
        if x.shape.element_type == extra.element_type:
            return x, 0
        return rw.create("convert", x.shape.with_element_type(extra.element_type), [x], after=x, like=x), 0


def _check_in_place(proof: Pieces, start: Instruction, group: tuple[int, ...], base: int, width: int) -> None:
    """On every device of ``group``, the piece ``start`` holds is the part of the half (starting at
    ``base`` of the shard gathered over ``group``) that the gather puts at the device's place."""
    dim = proof.dim
    assert dim is not None
    for k, device in enumerate(group):
        got = joined(proof.piece(enter(start, ()), device))
        whole = proof.x.shape.dims[dim] if proof.x is not None else 0
        at = base + k * width
        fits = whole > 0 and at + width <= len(group) * whole and at % whole + width <= whole
        want: list[Segment] = [(group[at // whole], at % whole, width)] if fits else []
        if not fits or got != want:
            raise proof.refuse(f"on device {device}, {start.ref} holds {says(got)}; gathered along dimension "
                               f"{dim} with its group {list(group)}, the whole shard puts {says(want)} there", start)


def reshard_place(chain: Chain) -> tuple[Instruction | FusedValue, int | None] | None:
    """(the array a resharded half is cut from, where the half starts in that array gathered, as
    the first device of its gather whose piece can be read says; None where none can): how the
    finders group and order such halves (``ReshardSource.check`` proves the rest).  None where
    the chain is not one."""
    at = _reassembling(chain) if chain.cut is None else None
    if at is None or not is_reshard(chain.start):
        return None
    gather = chain.ops[at]
    groups = gather.attributes.get("replica_groups")
    group = [int(d) for d in groups[0]] if groups else []
    proof = Pieces(chain.start, dim=_window_dim(chain.start))
    x = _cut_array(proof, chain.start)
    if x is None or proof.dim is None:
        return None
    width = chain.start.shape.dims[proof.dim]
    for k, device in enumerate(group):
        try:
            pieces = joined(proof.piece(enter(chain.start, ()), device))
        except Refusal:
            return x, None
        if len(pieces) == 1 and pieces[0][0] in group:
            src, lo, _ = pieces[0]
            return x, group.index(int(src)) * x.shape.dims[proof.dim] + lo - k * width
    return x, None


def _cut_array(proof: Pieces, start: Instruction) -> Instruction | FusedValue | None:
    """The array the first slice under a reshard's concatenate cuts (through permutes and in-place ops)."""
    seen = under_in_place(enter(start, ()))
    if seen[0].opcode != "dynamic-slice":
        return None
    joined = under_in_place(operand(seen, 0))
    if joined[0].opcode != "concatenate":
        return None
    for k in range(len(joined[0].operands)):
        piece = under_in_place(operand(joined, k))
        if piece[0].opcode == "collective-permute" and len(piece[0].operands) == 1:
            piece = under_in_place(operand(piece, 0))
        if piece[0].opcode == "slice" and len(piece[0].operands) == 1:
            try:
                return proof.source_of(*piece)
            except Refusal:
                return None
    return None


# Steps between a half's piece and its gather that move no element: layout copies, converts,
# and the optimization barrier MaxText puts between its two gather stages (which XLA removes
# only after scheduling: the module a pass inside XLA's pipeline is handed still holds it).
_IN_PLACE_STEPS = ("copy", "convert", "opt-barrier")


def _reassembling(chain: Chain) -> int | None:
    """The index in ``chain.ops`` of the gather of the half's pieces: its first step but layout
    copies, converts and barriers, plain or in a fusion of their own (None: there is none)."""
    for k, op in enumerate(chain.ops):
        if isinstance(op, FusedCopy):
            if tuple(op.shape.dims) != tuple(op.operand.shape.dims):
                return None
            continue
        if not isinstance(op, Instruction) or len(op.operands) != 1:
            return None
        if op.opcode == "all-gather":
            return k
        if op.opcode not in _IN_PLACE_STEPS or not op.shape.is_array or \
                tuple(op.shape.dims) != tuple(op.operands[0].shape.dims):
            return None
    return None


def _window_dim(start: Instruction) -> int | None:
    """The dimension a reshard's dynamic-slice cuts (the split dimension)."""
    cut, _ = under_in_place(enter(start, ()))
    return dynamic_window(cut) if cut.opcode == "dynamic-slice" else None
