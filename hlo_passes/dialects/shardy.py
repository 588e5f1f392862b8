"""Shardy's shardings as typed values: read once from whichever text carries them.

A Shardy sharding says, per dimension of an array, which mesh axes split it.  The text comes in
several spellings, all read here into one ``SdySharding``:

* StableHLO: ``#sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>`` (an attribute of an
  op or a function argument), the entries of ``#sdy.sharding_per_value<[<@mesh, [...]>, ...]>``
  (a shard_map's ``in_shardings``/``out_shardings``); open dimensions ``{"x", ?}``, priorities
  ``{"x"}p1``, sub-axes ``"x":(2)4``, ``replicated={"y"}``, an inline mesh ``<mesh<["x"=8]>, [...]>``;
* HLO after Shardy's export: the same text in the frontend attributes ``xla.sdy.sharding`` and
  ``xla.sdy.in_shardings`` (quotes escaped as ``\\"`` or ``\\22``);
* HLO of jax 0.12's XLA: ``sharding={mesh['x'=8,'y'=1], [{}, {'x'}]}`` or ``{mesh[], replicated}``.

``decode`` reads one (cached by text: a module repeats a handful of shardings thousands of
times); ``SdySharding`` compares by meaning, not spelling.  ``per_value`` and ``per_value_text``
take a per-value list apart and put it back, each entry kept as its source spells it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .split import split_top_level

__all__ = ["AxisRef", "DimSharding", "SdySharding", "decode", "mesh_axes", "per_value", "per_value_text", "same",
           "unescaped"]


@dataclass(frozen=True)
class AxisRef:
    """A mesh axis, or a sub-axis of one (``"x":(2)4``: size 4 of axis x, after the first 2)."""

    name: str
    sub: tuple[int, int] | None = None  # (the product of the sizes before it, its size)

    def __str__(self) -> str:
        return self.name if self.sub is None else f"{self.name}:({self.sub[0]}){self.sub[1]}"

    def size(self, mesh: Mapping[str, int]) -> int | None:
        """How many pieces this axis cuts a dimension into (None: the mesh does not say)."""
        return self.sub[1] if self.sub is not None else mesh.get(self.name)


@dataclass(frozen=True)
class DimSharding:
    """The axes one dimension is split over, major first; ``open`` (``?``): the partitioner may
    split it further; ``priority`` (``p1``) orders propagation."""

    axes: tuple[AxisRef, ...] = ()
    open: bool = False
    priority: int | None = None


@dataclass(frozen=True)
class SdySharding:
    """One array's sharding: its mesh (a symbol, ``mesh``, or the axes of an inline one,
    ``mesh_axes``), per dimension the axes splitting it (``dims``; empty with ``replicated_all``:
    jax 0.12's ``{mesh[], replicated}``, which says so for any rank), and the axes it is
    explicitly replicated over."""

    dims: tuple[DimSharding, ...]
    mesh: str | None = None
    mesh_axes: tuple[tuple[str, int], ...] | None = None
    replicated: tuple[AxisRef, ...] = ()
    replicated_all: bool = False

    def shards(self, rank: int, mesh: Mapping[str, int]) -> tuple[int, ...] | None:
        """Into how many pieces each of ``rank`` dimensions is cut, the sizes read from ``mesh``
        (the module's meshes; an inline mesh's own sizes win); None if an axis size is unknown."""
        if self.replicated_all:
            return (1,) * rank
        sizes = {**mesh, **dict(self.mesh_axes or ())}
        counts = []
        for dim in self.dims:
            n = 1
            for axis in dim.axes:
                size = axis.size(sizes)
                if size is None:
                    return None
                n *= size
            counts.append(n)
        return tuple(counts)


class _Unreadable(ValueError):
    pass


# Tokens of every spelling: strings in either quote, symbols, integers, words, punctuation.
_TOKEN = re.compile(r"""\s*(?:("[^"]*"|'[^']*')|(@[\w.$\-]+|@"[^"]*")|(\d+)|([A-Za-z_#][\w.#]*)|([\[\]{}(),:=?<>]))""")
# Where a sharding starts in a longer text (an argument's attributes, a frontend attribute value).
_START = re.compile(r"#sdy\.sharding<|\{\s*mesh\[|<\s*(?:@|mesh<)")


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.lastindex is None:
                break  # past the sharding anything may follow (other attributes): read no further
            self.items.append((("str", "sym", "int", "word", "punct")[m.lastindex - 1], m.group(m.lastindex)))
            pos = m.end()
        self.at = 0

    def peek(self, value: str | None = None, kind: str | None = None) -> bool:
        if self.at >= len(self.items):
            return False
        k, v = self.items[self.at]
        return (value is None or v == value) and (kind is None or k == kind)

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        if not self.peek(value, kind):
            got = self.items[self.at][1] if self.at < len(self.items) else "the end"
            raise _Unreadable(f"expected {value or kind}, got {got}")
        self.at += 1
        return self.items[self.at - 1][1]

    def skip(self, value: str) -> bool:
        if self.peek(value):
            self.at += 1
            return True
        return False


def _name(token: str) -> str:
    return token[1:-1]


def _axis(t: _Tokens) -> AxisRef:
    name = _name(t.take(kind="str"))
    if t.skip(":"):
        t.take("(")
        pre = int(t.take(kind="int"))
        t.take(")")
        return AxisRef(name, (pre, int(t.take(kind="int"))))
    return AxisRef(name)


def _axes(t: _Tokens) -> tuple[tuple[AxisRef, ...], bool]:
    """``{"a", "b":(2)2, ?}`` → the axes, and whether the dimension is open."""
    t.take("{")
    axes: list[AxisRef] = []
    is_open = False
    while not t.skip("}"):
        if t.skip("?"):
            is_open = True
        else:
            axes.append(_axis(t))
        if not t.peek("}"):
            t.take(",")
    return tuple(axes), is_open


def _dims(t: _Tokens) -> tuple[DimSharding, ...]:
    t.take("[")
    dims: list[DimSharding] = []
    while not t.skip("]"):
        axes, is_open = _axes(t)
        priority = None
        if t.peek(kind="word") and re.fullmatch(r"p\d+", t.items[t.at][1]):
            priority = int(t.take()[1:])
        dims.append(DimSharding(axes, is_open, priority))
        if not t.peek("]"):
            t.take(",")
    return tuple(dims)


def _mesh_axes(t: _Tokens, close: str) -> tuple[tuple[str, int], ...]:
    """``"x"=2, "y"=4`` up to ``close``."""
    axes: list[tuple[str, int]] = []
    while not t.skip(close):
        name = _name(t.take(kind="str"))
        t.take("=")
        axes.append((name, int(t.take(kind="int"))))
        if not t.peek(close):
            t.take(",")
    return tuple(axes)


def _replicated(t: _Tokens) -> tuple[AxisRef, ...]:
    """What follows the dimensions: ``replicated={...}`` (kept), ``unreduced={...}`` (read past)."""
    replicated: tuple[AxisRef, ...] = ()
    while t.skip(","):
        word = t.take(kind="word")
        if word == "replicated" and t.skip("="):
            replicated, _ = _axes(t)
        elif t.skip("="):
            _axes(t)
        else:
            raise _Unreadable(f"unexpected {word}")
    return replicated


def _read(text: str) -> SdySharding:
    t = _Tokens(text)
    if t.skip("{"):  # jax 0.12's HLO: {mesh['x'=8], [{}, {'x'}]} or {mesh[], replicated}
        t.take("mesh")
        t.take("[")
        inline = _mesh_axes(t, "]")
        t.take(",")
        if t.skip("replicated"):
            return SdySharding((), mesh_axes=inline, replicated_all=True)
        dims = _dims(t)
        return SdySharding(dims, mesh_axes=inline, replicated=_replicated(t))
    t.skip("#sdy.sharding")
    t.take("<")
    mesh: str | None = None
    mesh_axes: tuple[tuple[str, int], ...] | None = None
    if t.peek(kind="sym"):
        mesh = t.take().lstrip("@").strip('"')
    else:  # an inline mesh: mesh<["x"=2]>
        t.take("mesh")
        t.take("<")
        t.take("[")
        mesh_axes = _mesh_axes(t, "]")
        t.take(">")
    t.take(",")
    dims = _dims(t)
    return SdySharding(dims, mesh=mesh, mesh_axes=mesh_axes, replicated=_replicated(t))


# A mesh's axis and its size: ``"x"=8`` (``sdy.mesh``, ``#sdy.mesh<...>``; single quotes in jax 0.12's HLO).
_MESH_AXIS = re.compile(r"""["']([^"']+)["']\s*=\s*(\d+)""")


def mesh_axes(text: str) -> list[tuple[str, int]]:
    """(axis, size) of every mesh axis ``text`` declares, in order (quotes escaped or not)."""
    return [(name, int(size)) for name, size in _MESH_AXIS.findall(unescaped(text))]


def unescaped(text: str) -> str:
    """``text`` with the quotes of an MLIR string inside a string (``\\22``, ``\\"``) plain."""
    return text.replace("\\22", '"').replace('\\"', '"')


@lru_cache(maxsize=4096)
def decode(text: str) -> SdySharding | None:
    """The first Shardy sharding in ``text`` (any spelling above), or None where none can be read."""
    text = unescaped(text)
    m = _START.search(text)
    if m is None:
        return None
    try:
        return _read(text[m.start():])
    except (_Unreadable, ValueError):
        return None


def per_value(text: str) -> list[str] | None:
    """The entries of ``#sdy.sharding_per_value<[<...>, <...>]>``, each as the text spells it."""
    start, end = text.find("<["), text.rfind("]>")
    if start < 0 or end < start:
        return None
    return split_top_level(text[start + 2:end])


def per_value_text(entries: Sequence[str]) -> str:
    """The per-value list of ``entries`` (as ``per_value`` gives them)."""
    return "#sdy.sharding_per_value<[" + ", ".join(entries) + "]>"


def same(a: str | None, b: str | None) -> bool:
    """Whether two sharding texts say the same (by meaning where both can be read, else as text)."""
    if a is None or b is None:
        return a is b
    da, db = decode(a), decode(b)
    return da == db if da is not None and db is not None else a == b
