"""Seeing the pattern through fusions, in compiled (after-optimizations) HLO.

XLA's fusion pass wraps the slice of W into a ``copy_slice_fusion`` and the
concatenate into a fusion of the gathered halves, so the pattern is no longer
a chain of plain instructions.  The lint still has to find it there (that is
what dump folders and ``compile().as_text()`` hold), so these helpers present
what such fusions contain: the slice a chain starts with (``fused_slice``, read
by ``sources.SliceSource``), a copy a chain goes through (``FusedCopy``, a
``Boundary`` step), the concatenate where halves meet (``fused_concats``, read
by ``meetings.FusedConcat``).  The chain keeps the fusion instructions
themselves; nothing here imitates an instruction.  Sites found this way are
reported, never rewritten: an optimized module cannot be compiled again.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

from ...checks import Refusal
from ...ir import ELEMENT_BITS, Computation, Instruction, Module, Shape, Value
from ...ir.op_table import COLLECTIVES, Trait, op
from ...ir.rewriter import Operand, Rewriter
from ...ir.analysis import behaviour
from .crossings import Boundary
from .chains import bitcast_keeps_order

# Inside a fusion, ops between a parameter and the slice or concatenate that
# keep every element where it is: layout copies, same-shape bitcasts that keep
# the layout (``bitcast_keeps_order``: one between two layouts of the same
# dimensions is a transpose, issue 43), and element-type converts (f32 weights
# computed in bf16 put the slice and the bf16 round trip into the fusion that
# feeds each all-gather).
_IN_PLACE = frozenset({"copy", "bitcast", "convert"})


def _in_place(instr: Instruction) -> bool:
    if instr.opcode not in _IN_PLACE or len(instr.operands) != 1 or instr.operands[0].shape.dims != instr.shape.dims:
        return False
    return instr.opcode != "bitcast" or bitcast_keeps_order(instr)


def _through_copies(instr: Instruction) -> Instruction:
    while _in_place(instr):
        instr = instr.operands[0]
    return instr


def _narrower(a: str, b: str) -> bool:
    return 0 < ELEMENT_BITS.get(a, 0) < ELEMENT_BITS.get(b, 0)


def _round_trip(convert: Instruction) -> str | None:
    """``convert(convert(x) -> N)`` back to ``x``'s wider type: N (how XLA:CPU computes a bf16
    op in f32: it rounds the f32 result through bf16)."""
    if convert.opcode != "convert" or len(convert.operands) != 1:
        return None
    inner = convert.operands[0]
    if inner.opcode != "convert" or len(inner.operands) != 1:
        return None
    wide, narrow = convert.shape.element_type, inner.shape.element_type
    return narrow if inner.operands[0].shape.element_type == wide and _narrower(narrow, wide) else None


# Ops that move elements without computing: a value keeps the type it is computed in through them.
_MOVES = frozenset({"slice", "copy", "bitcast", "transpose", "reshape", "concatenate"})


def computed_type(instr: Instruction | FusedValue, depth: int = 16) -> str | None:
    """The narrower element type a value of optimized HLO is computed in where XLA:CPU holds it
    wider, or None where the value is what its type says.  XLA:CPU computes bf16 in f32 and
    rounds each result through bf16 (``convert`` to bf16 and back: a slice, concatenate or
    gather of a bf16 weight is an f32 array there), and it runs a bf16 reduction in f32
    (``to_apply`` computations ``*_promoted``, the operand widened first).  The cost model counts
    the program's own bytes, the same in every text of it (docs/cost-model.md)."""
    if not isinstance(instr, Instruction) or depth == 0:
        return None
    op = instr.opcode
    if op == "fusion":
        body = _body(instr)
        return computed_type(body.root, depth - 1) if body is not None and body.root is not None else None
    if op == "convert":
        return _round_trip(instr)
    if op in COLLECTIVES and len(instr.operands) == 1:
        widened = _widened_from(instr.operands[0], depth - 1)
        if widened is not None and (any(c.name.endswith("_promoted") for c in instr.called_computations)
                                    or _narrowed_back(instr, widened)):
            return widened  # widened for the collective alone (XLA:CPU's bf16 collectives)
        return computed_type(instr.operands[0], depth - 1)
    if op in _MOVES and instr.operands:
        found = {computed_type(o, depth - 1) for o in instr.operands}
        if len(found) == 1 and None not in found:
            return found.pop()
    users = instr.users
    if users and all(u.opcode == "convert" and _narrower(u.shape.element_type, instr.shape.element_type)
                     and u.users and all(_round_trip(b) for b in u.users) for u in users):
        narrow = {u.shape.element_type for u in users}
        return narrow.pop() if len(narrow) == 1 else None
    return None


def _narrowed_back(instr: Instruction, narrow: str) -> bool:
    """Whether everything that reads ``instr`` converts it to ``narrow`` first (through layout
    copies; a fusion's parameter as the fusion reads it)."""
    users = instr.users
    if not users:
        return False
    for user in users:
        reads = [user]
        if user.opcode == "fusion":
            body = _body(user)
            if body is None:
                return False
            reads = [p for p in body.instructions if p.opcode == "parameter"
                     and p.attributes.get("parameter_number") in [k for k, o in enumerate(user.operands) if o is instr]]
        for read in reads:
            cur = read
            while cur is not user and cur.opcode in ("copy", "bitcast", "parameter") and len(cur.users) == 1:
                cur = cur.users[0]
            if cur.opcode != "convert" or cur.shape.element_type != narrow:
                return False
    return True


def _widened_from(instr: Instruction | FusedValue, depth: int) -> str | None:
    """The narrower type ``instr``'s value was widened from (a ``convert`` up, under moves and
    fusions), if it was."""
    if not isinstance(instr, Instruction) or depth == 0:
        return None
    if instr.opcode == "fusion":
        body = _body(instr)
        return _widened_from(body.root, depth - 1) if body is not None and body.root is not None else None
    if instr.opcode == "convert" and len(instr.operands) == 1:
        narrow = instr.operands[0].shape.element_type
        return narrow if _narrower(narrow, instr.shape.element_type) else None
    if instr.opcode in _MOVES and len(instr.operands) == 1:
        return _widened_from(instr.operands[0], depth - 1)
    return None


def computed_bytes(instr: Instruction | FusedValue, shape: Shape | None = None) -> int:
    """Bytes of ``instr``'s value (or ``shape``) at the type it is computed in (``computed_type``)."""
    shape = shape if shape is not None else instr.shape
    narrow = computed_type(instr)
    return shape.with_element_type(narrow).byte_size if narrow is not None else shape.byte_size


def _body(fusion: Instruction) -> Computation | None:
    if fusion.opcode != "fusion" or not fusion.called_computations:
        return None
    return fusion.called_computations[0]


def _fed_by(fusion: Instruction, inner: Instruction) -> Instruction | None:
    """The fusion operand behind an inner value, if the value is just that parameter."""
    src = _through_copies(inner)
    if src.opcode != "parameter":
        return None
    number = src.attributes.get("parameter_number")
    if number is None or number >= len(fusion.operands):
        return None
    operand: Instruction = fusion.operands[number]
    return operand


def tuple_element(root: Instruction, index: int | None) -> Instruction | None:
    """``root`` itself (``index`` None), or the op computing element ``index`` of a tuple root."""
    if index is None:
        return None if root.opcode == "tuple" else root
    if root.opcode != "tuple" or not 0 <= index < len(root.operands):
        return None
    return root.operands[index]


def tuple_index(gte: Instruction) -> int | None:
    """The element a ``get-tuple-element`` of a fusion reads (None: not one)."""
    if gte.opcode != "get-tuple-element" or len(gte.operands) != 1 or gte.operands[0].opcode != "fusion":
        return None
    index = gte.attributes.get("index")
    return int(index) if index is not None else None


@dataclass(eq=False)
class FusedValue:
    """The array a fused slice cuts when the fusion computes it from its operands
    first, e.g. one layer's weight read out of the stacked weights of a scan
    (``dynamic-slice`` of the stack at the layer index, then a bitcast).

    It is no instruction of the module (it has no opcode, no users): only what
    the report and the checks ask of the array a slice cuts, its shape and its
    name.  Two fusions that compute it the same way from the same operands (XLA
    gives each half of a split weight a fusion of its own) see one
    ``FusedValue``, so their slices are slices of one array.
    """

    fusion: Instruction
    inner: Instruction  # the op in the fusion's body that computes it

    shape = property(lambda self: self.inner.shape)
    ref = property(lambda self: f"{self.fusion.ref} ({self.inner.opcode} inside)")
    line = property(lambda self: self.fusion.line)


# One FusedValue per (module, way of computing it): looked up by signature.
_SOURCES: "weakref.WeakKeyDictionary[Module, dict[tuple[Any, ...], FusedValue]]" = weakref.WeakKeyDictionary()
_SIGNATURE_DEPTH = 12


def _signature(fusion: Instruction, inner: Instruction, depth: int = _SIGNATURE_DEPTH) -> tuple[Any, ...] | None:
    """How ``inner`` is computed from the fusion's operands, as a comparable value
    (None when it is too deep to tell or reads something we cannot name)."""
    if depth == 0:
        return None
    if inner.opcode == "parameter":
        number = inner.attributes.get("parameter_number")
        if number is None or number >= len(fusion.operands):
            return None
        op = fusion.operands[number]
        return ("operand", id(op), fusion.operand_results[number] if fusion._operand_results else 0)
    if inner.opcode in ("rng", "rng-bit-generator", "custom-call", "infeed", "recv", "fusion", "call"):
        return None
    if inner.opcode == "constant":
        return ("constant", str(inner.shape), inner.attributes.raw("literal"))
    parts = []
    for op in inner.operands:
        sig = _signature(fusion, op, depth - 1)
        if sig is None:
            return None
        parts.append(sig)
    return (behaviour(inner), tuple(inner.shape.dims), tuple(parts))


def _fused_value(fusion: Instruction, inner: Instruction) -> FusedValue | None:
    sig = _signature(fusion, inner)
    module = fusion.module
    if sig is None or module is None:
        return None
    sources = _SOURCES.setdefault(module, {})
    source = sources.get(sig)
    if source is None:
        source = sources[sig] = FusedValue(fusion, inner)
    return source


def fused_slice(fusion: Instruction, index: int | None = None) -> tuple[Instruction, "Instruction | FusedValue"] | None:
    """(the slice in its body, the array it cuts) of a fusion whose result is a slice
    of one of its operands (``copy_slice_fusion``), or of an array it computes from
    them first (a ``FusedValue``).  ``index``: element ``index`` of a multi-output fusion
    (its root a tuple: XLA:TPU slices both halves in one loop fusion, each read through a
    ``get-tuple-element``)."""
    body = _body(fusion)
    if body is None or body.root is None:
        return None
    root = tuple_element(body.root, index)
    if root is None:
        return None
    root = _through_copies(root)
    if root.opcode != "slice" or len(root.operands) != 1:
        return None
    whole: Instruction | FusedValue | None = _fed_by(fusion, root.operands[0])
    if whole is None:
        whole = _fused_value(fusion, _through_copies(root.operands[0]))
    if whole is None:
        return None
    return root, whole


@dataclass(eq=False)
class FusedCopy(Boundary):
    """A chain's step through a fusion that only copies one operand (``wrapped_copy``:
    a layout change).  Optimized HLO only, so the site is reported, never rewritten:
    the rewriting half of the protocol (``merge``, ``drop``) refuses."""

    fusion: Instruction
    copy: Instruction  # the root of its body
    operand: Instruction  # the fusion operand it copies

    kind: ClassVar[str] = "copy"  # the path of a half through it, as of a plain copy
    found_at: ClassVar[str] = "fusion"
    compiled: ClassVar[bool] = True

    shape = property(lambda self: self.fusion.shape)
    after = property(lambda self: self.fusion)
    origin = property(lambda self: self.copy)
    ref = property(lambda self: self.fusion.ref)
    users = property(lambda self: self.fusion.users)

    @classmethod
    def follow(cls, instr: Instruction, result: int, callers: dict[str, list[Instruction]]) -> "FusedCopy | None":
        body = _body(instr)
        if body is None or body.root is None or body.root.opcode == "parameter":
            return None
        operand = _fed_by(instr, body.root)
        if operand is None or operand.shape.dims != instr.shape.dims:
            return None
        return cls(instr, body.root, operand)

    def source(self, result: int) -> tuple[Instruction, int]:
        return self.operand, 0

    @staticmethod
    def check(steps: list[Any], split_dim: int) -> None:
        first = steps[0]
        for step in steps[1:]:
            if step.fusion.computation is not first.fusion.computation:
                raise Refusal("same-computation", f"{step.ref} is in another computation than {first.ref}",
                              step.fusion, provenance=step.copy)

    @staticmethod
    def merge(rw: Rewriter, steps: list[Any], value: Operand, split_dim: int,
              total: int) -> tuple[Instruction, int, list[Instruction]]:
        raise _NOT_REWRITTEN

    def drop(self, rw: Rewriter) -> list[Instruction]:
        raise _NOT_REWRITTEN

    def drop_order(self) -> tuple[int, ...]:
        return (2,)


_NOT_REWRITTEN = RuntimeError("a site seen through fusions of optimized HLO is reported, never rewritten")


def fused_concats(fusion: Instruction) -> list[tuple[Instruction, list[Instruction]]]:
    """(the concatenate, the fusion operands it joins) for each concatenate inside a
    fusion whose operands are all fusion operands."""
    body = _body(fusion)
    if body is None:
        return []
    found = []
    for inner in body.instructions:
        if inner.opcode != "concatenate" or len(inner.operands) < 2:
            continue
        fed = [f for f in (_fed_by(fusion, op) for op in inner.operands) if f is not None]
        if len(fed) == len(inner.operands):
            found.append((inner, fed))
    return found


# Shared with opening (which opens and re-fuses fusions) and sources (which joins GMM operands where
# their loop fusions compute them): both sit above this module.
# What keeps an op's copies apart even on the same operands: effects, communication, an async
# pair's identity (the op table's traits).
NOT_MERGED = frozenset({Trait.SIDE_EFFECTS, Trait.COLLECTIVE, Trait.ASYNC_START, Trait.ASYNC_UPDATE,
                         Trait.ASYNC_DONE})


# Ops XLA leaves outside fusions, with no kernel of their own: a parameter, a constant (a
# literal in a buffer), a bitcast (a new view of the same bytes).
_NO_KERNEL = frozenset({"parameter", "constant", "bitcast"})
def fusion_kind(fusion: Instruction) -> str | None:
    """A fusion's kind (kLoop, kInput, kOutput, kCustom), None where unstated."""
    kind = fusion.attributes.get("kind")
    return str(kind) if kind is not None else None


def copy_fusion_for(rw: Rewriter, fusion: Instruction, readers: list[Instruction]) -> Instruction:
    """A copy of ``fusion`` with a copy of its body (a fused computation has one caller), read by
    ``readers`` instead of ``fusion``."""
    body = fusion.called_computations[0]
    name = body.name
    while name in rw.module.computations:
        name = rw.module.fresh_name(body.name)
    comp = rw.add_computation(Computation(name), before=fusion.computation)
    new: dict[int, Instruction] = {}
    for inner in body.instructions:
        new[id(inner)] = rw.clone(inner, [Value(new[id(v.op)], v.result) for v in inner.operand_values],
                                  inner.shape, computation=comp)
    assert body.root is not None
    rw.make_root(comp, new[id(body.root)])
    copy = rw.clone(fusion, fusion.operand_values, fusion.shape, after=fusion)
    rw.set_called(copy, [comp])
    for reader in readers:
        for i, operand in enumerate(list(reader.operands)):
            if operand is fusion:
                rw.set_operand(reader, i, Value(copy, reader.operand_results[i]))
    return copy


def emitted_as_loop(instr: Instruction) -> bool:
    """Whether XLA emits ``instr`` as a loop: element-wise or data-moving, no kernel of its own otherwise."""
    d = op(instr.opcode)
    return (d is not None and instr.opcode not in _NO_KERNEL and not d.traits & NOT_MERGED
            and bool(d.traits & {Trait.ELEMENTWISE, Trait.DATA_MOVEMENT})
            and not instr.called_computations and instr.shape.is_array)
