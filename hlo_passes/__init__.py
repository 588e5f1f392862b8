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
    For HLO, result shapes that break a rule (``Module.verify``'s checks) are
    not bad input: XLA's parser accepts them too.  They are listed in
    ``Module.shape_problems`` with one ``errors.VerificationWarning``.
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
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:  # CRLF kept
        text = f.read()
    return parse(text, dialect=dialect, validate=validate, path=path)


# At the end: lint.py and passes.py import from this module.  Importing the
# function here also makes ``hlo_passes.lint`` the function, not the submodule of that name
# (``from hlo_passes.lint import ...`` still reaches the submodule).
from .lint import Finding, lint  # noqa: E402
from .passes import run_passes  # noqa: E402
