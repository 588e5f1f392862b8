"""The rule model: what a rule says about itself, in one place.

A rule is a class with a ``meta`` (``RuleMeta``: its code, pass name, summary, help, the text
markers the pre-scan may look for, how a finding reads) and an ``apply(module, *, rewrite)``
that returns its sites and near misses.  Everything that lists, pre-scans, lints or describes
rules reads this: the registry (``passes``), the pre-scan, the lint and its output formats, the
console scripts and the JSON schema.  Adding a rule is one module that defines such a class
(under ``hlo_passes/rewrites/`` for a built-in rule, found by ``rewrites.builtin``; anywhere
for a plugin, loaded with ``passes.load_plugin`` / ``--plugin``) and its tests.
"""
from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from .ir import Module
from .ir.op_table import OPS, is_collective
from .report import PLAIN_WORDING, NearMiss, Site, SiteDetails, Wording, template_problem

__all__ = [
    "Rule",
    "RuleMeta",
    "SHARDING_MARKERS",
    "SiteDetails",
    "Wording",
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

# A code as ruff and flake8 spell them: letters, then three or more digits (MOE001).
_CODE = re.compile(r"[A-Z]{1,8}[0-9]{3,}")
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
        "summary": meta.summary, "verb": meta.verb, "form": site.form, "code": meta.code,
        "pass_name": meta.pass_name, "before": site.before.count, "after": site.after.count,
        "bytes_saved": f"{int(site.bytes_saved):,}",
    }


class Rule(ABC):
    """A base for rules: ``name`` and ``description`` come from ``meta``.

    Subclasses set ``meta`` and define ``apply``; the registry needs nothing else.  ``apply``
    must leave the module as it is when ``rewrite`` is False (the lint gives built-in rules
    the module itself; a plugin's rule gets a copy, so a slip there costs only time).
    """

    meta: ClassVar[RuleMeta]

    @property
    def name(self) -> str:
        return self.meta.pass_name

    @property
    def description(self) -> str:
        return self.meta.listing

    @abstractmethod
    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        """The sites (rewritten when ``rewrite``) and near misses of this rule in ``module``."""


def rules_in_module(module: ModuleType) -> list[Any]:
    """An instance of each rule class ``module`` defines (not those it imports), by code.

    A rule class is one whose ``meta`` is a ``RuleMeta``; ``TypeError`` for one without an
    ``apply`` or that cannot be made without arguments (a rule left out in silence would
    read as a clean lint).
    """
    found = []
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module.__name__ or not isinstance(getattr(cls, "meta", None), RuleMeta):
            continue
        if inspect.isabstract(cls) or not callable(getattr(cls, "apply", None)):
            raise TypeError(f"rule class {cls.__name__} of {module.__name__} has no apply(module, *, rewrite)")
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
