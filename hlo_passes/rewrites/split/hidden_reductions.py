"""Weight-gradient halves whose reductions the text does not show one op per half (MOE002, MOE004).

The gradient rules fuse reduction chains they can see: an all-reduce or reduce-scatter per half.
One form of a training step hides them, and the rules name such a site as a near miss
(``partitioner-reduction``) instead of passing it over: the lowered text (StableHLO, HLO before SPMD
partitioning) of a step that leaves the reduction to the partitioner (no shard_map: the
weight-gradient GMMs contract tokens sharded over the FSDP axes, and each half's gradient only has
its sharding changed on the way).  The partitioner inserts the reduction of each half there (an
all-reduce per half, or a reduce-scatter); after SPMD partitioning they are ops, and the rule fuses
them in that form (the after-partitioning dump, or ``hlo_passes.install``, which rewrites the
module XLA compiles).  Found like the rule's own sites, with sharding changes counted as steps that
communicate; named only where every check but the collective one passes (``no-collective`` is what
the rule itself would say of it), or where only ``order`` refuses it (said in the reason: the
partitioned module keeps that order).  ``HiddenReductionChecks`` is the rules' ``source`` check that
raises the meeting's refusal first: nothing else of such a site is checked by the engine.

The reductions XLA's combiner put into one tuple-shaped collective of optimized HLO are not hidden:
``held`` takes the combined op apart, and they are the rules' own sites.  Where the combiner put
every half's reduction of a step into the same op, though, the compiled program already runs one
collective per step and fusing the halves saves none: ``combined_refusal`` is the rules' check
``xla-combined`` of that (MOE002's halves of one weight, MOE004's two weights alike).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...checks import Refusal
from ...ir import Instruction
from ...rule import check
from .apart import Apart, end_above, groups_of_halves
from .cost import CollectiveModel, Step
from .crossings import Boundary
from .gmms import is_gmm_op
from .meetings import Concat, Finder, PadAdd, meet, pad_meeting
from .engine import Candidate, SplitFusion
from .held import held_group
from .types import Chain, Meeting
from .walk import Scan, chain_below

PARTITIONER = "partitioner-reduction"


class Hidden(Meeting):
    """A site the rule names and leaves: ``refusal`` says why (raised by the ``source`` check)."""

    refusal: Refusal


class Unreduced(Hidden):
    """Halves of a gradient that meet (``inner``: a pad + add or a concatenate) with sharding changes
    and no collective on the way: the partitioner reduces each."""

    def __init__(self, inner: Meeting, chains: list[Chain], model: CollectiveModel,
                 also: Refusal | None = None) -> None:
        self.inner = inner
        self.form = inner.form
        self.anchor = inner.anchor
        self.dim, self.dims = inner.dim, inner.dims
        changes = [op for op in chains[0].ops if model.communicates(op)]
        at = changes[0] if changes else inner.anchor
        where = at.after if isinstance(at, Boundary) else at
        gmms = ", ".join(c.start.ref if c.cut is None else c.cut.sliced.ref for c in chains)
        self.refusal = Refusal(
            PARTITIONER,
            f"the halves ({gmms}) reach {inner.anchor.ref} through sharding changes ({where.ref} first) and no "
            "collective: the SPMD partitioner reduces each half on its own there (an all-reduce or reduce-scatter "
            "per half, where the weight-gradient GMMs contract tokens sharded across devices); after partitioning "
            "the reductions are ops, and this rule checks and fuses them there (rewrite the after-SPMD-partitioning "
            "module: hlo_passes.install, or hlo-rewrite on that dump)"
            + (f"; there, as here, {also.check} refuses it: {also.reason}" if also is not None else ""), where)


class HiddenReductionChecks(SplitFusion):
    """The ``source`` check of a gradient rule that names hidden reductions: their refusal first."""

    @check()
    def source(self, c: Candidate) -> None:
        if isinstance(c.meeting, Hidden):
            raise c.meeting.refusal
        super().source(c)


def combined_refusal(c: Candidate, collectives: frozenset[str], pieces: str = "halves") -> Refusal | None:
    """Check ``xla-combined`` of a gradient rule (MOE002, MOE004): optimized HLO whose every
    reduction of the halves (``collectives``) XLA's combiner already put into one op (the halves'
    collectives, taken apart by ``held``, are members of one combined op at each step): one
    collective per step runs already, and the fix would save none.  A near miss placed where the
    site would be (rule.py places a near miss as it places a site), not a finding.  ``pieces``: what
    the reason calls the chains (MOE004's are two weights', not one's halves)."""
    steps = [[op for op in chain.ops if isinstance(op, Instruction) and op.opcode in collectives]
             for chain in c.chains]
    if not steps[0] or any(len(s) != len(steps[0]) for s in steps):
        return None
    for ops in zip(*steps):
        keys = {held_group(op) for op in ops}
        if len(keys) != 1 or None in keys:
            return None
    n = len(steps[0])
    return Refusal("xla-combined", f"XLA's combiner already reduces the {len(c.chains)} {pieces}' gradients in one "
                   f"op ({n} step{'s' * (n != 1)}, one collective each): the compiled program runs no more "
                   "collectives than the fix would, so it saves none", c.meeting.anchor, c.meeting.origin)


class _ShardingChanges(CollectiveModel):
    """The rule's collectives, and every change of sharding: a constraint (Shardy's, a Sharding
    call) or, after Shardy's import (GSPMD form), the copy a constraint became, which states
    its ``sharding``."""

    def communicates(self, step: Step) -> bool:
        if not isinstance(step, Boundary) and step.opcode == "copy" and "sharding" in step.attributes:
            return True
        return super().communicates(step)


# What the rule's own checks may say of a partitioner-reduced site that is still named: that it
# has no collective (the rule's view of it), or that a user of a half comes before the other half
# is computed (the same order the partitioned module keeps: the name says that it is refused there).
_STILL_NAMED = ("no-collective", "order")


def _besides(refusal: Refusal) -> Refusal | None:
    """The refusal a named site carries besides its own: none for the missing collective."""
    return refusal if refusal.check != "no-collective" else None


def _from_gradient_gmm(chain: Chain) -> bool:
    """A half computed by a GMM (a weight-gradient GMM, or a slice of one's result)."""
    if chain.cut is None:
        return is_gmm_op(chain.start)
    whole = chain.cut.whole
    return isinstance(whole, Instruction) and is_gmm_op(whole)


class PartitionerReductions(Finder):
    """Lowered text: gradient halves that meet after sharding changes and no collective."""

    opcodes = frozenset(("add", "concatenate"))

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.model = _ShardingChanges(frozenset(scan.collectives), implicit=True)

    def at(self, instr: Instruction) -> Iterable[tuple[Meeting, list[Any]]]:
        meeting = _meeting_at(instr, self.scan.pads)
        if meeting is None or self._chains(meeting.pieces) is not None:
            return ()  # not a meeting, or the rule's own site (a collective on every half)
        chains = [chain_below(op, self.scan.callers, self.model, self.scan.sources, r) for op, r in meeting.pieces]
        found = [c for c in chains if c is not None]
        if len(found) != len(chains) or not all(_from_gradient_gmm(c) for c in found):
            return ()
        # Every check of the rule but the collective one passes: the rule would say "no-collective".
        refusal = self.scan.rule.refusal(Candidate(meeting, found))
        if refusal is None or refusal.check not in _STILL_NAMED:
            return ()
        return ((Unreduced(meeting, found, self.model, _besides(refusal)), found),)


class PartitionerApart(Finder):
    """Lowered text: two weights' gradients (MOE004) that go apart, each with sharding changes and
    no collective on the way: found from the changes' ends, as ``apart.SeparateEnds`` finds
    reductions'."""

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.model = _ShardingChanges(frozenset(scan.collectives), implicit=True)

    def finish(self) -> Iterator[tuple[Meeting, list[Any]]]:
        scan = self.scan
        ends: dict[int, Chain | None] = {}
        for instr in scan.module.instructions():
            if instr.opcode in scan.collectives or not self.model.communicates(instr):
                continue
            end = end_above(instr)
            if id(end) not in ends and end.computation is not None:
                explicit = scan.chain(end, 0)  # a collective on the way: the rule's own site
                ends[id(end)] = None if explicit is not None else chain_below(
                    end, scan.callers, self.model, scan.sources, 0)
        met = self._met()
        chains = [c for c in ends.values() if c is not None and _from_gradient_gmm(c)
                  and not any(id(op) in met for op in c.ops)]
        for group in groups_of_halves(chains):
            if meet(group):
                continue
            refusal = scan.rule.refusal(Candidate(Apart(group), group))
            if refusal is not None and refusal.check in _STILL_NAMED:
                yield Unreduced(Apart(group), group, self.model, _besides(refusal)), group


    def _met(self) -> set[int]:
        """The steps of halves that a pad + add or a concatenate puts back together: one weight's
        (MOE002's), not two weights'."""
        met: set[int] = set()
        for instr in self.scan.module.instructions():
            meeting = _meeting_at(instr, self.scan.pads)
            if meeting is None:
                continue
            for op, result in meeting.pieces:
                chain = chain_below(op, self.scan.callers, self.model, self.scan.sources, result)
                if chain is not None:
                    met.update(id(step) for step in chain.ops)
        return met


def _meeting_at(instr: Instruction, pads: dict[Any, Any]) -> PadAdd | Concat | None:
    """The halves' meeting ``instr`` is (a pad + add, a concatenate), if it is one."""
    if instr.opcode == "add":
        return pad_meeting(instr, pads)
    if instr.opcode == "concatenate" and len(instr.operands) >= 2:
        return Concat(instr)
    return None
