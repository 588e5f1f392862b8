"""hlo_passes: graph-rewrite passes over XLA HLO and StableHLO text.

Public API (everything else is private):

* ``parse(text, dialect="auto", validate=False, path=None) -> Module``
* ``parse_file(path, dialect="auto", validate=False) -> Module``
* ``Module``, ``Computation``, ``Instruction``, ``Shape`` — the module graph
* ``ParseError``, ``VerificationError``, ``InvariantError``
* ``run_passes(module, passes=None, rewrite=True, check_invariants=None) -> Result``
* ``lint(module_or_path) -> list[Finding]``, ``Finding`` (= ``Diagnostic``)
* writing a rule: ``Rule`` (base class), ``RuleMeta`` (its code, pass name, summary, help,
  pre-scan markers, message), ``Site``, ``NearMiss``, ``Location``, ``CollectiveCost``,
  ``location_of(instr)``; ``register(rule)``, ``load_plugin("pkg.mod" | "file.py")``,
  ``available_passes()``
* ``jit(fun, *, passes=None, **jax_jit_kwargs)``, ``lint_fn(fun, *args)``,
  ``install(mode="warn")``, ``uninstall()`` — the jax entry points; they
  import jax on first use, so parsing, rewriting and linting never do.
"""
from __future__ import annotations

from ._version import __version__  # noqa: F401
from .errors import InvariantError, ParseError, VerificationError
from .ir import Computation, Instruction, Module, Shape
from .report import CollectiveCost, Location, NearMiss, Site, location_of
from .rule import Rule, RuleMeta
from .sniff import detect_dialect
from .text import parse, parse_file

__all__ = [
    "CollectiveCost",
    "Computation",
    "Diagnostic",
    "Finding",
    "Instruction",
    "InvariantError",
    "Location",
    "Module",
    "NearMiss",
    "ParseError",
    "Rule",
    "RuleMeta",
    "Shape",
    "Site",
    "VerificationError",
    "available_passes",
    "detect_dialect",
    "install",
    "jit",
    "lint",
    "lint_fn",
    "load_plugin",
    "location_of",
    "parse",
    "parse_file",
    "register",
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
from .diagnostics import Diagnostic  # noqa: E402
from .lint import Finding, lint  # noqa: E402
from .passes import available_passes, load_plugin, register, run_passes  # noqa: E402
