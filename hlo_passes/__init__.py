"""hlo_passes: graph-rewrite passes over XLA HLO and StableHLO text.

Public API (everything else is private):

* ``parse(text, dialect="auto", validate=False, path=None) -> Module``
* ``parse_file(path, dialect="auto", validate=False) -> Module``
* ``Module``, ``Computation``, ``Instruction``, ``Shape`` — the module graph
* ``ParseError``, ``VerificationError``
"""
from __future__ import annotations

import os

from .errors import ParseError, VerificationError
from .ir import Computation, Instruction, Module, Shape

__all__ = [
    "Computation",
    "Instruction",
    "Module",
    "ParseError",
    "Shape",
    "VerificationError",
    "detect_dialect",
    "parse",
    "parse_file",
]

__version__ = "0.1.0"


def detect_dialect(text: str) -> str:
    """``"hlo"`` for HLO text (starts with ``HloModule``), else ``"stablehlo"`` (MLIR)."""
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
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
    return "hlo" if text.startswith("HloModule", i) else "stablehlo"


def parse(text: str, dialect: str = "auto", validate: bool = False, path: str | None = None) -> Module:
    """Parse HLO or StableHLO text into a ``Module``.

    ``validate=True`` also decodes every attribute and checks shapes up
    front.  Bad input raises ``ParseError`` (``path:line:col``) and nothing else.
    """
    if dialect == "auto":
        dialect = detect_dialect(text)
    if dialect == "hlo":
        from .parser.hlo import parse_hlo

        return parse_hlo(text, path=path, validate=validate)
    if dialect in ("stablehlo", "mlir"):
        from .parser.stablehlo import parse_stablehlo

        return parse_stablehlo(text, path=path, validate=validate)
    raise ValueError(f"unknown dialect {dialect!r}: expected 'auto', 'hlo' or 'stablehlo'")


def parse_file(path: str | os.PathLike[str], dialect: str = "auto", validate: bool = False) -> Module:
    """Parse a file; ``ParseError`` messages carry its path."""
    path = os.fspath(path)
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    return parse(text, dialect=dialect, validate=validate, path=path)
