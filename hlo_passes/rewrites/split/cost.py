"""What a site's collectives cost, before and after the rewrite.

Counted as XLA runs them after SPMD partitioning and before its combiners
merge any: an explicit collective of a chain is one (chains are single-operand
ops, so a combined, tuple-shaped collective would count one per operand); an
implicit one (Shardy, GSPMD) is one where the sharding a chain's value must
have differs from the one it has, as ``layouts.reshard`` derives it — a
sharding constraint that restates the current layout costs nothing, one that
drops axes of several dimensions an all-gather per dimension.  Slicing the
halves out of a global weight whose split dimension is itself sharded costs
the collective-permutes the partitioner adds to move the pieces
(``layouts.slice_permutes``).  The fused chain runs the same collectives
once, on the whole array (which is not sliced).

A collective over groups of one device moves nothing and is no collective
(``group_of_one``): a ``psum`` over a mesh axis of size 1 (an expert ×
tensor-parallel mesh with no FSDP) neither makes a chain nor counts.  Every
byte figure is per device (``local_bytes``): a value outside a shard_map body
of a text not yet partitioned is the global array, and one device holds its
shard of it; ``figures.site_bytes`` says which copies a rewrite removes and adds
(docs/cost-model.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ...ir import Instruction, Shape
from ...ir.analysis import is_sharding_call, resized
from ...report import CollectiveCost, bytes_received, collective_bytes
from .crossings import Boundary, result_shape
from .fusions import computed_bytes, computed_type
from .pieces import is_reshard, piece_permutes
from .layouts import (Layout, Reshard, holds_local, layout_from_text, reshard, shards_of, slice_permutes,
                       source_layout, stated_layout)

from .types import Chain

# A step of a chain: an op, or a boundary it crosses.
Step = Union[Instruction, Boundary]

# Custom calls that enter or leave a manual region: they state no layout of their own.
_MANUAL_EDGES = frozenset({"SPMDFullToShardShape", "SPMDShardToFullShape"})


def _statement(step: Step, implicit: bool) -> tuple[Layout | None, int] | None:
    """(the layout ``step`` asks for, the bytes of its whole value) when it is an
    implicit resharding; None when it asks for nothing."""
    if not implicit:
        return None
    if isinstance(step, Boundary):
        entering = step.entry_sharding()
        if entering is None:
            return None
        text, value = entering
        rank = value.shape.rank
        layout = layout_from_text(text, rank, value.module) if text is not None else None
        if layout is None and is_sharding_call(value):
            # jax 0.12's HLO: the operand's own Sharding call carries its in-sharding.
            layout = stated_layout(value, rank)
        return layout, value.shape.byte_size
    if is_sharding_call(step) and step.attributes.get("custom_call_target") in _MANUAL_EDGES:
        return None
    layout = stated_layout(step, step.shape.rank) if step.shape.is_array else None
    # A constraint always asks for a layout (one we may fail to read); any other op
    # only when annotated: after Shardy's import (GSPMD form) a constraint is a copy
    # with a sharding, and every op's sharding is the layout of its result.
    if layout is None and not (step.opcode == "sdy.sharding_constraint" or is_sharding_call(step)):
        return None
    return layout, step.shape.byte_size


def _received(step: Instruction) -> int:
    """Bytes one device receives for an explicit collective, at the type it computes in."""
    narrow = computed_type(step)
    if narrow is None:
        return collective_bytes(step)
    return bytes_received(step.opcode, step.shape.with_element_type(narrow).byte_size,
                          sum(o.shape.with_element_type(narrow).byte_size for o in step.operands))


def group_of_one(step: Instruction) -> bool:
    """A collective whose every group is one device: it moves nothing (XLA keeps it as a copy).
    A gather or scatter says so by its shapes (it gathers or scatters nothing: the text's own
    arithmetic, whatever its replica groups claim); an all-reduce by groups of one device."""
    if step.opcode.startswith(("all-gather", "reduce-scatter")):
        return bool(step.operands) and step.shape.is_array and step.operands[0].shape.dims == step.shape.dims
    return getattr(step.attributes.decoded("replica_groups"), "group_size", None) == 1


def local_bytes(value: Instruction, result: int = 0, *, callers: dict[str, list[Instruction]] | None = None) -> int:
    """Bytes of result ``result`` of ``value`` one device holds: all of it where the text's shape
    is already a device's (a shard_map body, a partitioned module; at the type optimized HLO
    computes it in), else its shard of the global array, by its own annotation or where it
    comes from (out of calls and loops given ``callers``)."""
    shape = result_shape(value, result) if result else value.shape
    if not shape.is_array:
        return shape.byte_size
    if holds_local(value):
        return computed_bytes(value, shape) if not result else shape.byte_size
    return shape.byte_size // max(shards_of(value, callers=callers, result=result), 1)


@dataclass(frozen=True)
class CollectiveModel:
    """Which ops of a chain are collectives: the rule's explicit ones, and (``implicit``)
    the reshardings the partitioner turns into collectives."""

    collectives: frozenset[str]
    implicit: bool

    def communicates(self, step: Step) -> bool:
        """A step that communicates: one of ``collectives``, or (``implicit``) a change of
        sharding that the partitioner may turn into one (Shardy, GSPMD)."""
        if isinstance(step, Boundary):
            return self.implicit and step.reshards
        if step.opcode in self.collectives:
            return not group_of_one(step)
        return self.implicit and (step.opcode == "sdy.sharding_constraint" or is_sharding_call(step))

    def over_one_device(self, step: Step) -> bool:
        """A step that is one of ``collectives`` but runs over groups of one device: no
        collective (``group_of_one``), yet what the user wrote as one."""
        return not isinstance(step, Boundary) and step.opcode in self.collectives and group_of_one(step)

    def _slicing(self, chain: Chain) -> dict[int, Reshard]:
        """The collective-permutes that slicing a half out of a global weight sharded along the
        split dimension costs (``layouts.slice_permutes``; after partitioning, those that bring a
        resharded half's pieces, ``pieces.piece_permutes``), keyed -1 (before the chain)."""
        if chain.cut is None:
            permutes = piece_permutes(chain.start) if is_reshard(chain.start) else []
            if not permutes:
                return {}
            return {-1: Reshard("collective-permute", sum(_received(p) for p in permutes), len(permutes))}
        cut = chain.cut
        if not self.implicit or cut is None or cut.fused or holds_local(cut.sliced):
            return {}
        spec = cut.spec
        dims = [d for d, (lo, hi, _) in enumerate(spec) if (lo, hi) != (0, cut.full.dims[d])]
        if len(dims) != 1:
            return {}
        d = dims[0]
        moved = slice_permutes(source_layout(cut.whole, chain.callers, cut.result), d, spec[d][0], spec[d][1],
                               cut.full.dims[d], cut.shape.byte_size)
        return {-1: moved} if moved is not None else {}

    def chain(self, chain: Chain) -> dict[int, Reshard]:
        """Step index (in ``chain.ops``) → the collective it runs."""
        found: dict[int, Reshard] = {}
        # The base's layout, read at the first statement (explicit chains have none).
        layout: Layout | None = None
        read = False
        for k, step in enumerate(chain.ops):
            if not isinstance(step, Boundary) and step.opcode in self.collectives:
                if not group_of_one(step):
                    found[k] = Reshard(step.opcode, _received(step))
                continue
            stated = _statement(step, self.implicit)
            if stated is None:
                continue
            if not read:
                read = True
                base, _ = chain.base
                layout = source_layout(base, chain.callers, chain.base[1]) if base is not None else None
            new, size = stated
            if new is None or layout is None:
                # A layout we cannot read: one collective of unknown size, as it may be one.
                if new is None or new != layout:
                    found[k] = Reshard("all-gather", 0)
                layout = new if new is not None else layout
                continue
            moved = reshard(layout, new, size)
            if moved is not None:
                found[k] = moved
            layout = new
        return found

    def site(self, chains: list[Chain], split_dims: list[int]) -> tuple[CollectiveCost, CollectiveCost]:
        """(before, after): every half's collectives, and those of the one fused chain; before,
        also the collective-permutes the partitioner adds to slice the halves out of a weight
        whose split dimension is itself sharded (the whole weight is not sliced)."""
        per_chain = [self.chain(c) for c in chains]
        before = CollectiveCost()
        for found in [*per_chain, *(self._slicing(c) for c in chains)]:
            for moved in found.values():
                before.count += moved.count
                before.bytes_moved += moved.bytes_moved
        after = CollectiveCost()
        first = chains[0]
        for k, moved in per_chain[0].items():
            after.count += moved.count
            op = first.ops[k]
            if not isinstance(op, Boundary) and op.opcode in self.collectives:
                size = sum(c.ops[k].shape.dims[split_dims[k]] for c in chains)
                full = resized(op.shape, split_dims[k], size)
                in_full = resized(_operand_shape(op), split_dims[k],
                                  sum(_operand_shape(c.ops[k]).dims[split_dims[k]] for c in chains))
                after.bytes_moved += bytes_received(op.opcode, computed_bytes(op, full),
                                                    computed_bytes(op, in_full))
            else:
                # Bytes scale with the array: the whole one moves what its halves moved.
                after.bytes_moved += sum(found[k].bytes_moved for found in per_chain if k in found)
        return before, after


def _operand_shape(op: Instruction) -> Shape:
    """The shape of ``op``'s first operand, the result it reads of a multi-result value (a
    collective may read one result of a ``jax.checkpoint``'s optimization barrier)."""
    return result_shape(op.operands[0], op.operand_results[0] if op.operand_results else 0)
