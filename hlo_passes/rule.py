"""The rule model: what a rule says about itself, and the shape of a rule's work.

A rule is a class with a ``meta`` (``RuleMeta``: its code, pass name, summary, help, the text
markers the pre-scan may look for, how a finding reads) and a ``run(module, rewriter, context)``
(``pass_interface.Pass``: the one interface of a pipeline stage) that returns its sites and near
misses (an older plugin's ``apply(module, *, rewrite)`` still runs).  A ``PatternRule`` writes its work as the four steps
every rule has — ``match`` (the candidates), named legality checks (``@check``: each returns or
raises a ``Refusal`` under a stable check id, or passes), ``site`` (the report of a legal
candidate) and ``rewrite`` (through the ``Rewriter`` it is given) — and one driver here runs
them: refusals become near misses at the place they name, a fix that does not pay is reported
and not made, a rewrite runs as one batch, a crash is pinned to the candidate it happened at.  Everything that lists, pre-scans, lints or describes
rules reads this: the registry (``passes``), the pre-scan, the lint and its output formats, the
console scripts and the JSON schema.  Adding a rule is one module that defines such a class
(under ``hlo_passes/rewrites/`` for a built-in rule, found by ``rewrites.builtin``; anywhere
for a plugin, loaded with ``passes.load_plugin`` / ``--plugin``) and its tests.
"""
from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

from .checks import Refusal, declare, meaning
from .ir import Instruction, Module
from .ir.op_table import OPS, is_collective
from .report import (PLAIN_WORDING, NearMiss, Site, SiteDetails, SitePicture, Wording, as_written, location_of,
                     note_instruction, template_problem, with_users_source)
from .ir.rewriter import Rewriter
from .pass_interface import Changes, PassContext

__all__ = [
    "Check",
    "PatternRule",
    "Refusal",
    "Rule",
    "RuleMeta",
    "SHARDING_MARKERS",
    "SiteDetails",
    "Wording",
    "check",
    "collective_markers",
    "rules_in_module",
]

# Custom-call targets and op names of the sharding changes that Shardy or GSPMD turn into
# collectives (a rule that counts them as communication needs one of these in the text).
SHARDING_MARKERS: tuple[str, ...] = (
    "sharding_constraint",
    "manual_computation",
    "Sharding",  # custom_call_target="Sharding" / @Sharding
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "GlobalToLocalShape",
)

# A rule that says nothing else: its summary and the form it matched.
PLAIN_MESSAGE = "{summary} (form {form})"

# The fields every message template may use (``RuleMeta.message``), besides those of the rule's
# site details (``RuleMeta.details``); a template naming any other is refused when the rule is
# defined, not when its first finding is printed.
MESSAGE_FIELDS = frozenset({"summary", "verb", "form", "before", "after", "bytes_saved", "pass_name", "code"})

# A code as ruff and flake8 spell them: letters, then three or more digits (MOE001); the JSON
# schema holds a finding's rule to the same pattern.
CODE_PATTERN = "[A-Z]{1,8}[0-9]{3,}"
_CODE = re.compile(CODE_PATTERN)
_PASS_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
# The CamelCase name SARIF shows.
_CAMEL = re.compile(r"[A-Z][A-Za-z0-9]*")


def collective_markers(*opcodes: str) -> tuple[str, ...]:
    """Both spellings of each collective, as the op table gives them: HLO's opcode
    (``all-gather``) and the name of its MLIR op without the dialect (``all_gather``)."""
    markers: list[str] = []
    for opcode in opcodes:
        if not is_collective(opcode):
            raise ValueError(f"collective_markers: {opcode!r} is no collective in the op table")
        for name in (opcode, *(m.partition(".")[2] for m in OPS[opcode].mlir)):
            if name not in markers:
                markers.append(name)
    return tuple(markers)


@dataclass(frozen=True)
class RuleMeta:
    """What a rule says about itself.

    ``markers``: substrings one of which a module's text must hold for the rule to find a
    site there (the pre-scan skips the parse otherwise); None means "always look", the
    safe answer for a rule that cannot tell.  ``message``: a ``str.format`` template of a
    finding's one-line message over ``MESSAGE_FIELDS`` and the fields of ``details`` (the
    ``report.SiteDetails`` subclass the rule's sites carry); ``verb``: what the rule says happens
    to the pieces it finds (``gathered``, ``reduced``); ``wording``: how its findings read
    around the message (what fixing one saves, what its pieces are called; ``report.Wording``).
    """

    code: str
    pass_name: str
    name: str  # CamelCase, the rule's name in SARIF
    summary: str  # one line, lower case: "unfused MoE weight gather"
    help: str = ""  # what to do about a finding, for SARIF's help; the summary when empty
    description: str = ""  # the pass listing's line; the summary when empty
    markers: tuple[str, ...] | None = None
    verb: str = "found"
    message: str = PLAIN_MESSAGE
    # Run only when named (``passes=[...]``, ``--passes``); the lint reports it always.
    opt_in: bool = False
    # An opt-in rule that runs by default on an optimized module (the pass inside XLA, hlo_passes.jit's
    # optimized-HLO stage, hlo-rewrite on an optimized dump): there its rewrite keeps the GMMs and
    # joins only what XLA moves (the shards before one gather, the reductions in one combined op), so
    # the peak memory that keeps it opt-in before optimization (the fused weight and the fused GMM's
    # output live at once) is not paid there (docs/rules.md, "Defaults").
    compiled_default: bool = False
    # Why the rule cannot act where the grouped matmuls stay XLA's own ragged-dot (the drop-in's
    # default, ``hlo_passes.jit``'s ``kernel="xla"``), said to a user who names it there; empty: it
    # acts with any kernel.
    needs_kernel: str = ""
    # Whether what its sites fuse XLA may already run otherwise in the compiled program: its combiners
    # merge a gradient's reductions (the rule names such halves, check ``xla-combined``; MOE002 and
    # MOE004 share it: ``rewrites.split.hidden_reductions.combined_refusal``), its CSE runs a
    # rematerialized gather once (MOE001, MOE003).  Every entry point holds such a rule's claims
    # against XLA's compiled program (``hlo_passes.claims``).
    combinable: bool = False
    details: type[SiteDetails] = SiteDetails
    wording: Wording = PLAIN_WORDING

    def __post_init__(self) -> None:
        problems = []
        if not _CODE.fullmatch(self.code):
            problems.append(f"code {self.code!r} is not letters then three digits (like MOE001)")
        if not _PASS_NAME.fullmatch(self.pass_name):
            problems.append(f"pass name {self.pass_name!r} is not lower-case words joined by '-'")
        if not _CAMEL.fullmatch(self.name):
            problems.append(f"name {self.name!r} is not CamelCase")
        if not self.summary or "\n" in self.summary:
            problems.append("the summary must be one non-empty line")
        if "\n" in self.needs_kernel:
            problems.append("needs_kernel must be one line")
        if self.markers is not None and (isinstance(self.markers, str) or not all(self.markers)):
            problems.append("markers must be a tuple of non-empty strings (or None: always look)")
        if not (isinstance(self.details, type) and issubclass(self.details, SiteDetails)):
            problems.append("details must be report.SiteDetails or a subclass of it")
        elif (problem := template_problem(self.message, MESSAGE_FIELDS | self.details.template_fields())):
            problems.append(f"message {problem}")
        if not isinstance(self.wording, Wording):
            problems.append("wording must be a report.Wording")
        if problems:
            raise ValueError(f"rule {self.code or self.pass_name!r}: " + "; ".join(problems))
        if not self.help:
            object.__setattr__(self, "help", self.summary)  # frozen: set once, here

    @property
    def id(self) -> str:
        """The code (what ``lint.RuleInfo`` called ``id``)."""
        return self.code

    @property
    def listing(self) -> str:
        return self.description or self.summary

    def site_message(self, site: Any) -> str:
        """The one-line message of a finding at ``site`` (a ``report.Site``)."""
        return self.message.format_map(message_fields(self, site))


def message_fields(meta: RuleMeta, site: Any) -> dict[str, Any]:
    """What a message template can say about ``site``: its costs and form, and its details' fields."""
    return {
        **site.details.message_fields(),
        "summary": meta.summary, "verb": meta.verb, "code": meta.code,
        # The form as the program has it (``Site.written``: the one every entry point shows).
        "form": site.written.form if getattr(site, "written", None) is not None else site.form,
        "pass_name": meta.pass_name, "before": site.before.count, "after": site.after.count,
        "bytes_saved": f"{int(site.bytes_saved):,}",
    }


class Rule(ABC):
    """A base for rules: ``name`` and ``description`` come from ``meta``.

    Subclasses set ``meta`` and define ``run`` (a pipeline stage, ``pass_interface.Pass``:
    ``PatternRule`` is the driver that does) or, as an older plugin, ``apply``; the registry
    needs nothing else.  ``apply`` must leave the module as it is when ``rewrite`` is False (the
    lint gives built-in rules the module itself; a plugin's rule gets a copy, so a slip there
    costs only time).
    """

    meta: ClassVar[RuleMeta]

    @property
    def name(self) -> str:
        return self.meta.pass_name

    @property
    def description(self) -> str:
        return self.meta.listing

    @property
    def tag(self) -> str | None:
        """The ops a rule creates carry its pass name (``ir.tag_created``)."""
        return self.name

    # A rule runs again after a round that rewrote, to its fixed point.
    repeats = True

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        """One round of the rule as a pipeline stage.  This default is an older rule's: its
        ``apply`` changes the module itself (not through ``rewriter``), so its changes are
        not journaled and its sites say what it rewrote."""
        sites, misses = self.apply(module, rewrite=not rewriter.dry_run)
        return Changes(sites, misses, journaled=False)

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        """The sites (rewritten when ``rewrite``) and near misses of this rule in ``module`` (an
        older rule's whole work; a rule that defines ``run`` needs none)."""
        raise NotImplementedError(f"rule {type(self).__name__} defines neither run nor apply")

    @classmethod
    def defines_its_work(cls) -> bool:
        """Whether the class says what it does: ``run`` or ``apply`` of its own."""
        return cls.run is not Rule.run or cls.apply is not Rule.apply


# ---- match → checks → site → rewrite -------------------------------------------------
M = TypeVar("M")  # what a rule's match finds: a candidate site, in the rule's own type
# A check: ``(self, candidate)``, or ``(self, candidate, context)`` for one declared
# ``takes_context`` (the declaration says which; the driver reads no signature).
CheckFn = Callable[..., "Refusal | None"]
F = TypeVar("F", bound=CheckFn)
_CHECK_IDS = "_hlo_passes_check_ids"
_TAKES_CONTEXT = "_hlo_passes_check_takes_context"


@dataclass(frozen=True)
class Check:
    """A named legality check of a ``PatternRule``: the method ``name``, the check ids it may
    refuse with (``ids``; empty: any id of the check table, for a check that hands the question
    to a strategy with ids of its own), the function, and whether it is handed the pipeline's
    context too (``takes_context``)."""

    name: str
    ids: tuple[str, ...]
    run: CheckFn
    takes_context: bool = False


def check(*ids: str, meaning: str | None = None, takes_context: bool = False) -> Callable[[F], F]:
    """Mark a method ``(self, candidate) -> Refusal | None`` as a legality check of its rule.

    ``ids``: the check ids it refuses with (``checks.CHECKS``); the driver holds it to them.
    ``meaning``: a plugin's own id (one) with its one-line meaning, added to the table.  The
    checks run in the order the class (and its bases, first) define them; a check may return
    its refusal or raise it from deeper down.  ``takes_context``: the method is ``(self,
    candidate, context)``, handed the pipeline's ``PassContext`` — for a check whose answer
    rests on what the program runs on (the row-mask rule's: the GMM kernel), which reaches it
    there and nowhere else.
    """
    if meaning is not None:
        if len(ids) != 1:
            raise ValueError("check(..., meaning=...) declares one check id")
        declare(ids[0], meaning)

    def mark(fn: F) -> F:
        setattr(fn, _CHECK_IDS, ids)
        setattr(fn, _TAKES_CONTEXT, takes_context)
        return fn
    return mark


class PatternRule(Rule, Generic[M]):
    """A rule as match → named checks → site → rewrite, run by ``run`` (the one driver).

    A subclass defines ``match`` (the candidates in a module, found before anything changes),
    its checks (methods marked ``@check``), ``site`` (what a candidate that passed every check
    costs and saves: a ``report.Site``) and ``rewrite`` (the fix, through the rewriter; called
    only for a site that pays and is not held back), and may say why a site is reported but not
    rewritten (``held_back``).  ``anchor`` names the op a candidate is at: a candidate whose
    anchor an earlier rewrite removed is skipped, and a crash is reported there.
    """

    checks: ClassVar[tuple[Check, ...]] = ()
    # Forms of optimized HLO where XLA fused away the op the site's pieces meet at: a site of one
    # is recorded as the program has it too (``report.as_written``), so that every entry point
    # shows one record of it.
    fused_away_forms: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Check] = {}
        for klass in reversed(cls.__mro__):
            for name, member in vars(klass).items():
                ids = getattr(member, _CHECK_IDS, None)
                if ids is not None:
                    # An override keeps its base's place.
                    found[name] = Check(name, ids, member, getattr(member, _TAKES_CONTEXT, False))
                elif name in found and callable(member):
                    del found[name]  # overridden by a method that is no check
        for c in found.values():
            unknown = [i for i in c.ids if meaning(i) is None]
            if unknown:
                raise TypeError(f"check {cls.__name__}.{c.name} refuses with ids the check table does not "
                                f"hold: {unknown} (add them to hlo_passes/checks.py, or declare a plugin's "
                                "own with check(id, meaning=...))")
        cls.checks = tuple(found.values())

    @abstractmethod
    def match(self, module: Module) -> Iterable[M]:
        """The candidates in ``module`` (read in full before the first rewrite)."""

    @abstractmethod
    def anchor(self, candidate: M) -> Instruction:
        """The op ``candidate`` is at (where a site is reported and a crash is pinned)."""

    @abstractmethod
    def site(self, candidate: M) -> Site:
        """The report of a candidate that passed every check (``rewritten`` is set by the driver)."""

    @abstractmethod
    def rewrite(self, rw: Rewriter, candidate: M) -> None:
        """Fix the site, through ``rw`` only."""

    def site_for(self, candidate: M, context: PassContext) -> Site:
        """What the driver calls for a site's report: ``site``; a rule whose report depends on
        what the pipeline runs for (the platform: the fused-FFN rule's kernel) overrides this."""
        return self.site(candidate)

    def rewrite_for(self, rw: Rewriter, candidate: M, context: PassContext) -> None:
        """What the driver calls to fix a site: ``rewrite``; a rule whose fix depends on what
        the pipeline runs for (the platform it emits a kernel for) overrides this."""
        self.rewrite(rw, candidate)

    def picture(self, candidate: M, site: Site) -> SitePicture | None:
        """The site as a picture (``report.SitePicture``), drawn when the pipeline's context asks
        for pictures; None: the rule draws none."""
        return None

    def held_back(self, candidate: M, site: Site) -> str | None:
        """Why a legal site is reported and not rewritten (None: it is rewritten); by default, a
        fix that does not pay by the cost model (the price the driver put on ``site.details``)."""
        if site.details.pays is False:
            return f"the fix does not pay by the cost model: it {site.details.price}"
        return None

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        """The sites and near misses in ``module``, rewritten through ``rewriter`` (the
        pipeline's, for this rule; a dry run when it only reports), priced and drawn as
        ``context`` says."""
        if rewriter.module is not module:
            raise ValueError(f"{self.name}: {rewriter!r} is another module's")
        sites: list[Site] = []
        misses: list[NearMiss] = []
        for candidate in list(self.match(module)):
            anchor = self.anchor(candidate)
            if anchor.computation is None:  # removed by an earlier site's rewrite
                continue
            try:
                sites.append(self._run(rewriter, candidate, context))
            except Refusal as refusal:
                misses.append(NearMiss(self.name, refusal.check, refusal.reason,
                                       location_of(refusal.instr, refusal.provenance)))
            except Exception as err:
                # A bug: the pipeline turns it into an internal-error near miss at this site.
                note_instruction(err, anchor)
                raise
        return Changes(sites, misses)

    def refusal(self, candidate: M, context: PassContext | None = None) -> Refusal | None:
        """The first check that refuses ``candidate`` (in order), or None: it is legal.
        ``context``: what the pipeline runs for, handed to the checks that take it (None: the
        default ``PassContext()``: the assumed platform, no GMM kernel named)."""
        context = context if context is not None else PassContext()
        for c in self.checks:
            try:
                refusal = c.run(self, candidate, context) if c.takes_context else c.run(self, candidate)
            except Refusal as raised:
                refusal = raised
            if refusal is None:
                continue
            if (c.ids and refusal.check not in c.ids) or meaning(refusal.check) is None:
                raise TypeError(f"check {type(self).__name__}.{c.name} refused as {refusal.check!r}, "
                                f"which it does not declare ({', '.join(c.ids) or 'the check table'})")
            return refusal
        return None

    def _run(self, rw: Rewriter, candidate: M, context: PassContext) -> Site:
        refusal = self.refusal(candidate, context)
        if refusal is not None:
            raise refusal
        site = self.site_for(candidate, context)
        if context.pictures:
            try:  # a side product: drawing a site must never stop its rewrite
                site.picture = self.picture(candidate, site)
            except Exception as err:
                site.details.picture_error = f"{type(err).__name__}: {err}"
        if not site.location.source and site.location.line > 0:
            # One place per site, whoever shows it (hlo_passes.jit, hlo-lint, hlo-rewrite, the pass
            # inside XLA): an op XLA made, without a line of its own, is placed at the user's line
            # that uses what it makes -- found here, before the rewrite replaces the op.
            site.location = with_users_source(rw.module, site.location)
        if site.form in self.fused_away_forms:
            site.written = as_written(rw.module, site)  # before the rewrite removes the pieces' ops
        # Priced on the platform the pipeline runs for (its context): a fix that does not pay is
        # reported, never made (the lint shows it as a near miss).
        price = site.price(context.platform)
        site.details.pays = price.pays
        site.details.price = str(price)
        site.details.priced_for = price.platform
        site.details.platform_assumed = context.platform_assumed
        why = self.held_back(candidate, site)
        if why:
            site.details.not_rewritten = why
        site.rewritten = not rw.dry_run and not why
        if site.rewritten:
            with rw.batch():
                self.rewrite_for(rw, candidate, context)
        return site


def rules_in_module(module: ModuleType) -> list[Any]:
    """An instance of each rule class ``module`` defines (not those it imports), by code.

    A rule class is one whose ``meta`` is a ``RuleMeta``; ``TypeError`` for one without an
    ``run`` or ``apply`` or that cannot be made without arguments (a rule left out in silence would
    read as a clean lint).
    """
    found = []
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module.__name__ or not isinstance(getattr(cls, "meta", None), RuleMeta):
            continue
        if inspect.isabstract(cls) or not _says_its_work(cls):
            raise TypeError(f"rule class {cls.__name__} of {module.__name__} has no apply(module, *, rewrite) "
                            "(nor run(module, rewriter, context))")
        try:
            found.append(cls())
        except TypeError as err:
            raise TypeError(f"rule class {cls.__name__} of {module.__name__} cannot be made "
                            f"without arguments: {err}") from None
    return sorted(found, key=lambda r: r.meta.code)


def metadata_of(rule: Any) -> RuleMeta | None:
    """A registered rule's metadata; None for a pass registered without (an older plugin)."""
    meta = getattr(rule, "meta", None)
    return meta if isinstance(meta, RuleMeta) else None


def _says_its_work(cls: type) -> bool:
    """Whether a rule class has the work a pipeline runs: ``run`` or (an older rule) ``apply``
    of its own, not only ``Rule``'s."""
    if issubclass(cls, Rule):
        return cls.defines_its_work()
    return callable(getattr(cls, "run", None)) or callable(getattr(cls, "apply", None))
