"""The pass registry and the pipeline that runs rules to a fixed point."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .ir import Module
from .report import NearMiss, Site


class Rule(Protocol):
    """A rewrite rule: finds sites, checks legality, rewrites (or only reports)."""

    name: str
    description: str

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        ...


@dataclass
class Result:
    """What ``run_passes`` did: the new module, the sites and the near misses."""

    module: Module
    sites: list[Site] = field(default_factory=list)
    near_misses: list[NearMiss] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(s.rewritten for s in self.sites)


_REGISTRY: dict[str, Rule] = {}

# A rule that keeps finding sites after this many rounds is looping on its own output.
_MAX_ROUNDS = 8


def register(rule: Rule) -> Rule:
    _REGISTRY[rule.name] = rule
    return rule


def unregister(name: str) -> Rule:
    """Remove a registered pass (plugins, tests); returns it."""
    return _REGISTRY.pop(name)


def available_passes() -> dict[str, Rule]:
    _load_builtin_rules()
    return dict(_REGISTRY)


def _load_builtin_rules() -> None:
    from .rewrites import moe_gather_fusion, moe_gradient_fusion  # noqa: F401  (they register themselves)


def _select(passes: Iterable[str] | None) -> list[Rule]:
    registry = available_passes()
    if passes is None:
        return list(registry.values())
    chosen = []
    for name in passes:
        if name not in registry:
            raise ValueError(f"unknown pass {name!r}; available: {', '.join(sorted(registry))}")
        chosen.append(registry[name])
    return chosen


def run_passes(module: Module, passes: Sequence[str] | None = None, *, rewrite: bool = True,
               copy: bool = True) -> Result:
    """Run rules over a copy of ``module`` until none finds anything more.

    The caller's module is left untouched: the rules work on a fresh parse
    of its text.  ``rewrite=False`` only reports (sites are marked not
    rewritten), which is what the lint does.  ``copy=False`` works on
    ``module`` itself, for a caller that parsed it only for this (saves a parse).
    """
    from . import parse

    work = parse(module.to_text(), dialect=module.dialect, path=module.path) if copy else module
    result = Result(work)
    for rule in _select(passes):
        for _ in range(_MAX_ROUNDS):
            sites, misses = rule.apply(work, rewrite=rewrite)
            result.sites.extend(sites)
            if not rewrite or not any(s.rewritten for s in sites):
                result.near_misses.extend(misses)
                break
        else:
            raise RuntimeError(f"pass {rule.name} did not reach a fixed point in {_MAX_ROUNDS} rounds")
    return result
