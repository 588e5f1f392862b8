"""Identical modules in many places: the dump folders of the N hosts of one job.

Every host of a multi-host job dumps the same modules; linting N copies of a
folder must report each finding once, not N times.  Two files are copies when
their texts are equal once locations are removed — HLO ``metadata={...}``
(op names, source files and lines: absolute paths may differ per host) and
the stack-frame tables jax >= 0.12 prints (``FileNames`` ... ``StackFrames``),
MLIR ``loc(...)`` with the ``#loc = ...`` definitions — and nothing else: a
copy that differs in any instruction, attribute or shape is a module of its own.

Nothing here imports jax or the parser: it is text.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = ["group_copies", "module_key", "without_locations"]

_STRING = r'"(?:[^"\\]|\\.)*"'
# HLO: a string (kept whole, it may hold braces) or the start of a metadata attribute.
_HLO_SCAN = re.compile(rf"{_STRING}|,[ \t]*metadata=\{{")
# MLIR: a string, an inline location, or a line defining a location alias.
_MLIR_SCAN = re.compile(rf"{_STRING}|[ \t]*\bloc\(|^#loc[\w.$-]*[ \t]*=[^\n]*\n?", re.M)
# jax >= 0.12: the stack-frame tables after the HloModule line (file names are absolute paths).
_HLO_FRAME_TABLES = re.compile(r"^(?:FileNames|FunctionNames|FileLocations|StackFrames)[ \t]*\n(?:\d+[ \t][^\n]*\n)*",
                               re.M)
_BRACES = re.compile(rf"{_STRING}|[{{}}]")
_PARENS = re.compile(rf"{_STRING}|[()]")


def _balanced_end(text: str, start: int, tokens: re.Pattern[str], opening: str) -> int:
    """End of the bracketed group whose opening bracket is at or after ``start`` (strings skipped)."""
    depth = 0
    for m in tokens.finditer(text, start):
        tok = m.group()
        if tok == opening:
            depth += 1
        elif len(tok) == 1:
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)  # unbalanced: the rest is the location


def _strip(text: str, scan: re.Pattern[str], tokens: re.Pattern[str], opening: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        m = scan.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        tok = m.group()
        if tok.startswith('"'):
            out.append(text[pos:m.end()])
            pos = m.end()
            continue
        out.append(text[pos:m.start()])
        if tok.startswith("#"):  # a whole #loc definition line
            pos = m.end()
        else:
            pos = _balanced_end(text, m.end() - 1, tokens, opening)


def without_locations(text: str) -> str:
    """``text`` without its source locations (HLO op metadata, MLIR ``loc``)."""
    if text.lstrip().startswith("HloModule"):
        return _strip(_HLO_FRAME_TABLES.sub("", text), _HLO_SCAN, _BRACES, "{")
    return _strip(text, _MLIR_SCAN, _PARENS, "(")


def module_key(text: str) -> str:
    """What copies of one module share: the SHA-256 of its text without locations."""
    return hashlib.sha256(without_locations(text).encode("utf-8", "surrogateescape")).hexdigest()


def _key_of_file(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return module_key(f.read())
    except (OSError, MemoryError):
        return None  # linted on its own, which reports why it cannot be read


def group_copies(files: Iterable[str]) -> list[list[str]]:
    """``files`` grouped into copies of one module: each group sorted, the groups in the
    order their first (sorted) path comes in ``files``."""
    files = list(files)
    by_key: dict[str, list[str]] = {}
    groups: list[list[str]] = []
    for path in files:
        key = _key_of_file(path)
        if key is None:
            groups.append([path])
            continue
        if key not in by_key:
            by_key[key] = []
            groups.append(by_key[key])
        by_key[key].append(path)
    for group in groups:
        group.sort()
    position = {p: i for i, p in enumerate(files)}
    groups.sort(key=lambda g: position[g[0]])
    return groups
