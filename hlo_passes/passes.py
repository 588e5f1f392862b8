"""The pass registry and the pipeline that runs rules to a fixed point."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .errors import ParseError
from .ir import Module
from .report import NearMiss, Site, internal_error
from .rewrites import builtin
from .text import parse


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
    return dict(_REGISTRY)


for _rule in builtin.RULES:
    register(_rule)


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
               copy: bool = True, strict: bool = False) -> Result:
    """Run rules over a copy of ``module`` until none finds anything more.

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
    """
    rules = _select(passes)
    if copy:
        def fresh() -> Module:
            return module.clone()
    else:
        text = module.to_text()  # free for an unchanged module: its source

        def fresh() -> Module:
            return parse(text, dialect=module.dialect, path=module.path)
    work = fresh() if copy else module
    refused: dict[str, NearMiss] = {}
    while True:
        try:
            return _run_rules(work, [r for r in rules if r.name not in refused], rewrite, strict, refused)
        except _RuleCrashed as crash:
            # The rule may have stopped half-way through a rewrite: start again
            # from the input, without it.
            refused[crash.miss.rule] = crash.miss
            work = fresh()


class _RuleCrashed(Exception):
    def __init__(self, miss: NearMiss) -> None:
        super().__init__(miss.reason)
        self.miss = miss


def _run_rules(work: Module, rules: list[Rule], rewrite: bool, strict: bool,
               refused: dict[str, NearMiss]) -> Result:
    result = Result(work)
    result.near_misses.extend(refused.values())
    for rule in rules:
        for _ in range(_MAX_ROUNDS):
            try:
                sites, misses = rule.apply(work, rewrite=rewrite)
            except (ParseError, MemoryError):
                # Bad input found late (a lazily decoded attribute), or a module too big for
                # this process: the caller's to report, not a defect of the rule.
                raise
            except Exception as err:
                if strict:
                    raise
                miss = internal_error(rule.name, err, work)
                if work.changed:
                    raise _RuleCrashed(miss) from err
                result.near_misses.append(miss)
                break
            result.sites.extend(sites)
            if not rewrite or not any(s.rewritten for s in sites):
                result.near_misses.extend(misses)
                break
        else:
            err = RuntimeError(f"pass {rule.name} did not reach a fixed point in {_MAX_ROUNDS} rounds")
            if strict:
                raise err
            raise _RuleCrashed(internal_error(rule.name, err, work))
    return result
