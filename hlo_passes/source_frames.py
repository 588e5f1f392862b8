"""Where an op came from in the user's program: its stack frames, and which one is the user's.

jax records the Python traceback of every op it lowers, with the frames inside jax and the
standard library already left out (``source_info_util.is_user_filename``).  The text forms keep
it in two ways:

* HLO text (XLA's ``--xla_dump_to`` dumps, ``compiled.as_text()``, ``as_text(dialect="hlo",
  debug_info=True)``): each op's ``metadata={... stack_frame_id=N}`` points into four tables
  printed after the ``HloModule`` line — ``FileNames``, ``FunctionNames``, ``FileLocations``
  (file, function, line, column) and ``StackFrames`` (a location and the parent frame).  Ids are
  1-based; XLA prints a frame's ``parent_frame_id`` as the parent's id + 1, so 1 means "no
  parent" (``HloModule::PrintStackFrameIndex``; its import into MLIR reads it the same way).
  Older XLA wrote ``source_file=... source_line=...`` on the op instead, one frame.
* MLIR text with debug info: ``loc(callsite("f"("file":line:col) at callsite(...)))``, innermost
  call first.

Which frame a finding shows is chosen as jax's tracebacks choose it (``user_frame``: the
innermost frame whose file is not a library's), with the libraries a model's code runs through
(jax, jaxlib, flax, optax, the wrappers equinox, haiku, chex and orbax, hlo_passes itself, the
standard library) left out here too, since jax
keeps frames of libraries other than itself.  When every frame is a library's, the innermost one
is shown: something to look at beats nothing.

The tables are read once per module, on the first op that asks (a lint with no finding never
reads them), and each entry decoded when a frame needs it.  Nothing here imports jax.
"""
from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Frame", "FrameTable", "LIBRARIES", "frame_table", "is_library_file", "mlir_frames", "user_frame"]

# Packages whose frames are never the user's: what jax leaves out itself (jax, jaxlib), the
# libraries a model's code calls into, and this package (its jit lowers the user's program).
# Wrapper libraries too (equinox's filter_jit, haiku's transform, chex, orbax): a frame of the
# wrapper around the user's function is never the user's line (issue 47: a site was placed at
# equinox/_jit.py:263).
LIBRARIES = frozenset({"jax", "jaxlib", "flax", "optax", "hlo_passes", "equinox", "haiku", "chex", "orbax"})
# This package's own directory: a folder named hlo_passes holds a frame of this package only
# where the rest of the path is one of its files (a clone of the repository is often named
# hlo_passes too, and the user's code beside the package in it is the user's).
_OWN = "hlo_passes"
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
# The standard library: .../lib/python3.X/... not inside site-packages, and frozen modules.
_STDLIB = re.compile(r"(?:^|/)lib/python3(?:\.\d+)?/(?!.*(?:site|dist)-packages/)|^<frozen |^<string>$")
# jax counts files ending in _test.py as the user's wherever they are (its include rule).
_USER_ALWAYS = re.compile(r"_test\.py$")
# A frame chain longer than this is cut (jax keeps 100 by default: jax_traceback_in_locations_limit).
_MAX_DEPTH = 1000


@dataclass(frozen=True)
class Frame:
    """One stack frame: ``file:line`` in ``function`` (None when the text does not name it)."""

    file: str
    line: int
    column: int = 0
    function: str | None = None

    @property
    def source(self) -> str:
        """``file:line`` (just the file when the line is unknown)."""
        return f"{self.file}:{self.line}" if self.line > 0 else self.file


def is_library_file(path: str) -> bool:
    """Whether a frame's file belongs to a library (above) rather than to the user's code.

    Decided on the path's text alone (the dump may come from another machine): a directory
    named like one of ``LIBRARIES`` (a package, in site-packages or a source checkout), or the
    standard library.  A checkout that is itself named ``jax`` reads as a library; the innermost
    frame is shown then (``user_frame``), which for jax's own filtered tracebacks is the user's.
    """
    p = path.replace("\\", "/")
    if _USER_ALWAYS.search(p):
        return False
    if _STDLIB.search(p):
        return True
    parts = p.split("/")
    return any(part in LIBRARIES and (part != _OWN or _own_file(parts[i + 1:]))
               for i, part in enumerate(parts[:-1]))


def _own_file(rest: list[str]) -> bool:
    """Whether ``rest`` (the path below a folder named hlo_passes) is a file of this package."""
    return os.path.isfile(os.path.join(_OWN_DIR, *rest))


def user_frame(frames: Iterable[Frame]) -> Frame | None:
    """The innermost frame (``frames`` innermost first) that is not a library's; the innermost
    frame when all are; None for no frames.  Frames past the one chosen are not read."""
    innermost = None
    for frame in frames:
        if not is_library_file(frame.file):
            return frame
        innermost = innermost or frame
    return innermost


# ---- HLO: the stack-frame tables ---------------------------------------------------

# Ids, lines and columns are int64 in XLA: longer digit strings are not numbers it wrote (and
# int() of thousands of digits raises).
_FIELDS = re.compile(r"(\w+)=(-?\d{1,19})\b")
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _c_string(raw: str) -> str:
    """A string entry (``"..."``, escaped by ``absl::CEscape``: bytes past ASCII in octal, UTF-8)."""
    body = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == '"' else raw
    if "\\" not in body:
        return body
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos:m.start()].encode("utf-8", "surrogateescape")
        octal, hexa, char = m.groups()
        if octal is not None:
            out.append(int(octal, 8) & 0xFF)
        elif hexa is not None:
            out.append(int(hexa, 16))
        else:
            out += _SIMPLE_ESCAPES.get(char, char).encode("utf-8", "surrogateescape")
        pos = m.end()
    out += body[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "replace")


class FrameTable:
    """An HLO module's stack-frame tables: ``stack(id)`` and ``user_frame(id)``.

    The entries stay text until a frame asks for them (a module's tables hold thousands of
    frames; a finding reads a few)."""

    def __init__(self, tables: Sequence[tuple[str, Sequence[tuple[int, str]], Any]]) -> None:
        by_name = {name: dict(entries) for name, entries, _ in tables}
        self._files = by_name.get("FileNames", {})
        self._functions = by_name.get("FunctionNames", {})
        self._locations_raw = by_name.get("FileLocations", {})
        self._frames_raw = by_name.get("StackFrames", {})
        self._locations: dict[int, Frame | None] = {}
        self._frames: dict[int, tuple[int, int] | None] = {}
        self._chosen: dict[int, Frame | None] = {}

    def __bool__(self) -> bool:
        return bool(self._frames_raw)

    def _location(self, i: int) -> Frame | None:
        if i not in self._locations:
            raw = self._locations_raw.get(i)
            f = {k: int(v) for k, v in _FIELDS.findall(raw)} if raw is not None else {}
            file = self._files.get(f.get("file_name_id", 0))
            function = self._functions.get(f.get("function_name_id", 0))
            self._locations[i] = None if file is None else Frame(
                _c_string(file), f.get("line", 0), f.get("column", 0),
                _c_string(function) if function is not None else None)
        return self._locations[i]

    def _frame(self, i: int) -> tuple[int, int] | None:
        """(location id, parent frame id; 0: none) of frame ``i``."""
        if i not in self._frames:
            raw = self._frames_raw.get(i)
            f = {k: int(v) for k, v in _FIELDS.findall(raw)} if raw is not None else None
            self._frames[i] = None if f is None else (f.get("file_location_id", 0), f.get("parent_frame_id", 0) - 1)
        return self._frames[i]

    def _walk(self, frame_id: int) -> Iterator[Frame]:
        """The frames of ``frame_id``, innermost first (a cycle or an unknown id ends it)."""
        seen: set[int] = set()
        while frame_id > 0 and frame_id not in seen and len(seen) < _MAX_DEPTH:
            seen.add(frame_id)
            entry = self._frame(frame_id)
            if entry is None:
                return
            location, frame_id = entry
            frame = self._location(location)
            if frame is not None:
                yield frame

    def stack(self, frame_id: int) -> tuple[Frame, ...]:
        """The frames of ``frame_id``, innermost first."""
        return tuple(self._walk(frame_id))

    def user_frame(self, frame_id: int) -> Frame | None:
        """The frame a finding shows for an op with ``stack_frame_id=frame_id`` (``user_frame``;
        the frames outside it are never decoded)."""
        if frame_id not in self._chosen:
            self._chosen[frame_id] = user_frame(self._walk(frame_id))
        return self._chosen[frame_id]


_TABLES: "weakref.WeakKeyDictionary[Any, FrameTable]" = weakref.WeakKeyDictionary()


def frame_table(module: Any) -> FrameTable:
    """The decoded tables of an HLO module (empty when it has none), decoded once per module."""
    table = _TABLES.get(module)
    if table is None:
        table = FrameTable(module.stack_tables)
        _TABLES[module] = table
    return table


# ---- MLIR: callsite locations ------------------------------------------------------

_STRING = r'"((?:[^"\\]|\\.)*)"'
# A file location, with the name location around it when there is one: ``"f"("file":3:4``.
_MLIR_FRAME = re.compile(rf'(?:{_STRING}\(\s*(?:loc\(\s*)?)?{_STRING}:(\d{{1,19}}):(\d{{1,19}})\b')


def mlir_frames(loc: str, op_name: str | None) -> tuple[Frame, ...]:
    """The frames of an MLIR location (aliases already expanded), innermost first.

    jax names each frame's location after its function (``"f"("file":3:4)``) and wraps the
    whole in the op's name; without tracebacks in locations the op's name wraps the file
    directly, and is then not a function (``op_name``: the outermost name, never taken as one).
    """
    frames = []
    for m in _MLIR_FRAME.finditer(loc):
        name, file, line, column = m.groups()
        function = name if name is not None and name != op_name else None
        frames.append(Frame(file, int(line), int(column), function))
    return tuple(frames)
