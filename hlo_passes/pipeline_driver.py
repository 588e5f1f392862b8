"""The pipeline: ordered passes run to a fixed point, checked after each change, isolated on a crash.

``Pipeline(passes, ...)`` is what every face runs rules through (``passes.run_passes``, the lint,
``hlo-rewrite``, the jit hook), as XLA's ``HloPassPipeline`` is: the passes in their order, each
repeated until it rewrites nothing more (a pass still finding sites after ``max_rounds`` rounds
is looping on its own output: a bug), the verifier after every pass that changed the module
(``check_invariants``, on in the test suite through ``$HLO_PASSES_CHECK_INVARIANTS``), and a
pass that raises refused on this module rather than stopping the others (``strict`` re-raises).

Every pass has one interface (``pass_interface.Pass``): ``run(module, rewriter, context) ->
Changes``.  The pipeline makes each round's rewriter (a ``DryRunRewriter``, which refuses every
change, when only reporting) and hands it, with the pipeline's ``context`` (the platform sites
are priced for, whether they get pictures: ``pass_interface.PassContext``), to the pass; what it
changed is read from that rewriter's journal, and held to what the pass claims when the
invariant checks run (as XLA's ``VerifyPassChangedReport`` holds a pass's "changed").  This
module is the only place outside the IR that makes a ``Rewriter``: the pipeline driver.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .errors import InvariantError, ParseError
from .ir import Computation, Module
from .pass_interface import Changes, Pass, PassContext, as_pass
from .report import NearMiss, Site, internal_error
from .ir.rewriter import Change, DryRunRewriter, Rewriter
from .text import parse
from .ir.verify import verify_module

__all__ = ["CHECK_INVARIANTS_ENV", "MAX_ROUNDS", "VERIFY", "Changes", "InvariantCheck", "Pass", "PassContext",
           "Pipeline", "Result", "ScopedCheck", "as_pass"]

# Set to 1 (the test suite does), every pipeline checks the module after each rewriting pass.
CHECK_INVARIANTS_ENV = "HLO_PASSES_CHECK_INVARIANTS"

# A pass that keeps finding sites after this many rounds is looping on its own output.
MAX_ROUNDS = 8


# An invariant check: the problems it finds in a module, one line each.
InvariantCheck = Callable[[Module], Iterable[str]]


@dataclass(frozen=True)
class ScopedCheck:
    """An invariant check that can look at some computations of a module only: after a pass, at
    those its rewriter touched (as XLA's verifier after a pass looks at what changed); the
    verifier is one (``VERIFY``).  A plain ``InvariantCheck`` looks at the whole module."""

    check: Callable[[Module, list[Computation] | None], Iterable[str]]

    def __call__(self, module: Module, computations: list[Computation] | None = None) -> Iterable[str]:
        return self.check(module, computations)


# The verifier, scoped to what a pass touched.
VERIFY = ScopedCheck(verify_module)


@dataclass
class Result:
    """What a pipeline did: the new module, the sites and the near misses."""

    module: Module
    sites: list[Site] = field(default_factory=list)
    near_misses: list[NearMiss] = field(default_factory=list)
    # What the passes changed, from their rewriters' journals, in order (``rewriter.Change``).
    journal: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        # An older plugin, whose changes are not journaled, says what it changed by its sites.
        return bool(self.journal) or any(s.rewritten for s in self.sites)


def invariants_checked_by_default() -> bool:
    """Whether a pipeline that is not told runs the invariant checker (``$HLO_PASSES_CHECK_INVARIANTS``)."""
    return os.environ.get(CHECK_INVARIANTS_ENV) == "1"


def _round(p: Pass, work: Module, rewrite: bool, context: PassContext) -> tuple[Changes, Rewriter]:
    """One round of ``p``: what it did, and the rewriter it did it through (a dry run when not
    ``rewrite``)."""
    rw = (Rewriter if rewrite else DryRunRewriter)(work, p.tag)
    return p.run(work, rw, context), rw


@dataclass(frozen=True)
class Pipeline:
    """``passes`` in order, each to its fixed point.

    ``rewrite=False`` only reports (the lint): each pass runs once and must leave the module as
    it is.  ``strict``: a pass that raises re-raises (tests, the fuzz harness, the jit hook's
    fall-back) instead of becoming an ``internal-error`` near miss.  ``check_invariants``: the
    ``invariant_checks`` (the verifier, and any a caller adds, as XLA's pipelines take invariant
    checkers) after every pass that changed the module, raising ``InvariantError`` naming the
    pass for a problem the input did not have (None: ``$HLO_PASSES_CHECK_INVARIANTS``).
    ``context``: what the passes run for (the pricing platform, site pictures), handed to each
    pass with its rewriter.  ``passes`` may hold older plugins with only ``apply``: they are
    adapted once, here (``as_pass``).
    """

    passes: Sequence[Pass]
    rewrite: bool = True
    strict: bool = False
    check_invariants: bool | None = None
    max_rounds: int = MAX_ROUNDS
    invariant_checks: Sequence[InvariantCheck | ScopedCheck] = (VERIFY,)
    context: PassContext = field(default_factory=PassContext)

    def __post_init__(self) -> None:
        object.__setattr__(self, "passes", tuple(as_pass(p) for p in self.passes))

    def run(self, module: Module, *, copy: bool = True) -> Result:
        """Run the passes over a copy of ``module`` (``module.clone()``: the caller's stays as it
        is); ``copy=False`` works on ``module`` itself, for a caller that parsed it only for this.

        A pass that raises (a bug, not bad input: a ``ParseError`` from an attribute decoded late,
        and a ``MemoryError``, still propagate) is refused on this module: a near miss with check
        ``internal-error`` naming the pass, the instruction it was looking at and where it raised;
        the other passes still run, on the module as it was before (a half-done rewrite is never
        returned; with ``copy=False`` the module passed in may be the half-done one, and
        ``Result.module`` a fresh parse of its text)."""
        # A strict pipeline re-raises a crash: it never needs a fresh copy (and a changed module
        # handed over with copy=False is not printed for one).
        fresh = _fresh_copies(module, copy) if copy or not self.strict else _never_needed
        work = fresh() if copy else module
        refused: dict[str, NearMiss] = {}
        check = self.check_invariants if self.check_invariants is not None else invariants_checked_by_default()
        checker = _InvariantChecker(work, self.invariant_checks) if check and self.rewrite else None
        while True:
            try:
                return self._run_once(work, [p for p in self.passes if p.name not in refused], refused, checker)
            except _PassCrashed as crash:
                # The pass may have stopped half-way through a rewrite: start again from the
                # input, without it.
                refused[crash.miss.rule] = crash.miss
                work = fresh()

    def _run_once(self, work: Module, passes: list[Pass], refused: dict[str, NearMiss],
                  checker: _InvariantChecker | None) -> Result:
        result = Result(work)
        result.near_misses.extend(refused.values())
        for p in passes:
            self._to_fixed_point(p, work, result, checker)
        return result

    def _to_fixed_point(self, p: Pass, work: Module, result: Result, checker: _InvariantChecker | None) -> None:
        for _ in range(self.max_rounds):
            try:
                changes, rw = _round(p, work, self.rewrite, self.context)
            except (ParseError, MemoryError):
                # Bad input found late (a lazily decoded attribute), or a module too big for
                # this process: the caller's to report, not a defect of the pass.
                raise
            except Exception as err:
                if self.strict:
                    raise
                miss = internal_error(p.name, err, work)
                if work.changed:
                    raise _PassCrashed(miss) from err
                result.near_misses.append(miss)
                return
            result.sites.extend(changes.sites)
            claimed = changes.claims_change
            changed = rw.changed if changes.journaled else claimed
            result.journal.extend(rw.journal)
            if checker is not None and changed:
                # What the rewriter touched is all a pass can have made wrong; a pass that
                # changes the module without it (an older plugin) is checked whole.
                checker(p.name, work, rw.touched if changes.journaled else None)
            if checker is not None and changes.journaled and claimed != changed:
                # A pass's claim held to what it did (XLA's VerifyPassChangedReport).
                raise InvariantError(p.name, [
                    f"the sites say {'a' if claimed else 'no'} rewrite, the rewriter's journal has "
                    f"{len(rw.journal)} change(s)"])
            if not self.rewrite or not changed or not p.repeats:
                result.near_misses.extend(changes.near_misses)
                return
        looping = RuntimeError(f"pass {p.name} did not reach a fixed point in {self.max_rounds} rounds")
        if self.strict:
            raise looping
        raise _PassCrashed(internal_error(p.name, looping, work))


def _fresh_copies(module: Module, copy: bool) -> Callable[[], Module]:
    """What makes a new working module equal to ``module`` as it is now: a clone, or (for
    ``copy=False``, where ``module`` itself is worked on) a parse of its text taken now."""
    if copy:
        return module.clone
    # An unchanged module prints as its source: read it rather than print (the lint never prints).
    text = module.to_text() if module.changed else module.source

    def reparse() -> Module:
        return parse(text, dialect=module.dialect, path=module.path)
    return reparse


def _never_needed() -> Module:
    raise AssertionError("a strict pipeline re-raises a pass's crash; it never starts again")


class _InvariantChecker:
    """The invariant checks after each pass that changed the module; what the input already had
    is not the pass's.  A ``ScopedCheck`` (the verifier) looks only at the computations the pass
    touched; others at the whole module."""

    def __init__(self, module: Module, checks: Sequence[InvariantCheck | ScopedCheck]) -> None:
        self.checks = tuple(checks)
        self.before = [frozenset(check(module)) for check in self.checks]

    def __call__(self, pass_name: str, module: Module, touched: list[Computation] | None = None) -> None:
        new = [p for check, had in zip(self.checks, self.before)
               for p in (check(module, touched) if isinstance(check, ScopedCheck) else check(module))
               if p not in had]
        if new:
            raise InvariantError(pass_name, new)


class _PassCrashed(Exception):
    def __init__(self, miss: NearMiss) -> None:
        super().__init__(miss.reason)
        self.miss = miss
