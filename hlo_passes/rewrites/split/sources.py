"""Where the two halves of a site come from: each a ``Source``.

* ``SliceSource``: slices of one weight W, cut along one dimension into
  adjacent pieces (the forward gather, and the backward reductions of the
  sliced gradient);
* ``GmmSource``: the results of GMMs that differ in one operand (the weight
  gradients of the two-GMM form), joined along a free dimension of it.

A source says where a walk down a chain stops (``starts_chain``), checks the
halves' starts against each other (``check``: the split dimension and the
halves' sizes, or a ``Refusal``), names the array the site is about
(``weight``) and, for the rewrite, makes the whole array the one fused chain
starts from (``whole``).  A third way, two separate weights gathered apart, is
``PairSource`` (``pairs``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...checks import Refusal
from ...ir import Instruction, Shape, Value
from ...ir.op_table import Trait, op
from ...ir.rewriter import Rewriter
from ...ir.analysis import behaviour, free_dim_position, resized, same_op, same_value
from .chains import INCONSISTENT, bitcast_keeps_order
from .crossings import Boundary, result_shape
from .fusions import FusedValue, fused_slice, tuple_index
from .fusions import _body as fusion_body, _fed_by as fed_by, _fused_value as fused_value
from .fusions import copy_fusion_for, emitted_as_loop, fusion_kind
from .gmms import GMM_OP_OPCODES, difference, fused_dots, gmm_operand_dim, is_gmm_op, unfused_dots_refusal

from .cost import CollectiveModel
from .types import Chain, Cut, Meeting, SourcePlan


def cut_of(start: Instruction) -> Cut | None:
    """The slice ``start`` is, a plain one or one a fusion makes (None for a GMM start)."""
    if start.opcode == "slice":
        return Cut(start, start.operands[0], start.operand_results[0], fused=False)
    seen = sliced_fusion(start) if start.opcode == "fusion" else sliced_element(start)
    return Cut(seen[0], seen[1], 0, fused=True) if seen is not None else None


def sliced_element(gte: Instruction) -> tuple[Instruction, Instruction | FusedValue] | None:
    """A ``get-tuple-element`` of a multi-output fusion whose element is a slice (XLA:TPU's one
    loop fusion that slices both halves of W): (the slice in its body, the array it cuts)."""
    index = tuple_index(gte)
    return fused_slice(gte.operands[0], index) if index is not None else None


def sliced_fusion(fusion: Instruction) -> tuple[Instruction, Instruction | FusedValue] | None:
    """``fused_slice``, or a fusion of optimized HLO whose result is such a slice with its one
    size-1 dimension dropped (``W[:, 0]`` of a stacked weight: slice, copy, bitcast): (the slice
    in its body, the array it cuts)."""
    seen = fused_slice(fusion)
    body = fusion_body(fusion) if seen is None else None
    if body is None or body.root is None:
        return seen
    root = body.root
    if root.opcode not in ("bitcast", "reshape") or len(root.operands) != 1:
        return None
    if root.opcode == "bitcast" and not bitcast_keeps_order(root):
        return None  # the bytes kept in another order: no dropped dimension alone (issue 43)
    inner = root.operands[0]
    while inner.opcode == "copy" and len(inner.operands) == 1:
        inner = inner.operands[0]
    dims = tuple(inner.shape.dims)
    if inner.opcode != "slice" or len(inner.operands) != 1 or not any(
            dims[d] == 1 and dims[:d] + dims[d + 1:] == tuple(root.shape.dims) for d in range(len(dims))):
        return None
    whole = fed_by(fusion, inner.operands[0]) or fused_value(fusion, inner.operands[0])
    return (inner, whole) if whole is not None else None


class Source:
    """Where halves come from (see the module docstring)."""

    # The opcodes at which ``starts_chain`` may say yes: the walk down asks only there (it is
    # the engine's innermost loop, one question per op below every candidate).
    start_opcodes: frozenset[str] = frozenset()
    # Chains that start at whatever array the walk down can go no further from (two
    # separate weights, ``PairSource``), asked there with ``starts_chain`` as well.
    at_dead_end: bool = False
    # Whether a half's last op may have users besides the meeting: they read its slice of
    # the fused value after the rewrite (two weights: a gathered weight a checkpoint hands on).
    slices_for_other_users: bool = False
    # With ``slices_for_other_users``: only other users that hand the value on out of its body
    # (a terminator: a shard_map's return), not ops that compute with it.
    handed_on_only: bool = False
    # Whether the halves are computed by GMMs of their own (the fix runs one GMM instead).
    gmm_launches: bool = False

    def not_rewritten(self, plan: SourcePlan, chains: list[Any]) -> str | None:
        """Why a legal site is reported but not rewritten in this text (None: it is rewritten)."""
        return None

    def added_bytes(self, plan: SourcePlan, chains: list[Any]) -> int:
        """Bytes per device of a copy the fused start makes (the rewrite adds it)."""
        return 0

    def settle(self, chain: Chain, steps: CollectiveModel) -> Chain | None:
        """The chain a dead-end walk found, as this source takes it (None: not one)."""
        return chain

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        """Whether a walk down that has taken ``steps`` steps stops at ``instr``."""
        raise NotImplementedError

    def check(self, chains: list[Any], meeting: Meeting) -> SourcePlan:
        raise NotImplementedError

    def weight(self, chains: list[Any]) -> str:
        raise NotImplementedError

    def layer(self, chains: list[Any]) -> str | None:
        """What kind of layer the pieces are of, where it is not an MoE layer's ("dense"); None."""
        return None

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list[Any]) -> tuple[Instruction, int]:
        """(value, result): all of the array, for the fused chain to start from."""
        raise NotImplementedError


class SliceSource(Source):
    """Halves sliced out of one weight: pieces of one dimension, or (``StackedAxis``) the
    entries of a small stacking axis, each taken out of it (``W[:, 0]``, ``W[:, 1]``)."""

    start_opcodes = frozenset(("slice", "fusion", "get-tuple-element"))
    # A gathered half a shard_map returns besides (the residual the recomputation of a
    # ``jax.checkpoint`` layer hands to the backward) reads its slice of the fused gather.
    slices_for_other_users = True
    handed_on_only = True

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        if instr.opcode == "get-tuple-element":
            return sliced_element(instr) is not None
        return instr.opcode == "slice" or (instr.opcode == "fusion" and sliced_fusion(instr) is not None)

    def check(self, chains: list[Any], meeting: Meeting) -> SourcePlan:
        interleaved = check_interleaved(chains, meeting)
        if interleaved is not None:
            return interleaved
        split_dim, sizes = check_slices(chains)
        stacked = stacked_axis(chains, split_dim, sizes)
        if stacked is not None:
            return SourcePlan(stacked.merged, [h.dims[stacked.merged] for h in stacked.halves], stacked)
        return SourcePlan(split_dim, sizes)

    def weight(self, chains: list[Any]) -> str:
        ref: str = chains[0].cut.whole.ref
        return ref

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list[Any]) -> tuple[Instruction, int]:
        cut = chains[0].cut
        if isinstance(plan.extra, StackedAxis):
            return plan.extra.view(rw, chains), 0
        return cut.whole, cut.result

    def not_rewritten(self, plan: SourcePlan, chains: list[Any]) -> str | None:
        if isinstance(plan.extra, StackedAxis) and named_gspmd(chains[0]):
            return ("the stacking axis is merged into F by a transpose and a reshape of an array with a mesh "
                    "sharding, which the GSPMD partitioner of this XLA cannot propagate after Shardy's import "
                    "(it aborts); rewrite the lowered StableHLO or the dump before optimizations")
        return None

    def added_bytes(self, plan: SourcePlan, chains: list[Any]) -> int:
        # The stacking axis moved next to the merged dimension: a copy of the weight's shard.
        if isinstance(plan.extra, StackedAxis) and plan.extra.permutation() is not None:
            return sum(c.cut.shape.byte_size for c in chains)
        return 0


@dataclass
class StackedAxis:
    """Halves that are the entries of a stacking axis of W (``W[E, 2, D, F]``, tpu-inference's
    fused MoE layout): each slice takes one index of dimension ``axis`` and a reshape drops it.

    The fused chain starts at a view of W (its shard, where the slices cut a shard) with that
    axis merged into dimension ``merged`` of the halves as its major part (a transpose where it
    is not next to it, then a reshape): ``[E, D, 2F]`` with the halves side by side along F, the
    chain of the halves applied to it once, and their GMMs one GMM on it.  The halves' reshapes
    are dropped from their chains (``reshapes``) so that the chains' steps are the fused one's.
    """

    axis: int  # of W
    merged: int  # of the halves, after the reshape
    rank: int  # of W
    halves: list[Shape]  # after the reshape (in optimized HLO, the fusion's result)

    def weight_dim(self) -> int:
        """Dimension ``merged`` of the halves, in W."""
        return self.merged if self.merged < self.axis else self.merged + 1

    def permutation(self) -> tuple[int, ...] | None:
        """The transpose that puts ``axis`` right before the merged dimension (None: it is there)."""
        target = self.weight_dim()
        if target == self.axis + 1:
            return None
        order = [d for d in range(self.rank) if d != self.axis]
        order.insert(order.index(target), self.axis)
        return tuple(order)

    def view(self, rw: Rewriter, chains: list[Any]) -> Instruction:
        cut = chains[0].cut
        whole = Value(cut.whole, cut.result)
        full = cut.full
        comp = cut.sliced.computation
        # Before the first of the slices: W is there, and every half reads the view after it.
        first = min((c.cut.sliced for c in chains), key=comp.instructions.index)
        perm = self.permutation()
        value: Instruction | Value = whole
        # A slice inside a shard_map after Shardy's import is manual, and so must the view's ops be
        # (the partitioner would place them anew); a tiled sharding names the slice's dimensions,
        # not the view's, and is left for the partitioner to propagate.
        given = cut.sliced.attributes.raw("sharding") if "sharding" in cut.sliced.attributes else None
        sharding = {"sharding": cut.sliced.attributes["sharding"]} if given is not None and \
            str(given).strip() in ("{manual}", "{replicated}") else {}
        if perm is not None:
            moved = Shape.array(full.element_type, [full.dims[d] for d in perm])
            value = rw.create("transpose", moved, [whole], {"dimensions": perm, **sharding}, before=first,
                              like=cut.sliced)
        half = self.halves[0]
        merged = resized(Shape.array(half.element_type, half.dims), self.merged,
                         half.dims[self.merged] * full.dims[self.axis])
        view = rw.reshape(value, merged, before=first, like=cut.sliced)
        for key, given in sharding.items():
            rw.set_attribute(view, key, given)
        return view


def stacked_axis(chains: list[Any], split_dim: int, sizes: list[int]) -> StackedAxis | None:
    """The halves are the entries of a stacking axis (one index each of ``split_dim``, then a
    reshape that drops it, the same for every half): a ``StackedAxis`` whose reshapes are taken
    out of the chains.  None for pieces of a dimension, which stay as they are."""
    if any(size != 1 for size in sizes):
        return None
    full = chains[0].cut.full.dims
    dropped = full[:split_dim] + full[split_dim + 1:]
    if dropped and all(c.cut.fused and tuple(c.start.shape.dims) == dropped for c in chains):
        # Optimized HLO: the fusion that slices drops the axis too (``sliced_fusion``); reported only.
        return StackedAxis(split_dim, len(dropped) - 1, len(full), [c.start.shape for c in chains])
    if any(c.cut.fused or not c.ops for c in chains):
        return None
    reshapes = [c.ops[0] for c in chains]
    if any(isinstance(r, Boundary) or r.opcode not in ("reshape", "bitcast") or tuple(r.shape.dims) != dropped
           or (r.opcode == "bitcast" and not bitcast_keeps_order(r))  # layouts that move elements
           or len(r.users) != 1 for r in reshapes) or not dropped:
        return None
    # The halves go side by side along their last dimension (F of ``[E, D, F]``): the GMM's output
    # dimension, where its result is split; a chain that works along it is refused as for any split.
    stacked = StackedAxis(split_dim, len(dropped) - 1, len(full), [r.shape for r in reshapes])
    for c in chains:
        c.ops = c.ops[1:]
    return stacked


class GmmSource(Source):
    """Halves computed by GMMs that differ in one operand: one GMM on the joined operand."""

    start_opcodes = GMM_OP_OPCODES
    gmm_launches = True

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        return steps > 0 and is_gmm_op(instr)

    def not_rewritten(self, plan: SourcePlan, chains: list[Any]) -> str | None:
        if plan.gmms_kept is not None:
            return None  # the GMMs stay; their results are joined (``kept_gmms_joined``)
        return unfused_dots_refusal([c.start for c in chains])

    def check(self, chains: list[Any], meeting: Meeting) -> SourcePlan:
        if meeting.form == "split_reduction":
            # Optimized HLO: the halves' reductions are read by the fusion that joins them (a
            # ``SplitCollectives`` meeting names no dimension): they join along the output
            # dimension the differing operand's free dimension becomes.
            split_dim: int | None = _varying_out_dim(chains, meeting)
        elif not meeting.joins:
            raise Refusal("gmm-sources", "halves computed by separate GMMs must meet again", meeting.anchor)
        else:
            split_dim = meeting.dim if meeting.dim is not None else (meeting.dims or (None,))[0]
        if split_dim is None:
            raise Refusal("concat-dim", f"{meeting.anchor.ref} does not say which dimension it joins", meeting.anchor)
        sizes, operand = check_gmm_sources(chains, split_dim)
        return SourcePlan(split_dim, sizes, operand)

    def weight(self, chains: list[Any]) -> str:
        ref: str = chains[0].start.ref  # no weight is cut: the first GMM stands for the site
        return ref

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list[Any]) -> tuple[Instruction, int]:
        if plan.gmms_kept is not None:
            return kept_gmms_joined(rw, chains, plan.split_dim, plan.scattered), 0
        return fused_gmm_source(rw, chains, plan.extra, sum(plan.sizes), plan.scattered), 0

    def added_bytes(self, plan: SourcePlan, chains: list[Any]) -> int:
        # The one GMM reads the differing operands concatenated (inside the GMMs' shard_map body
        # or partitioned module: what one device holds): a copy of them, unless the concatenate is
        # written where they are computed (``joined_where_computed``), in place of their own writes.
        j, dim = plan.extra
        gmms = [c.start for c in chains]
        if plan.gmms_kept is not None:  # the GMMs' results concatenated (``kept_gmms_joined``): a copy
            return sum(g.shape.byte_size for g in gmms)
        if joined_where_computed(gmms, j):
            return 0
        if plan.scattered:  # joined in blocks (fused_gmm_source): the operands themselves
            return sum(g.operands[j].shape.byte_size for g in gmms)
        return join_operands([g.operands[j] for g in gmms], dim)[0]


def _varying_out_dim(chains: list[Any], meeting: Meeting) -> int:
    """The result dimension of the halves' GMMs that their one differing operand's only free
    dimension becomes."""
    gmms = [c.start for c in chains]
    varying = [j for j in range(len(gmms[0].operands))
               if not all(same_value(g.operands[j], gmms[0].operands[j]) for g in gmms[1:])]
    if len(varying) != 1:
        raise Refusal("same-lhs", f"{gmms[0].ref} and {gmms[1].ref} differ in operands {varying}; "
                      "only one may differ", gmms[1])
    (j,) = varying
    dims = {free_dim_position(gmms[0], j, d) for d in range(gmms[0].operands[j].shape.rank)} - {None}
    if len(dims) != 1:
        raise Refusal("concat-dim", f"operand {j} of {gmms[0].ref} has {len(dims)} free dimensions: "
                      "which one the halves join along is not said", meeting.anchor)
    (out_dim,) = dims
    assert out_dim is not None
    return out_dim


def check_interleaved(chains: list[Any], meeting: Meeting) -> SourcePlan | None:
    """Halves interleaved element by element (``W[..., ::2]``, ``W[..., 1::2]``: k slices of
    one dimension with stride k, starting at 0 … k-1): the plan, whose ``stride`` the GMMs'
    meeting splits the fused GMM's result with (``TwoGmm``).  None when the slices are not
    strided (``check_slices`` reads them); a ``Refusal`` when they are, but not that way, or
    meet where they are joined (a concatenate of the halves reorders W: no view of it)."""
    specs = [c.cut.spec for c in chains]
    strided = {d for spec in specs for d, (_, _, stride) in enumerate(spec) if stride != 1}
    if not strided:
        return None
    k = len(chains)
    first = chains[0]
    full = first.cut.full.dims
    if len(strided) != 1:
        raise Refusal("slice-stride", f"{first.start.ref} and its sibling slices are strided in dimensions "
                      f"{sorted(strided)}; only one interleaved dimension can be fused", first.start, first.cut.sliced)
    d = strided.pop()
    if any(c.cut.whole is not first.cut.whole or c.cut.result != first.cut.result for c in chains) or \
            any(spec[d][2] == 1 for spec in specs):
        return None  # check_slices names the other source, or the one strided slice among plain ones
    for c, spec in zip(chains, specs):
        start, limit, stride = spec[d]
        others = [e for e, r in enumerate(spec) if e != d and tuple(r[:2]) != (0, full[e])]
        if stride != k or full[d] % k or start >= k or c.cut.shape.dims[d] != full[d] // k or others:
            raise Refusal("slice-stride", f"{c.start.ref} takes every {stride}th element from {start} of "
                          f"dimension {d} ({full[d]} long) of {c.cut.whole.ref}: not one of {k} interleaved "
                          "halves that together take all of it", c.start, c.cut.sliced)
    if sorted(spec[d][0] for spec in specs) != list(range(k)):
        raise Refusal("slice-stride", f"the {k} strided slices of {first.cut.whole.ref} start at "
                      f"{[spec[d][0] for spec in specs]}, not at each of 0..{k - 1}", first.start, first.cut.sliced)
    if meeting.joins or meeting.form not in ("two_gmm", "split_gather", "split_reduction"):
        raise Refusal("interleaved-joined", f"the interleaved halves of {first.cut.whole.ref} meet at "
                      f"{meeting.anchor.ref} ({meeting.form}), which puts them side by side: that array is W "
                      "with its elements reordered, which no slice of one gather of W gives", meeting.anchor)
    return SourcePlan(d, [c.cut.shape.dims[d] for c in chains], stride=k)


def check_slices(chains: list[Any]) -> tuple[int, list[int]]:
    """The slices cut one source along one dimension into adjacent pieces, in order."""
    first = chains[0].start
    cut = chains[0].cut
    source = cut.whole
    for c in chains[1:]:
        if c.cut.whole is not source or c.cut.result != cut.result:
            raise Refusal("same-source", f"{c.start.ref} slices {c.cut.whole.ref}, "
                          f"not {source.ref} like {first.ref}", c.start, c.cut.sliced)
    full = cut.full.dims
    split_dim = None
    ranges = []
    for c in chains:
        spec = c.cut.spec
        if len(spec) != len(full) or c.cut.shape.rank != len(full):
            raise Refusal(INCONSISTENT, f"{c.start.ref} slices {len(spec)} dimension(s) of "
                          f"{source.ref} (rank {len(full)}) into a result of rank {c.cut.shape.rank}",
                          c.start, c.cut.sliced)
        ranges.append(spec)
        for d, (start, limit, stride) in enumerate(spec):
            if stride != 1:
                raise Refusal("slice-stride", f"{c.start.ref} has stride {stride} in dimension {d}",
                              c.start, c.cut.sliced)
            if (start, limit) != (0, full[d]):
                if split_dim is not None and split_dim != d:
                    raise Refusal("split-dim", f"the slices cut dimensions {split_dim} and {d}; "
                                  "only one split dimension can be fused", c.start, c.cut.sliced)
                split_dim = d
    if split_dim is None:
        raise Refusal("split-dim", "every slice takes all of the weight: nothing was split", first, cut.sliced)
    pos = 0
    for c, spec in zip(chains, ranges):
        start, limit, _ = spec[split_dim]
        if start != pos:
            problem = "overlap" if start < pos else "leave a gap"
            check = "concat-order" if start > pos and any(
                s[split_dim][0] == pos for s in ranges) else "slices-adjacent"
            raise Refusal(check, f"{c.start.ref} starts at {start} in dimension {split_dim}, where the "
                          f"previous piece ends at {pos}: the pieces {problem} or are out of order",
                          c.start, c.cut.sliced)
        pos = limit
    if pos != full[split_dim]:
        raise Refusal("slices-cover", f"the slices end at {pos} but dimension {split_dim} of "
                      f"{source.ref} has {full[split_dim]}", chains[-1].start, chains[-1].cut.sliced)
    return split_dim, [s[split_dim][1] - s[split_dim][0] for s in ranges]


def check_gmm_sources(chains: list[Any], out_dim: int) -> tuple[list[int], tuple[int, int]]:
    """Halves that start as GMMs differing in one operand, the one that feeds ``out_dim``.

    ``gmm(A, B0) ++ gmm(A, B1) == gmm(A, B0 ++ B1)`` when B's concatenated
    dimension is a free dimension that lands on ``out_dim``: the weight
    gradients of the two-GMM form become one GMM on the concatenated
    activation gradients.  Returns the halves' sizes and (operand, its dimension).
    """
    gmms = [c.start for c in chains]
    first = gmms[0]
    for g in gmms[1:]:
        if not same_op(g, first) or len(g.operands) != len(first.operands):
            raise Refusal("same-gmm", f"{g.ref} and {first.ref} differ in {difference(first, g)}", g)
        if g.computation is not first.computation:
            raise Refusal("same-computation", f"{g.ref} is in another computation than {first.ref}", g)
    varying = [j for j in range(len(first.operands))
               if not all(same_value(g.operands[j], first.operands[j]) for g in gmms[1:])]
    if len(varying) != 1:
        raise Refusal("same-lhs", f"{first.ref} and {gmms[1].ref} differ in operands {varying}; "
                      "only one may differ", gmms[1])
    j = varying[0]
    dim = gmm_operand_dim(first, j, out_dim)
    if dim is None:
        raise Refusal("gmm-contracts-split", f"dimension {out_dim} of {first.ref} does not come from a free "
                      f"dimension of operand {j}", first)
    for g in gmms:
        shape = g.operands[j].shape
        for other in gmms:
            if other.operands[j].shape.rank != shape.rank or any(
                    a != b for d, (a, b) in enumerate(zip(shape.dims, other.operands[j].shape.dims)) if d != dim):
                raise Refusal("same-gmm", f"operand {j} of {g.ref} and {other.ref} differ beyond dimension {dim}", g)
    return [g.shape.dims[out_dim] for g in gmms], (j, dim)


def joined_where_computed(gmms: list[Instruction], j: int) -> bool:
    """Whether the GMMs' differing operands ``j`` are joined where they are computed, at no
    memory pass of its own: optimized HLO where each is a loop fusion that only its GMM reads,
    so that one loop fusion of both bodies and the concatenate writes the joined operand in
    place of their two writes, the same bytes (``fused_gmm_source``)."""
    parts = [g.operands[j] for g in gmms]
    for g, part in zip(gmms, parts):
        if part.computation is not g.computation or len(part.users) != 1 or \
                sum(o is part for o in g.operands) != 1 or not part.shape.is_array:
            return False
        body = part.called_computations[0] if len(part.called_computations) == 1 else None
        if part.opcode != "fusion" or fusion_kind(part) != "kLoop" or body is None or body.root is None or any(
                i.called_computations or not i.shape.is_array for i in body.instructions):
            return False
    return True


# How many ops up from the differing operands ``join_operands`` moves the concatenate.
JOIN_DEPTH = 12


def join_operands(parts: list[Instruction], dim: int, rw: Rewriter | None = None,
                  before: Instruction | None = None, depth: int = JOIN_DEPTH) -> tuple[int, Instruction | None]:
    """(bytes per device the join copies, the joined value when ``rw`` builds it) of ``parts``
    (one value per half, equal but along ``dim``) in a module XLA has not yet fused.

    The concatenate goes up through what computes the parts, where each is read only on the
    way to its GMM: an element-wise op of equal behaviour joins its operands instead; a
    broadcast of each half's own array (the dimension comes from it) joins those arrays; a
    broadcast of one value (the dimension is new), or an iota along another dimension, is the
    larger one, no join.  Where none applies, the parts there are concatenated: a copy of them,
    unless each is an element-wise op only the join reads (XLA fuses the concatenate into the
    loop computing them: no copy, as ``joined_where_computed`` finds in optimized HLO).
    jax's transpose of a ragged_dot (XLA's, the drop-in default) computes each half's operand
    as ``select(mask, broadcast(dy_half), 0)`` over every expert: joined at ``dy`` (one row of
    tokens per device) rather than at the masked ``[E, T, F]`` arrays, as the hand fix computes
    it.  Ops are placed ``before`` (the last GMM), each after what it reads."""
    first = parts[0]
    comp = first.computation
    total = sum(p.shape.dims[dim] for p in parts)
    shape = resized(first.shape, dim, total)

    def made(operands: list[Any], opcode_of: Instruction = first) -> Instruction | None:
        return rw.clone(opcode_of, operands, shape, before=before) if rw is not None else None

    alike = comp is not None and all(p.computation is comp and p.opcode == first.opcode and p.shape.is_array
                                     and behaviour(p) == behaviour(first) for p in parts) \
        and not any(i.opcode == "fusion" for i in comp.instructions)  # optimized HLO: kernels of their own
    own = all(len(p.users) == 1 for p in parts)
    if depth > 0 and alike:
        if first.opcode == "iota" and first.attributes.get("iota_dimension") != dim:
            return 0, made([])
        if first.opcode == "broadcast" and len(first.operands) == 1:
            dims = list(first.attributes.get("dimensions") or ())
            if dim not in dims and all(same_value(p.operands[0], first.operands[0]) for p in parts[1:]):
                return 0, made([first.operand_values[0]])
            if dim in dims and own:
                copied, inner = join_operands([p.operands[0] for p in parts], dims.index(dim), rw, before, depth - 1)
                return copied, made([inner])
        d = op(first.opcode)
        if own and d is not None and Trait.ELEMENTWISE in d.traits and first.operands and all(
                o.shape.is_array and o.shape.dims == p.shape.dims for p in parts for o in p.operands):
            copied, operands = 0, []
            for k in range(len(first.operands)):
                c, inner = join_operands([p.operands[k] for p in parts], dim, rw, before, depth - 1)
                copied += c
                operands.append(inner)
            return copied, made(operands)
    # Parts each computed by an element-wise op that only the join reads (jax's transpose of
    # silu(gate) * up: dgate, an add in jit(silu)'s call, and dup, a multiply): XLA fuses the
    # concatenate into the loop that computes them, one loop writing the joined value in place of
    # their two writes, as ``joined_where_computed`` finds in optimized HLO: no copy of its own
    # (the compiled rewritten program holds no concatenate of its own; docs/cost-model.md).
    # One value in every half (after SPMD partitioning, CSE has made the halves' masks one ``and``,
    # which other ops read too): the joined operand reads it twice, and XLA fuses the element-wise
    # op computing it into what reads the join (before partitioning the masks are each half's own,
    # joined up at their iotas: no copy either).
    fusible = comp is not None and not any(i.opcode == "fusion" for i in comp.instructions) and all(
        p.computation is comp and p.shape.is_array and _elementwise(p) for p in parts)
    if fusible and (own or all(same_value(p, first) for p in parts[1:])):
        copied = 0
    else:
        copied = sum(p.shape.byte_size for p in parts)
    return copied, (rw.concatenate(parts, dim, shape, before=before) if rw is not None else None)


def _elementwise(instr: Instruction) -> bool:
    """An element-wise op of array operands (XLA fuses it with a concatenate of its result), or a
    call of a function that returns one (jax's ``jit(silu)`` transposed: XLA inlines the call
    before it fuses)."""
    if instr.opcode == "call" and len(instr.called_computations) == 1:
        root = instr.called_computations[0].root
        return root is not None and root.shape.is_array and _elementwise(root)
    d = op(instr.opcode)
    return d is not None and Trait.ELEMENTWISE in d.traits and bool(instr.operands) and all(
        o.shape.is_array for o in instr.operands)


def kept_gmms_joined(rw: Rewriter, chains: list[Any], dim: int, block: int = 0) -> Instruction:
    """The halves' GMMs kept as they are, their results concatenated along ``dim`` (the output
    dimension the halves are joined along) right after the last of them: the fused chain reduces
    this once (``block``: joined in blocks of that many elements, block k of each result in turn,
    as ``fused_gmm_source`` joins the operands, for a scatter along ``dim``).  Reshapes and a
    concatenate copy, and a reduction sums each element over the devices as it summed it in its
    half (a scatter along ``dim`` hands each device the same elements in the same order of
    blocks): bit-equal to the halves' own reductions."""
    gmms = [c.start for c in chains]
    comp = gmms[0].computation
    assert comp is not None
    last = max(gmms, key=comp.instructions.index)
    shape = resized(gmms[0].shape, dim, sum(g.shape.dims[dim] for g in gmms))
    if not block:
        return rw.concatenate([Value(g) for g in gmms], dim, shape, after=last)
    # [.., F, ..] each -> [.., n, block, ..], joined along the blocks' own dimension, -> [.., 2F, ..].
    kind, dims = shape.element_type, list(gmms[0].shape.dims)
    pieces, after = [], last
    for g in gmms:
        after = rw.reshape(Value(g), Shape.array(kind, dims[:dim] + [dims[dim] // block, block] + dims[dim + 1:]),
                           after=after)
        pieces.append(after)
    side = rw.concatenate(pieces, dim + 1, resized(pieces[0].shape, dim + 1, block * len(gmms)), after=after)
    return rw.reshape(side, shape, after=side)


def fused_gmm_source(rw: Rewriter, chains: list[Any], source: tuple[int, int], total: int, block: int = 0) -> Instruction:
    """One GMM on the concatenated varying operands, standing in for the halves' GMMs (``block``:
    joined in blocks of that many elements, block k of each operand in turn)."""
    j, dim = source
    gmms = [c.start for c in chains]
    # (GMMs in XLA:CPU's custom fusions are held back, ``unfused_dots_refusal``: never merged here.)
    assert not fused_dots(gmms), "a merge of GMMs run in custom fusions is held back"
    first = gmms[0]
    comp = first.computation
    # After every half's inputs: right before the last of the GMMs.
    where = max(gmms, key=comp.instructions.index)
    in_one_fusion = joined_where_computed(gmms, j)
    opened: list[Instruction] = []
    parts = [g.operand_values[j] for g in gmms]
    if in_one_fusion:
        # Optimized HLO: a copy of each operand's loop fusion opened (the halves' GMMs read the
        # fusions until they go), to be fused again with the concatenate below: one loop writes
        # the joined operand, as the two wrote theirs.
        parts = []
        for g in gmms:
            copy = copy_fusion_for(rw, g.operands[j], [])
            body = copy.called_computations[0]
            inner = [i for i in body.instructions if i.opcode != "parameter"]
            root = body.root
            new = rw.inline(copy)
            opened.extend(new[id(i)].op for i in inner)
            parts.append(new[id(root)])
    joined_shape = resized(parts[0].op.shape, dim, sum(p.op.shape.dims[dim] for p in parts))
    if block:
        # [.., F, ..] each -> [.., n, block, ..], joined along the blocks' own dimension, -> [.., 2F, ..].
        kind, dims = joined_shape.element_type, list(parts[0].op.shape.dims)
        pieces = [rw.reshape(p, Shape.array(kind, dims[:dim] + [dims[dim] // block, block] + dims[dim + 1:]),
                             before=where) for p in parts]
        side = rw.concatenate(pieces, dim + 1, resized(pieces[0].shape, dim + 1, block * len(parts)), before=where)
        joined = rw.reshape(side, joined_shape, before=where)
        opened.extend([*pieces, side])
    elif in_one_fusion:
        joined = rw.concatenate(parts, dim, joined_shape, before=where)
    elif any(p.result for p in parts):  # one result of a multi-result op: concatenated as it is
        joined = rw.concatenate(parts, dim, joined_shape, before=where)
    else:
        pushed = join_operands([p.op for p in parts], dim, rw, where)[1]
        assert pushed is not None, "join_operands builds with a rewriter"
        joined = pushed
    if in_one_fusion:
        assert comp is not None
        made = {id(i) for i in opened} | {id(joined)}
        joined = rw.wrap_in_fusion([i for i in comp.instructions if id(i) in made])
    operands = first.operand_values
    operands[j] = Value(joined)
    out_dim = free_dim_position(first, j, dim)
    assert out_dim is not None, "check_gmm_sources found the dimension free"
    return rw.clone(first, operands, resized(first.shape, out_dim, total), before=where)


def named_gspmd(chain: Chain) -> bool:
    """HLO after Shardy's import (GSPMD form: ``SPMDFullToShardShape``) whose shardings are
    written over a mesh (jax 0.12's XLA)."""
    if not any(not isinstance(op, Boundary) and op.opcode == "custom-call"
               and op.attributes.get("custom_call_target") == "SPMDFullToShardShape" for op in chain.ops):
        return False
    return getattr(chain.start.attributes.decoded("sharding"), "named", None) is not None
