"""HLO shape text → ``Shape``, memoised.

Real modules repeat a few hundred distinct shape spellings over tens of
thousands of instructions, so each distinct text is parsed once per process.
Layouts that are plain minor-to-major lists are checked here; anything with
tiles, memory spaces or sparse levels is checked with the lark grammar.
"""
from __future__ import annotations

import re

from ...ir import ELEMENT_BITS, Shape
from .attrs import AttributeError_, decode_layout
from ..ints import INT64_MAX, NumberError, to_int

ELEMENT_TYPES = frozenset(k for k in ELEMENT_BITS if k != "tuple")
# Only b(...) uses "buffer"; it is not an element type of its own.

# One array shape: type, dims and an optional layout whose braces may nest
# once (a sparse layout's physical shape ``P(f32[10]{0})``).  Every repeated
# piece excludes the delimiter that ends it, so matching is linear.
_LAYOUT = r"(\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\})"
ARRAY_SHAPE_RE = re.compile(r"([a-z][a-z0-9]*)\[([^\]\n]*)\](?:[ \t]?" + _LAYOUT + ")?")
# Where a '{' may open a computation body, the layout must touch the ']'.
STRICT_ARRAY_SHAPE_RE = re.compile(r"([a-z][a-z0-9]*)\[([^\]\n]*)\]" + _LAYOUT + "?")
_SIMPLE_LAYOUT_RE = re.compile(r"\{(?:\d+(?:,\d+)*)?\}")
_DIM_RE = re.compile(r"\s*(?:(\d+)|<=\s*(\d+)|(\?))\s*")
_COMMENT_RE = re.compile(r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/|//[^\n]*")
MAX_TUPLE_DEPTH = 64

_cache: dict[str, Shape] = {}
_CACHE_LIMIT = 200_000


class ShapeError(ValueError):
    """A malformed shape; ``offset`` is where in the shape text it went wrong."""

    def __init__(self, reason: str, offset: int = 0) -> None:
        super().__init__(reason)
        self.offset = offset


def parse_shape(text: str) -> Shape:
    """The ``Shape`` spelled by ``text`` (exactly one shape, nothing around it)."""
    shape = _cache.get(text)
    if shape is not None:
        return shape
    shape, end = _parse_at(text, 0, 0)
    if end != len(text):
        raise ShapeError(f"unexpected text after shape: {text[end:end + 20]!r}", end)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[text] = shape
    return shape


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif text.startswith(("/*", "//"), i):
            m = _COMMENT_RE.match(text, i)
            if m is None:
                raise ShapeError("unterminated comment", i)
            i = m.end()
        else:
            break
    return i


def _parse_at(text: str, pos: int, depth: int) -> tuple[Shape, int]:
    if depth > MAX_TUPLE_DEPTH:
        raise ShapeError("tuple shapes nested too deeply", pos)
    if text.startswith("b(", pos):
        # A buffer shape, b(f32[2,4]): one array inside.
        inner, i = _parse_at(text, pos + 2, depth + 1)
        i = _skip_space(text, i)
        if not text.startswith(")", i):
            raise ShapeError("expected ')' to close b(...)", i)
        return Shape("buffer", tuple_shapes=(inner,), text=text[pos:i + 1]), i + 1
    if text.startswith("(", pos):
        elems: list[Shape] = []
        i = _skip_space(text, pos + 1)
        if text.startswith(")", i):
            return Shape("tuple", text=text[pos:i + 1]), i + 1
        while True:
            elem, i = _parse_at(text, i, depth + 1)
            elems.append(elem)
            i = _skip_space(text, i)
            if text.startswith(",", i):
                i = _skip_space(text, i + 1)
                continue
            if text.startswith(")", i):
                return Shape("tuple", tuple_shapes=tuple(elems), text=text[pos:i + 1]), i + 1
            raise ShapeError("expected ',' or ')' in tuple shape", i)
    m = ARRAY_SHAPE_RE.match(text, pos)
    if m is None:
        # XLA accepts a bare ``token`` / ``opaque`` without brackets.
        for bare in ("token", "opaque"):
            if text.startswith(bare, pos) and not text[pos + len(bare):pos + len(bare) + 1].isalnum():
                return Shape(bare, text=bare), pos + len(bare)
        raise ShapeError("expected a shape such as f32[2,3]{1,0}", pos)
    etype, dims_text, layout = m.group(1), m.group(2), m.group(3)
    if etype not in ELEMENT_TYPES:
        raise ShapeError(f"unknown element type {etype!r}", pos)
    dims: list[int] = []
    dynamic: list[bool] = []
    if dims_text.strip():
        at = m.start(2)
        for piece in dims_text.split(","):
            d = _DIM_RE.fullmatch(piece)
            if d is None:
                raise ShapeError(f"bad dimension {piece.strip()!r}", at + len(piece) - len(piece.lstrip()))
            if d.group(3) is not None:
                dims.append(-1)
                dynamic.append(True)
            else:
                digits = d.group(1) if d.group(1) is not None else d.group(2)
                try:
                    dims.append(to_int(digits, 0, INT64_MAX, "dimension"))
                except NumberError as e:
                    raise ShapeError(e.reason, at + piece.index(digits)) from None
                dynamic.append(d.group(1) is None)
            at += len(piece) + 1
    if etype in ("token", "opaque") and dims:
        raise ShapeError(f"{etype} shapes have no dimensions", pos)
    if layout is not None:
        _check_layout(layout, len(dims), pos + m.start(3) - pos)
    return (
        Shape(etype, tuple(dims), tuple(dynamic), layout=layout, text=text[pos:m.end()]),
        m.end(),
    )


_layout_cache: dict[tuple[str, int], None] = {}


def _check_layout(layout: str, rank: int, offset: int) -> None:
    if (layout, rank) in _layout_cache:
        return
    if _SIMPLE_LAYOUT_RE.fullmatch(layout):
        minor = []
        at = 1
        for x in layout[1:-1].split(",") if len(layout) > 2 else ():
            try:
                minor.append(to_int(x, 0, INT64_MAX, "layout dimension"))
            except NumberError as e:
                raise ShapeError(e.reason, offset + at) from None
            at += len(x) + 1
    else:
        try:
            minor, sparse, physical = decode_layout(layout)
        except AttributeError_ as e:
            raise ShapeError(e.reason, offset + e.offset) from None
        if physical and not sparse:
            raise ShapeError(
                f"Layout has physical shape, but is not for a sparse array: {layout}", offset
            )
    if minor and sorted(minor) != list(range(rank)):
        raise ShapeError(
            f"layout {layout} is not a permutation of the {rank} dimensions", offset
        )
    _layout_cache[(layout, rank)] = None
