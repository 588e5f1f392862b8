"""A device's piece of a half the partitioner resharded, evaluated device by device.

Where the split dimension of ``W`` is sharded (``reshard``), each device's piece of a half is made
from its shard ``X``: slices of ``X``, some sent to another device (``collective-permute``), joined
(``concatenate``) and cut at an offset computed from the ``partition-id`` (``dynamic-slice``).
``Pieces.piece`` says, for one device, which device's ``X`` and which range of it along the split
dimension the piece holds (``Segment``s; zeros where no permute sends to the device), through
layout copies and converts, and through fusions of optimized HLO (a fusion's parameter is the
operand the fusion reads).  ``Pieces.values`` evaluates the offsets: constants, the partition id,
integer arithmetic, a table read at the partition id, a value a ``while`` loop passes on unchanged.
Anything else is refused (``resharded-pieces``): what is not followed is not proven.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...checks import Refusal
from ...ir import ELEMENT_BITS, Computation, Instruction
from .fusions import FusedValue, _body as fusion_body, _fed_by as fed_by, _fused_value as fused_value
from .fusions import computed_type

# Ops a piece goes through that keep each element where it is (same dimensions): a layout copy,
# a bitcast, a convert (checked to keep the value: ``Pieces.types``).
IN_PLACE = frozenset({"copy", "bitcast", "reshape", "convert"})
# Scalar ops the partitioner computes a device's offset with.
_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "maximum": max, "minimum": min}
DEPTH = 48  # how far down a piece or an offset is followed

Seen = tuple[Instruction, tuple[Instruction, ...]]  # an op, and the fusions whose bodies hold it (innermost last)


def resolve(instr: Instruction, stack: tuple[Instruction, ...]) -> Seen:
    """``instr`` as the program reads it: a fusion parameter is the operand the fusion reads."""
    while instr.opcode == "parameter" and stack:
        number = instr.attributes.get("parameter_number")
        fusion = stack[-1]
        if number is None or number >= len(fusion.operands):
            break
        instr, stack = fusion.operands[number], stack[:-1]
    return instr, stack


def enter(instr: Instruction, stack: tuple[Instruction, ...]) -> Seen:
    """Into a fusion: its body's root (what it computes), with the fusion on the stack."""
    while instr.opcode == "fusion":
        body = fusion_body(instr)
        if body is None or body.root is None:
            break
        instr, stack = body.root, stack + (instr,)
    return instr, stack


def operand(seen: Seen, k: int) -> Seen:
    instr, stack = seen
    return enter(*resolve(instr.operands[k], stack))


def dynamic_window(instr: Instruction) -> int | None:
    """The one dimension a dynamic-slice cuts (None: it cuts none, or several)."""
    whole, part = instr.operands[0].shape.dims, instr.shape.dims
    cut = [d for d in range(len(part)) if d < len(whole) and part[d] != whole[d]]
    return cut[0] if len(cut) == 1 and len(whole) == len(part) else None


def under_in_place(seen: Seen) -> Seen:
    """Down through layout copies, bitcasts and converts to the op that computes the value."""
    for _ in range(DEPTH):
        instr, _ = seen
        if instr.opcode not in IN_PLACE or len(instr.operands) != 1:
            break
        seen = operand(seen, 0)
    return seen


def is_reshard(instr: Instruction) -> bool:
    """Whether ``instr`` (or the fusion's body it stands for) is a dynamic-slice of a concatenate
    under in-place ops: where the partitioner cuts a device's piece of a half (checked in full
    by ``ReshardSource.check``)."""
    seen = under_in_place(enter(instr, ()))
    cut = seen[0]
    if cut.opcode != "dynamic-slice" or len(cut.operands) < 2 or dynamic_window(cut) is None:
        return False
    return under_in_place(operand(seen, 0))[0].opcode == "concatenate"


def piece_permutes(start: Instruction) -> list[Instruction]:
    """The collective-permutes that bring a resharded half's pieces from another device: the
    operands of the concatenate under ``start`` (the piece's dynamic-slice), past in-place ops —
    the partitioner's price for slicing a half out of a sharded split dimension."""
    seen = under_in_place(enter(start, ()))
    if seen[0].opcode != "dynamic-slice":
        return []
    joined_at = under_in_place(operand(seen, 0))
    if joined_at[0].opcode != "concatenate":
        return []
    found = [under_in_place(operand(joined_at, k))[0] for k in range(len(joined_at[0].operands))]
    return [op for op in found if op.opcode == "collective-permute"]


# A device's piece along the split dimension: segments (the device whose ``X`` it holds, start, width),
# None for zeros (a device no permute sends to).
Segment = tuple[int, int, int] | tuple[None, int, int]


def window(segments: list[Segment], start: int, width: int) -> list[Segment]:
    out: list[Segment] = []
    pos = 0
    for src, lo, n in segments:
        a, b = max(start, pos), min(start + width, pos + n)
        if a < b:
            out.append((src, lo + a - pos, b - a) if src is not None else (None, 0, b - a))
        pos += n
    return out


def joined(segments: list[Segment]) -> list[Segment]:
    """Adjacent segments of one device's ``X`` that continue each other, as one."""
    out: list[Segment] = []
    for seg in segments:
        if out and seg[0] is not None and out[-1][0] == seg[0] and out[-1][1] + out[-1][2] == seg[1]:
            out[-1] = (seg[0], out[-1][1], out[-1][2] + seg[2])
        else:
            out.append(seg)
    return out


@dataclass
class Pieces:
    """Evaluates the halves' pieces (``piece``, ``values``) and keeps what that finds: the array
    they are cut from, its split dimension, the element types on the way, the fusions holding ``X``."""

    anchor: Instruction  # for refusals
    x: Instruction | FusedValue | None = None
    dim: int | None = None
    types: set[str] = field(default_factory=set)
    fusions: dict[int, Instruction] = field(default_factory=dict)  # holding the slices of X

    def refuse(self, why: str, where: Instruction | None = None) -> Refusal:
        return Refusal("resharded-pieces", why, where or self.anchor)

    def source_of(self, slice_: Instruction, stack: tuple[Instruction, ...]) -> Instruction | FusedValue:
        inner = slice_.operands[0]
        if not stack:
            return inner
        outer, outer_stack = resolve(inner, stack)
        if not outer_stack:
            return outer
        fusion = stack[-1]
        found = fed_by(fusion, inner) or fused_value(fusion, inner)
        if found is None or len(stack) != 1:
            raise self.refuse(f"{slice_.ref} cuts an array computed inside {fusion.ref} in a way not followed", fusion)
        self.fusions[id(fusion)] = fusion
        return found

    def piece(self, seen: Seen, device: int, depth: int = DEPTH) -> list[Segment]:
        instr, stack = seen
        if depth == 0:
            raise self.refuse(f"{instr.ref}: the piece is made too far down to follow")
        op = instr.opcode
        if op in IN_PLACE and len(instr.operands) == 1:
            before = instr.operands[0].shape
            if tuple(before.dims) != tuple(instr.shape.dims) or (
                    op == "bitcast" and before.layout_text != instr.shape.layout_text):
                # (A bitcast between layouts reads the bytes in another order: elements move.)
                raise self.refuse(f"{instr.ref} moves elements ({before} -> {instr.shape})", instr)
            if op == "convert":
                self.types.add(instr.shape.element_type)
            return self.piece(operand(seen, 0), device, depth - 1)
        if op == "slice":
            return self._slice(instr, stack, device)
        if op == "collective-permute" and len(instr.operands) == 1:
            pairs = instr.attributes.get("source_target_pairs") or ()
            sources = [s for s, t in pairs if t == device]
            if not sources:
                return [(None, 0, instr.shape.dims[self._dim(instr)])]
            if len(sources) > 1:
                raise self.refuse(f"{instr.ref} sends to device {device} from {sources}", instr)
            if not between_partitions(instr):
                raise self.refuse(f"{instr.ref} has no channel: its pairs name replicas, not partitions", instr)
            return self.piece(operand(seen, 0), int(sources[0]), depth - 1)
        if op == "concatenate":
            if tuple(instr.attributes.get("dimensions") or ()) != (self._dim(instr),):
                raise self.refuse(f"{instr.ref} joins along another dimension than the split one", instr)
            out: list[Segment] = []
            for k in range(len(instr.operands)):
                out.extend(self.piece(operand(seen, k), device, depth - 1))
            return out
        if op == "dynamic-slice":
            d = dynamic_window(instr)
            if d is None or d != self._dim(instr, d):
                raise self.refuse(f"{instr.ref} cuts its window along other dimensions than the split one", instr)
            whole = instr.operands[0].shape.dims
            offsets = [self.scalar(operand(seen, k + 1), device, depth - 1) for k in range(len(whole))]
            for e, off in enumerate(offsets):
                if e != d and off != 0:
                    raise self.refuse(f"{instr.ref} starts its window at {off} in dimension {e} on device {device}",
                                      instr)
            width = instr.shape.dims[d]
            start = min(max(offsets[d], 0), whole[d] - width)  # dynamic-slice clamps its start
            return window(self.piece(operand(seen, 0), device, depth - 1), start, width)
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
        x = self.source_of(instr, stack)
        if self.x is None:
            self.x = x
        elif x is not self.x:
            raise Refusal("same-source", f"{instr.ref} cuts {x.ref}, not {self.x.ref}", self.anchor)
        lo, hi, _ = spec[d]
        # ``device``: whose X this is, as the permutes on the way sent it.
        return [(device, lo, hi - lo)]

    def scalar(self, seen: Seen, device: int, depth: int = DEPTH) -> int:
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
            return self.values(operand(seen, 0), device, depth - 1)
        if op in _ARITHMETIC and len(instr.operands) == 2:
            a = self.values(operand(seen, 0), device, depth - 1)
            b = self.values(operand(seen, 1), device, depth - 1)
            if len(a) != len(b):
                raise self.refuse(f"{instr.ref}: operands of {len(a)} and {len(b)} values", instr)
            return [_ARITHMETIC[op](x, y) for x, y in zip(a, b)]
        if op == "dynamic-slice" and len(instr.operands) == 2 and instr.operands[0].shape.rank == 1:
            table = self.values(operand(seen, 0), device, depth - 1)
            index = self.scalar(operand(seen, 1), device, depth - 1)
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
        tup, outer = resolve(gte.operands[0], stack)
        if index is not None and tup.opcode == "tuple":
            return enter(*resolve(tup.operands[index], outer))
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
                    return enter(init.operands[index], ())
        raise self.refuse(f"{gte.ref}: the offset is not a value the loop passes on unchanged", gte)


def _body_of(loop: Instruction) -> Computation | None:
    """The body a ``while`` runs (its ``body=`` computation)."""
    name = str(loop.attributes.raw("body") or "").lstrip("%") if "body" in loop.attributes else ""
    return next((c for c in loop.called_computations if c.name == name), None)


def between_partitions(collective: Instruction) -> bool:
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


def narrowest(x: Instruction | FusedValue) -> str:
    """The narrowest element type ``x``'s values went through (converts under layout moves, in
    its fusion's body for a ``FusedValue``; ``computed_type``'s round trips): what they can hold."""
    narrow = computed_type(x) or x.shape.element_type
    cur = x.inner if isinstance(x, FusedValue) else x
    for _ in range(DEPTH):
        if cur.opcode not in IN_PLACE or len(cur.operands) != 1:
            break
        cur = cur.operands[0]
        if 0 < float_bits(cur.shape.element_type) < float_bits(narrow):
            narrow = cur.shape.element_type
    return narrow


def float_bits(element_type: str) -> int:
    """Bits of a floating-point element type (0 for any other type)."""
    return ELEMENT_BITS.get(element_type, 0) if element_type.startswith(("f", "bf")) else 0


def says(segments: list[Segment]) -> str:
    """A piece in words, for a refusal."""
    if not segments:
        return "nothing"
    return " + ".join("zeros" if s is None else f"[{lo}:{lo + w}) of device {s}'s shard" for s, lo, w in segments)
