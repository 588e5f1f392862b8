"""The pass registry, and the pipeline of registered passes that ``run_passes`` runs.

The registry holds the built-in rules (found by ``rewrites.builtin``, in the order of their
codes) and whatever plugins add: ``load_plugin`` imports a module or a ``.py`` file and
registers each rule class it defines (``rule.RuleMeta`` in ``meta``); ``register`` takes one
rule object (also one without metadata, which then reports under its pass name).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from ..ir import Module
from ..pipeline_driver import CHECK_INVARIANTS_ENV, Pass, PassContext, Pipeline, Result
from ..rewrites.builtin import builtin_rules
from ..rule import RuleMeta, metadata_of, rules_in_module

__all__ = ["CHECK_INVARIANTS_ENV", "Pipeline", "Result", "Rule", "available_passes", "builtin_names",
           "default_passes", "load_plugin", "loaded_plugins", "opt_in_passes", "pipeline", "register",
           "resolve_passes", "rule_meta", "run_passes", "unregister"]


class Rule(Pass, Protocol):
    """What the registry runs (a pipeline's ``Pass`` with a line for the pass listing).
    ``rule.Rule`` is the base class that also carries the metadata."""

    @property
    def description(self) -> str: ...


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    """Add ``rule`` (replacing a rule of its pass name); ``ValueError`` when its code is
    another registered rule's, or it has no pass name: two rules must not report as one."""
    name = getattr(rule, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"a rule needs a pass name (its 'name'): {rule!r} has none")
    meta = metadata_of(rule)
    if meta is not None:
        if meta.pass_name != name:
            raise ValueError(f"rule {meta.code}: its name {name!r} is not its metadata's pass {meta.pass_name!r}")
        taken = [n for n, r in _REGISTRY.items() if n != name and (m := metadata_of(r)) and m.code == meta.code]
        if taken:
            raise ValueError(f"rule code {meta.code} of {name} is already the code of {taken[0]}")
    _REGISTRY[name] = rule
    return rule


def unregister(name: str) -> Rule:
    """Remove a registered pass (plugins, tests); returns it."""
    return _REGISTRY.pop(name)


def available_passes() -> dict[str, Rule]:
    return dict(_REGISTRY)


def rule_meta(name: str) -> RuleMeta | None:
    """The metadata of registered pass ``name``; None for an unknown pass or one without."""
    rule = _REGISTRY.get(name)
    return metadata_of(rule) if rule is not None else None


def builtin_names() -> frozenset[str]:
    """The pass names of the built-in rules."""
    return frozenset(r.name for r in builtin_rules())


# The plugins loaded in this process, in order (lint's worker processes load them again).
_PLUGINS: list[str] = []


def loaded_plugins() -> tuple[str, ...]:
    return tuple(_PLUGINS)


def load_plugin(spec: str) -> list[str]:
    """Import a plugin (a dotted module name, or a path to a ``.py`` file) and register the
    rules it defines; the pass names registered.  A module may also call ``register`` itself
    (or change nothing in the registry).  Whatever fails (no such file or module, an error
    in it, a rule refused by ``register``) raises, naming the plugin."""
    if spec.endswith(".py") or os.sep in spec:
        path = Path(spec)
        if not path.is_file():
            raise FileNotFoundError(f"plugin file not found: {spec}")
        name = f"hlo_passes_plugin_{path.stem}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot import plugin file {spec}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(spec)
    rules = rules_in_module(module)
    for rule in rules:
        register(rule)
    if spec not in _PLUGINS:
        _PLUGINS.append(spec)
    return [r.name for r in rules]


for _rule in builtin_rules():
    register(_rule)


def _runs_by_default(rule: Rule, compiled: bool) -> bool:
    meta = metadata_of(rule)
    if meta is None or not meta.opt_in:
        return True
    return compiled and meta.compiled_default


def default_passes(*, compiled: bool = False) -> list[str]:
    """What runs when no pass is named: every registered pass but the opt-in ones
    (``RuleMeta.opt_in``: run only when named).  ``compiled``: on an optimized module (XLA's
    own, inside its pipeline or dumped), where the opt-in rules marked ``compiled_default`` run too."""
    return [n for n, r in available_passes().items() if _runs_by_default(r, compiled)]


def opt_in_passes(*, compiled: bool = False) -> list[str]:
    """The registered passes that run only when named (on an optimized module: ``compiled``)."""
    defaults = set(default_passes(compiled=compiled))
    return [n for n in available_passes() if n not in defaults]


def resolve_passes(passes: Iterable[str]) -> list[str]:
    """The pass names ``passes`` stand for: each a pass name (``moe-pair-gather-fusion``) or
    its rule code (``MOE003``, any case); ``ValueError`` naming what is unknown and what is."""
    registry = available_passes()
    by_code = {m.code.upper(): n for n in registry if (m := rule_meta(n)) is not None}
    names, unknown = [], []
    for given in passes:
        name = given if given in registry else by_code.get(given.upper())
        if name is None:
            unknown.append(given)
        else:
            names.append(name)
    if unknown:
        known = ", ".join(f"{by_code_name} ({code})" for code, by_code_name in sorted(by_code.items()))
        others = [n for n in registry if n not in by_code.values()]
        raise ValueError(f"unknown pass{'es' * (len(unknown) > 1)} {', '.join(map(repr, unknown))}; "
                         f"available: {', '.join([known, *others]) if known else ', '.join(others)}")
    return names


def _select(passes: Iterable[str] | None) -> list[Rule]:
    registry = available_passes()
    names = default_passes() if passes is None else resolve_passes(passes)
    return [registry[n] for n in names]


def pipeline(passes: Iterable[str] | None = None, *, rewrite: bool = True, strict: bool = False,
             check_invariants: bool | None = None, platform: str | None = None,
             context: PassContext | None = None) -> Pipeline:
    """The pipeline of the registered passes ``passes`` (names or rule codes; None: the default
    set, ``default_passes()``), in the order given (the default set: the registry's, by code),
    run for ``context`` (None: sites priced for ``platform``, ``PassContext.for_platform``)."""
    return Pipeline(tuple(_select(passes)), rewrite=rewrite, strict=strict, check_invariants=check_invariants,
                    context=context if context is not None else PassContext.for_platform(platform))


def run_passes(module: Module, passes: Sequence[str] | None = None, *, rewrite: bool = True,
               copy: bool = True, strict: bool = False, check_invariants: bool | None = None,
               platform: str | None = None, context: PassContext | None = None) -> Result:
    """Run rules over a copy of ``module`` until none finds anything more: ``pipeline(passes,
    ...).run(module, copy=copy)`` (``pipeline.Pipeline`` says how).

    The caller's module is left untouched: the rules work on ``module.clone()``
    (no printing and parsing).  ``rewrite=False`` only reports (sites are marked not
    rewritten), which is what the lint does.  ``copy=False`` works on
    ``module`` itself, for a caller that parsed it only for this (saves the copy).

    A rule that raises (a bug, not bad input: a ``ParseError`` from an
    attribute decoded late still propagates) is refused on this module: a
    near miss with check ``internal-error`` naming the rule, the instruction
    it was looking at and where it raised; the other rules still run, on the
    module as it was before (a half-done rewrite is never returned; with
    ``copy=False`` the module passed in may be the half-done one, and
    ``Result.module`` a fresh parse of its text).  ``strict=True`` re-raises
    instead, so tests and the fuzz harness see the bug.

    ``platform`` (None: the default, assumed) is the platform sites are priced for (and the
    fused-FFN rule emits its kernel for); ``context`` says that and more (``PassContext``).

    ``check_invariants`` (default: ``$HLO_PASSES_CHECK_INVARIANTS`` is ``1``) runs the
    verifier after every round that rewrote, as XLA's invariant checker does, and raises
    ``InvariantError`` naming the pass when it finds a problem the input did not have.

    ``passes`` None: the default set of what ``module`` is (an optimized module's is the pass
    inside XLA's, ``default_passes(compiled=True)``), as ``hlo-rewrite`` runs it.
    """
    if passes is None:
        passes = default_passes(compiled=module.scheduled)
    return pipeline(passes, rewrite=rewrite, strict=strict, check_invariants=check_invariants, platform=platform,
                    context=context).run(module, copy=copy)
