"""Seeing the pattern through fusions, in compiled (after-optimizations) HLO.

XLA's fusion pass wraps the slice of W into a ``copy_slice_fusion`` and the
concatenate into a fusion of the gathered halves, so the pattern is no longer
a chain of plain instructions.  The lint still has to find it there (that is
what dump folders and ``compile().as_text()`` hold), so these helpers present
such fusions as the slice or concatenate they contain.  Sites found this way
are reported, never rewritten: an optimized module cannot be compiled again.
"""
from __future__ import annotations

from typing import Any

from ..ir import Computation, Instruction, Module, Shape

# Inside a fusion, ops between a parameter and the slice or concatenate that
# change nothing about the values (layout copies, same-shape bitcasts).
def _through_copies(instr: Instruction) -> Instruction:
    while instr.opcode in ("copy", "bitcast") and instr.operands and instr.operands[0].shape.dims == instr.shape.dims:
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


def fused_slice(fusion: Instruction) -> FusedView | None:
    """A fusion whose result is a slice of one of its operands (``copy_slice_fusion``)."""
    body = _body(fusion)
    if body is None or body.root is None:
        return None
    root = _through_copies(body.root)
    if root.opcode != "slice" or len(root.operands) != 1:
        return None
    source = _fed_by(fusion, root.operands[0])
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
