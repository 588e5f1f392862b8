"""Splitting text at the commas outside every bracket and string: one helper for the parsers'
types and attribute values, the HLO printer's parameter lists and the rewrites' Shardy attributes.

(The HLO parser's own ``split_top_level`` works on offsets into the whole text, with comments and
its bracket jump table, and stays a method of the parser: it is on the hot path.)
"""
from __future__ import annotations

_OPEN = "<([{"
_CLOSE = ">)]}"


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """The pieces of ``text`` between the ``sep`` characters outside brackets (``<([{``) and
    double-quoted strings (with backslash escapes), stripped; an empty last piece is dropped
    (``""`` gives ``[]``, ``"a,"`` gives ``["a"]``)."""
    out, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out
