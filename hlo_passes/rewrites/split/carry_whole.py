"""A weight the collective pipeliner's loop carries as two halves, carried whole.

After a ``split_gather`` rewrite of a pipelined loop (``pipelined``), the body gathers the
next layer's weight ``G`` whole and cuts it into the two halves its state carries; the next
iteration joins the two state elements again (a concatenate, plain or in a fusion), and the
peeled round does the same before the loop.  Where that is all that happens to the two
elements, the loop carries ``G`` in the first one's place instead: the slices, the second
element and the concatenate go; the join reads the carried weight (a copy into its layout where
the layouts differ).  What reads the loop's halves after it reads slices of the carried weight.

Legal exactly when, in the loop's body, the two root elements are the slices ``[0, F)`` and
``[F, 2F)`` of one array along one dimension (through copy insertion's copy), the initial
state's two elements are those slices of one array of the same shape and layout, the body reads
the two elements only through its get-tuple-elements and their copies into the one join (a
concatenate of the first then the second along that dimension), the condition reads neither,
and only get-tuple-elements read the loop.  Then the join computes, in every iteration, the
array the previous one (or the peeled round) gathered — which the new element holds.

Copy insertion's structure is kept: the element's read copy and the root's copy of the new value
(whose control edge orders the read before the write of the loop's buffer) stay, reshaped; only
the second element's read copy and root copy go, with no control edge left naming them.
"""
from __future__ import annotations

from dataclasses import dataclass

from collections.abc import Iterable

from ...ir import Computation, Instruction, Module, Shape
from ...ir.op_table import Trait, op
from ...ir.rewriter import Rewriter
from ...ir.analysis import remove_dead
from .chains import bitcast_keeps_order
from .held import held_kind, start_of
from .pipelined import joining_reads, state_reads, while_parts


@dataclass(frozen=True)
class _Cut:
    """A value that is ``whole[..., start:limit, ...]`` along ``dim``."""

    whole: Instruction
    dim: int
    start: int
    limit: int


def carry_whole(rw: Rewriter, module: Module, kinds: Iterable[str]) -> list[str]:
    """Carry whole every pair of halves a loop of ``module`` cuts from a collective of
    ``kinds`` (a split_gather's gather of the weight, plain or an async done) and joins again
    (the module doc); the names of the loops rewritten."""
    done = []
    for loop, body, cond in list(while_parts(module)):
        if _carry_one(rw, loop, body, cond, frozenset(kinds)):
            done.append(loop.name)
    return done


def _collective(instr: Instruction, kinds: frozenset[str]) -> bool:
    if instr.opcode in kinds:
        return True
    row = op(instr.opcode)
    return row is not None and Trait.ASYNC_DONE in row.traits and held_kind(start_of(instr)) in kinds


def _cut_of(value: Instruction) -> _Cut | None:
    """How ``value`` (a root or initial state element) is cut from one array: through copies,
    a slice, or a loop fusion of one operand whose root is a slice of its parameter."""
    cur = value
    while cur.opcode == "copy" and len(cur.operands) == 1:
        cur = cur.operands[0]
    if cur.opcode == "slice" and len(cur.operands) == 1:
        whole, spec = cur.operands[0], cur.attributes["slice"]
    elif cur.opcode == "fusion" and len(cur.operands) == 1 and cur.called_computations:
        root = cur.called_computations[0].root
        if root is None or root.opcode != "slice" or root.operands[0].opcode != "parameter":
            return None
        whole, spec = cur.operands[0], root.attributes["slice"]
    else:
        return None
    dims = whole.shape.dims if whole.shape.is_array else ()
    if len(spec) != len(dims) or any(len(s) != 3 or s[2] != 1 for s in spec):
        return None
    cut = [d for d, (lo, hi, _) in enumerate(spec) if (lo, hi) != (0, dims[d])]
    if len(cut) != 1:
        return None
    d = cut[0]
    return _Cut(whole, d, spec[d][0], spec[d][1])


def _halves(first: Instruction, second: Instruction) -> _Cut | None:
    """The cut of one array into ``first`` then ``second``, adjacent and covering it."""
    a, b = _cut_of(first), _cut_of(second)
    if a is None or b is None or a.whole is not b.whole or a.dim != b.dim:
        return None
    if a.start != 0 or a.limit != b.start or b.limit != a.whole.shape.dims[a.dim]:
        return None
    return a


def _carry_one(rw: Rewriter, loop: Instruction, body: Computation, cond: Computation,
               kinds: frozenset[str]) -> bool:
    init, root = loop.operands[0], body.root
    if init.opcode != "tuple" or init.users != [loop] or root is None or root.opcode != "tuple":
        return False
    if len(body.parameters) != 1 or len(cond.parameters) != 1:
        return False
    if any(u.opcode != "get-tuple-element" for u in (*loop.users, *body.parameters[0].users)):
        return False
    reads = state_reads(body.parameters[0])
    for a in range(len(root.operands) - 1):
        b = a + 1
        join = joining_reads(reads, a, b)
        if join is None:
            continue
        cut, first = _halves(root.operands[a], root.operands[b]), _halves(init.operands[a], init.operands[b])
        if cut is None or first is None or cut.whole.shape != first.whole.shape or cut.dim != first.dim:
            continue
        if not (_collective(cut.whole, kinds) and _collective(first.whole, kinds)):
            continue
        concat = join[1]
        if concat.attributes["dimensions"] != (cut.dim,) or concat.shape.dims != cut.whole.shape.dims:
            continue
        if any(v.opcode not in ("get-tuple-element", "copy") for k in (a, b) for v in reads[k]):
            continue
        if not _only_join_reads(reads, a, b, join[0], root) or _cond_reads(cond, a, b):
            continue
        if join[0] is not concat and not _fused_reads_only_concat(join[0], concat, reads[a] + reads[b]):
            continue
        _rewrite(rw, loop, body, cond, a, cut, first, join, reads)
        return True
    return False


def _only_join_reads(reads: dict[int, list[Instruction]], a: int, b: int, join: Instruction,
                     root: Instruction) -> bool:
    """Whether the two elements' reads (get-tuple-elements, copies) are read by nothing but each
    other and ``join``, and no control edge but the root copies' names them."""
    standing = {id(v) for k in (a, b) for v in reads[k]}
    root_copies = {id(root.operands[k]) for k in (a, b)}
    for v in (v for k in (a, b) for v in reads[k]):
        for user in v.users:
            if id(user) not in standing and user is not join:
                return False
    names = {v.name for k in (a, b) for v in reads[k]}
    comp = join.computation
    assert comp is not None
    for instr in comp.instructions:
        preds = instr.attributes.decoded("control-predecessors")
        if preds and id(instr) not in root_copies and any(str(getattr(p, "name", p)).lstrip("%") in names
                                                          for p in preds):
            return False
    return True


def _fused_reads_only_concat(fusion: Instruction, concat: Instruction, reads: list[Instruction]) -> bool:
    """Whether, inside ``fusion``, the parameters standing for ``reads`` reach nothing but
    ``concat`` (each through a chain of copies and bitcasts read by the next alone): the rest of
    the fused computation does not read the halves, so it is not changed by reading the whole.
    A bitcast on the way must keep the elements' order and dimensions (``bitcast_keeps_order``:
    one between two layouts of the same dimensions is a transpose, which the whole carried in
    the halves' place would skip; issue 43)."""
    ids = {id(v) for v in reads}
    for param in fusion.called_computations[0].parameters:
        number = param.attributes.get("parameter_number")
        if not isinstance(number, int) or id(fusion.operands[number]) not in ids:
            continue
        cur = param
        while cur is not concat:
            if len(cur.users) != 1:
                return False
            nxt = cur.users[0]
            if nxt is not concat and nxt.opcode != "copy" and not (
                    bitcast_keeps_order(nxt) and nxt.shape.dims == cur.shape.dims):
                return False
            cur = nxt
    return True


def _cond_reads(cond: Computation, a: int, b: int) -> bool:
    param = cond.parameters[0]
    return any(u.opcode != "get-tuple-element" or u.attributes["index"] in (a, b) for u in param.users)


def _rewrite(rw: Rewriter, loop: Instruction, body: Computation, cond: Computation, a: int, cut: _Cut,
             first: _Cut, join: tuple[Instruction, Instruction], reads: dict[int, list[Instruction]]) -> None:
    b = a + 1
    whole = cut.whole.shape
    old = loop.shape.tuple_shapes
    state = Shape.tuple_of([whole if k == a else s for k, s in enumerate(old) if k != b])
    init, root = loop.operands[0], body.root
    assert root is not None
    # The join, a plain concatenate first (its fusion opened), before any shape changes.
    concat = join[1]
    if join[0] is not concat:
        concat = rw.inline(join[0])[id(concat)].op
    # What the concatenate reads of element a: the last read (the get-tuple-element's copy).
    cur = concat.operands[0]
    while id(cur) not in {id(v) for v in reads[a]}:
        cur = cur.operands[0]
    carried = cur
    # The initial state and the body's new state: the whole arrays, the halves' slices dead.
    dead: list[Instruction] = [init.operands[a], init.operands[b], root.operands[b]]
    rw.set_operand(init, a, first.whole)
    rw.remove_operand(init, b)
    rw.set_shape(init, state)
    keeper = root.operands[a]  # copy insertion's copy of the new value (or the slice itself)
    if keeper.opcode == "copy":
        dead.append(keeper.operands[0])
        rw.set_operand(keeper, 0, cut.whole)
        rw.set_shape(keeper, whole)
    else:
        dead.append(keeper)
        rw.set_operand(root, a, cut.whole)
    rw.remove_operand(root, b)
    rw.set_shape(root, state)
    # The parameters of body and condition, and their reads past the removed element.
    for param in (body.parameters[0], cond.parameters[0]):
        rw.set_shape(param, state)
        for gte in list(param.users):
            index = gte.attributes["index"]
            if index > b:
                rw.set_attribute(gte, "index", index - 1)
    for v in reads[a]:  # the get-tuple-element and its copies: the whole array now
        rw.set_shape(v, whole)
    # The concatenate's readers read the carried array (a copy into their layout where it differs).
    rw.replace_all_uses(concat, carried)
    dead.append(concat)
    dead.extend(reads[b])
    for gone in remove_dead(rw, dead):
        if gone.opcode == "fusion" and gone.called_computations:
            rw.remove_computation(gone.called_computations[0], fused_body_of=gone)
    # The loop and what reads it: a slice of the whole for each half.
    rw.set_shape(loop, state)
    halves = {k: old[k] for k in (a, b)}
    whole_gte: Instruction | None = None
    for gte in list(loop.users):
        index = gte.attributes["index"]
        if index in halves:
            if whole_gte is None:
                whole_gte = rw.create("get-tuple-element", whole, [loop], {"index": a}, after=loop,
                                      name_hint="get-tuple-element", like=gte)
            start = 0 if index == a else cut.limit
            piece = rw.slice_along(whole_gte, cut.dim, start, halves[index].dims[cut.dim], halves[index],
                                   after=whole_gte)
            rw.replace_all_uses(gte, piece)
            rw.erase(gte)
        elif index > b:
            rw.set_attribute(gte, "index", index - 1)
