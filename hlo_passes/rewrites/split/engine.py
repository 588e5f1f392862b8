"""The engine both MoE rules share: halves of one array that take the same
path apart and meet again.

A prefused MoE weight W[E, D, 2F] is sliced into gate and up halves, each
half goes through the same chain of ops on its own — collectives (all-gather
forward; reduce-scatter or all-reduce for the weight gradient), element-wise
ops such as convert or copy, sharding annotations, a shard_map boundary —
and the halves meet again:

* ``concat``: a concatenate along the split dimension;
* ``pad_add``: each half padded back to its place with zeros and the pads
  added (how jax's transpose of a slice reassembles a gradient);
* ``two_gmm``: each half is the weight of its own grouped matmul (GMM) with
  the same left-hand side and group sizes.

Replacement: the same chain applied once to the whole array, read directly
where the halves met (``concat``, ``pad_add``), or one GMM on it whose output
is sliced into the halves' results (``two_gmm``).  Applying an op to W and
then slicing equals slicing and then applying it, for every op allowed in a
chain, as long as no collective runs along the split dimension and nothing
resizes it: the checks below make sure of that, and refuse with a reason.

A rule is this engine with its strategies: the ``sources`` its halves may
start from (``sources``), the ``meetings`` it looks for (``meetings``), its
collectives (``cost.CollectiveModel``: which steps communicate, and what the
site costs).  A site goes through four stages kept apart: matching (a walk
down from each meeting's pieces, through ops and ``crossings`` boundaries),
legality checks (each a ``Refusal`` with its reason: a near miss), cost, and
replacement.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...checks import Refusal
from ...gmm.kernel_calls import gmm_kernel
from ...ir import Instruction, Module, Shape, Value
from ...pass_interface import Changes, PassContext
from ...report import CollectiveCost, Site, SitePicture, location_of, note_instruction
from ...ir.op_table import Trait, collective_kind, with_trait
from ...ir.rewriter import Operand, Rewriter, as_value
from ...ir.analysis import is_sharding_call, remove_dead, resized, same_op
from ...rule import PatternRule, check
from .chains import INCONSISTENT, WINDOWS, check_windows, dim_size, map_split_dim
from .cost import CollectiveModel
from .figures import BlockedOrder, blocked_order, site_bytes
from .dequant import SideOperand, check_sides, side_costs
from .crossings import Boundary, Crossing, result_shape
from .fusions import FusedCopy
from .gmms import difference, fused_dots, is_gmm_op
from .held import combine, held_group, regroup, through_held
from .meetings import Concatenates, Finder, GmmPairs, SplitCollectiveFinder, blocks_in_order, \
    interleaved_piece, slice_for_tops
from .opening import closed_fusion, keep_for_others, open_fusions
from .picture import site_picture
from .carry_whole import carry_whole
from .pipelined import carried_halves, rejoined_halves
from .replicated import no_weight_split, same_on_every_device, unsplit
from .reshard import Resharded
from .sources import SliceSource, Source, StackedAxis
from .types import Chain, Meeting, SourcePlan, step_kind
from .walk import MAX_CHAIN_STEPS, Callers, Scan
from .details import SplitDetails


def _nothing_moves(chains: list[Chain], steps: CollectiveModel, anchor: Instruction) -> Refusal:
    """Why a site whose halves run no collective is none: its collectives run over groups of
    one device (a psum or gather over a mesh axis of size 1), or its sharding changes move
    nothing on this mesh; fusing would save no collective."""
    lonely = next((op for c in chains for op in c.ops if steps.over_one_device(op)), None)
    if lonely is not None:
        return Refusal("group-of-one", f"{lonely.ref} runs over replica groups of one device (a mesh axis of "
                                       "size 1): it moves nothing and XLA keeps it as a copy, so there is no "
                                       "collective to fuse", lonely)
    return Refusal("no-collective", f"the halves reach {anchor.ref} without a collective: their sharding "
                                    "changes move nothing on this mesh, so there is no gather to fuse", anchor)


# Reductions: where every device contributes the same value, they move nothing a fusion saves.
_REDUCTIONS = frozenset({"all-reduce", "reduce-scatter"})


def _reduced_operand(chain: Chain, k: int) -> tuple[Instruction, int] | None:
    """(value, result) the chain's step ``k`` (a reduction) reduces for this half."""
    op = chain.ops[k]
    if len(op.operands) == 1:
        return op.operands[0], op.operand_results[0] if op.operand_results else 0
    before = chain.ops[k - 1] if k > 0 else chain.start
    if isinstance(before, Boundary):
        return None
    for n, operand in enumerate(op.operands):
        if operand is before:
            return operand, op.operand_results[n] if op.operand_results else 0
    return None


# Steps after a reduction that split its result over the devices (a sharded weight's gradient): a
# partition's window, and every collective that does not leave each device the whole value.
_WHOLE_ON_EVERY_DEVICE = frozenset({"all-gather", "all-reduce"})
_SPLITTING = frozenset({"dynamic-slice"}) | {d.name for d in with_trait(Trait.COLLECTIVE)
                                             if collective_kind(d.name) not in _WHOLE_ON_EVERY_DEVICE}


def _stays_whole(steps: list[Any]) -> bool:
    """Whether the reduced value stays whole on every device up to where the halves meet: no
    reduce-scatter or partition's window, no sharding change, no shard_map exit that splits it
    (the weight is replicated, not FSDP-sharded)."""
    for step in steps:
        if isinstance(step, Boundary):
            out = getattr(step, "out_sharding", None)
            if out is not None:
                try:
                    text = out()
                except Refusal:
                    return False
                if not unsplit(text or None):
                    return False
            elif not isinstance(step, FusedCopy):
                return False
        elif step.opcode in _SPLITTING or step.opcode == "sdy.sharding_constraint" or is_sharding_call(step):
            return False
    return True


def _reduces_what_all_hold(chains: list[Chain], steps: CollectiveModel) -> Refusal | None:
    """``no-collective`` where every half's first reduction sums a value every device computes
    alike (``replicated``: a replicated weight's gradient from replicated tokens, which jax's
    ``check_vma=False`` still reduces): fusing saves no collective worth a rewrite.  None otherwise."""
    first: Instruction | None = None
    if not no_weight_split(chains[0].start.module):
        return None  # an FSDP program: its reductions hand out shards
    for chain in chains:
        k = next((n for n, op in enumerate(chain.ops) if not isinstance(op, Boundary)
                  and op.opcode in _REDUCTIONS and steps.communicates(op)), None)
        if k is None:
            return None
        if chain.ops[k].opcode != "all-reduce" or not _stays_whole(chain.ops[k + 1:]):
            return None  # the gradient of a sharded weight: the reduction also hands out its shards
        reduced = _reduced_operand(chain, k)
        if reduced is None or not same_on_every_device(*reduced):
            return None
        first = first or chain.ops[k]
    assert first is not None
    return Refusal("no-collective", f"{first.ref} reduces a value every device computes alike (a replicated "
                                    "weight used on replicated tokens): it sums copies, moving nothing a "
                                    "fusion would save, so there is no reduction to fuse", first)


@dataclass
class Candidate:
    """A candidate site of a split rule: where the halves meet and the chains that lead there,
    and what the checks learn of it on the way (each check fills in what the next ones read)."""

    meeting: Meeting
    chains: list[Chain]
    source: Source | None = None
    plan: SourcePlan | None = None
    split_dims: list[int] = field(default_factory=list)  # the split dimension after each step
    out_dim: int | None = None  # along which the fused value is split where the halves met
    costs: tuple[CollectiveCost, CollectiveCost] | None = None  # collectives before, after
    # Two weights gathered along the dimension they are joined along: how the meeting reads
    # them, in blocks (``cost.blocked_order``); None: side by side.
    blocked: BlockedOrder | None = None
    # The scales the halves are multiplied by on the way (quantized weights, ``dequant``).
    sides: list[SideOperand] = field(default_factory=list)

    @property
    def fusions(self) -> list[Instruction]:
        """The fusions of optimized HLO the site runs through (``opening``: opened to rewrite it):
        the halves' slices, their layout copies, the fusion the halves meet in."""
        found: dict[int, Instruction] = {}
        for chain in self.chains:
            if chain.cut is not None and chain.cut.fused:
                # (a half read out of a multi-output fusion: that fusion)
                fusion = chain.start if chain.start.opcode == "fusion" else chain.start.operands[0]
                found[id(fusion)] = fusion
            for step in chain.ops:
                if isinstance(step, Boundary) and step.compiled:
                    found[id(step.after)] = step.after
        if self.meeting.anchor.opcode == "fusion":
            found[id(self.meeting.anchor)] = self.meeting.anchor
        if self.plan is not None and isinstance(self.plan.extra, Resharded):
            found.update((id(f), f) for f in self.plan.extra.fusions)  # they hold the array the halves are cut from
        return list(found.values())


class SplitFusion(PatternRule[Candidate]):
    """A rule over split chains: subclasses name their collectives and strategies (where the
    halves start, ``sources``; where they meet, ``meetings``); the checks, the report and the
    replacement below are the same for all of them."""

    # What the rule follows and counts (the pre-scan reads these too): its
    # collectives, and whether sharding changes the partitioner turns into
    # collectives (Shardy, GSPMD) count as ones.
    collectives: frozenset[str]
    implicit: bool = False
    sources: tuple[Source, ...] = (SliceSource(),)
    meetings: tuple[type[Finder], ...] = (Concatenates, GmmPairs, SplitCollectiveFinder)

    @property
    def steps(self) -> CollectiveModel:
        return CollectiveModel(frozenset(self.collectives), self.implicit)

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        # Collectives held as GPU and TPU pipelines hold them (async pairs, combined ops) are
        # read taken apart and held again after the rewrite (``held``); halves carried to the
        # next loop iteration by XLA's collective pipeliner, and joined again there, are named
        # (``pipelined``).  All of it through the pipeline's rewriter: journaled and verified
        # as this rule's round.
        changes = through_held(super().run, module, self.collectives, rewriter, context)
        if not rewriter.dry_run and any(s.rewritten for s in changes.sites):
            # The halves a rewritten pipelined loop carries, joined again in the next iteration:
            # carried whole (``carry_whole``).
            carry_whole(rewriter, module, self.collectives)
        at_sites = {(s.location.computation, s.location.line) for s in changes.sites}
        return Changes(changes.sites, changes.near_misses + [
            m for m in [*carried_halves(module, self.collectives, self.name),
                        *rejoined_halves(module, self.collectives, self.name)]
            if (m.location.computation, m.location.line) not in at_sites])

    # ---- match -------------------------------------------------------------
    def match(self, module: Module) -> Iterator[Candidate]:
        scan = Scan(module, self, Callers(module), self.steps, self.sources)
        finders = [kind(scan) for kind in self.meetings]
        everywhere = [f for f in finders if f.opcodes is None]
        by_opcode: dict[str, list[Finder]] = {}
        for f in finders:
            for opcode in f.opcodes or ():
                by_opcode.setdefault(opcode, []).append(f)
        # Who is asked at each opcode: those that asked for it, then those that look everywhere.
        asking = {opcode: asked + everywhere for opcode, asked in by_opcode.items()}
        current = None
        try:
            for instr in list(module.instructions()):
                asked = asking.get(instr.opcode, everywhere)
                if asked:
                    current = instr
                    for finder in asked:
                        for meeting, chains in finder.at(instr):
                            yield Candidate(meeting, chains)
        except Exception as err:
            note_instruction(err, current)
            raise
        for finder in finders:
            for meeting, chains in finder.finish():
                yield Candidate(meeting, chains)

    def anchor(self, candidate: Candidate) -> Instruction:
        return candidate.meeting.anchor

    def _run(self, rw: Rewriter, candidate: Candidate, context: PassContext) -> Site:
        # A site whose halves an earlier site's rewrite changed (it opened a slice fusion both
        # read, the forward gather's and its recomputation's, ``_unshare``): its chains hold ops
        # that are gone; the site is read again where it meets.
        if _stale(candidate):
            anchor = self.anchor(candidate)
            again = next((f for f in self._found_again(rw.module, anchor) if self.anchor(f) is anchor), None)
            if again is None and any(isinstance(step, Crossing) and step.param.computation is None
                                     for chain in candidate.chains for step in chain.ops):
                # Its halves now enter as slices of the whole array, which an earlier site's rewrite
                # fed into this shard_map too (``crossings.shared_callers``): gathered once with it.
                raise Refusal("no-collective", f"the halves {anchor.ref} reads are gathered with an earlier "
                              "site's: they are slices of the whole array it fused, gathered once", anchor)
            candidate = again or candidate
        return super()._run(rw, candidate, context)

    # ---- checks (in this order; each refusal names its check id) ------------
    @check()
    def source(self, c: Candidate) -> None:
        """Where the halves start: slices of one weight, two GMMs, two weights (the source's checks)."""
        start = c.chains[0].start
        c.source = next(s for s in self.sources if s.starts_chain(start, 1))
        c.plan = c.source.check(c.chains, c.meeting)

    @check()
    def paths(self, c: Candidate) -> None:
        """Every half takes the same path, and nothing on it works along the split dimension."""
        assert c.plan is not None
        # Split into blocks by a shard_map on the way (tensor parallelism), unless gathered.
        c.split_dims = _check_chains(c.chains, c.plan.split_dim, 1 if c.plan.gathered else c.plan.blocks,
                                     c.plan.reassembled, gathers_split=c.plan.block > 0,
                                     scatters_split=c.plan.scattered > 0)

    @check("dequant-operand")
    def dequantized(self, c: Candidate) -> None:
        """A half dequantized on the way is multiplied by its own half of one scale, or by one
        value the same along the split dimension."""
        plan = c.plan
        assert plan is not None
        side_by_side = isinstance(c.source, SliceSource) and plan.extra is None and plan.stride == 1 \
            and plan.blocks == 1 and not plan.block and plan.reassembled is None
        c.sides = check_sides(c.chains, c.split_dims, side_by_side)

    @check()
    def meets(self, c: Candidate) -> None:
        """Where the halves meet joins them as they were cut (the meeting's checks)."""
        c.out_dim = c.meeting.check(c.chains, c.split_dims)
        assert c.plan is not None
        c.blocked = blocked_order(c.meeting, c.chains, c.plan, c.split_dims)

    @check("extra-users")
    def single_use(self, c: Candidate) -> None:
        assert c.source is not None
        _check_single_use(c.meeting.single_use_part(c.chains), c.source.slices_for_other_users,
                          c.source.handed_on_only)

    @check("group-of-one", "no-collective")
    def moves(self, c: Candidate) -> Refusal | None:
        """The halves communicate: there is a collective to fuse."""
        c.costs = self.steps.site(c.chains, c.split_dims)
        if c.sides:  # a sharded scale is gathered per half too, and once fused
            before, after, moved = side_costs(c.sides, self.steps)
            c.costs[0].count += before
            c.costs[0].bytes_moved += moved
            c.costs[1].count += after
            c.costs[1].bytes_moved += moved
        if c.costs[0].count == 0:
            return _nothing_moves(c.chains, self.steps, c.meeting.anchor)
        return _reduces_what_all_hold(c.chains, self.steps)

    # ---- report, and the fix -------------------------------------------------
    def site_for(self, c: Candidate, context: PassContext) -> Site:
        """The site, its GMMs kept as written where merging them would round differently on the
        backend that runs the program (``gmms_kept``)."""
        assert c.plan is not None
        c.plan.gmms_kept = gmms_kept(c, context)
        c.plan.combined = c.plan.gmms_kept is not None and combinable(c, self.collectives)
        if c.plan.combined:
            c.plan.gmms_kept = (f"{c.plan.gmms_kept}; their reductions run as one combined "
                                f"{_combined_kinds(c, self.collectives)} of both results, each reduced as before "
                                "(XLA's combined form: no join, no copy)")
        elif c.plan.gmms_kept is not None and c.source is not None and c.source.gmm_launches \
                and c.meeting.joins and not c.meeting.compiled:
            # Why the results are joined here (a copy the cost model prices), where inside XLA the
            # combined form costs none: StableHLO has no reduction of several operands, and HLO text
            # goes back to XLA through StableHLO (``runtime.compile_text``, jax's import).
            c.plan.gmms_kept = (f"{c.plan.gmms_kept}; their results are joined to be reduced once (a copy): "
                                "one combined reduce-scatter of both, which copies nothing, exists only in "
                                "optimized HLO (the pass inside XLA, HLO_PASSES=rewrite), StableHLO's "
                                "reduce_scatter taking one operand")
        return self.site(c)

    def site(self, c: Candidate) -> Site:
        """What the site costs now and fused, and its picture."""
        assert c.source is not None and c.plan is not None and c.costs is not None
        meeting, chains, source, plan = c.meeting, c.chains, c.source, c.plan
        before, after = c.costs
        removed, added = site_bytes(meeting, chains, source, plan)
        added += meeting.added_bytes(chains)
        if c.blocked is not None:
            added += c.blocked.copied
        if plan.combined:
            # One combined collective of the kept GMMs' results: nothing joined before it, and
            # the fusion that put the reduced halves back together reads them as before.
            removed, added = 0, 0
        bytes_saved = removed - added + before.bytes_moved - after.bytes_moved
        site = Site(
            rule=self.name, form=meeting.form, location=location_of(meeting.anchor, meeting.origin),
            before=before, after=after, bytes_saved=bytes_saved, rewritten=False,
            pieces=[location_of(ch.start, ch.origin) for ch in chains],
            copies_removed=removed, copies_added=added,
            gmm_launches_saved=len(chains) - 1 if (meeting.gmm_launches or source.gmm_launches)
            and plan.gmms_kept is None else 0,
            details=SplitDetails(
                halves=len(chains), split_dim=plan.split_dim, split_sizes=plan.sizes,
                # The array the halves are cut from (or, for two GMMs, the first GMM).
                weight=source.weight(chains), layer=source.layer(chains),
                collectives="explicit" if any(
                    not isinstance(op, Boundary) and op.opcode in self.collectives for op in chains[0].ops)
                else "implicit",
                blocked=c.blocked.described() if c.blocked is not None else None,
                gmms_kept=plan.gmms_kept, combined=True if plan.combined else None),
        )
        return site

    def picture(self, c: Candidate, site: Site) -> SitePicture:
        """The site's ops before the rewrite and the ops it puts there (drawn when the pipeline's
        context asks for pictures; the driver notes a drawing that fails)."""
        assert c.plan is not None
        return site_picture(
            self.name, c.meeting, c.chains, c.plan.split_dim, c.split_dims, c.out_dim,
            f"collectives {site.before.count} -> {site.after.count}, saves {site.bytes_saved:,} bytes per device",
            gmms_kept=c.plan.gmms_kept is not None, combined=c.plan.combined)

    def held_back(self, c: Candidate, site: Site) -> str | None:
        fusions = c.fusions
        closed = closed_fusion(fusions)
        if closed is not None:
            return f"{closed.reason}; rewrite the module before optimization (a lowering or an early dump)"
        if fusions and c.plan is not None and isinstance(c.plan.extra, StackedAxis):
            # Opened, the size-2 axis's slice and reshape are a slice and a bitcast in the
            # fusion's layout, which the stacked source does not read yet.
            return ("the halves of the size-2 axis are cut and reshaped inside one fusion of optimized HLO; "
                    "rewrite the module before optimization (a lowering or an early dump)")
        assert c.source is not None and c.plan is not None
        # (Halves' GMMs that XLA:CPU runs through YNNPACK are not merged but kept as written:
        # ``gmms_kept``, set by ``site_for`` before this is asked.)
        held = super().held_back(c, site)
        if held is not None and c.plan.gmms_kept is not None:
            # What the fix would be, and why it copies, beside its price (the joined results).
            held = f"{held} ({c.plan.gmms_kept})"
        return held or c.source.not_rewritten(c.plan, c.chains)

    def rewrite(self, rw: Rewriter, c: Candidate) -> None:
        if c.plan is not None and c.plan.combined:
            # The kept GMMs' reductions combined where they are: no fusion is opened, nothing
            # else changes.
            combine_reductions(rw, c.chains, self.collectives, self.name)
            return
        if c.fusions:
            kept = c.plan.gmms_kept if c.plan is not None else None
            c = self._opened(rw, c)
            if c.plan is not None:
                c.plan.gmms_kept = kept  # what the site's report said, found before the opening
        assert c.source is not None and c.plan is not None
        _replace(rw, c.meeting, c.chains, c.source, c.plan, c.split_dims, c.out_dim, c.blocked, c.sides)

    def _opened(self, rw: Rewriter, c: Candidate) -> Candidate:
        """The site of optimized HLO ``c`` once its fusions are opened (``opening``), checked
        again: the same site in the after-partitioning form the engine rewrites."""
        meeting = c.meeting
        inner = getattr(meeting, "concat", None) if meeting.anchor.opcode == "fusion" else None
        # A fusion the site opens that another site reads too (the recomputation's pieces cut
        # from the same slice fusion): that site keeps a copy of its own, fused.
        keep_for_others(rw, c.fusions, [chain.start for chain in c.chains])
        opened = open_fusions(rw, c.fusions)
        made = {id(v.op) for v in opened.values()}
        anchor = opened[id(inner)].op if inner is not None else meeting.anchor
        # Each op a pass gives its own reader (``_unshare``) makes the site found once more;
        # a chain has at most MAX_CHAIN_STEPS ops below its collective.
        for _ in range(MAX_CHAIN_STEPS + 1):
            again = False
            for found in self._found_again(rw.module, anchor):
                if self.anchor(found) is not anchor or found.fusions:
                    continue
                refusal = self.refusal(found)
                if refusal is not None and _unshare(rw, found.chains, refusal, made, self.steps):
                    again = True
                    break
                if refusal is not None:  # a bug: the checks must agree on both forms of a site
                    raise RuntimeError(f"{self.name}: the site at {anchor.ref} passed its checks inside fusions "
                                       f"and is refused once they are opened ({refusal.check}: {refusal.reason})")
                return found
            if not again:
                break
        raise RuntimeError(f"{self.name}: the site at {meeting.anchor.ref} is not found again once its fusions "
                           "are opened")

    def _found_again(self, module: Module, anchor: Instruction) -> Iterator[Candidate]:
        """The candidates of ``module`` to look for the opened site ``anchor`` among: first the
        meetings the finders see at ``anchor`` alone (a concatenate's finder needs nothing else),
        then, for a meeting only a whole pass finds (a finder's ``finish``), every candidate.
        Matching the whole module again for each site made a module of n sites cost n passes."""
        scan = Scan(module, self, Callers(module), self.steps, self.sources)
        for kind in self.meetings:
            finder = kind(scan)
            if finder.opcodes is None or anchor.opcode in finder.opcodes:
                for meeting, chains in finder.at(anchor):
                    yield Candidate(meeting, chains)
        yield from self.match(module)


def gmms_kept(c: Candidate, context: PassContext) -> str | None:
    """Why the site's GMMs are kept as written rather than run as one GMM on the joined operand
    (None: there are none to merge, or merging them is as exact as before).  One dot of width 2F
    equals two of width F, joined, bit for bit, only where the backend sums both in the same
    order; XLA:CPU's YNNPACK picks its kernel, and that order, by the dot's shape (measured:
    docs/optimized-hlo.md).  Optimized HLO says it (a GMM in its ``__ynn_fusion``); before
    optimization the entry point that knows the backend says it (``context.dots_round_by_shape``,
    ``hlo_passes.jit``'s probe).  The collectives are still fused (``_replace``): each GMM reads
    its slice of the one gather, or the GMMs' results are joined and reduced once."""
    assert c.source is not None
    if c.meeting.gmm_launches and c.meeting.gmms:
        gmms = list(c.meeting.gmms)
    elif c.source.gmm_launches:
        gmms = [chain.start for chain in c.chains]
    else:
        return None
    dots = [g for g in gmms if gmm_kernel(g) is None and is_gmm_op(g)]
    if not dots:
        return None  # grouped-matmul kernels, emitted again for the whole weight (``TwoGmm``)
    fused = fused_dots(dots)
    if fused:
        return (f"GMMs kept apart: {fused[0].ref} runs in XLA:CPU's YNNPACK, whose dots round by their shape, "
                "one GMM on the joined operand would not be bit-equal")
    # A ragged-dot the entry point lowers to a grouped-matmul kernel afterwards (``kernel=``) is no
    # dot of XLA's: merged into one kernel call as before.
    target = context.gmm_target
    xla_dots = [g for g in dots if g.opcode != "ragged-dot" or target is None or target.kernel_of(g)[0] == "xla"]
    if context.dots_round_by_shape and xla_dots:
        return ("GMMs kept apart: this backend's batched dots round by their shape (XLA:CPU's YNNPACK), "
                "one GMM on the joined operand would not be bit-equal")
    return None


def _reduction_steps(c: Candidate, collectives: frozenset[str]) -> list[list[Instruction]]:
    """The chains' collective steps, step by step (each list: the halves' ops of one step)."""
    steps = []
    for k, op in enumerate(c.chains[0].ops):
        if isinstance(op, Instruction) and op.opcode in collectives:
            steps.append([chain.ops[k] for chain in c.chains])
    return steps


def _combined_kinds(c: Candidate, collectives: frozenset[str]) -> str:
    kinds = list(dict.fromkeys(ops[0].opcode for ops in _reduction_steps(c, collectives)))
    return " and one ".join(kinds)


# The collectives XLA:CPU runs combined (several operands, a tuple result), in optimized HLO:
# its AllReduceCombiner's all-reduce, and a reduce-scatter of several operands (compiled and run
# by XLA:CPU inside XLA, jax 0.10.2 and 0.12.1: docs/optimized-hlo.md).  StableHLO's
# reduce_scatter takes one operand, so the form exists only in HLO that XLA compiles as it is.
_COMBINABLE = frozenset({"all-reduce", "reduce-scatter"})


def combinable(c: Candidate, collectives: frozenset[str]) -> bool:
    """Whether the site's halves, computed by GMMs kept as written (``gmms_kept``), are fused by
    combining their reductions into one collective per step (``held.combine``) rather than by
    joining the GMMs' results (``sources.kept_gmms_joined``, a copy of them) and reducing that:
    optimized HLO (the pass inside XLA and its dump: XLA compiles the module as HLO, where a
    reduction takes several operands; the meeting is the fusion that reads the reduced halves,
    ``SplitCollectives``), each step a plain reduction (not already held in a combined or async
    op), of the halves' results side by side (not scattered in blocks), in one computation."""
    plan, source, meeting = c.plan, c.source, c.meeting
    if plan is None or source is None or not source.gmm_launches:
        return False
    steps = _reduction_steps(c, collectives)
    if not steps:
        return False
    # Two weights' gradients that go apart (MOE004's ``Apart``): in optimized HLO too, which says
    # so by XLA's combined ops (a step's reductions taken apart from them) or its fusions.
    apart = meeting.ends_apart and (any(held_group(op) is not None for ops in steps for op in ops)
                                    or _optimized(meeting.anchor))
    if not (meeting.compiled and meeting.joins or apart):
        return False
    if plan.scattered or plan.block or plan.blocks > 1 or c.blocked is not None or c.sides:
        return False
    for ops in steps:
        comp = ops[0].computation
        held = [held_group(op) is not None for op in ops]
        # A step's reductions all plain (one new combined op), or some taken apart from XLA's
        # combined ops (MOE004's apart gradients: moved into the first such op, ``held.regroup``).
        if ops[0].opcode not in _COMBINABLE or any(
                op.computation is not comp or len(op.operands) != 1 or op.shape.is_tuple for op in ops) \
                or (any(held) and not apart):
            return False
    # No half's reduction is computed from another's (one combined op would read its own result):
    # every op of a chain has one reader, the next step (``single_use``, checked before, else
    # ``extra-users``), and the last is read by the meeting alone, which reads the other half's
    # reduction too: a path from one half's reduction to the other's would be a cycle.
    return True


def combine_reductions(rw: Rewriter, chains: list[Chain], collectives: frozenset[str], rule: str) -> None:
    """Each step of the halves' reductions as one combined collective (``held.combine``): the GMMs,
    the copies between and the meeting stay as they are (``combinable``)."""
    for k, op in enumerate(chains[0].ops):
        if isinstance(op, Instruction) and op.opcode in collectives:
            members = [chain.ops[k] for chain in chains]
            if any(held_group(m) is not None for m in members):
                regroup(rw, members, rule)  # held again as one op of XLA's (``held.hold_again``)
            else:
                combine(rw, members, rule)


def _optimized(anchor: Instruction) -> bool:
    """Whether ``anchor``'s computation is optimized HLO, which XLA compiles as it is (a reduction
    of several operands is its own form there): it holds fusions, which only XLA's pipeline makes."""
    comp = anchor.computation
    return comp is not None and comp.module is not None and comp.module.dialect == "hlo" and any(
        i.opcode == "fusion" for i in comp.instructions)


def _stale(c: Candidate) -> bool:
    """Whether an op ``c`` was matched on is gone (an earlier site's rewrite removed it)."""
    for chain in c.chains:
        for step in [chain.start, *chain.ops]:
            if (step.after if isinstance(step, Boundary) else step).computation is None:
                return True
    return False


def _unshare(rw: Rewriter, chains: list[Chain], refusal: Refusal, made: set[int],
             steps: CollectiveModel) -> bool:
    """A half's op below its first collective that a fusion computed for each of its readers,
    and opening the fusion left with several (``extra-users``): give the other readers a copy
    of their own; whether one was made.

    XLA's CSE merges a half's slice fusion (a slice, a convert to the gather's type) with the
    equal one the ``jax.checkpoint`` recomputation of the same layer reads: one fusion read by
    the forward gather and by its recomputation, each a site.  Inside the fusion the site's
    chain starts at the slice, which may have other readers; opened, the convert after it is
    a step of the chain read by both gathers.  A copy of an op that computes from the shard
    (no collective below it, only what the opening put there) computes the same values for
    its other readers, and each site's chain is its own again, as it was inside the fusion."""
    op = refusal.instr
    if refusal.check != "extra-users" or id(op) not in made or steps.communicates(op):
        return False
    for chain in chains:
        if op not in chain.ops:
            continue
        k = chain.ops.index(op)
        below = chain.ops[:k]
        if k + 1 >= len(chain.ops) or any(isinstance(s, Boundary) or steps.communicates(s) for s in below):
            return False
        reader = chain.ops[k + 1]
        if isinstance(reader, Boundary) or not steps.communicates(reader) and id(reader) not in made:
            return False
        others = [u for u in op.users if u is not reader]
        copy = rw.clone(op, op.operand_values, op.shape, after=op)
        made.add(id(copy))
        for user in others:
            for i, operand in enumerate(list(user.operands)):
                if operand is op:
                    rw.set_operand(user, i, Value(copy, user.operand_results[i]))
        return True
    return False


# Collectives that work along one dimension, and what they do there.
ALONG_A_DIMENSION = {"all-gather": "gather", "reduce-scatter": "scatter"}


def _check_chains(chains: list[Chain], split_dim: int, blocks: int = 1, reassembled: int | None = None,
                  gathers_split: bool = False, scatters_split: bool = False) -> list[int]:
    """Every half goes through the same ops; nothing gathers or shards along the split dimension
    (``blocks`` > 1: two weights joined shard by shard, whose split dimension a shard_map's
    in_shardings split into those shards as they enter, ``pairs.PairSource``) but the step
    ``reassembled``, the gather the source proved puts the halves' pieces back in order
    (``gathers_split``: two weights of one size, which a gather along it leaves in blocks the
    meeting splits by; ``scatters_split``: two weights' gradients joined in blocks that a
    reduce-scatter along it hands out whole, ``SourcePlan.scattered``)."""
    first = chains[0]
    for c in chains[1:]:
        if [step_kind(op) for op in c.ops] != [step_kind(op) for op in first.ops]:
            raise Refusal("same-collectives",
                          f"the halves take different paths: {[step_kind(op) for op in first.ops]} vs "
                          f"{[step_kind(op) for op in c.ops]}", c.top)
    split_dims = []
    dim = split_dim
    for k, op in enumerate(first.ops):
        steps = [c.ops[k] for c in chains]
        if isinstance(op, Boundary):
            if blocks > 1 and isinstance(op, Crossing):
                op.check(steps, dim, blocks)
            else:
                op.check(steps, dim)
            split_dims.append(dim)
            continue
        for other in steps[1:]:
            if isinstance(other, Boundary):  # a fusion's copy where the first half has a plain one
                raise Refusal("same-collectives", f"{other.ref} and {op.ref} differ: one is a fusion", other.after)
            if not same_op(other, op):
                raise Refusal("same-collectives",
                              f"{other.ref} and {op.ref} differ in {difference(op, other)}", other)
            if other.computation is not op.computation:
                raise Refusal("same-computation", f"{other.ref} is in another computation than {op.ref}", other)
        if op.opcode in WINDOWS:
            check_windows(steps, dim)
        dim_in = dim
        dim = map_split_dim(op, dim)
        if op.opcode in ALONG_A_DIMENSION and "dimensions" not in op.attributes:
            raise Refusal(INCONSISTENT, f"{op.ref} does not say along which dimension it works", op)
        if k == reassembled:
            split_dims.append(dim)
            continue
        along = op.opcode in ALONG_A_DIMENSION and dim in tuple(op.attributes["dimensions"])
        if along and not (gathers_split and op.opcode == "all-gather") and \
                not (scatters_split and op.opcode == "reduce-scatter"):
            verb = ALONG_A_DIMENSION[op.opcode]
            raise Refusal(f"{verb}-dim", f"{op.ref} {verb}s along dimension {dim}, the split dimension: "
                          f"{verb}ing the whole array would interleave the halves", op)
        # Into a shard_map after Shardy's import: the shards two weights are joined by.
        shrink = blocks if op.opcode == "custom-call" and \
            op.attributes.get("custom_call_target") == "SPMDFullToShardShape" else 1
        for step in steps if not along else ():
            before = result_shape(step.operands[0], step.operand_results[0])
            if (dim_size(before, dim_in, step, f"the operand of {step.ref}")
                    != dim_size(step.shape, dim, step) * shrink):
                raise Refusal("split-dim-sharded", f"{step.ref} changes the size of the split dimension "
                              f"({before} -> {step.shape})", step)
        split_dims.append(dim)
    return split_dims


def _other_users(chain: Chain) -> list[Instruction]:
    """Users of a half's last op besides where the halves meet (the meeting reads it once)."""
    top = chain.ops[-1] if chain.ops else None
    if top is None or isinstance(top, Boundary) or len(top.users) < 2:
        return []
    users: list[Instruction] = top.users
    return users


def _check_single_use(chains: list[Chain], top_may_be_shared: bool = False, handed_on_only: bool = False) -> None:
    """Intermediates used elsewhere would keep the old gathers alive: refuse such sites
    (``top_may_be_shared``: a half's last op may have other users, which then read its
    slice of the fused value)."""
    for c in chains:
        # A start that is the array itself stays as it is (the fused chain reads it too); a
        # slice stays for its other readers (a copy, not a collective: the forward gather and
        # its ``jax.checkpoint`` recomputation may read one slice, each a site of its own).
        steps = ([c.start] if c.result is None and c.cut is None else []) + c.ops
        users = _other_users(c)
        if top_may_be_shared and users and (
                not handed_on_only or sum(not _hands_on(u) for u in users) == 1):
            steps = steps[:-1]
        for op in steps:
            users = op.users
            if len(users) != 1:
                where, origin = ((op.after, op.origin) if isinstance(op, Boundary)
                                 else (op, c.origin if op is c.start else None))
                raise Refusal("extra-users", f"{op.ref} has {len(users)} users "
                              f"({', '.join(u.ref for u in users[:4])}); fusing would keep "
                              "the per-half gathers alive", where, origin)


def _hands_on(user: Instruction) -> bool:
    """Whether ``user`` only hands a value out of its computation: a terminator (StableHLO's
    return), or HLO's root tuple."""
    comp = user.computation
    return user.is_terminator or (user.opcode == "tuple" and comp is not None and comp.root is user)


def _replace(rw: Rewriter, meeting: Meeting, chains: list[Chain], source: Source, plan: SourcePlan,
             split_dims: list[int], out_dim: int | None, blocked: BlockedOrder | None = None,
             sides: list[SideOperand] | None = None) -> None:
    """Apply the chain once to the whole array, where the halves met; drop the rest."""
    total = sum(plan.sizes)
    tops = [(c.top, c.top.shape) for c in chains]  # before the fused chain may retype the first
    if plan.blocks > 1 or blocked is not None:
        # Two weights joined shard by shard, or gathered along the joined dimension: a shard_map
        # splits them on the way, or the gathers grow them, and the meeting reads what reaches
        # it (read before the fused chain takes the halves' crossings).
        total = sum(c.top.shape.dims[split_dims[-1]] for c in chains)
    value, result = source.whole(rw, plan, chains)
    value, result, dropped, loose = _fused_chain(rw, chains, split_dims, value, result, sides or [])
    # A chain that ends leaving a shard_map ends at one result of its caller (the fused
    # gradient among the body's others): where the halves met reads that result.
    fused: Operand = Value(value, result) if result else value
    meeting.interleave, meeting.block = plan.stride, 1
    if blocked is not None and blocked.how == "reorder":
        fused = blocks_in_order(rw, fused, split_dims[-1], len(chains), blocked.block, before=meeting.anchor)
    elif blocked is not None:
        meeting.interleave, meeting.block = len(chains), blocked.block
    if plan.gmms_kept is not None and meeting.gmms:
        # The GMMs stay as written: each reads its half's slice of the fused chain's value.
        slice_for_tops(rw, [t for t, _ in tops], fused, split_dims[-1], meeting.interleave, meeting.block,
                       [shape for _, shape in tops])
    else:
        meeting.replace(rw, fused, out_dim, total)
    if source.slices_for_other_users:
        _slice_for_other_users(rw, chains, split_dims[-1], fused, meeting)
    # The other halves' boundaries go last, in an order that keeps the indices
    # (of operands, results) of the ones still to drop valid.
    for boundary in sorted(dropped, key=lambda b: b.drop_order()):
        loose.extend(boundary.drop(rw))
    remove_dead(rw, loose)


def _slice_for_other_users(rw: Rewriter, chains: list[Chain], dim: int, value: Operand,
                           meeting: Meeting) -> None:
    """What still reads a half's last op (besides the meeting, replaced by now) reads that
    half's slice of the fused value instead (interleaved as the meeting read it), so the
    half's own chain goes."""
    start = 0
    for i, c in enumerate(chains):
        top = c.ops[-1]
        width = top.shape.dims[dim]
        if not isinstance(top, Boundary) and top.users:
            after = as_value(value).op
            piece = (interleaved_piece(rw, value, dim, i, meeting.interleave, meeting.block, top.shape, after=after)
                     if meeting.interleave > 1 else rw.slice_along(value, dim, start, width, top.shape, after=after))
            rw.replace_all_uses(top, piece)
            remove_dead(rw, [top])
        start += width


def _fused_chain(rw: Rewriter, chains: list[Chain], split_dims: list[int], value: Instruction,
                 result: int, sides: list[SideOperand]) -> tuple[Instruction, int, list[Boundary], list[Instruction]]:
    """The first half's steps, each applied to the whole array starting at ``value``
    (a dequantizing multiply by the whole scale, ``sides``): (the fused chain's last value and
    its result, the other halves' boundaries, what was cut loose)."""
    dropped: list[Boundary] = []
    loose: list[Instruction] = []
    scales = {side.step: side for side in sides}
    for k, op in enumerate(chains[0].ops):
        size = sum(c.ops[k].shape.dims[split_dims[k]] for c in chains)
        side = scales.get(k)
        if side is not None:
            # After the halves' scales exist (what the fused scale reads is computed by then).
            first = _earliest([c.ops[k] for c in chains])
            operands: list[Operand] = [Value(value, result) if result else value,
                                       side.fused(rw, size, before=first)]
            if side.main:
                operands.reverse()
            value, result = rw.clone(op, operands, resized(op.shape, split_dims[k], size), before=first), 0
            continue
        if isinstance(op, Boundary):
            steps = [c.ops[k] for c in chains]
            # The value with its result: the array may be one result of several (the weight out of
            # a ``jax.checkpoint``'s optimization barrier), which the boundary's operand must name.
            value, result, cut = op.merge(rw, steps, Value(value, result) if result else value, split_dims[k], size)
            loose.extend(cut)
            dropped.extend(steps[1:])
            continue
        value = _fused_step(rw, op, value, result, resized(op.shape, split_dims[k], size),
                            _earliest([c.ops[k] for c in chains]))
        if op.opcode in WINDOWS:
            result = 0  # _fused_step read it
        if result:
            rw.set_operand(value, 0, Value(value.operands[0], result))
            result = 0
    return value, result, dropped, loose


def _earliest(ops: list[Instruction]) -> Instruction:
    """The one of the halves' ops the program runs first (the halves may run in any order)."""
    comp = ops[0].computation
    return ops[0] if comp is None or any(o.computation is not comp for o in ops) else \
        min(ops, key=comp.instructions.index)


def _fused_step(rw: Rewriter, op: Instruction, value: Instruction, result: int, shape: Shape,
                first: Instruction) -> Instruction:
    """A copy of the half's ``op`` on the whole array ``value`` (``first``: the halves' op the
    program runs first)."""
    if op.opcode in WINDOWS:
        # Its offsets are computed after W's chain starts: the window goes
        # where the first half's was, which they all dominate.
        new = rw.clone(op, [Value(value, result), *op.operand_values[1:]], shape, before=op)
        rw.set_attribute(new, "dynamic_slice_sizes", tuple(shape.dims))
        return new
    if value.computation is op.computation and value.opcode != "parameter":
        # Right after its input: every other input of the chain is W itself.
        return rw.clone(op, [value], shape, after=value)
    # Just entered this computation: right before the first of the halves' ops.
    return rw.clone(op, [value], shape, before=first)
