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

from ._version import __version__  # noqa: F401
from .errors import ParseError, VerificationError
from .ir import Computation, Instruction, Module, Shape
from .sniff import detect_dialect
from .text import parse, parse_file

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
        from . import jax_hook  # deferred: it imports jax (seconds); parsing and linting never do

        return getattr(jax_hook, name)
    raise AttributeError(f"module 'hlo_passes' has no attribute {name!r}")


# Importing the function here makes ``hlo_passes.lint`` the function, not the submodule of that
# name (``from hlo_passes.lint import ...`` still reaches the submodule).
from .lint import Finding, lint  # noqa: E402
from .passes import run_passes  # noqa: E402
