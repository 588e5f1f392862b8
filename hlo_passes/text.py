"""The text layer: parse or print a module in either dialect, picking the dialect's parser and printer.

The parsers (``dialects/*/parser.py``) build a ``Module`` and know nothing of printing; the printers
(``dialects/*/printer.py``) know nothing of parsing.  This module, above both, gives each parsed module the
printer of its dialect (``Module.to_text``).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._gc import collector_paused
from .errors import ParseError
from .files import MAX_INPUT_BYTES, read_stream
from .ir import Module
from .dialects.hlo.parser import read_hlo, unknown_constructs as hlo_unknown
from .dialects.stablehlo.parser import read_stablehlo, unknown_ops
from .dialects.hlo.printer import print_hlo
from .dialects.stablehlo.printer import print_module as print_stablehlo
from .sniff import check_text, choose_dialect

PRINTERS: dict[str, Callable[[Module, bool], str]] = {"hlo": print_hlo, "stablehlo": print_stablehlo}


def _with_printer(module: Module) -> Module:
    module.printer = PRINTERS[module.dialect]
    return module


def parse_hlo(text: str, path: str | None = None, validate: bool = False) -> Module:
    """HLO text → ``Module`` (see ``dialects.hlo.parser.read_hlo``), printable."""
    return _with_printer(read_hlo(text, path=path, validate=validate))


def parse_stablehlo(text: str, path: str | None = None, validate: bool = False) -> Module:
    """StableHLO / MLIR text → ``Module`` (see ``dialects.stablehlo.parser.read_stablehlo``), printable."""
    return _with_printer(read_stablehlo(text, path=path, validate=validate))


def parse(text: str, dialect: str = "auto", validate: bool = False, path: str | None = None) -> Module:
    """Parse HLO or StableHLO text into a ``Module``.

    ``dialect="auto"`` reads HLO when the text starts with ``HloModule``, MLIR
    when it starts like MLIR, and otherwise goes by ``path``'s extension
    (``.hlo``, ``.mlir``).  ``validate=True`` also decodes every attribute and
    checks shapes up front.  Bad input raises ``ParseError`` (``path:line:col``)
    and nothing else; so do empty text (``empty input: no module``) and binary
    data.  For HLO, result shapes that break a rule (``Module.verify``'s checks)
    are not bad input: XLA's parser accepts them too.  They are listed in
    ``Module.shape_problems`` with one ``errors.VerificationWarning``.
    """
    if isinstance(text, str):
        check_text(text, path)
    chosen_by = "argument"
    if dialect == "auto":
        dialect, chosen_by = choose_dialect(text, path) if isinstance(text, str) else ("stablehlo", "default")
    if dialect == "hlo":
        return _with_printer(read_hlo(text, path=path, validate=validate))
    if dialect in ("stablehlo", "mlir"):
        try:
            return _with_printer(read_stablehlo(text, path=path, validate=validate))
        except ParseError as err:
            if chosen_by != "default":
                raise
            # Nothing said MLIR: say why it was read as MLIR, so that a broken HLO dump is not a puzzle.
            raise ParseError(f"{err.reason} (read as MLIR: the text does not start with 'HloModule')",
                             path=err.path, line=err.line, column=err.column,
                             source_line=err.source_line) from None
    raise ValueError(f"unknown dialect {dialect!r}: expected 'auto', 'hlo' or 'stablehlo'")


@contextmanager
def parsed_for_one_call(text: str, dialect: str = "auto", path: str | None = None) -> Iterator[Module]:
    """``text`` parsed for one piece of work and dropped after it (the pass inside XLA, one per
    compile; the lint, file by file): the cyclic collector stays paused throughout, nothing is
    promoted to its oldest generation, and the module is released at the end
    (``Module.release``), so it is freed here rather than by a full collection inside some later
    compile.  Nothing may keep the module or its ops past the ``with``."""
    with collector_paused(promote=False):
        module = parse(text, dialect=dialect, path=path)
        try:
            yield module
        finally:
            module.release()


def unknown_constructs(module: Module) -> list[tuple[str, str, int, int]]:
    """(kind, name, line, column) of what a parsed module holds that its parser does not know and
    carried through as text (``validate=False``): HLO opcodes and attribute names, ops of the
    StableHLO, MHLO, CHLO, Shardy and func dialects that these do not define."""
    return hlo_unknown(module) if module.dialect == "hlo" else unknown_ops(module)


def parse_file(path: str | os.PathLike[str], dialect: str = "auto", validate: bool = False, *,
               limit: int | None = None) -> Module:
    """Parse a file; ``ParseError`` messages carry its path.  Read through the bounded reader
    every tool uses (``files.read_stream``): past ``limit`` bytes (default ``files.MAX_INPUT_BYTES``) it is ``InputError``
    (``too-large``); an ``OSError`` (no such file) is the one ``open`` raises."""
    path = os.fspath(path)
    with open(path, "rb") as f:  # bytes: CRLF kept, what is not UTF-8 kept as surrogate escapes
        text = read_stream(f, path, limit=MAX_INPUT_BYTES if limit is None else limit)
    return parse(text, dialect=dialect, validate=validate, path=path)
