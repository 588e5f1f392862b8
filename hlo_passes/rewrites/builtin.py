"""The built-in rules, found rather than listed: every module of ``hlo_passes.rewrites`` whose
name does not start with ``_`` (a module, not a package: ``split`` is the engine MOE001..MOE004
share) is imported and the rule classes it defines (``rule.RuleMeta`` in
``meta``) are made, in the order of their codes (the order ``run_passes`` runs them).

The rule modules register nothing: ``passes`` registers what this finds.  A new built-in rule
is a new module here; nothing else lists it.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from ..rule import rules_in_module

# Modules of this package that hold no rule (this one).
_NOT_RULES = frozenset({"builtin"})


@cache
def builtin_rules() -> tuple[Any, ...]:
    """One instance of each built-in rule, by code; made once per process."""
    package = importlib.import_module(__package__)
    rules = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.ispkg or info.name.startswith("_") or info.name in _NOT_RULES:
            continue
        rules.extend(rules_in_module(importlib.import_module(f"{__package__}.{info.name}")))
    return tuple(sorted(rules, key=lambda r: r.meta.code))
