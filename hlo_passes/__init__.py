"""hlo_passes: graph-rewrite passes over XLA HLO and StableHLO text.

Public API (everything else is private):

* ``parse(text, dialect="auto", validate=False, path=None) -> Module``
* ``parse_file(path, dialect="auto", validate=False) -> Module``
* ``Module``, ``Computation``, ``Instruction``, ``Shape`` — the module graph
* ``ParseError``, ``VerificationError``
* ``run_passes(module, passes=None, rewrite=True) -> Result``
* ``lint(module_or_path) -> list[Finding]``, ``Finding``
* ``jit(fun, *, passes=None, **jax_jit_kwargs)``, ``lint_fn(fun, *args)``,
  ``install(mode="warn")``, ``uninstall()`` — the jax entry points; they
  import jax on first use, so parsing, rewriting and linting never do.
"""
from __future__ import annotations

import os

from .errors import ParseError, VerificationError
from .ir import Computation, Instruction, Module, Shape
from .sniff import check_text, choose_dialect, detect_dialect

__all__ = [
    "Computation",
    "Finding",
    "Instruction",
    "Module",
    "ParseError",
    "Shape",
    "VerificationError",
    "detect_dialect",
    "install",
    "jit",
    "lint",
    "lint_fn",
    "parse",
    "parse_file",
    "run_passes",
    "uninstall",
]

# jax costs seconds to import; only the jax entry points need it.
_JAX_ENTRY_POINTS = frozenset({"jit", "lint_fn", "install", "uninstall"})


def __getattr__(name: str):
    if name in _JAX_ENTRY_POINTS:
        from . import jax_hook

        return getattr(jax_hook, name)
    raise AttributeError(f"module 'hlo_passes' has no attribute {name!r}")

__version__ = "0.1.0"


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
        from .parser.hlo import parse_hlo

        return parse_hlo(text, path=path, validate=validate)
    if dialect in ("stablehlo", "mlir"):
        from .parser.stablehlo import parse_stablehlo

        try:
            return parse_stablehlo(text, path=path, validate=validate)
        except ParseError as err:
            if chosen_by != "default":
                raise
            # Nothing said MLIR: say why it was read as MLIR, so that a broken HLO dump is not a puzzle.
            raise ParseError(f"{err.reason} (read as MLIR: the text does not start with 'HloModule')",
                             path=err.path, line=err.line, column=err.column,
                             source_line=err.source_line) from None
    raise ValueError(f"unknown dialect {dialect!r}: expected 'auto', 'hlo' or 'stablehlo'")


def parse_file(path: str | os.PathLike[str], dialect: str = "auto", validate: bool = False) -> Module:
    """Parse a file; ``ParseError`` messages carry its path."""
    path = os.fspath(path)
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:  # CRLF kept
        text = f.read()
    return parse(text, dialect=dialect, validate=validate, path=path)


# At the end: lint.py and passes.py import from this module.  Importing the
# function here also makes ``hlo_passes.lint`` the function, not the submodule of that name
# (``from hlo_passes.lint import ...`` still reaches the submodule).
from .lint import Finding, lint  # noqa: E402
from .passes import run_passes  # noqa: E402
