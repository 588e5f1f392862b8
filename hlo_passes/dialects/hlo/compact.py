"""Tuple-element operands, ``%p0#1`` and ``%p0#1#0``, as current XLA writes them.

Older XLA needs a ``get-tuple-element`` instruction for each use of a tuple
element.  Current XLA (jaxlib 0.12) also reads an operand ``%name#index``
and builds that get-tuple-element itself: named ``name_index`` (``.N``
appended when the name is taken), placed right before its first user, one
per tuple element and computation (``%p0#1#0`` reads element 1 of ``p0``,
then element 0 of that).  The parser does the same, so rules, the verifier
and the comparison with XLA's own parse see ordinary get-tuple-elements
(a use of the tuple at that output index); each one is marked ``compact``
and the printer writes ``%name#index`` back at its uses instead of a line of
its own.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...ir import Attributes, Instruction
from ._base import INFERRED_SHAPE, _Fail, _ParsedOp

if TYPE_CHECKING:
    from .parser import _HloParser

_REF_RE = re.compile(r"%?([A-Za-z_][\w.\-]*)((?:#[^#\s,()]*)+)")


class TupleRef:
    """An operand ``name#i#j`` before it is resolved: base name, index path, text offset."""

    __slots__ = ("name", "path", "pos")

    def __init__(self, name: str, path: tuple[int, ...], pos: int) -> None:
        self.name = name
        self.path = path
        self.pos = pos


def read_ref(piece: str, pos: int) -> TupleRef | None:
    """``piece`` (an operand's text at offset ``pos``) as a tuple-element reference.

    None when it does not have the form at all; a ``_Fail`` when an index is
    not an integer (XLA: "expects integer").  Negative and too large indices
    are refused once the tuple's shape is known (``expand``).
    """
    m = _REF_RE.fullmatch(piece)
    if m is None:
        return None
    path = []
    at = pos + m.start(2)
    for part in m.group(2).split("#")[1:]:
        if not re.fullmatch(r"-?\d+", part):
            raise _Fail("expects integer (the index of a tuple element after '#')", at + 1)
        if len(part) > 18:
            raise _Fail("tuple element index too large", at + 1)
        path.append(int(part))
        at += len(part) + 1
    return TupleRef(m.group(1), tuple(path), pos)


def expand(parser: "_HloParser", instrs: list[_ParsedOp], by_name: dict[str, _ParsedOp]) -> list[Instruction]:
    """Replace every ``TupleRef`` operand of ``instrs`` by its get-tuple-element.

    Returns the computation's instructions with the new get-tuple-elements,
    each right before the first instruction that uses it.
    """
    made: dict[tuple[int, int], _ParsedOp] = {}
    out: list[Instruction] = []
    for instr in instrs:
        # Instructions, and TupleRefs until here (typed as the instructions they become).
        ops: list[Any] = instr.operands
        for k, op in enumerate(ops):
            if op.__class__ is not TupleRef:
                continue
            cur = by_name.get(op.name)
            if cur is None:
                raise _Fail(f"instruction does not exist: {op.name!r} is not defined in this computation", op.pos)
            if cur.span[0] >= instr.span[0]:
                # As for plain names (parser.resolve_operands): defined above the use, never by it.
                raise _Fail(f"instruction {op.name!r} is used before its definition"
                            + (" (by itself)" if cur is instr else f" (line {cur.line})"), op.pos)
            for index in op.path:
                gte = made.get((id(cur), index))
                if gte is None:
                    shape = cur.shape
                    if shape is INFERRED_SHAPE:
                        element = INFERRED_SHAPE
                        parser.shape_kinds.add("inferred")
                    elif not shape.is_tuple:
                        raise _Fail(f"GTE operand must be tuple, but has shape: {shape}", op.pos)
                    elif not 0 <= index < len(shape.tuple_shapes):
                        raise _Fail(f"GTE index {index} out of bounds for shape: {shape}", op.pos)
                    else:
                        element = shape.tuple_shapes[index]
                    gte = _new_gte(parser, cur, index, element, op.pos, instr, by_name)
                    gte.computation = instr.computation
                    made[(id(cur), index)] = gte
                    out.append(gte)
                cur = gte
            ops[k] = cur
        out.append(instr)
    return out


def _new_gte(parser: "_HloParser", tuple_op: Instruction, index: int, shape: Any, pos: int,
             user: _ParsedOp, by_name: dict[str, _ParsedOp]) -> _ParsedOp:
    name = f"{tuple_op.name}_{index}"
    k = 0
    candidate = name
    while candidate in by_name:
        k += 1
        candidate = f"{name}.{k}"
    attributes = Attributes.of_source({"index": str(index)}, parser.decoder)
    text = parser.text
    gte = _ParsedOp(candidate, "get-tuple-element", shape, [tuple_op], attributes,
                    line=user.line + text.count("\n", user.span[0], pos), column=pos - text.rfind("\n", 0, pos),
                    span=(pos, pos))
    gte.dialect_data = {"compact": True}
    by_name[candidate] = gte
    return gte

