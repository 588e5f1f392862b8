"""Seeing the pattern through fusions, in compiled (after-optimizations) HLO.

XLA's fusion pass wraps the slice of W into a ``copy_slice_fusion`` and the
concatenate into a fusion of the gathered halves, so the pattern is no longer
a chain of plain instructions.  The lint still has to find it there (that is
what dump folders and ``compile().as_text()`` hold), so these helpers present
such fusions as the slice or concatenate they contain.  Sites found this way
are reported, never rewritten: an optimized module cannot be compiled again.
"""
from __future__ import annotations

import weakref
from typing import Any

from ..ir import Computation, Instruction, Module, Shape
from ._chains import behaviour

# Inside a fusion, ops between a parameter and the slice or concatenate that
# keep every element where it is: layout copies, same-shape bitcasts, and
# element-type converts (f32 weights computed in bf16 put the slice and the
# bf16 round trip into the fusion that feeds each all-gather).  Seen through
# only to find the pattern: such sites are reported, not rewritten.
_IN_PLACE = frozenset({"copy", "bitcast", "convert"})


def _through_copies(instr: Instruction) -> Instruction:
    while instr.opcode in _IN_PLACE and len(instr.operands) == 1 and instr.operands[0].shape.dims == instr.shape.dims:
        instr = instr.operands[0]
    return instr


class FusedView:
    """A fusion instruction seen as one op of its body (a slice or a concatenate).

    It answers the questions the chain helpers ask of an instruction: its
    operands are the fusion's operands that feed the inner op, its attributes
    and shape are the inner op's, its users and position the fusion's.
    """

    def __init__(self, fusion: Instruction, inner: Instruction, operands: list[Instruction]) -> None:
        self.fusion = fusion
        self.inner = inner
        self.opcode = inner.opcode
        self.operands = operands
        self.operand_results = [0] * len(operands)
        self.attributes = inner.attributes
        self.shape: Shape = inner.shape
        self.dialect_data: dict[str, Any] = {}
        self.num_results = 1
        self.called_computations: list[Computation] = []

    name = property(lambda self: self.fusion.name)
    ref = property(lambda self: self.fusion.ref)
    line = property(lambda self: self.fusion.line)
    column = property(lambda self: self.fusion.column)
    users = property(lambda self: self.fusion.users)

    @property
    def computation(self) -> Computation | None:
        return self.fusion.computation

    @property
    def module(self) -> Module | None:
        return self.fusion.module


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
    return fusion.operands[number]


class FusedSource:
    """The array a fused slice cuts when the fusion computes it from its operands
    first, e.g. one layer's weight read out of the stacked weights of a scan
    (``dynamic-slice`` of the stack at the layer index, then a bitcast).

    Two fusions that compute it the same way from the same operands (XLA
    gives each half of a split weight a fusion of its own) see one
    ``FusedSource``, so their slices are slices of one source.
    """

    opcode = "fused-value"
    num_results = 1
    operand_results: list[int] = []

    def __init__(self, fusion: Instruction, inner: Instruction) -> None:
        self.fusion = fusion
        self.inner = inner
        self.shape: Shape = inner.shape
        self.operands = [op for op in fusion.operands]

    name = property(lambda self: f"{self.fusion.name}/{self.inner.name}")
    ref = property(lambda self: f"{self.fusion.ref} ({self.inner.opcode} inside)")
    line = property(lambda self: self.fusion.line)
    column = property(lambda self: self.fusion.column)
    computation = property(lambda self: self.fusion.computation)
    module = property(lambda self: self.fusion.module)


# One FusedSource per (module, way of computing it): looked up by signature.
_SOURCES: "weakref.WeakKeyDictionary[Module, dict[tuple, FusedSource]]" = weakref.WeakKeyDictionary()
_SIGNATURE_DEPTH = 12


def _signature(fusion: Instruction, inner: Instruction, depth: int = _SIGNATURE_DEPTH) -> tuple | None:
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


def _fused_source(fusion: Instruction, inner: Instruction) -> FusedSource | None:
    sig = _signature(fusion, inner)
    module = fusion.module
    if sig is None or module is None:
        return None
    sources = _SOURCES.setdefault(module, {})
    source = sources.get(sig)
    if source is None:
        source = sources[sig] = FusedSource(fusion, inner)
    return source


def fused_slice(fusion: Instruction) -> FusedView | None:
    """A fusion whose result is a slice of one of its operands (``copy_slice_fusion``),
    or of an array it computes from them first (``FusedSource``)."""
    body = _body(fusion)
    if body is None or body.root is None:
        return None
    root = _through_copies(body.root)
    if root.opcode != "slice":
        return None
    source: Any = _fed_by(fusion, root.operands[0])
    if source is None:
        source = _fused_source(fusion, _through_copies(root.operands[0]))
    if source is None:
        return None
    return FusedView(fusion, root, [source])


def fused_copy(fusion: Instruction) -> FusedView | None:
    """A fusion that only copies one operand (``wrapped_copy``): a layout change."""
    body = _body(fusion)
    if body is None or body.root is None or body.root.opcode == "parameter":
        return None
    source = _fed_by(fusion, body.root)
    if source is None or source.shape.dims != fusion.shape.dims:
        return None
    view = FusedView(fusion, body.root, [source])
    view.opcode = "copy"
    view.shape = fusion.shape
    view.attributes = {}
    return view


def fused_concats(fusion: Instruction) -> list[FusedView]:
    """Concatenates inside a fusion whose operands are all fusion operands."""
    body = _body(fusion)
    if body is None:
        return []
    views = []
    for inner in body.instructions:
        if inner.opcode != "concatenate" or len(inner.operands) < 2:
            continue
        fed = [_fed_by(fusion, op) for op in inner.operands]
        if all(f is not None for f in fed):
            views.append(FusedView(fusion, inner, fed))
    return views
