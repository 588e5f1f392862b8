"""Where the halves of a site meet again: each a ``Meeting``.

* ``Concat``: a concatenate along the split dimension (or one inside a fusion
  of optimized HLO, reported only);
* ``PadAdd``: each half padded back to its place with zeros and the pads
  added (how jax's transpose of a slice reassembles a gradient);
* ``TwoGmm``: each half is the weight of its own GMM, with the same left-hand
  side and group sizes;
* ``SplitCollectives``: optimized HLO, where whatever consumes the halves is
  a fusion: the halves' collectives alone, reported as a site (never rewritten).

A meeting checks what it needs of the halves (``check``: a ``Refusal`` or,
for two GMMs, the dimension of their results the halves land on), says which
whether the halves are put back together there (``joins``: that copy goes with the
rewrite), and puts the one fused
value where the halves met (``replace``).  Finders (``Concatenates``,
``PadAdds``, ``GmmPairs``, ``SplitCollectiveFinder``) find meetings in a module
for a rule's pass.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ...checks import Refusal
from ...gmm import kernel_calls
from ...gmm.kernel_calls import gmm_kernel
from ...ir import Instruction, Shape
from ...ir.op_table import Trait
from ...ir.op_table import op as op_row
from ...ir.rewriter import Operand, Rewriter, as_value
from ...ir.analysis import literal, remove_dead, resized
from .chains import in_dependency_order, is_chain_op
from .crossings import result_shape
from .fusions import _fed_by, fused_concats
from .gmms import GMM_OP_OPCODES, check_gmms, is_gmm_op, reemit_refusal
from .reshard import reshard_place
from .types import Chain, Meeting
from .walk import Scan

# A join of more pieces than this is not looked at (a weight is cut into a few pieces).
_MAX_PIECES = 16

class _Joined(Meeting):
    """Halves joined back into one array: the fused chain's result is read instead."""

    joined: Instruction  # the instruction whose value the fused chain replaces
    joins = True

    def check(self, chains: list[Chain], split_dims: list[int]) -> int | None:
        # A concatenate without its dimension (malformed text carried through) joins nothing we know.
        if self.dim is None or self.dim != split_dims[-1]:
            shown = self.dims if self.dims is not None else "none given"
            raise Refusal("concat-dim", f"concatenate joins dimension {shown} but the halves were split on "
                          f"dimension {split_dims[-1]}", self.anchor, self.origin)
        return None

    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        rw.replace_all_uses(self.joined, value)
        remove_dead(rw, [self.joined])


class Concat(_Joined):
    form = "concat"

    def __init__(self, concat: Instruction) -> None:
        self.anchor = concat
        self.joined = concat
        self.concat = concat  # the concatenate op (inside the fusion, for a FusedConcat)
        self.pieces = list(zip(concat.operands, concat.operand_results))

    # Read only once halves were found: a value that does not decode (text carried
    # through) must not stop the search for other sites.
    # Properties where a PadAdd has plain fields.
    @property
    def dims(self) -> tuple[Any, ...] | None:  # type: ignore[override]
        given = self.concat.attributes.get("dimensions")
        return tuple(given) if given is not None else None

    @property
    def dim(self) -> int | None:  # type: ignore[override]
        dims = self.dims
        return dims[0] if dims is not None and len(dims) == 1 else None

    @property
    def shape(self) -> Shape:
        return self.concat.shape

    @property
    def origin(self) -> Instruction:
        return self.concat



class FusedConcat(Concat):
    """Optimized HLO: a concatenate inside a fusion, of halves that are fusion operands.
    Reported at the fusion, never rewritten (``replace`` is not reached)."""

    compiled = True

    def __init__(self, fusion: Instruction, concat: Instruction, fed: list[Instruction]) -> None:
        self.anchor = fusion
        self.joined = fusion
        self.concat = concat
        self.pieces = [(op, 0) for op in fed]


class PadMax(_Joined):
    """``convert(maximum(convert(pad(a, -inf)), convert(pad(b, -inf))))``: XLA:TPU's concatenate
    (each piece padded to its place with -inf, the pads' maximum taken in a wider float type and
    rounded back, exact: ``max(x, -inf)`` is ``x``, NaN included).  The same value as
    ``concatenate(a, b)`` along ``dim``, so the same site and price as a concatenate."""

    form = "concat"

    def __init__(self, joined: Instruction, pads: list[Instruction], dim: int) -> None:
        self.anchor = joined
        self.joined = joined
        self.concat = joined
        self.pads = pads
        self.dim = dim
        self.dims = (dim,)
        self.pieces = [first_operand(p) for p in pads]


class FusedPadMax(PadMax):
    """Optimized HLO: a ``PadMax`` inside a fusion (XLA:TPU's ``pad_maximum_fusion``), of halves
    that are fusion operands; ``concat`` is its root in the body, opened to rewrite the site."""

    compiled = True

    def __init__(self, fusion: Instruction, joined: Instruction, pads: list[Instruction], dim: int,
                 fed: list[Instruction]) -> None:
        super().__init__(joined, pads, dim)
        self.anchor = fusion
        self.joined = fusion
        self.pieces = [(op, 0) for op in fed]


def _float_widened(instr: Instruction) -> Instruction:
    """``instr`` under converts that widen a float exactly (bf16 to f32)."""
    while instr.opcode == "convert" and len(instr.operands) == 1 and _wider_float(instr.operands[0].shape.element_type,
                                                                                 instr.shape.element_type):
        instr = instr.operands[0]
    return instr


def _wider_float(narrow: str, wide: str) -> bool:
    floats = ("bf16", "f16", "f32", "f64")
    return narrow in floats and wide in floats and (narrow, wide) in (
        ("bf16", "f32"), ("f16", "f32"), ("bf16", "f64"), ("f16", "f64"), ("f32", "f64"))


def _is_minus_inf(instr: Instruction) -> bool:
    if instr.opcode == "broadcast" and instr.operands:
        return _is_minus_inf(instr.operands[0])
    value = literal(instr) if instr.opcode == "constant" else None
    return value is not None and value[0] == "literal" and isinstance(value[1], float) and value[1] == float("-inf")


def pad_max_join(joined: Instruction) -> tuple[list[Instruction], int] | None:
    """(the pads in offset order, the dimension) of a ``PadMax`` whose value ``joined`` is."""
    top = joined.operands[0] if joined.opcode == "convert" and len(joined.operands) == 1 else joined
    if top.opcode != "maximum" or not joined.shape.is_array:
        return None
    leaves: list[Instruction] = []
    work = [top]
    while work:
        cur = work.pop()
        if cur.opcode == "maximum" and len(cur.operands) == 2 and len(leaves) + len(work) < _MAX_PIECES:
            work.extend(cur.operands)
        else:
            leaves.append(_float_widened(cur))
    want = joined.shape.element_type
    rank = joined.shape.rank
    found = []
    for p in leaves:
        spec = p.attributes.get("padding") if p.opcode == "pad" else None
        if spec is None or len(p.operands) != 2 or p.shape.dims != joined.shape.dims or \
                p.shape.element_type != want or not _is_minus_inf(p.operands[1]) or len(spec) != rank:
            return None
        moved = [d for d, (lo, hi, interior) in enumerate(spec) if lo or hi or interior]
        if len(moved) != 1:
            return None
        found.append((p, moved[0]))
    if len(found) < 2 or (top is not joined and not _wider_float(want, top.shape.element_type)) or (
            top is joined and top.shape.element_type != want):
        return None  # (a round trip through a wider float, or none)
    return _tiling([p for p, _ in found], {d for _, d in found}, joined)


def _tiling(pads: list[Instruction], dims: set[int], whole: Instruction) -> tuple[list[Instruction], int] | None:
    """The pads in offset order and their dimension, if they place their pieces side by side,
    without gap or overlap, over the whole of ``whole``."""
    if len(dims) != 1:
        return None
    dim = dims.pop()
    for p in pads:
        lo, hi, interior = p.attributes["padding"][dim]
        if interior != 0 or lo < 0 or hi < 0:
            return None
    pads = sorted(pads, key=lambda p: p.attributes["padding"][dim][0])
    offset = 0
    for p in pads:
        if p.attributes["padding"][dim][0] != offset:
            return None
        piece = result_shape(*first_operand(p))
        if not piece.is_array or piece.rank != whole.shape.rank:
            return None
        offset += piece.dims[dim]
    return (pads, dim) if offset == whole.shape.dims[dim] else None


def fused_pad_max(fusion: Instruction) -> FusedPadMax | None:
    """A fusion whose root is a ``PadMax`` of fusion operands (``pad_maximum_fusion``)."""
    body = fusion.called_computations[0] if fusion.called_computations else None
    if body is None or body.root is None:
        return None
    found = pad_max_join(body.root)
    if found is None:
        return None
    pads, dim = found
    fed = [_fed_by(fusion, p.operands[0]) for p in pads]
    if any(f is None for f in fed):
        return None
    return FusedPadMax(fusion, body.root, pads, dim, [f for f in fed if f is not None])


class PadAdd(_Joined):
    """``add(pad(a), pad(b), ...)`` that places each piece at its own offset with zeros
    elsewhere: the same value as ``concatenate(a, b, ...)`` along ``dim``."""

    form = "pad_add"

    def __init__(self, add: Instruction, pads: list[Instruction], dim: int) -> None:
        self.anchor = add
        self.joined = add
        self.pads = pads
        self.dim = dim
        self.dims = (dim,)
        self.pieces = [first_operand(p) for p in pads]



class TwoGmm(Meeting):
    """Each half is the weight of its own GMM: one GMM on the whole weight, its result sliced."""

    form = "two_gmm"
    gmm_launches = True
    gmms: list[Instruction]

    def __init__(self, gmms: list[Instruction]) -> None:
        # ``gmms`` in the order of their weights' pieces; the fused GMM and the slices of its
        # result go before the first of them the program runs, so that they precede every user.
        comp = gmms[0].computation
        self.anchor = gmms[0] if comp is None else min(gmms, key=comp.instructions.index)
        self.gmms = gmms

    def check(self, chains: list[Chain], split_dims: list[int]) -> int | None:
        for g in self.gmms:
            kernel = gmm_kernel(g)
            if kernel is not None:
                why = reemit_refusal(g)
                if why is not None:
                    raise Refusal("fixed-shape-kernel", f"{g.ref} runs a grouped-matmul kernel built for a fixed "
                                  f"shape ({kernel}); fusing the GMMs needs the kernel emitted again for the "
                                  f"fused weight: {why}", g)
        return check_gmms(self.gmms, split_dims[-1])


    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        assert self.gmms is not None and out_dim is not None
        fused = self._fused_gmm(rw, value, out_dim, total)
        start = 0
        for i, g in enumerate(self.gmms):
            width = g.shape.dims[out_dim]
            if self.interleave > 1:
                # Interleaved halves: GMM i's columns are every interleave-th (block) of the fused result's.
                piece = interleaved_piece(rw, fused, out_dim, i, self.interleave, self.block,
                                          resized(fused.shape, out_dim, width), before=self.anchor)
            else:
                piece = rw.slice_along(fused, out_dim, start, width, resized(fused.shape, out_dim, width),
                                       before=self.anchor)
            start += width
            rw.replace_all_uses(g, piece)
        kernels = [g.called_computations[0] for g in self.gmms
                   if gmm_kernel(g) is not None and g.called_computations]
        remove_dead(rw, list(self.gmms))
        comp, weight = fused.computation, as_value(value).op
        if comp is not None and weight.computation is comp and \
                comp.instructions.index(weight) > comp.instructions.index(fused):
            # The fused weight is the half's value the program defines later (up first: the up
            # half's shard_map parameter, its GMM after the gate's): it moves up with what it reads.
            in_dependency_order(rw, comp)
        if kernels:
            # The halves' kernels, built for their shape, are dead now.
            kernel_calls.drop_unused(rw, kernels)

    def _fused_gmm(self, rw: Rewriter, value: Operand, out_dim: int, total: int) -> Instruction:
        assert self.gmms is not None
        # The GMM the program runs first: its lhs and group sizes (the same values as the others')
        # are computed before it, where the fused GMM goes.
        g0 = self.anchor
        operands = g0.operand_values
        operands[1] = as_value(value)
        if gmm_kernel(g0) is not None:
            # A kernel built for the halves' shape: emitted again for the whole weight.
            return kernel_calls.reemit_gmm(rw, g0, operands, before=self.anchor)
        return rw.clone(g0, operands, resized(g0.shape, out_dim, total), before=self.anchor)


class SplitCollectives(Meeting):
    """Optimized HLO: halves of one array gathered (or reduced) apart, whatever consumes them."""

    compiled = True

    def __init__(self, form: str, chains: list[Chain]) -> None:
        self.form = form
        self.tops = [c.top for c in chains]  # in the order of the halves' slices
        self.anchor = self.tops[0]
        # The halves of a gradient are put back together in the fusion that reads them; a
        # weight's halves, seen here, are not joined (a concatenate is a FusedConcat): two GMMs,
        # which the rewrite keeps (each reads its slice of the one gather, ``replace``), so that no
        # GMM launch is saved (``Meeting.gmm_launches`` False; a gradient's GMMs merged by its
        # source, ``GmmSource``, still save theirs).
        self.joins = form == "split_reduction"

    def check(self, chains: list[Chain], split_dims: list[int]) -> int | None:
        return split_dims[-1]  # what read a half reads its slice of the fused value, along there

    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        assert out_dim is not None
        slice_for_tops(rw, self.tops, value, out_dim, self.interleave, self.block)


def slice_for_tops(rw: Rewriter, tops: list[Instruction], value: Operand, dim: int, interleave: int,
                   block: int, shapes: list[Shape] | None = None) -> None:
    """What read each half's last op ``tops`` reads that half's slice of the fused value along
    ``dim`` instead (``interleave`` > 1: half i is every interleave-th element, or ``block``, from
    i), and the halves' last ops go.  A slice (or a strided one) copies: no value changes.
    ``shapes``: the halves' shapes, read before the fused chain was built (it may have made the
    first half's crossing the whole array's)."""
    whole = as_value(value).op
    # A half's last op may be the fused value itself (a shard_map crossing the fused chain kept
    # for the whole array): only what read it before the slices were made reads its slice.
    readers = [list(top.users) for top in tops]
    start, after = 0, whole
    pieces = []
    for i, top in enumerate(tops):
        shape = shapes[i] if shapes is not None else top.shape
        width = shape.dims[dim]
        if interleave > 1:  # half i is every interleave-th element (block) from i
            after = interleaved_piece(rw, value, dim, i, interleave, block, shape, after=after)
        else:
            after = rw.slice_along(value, dim, start, width, shape, after=after)
        pieces.append(after)
        start += width
    for top, users, piece in zip(tops, readers, pieces):
        if top is not whole:
            rw.replace_all_uses(top, piece)
            continue
        for user in users:
            for k, operand in enumerate(list(user.operands)):
                if operand is top:
                    rw.set_operand(user, k, piece)
    remove_dead(rw, [top for top in tops if top is not whole])


def interleaved_piece(rw: Rewriter, value: Operand, dim: int, index: int, stride: int, block: int,
                      shape: Shape, *, before: Instruction | None = None,
                      after: Instruction | None = None) -> Instruction:
    """Piece ``index`` of ``stride`` pieces interleaved along ``dim`` of ``value`` in blocks of
    ``block`` elements (1: element by element): the blocks ``index``, ``index + stride``, …
    A strided slice; of blocks wider than one element, a strided slice of the blocks seen as a
    dimension of their own (a reshape before and after: no copy of its own)."""
    dims = list(as_value(value).shape.dims)
    n = dims[dim] // block
    if block == 1:
        spec = tuple((index, m, stride) if d == dim else (0, m, 1) for d, m in enumerate(dims))
        return rw.slice(value, spec, shape, before=before, after=after)
    kind = as_value(value).shape.element_type
    blocks = rw.reshape(value, Shape.array(kind, dims[:dim] + [n, block] + dims[dim + 1:]), before=before, after=after)
    spec = tuple((index, m, stride) if d == dim else (0, m, 1) for d, m in enumerate(blocks.shape.dims))
    piece = rw.slice(blocks, spec, Shape.array(kind, dims[:dim] + [len(range(index, n, stride)), block] + dims[dim + 1:]),
                     after=blocks)
    return rw.reshape(piece, shape, after=piece)


def blocks_in_order(rw: Rewriter, value: Operand, dim: int, pieces: int, block: int,
                    before: Instruction) -> Instruction:
    """``value`` whose ``pieces`` halves lie along ``dim`` in blocks of ``block`` elements (block
    k: each half's k-th in turn) with the halves side by side instead: ``[.., n, pieces, block, ..]``
    transposed to ``[.., pieces, n, block, ..]`` (a copy of ``value``), put before ``before``."""
    shape = as_value(value).shape
    dims = list(shape.dims)
    kind = shape.element_type
    n = dims[dim] // (pieces * block)
    split = rw.reshape(value, Shape.array(kind, dims[:dim] + [n, pieces, block] + dims[dim + 1:]), before=before)
    perm = list(range(len(dims) + 2))
    perm[dim], perm[dim + 1] = perm[dim + 1], perm[dim]
    moved = rw.create("transpose", Shape.array(kind, dims[:dim] + [pieces, n, block] + dims[dim + 1:]), [split],
                      {"dimensions": tuple(perm)}, after=split)
    return rw.reshape(moved, shape, after=moved)


# ---- finding meetings ----------------------------------------------------------------

class Finder:
    """Finds one kind of meeting in a module, for one pass of a rule.  ``scan`` gives
    ``chain(value, result)`` (the half ending there, or None) and what the finders share."""

    # The opcodes ``at`` looks at (the scan asks a finder about those only: a question per
    # instruction and finder is most of a pass on a large module); None: every instruction.
    opcodes: frozenset[str] | None = frozenset()

    def __init__(self, scan: Scan) -> None:
        self.scan = scan

    def at(self, instr: Instruction) -> Iterable[tuple[Meeting, list[Any]]]:
        return ()

    def finish(self) -> Iterator[tuple[Meeting, list[Any]]]:
        return iter(())

    def _chains(self, pieces: Iterable[tuple[Instruction, int]]) -> list[Chain] | None:
        pieces = list(pieces)
        chains = [c for c in (self.scan.chain(op, r) for op, r in pieces) if c is not None]
        return chains if len(chains) == len(pieces) else None


class Concatenates(Finder):
    """Concatenates of halves, also inside fusions of optimized HLO."""

    opcodes = frozenset(("concatenate", "fusion", "convert", "maximum"))

    def at(self, instr: Instruction) -> Iterator[tuple[Meeting, list[Any]]]:
        meetings: list[Concat | PadMax]
        if instr.opcode == "concatenate" and len(instr.operands) >= 2:
            meetings = [Concat(instr)]
        elif instr.opcode == "fusion":
            meetings = [FusedConcat(instr, concat, fed) for concat, fed in fused_concats(instr)]
            padmax = fused_pad_max(instr) if not meetings else None
            meetings += [padmax] if padmax is not None else []
        elif instr.opcode in ("convert", "maximum"):
            found = pad_max_join(instr)
            if found is None or (instr.opcode == "maximum" and any(u.opcode == "convert" and pad_max_join(u)
                                                                  for u in instr.users)):
                return  # (the convert back is the join)
            meetings = [PadMax(instr, *found)]
        else:
            return
        for meeting in meetings:
            chains = self._chains(meeting.pieces)
            if chains is not None:
                self.scan.covered.update(id(op) for c in chains for op in c.ops)
                yield meeting, chains


class PadAdds(Finder):
    """Adds of zero-pads that put the halves back in their places."""

    opcodes = frozenset(("add",))

    def at(self, instr: Instruction) -> Iterable[tuple[Meeting, list[Any]]]:
        # A tuple, not a generator: asked at every add of the module.
        if instr.opcode != "add":
            return ()
        meeting = pad_meeting(instr, self.scan.pads)
        if meeting is not None:
            chains = self._chains(meeting.pieces)
            if chains is not None:
                return ((meeting, chains),)
        return ()


class GmmPairs(Finder):
    """GMMs (or grouped-matmul kernel calls) whose weights are halves of one array."""

    # GMMs, and what gmm_kernel may name: custom calls and calls of kernel-wrapping functions.
    opcodes = frozenset(GMM_OP_OPCODES | {"custom-call", "call"})

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.by_source: dict[tuple[int, int, int], list[tuple[Instruction, Chain]]] = {}

    def at(self, instr: Instruction) -> Iterable[tuple[Meeting, list[Any]]]:
        if is_gmm_op(instr) and len(instr.operands) >= 2:
            weights = [instr.operands[1]]
        elif gmm_kernel(instr) is not None:
            weights = list(instr.operands)
        else:
            return ()
        for operand in weights:
            chain = self.scan.chain(operand, 0)
            if chain is not None:
                src, result = chain.base
                placed = reshard_place(chain) if chain.cut is None else None
                if placed is not None:  # pieces the partitioner cut out of a sharded split dimension
                    (src, chain.place), result = placed, 0
                # One meeting per computation: GMMs of one weight in two loop bodies (the forward
                # and its recomputation) are two sites.
                self.by_source.setdefault((id(src), result, id(instr.computation)), []).append((instr, chain))
        return ()

    def finish(self) -> Iterator[tuple[Meeting, list[Any]]]:
        for group in self.by_source.values():
            if len(group) >= 2:
                # In the order of the pieces in the weight, whatever order the program runs the GMMs
                # in (an up-first layout's program computes the gate first): each GMM is then
                # replaced by its own piece of the fused result, the one its weight was cut from.
                group.sort(key=lambda gc: _piece_order(gc[1]))
                yield TwoGmm([g for g, _ in group]), [c for _, c in group]


def _piece_order(chain: Chain) -> tuple[Any, ...]:
    """Where a half's slice starts in the weight (dimension by dimension; ``()`` for a half that
    starts at no slice, which keeps its place: the sort is stable)."""
    if chain.cut is not None:
        return tuple(r[0] for r in chain.cut.spec)
    # A resharded half: where its pieces say it starts (where they say nothing, the source's
    # proof refuses the site).
    return (chain.place,) if chain.place is not None else ()


class SplitCollectiveFinder(Finder):
    """Optimized HLO: the halves' collectives, when what consumes them is a fusion.

    After fusion the GMMs and the pads are fusions that cannot be matched op for
    op: the split collectives are a site of their own, rewritten to one collective and a
    slice of it per half for the fusions that read them.
    """

    def finish(self) -> Iterator[tuple[Meeting, list[Any]]]:
        scan = self.scan
        collectives = scan.collectives
        by_source: dict[object, list[Any]] = {}
        for instr in scan.module.instructions():
            if instr.opcode not in collectives or any(u.opcode in collectives for u in instr.users):
                continue
            if id(instr) in scan.covered:
                continue  # reported as a concat site
            chain = scan.chain(instr, 0)
            # (A plain slice: a site whose fusions were opened, ``opening``.)
            if chain is not None and chain.cut is not None and (
                    chain.cut.fused or (instr.users and all(_opaque(u) or _loop_state(u, scan.callers)
                                                            for u in instr.users))):
                by_source.setdefault(id(chain.cut.whole), []).append(chain)
            elif chain is not None and chain.cut is None and instr.users and all(u.opcode == "fusion"
                                                                                 for u in instr.users):
                placed = reshard_place(chain)  # pieces the partitioner cut out of a sharded split dimension
                if placed is not None:
                    (cut, chain.place) = placed
                    by_source.setdefault(id(cut), []).append(chain)
                elif is_gmm_op(chain.start) and "all-gather" not in collectives:
                    # Weight-gradient GMMs of one weight's halves (the two-GMM form), reduced
                    # apart: grouped by the activations they share (``GmmSource`` checks them).
                    lhs = as_value(chain.start.operands[0])
                    by_source.setdefault((id(lhs.op), lhs.result), []).append(chain)
        form = "split_gather" if "all-gather" in collectives else "split_reduction"
        for chains in by_source.values():
            # Between two stages a fusion may convert (bf16 round trips): the
            # first stage's chain is then a part of the second's, not a half.
            inner = {id(op) for c in chains for op in c.ops[:-1]}
            chains = [c for c in chains if id(c.ops[-1]) not in inner]
            if chains and chains[0].cut is None and chains[0].place is None:
                # GMM results: the fused GMM joins them in this order, and its slices follow it.
                if len(chains) >= 2 and meet(chains):  # apart: two weights' (MOE004's)
                    yield SplitCollectives(form, chains), chains
                continue
            # A half gathered more than once (the forward and its ``jax.checkpoint``
            # recomputation, from one slice XLA's CSE left): one site per round of halves,
            # in program order.
            by_piece: dict[tuple[Any, ...], list[Any]] = {}
            for c in chains:
                by_piece.setdefault(_piece_order(c), []).append(c)
            for k in range(max((len(v) for v in by_piece.values()), default=0)):
                group = [by_piece[p][k] for p in sorted(by_piece) if k < len(by_piece[p])]
                if len(group) >= 2:
                    yield SplitCollectives(form, group), group


def _opaque(user: Instruction) -> bool:
    """A reader that cannot be matched op for op: a fusion, a kernel's custom call (XLA:TPU's
    GMMs of optimized HLO are ``tpu_custom_call``s reading each half's gather), an async copy."""
    if user.opcode == "copy-start":  # (an async copy to another memory space: XLA:TPU's S(1))
        return True
    return user.opcode == "fusion" or (user.opcode == "custom-call" and str(
        user.attributes.get("custom_call_target", "")).strip('"') in kernel_calls.KERNEL_TARGETS)


# Users that hold values side by side without computing anything of them: ends read by
# these still go their own ways (a shard_map's results, a computation's outputs).
HOLDERS = frozenset({"tuple", "func.return", "stablehlo.return", "sdy.return", "return"})


def meet(group: list[Any], combined_apart: bool = False) -> bool:
    """Whether the ends are read together by one op that computes (a fusion of optimized HLO
    that puts them back together, say), past the single-operand steps between (converts,
    copies, a fusion of one operand): halves that meet are MOE002's.  ``combined_apart``: a
    combined collective is read as the plain ones it combines (``_readers``)."""
    return bool(set.intersection(*(_readers(c.top, combined_apart=combined_apart) for c in group)))


# Operands that only say where a window is (the partitioner's offsets: a constant table indexed
# by the partition id), not arrays computed with.
_INDEX_OPS = frozenset({"constant", "partition-id", "replica-id"})


def _readers(end: Instruction, depth: int = 4, combined_apart: bool = False) -> set[int]:
    """The ops that read ``end`` and compute with other arrays too, past up to ``depth`` ops
    between that read only it (converts, copies, fusions of it and scalars or constants: a
    window's offsets, the partitioner's table of them)."""
    found: set[int] = set()
    work = [(end, depth)]
    while work:
        cur, left = work.pop()
        for user in cur.users:
            if user.opcode == "tuple" and user.users and all(u.opcode == "opt-barrier" for u in user.users):
                # An optimization barrier holds the values it passes on: follow each to its
                # element of the barrier's result.
                work.extend((element, left) for element in _through_barrier(user, cur))
                continue
            if user.opcode in HOLDERS or user.is_terminator:
                continue
            arrays = [op for op in user.operands
                      if (op.shape.is_tuple or op.shape.rank > 0) and op.opcode not in _INDEX_OPS]
            combined = _combined_elements(user, cur) if combined_apart else None
            if combined is not None:
                # A combined collective (XLA's combiner's tuple of several reductions) reduces
                # each operand on its own: read as the plain collective of ``cur`` the combiner
                # was handed, its element of the result, which is what the rule reads with the
                # op taken apart (``held``).  Read as one op, two weights' gradient norms
                # combined into one all-reduce are a meeting, but only while combined: the site
                # found taken apart is not found once the rewrite keeps the op held, and the
                # rule never reaches a fixed point.
                if left and cur.opcode not in _INDEX_OPS and (cur.shape.is_tuple or cur.shape.rank > 0):
                    work.extend((element, left - 1) for element in combined)
                else:
                    found.update(id(element) for element in combined)
                continue
            if left and len(arrays) == 1 and (is_chain_op(user) or user.opcode == "fusion"):
                work.append((user, left - 1))
            else:
                found.add(id(user))
    return found


def _combined_elements(user: Instruction, value: Instruction) -> list[Instruction] | None:
    """The get-tuple-elements of ``value``'s positions where ``user`` is a combined collective (a
    plain collective of several operands and a tuple result, each element that operand reduced
    on its own) whose every reader is one; None for any other op."""
    row = op_row(user.opcode)
    if row is None or Trait.COLLECTIVE not in row.traits or row.wraps is not None \
            or not user.shape.is_tuple or len(user.operands) < 2 \
            or any(u.opcode != "get-tuple-element" for u in user.users):
        return None
    positions = {i for i, o in enumerate(user.operands) if o is value}
    return [u for u in user.users if u.attributes.get("index") in positions]


def _through_barrier(tup: Instruction, value: Instruction) -> list[Instruction]:
    """What reads ``value``'s elements of the optimization barriers that read ``tup``: their
    get-tuple-elements of its positions (or, in newer HLO, the ops reading ``%barrier#i``)."""
    positions = {i for i, op in enumerate(tup.operands) if op is value}
    found: list[Instruction] = []
    for barrier in tup.users:
        for user in barrier.users:
            if user.opcode == "get-tuple-element":
                if user.attributes.get("index") in positions:
                    found.append(user)
            elif any(op is barrier and r in positions for op, r in zip(user.operands, user.operand_results)):
                found.append(user)
    return found


def _loop_state(instr: Instruction, callers: dict[str, list[Instruction]]) -> bool:
    """Whether ``instr`` is the state a while loop starts with, or the one its body hands to the
    next iteration: where XLA's collective pipeliner puts the halves it gathers for the next
    layer (and, peeled, the first layer's); ``pipelined``."""
    comp = instr.computation
    if instr.opcode == "copy" and instr.users:  # copy insertion's, between a value and the state
        return all(_loop_state(u, callers) for u in instr.users)
    if instr.opcode != "tuple" or comp is None:
        return False
    if instr.users and all(u.opcode == "while" for u in instr.users):
        return True
    return instr is comp.root and any(c.opcode == "while" for c in callers.get(comp.name, ()))


# ---- pad + add as a concatenate ----------------------------------------------------------

def first_operand(instr: Instruction) -> tuple[Instruction, int]:
    """What ``instr``'s first operand reads: the defining op and which of its results."""
    return instr.operands[0], instr.operand_results[0]


def is_zero(instr: Instruction) -> bool:
    if instr.opcode == "broadcast" and instr.operands:
        return is_zero(instr.operands[0])
    if instr.opcode != "constant":
        return False
    value = literal(instr)
    if value is None:
        return False
    kind, v = value
    if kind == "literal":
        return v in (0, 0.0, False) and not isinstance(v, (tuple, str))
    return re.fullmatch(r"dense<\s*(-?0(\.0*)?(e[+-]?0+)?|false)\s*>(\s*:.*)?", str(v).strip(), re.IGNORECASE) is not None


# An add of more zero-pads than this is not looked at as a reassembly (a
# weight is cut into a few pieces); the cap keeps the search linear.
MAX_PIECES = 64


def pad_count(add: Instruction, memo: dict[int, int | None]) -> int | None:
    """How many pads an add tree reassembles: the add's operands are pads or
    single-use adds of the same kind; None if anything else is in it (or more
    than MAX_PIECES).  ``memo`` (one per pass) makes every add count once, so a
    chain of adds costs its length, not its length squared."""
    stack = [add]
    while stack:
        cur = stack[-1]
        if id(cur) in memo:
            stack.pop()
            continue
        todo = [op for op in cur.operands if op.opcode == "add" and len(op.users) == 1 and id(op) not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        count = 0
        for op in cur.operands:
            inner = memo[id(op)] if op.opcode == "add" and len(op.users) == 1 else None
            if op.opcode == "pad" and len(op.operands) == 2:
                count += 1
            elif inner is not None:
                count += inner
            else:
                count = MAX_PIECES + 1  # not a reassembly
                break
            if count > MAX_PIECES:
                break
        memo[id(cur)] = count if count <= MAX_PIECES else None
    return memo[id(add)]


def zero_pads(add: Instruction, memo: dict[int, int | None] | None = None) -> list[tuple[Instruction, int]] | None:
    """The zero-pads an add tree sums, each with the one dimension it pads (two or more of them,
    each of the sum's shape; None: the add is no such sum)."""
    count = pad_count(add, {} if memo is None else memo)
    if count is None or count < 2:
        return None
    pads: list[Instruction] = []
    work = [add]
    while work:
        cur = work.pop()
        if cur.opcode == "add":
            work.extend(cur.operands)
        else:
            pads.append(cur)
    rank = add.shape.rank
    found = []
    for p in pads:
        if p.shape.dims != add.shape.dims or not is_zero(p.operands[1]) or "padding" not in p.attributes:
            return None
        spec = p.attributes["padding"]
        if not isinstance(spec, (tuple, list)) or len(spec) != rank:
            return None
        moved = [d for d, (lo, hi, interior) in enumerate(spec) if lo or hi or interior]
        if len(moved) != 1:
            return None
        found.append((p, moved[0]))
    return found


def pad_meeting(add: Instruction, memo: dict[int, int | None] | None = None) -> "PadAdd | None":
    """The pieces an add of zero-pads reassembles, in offset order, if it is one."""
    found = zero_pads(add, memo)
    if found is None:
        return None
    pads = [p for p, _ in found]
    dims = set()
    for p, d in found:
        lo, hi, interior = p.attributes["padding"][d]
        if interior != 0 or lo < 0 or hi < 0:
            return None
        dims.add(d)
    if len(dims) != 1:
        return None
    dim = dims.pop()
    pads.sort(key=lambda p: p.attributes["padding"][dim][0])
    offset = 0
    for p in pads:
        if p.attributes["padding"][dim][0] != offset:
            return None  # overlapping or leaving a gap: not a reassembly
        piece = result_shape(*first_operand(p))
        if not piece.is_array or piece.rank != add.shape.rank:
            return None
        offset += piece.dims[dim]
    if offset != add.shape.dims[dim]:
        return None
    return PadAdd(add, pads, dim)
