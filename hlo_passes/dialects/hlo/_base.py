"""What the HLO parser's parts share (parser.py and compact.py): its internal failure, the placeholder shape."""
from __future__ import annotations

from ...ir import Shape

# The shape of an instruction written without one (XLA infers it; we do not).
INFERRED_SHAPE = Shape("inferred", text="")


class _Fail(Exception):
    """Internal: reason and text offset; turned into ParseError at the top."""

    def __init__(self, reason: str, pos: int) -> None:
        self.reason = reason
        self.pos = pos
