"""Two separate weights gathered apart (MOE003): a ``Source`` and a meeting finder.

Gate and up kept as two arrays ``wi_0[E, D, F]`` and ``wi_1[E, D, F]`` take the
same gather chain each and meet at two GMMs on the same tokens, or at a
concatenate along ``F``.  Their chains start at two different arrays: where
the walk down can go no further (a parameter, a loop's tuple element, a
barrier's result), moved up to just before the first step that communicates
(``PairSource.settle``), so that the two starts are the local shards in an
explicit gather, and the sharded globals before the first sharding change in
an implicit one.  The fused chain starts from ``concatenate(wi_0, wi_1)``
along ``F`` there: each device concatenates what it holds, no communication.
Where ``F`` of the sharded globals is split into n shards on its way to GMMs
that each device runs on its pieces (tensor parallelism), the weights are joined
shard by shard (``[.., F] -> [.., n, F/n]``, joined, ``-> [.., 2F]``) so that
each device's piece is its piece of gate next to its piece of up; where ``F``
is gathered on the way (MaxText's ``fsdp_transpose``) the gathered array holds
them in blocks, one per shard (``SourcePlan.block``), which the meeting splits
by (``cost.blocked_order``); weights of two sizes along ``F`` gathered so are
refused (``concat-dim-sharded``).  Two collectives alike over one array (a
gather and its ``jax.checkpoint`` recomputation) are one weight (``same-weight``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ...checks import Refusal
from ...ir import CREATED_BY, Instruction, Shape, Value
from ...ir.op_table import COLLECTIVES
from ...ir.rewriter import Rewriter
from ...ir.analysis import as_dot, behaviour, free_dim_position, resized, same_op, same_value
from .chains import INCONSISTENT, bitcast_permutation, map_split_dim
from .cost import CollectiveModel, local_bytes
from .crossings import Boundary, Crossing, Exit, result_shape
from .gmms import GMM_OP_OPCODES, is_gmm_op
from .layouts import Layout, holds_local, layout_from_text, source_layout, stated_layout
from .meetings import Concatenates, Finder, SplitCollectives, TwoGmm
from .sources import Source, named_gspmd, sliced_element, sliced_fusion
from .types import Chain, Meeting, SourcePlan
from .walk import Scan


def _dim_at_start(chain: Chain, top_dim: int) -> int:
    """The start's dimension that becomes ``top_dim`` at the top of ``chain``, followed back
    through transposes; a reshape or bitcast that changes the dimensions on the way is refused
    there (``reshape-moves-split``): the dimension cannot be followed through it."""
    dim = top_dim
    for op in reversed(chain.ops):
        if isinstance(op, Boundary):
            continue
        if op.opcode == "transpose":
            perm = tuple(op.attributes.get("dimensions", ()))
            if not 0 <= dim < len(perm):
                raise Refusal(INCONSISTENT, f"{op.ref} permutes {list(perm)}: no dimension {dim} to follow", op)
            dim = perm[dim]
        elif op.opcode == "bitcast" and op.operands and op.operands[0].shape.dims == op.shape.dims \
                and op.operands[0].shape.layout_text != op.shape.layout_text:
            dim = bitcast_permutation(op)[dim]  # a transpose by layouts (the same dimensions)
        elif op.opcode in ("reshape", "bitcast") and op.operands and op.operands[0].shape.dims != op.shape.dims:
            raise Refusal("reshape-moves-split", f"{op.ref} reshapes {op.operands[0].shape} -> {op.shape} between "
                          f"{chain.start.ref} and where the weights meet: dimension {dim} of {op.ref}, along "
                          "which they would be joined, cannot be followed back to the weights", op)
    return dim


def _weight_free_dim(gmm: Instruction) -> int:
    """The one dimension of a GMM's weight that lands in its result (F)."""
    rank = gmm.operands[1].shape.rank
    free = [d for d in range(rank) if free_dim_position(gmm, 1, d) is not None]
    if len(free) != 1:
        raise Refusal("gmm-contracts-split", f"the weight of {gmm.ref} has {len(free)} free dimensions "
                      f"({free}); the two weights are joined along exactly one", gmm)
    return free[0]


def _start_step(step: Instruction | Boundary) -> tuple[Instruction, int]:
    """(value, result) a step leaves on its far side: where a settled chain starts."""
    if isinstance(step, Exit):
        return step.caller, step.result
    if isinstance(step, Boundary):
        return step.after, 0
    return step, 0


def _step_instruction(step: Instruction | Boundary) -> Instruction:
    """The instruction of the start's computation a first step is (a crossing: its caller)."""
    if isinstance(step, Crossing):
        return step.entry if step.entry is not None else step.caller
    return step.after if isinstance(step, Boundary) else step


class PairSource(Source):
    """Two weights, each its own array: the fused chain starts from their concatenation."""

    at_dead_end = True
    slices_for_other_users = True

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        # Slices of one weight are MOE001's sites, GMM results MOE002's: never both rules on one.
        if steps == 0 or is_gmm_op(instr) or instr.opcode in ("slice", "constant"):
            return False
        if instr.opcode == "get-tuple-element":  # (a slice out of XLA:TPU's multi-output slice fusion)
            return sliced_element(instr) is None
        return not (instr.opcode == "fusion" and sliced_fusion(instr) is not None)

    def settle(self, chain: Chain, steps: CollectiveModel) -> Chain | None:
        try:
            collectives = steps.chain(chain)
        except Refusal:
            # Shardings that cannot be read: the chain stays as walked, and the site's cost,
            # which reads them again, refuses it with the reason (a near miss, not a crash).
            return chain
        if not collectives:
            # Only collectives over groups of one device: kept, for the rule to say so (group-of-one).
            return chain if any(steps.over_one_device(op) for op in chain.ops) else None
        # Concatenating anywhere on the way is legal while F is whole there (checked); the
        # later, the less is copied: at the first explicit gather (the local shards), else
        # at the first sharding change (the sharded globals).
        explicit = [k for k, op in enumerate(chain.ops)
                    if not isinstance(op, Boundary) and op.opcode in steps.collectives]
        first = explicit[0] if explicit else min(collectives)
        ops = list(chain.ops[first:])
        if isinstance(ops[0], Crossing):
            # The weight enters the shard_map as it is: it stays, and so do its other uses
            # (a training step's backward reads it too).
            ops[0] = dataclasses.replace(ops[0], outside_kept=True)
        if first == 0:
            return dataclasses.replace(chain, ops=ops)
        start, result = _start_step(chain.ops[first - 1])
        return dataclasses.replace(chain, start=start, ops=ops, result=result, walked=chain)

    def check(self, chains: list[Any], meeting: Meeting) -> SourcePlan:
        first = chains[0]
        seen = set()
        for k, c in enumerate(chains):
            if (id(c.start), c.result) in seen:
                raise Refusal("same-weight", f"the pieces both start at {c.start.ref}: one array, "
                              "nothing to concatenate", c.start)
            seen.add((id(c.start), c.result))
            for other in chains[:k]:
                if _same_array(other.start, other.result or 0, c.start, c.result or 0):
                    raise Refusal("same-weight", f"{c.start.ref} and {other.start.ref} are the same array computed "
                                  "twice (a gather and its rematerialization): one weight, not gate and up",
                                  c.start)
            if c.start.computation is not first.start.computation:
                raise Refusal("same-computation", f"{c.start.ref} is in another computation than "
                              f"{first.start.ref}", c.start)
        if meeting.form == "two_gmm":
            assert meeting.gmms is not None
            top = _weight_free_dim(meeting.gmms[0])
        elif meeting.compiled and meeting.dim is None:
            top = meeting.anchor.shape.rank - 1  # optimized HLO: F is the last dimension of [E, D, F]
        elif meeting.dim is None:
            raise Refusal("concat-dim", f"{meeting.anchor.ref} does not say which dimension it joins",
                          meeting.anchor)
        else:
            top = meeting.dim
        dim = _dim_at_start(first, top)
        shapes = [result_shape(c.start, c.result) for c in chains]
        for c, shape in zip(chains, shapes):
            if not 0 <= dim < shape.rank:
                raise Refusal(INCONSISTENT, f"{c.start.ref} is {shape} (rank {shape.rank}): it has no "
                              f"dimension {dim}, the one {meeting.anchor.ref} joins the weights along", c.start)
        for c, shape in zip(chains[1:], shapes[1:]):
            if shape.element_type != shapes[0].element_type:
                raise Refusal("same-element-type", f"{c.start.ref} is {shape.element_type}, "
                              f"{first.start.ref} {shapes[0].element_type}", c.start)
            if shape.rank != shapes[0].rank or any(
                    a != b for d, (a, b) in enumerate(zip(shape.dims, shapes[0].dims)) if d != dim):
                raise Refusal("same-shape", f"{c.start.ref} is {shape}, {first.start.ref} {shapes[0]}: "
                              f"they may differ only along dimension {dim}", c.start)
        layouts = [source_layout(c.start, c.callers, c.result or 0) for c in chains]
        for c, layout in zip(chains, layouts):
            if layout != layouts[0]:
                raise Refusal("same-sharding", f"{c.start.ref} and {first.start.ref} are sharded "
                              "differently", c.start)
        blocks, gathered = _join_blocks(first, dim, meeting)
        for c, shape in zip(chains, shapes):
            if shape.dims[dim] % blocks:
                raise Refusal("concat-dim-sharded", f"dimension {dim} of {c.start.ref} ({shape.dims[dim]}) is split "
                              f"into {blocks} shards that do not divide it", c.start)
        sizes = [s.dims[dim] for s in shapes]
        equal = len(set(sizes)) == 1
        if gathered and not equal:
            raise Refusal("concat-dim-sharded", f"{first.start.ref} and {chains[1].start.ref} differ in size along "
                          f"dimension {dim} ({sizes}), which is gathered after they are joined: their blocks in the "
                          "gathered array would not be of one width", first.start)
        # Gathered along the joined dimension on the way (here or by an all-gather the engine
        # checks), the weights lie in blocks of their pieces' width: the meeting splits by them.
        return SourcePlan(dim, sizes, blocks=blocks, block=sizes[0] // blocks if equal else 0, gathered=gathered)

    def weight(self, chains: list[Any]) -> str:
        return ", ".join(c.start.ref for c in chains)

    def not_rewritten(self, plan: SourcePlan, chains: list[Any]) -> str | None:
        if plan.blocks > 1 and named_gspmd(chains[0]):
            return ("the weights are joined shard by shard (reshapes of arrays with mesh shardings), which the "
                    "GSPMD partitioner of this XLA cannot propagate after Shardy's import (it aborts); "
                    "rewrite the lowered StableHLO or the dump before optimizations")
        return None

    def added_bytes(self, plan: SourcePlan, chains: list[Any]) -> int:
        # The local concatenation: each device copies its shards of both weights.
        return sum(local_bytes(c.start, c.result, callers=c.callers) for c in chains)

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list[Any]) -> tuple[Instruction, int]:
        starts = [c.start for c in chains]
        comp = starts[0].computation
        order = {id(i): n for n, i in enumerate(comp.instructions)}
        computed = [s for s in starts if s.opcode != "parameter"]
        firsts = [f for f in (_step_instruction(c.ops[0]) for c in chains) if id(f) in order]
        # Right after the later start, or (parameters) before the first step: the rule puts
        # the computation in dependency order after the rewrite (``in_dependency_order``).
        place: dict[str, Instruction]
        if computed or not firsts:
            place = {"after": max(computed or starts, key=lambda s: order.get(id(s), -1))}
        else:
            place = {"before": min(firsts, key=lambda f: order[id(f)])}
        shape0 = result_shape(starts[0], chains[0].result)
        dim, blocks = plan.split_dim, plan.blocks
        if blocks == 1:
            joined = rw.concatenate([Value(s, c.result or 0) for s, c in zip(starts, chains)], dim,
                                    resized(shape0, dim, sum(plan.sizes)), **place)
            return joined, 0
        # Shard by shard: [.., F] -> [.., n, F/n] each, joined along the new minor dimension,
        # [.., n, 2F/n] -> [.., 2F]: shard k of the result is shard k of wi_0 next to wi_1's.
        def reshaped(value: Instruction, result: int, dims: list[int], where: dict[str, Instruction]) -> Instruction:
            return rw.reshape(Value(value, result), Shape.array(shape0.element_type, dims), **where)

        dims = list(shape0.dims)
        split: list[Instruction] = []
        where = place
        for c, size in zip(chains, plan.sizes):
            split.append(reshaped(c.start, c.result, dims[:dim] + [blocks, size // blocks] + dims[dim + 1:], where))
            where = {"after": split[-1]}
        joined = rw.concatenate(split, dim + 1, Shape.array(shape0.element_type, dims[:dim] + [
            blocks, sum(plan.sizes) // blocks] + dims[dim + 1:]), after=split[-1])
        whole = reshaped(joined, 0, dims[:dim] + [sum(plan.sizes)] + dims[dim + 1:], {"after": joined})
        return whole, 0


def _same_array(a: Instruction, ra: int, b: Instruction, rb: int, depth: int = 8) -> bool:
    """Whether two values are certainly one array computed twice: ``same_value``, and also
    collectives alike over the same operand (what ``jax.checkpoint`` recomputes for the backward:
    the forward's gather, or the all-to-all before it, run again), through the fusions and
    tuple elements optimized HLO puts between them, and past ``jax.checkpoint``'s barrier (the
    recomputation reads the weight through it)."""
    a, ra = _past_barriers(a, ra)
    b, rb = _past_barriers(b, rb)
    if a is b:
        return ra == rb
    if ra != rb or depth == 0:
        return False
    if a.opcode in COLLECTIVES and a.opcode == b.opcode and behaviour(a) == behaviour(b) \
            and len(a.operands) == len(b.operands):
        return all(_same_array(x, rx, y, ry, depth - 1) for x, rx, y, ry in
                   zip(a.operands, a.operand_results, b.operands, b.operand_results))
    if a.opcode == "get-tuple-element" and b.opcode == "get-tuple-element" and behaviour(a) == behaviour(b):
        # One piece of a tuple collective (XLA combines an all-to-all's pieces into one op).
        return _same_array(a.operands[0], a.operand_results[0], b.operands[0], b.operand_results[0], depth - 1)
    if a.opcode == "fusion" and b.opcode == "fusion" and len(a.operands) == len(b.operands) and a.called_computations \
            and b.called_computations and same_op(a, b):
        return all(_same_array(x, rx, y, ry, depth - 1) for x, rx, y, ry in
                   zip(a.operands, a.operand_results, b.operands, b.operand_results))
    return not ra and same_value(a, b, depth)


def _past_barriers(value: Instruction, result: int) -> tuple[Instruction, int]:
    """The value an optimization barrier (or a tuple, or a tuple's element) passes on as it got
    it: a barrier computes nothing."""
    for _ in range(16):
        if value.opcode == "get-tuple-element" and value.operands and not result \
                and value.operands[0].opcode in ("tuple", "opt-barrier"):
            index = value.attributes.get("index")
            if not isinstance(index, int):
                break
            value, result = value.operands[0], index
        elif value.opcode == "opt-barrier" and len(value.operands) == 1 and value.shape.is_tuple:
            value = value.operands[0]  # HLO: one tuple through, the same element
        elif value.opcode in ("tuple", "opt-barrier") and result < len(value.operands):
            value, result = value.operands[result], value.operand_results[result]
        else:
            break
    return value, result


def _f_split(layout: Layout | None, dim: int) -> tuple[Any, ...] | None:
    """How dimension ``dim`` is split across devices by ``layout``: into how many shards, or
    (mesh sizes unknown) over which mesh axes; None when the layout is not known."""
    if layout is None:
        return None
    if layout.counts is not None and dim < len(layout.counts):
        return ("count", layout.counts[dim])
    if layout.axes is not None and dim < len(layout.axes):
        return ("axes", layout.axes[dim]) if layout.axes[dim] else ("count", 1)
    return None


def _join_blocks(chain: Chain, dim: int, meeting: Meeting) -> tuple[int, bool]:
    """How the two weights are joined along F where the fused chain starts, and whether F is
    gathered on the way: in one piece (1), or shard by shard (n > 1) where F is split into n
    shards as the chain starts, so that each device's piece of the joined array is its piece of
    one weight next to its piece of the other.  Either F stays split so on the way to GMMs that
    each device runs on its own pieces (a shard_map's tensor parallelism), or it is gathered
    into fewer shards (``gathered``: MaxText's ``fsdp_transpose``), and the gathered array holds
    the weights in blocks, one per shard, which the meeting splits by.
    A start that is already one device's piece (inside a shard_map, or a partitioned module)
    is joined in one piece: each device joins what it holds (its gathers along F are the
    engine's to check).  Refused (``concat-dim-sharded``) where F's split changes on the way
    other than into fewer shards that divide it, or a split kept to GMMs on the global arrays."""
    start = chain.start
    if holds_local(start):
        return 1, False
    split = _f_split(source_layout(start, chain.callers, chain.result or 0), dim)
    first = split
    gathered = False
    for op in chain.ops:
        if isinstance(op, Boundary):
            entering = op.entry_sharding()
            if entering is not None and entering[0] is not None:
                assert isinstance(op, Crossing), "only a crossing states how a value enters"
                now = _f_split(layout_from_text(entering[0], entering[1].shape.rank, entering[1].module), dim)
                split, fewer = _same_split(chain, split, now, dim, f"entering {op.caller.ref}", op.after)
                gathered = gathered or fewer
            continue
        if op.shape.is_array:
            now = _f_split(stated_layout(op, op.shape.rank), dim)
            if now is not None:
                split, fewer = _same_split(chain, split, now, dim, f"at {op.ref}", op)
                gathered = gathered or fewer
        dim = map_split_dim(op, dim)
    if gathered:
        # Joined as F was split where the chain starts: one block per shard there.
        assert first is not None and first[0] == "count", "only a count of shards is gathered into fewer"
        return first[1], True
    if split is None or split == ("count", 1):
        return 1, False
    blocks = split[1] if split[0] == "count" else None
    if blocks is None:
        raise Refusal("concat-dim-sharded", f"dimension {dim} of {start.ref}, along which the weights would be "
                      "joined, is split on mesh axes whose sizes the text does not give", start)
    if not holds_local(meeting.anchor):
        raise Refusal("concat-dim-sharded", f"dimension {dim} of {start.ref}, along which the weights would be "
                      f"joined, is split in {blocks} shards and {meeting.anchor.ref} reads the global arrays: "
                      "joined shard by shard, their halves would not be gate and up", meeting.anchor)
    return blocks, False


def _same_split(chain: Chain, split: tuple[Any, ...] | None, now: tuple[Any, ...] | None, dim: int, where: str,
                at: Instruction) -> tuple[tuple[Any, ...] | None, bool]:
    """(F's split now, whether it is gathered here): as before, or into more shards (each device
    slices what it holds), or first known here, or gathered into fewer shards that divide the
    ones before (each of them keeps whole blocks); other shards (moved along F): refused."""
    if split is None:
        return now, False
    # A layout not known here after one known before: a case the checks never met (it failed on
    # None below before this assert said so).
    assert now is not None, f"{where}: the split of F is not known"
    if split == now or split[0] != now[0]:  # (axes against a count: sizes unknown)
        return now, False
    if split[0] == "count" and now[1] % split[1] == 0:
        return now, False
    if split[0] == "count" and split[1] % now[1] == 0:
        return now, True
    raise Refusal("concat-dim-sharded", f"dimension {dim} of {chain.start.ref}, along which the weights would be "
                  f"joined, is split {_shown(split)} as it starts and {_shown(now)} {where}: joined before, "
                  "the moved shards would not hold whole blocks of gate and up", at)


def _shown(split: tuple[Any, ...]) -> str:
    kind, value = split
    if kind == "count":
        return f"in {value} shard{'s' * (value != 1)}"
    return f"on mesh axes {', '.join(value)}" if value else "on no mesh axis"


def is_grouped(gmm: Instruction) -> bool:
    """A grouped matmul, not a dense one: a ragged dot, or a dot whose weight has an expert
    dimension (jax's CPU lowering of ragged_dot; a batched matmul of experts)."""
    dot = as_dot(gmm)
    return dot is not None and (dot.opcode == "ragged-dot" or gmm.operands[1].shape.rank >= 3)


class SharedLhsGmms(Finder):
    """GMMs on the same tokens whose weights are two arrays gathered apart."""

    opcodes = GMM_OP_OPCODES

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.found: list[tuple[Instruction, Chain]] = []

    def at(self, instr: Instruction) -> Iterator[Any]:
        if is_gmm_op(instr) and len(instr.operands) >= 2 and is_grouped(instr):
            chain = self.scan.chain(instr.operands[1], instr.operand_results[1])
            if chain is not None:
                self.found.append((instr, chain))
        return iter(())

    def finish(self) -> Iterator[Any]:
        groups: list[list[tuple[Instruction, Chain]]] = []
        for gmm, chain in self.found:
            for group in groups:
                other = group[0][0]
                # The same tokens: group sizes, dimension numbers and the rest are checks
                # (``check_gmms``), refused as near misses.
                if other.computation is gmm.computation and same_value(gmm.operands[0], other.operands[0]):
                    group.append((gmm, chain))
                    break
            else:
                groups.append([(gmm, chain)])
        for group in groups:
            # One weight read twice (a GMM the program repeats) is no pair: not a site.
            seen: set[tuple[int, int]] = set()
            pair = []
            for g, c in group:
                key = (id(c.base[0]), c.base[1])
                if key not in seen:
                    seen.add(key)
                    pair.append((g, c))
            group = pair
            if len(group) >= 2:
                yield TwoGmm([g for g, _ in group]), [c for _, c in group]


class WeightConcatenates(Concatenates):
    """Concatenates of the two weights, but not the one this rule made: that one joins the
    shards where a rewritten site's fused chain starts (rewriting twice changes nothing)."""

    def at(self, instr: Instruction) -> Iterator[Any]:
        if instr.opcode == "concatenate" and "frontend_attributes" in instr.attributes and \
                instr.attributes["frontend_attributes"].get(CREATED_BY) == self.scan.rule.name:
            return iter(())
        return super().at(instr)


class CompiledPairs(Finder):
    """Optimized HLO, where the GMMs are fusions: two weights of an expert dimension each
    gathered the same way, their last gathers read only by fusions, reported as a site
    (rewritten once its fusions are opened).  Only pairs: three or more weights gathered alike
    are not gate and up, unless the tokens their GMMs multiply group them two by two (the
    forward's and the recomputation's, ``_rounds``)."""

    def finish(self) -> Iterator[Any]:
        scan = self.scan
        collectives = scan.collectives
        if not any(i.opcode == "fusion" for i in scan.module.instructions()):
            return
        groups: dict[tuple[Any, ...], list[Any]] = {}
        for instr in scan.module.instructions():
            if instr.opcode not in collectives or instr.shape.rank < 3 or not instr.users or any(
                    u.opcode != "fusion" for u in instr.users) or id(instr) in scan.covered:
                continue  # (covered: reported as a concat site)
            chain = scan.chain(instr, 0)
            if chain is None or chain.result is None:
                continue
            key = (id(instr.computation), instr.shape.dims, instr.shape.element_type,
                   tuple(op.opcode if not isinstance(op, Boundary) else op.kind for op in chain.ops))
            groups.setdefault(key, []).append(chain)
        # A gather along F after one along D (F on a second mesh axis, a layout copy between
        # them): the first is a step of the second's chain, not a site of its own.
        inner = {id(op) for chains in groups.values() for c in chains for op in c.ops[:-1]}
        for chains in groups.values():
            if any(id(c.top) in inner for c in chains):
                continue
            for pair in _rounds(chains):
                yield CompiledPairGathers("split_gather", pair), pair


# Ops that move a weight's elements without computing (a reader of a gathered weight through
# them reads the weight): what lies between a gathered half and its GMM in optimized HLO.
_WEIGHT_MOVES = frozenset({"copy", "bitcast", "transpose", "reshape", "convert"})
_MAX_READER_DEPTH = 24


def _fused_param(fusion: Instruction, k: int) -> list[Instruction]:
    body = fusion.called_computations[0] if fusion.called_computations else None
    if body is None:
        return []
    return [p for p in body.instructions if p.opcode == "parameter" and p.attributes.get("parameter_number") == k]


def _outside(value: Instruction, fusion: Instruction | None) -> Instruction | None:
    """The value of the module ``value`` stands for: itself outside a fusion; inside one, the
    fusion operand a parameter reads (anything computed inside: None, not provable)."""
    if fusion is None:
        return value
    if value.opcode == "parameter":
        number = value.attributes.get("parameter_number")
        if isinstance(number, int) and number < len(fusion.operands):
            return fusion.operands[number]
    return None


def _weight_readers(value: Instruction, fusion: Instruction | None = None,
                    depth: int = _MAX_READER_DEPTH) -> list[tuple[Instruction, int, Instruction | None]]:
    """(dot, the operand the weight is, the fusion the dot is in) for every dot that reads the
    gathered weight ``value`` through ops that only move its elements (in and out of fusions).
    Raises a ``Refusal`` (``gmm-consumers``) at a reader that is neither."""
    if depth == 0:
        raise Refusal("gmm-consumers", f"{value.ref} is read through more than {_MAX_READER_DEPTH} moves: "
                      "its GMMs are not found", value)
    found: list[tuple[Instruction, int, Instruction | None]] = []
    users = list(value.users)
    if fusion is not None and value is fusion.called_computations[0].root:
        users += [("out", fusion)]  # type: ignore[list-item]
    if not users:
        raise Refusal("gmm-consumers", f"{value.ref} is read by nothing: no GMM reads the weight", value)
    for user in users:
        if isinstance(user, tuple):  # the fusion's result: its readers outside
            found += _weight_readers(user[1], None, depth - 1)
            continue
        if user.opcode == "dot":
            ks = [k for k, o in enumerate(user.operands) if o is value]
            if len(ks) != 1:
                raise Refusal("gmm-consumers", f"{user.ref} multiplies the weight by itself", user)
            found.append((user, ks[0], fusion))
        elif user.opcode == "fusion" and fusion is None:
            for k, o in enumerate(user.operands):
                if o is value:
                    for param in _fused_param(user, k):
                        found += _weight_readers(param, user, depth - 1)
        elif user.opcode in _WEIGHT_MOVES and len(user.operands) == 1:
            found += _weight_readers(user, fusion, depth - 1)
        else:
            raise Refusal("gmm-consumers", f"{user.ref} ({user.opcode}) reads the gathered weight {value.ref}: "
                          "only grouped matmuls (and moves of the weight on the way to them) may read two "
                          "weights gathered together", user)
    return found


class CompiledPairGathers(SplitCollectives):
    """Two weights gathered apart in optimized HLO, where nothing joins them: the gathers are
    one only where both feed grouped matmuls of the same tokens (gate and up), each through
    moves of its elements; any other pair of look-alike weights (attention's key and value
    projections) is no site."""

    def check(self, chains: list[Any], split_dims: list[int]) -> int | None:
        dim = split_dims[-1]
        tokens = [_gmm_tokens(chain.top, dim) for chain in chains]
        for mine in tokens[1:]:
            if not any(same_value(a, b) for a in mine for b in tokens[0]):
                raise Refusal("gmm-consumers", f"the GMMs of {chains[0].top.ref} and {chains[1].top.ref} do not "
                              "provably read the same tokens", chains[1].top)
        return super().check(chains, split_dims)


def _gmm_tokens(top: Instruction, dim: int) -> list[Instruction]:
    """The tokens the GMMs that read the gathered weight ``top`` multiply it by, ``dim`` its F.
    Raises a ``Refusal`` (``gmm-consumers``) where a reader is no GMM of gate or up."""
    f_size = top.shape.dims[dim]
    rest = top.shape.num_elements // max(f_size, 1)
    readers = _weight_readers(top)
    if not readers:
        raise Refusal("gmm-consumers", f"no grouped matmul reads {top.ref}", top)
    mine: list[Instruction] = []
    for dot, k, fusion in readers:
        w = dot.operands[k].shape
        side = "rhs" if k == 1 else "lhs"
        contract = tuple(dot.attributes.get(f"{side}_contracting_dims", ()))
        batch = tuple(dot.attributes.get(f"{side}_batch_dims", ()))
        free = contracted = 1
        for d, n in enumerate(w.dims):
            if d in contract:
                contracted *= n
            elif d not in batch:
                free *= n
        if w.num_elements != top.shape.num_elements:
            raise Refusal("gmm-consumers", f"{dot.ref} reads {w} of the weight {top.ref} ({top.shape}): "
                          "not the whole weight", dot)
        if free == f_size and rest > 1 and top.shape.dims[0] > 1:
            # A GMM: every dimension but F contracted or batched (the experts with D),
            # F alone free; its other operand is the tokens.
            other = _outside(dot.operands[1 - k], fusion)
            if other is None:
                raise Refusal("gmm-consumers", f"the tokens {dot.ref} multiplies {top.ref} by are "
                              "computed inside its fusion: not provably the other weight's", dot)
            mine.append(other)
        elif free == rest // top.shape.dims[0]:
            # The transposed GMM of the backward (dx = dy . W^T): F contracted with the
            # experts (or the experts batched), D alone free; its other operand is the
            # half's own output gradient, not shared tokens.
            continue
        else:
            raise Refusal("gmm-consumers", f"{dot.ref} leaves {free} elements of each row of {top.ref} "
                          f"({top.shape}) free, not its F ({f_size}) alone: a dense matmul of one "
                          "weight (an attention projection), not a grouped matmul of gate or up", dot)
    if not mine:
        raise Refusal("gmm-consumers", f"no grouped matmul multiplies tokens by {top.ref}", top)
    return mine


def _rounds(chains: list[Chain]) -> list[list[Chain]]:
    """Pairs among gathers alike: two chains are a pair; four, each weight gathered twice (the
    forward and its ``jax.checkpoint`` recomputation of the same shards: one copy XLA's CSE left,
    or two alike, ``_same_array``), are one pair per round in program order, as the prefused weight's halves
    are (``meetings.SplitCollectiveFinder``).  Three or more weights alike are not gate and up,
    unless the GMMs tell them apart: where the weights are not told into two (the recomputation's
    shards laid out in another fusion than the forward's, as in MaxText's two-stage step; or two
    layers' pairs unrolled), the chains are grouped by the tokens their GMMs multiply
    (``_rounds_by_tokens``).
    A pair is in the order of its weights' starts, which rewriting one round keeps (the gathers'
    order does not: the rewrite puts the computation in dependency order), so that the other
    round is the same site, its anchor the same, once its fusions are opened."""
    pairs = _rounds_by_weight(chains)
    if pairs is not None:
        return pairs
    if len(chains) < 4 or len(chains) % 2:
        return []
    return _rounds_by_tokens(chains)


def _in_order(chains: list[Chain]) -> list[Chain]:
    """``chains`` in the order of their starts in their computation."""
    comp = chains[0].start.computation
    where = {id(i): n for n, i in enumerate(comp.instructions)} if comp is not None else {}
    return sorted(chains, key=lambda c: where.get(id(c.start), -1))


def _rounds_by_weight(chains: list[Chain]) -> list[list[Chain]] | None:
    """The pairs of ``_rounds`` where the chains are told into two weights, each gathered as many
    times (None where they are not)."""
    weights: list[list[Chain]] = []
    for c in chains:
        for weight in weights:
            first = weight[0]
            if _same_array(first.start, first.result or 0, c.start, c.result or 0):
                weight.append(c)
                break
        else:
            weights.append([c])
    if len(chains) == 2 and len(weights) == 1:
        return [chains]  # one weight twice: refused as such (``same-weight``)
    if len(weights) != 2 or len(weights[0]) != len(weights[1]):
        return None
    return [_in_order(list(pair)) for pair in zip(*weights)]


def _rounds_by_tokens(chains: list[Chain]) -> list[list[Chain]]:
    """The chains whose GMMs multiply the same tokens, two by two: one group per round (the
    forward, the recomputation) and layer.  A group of two is a pair; a larger one (rounds whose
    tokens are one value) is paired by weight, as ``_rounds`` does.  Which pairs are formed only
    picks the candidates: each is checked as any other (``CompiledPairGathers.check``: the same
    tokens, ``gmm-consumers``; two arrays, ``same-weight``)."""
    groups: list[list[Chain]] = []
    tokens: list[list[Instruction]] = []
    for c in chains:
        try:
            # (F is the last dimension of a weight gathered in optimized HLO: ``PairSource.check``)
            mine = _gmm_tokens(c.top, c.top.shape.rank - 1)
        except Refusal:
            return []  # not GMMs of gate or up: no pairs to tell apart
        for group, theirs in zip(groups, tokens):
            if any(same_value(a, b) for a in mine for b in theirs):
                group.append(c)
                break
        else:
            groups.append([c])
            tokens.append(mine)
    pairs: list[list[Chain]] = []
    for group in groups:
        found = [_in_order(group)] if len(group) == 2 else _rounds_by_weight(group) if len(group) > 2 else None
        if not found:
            return []
        pairs += found
    return pairs
