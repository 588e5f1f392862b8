"""Halves of a gradient put back into a weight whose layout does not hold them side by side.

jax's transpose of ``W[:, 0]``, ``W[:, 1]`` (a separate size-2 axis, ``W[E, 2, D, F]``) and of
``W[..., ::2]``, ``W[..., 1::2]`` (interleaved halves) reassembles dW with pads as for ``[gate |
up]``, but not of the halves side by side:

* ``stacked``: each half gets the size-2 axis back (a reshape, or a broadcast, that inserts a
  dimension of size 1) and is padded along it to its index;
* ``interleaved``: each half is padded along F with interior padding ``k - 1`` from its offset
  ``i`` (``low = i``, ``high = k - 1 - i``): element j of half i lands at ``j * k + i``.

``ReorderedPadAdd`` is such a meeting: the halves' chains end at what the pads read (for a
stacked axis, at what the reshape reads), and their split dimension is F.  The fused chain
reduces the joined gradient ``[.., k * F]`` once, halves side by side, and the meeting puts it
in W's layout: ``[.., k, F]`` (a reshape), the ``k`` axis moved where W holds it (a transpose:
a copy of the reduced shard, ``added_bytes``) and, interleaved, merged into F behind it.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...ir import Instruction, Shape
from ...ir.rewriter import Operand, Rewriter, as_value
from ...ir.analysis import remove_dead
from .chains import bitcast_keeps_order
from .crossings import result_shape
from .meetings import PadAdd, PadAdds, first_operand, zero_pads
from .types import Meeting
from .cost import local_bytes


def _insert_axis(piece: Instruction, axis: int) -> bool:
    """Whether ``piece`` only inserts a dimension of size 1 at ``axis`` of its operand (a reshape or
    bitcast in HLO; jax's ``broadcast_in_dim`` in StableHLO)."""
    if len(piece.operands) != 1 or piece.shape.rank < 1 or axis >= piece.shape.rank:
        return False
    src = result_shape(*first_operand(piece))
    dims = list(piece.shape.dims)
    if not src.is_array or dims[axis] != 1 or dims[:axis] + dims[axis + 1:] != list(src.dims):
        return False
    if piece.opcode == "reshape":
        return True
    if piece.opcode == "bitcast":  # the bytes kept: a reshape only where the order is (issue 43)
        return bitcast_keeps_order(piece)
    if piece.opcode == "broadcast":
        given = piece.attributes.get("dimensions")
        return given is not None and tuple(given) == tuple(d for d in range(len(dims)) if d != axis)
    return False


class ReorderedPadAdd(PadAdd):
    """``add(pad(h_0), …, pad(h_{k-1}))`` that puts k halves into W's layout as a stacking axis
    (``how="stacked"``, at ``axis`` of the sum) or interleaved along ``axis`` (``"interleaved"``);
    ``dim`` is the halves' dimension they are joined along once fused (F: the last)."""

    def __init__(self, add: Instruction, pads: list[Instruction], how: str, axis: int,
                 pieces: list[tuple[Instruction, int]]) -> None:
        super().__init__(add, pads, pieces[0][0].shape.rank - 1)
        self.form = f"{how}_pad_add"
        self.how = how
        self.axis = axis
        self.pieces = pieces  # for a stacking axis: what the reshapes that give it back read

    def added_bytes(self, chains: list[Any]) -> int:
        """The reorder's copy: the reduced gradient, as one device holds it."""
        return sum(local_bytes(c.top, callers=c.callers) for c in chains)

    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        fused = as_value(value)
        dims, kind = list(fused.shape.dims), fused.shape.element_type
        k, dim = len(self.pads), self.dim
        assert dim is not None
        width = dims[dim] // k
        # The halves side by side, then each its own entry of a new axis ``k`` before F.
        split = dims[:dim] + [k, width] + dims[dim + 1:]
        labels: list[object] = [*range(dim), "k", *range(dim, len(dims))]
        if self.how == "stacked":
            target: list[object] = [*range(len(dims))]
            target.insert(self.axis, "k")
        else:  # the halves' elements in turn: ``k`` right behind F, merged into it
            target = [*range(dim + 1), "k", *range(dim + 1, len(dims))]
        where = self.anchor
        created = [rw.reshape(value, Shape.array(kind, split), before=where, like=where)]
        perm = tuple(labels.index(t) for t in target)
        if perm != tuple(range(len(perm))):
            moved = Shape.array(kind, [created[-1].shape.dims[p] for p in perm])
            created.append(rw.create("transpose", moved, [created[-1]], {"dimensions": perm}, before=where,
                                     like=where))
        if tuple(created[-1].shape.dims) != tuple(self.anchor.shape.dims):
            created.append(rw.reshape(created[-1], Shape.array(kind, self.anchor.shape.dims), before=where,
                                      like=where))
        for key, given in _manual_sharding(where).items():
            for op in created:
                rw.set_attribute(op, key, given)
        rw.replace_all_uses(self.joined, created[-1])
        remove_dead(rw, [self.joined])


def _manual_sharding(anchor: Instruction) -> dict[Any, Any]:
    """The anchor's sharding where it is manual or replicated (inside a shard_map after Shardy's
    import): the reorder's ops are too.  A tiled one names the sum's dimensions and is left to the
    partitioner."""
    given = anchor.attributes.raw("sharding") if "sharding" in anchor.attributes else None
    return {"sharding": anchor.attributes["sharding"]} if given is not None and \
        str(given).strip() in ("{manual}", "{replicated}") else {}


def reordered_pad_meeting(add: Instruction, memo: dict[int, int | None]) -> ReorderedPadAdd | None:
    """The halves an add of two or more zero-pads puts into a stacking axis or interleaves, in
    the order of their places in the sum (None: it is no such reassembly)."""
    found = zero_pads(add, memo)
    if found is None:
        return None
    pads = [p for p, _ in found]
    rank = add.shape.rank
    specs = [(d, *p.attributes["padding"][d]) for p, d in found]
    axes = {s[0] for s in specs}
    if len(axes) != 1:
        return None
    axis = axes.pop()
    k = len(pads)
    order = sorted(range(k), key=lambda i: specs[i][1])
    pads = [pads[i] for i in order]
    specs = [specs[i] for i in order]
    if [s[1] for s in specs] != list(range(k)) or any(lo + hi != k - 1 for _, lo, hi, _ in specs):
        return None
    interior = {s[3] for s in specs}
    if interior == {k - 1} and k > 1:
        pieces = [first_operand(p) for p in pads]
        shapes = [result_shape(op, r) for op, r in pieces]
        if any(not s.is_array or s.rank != rank or s.dims[axis] * k != add.shape.dims[axis] for s in shapes) \
                or axis != rank - 1:
            return None  # interleaved along F, the halves' last dimension, as the GMMs give them
        return ReorderedPadAdd(add, pads, "interleaved", axis, pieces)
    if interior != {0} or add.shape.dims[axis] != k:
        return None
    inserts = [p.operands[0] for p in pads]
    if any(not _insert_axis(i, axis) or len(i.users) != 1 for i in inserts):
        return None
    pieces = [first_operand(i) for i in inserts]
    return ReorderedPadAdd(add, pads, "stacked", axis, pieces)


class ReorderedPadAdds(PadAdds):
    """Adds of zero-pads that put the halves back: into a stacking axis or interleaved where they
    do so, else side by side (``PadAdds``; one finder, so that one add is one meeting)."""

    def at(self, instr: Instruction) -> Iterable[tuple[Meeting, list[Any]]]:
        if instr.opcode != "add":
            return ()
        meeting = reordered_pad_meeting(instr, self.scan.pads)
        if meeting is not None:
            chains = self._chains(meeting.pieces)
            if chains is not None:
                return ((meeting, chains),)
        return super().at(instr)
