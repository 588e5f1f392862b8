"""A site's copies in bytes per device (``site_bytes``) and, for two weights gathered in blocks, the
way the meeting reads them that the cost model prices best (``blocked_order``): the figures of a
site the engine reports beside its collectives (``cost``; docs/cost-model.md).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...cost_model import price
from ...ir import Instruction
from .cost import local_bytes
from .crossings import Boundary
from .fusions import computed_type
from .layouts import holds_local, shards_of
from .pieces import is_reshard
from .sources import Source
from .types import Chain, Meeting, SourcePlan


def site_bytes(meeting: Meeting, chains: list[Chain], source: Source, plan: SourcePlan) -> tuple[int, int]:
    """(the copies a site's rewrite removes, those it adds), in bytes per device
    (docs/cost-model.md): removed, each half's slice of the weight (a resharded half's piece) and, where the halves are
    put back together (a concatenate, pad + add), the joined array; added, what the fused
    chain's start concatenates (two weights' shards, two GMMs' differing operands).  Copies a
    half takes on its way are the fused chain's too (the same bytes); slices of one fused
    result are read in place by what reads them (XLA fuses a slice into its consumer)."""
    callers = chains[0].callers
    removed = sum(_cut_bytes(c, callers) for c in chains if c.cut is not None)
    # A resharded half (after partitioning): the piece the partitioner cuts per device is the
    # half's slice, as one device holds it.
    removed += sum(local_bytes(c.start, callers=callers) for c in chains if c.cut is None and is_reshard(c.start))
    if meeting.joins:
        removed += sum(local_bytes(c.top, callers=callers) for c in chains)
    return removed, source.added_bytes(plan, chains)


def _cut_bytes(chain: Chain, callers: dict[str, list[Instruction]] | None) -> int:
    """A half's slice of the weight, per device; in optimized HLO at the type the fusion that
    cuts it, or the collective it feeds, computes in (``computed_type``)."""
    cut = chain.cut
    assert cut is not None, "a chain that starts at a slice"
    if not cut.fused:
        if holds_local(cut.sliced):
            return cut.shape.byte_size
        assert isinstance(cut.whole, Instruction), "a slice outside a fusion cuts an instruction's value"
        return cut.shape.byte_size // max(shards_of(cut.whole, callers=callers, result=cut.result), 1)
    first = chain.ops[0] if chain.ops and not isinstance(chain.ops[0], Boundary) else None
    narrow = computed_type(chain.start) or (computed_type(first) if first is not None else None)
    return cut.shape.with_element_type(narrow).byte_size if narrow else cut.shape.byte_size


@dataclass(frozen=True)
class BlockedOrder:
    """How the meeting of two weights gathered along the dimension they are joined along reads
    the fused value, where they lie in blocks of ``block`` elements (block k: each weight's k-th
    in turn): ``split``, the meeting's result split by blocks (a GMM's output; in optimized HLO,
    where fusions read the halves, the gathered value itself); ``reorder``, the fused value put
    in order first (``meetings.blocks_in_order``).  ``copied``: bytes per device the choice
    copies."""

    how: str
    block: int
    copied: int

    def described(self) -> str:
        if self.how == "reorder":
            return f"weight reordered from blocks of {self.block}"
        return f"split by blocks of {self.block}"


def blocked_order(meeting: Meeting, chains: list[Chain], plan: SourcePlan,
                  split_dims: list[int]) -> BlockedOrder | None:
    """None where the fused value holds the weights side by side at the meeting; else the way
    of reading its blocks that the cost model (``cost_model.price``) prices best.  Splitting by
    blocks is strided slices (of reshapes), read in place by what reads each half, as the plain
    slices of a fused result are (``site_bytes``): no copy.  Reordering is a transpose of the
    gathered weight: a copy of it.  A meeting that joins the halves (a concatenate) reads them
    in order, so it takes the reorder; two GMMs, or fusions that read the halves, either."""
    if not plan.block:
        return None
    width = chains[0].top.shape.dims[split_dims[-1]]
    if width == plan.block:
        return None
    weight = sum(local_bytes(c.top, callers=chains[0].callers) for c in chains)
    options = [BlockedOrder("reorder", plan.block, weight)]
    if not meeting.joins:
        options.insert(0, BlockedOrder("split", plan.block, 0))

    def saved(option: BlockedOrder) -> float:
        return price(copies_removed=0, copies_added=option.copied, bytes_before=0, bytes_after=0,
                     collectives_before=0, collectives_after=0, gmm_launches_saved=0).saved_s

    return max(options, key=saved)  # the first of equals: the split
