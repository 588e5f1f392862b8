"""What the HLO parser's parts share (parser.py and compact.py): its internal failure, the placeholder shape,
the type of the instructions it makes and of their attributes' texts."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from ...ir import Attributes, Instruction, Shape

# The shape of an instruction written without one (XLA infers it; we do not).
INFERRED_SHAPE = Shape("inferred", text="")


if TYPE_CHECKING:
    class _ParsedOp(Instruction):
        """An instruction as the parser makes it (with its source span), which ``Instruction``'s
        Optional span does not tell the type checker.  A name for the checker only (no checks,
        no cost): at run time it is ``Instruction``."""
        span: tuple[int, int]
else:
    _ParsedOp = Instruction

# An attribute's source text, which only a pass's attribute lacks (None), for the parser's
# own instructions: ``Attributes.source_texts`` typed as such, at no cost on the hot path.
_source_texts = cast("Callable[[Attributes], dict[str, str]]", Attributes.source_texts)


class _Fail(Exception):
    """Internal: reason and text offset; turned into ParseError at the top."""

    def __init__(self, reason: str, pos: int) -> None:
        self.reason = reason
        self.pos = pos
