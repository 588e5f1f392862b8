"""Halves that never meet again: each ends at its own consumer (MOE004's sites).

Gate and up stored as two weights ``wi_0``, ``wi_1`` have two gradients dW0,
dW1 that are reduced apart (a reduce-scatter per weight and stage, or an
all-reduce per half) and then used apart: each is a result of its own, or
feeds its own optimizer update.  Unlike MOE002's halves nothing joins them, so
the site is found from the ends: the last step of each reduction chain
(``SeparateEnds``), paired with the other chains that start where it starts —

* ``two_gmm_apart``: two weight-gradient GMMs that differ only in the
  activation gradients (``ApartGmmSource``: the ``GmmSource`` of the two-GMM
  form, with the dimension the halves join along read from the GMMs, since no
  meeting names it);
* ``split_apart``: slices of one gradient (TransformerEngine's ``jnp.split`` of
  the concatenated weight's gradient), each reduced apart.

Rewritten (``Apart.replace``) by the engine's one fused chain, and each end
replaced for its users by its slice of the fused result: a local slice of the
reduced array along a dimension no collective works along, so every user reads
the same values as before and the program's outputs are unchanged.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ...checks import Refusal
from ...ir import Instruction
from ...ir.op_table import Trait, op
from ...ir.rewriter import Operand, Rewriter, as_value
from ...ir.analysis import as_dot, free_dim_position, is_sharding_call, remove_dead, resized, same_value
from .chains import dim_size, in_dependency_order, is_chain_op, map_split_dim
from .crossings import Boundary
from .fusions import FusedCopy
from .gmms import is_gmm_op
from .meetings import HOLDERS, Concatenates, Finder, meet
from .reordered import ReorderedPadAdds
from .sources import GmmSource, check_gmm_sources
from .types import Chain, Meeting, SourcePlan, step_kind
from .walk import Scan

# A chain's end is followed up through its chain ops (converts, copies, windows of the
# reduced array, further stages) but not through sharding annotations or barriers,
# which say where a value lives and stay as they are for each half.
_NOT_FOLLOWED_UP = frozenset({"opt-barrier", "sdy.sharding_constraint"})


class Apart(Meeting):
    """The halves' ends, each with its own users: the fused chain's result, sliced (or, GMMs kept
    in optimized HLO, each end's reduction one operand of a combined one: ``engine.combinable``)."""

    ends_apart = True

    def __init__(self, chains: list[Any]) -> None:
        self.chains = chains
        self.tops = [c.top for c in chains]
        self.anchor = self.tops[0]
        self.form = "split_apart" if chains[0].cut is not None else "two_gmm_apart"
        self.reordered = False  # an end's user comes before the fused chain (``_check_order``)

    @property
    def origin(self) -> Instruction:
        # XLA's combiner merges the metadata of a combined op's operands into one op_name,
        # ``prefix/(a:b)``, and keeps one operand's stack frame: an end taken out of such an op
        # (MaxText's: the gradient clipping's norm beside the gradient) is placed at whichever
        # operand XLA kept (apply_gradient_clipping).  Then the site's line is its first
        # gradient's product's, where the user wrote the layer.
        meta = self.anchor.attributes.decoded("metadata") if "metadata" in self.anchor.attributes else None
        name = str(meta.get("op_name") or "") if isinstance(meta, dict) else ""
        if "/(" in name and name.endswith(")") and ":" in name[name.index("/("):]:
            start: Instruction = self.chains[0].start
            return start
        return self.anchor

    def single_use_part(self, chains: list[Any]) -> list[Any]:
        # The ends keep their users (each reads its slice): only what lies below must be single-use.
        return [dataclasses.replace(c, ops=c.ops[:-1]) if c.ops else c for c in chains]

    def check(self, chains: list[Any], split_dims: list[int]) -> int | None:
        dim = split_dims[-1]
        comp = self.anchor.computation
        for top in self.tops:
            dim_size(top.shape, dim, top)
            if top.computation is not comp:
                raise Refusal("same-computation", f"{top.ref} is in another computation than {self.anchor.ref}",
                              top)
        # (A fusion's copy in optimized HLO is one too: such a site is reported, never rewritten.)
        if any(isinstance(op, Boundary) and not op.compiled for c in chains for op in c.ops):
            raise Refusal("crosses-boundary", f"the reduction chain of {self.anchor.ref} crosses a call or "
                          "shard_map boundary; halves that never meet are fused within one computation", self.anchor)
        self._check_order(chains)
        return dim

    def _check_order(self, chains: list[Any]) -> None:
        """The fused chain goes at the latest start (or the first chain's steps), and each end's
        users read their slice of it.  A user that comes before that place in the program moves
        after it (the rewrite puts the computation in dependency order) unless the fused chain
        depends on it: a user of one half's end that the other half's GMM (or a step of a chain)
        is computed from would make a cycle.  Nor where the halves meet again past it: those are
        one weight's halves put back together.  (In a scanned training step without a shard_map the
        partitioner stacks the first weight's gradient into the scan's result before the second
        weight's gradient is computed, which nothing of the second reads.)"""
        comp = self.anchor.computation
        assert comp is not None, "a meeting the scan found"
        order = {id(i): n for n, i in enumerate(comp.instructions)}
        latest = max([order.get(id(c.start), -1) for c in chains] + [order.get(id(op), -1) for op in chains[0].ops])
        early = [(user, top) for top in self.tops for user in top.users
                 if user.computation is comp and order.get(id(user), latest + 1) <= latest]
        self.reordered = bool(early)
        if not early:
            return
        # What the fused chain reads is read by a half's start or a step of a chain: reaching one
        # of those from an end's user is reaching the fused chain.
        steps = [c.start for c in chains] + [op for c in chains for op in c.ops if not isinstance(op, Boundary)]
        for user, top in early:
            reached = _after(user, comp)
            cycle = next((op for op in steps if id(op) in reached), None)
            if cycle is not None:
                raise Refusal("order", f"{user.ref} reads {top.ref}, and {cycle.ref} (a half's "
                              f"{'start' if any(cycle is c.start for c in chains) else 'step'}) is computed from it: "
                              "the fused chain would read its own result", user)
            # Halves put back together further on (a size-2 axis restacked, interleaved halves
            # padded back) are one weight's, whose gradient is MOE002's: not moved as two weights'.
            ahead = _after(user, comp, past_holders=False)
            others = set().union(*(_after(t, comp, past_holders=False) for t in self.tops if t is not top))
            met = next((i for i in comp.instructions if id(i) in ahead and id(i) in others), None)
            if met is not None:
                raise Refusal("order", f"{user.ref} reads {top.ref} before the last half is computed, and the "
                              f"halves meet again at {met.ref}: one weight's halves, not two weights' gradients",
                              user)

    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        assert out_dim is not None
        comp = self.anchor.computation
        start, after = 0, as_value(value).op
        for top in self.tops:
            width = top.shape.dims[out_dim]
            piece = rw.slice_along(value, out_dim, start, width, resized(as_value(value).shape, out_dim, width),
                                   after=after)
            rw.replace_all_uses(top, piece)
            start, after = start + width, piece
        remove_dead(rw, list(self.tops))
        if self.reordered and comp is not None:  # an end's users that came first move after the fused chain
            in_dependency_order(rw, comp)


class ApartGmmSource(GmmSource):
    """Two weight-gradient GMMs reduced apart: joined along the free dimension of the operand they
    differ in (its last; no meeting says which), one GMM on the joined operand."""

    def check(self, chains: list[Any], meeting: Meeting) -> SourcePlan:
        gmms = [c.start for c in chains]
        first = gmms[0]
        varying = [j for j in range(len(first.operands))
                   if not all(len(g.operands) == len(first.operands) and same_value(g.operands[j], first.operands[j])
                              for g in gmms[1:])]
        out_dim = 0
        if len(varying) == 1:
            free = [p for p in (free_dim_position(first, varying[0], d)
                                for d in range(first.operands[varying[0]].shape.rank)) if p is not None]
            if not free:
                raise Refusal("gmm-contracts-split", f"operand {varying[0]} of {first.ref} has no free dimension "
                              "to join the halves along", first)
            out_dim = free[-1]
        # Refuses differing GMMs, lhs or group sizes (more or fewer than one operand differing).
        sizes, operand = check_gmm_sources(chains, out_dim)
        return SourcePlan(out_dim, sizes, operand, scattered=scattered_block(chains, out_dim, sizes))


    def layer(self, chains: list[Any]) -> str | None:
        # Weight gradients that are plain dots with no group or batch (expert) dimension are a dense
        # layer's gate and up (MaxText's MlpBlock: a DeepSeek dense layer's, or the MoE layer's
        # shared expert): the same two products of one lhs reduced apart, the same fix, said so.
        dots = [as_dot(c.start) for c in chains]
        if all(d is not None and d.opcode == "dot" and not tuple(d.attributes.get("lhs_batch_dims") or ())
               for d in dots):
            return "dense"
        return None


def scattered_block(chains: list[Any], dim: int, sizes: list[int]) -> int:
    """The width of each gradient's piece per device where one reduce-scatter of the chains works
    along the joined dimension ``dim`` (F on a second FSDP axis, ``fsdp_transpose``): joined in
    blocks of that width, the fused gradient's scatter gives each device its piece of each one
    side by side, which the ends' slices take apart.  0 (the engine refuses the scatter,
    ``scatter-dim``) where no step or more than one works along it, or the gradients differ in
    size (their blocks would be of two widths)."""
    found: list[int] = []
    for op in chains[0].ops:
        if isinstance(op, Boundary):
            continue
        if op.opcode == "reduce-scatter" and dim in tuple(op.attributes.get("dimensions") or ()):
            found.append(op.shape.dims[dim] if 0 <= dim < op.shape.rank else 0)
        elif op.opcode == "all-gather" and dim in tuple(op.attributes.get("dimensions") or ()):
            return 0
        dim = map_split_dim(op, dim)
    if len(found) != 1 or len(set(sizes)) != 1 or not found[0] or sizes[0] % found[0]:
        return 0
    return found[0]


class SeparateEnds(Finder):
    """The ends of reduction chains that start where others start and never meet them.

    Every reduction is followed up to the end of its chain; chains that a
    concatenate or a pad + add joins again are MOE002's and left alone.  The
    rest are grouped: slices of one array, or GMMs that compute the same thing
    of one shared operand (the lhs of the weight gradients).
    """

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.reductions: list[Instruction] = []
        # MOE002's meetings, found with the same walks: their halves meet, so they are not ours.
        self.meeting_finders: list[Finder] = [Concatenates(scan), ReorderedPadAdds(scan)]
        self.opcodes = frozenset(scan.collectives).union(*(f.opcodes or () for f in self.meeting_finders))
        self.met: set[int] = set()

    def at(self, instr: Instruction) -> Iterator[tuple[Meeting, list[Any]]]:
        if instr.opcode in self.scan.collectives:
            self.reductions.append(instr)
        for finder in self.meeting_finders:
            if instr.opcode in (finder.opcodes or ()):
                for _, chains in finder.at(instr):
                    self.met.update(_step_ids(chains))
        return iter(())

    def finish(self) -> Iterator[tuple[Meeting, list[Any]]]:
        ends: dict[int, object] = {}
        for reduction in self.reductions:
            end = end_above(reduction)
            if id(end) in ends or reduction.computation is None:
                continue
            ends[id(end)] = self.scan.chain(end, 0)
        chains = [c for c in ends.values() if c is not None and not (_step_ids([c]) & self.met)]
        for group in groups_of_halves(chains):
            # A combined collective past the ends (their gradient norms') is no meeting: as it is
            # read taken apart (``held``), or the site found on the taken-apart copy is lost.
            if not meet(group, combined_apart=True):
                yield Apart(group), group


def _after(instr: Instruction, comp: object, past_holders: bool = True) -> set[int]:
    """``instr`` and every op of ``comp`` computed from it (``past_holders`` False: short of the
    ops that only hold values side by side, a tuple or a return: the program's outputs, a loop's
    state; and of sums to one number, which keep nothing of where a half's elements were: the
    gradients' global norm, computed from every gradient, is no putting back together of halves)."""
    seen: set[int] = set()
    work = [instr]
    while work:
        cur = work.pop()
        if id(cur) in seen or cur.computation is not comp:
            continue
        if not past_holders and (cur.opcode in HOLDERS or cur.is_terminator
                                 or (not cur.shape.is_tuple and cur.shape.rank == 0)):
            continue
        seen.add(id(cur))
        work.extend(cur.users)
    return seen


def _step_ids(chains: list[Any]) -> set[int]:
    return {id(op.after if isinstance(op, Boundary) else op) for c in chains for op in c.ops}


def end_above(instr: Instruction) -> Instruction:
    """Follow ``instr`` up through its only user while that user is a step of the same chain."""
    cur = end = instr
    crossed = False  # past a fusion with no collective since: not an end (its step is not rewritten)
    while len(cur.users) == 1:
        user = cur.users[0]
        if user.opcode == "fusion":
            # Optimized HLO converts the reduced gradient between stages in a fusion of its own
            # (XLA:CPU's ``convert_convert_fusion``), which the walk down reads as a step of the
            # chain (``FusedCopy``): followed up the same way to the next stage, or the first
            # stage's end is an end of its own and its one-stage chain a second site of the same
            # halves.  Past the last collective the end stays before such a fusion.
            fused = FusedCopy.follow(user, 0, {})
            if fused is None or fused.operand is not cur:
                break
            cur, crossed = user, True
            continue
        if (user.computation is not cur.computation or not is_chain_op(user) or user.operands[0] is not cur
                or user.opcode in _NOT_FOLLOWED_UP or is_sharding_call(user)):
            break
        if user.opcode in ("reshape", "bitcast") and user.shape.rank != cur.shape.rank:
            # A reshape that adds or drops dimensions (a scan's stacking of the layer's gradient)
            # is where the gradient is used: the end is below it, where the split can be followed.
            break
        cur = user
        row = op(user.opcode)
        if not crossed or (row is not None and Trait.COLLECTIVE in row.traits):
            end, crossed = cur, False
    return end


def groups_of_halves(chains: list[Any]) -> Iterator[list[Any]]:
    """Chains that may be halves of one site: slices of one array (in slice order), or GMMs of one
    computation, alike and sharing an operand (in program order)."""
    by_whole: dict[tuple[int, int], list[Any]] = {}
    gmm_chains: list[Any] = []
    for c in chains:
        if c.cut is not None:
            if not c.cut.fused:
                by_whole.setdefault((id(c.cut.whole), c.cut.result), []).append(c)
        elif is_gmm_op(c.start):
            gmm_chains.append(c)
    for group in by_whole.values():
        if len(group) >= 2:
            group.sort(key=lambda c: tuple(r[0] for r in c.cut.spec))
            yield group
    taken: set[int] = set()
    for k, a in enumerate(gmm_chains):
        if id(a) in taken:
            continue
        group = [a] + [b for b in gmm_chains[k + 1:] if id(b) not in taken and alike(a, b)]
        if len(group) >= 2:
            taken.update(id(c) for c in group)
            yield group


def alike(a: Chain, b: Chain) -> bool:
    """GMMs of one computation with the same steps after them, whose operands are provably the
    same but one: the weight gradients of one lhs (a GMM that shares only the group sizes, as
    wo's gradient does, is another weight's).  Whether the GMMs and the steps agree in
    everything else is a legality check: a near miss with its reason."""
    ga, gb = a.start, b.start
    if ga.computation is not gb.computation or ga.opcode != gb.opcode or len(ga.operands) != len(gb.operands):
        return False
    if [step_kind(op) for op in a.ops] != [step_kind(op) for op in b.ops]:
        return False
    differing = sum(1 for x, y in zip(ga.operands, gb.operands) if not (x is y or same_value(x, y)))
    return differing == 1

