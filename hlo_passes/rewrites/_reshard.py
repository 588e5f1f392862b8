"""Halves the partitioner cut out of a weight whose split dimension is itself sharded.

``W[E, D, 2F]`` with ``2F`` over a mesh axis of ``n`` devices (MaxText's ``fsdp_transpose``):
each device holds ``S = 2F / n`` of ``2F``, and a half (``F`` wide) sharded the same way is
``F / n`` per device, not all of it held by the device that needs it.  XLA's partitioner makes
each device's piece of a half from its own shard ``X``: slices of ``X``, some moved to another
device by a ``collective-permute``, joined by a ``concatenate`` and cut by a ``dynamic-slice``
at an offset computed from the ``partition-id``.  Each half's piece is then gathered along the
split dimension over those ``n`` devices (and over the other axes after it).

Gathered along the split dimension over the same devices, ``X`` itself is ``2F`` whole, in
order, with the halves side by side: the half's gathered pieces are its slice of that gather
*when each device's piece is the part of the half that belongs at its place in the group*.
``ReshardSource.check`` proves that device by device: it evaluates, for every device of every
group, which device's ``X`` and which range of it the piece holds (through the slices, the
permutes' pairs, the concatenate and the window at that device's offset), and compares it with
the range the gather of ``X`` puts there.  The fused chain then starts at ``X``: the halves'
gather along the split dimension, applied to ``X`` (``SourcePlan.reassembled``), is that gather.

Seen through fusions of optimized HLO as well (a fusion's parameter is the operand the fusion
reads); where ``X`` lives inside the halves' slice fusions, those fusions are opened to rewrite
(``Resharded.fusions``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..checks import Refusal
from ..ir import ELEMENT_BITS, Computation, Instruction
from ..ir.rewriter import Rewriter
from ._fusions import FusedValue, _body as fusion_body, _fed_by as fed_by, _fused_value as fused_value
from ._fusions import computed_type
from ._sources import Source, SourcePlan

if TYPE_CHECKING:
    from ._meetings import Meeting
    from ._split_fusion import _Chain

# Ops a piece goes through that keep each element where it is (same dimensions): a layout copy,
# a bitcast, a convert (checked to keep the value: ``_Proof.types``).
_IN_PLACE = frozenset({"copy", "bitcast", "reshape", "convert"})
# Scalar ops the partitioner computes a device's offset with.
_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "maximum": max, "minimum": min}
_DEPTH = 48  # how far down a piece or an offset is followed

Seen = tuple[Instruction, tuple[Instruction, ...]]  # an op, and the fusions whose bodies hold it (innermost last)


def _resolve(instr: Instruction, stack: tuple[Instruction, ...]) -> Seen:
    """``instr`` as the program reads it: a fusion parameter is the operand the fusion reads."""
    while instr.opcode == "parameter" and stack:
        number = instr.attributes.get("parameter_number")
        fusion = stack[-1]
        if number is None or number >= len(fusion.operands):
            break
        instr, stack = fusion.operands[number], stack[:-1]
    return instr, stack


def _enter(instr: Instruction, stack: tuple[Instruction, ...]) -> Seen:
    """Into a fusion: its body's root (what it computes), with the fusion on the stack."""
    while instr.opcode == "fusion":
        body = fusion_body(instr)
        if body is None or body.root is None:
            break
        instr, stack = body.root, stack + (instr,)
    return instr, stack


def _operand(seen: Seen, k: int) -> Seen:
    instr, stack = seen
    return _enter(*_resolve(instr.operands[k], stack))


def _dynamic_window(instr: Instruction) -> int | None:
    """The one dimension a dynamic-slice cuts (None: it cuts none, or several)."""
    whole, part = instr.operands[0].shape.dims, instr.shape.dims
    cut = [d for d in range(len(part)) if d < len(whole) and part[d] != whole[d]]
    return cut[0] if len(cut) == 1 and len(whole) == len(part) else None


def _under_in_place(seen: Seen) -> Seen:
    """Down through layout copies, bitcasts and converts to the op that computes the value."""
    for _ in range(_DEPTH):
        instr, _ = seen
        if instr.opcode not in _IN_PLACE or len(instr.operands) != 1:
            break
        seen = _operand(seen, 0)
    return seen


def is_reshard(instr: Instruction) -> bool:
    """Whether ``instr`` (or the fusion's body it stands for) is a dynamic-slice of a concatenate
    under in-place ops: where the partitioner cuts a device's piece of a half (checked in full
    by ``ReshardSource.check``)."""
    seen = _under_in_place(_enter(instr, ()))
    cut = seen[0]
    if cut.opcode != "dynamic-slice" or len(cut.operands) < 2 or _dynamic_window(cut) is None:
        return False
    return _under_in_place(_operand(seen, 0))[0].opcode == "concatenate"


# A device's piece along the split dimension: segments (the device whose ``X`` it holds, start, width),
# None for zeros (a device no permute sends to).
Segment = tuple[int, int, int] | tuple[None, int, int]


def _window(segments: list[Segment], start: int, width: int) -> list[Segment]:
    out: list[Segment] = []
    pos = 0
    for src, lo, n in segments:
        a, b = max(start, pos), min(start + width, pos + n)
        if a < b:
            out.append((src, lo + a - pos, b - a) if src is not None else (None, 0, b - a))
        pos += n
    return out


def _joined(segments: list[Segment]) -> list[Segment]:
    """Adjacent segments of one device's ``X`` that continue each other, as one."""
    out: list[Segment] = []
    for seg in segments:
        if out and seg[0] is not None and out[-1][0] == seg[0] and out[-1][1] + out[-1][2] == seg[1]:
            out[-1] = (seg[0], out[-1][1], out[-1][2] + seg[2])
        else:
            out.append(seg)
    return out


@dataclass
class _Proof:
    """What evaluating the halves' pieces found: the array they are cut from, its split dimension,
    the element types on the way."""

    anchor: Instruction  # for refusals
    x: Instruction | FusedValue | None = None
    dim: int | None = None
    types: set[str] = field(default_factory=set)
    fusions: dict[int, Instruction] = field(default_factory=dict)  # holding the slices of X

    def refuse(self, why: str, where: Instruction | None = None) -> Refusal:
        return Refusal("resharded-pieces", why, where or self.anchor)

    def _source(self, slice_: Instruction, stack: tuple[Instruction, ...]) -> Instruction | FusedValue:
        inner = slice_.operands[0]
        if not stack:
            return inner
        outer, outer_stack = _resolve(inner, stack)
        if not outer_stack:
            return outer
        fusion = stack[-1]
        found = fed_by(fusion, inner) or fused_value(fusion, inner)
        if found is None or len(stack) != 1:
            raise self.refuse(f"{slice_.ref} cuts an array computed inside {fusion.ref} in a way not followed", fusion)
        self.fusions[id(fusion)] = fusion
        return found

    def piece(self, seen: Seen, device: int, depth: int = _DEPTH) -> list[Segment]:
        instr, stack = seen
        if depth == 0:
            raise self.refuse(f"{instr.ref}: the piece is made too far down to follow")
        op = instr.opcode
        if op in _IN_PLACE and len(instr.operands) == 1:
            before = instr.operands[0].shape
            if tuple(before.dims) != tuple(instr.shape.dims) or (
                    op == "bitcast" and before.layout_text != instr.shape.layout_text):
                # (A bitcast between layouts reads the bytes in another order: elements move.)
                raise self.refuse(f"{instr.ref} moves elements ({before} -> {instr.shape})", instr)
            if op == "convert":
                self.types.add(instr.shape.element_type)
            return self.piece(_operand(seen, 0), device, depth - 1)
        if op == "slice":
            return self._slice(instr, stack, device)
        if op == "collective-permute" and len(instr.operands) == 1:
            pairs = instr.attributes.get("source_target_pairs") or ()
            sources = [s for s, t in pairs if t == device]
            if not sources:
                return [(None, 0, instr.shape.dims[self._dim(instr)])]
            if len(sources) > 1:
                raise self.refuse(f"{instr.ref} sends to device {device} from {sources}", instr)
            if not _between_partitions(instr):
                raise self.refuse(f"{instr.ref} has no channel: its pairs name replicas, not partitions", instr)
            return self.piece(_operand(seen, 0), int(sources[0]), depth - 1)
        if op == "concatenate":
            if tuple(instr.attributes.get("dimensions") or ()) != (self._dim(instr),):
                raise self.refuse(f"{instr.ref} joins along another dimension than the split one", instr)
            out: list[Segment] = []
            for k in range(len(instr.operands)):
                out.extend(self.piece(_operand(seen, k), device, depth - 1))
            return out
        if op == "dynamic-slice":
            d = _dynamic_window(instr)
            if d is None or d != self._dim(instr, d):
                raise self.refuse(f"{instr.ref} cuts its window along other dimensions than the split one", instr)
            whole = instr.operands[0].shape.dims
            offsets = [self.scalar(_operand(seen, k + 1), device, depth - 1) for k in range(len(whole))]
            for e, off in enumerate(offsets):
                if e != d and off != 0:
                    raise self.refuse(f"{instr.ref} starts its window at {off} in dimension {e} on device {device}",
                                      instr)
            width = instr.shape.dims[d]
            start = min(max(offsets[d], 0), whole[d] - width)  # dynamic-slice clamps its start
            return _window(self.piece(_operand(seen, 0), device, depth - 1), start, width)
        raise self.refuse(f"{instr.ref} ({op}) is not how the partitioner moves a half's pieces", instr)

    def _dim(self, instr: Instruction, dim: int | None = None) -> int:
        if self.dim is None and dim is not None:
            self.dim = dim
        if self.dim is None:
            raise self.refuse(f"{instr.ref}: the split dimension is not known here", instr)
        return self.dim

    def _slice(self, instr: Instruction, stack: tuple[Instruction, ...], device: int) -> list[Segment]:
        spec = tuple(instr.attributes.get("slice") or ())
        full = instr.operands[0].shape.dims
        cut = [d for d, (lo, hi, _) in enumerate(spec) if (lo, hi) != (0, full[d])]
        if len(cut) != 1 or any(step != 1 for _, _, step in spec) or len(spec) != len(full):
            raise self.refuse(f"{instr.ref} does not cut one dimension with stride 1", instr)
        d = self._dim(instr, cut[0])
        if cut[0] != d:
            raise self.refuse(f"{instr.ref} cuts dimension {cut[0]}, not the split dimension {d}", instr)
        x = self._source(instr, stack)
        if self.x is None:
            self.x = x
        elif x is not self.x:
            raise Refusal("same-source", f"{instr.ref} cuts {x.ref}, not {self.x.ref}", self.anchor)
        lo, hi, _ = spec[d]
        # ``device``: whose X this is, as the permutes on the way sent it.
        return [(device, lo, hi - lo)]

    def scalar(self, seen: Seen, device: int, depth: int = _DEPTH) -> int:
        values = self.values(seen, device, depth)
        if len(values) != 1:
            raise self.refuse(f"{seen[0].ref}: an offset of {len(values)} values")
        return values[0]

    def values(self, seen: Seen, device: int, depth: int) -> list[int]:
        """The integer values of a small array computed from constants and the partition id."""
        instr, stack = seen
        if depth == 0:
            raise self.refuse(f"{instr.ref}: the offset is computed too far down to follow")
        op = instr.opcode
        if op == "partition-id":
            return [device]
        if op == "constant":
            lit = instr.attributes.get("literal")
            flat = _flat(lit)
            if flat is None:
                raise self.refuse(f"{instr.ref}: a constant whose value is not read", instr)
            return flat
        if op in ("copy", "bitcast", "reshape", "convert") and len(instr.operands) == 1:
            return self.values(_operand(seen, 0), device, depth - 1)
        if op in _ARITHMETIC and len(instr.operands) == 2:
            a = self.values(_operand(seen, 0), device, depth - 1)
            b = self.values(_operand(seen, 1), device, depth - 1)
            if len(a) != len(b):
                raise self.refuse(f"{instr.ref}: operands of {len(a)} and {len(b)} values", instr)
            return [_ARITHMETIC[op](x, y) for x, y in zip(a, b)]
        if op == "dynamic-slice" and len(instr.operands) == 2 and instr.operands[0].shape.rank == 1:
            table = self.values(_operand(seen, 0), device, depth - 1)
            index = self.scalar(_operand(seen, 1), device, depth - 1)
            width = instr.shape.dims[0]
            start = min(max(index, 0), len(table) - width)  # dynamic-slice clamps its start
            return table[start:start + width]
        if op == "get-tuple-element":
            return self.values(self._element(instr, stack), device, depth - 1)
        raise self.refuse(f"{instr.ref} ({op}): the offset is not computed from the partition id and constants",
                          instr)

    def _element(self, gte: Instruction, stack: tuple[Instruction, ...]) -> Seen:
        """The value a ``get-tuple-element`` reads: of a tuple, its operand; of a while body's
        parameter, the loop's initial value when every iteration passes it on unchanged."""
        index = gte.attributes.get("index")
        tup, outer = _resolve(gte.operands[0], stack)
        if index is not None and tup.opcode == "tuple":
            return _enter(*_resolve(tup.operands[index], outer))
        body = tup.computation
        module = gte.module
        if index is not None and tup.opcode == "parameter" and not outer and body is not None and module is not None:
            loops = [i for i in module.instructions() if i.opcode == "while" and body in i.called_computations]
            root = body.root
            if len(loops) == 1 and _body_of(loops[0]) is body and root is not None and root.opcode == "tuple":
                passed = root.operands[index]
                init = loops[0].operands[0] if len(loops[0].operands) == 1 else None
                if passed.opcode == "get-tuple-element" and passed.attributes.get("index") == index \
                        and passed.operands[0] is tup and init is not None and init.opcode == "tuple":
                    return _enter(init.operands[index], ())
        raise self.refuse(f"{gte.ref}: the offset is not a value the loop passes on unchanged", gte)


def _body_of(loop: Instruction) -> Computation | None:
    """The body a ``while`` runs (its ``body=`` computation)."""
    name = str(loop.attributes.raw("body") or "").lstrip("%") if "body" in loop.attributes else ""
    return next((c for c in loop.called_computations if c.name == name), None)


def _between_partitions(collective: Instruction) -> bool:
    """A collective whose device ids are partition ids (in a module of one replica): it has a channel."""
    return "channel_id" in collective.attributes or "channel_handle" in collective.attributes


def _flat(literal: object) -> list[int] | None:
    if isinstance(literal, bool):
        return None
    if isinstance(literal, int):
        return [literal]
    if isinstance(literal, (list, tuple)):
        out: list[int] = []
        for v in literal:
            inner = _flat(v)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


@dataclass
class Resharded:
    """``SourcePlan.extra`` of ``ReshardSource``: the array the pieces are cut from (each
    device's shard ``X``), the element type the fused chain starts in, and the fusions that
    hold ``X`` in optimized HLO (opened to rewrite)."""

    x: Instruction | FusedValue
    element_type: str
    fusions: list[Instruction]


def _narrowest(x: Instruction | FusedValue) -> str:
    """The narrowest element type ``x``'s values went through (converts under layout moves, in
    its fusion's body for a ``FusedValue``; ``computed_type``'s round trips): what they can hold."""
    narrow = computed_type(x) or x.shape.element_type
    cur = x.inner if isinstance(x, FusedValue) else x
    for _ in range(_DEPTH):
        if cur.opcode not in _IN_PLACE or len(cur.operands) != 1:
            break
        cur = cur.operands[0]
        if 0 < _float_bits(cur.shape.element_type) < _float_bits(narrow):
            narrow = cur.shape.element_type
    return narrow


def _float_bits(element_type: str) -> int:
    return ELEMENT_BITS.get(element_type, 0) if element_type.startswith(("f", "bf")) else 0


class ReshardSource(Source):
    """Halves whose pieces the partitioner cut out of a shard of W sharded along the split
    dimension (see the module docstring)."""

    start_opcodes = frozenset(("dynamic-slice", "fusion"))

    def starts_chain(self, instr: Instruction, steps: int) -> bool:
        return steps > 0 and is_reshard(instr)

    def check(self, chains: list, meeting: Meeting) -> SourcePlan:
        proof = _Proof(meeting.anchor)
        at = {_reassembling(c) for c in chains}
        if len(at) != 1 or None in at:
            raise proof.refuse(f"the piece {chains[0].start.ref} is not gathered right away (after layout "
                               "copies and converts)", chains[0].start)
        reassembled = at.pop()
        assert reassembled is not None
        gathers = [c.ops[reassembled] for c in chains]
        for c in chains:
            proof.types.update(op.shape.element_type for op in c.ops[:reassembled] if op.opcode == "convert")
        proof.dim = dim = _window_dim(chains[0].start)  # the split dimension: where the start cuts
        groups = gathers[0].attributes.get("replica_groups")
        if dim is None or tuple(gathers[0].attributes.get("dimensions") or ()) != (dim,) or not groups:
            raise proof.refuse(f"{gathers[0].ref} does not gather the pieces along the split dimension", gathers[0])
        module = gathers[0].module
        replicas = module.attributes.get("replica_count") if module is not None else None
        if not _between_partitions(gathers[0]) or (replicas is not None and int(replicas) > 1):
            # The partition id the offsets are computed from names the devices the groups name
            # only in a module of one replica whose collectives run between partitions.
            raise proof.refuse(f"{gathers[0].ref} gathers between replicas, not between the partitions the "
                               "offsets are computed for", gathers[0])
        groups = [tuple(int(d) for d in g) for g in groups]
        n = len(groups[0])
        base = 0
        sizes = []
        for c, gather in zip(chains, gathers):
            if gather.attributes.get("replica_groups") != gathers[0].attributes.get("replica_groups"):
                raise Refusal("same-collectives", f"{gather.ref} and {gathers[0].ref} gather over other devices",
                              gather)
            width = c.start.shape.dims[dim]
            for group in groups:
                if len(group) != n:
                    raise proof.refuse(f"{gather.ref} gathers over groups of different sizes", gather)
                for k, device in enumerate(group):
                    got = _joined(proof.piece(_enter(c.start, ()), device))
                    whole = proof.x.shape.dims[dim] if proof.x is not None else 0
                    at = base + k * width
                    want: list[Segment] = [(group[at // whole], at % whole, width)] if whole else []
                    if got != want or at % whole + width > whole:
                        raise proof.refuse(
                            f"on device {device}, {c.start.ref} holds {_says(got)}; gathered along dimension "
                            f"{dim} with its group {list(group)}, the whole shard puts {_says(want)} there",
                            c.start)
            sizes.append(n * width)
            base += n * width
        assert proof.x is not None
        whole = proof.x.shape.dims[dim]
        if base != n * whole:
            raise Refusal("slices-cover", f"the halves take {base} of dimension {dim}, of {n * whole} gathered",
                          meeting.anchor)
        floor = _narrowest(proof.x)
        start_type = chains[0].start.shape.element_type
        for t in proof.types | {start_type}:
            if _float_bits(t) < _float_bits(floor) or not _float_bits(floor):
                raise proof.refuse(f"the pieces are converted to {t} on the way, which does not hold every "
                                   f"{floor} value of {proof.x.ref}")
        return SourcePlan(dim, sizes, Resharded(proof.x, start_type, list(proof.fusions.values())),
                          reassembled=reassembled)

    def weight(self, chains: list) -> str:
        return chains[0].start.ref  # the first half's piece stands for the site

    def whole(self, rw: Rewriter, plan: SourcePlan, chains: list) -> tuple[Instruction, int]:
        extra = plan.extra
        assert isinstance(extra, Resharded) and isinstance(extra.x, Instruction), "opened before the rewrite"
        x = extra.x
        if x.shape.element_type == extra.element_type:
            return x, 0
        return rw.create("convert", x.shape.with_element_type(extra.element_type), [x], after=x, like=x), 0


def _says(segments: list[Segment]) -> str:
    if not segments:
        return "nothing"
    return " + ".join("zeros" if s is None else f"[{lo}:{lo + w}) of device {s}'s shard" for s, lo, w in segments)


def reshard_place(chain: _Chain) -> tuple[Instruction | FusedValue, int | None] | None:
    """(the array a resharded half is cut from, where the half starts in that array gathered, as
    the first device of its gather whose piece can be read says; None where none can): how the
    finders group and order such halves (``ReshardSource.check`` proves the rest).  None where
    the chain is not one."""
    at = _reassembling(chain) if chain.cut is None else None
    if at is None or not is_reshard(chain.start):
        return None
    gather = chain.ops[at]
    groups = gather.attributes.get("replica_groups")
    group = [int(d) for d in groups[0]] if groups else []
    proof = _Proof(chain.start, dim=_window_dim(chain.start))
    x = _cut_array(proof, chain.start)
    if x is None or proof.dim is None:
        return None
    width = chain.start.shape.dims[proof.dim]
    for k, device in enumerate(group):
        try:
            pieces = _joined(proof.piece(_enter(chain.start, ()), device))
        except Refusal:
            return x, None
        if len(pieces) == 1 and pieces[0][0] in group:
            src, lo, _ = pieces[0]
            return x, group.index(int(src)) * x.shape.dims[proof.dim] + lo - k * width
    return x, None


def _cut_array(proof: _Proof, start: Instruction) -> Instruction | FusedValue | None:
    """The array the first slice under a reshard's concatenate cuts (through permutes and in-place ops)."""
    seen = _under_in_place(_enter(start, ()))
    if seen[0].opcode != "dynamic-slice":
        return None
    joined = _under_in_place(_operand(seen, 0))
    if joined[0].opcode != "concatenate":
        return None
    for k in range(len(joined[0].operands)):
        piece = _under_in_place(_operand(joined, k))
        if piece[0].opcode == "collective-permute" and len(piece[0].operands) == 1:
            piece = _under_in_place(_operand(piece, 0))
        if piece[0].opcode == "slice" and len(piece[0].operands) == 1:
            try:
                return proof._source(*piece)
            except Refusal:
                return None
    return None


def _reassembling(chain: _Chain) -> int | None:
    """The index in ``chain.ops`` of the gather of the half's pieces: its first step but layout
    copies and converts (None: there is none)."""
    for k, op in enumerate(chain.ops):
        if not isinstance(op, Instruction) or len(op.operands) != 1:
            return None
        if op.opcode == "all-gather":
            return k
        if op.opcode not in ("copy", "convert") or tuple(op.shape.dims) != tuple(op.operands[0].shape.dims):
            return None
    return None


def _window_dim(start: Instruction) -> int | None:
    """The dimension a reshard's dynamic-slice cuts (the split dimension)."""
    cut, _ = _under_in_place(_enter(start, ()))
    return _dynamic_window(cut) if cut.opcode == "dynamic-slice" else None
