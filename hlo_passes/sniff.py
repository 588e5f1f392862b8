"""What a text is before a parser sees it: empty, binary, HLO or MLIR.

``parse()`` asks here first, so that a dump step that wrote nothing fails
instead of passing as an empty module, a binary file is refused without its
bytes reaching the terminal, and an error message speaks the dialect the
file name or the text suggests (a ``.hlo`` file gets HLO's message, not
MLIR's).
"""
from __future__ import annotations

import os
import re

from .errors import ParseError

# C0 controls other than tab, newline, vertical tab, form feed and carriage
# return, and DEL: no HLO or MLIR printer writes them raw (strings escape them).
_BINARY = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_BINARY_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
# How MLIR text starts: a module, a function, an attribute or type alias, a generic op.
_MLIR_START = re.compile(r'(module\b|func\.func\b|#|!|"|\{-#|%)')
_HLO_SUFFIXES = frozenset({".hlo"})
_MLIR_SUFFIXES = frozenset({".mlir", ".stablehlo"})


def first_token_offset(text: str) -> int:
    """Where the text starts once whitespace and ``//`` / ``/* */`` comments are skipped
    (``len(text)`` if nothing else is there)."""
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n\f\v":
            i += 1
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        break
    return min(i, n)


def detect_dialect(text: str) -> str:
    """``"hlo"`` for HLO text (starts with ``HloModule``), else ``"stablehlo"`` (MLIR)."""
    return "hlo" if text.startswith("HloModule", first_token_offset(text)) else "stablehlo"


def choose_dialect(text: str, path: str | None) -> tuple[str, str]:
    """The dialect to parse ``text`` as, and what said so: ``"content"``, ``"extension"``
    or ``"default"`` (nothing did: MLIR, the form jax lowers to)."""
    start = first_token_offset(text)
    if text.startswith("HloModule", start):
        return "hlo", "content"
    if _MLIR_START.match(text, start):
        return "stablehlo", "content"
    suffix = os.path.splitext(path)[1].lower() if path else ""
    if suffix in _HLO_SUFFIXES:
        return "hlo", "extension"
    if suffix in _MLIR_SUFFIXES:
        return "stablehlo", "extension"
    return "stablehlo", "default"


# Control characters are looked for in the head only (binary formats start with them);
# NUL everywhere: a cheap scan, and what a binary file or a truncated dump always holds.
_HEAD = 1 << 16


def binary_offset(data: str | bytes, *, head: bool = True) -> int | None:
    """Index of the first character (or byte) no module text contains, or None: NUL anywhere,
    other control characters in the first 64 KiB (``head=False``: NUL only, for later chunks)."""
    control: re.Match[bytes] | re.Match[str] | None
    if isinstance(data, bytes):
        nul = data.find(b"\0")
        control = _BINARY_BYTES.search(data, 0, _HEAD) if head else None
    else:
        nul = data.find("\0")
        control = _BINARY.search(data, 0, _HEAD) if head else None
    found = [nul] if nul >= 0 else []
    if control:
        found.append(control.start())
    return min(found) if found else None


def binary_error(data: bytes, offset: int, path: str | None) -> ParseError:
    """``not a text module (binary data at byte N)``, at the line and column of that byte;
    the line itself is not shown (it would put raw bytes on the terminal)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return ParseError(f"not a text module (binary data at byte {offset})", path=path, line=line, column=column)


# Surrogates ``surrogateescape`` did not make (it makes U+DC80..U+DCFF, one per undecodable byte).
_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _as_read(text: str) -> bytes:
    """The bytes ``text`` was decoded from (``surrogateescape``); a lone surrogate no decoder
    made (a ``str`` built in Python) is encoded as itself, so that offsets never raise."""
    out, pos = [], 0
    for m in _LONE_SURROGATE.finditer(text):
        out += [text[pos:m.start()].encode("utf-8", "surrogateescape"), m.group().encode("utf-8", "surrogatepass")]
        pos = m.end()
    out.append(text[pos:].encode("utf-8", "surrogateescape"))
    return b"".join(out)


def check_text(text: str, path: str | None) -> None:
    """``ParseError`` for text that holds no module: empty (or only whitespace and
    comments), or binary."""
    offset = binary_offset(text)
    if offset is not None:
        head = _as_read(text[:offset])
        raise binary_error(head, len(head), path)
    if first_token_offset(text) >= len(text):
        raise ParseError("empty input: no module", path=path, line=1, column=1)
