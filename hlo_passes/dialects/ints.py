"""Integers (and long lists of them) read from source text, checked before Python converts them.

``int()`` refuses strings of more than 4,300 digits (a ``ValueError`` that is
no ``ParseError``) and is quadratic below that; no dimension, index, id or
attribute of a real module has more than twenty digits.  ``to_int`` counts
the significant digits first and checks the value against its range, so a
number of any length gives a ``NumberError`` (which each parser turns into a
``ParseError`` at the number) or its correct value.  ``cut_long_lists`` gives
the grammars a list of 10^5 numbers as one, where only a verdict is wanted.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
# More significant digits than any value of 128 bits: out of every range here.
_MAX_DIGITS = 40


class NumberError(ValueError):
    """A number out of its range (or not a number); ``reason`` says which."""

    def __init__(self, reason: str, text: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.text = text  # the number as written, for callers that locate it


def _shown(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text)} characters)"


def to_int(text: str, lo: int = INT64_MIN, hi: int = UINT64_MAX, what: str = "integer") -> int:
    """The value of decimal (or ``0x`` hexadecimal) ``text`` if it lies in [lo, hi]."""
    if len(text) < 19 and text.isdigit() and text.isascii():  # the common case, in one step
        value = int(text)
        if lo <= value <= hi:
            return value
    s = text.strip()
    sign = s[:1] if s[:1] in "+-" else ""
    body = s[len(sign):]
    base = 10
    if body[:2] in ("0x", "0X"):
        base, body = 16, body[2:]
    significant = body.lstrip("0")
    digits = "0123456789" if base == 10 else "0123456789abcdefABCDEF"
    if not body or body.strip(digits):
        raise NumberError(f"expected an integer, got {_shown(s)!r}", s)
    if len(significant) > _MAX_DIGITS:
        raise NumberError(f"{what} {_shown(s)} is out of range [{lo}, {hi}]", s)
    value = int(sign + (significant or "0"), base)
    if not lo <= value <= hi:
        raise NumberError(f"{what} {_shown(s)} is out of range [{lo}, {hi}]", s)
    return value


# Eight or more "item," in a row, an item one number or word: a list's items,
# each one token.  Where items are independent (list elements, the balanced
# tokens of generic values), a grammar accepts the list with one of them iff
# it accepts it whole, in time that no longer grows with the list.
_ITEM = r"(?:[-+]?\d[\w.+-]*|[A-Za-z_][\w.$-]*)"
_ITEM_RUN = re.compile(rf'(?<![\w.$#%@"\\-])({_ITEM}\s*,\s*)(?:{_ITEM}\s*,\s*){{7,}}')


def cut_long_lists(text: str) -> tuple[str, Callable[[int], int]]:
    """``text`` with each long run of list items cut to its first, and a map from offsets in
    the cut text back to ``text`` (for an error found in it)."""
    kept: list[int] = []  # offsets in the cut text where something was cut out ...
    removed: list[int] = []  # ... and how much had been cut out up to there
    total = 0
    pieces = []
    last = 0
    for m in _ITEM_RUN.finditer(text):
        pieces.append(text[last:m.end(1)])
        total += m.end() - m.end(1)
        kept.append(m.end(1) - (removed[-1] if removed else 0))
        removed.append(total)
        last = m.end()
    if not kept:
        return text, lambda offset: offset
    pieces.append(text[last:])

    def original(offset: int) -> int:
        k = bisect_right(kept, offset)
        return offset + (removed[k - 1] if k else 0)

    return "".join(pieces), original
