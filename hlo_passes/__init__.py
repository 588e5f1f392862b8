"""hlo_passes: graph-rewrite passes over XLA HLO and StableHLO text.

Public API (everything else is private); the signatures below are checked
against the functions by tests/test_api_docs.py.

Text and the module graph (no jax):

* ``parse(text, dialect="auto", validate=False, path=None)`` -> ``Module``
* ``parse_file(path, dialect="auto", validate=False, *, limit=None)`` -> ``Module``
* ``detect_dialect(text)`` -> ``"hlo"`` or ``"stablehlo"``
* ``Module``, ``Computation``, ``Instruction``, ``Shape`` — the module graph
* ``ParseError``, ``VerificationError``, ``InvariantError``

Rewriting and linting (no jax):

* ``run_passes(module, passes=None, *, rewrite=True, copy=True, strict=False, check_invariants=None, platform=None, context=None)``
  -> ``Result`` (``.module``, ``.sites``, ``.near_misses``); ``passes`` are pass names or rule codes
  (``"MOE003"``), None the default set (the opt-in MOE003 and MOE004 run only when named, but by default on an
  optimized module, ``is_scheduled=true``, as inside XLA);
  ``platform``: what each fix is priced for (default a TPU, assumed); ``context``: a ``PassContext``
  (platform, pictures, the GMM kernel the ragged-dots run on) instead
* ``lint(module_or_path, *, select=None, ignore=None, passes=None, platform=None)`` -> ``list[Finding]``;
  ``Finding`` (= ``Diagnostic``); ``platform``: what the cost model prices each fix for (default a TPU)
* writing a rule: ``PatternRule`` (a rule as ``match`` → named checks → ``site`` → ``rewrite``
  through a ``Rewriter``; one driver runs them); ``check(*ids, meaning=None, takes_context=False)`` marks a
  method as a check that returns or raises a ``Refusal`` (``takes_context``: it is also handed the
  pipeline's ``PassContext``); ``Rule`` (the bare base: ``apply``), ``RuleMeta`` (its code, pass name, summary, help,
  pre-scan markers, message, site details, wording), ``Site``, ``SiteDetails`` (a site's typed
  facts; a rule subclasses it for its own), ``Wording`` (how its findings read: what fixing one
  saves, what its pieces are called), ``NearMiss``, ``Location``, ``CollectiveCost``,
  ``location_of(instr, provenance=None)``; ``register(rule)``, ``load_plugin(spec)`` (a dotted
  module name or a ``.py`` file), ``available_passes()``; ``Pipeline`` (passes in order, each to
  its fixed point, the invariant checker, crash isolation: what ``run_passes`` runs)

The jax entry points, loaded on first use (they import jax, which takes seconds; parsing,
rewriting and linting never do; dir(hlo_passes) and help(hlo_passes) list them):

* ``jit(fun=None, *, passes=None, kernel=None, **jit_kwargs)`` — ``jax.jit`` that rewrites the
  program before XLA compiles it, its numbers ``jax.jit``'s (the grouped matmuls stay XLA's);
  ``kernel`` opts in to a GMM kernel that rounds differently (``auto``, ``cpu-ffi``, ``pallas``,
  ``gpu-ffi``)
* ``lint_fn(fun, *args, select=None, ignore=None, **kwargs)`` -> ``list[Finding]`` of ``fun``'s
  lowered program, for a model's unit tests
* ``install(mode="warn", *, platforms=None, passes=None)``, ``uninstall()`` — lint (``"warn"``,
  ``"log"``) or rewrite (``"rewrite"``) every module XLA compiles in this process, as a pass inside
  XLA's pipeline; ``installed_report()`` says what it did (``$HLO_PASSES=rewrite`` does the same
  without code changes: docs/xla-pass.md)
"""
from __future__ import annotations

from ._version import __version__  # noqa: F401
from .errors import InvariantError, ParseError, VerificationError
from .ir import Computation, Instruction, Module, Shape
from .pipeline_driver import Pipeline
from .report import CollectiveCost, Location, NearMiss, Site, SiteDetails, Wording, location_of
from .checks import Refusal
from .ir.rewriter import Rewriter
from .rule import PatternRule, Rule, RuleMeta, check
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
    "PatternRule",
    "Pipeline",
    "Refusal",
    "Rewriter",
    "Rule",
    "RuleMeta",
    "Shape",
    "Site",
    "SiteDetails",
    "VerificationError",
    "Wording",
    "available_passes",
    "check",
    "detect_dialect",
    "install",
    "installed_report",
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
_JAX_ENTRY_POINTS = frozenset({"jit", "lint_fn", "install", "uninstall", "installed_report"})
_XLA_PASS = frozenset({"install", "uninstall", "installed_report"})


def __getattr__(name: str):
    if name in _XLA_PASS:
        from . import xla_pass  # deferred: it imports jax

        return getattr(xla_pass, name)
    if name in _JAX_ENTRY_POINTS:
        from . import jax_hook  # deferred: it imports jax (seconds); parsing and linting never do

        return getattr(jax_hook, name)
    raise AttributeError(f"module 'hlo_passes' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The jax entry points too, so that help(hlo_passes) and completion show them.
    return sorted(set(globals()) | _JAX_ENTRY_POINTS)


# Importing the function here makes ``hlo_passes.lint`` the function, not the submodule of that
# name (``from hlo_passes.lint import ...`` still reaches the submodule).
from .diagnostics import Diagnostic  # noqa: E402
from .lint import Finding, lint  # noqa: E402
from .passes import available_passes, load_plugin, register, run_passes  # noqa: E402
