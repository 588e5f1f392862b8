"""A text pre-scan that tells when a module cannot hold a site of a rule (from the markers in its metadata).

Parsing a large module costs far more than searching its text, and most
modules a jit hook sees (helpers, single-device programs, inference steps
without FSDP) have nothing the MoE rules could fuse.  The scan is
conservative: it answers ``False`` only when parsing and running the rules
could not find a site, never the other way round.

Why a substring search is enough: every site of ``moe-gather-fusion`` and
``moe-gradient-fusion`` has at least one chain that *communicates*
(``split.walk.chain_below`` returns no chain unless
``split.cost.CollectiveModel.communicates`` holds for one of its steps, and the
optimized HLO detector starts from a collective).  A communicating step is one of

* one of the rule's collectives (``rule.collectives``): HLO ``all-gather`` /
  ``all-reduce`` / ``reduce-scatter``, MLIR ``*.all_gather`` / ``*.all_reduce``
  / ``*.reduce_scatter``;
* for a rule with ``implicit = True`` (moe-gather-fusion), also a sharding
  change Shardy or GSPMD turns into a collective: ``sdy.sharding_constraint``,
  entering an ``sdy.manual_computation``, or a custom call to ``Sharding``,
  ``SPMDFullToShardShape``, ``SPMDShardToFullShape`` or
  ``xla.sdy.GlobalToLocalShape``.

Each is spelled in the text with one of the rule's markers (an op name or a
custom-call target cannot be written without its letters), so a text with
none of them has no site of that rule.  The markers are deliberately looser than the
rules (``all_reduce`` also matches ``mhlo.all_reduce_start``...): a false
"maybe" only costs the parse that would have happened anyway.

Each rule declares its markers in its metadata (``RuleMeta.markers``); a rule without
(``None``, or a plugin registered without metadata) is always looked at.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..ir import Module
from .registry import available_passes, builtin_names, rule_meta
from ..rule import SHARDING_MARKERS

__all__ = ["BUILTIN_RULES", "MARKERS", "SHARDING_MARKERS", "markers_for", "may_have_sites", "rules_that_may_fire",
           "rules_that_may_fire_in"]

BUILTIN_RULES = builtin_names()


def markers_for(rule: str) -> tuple[str, ...] | None:
    """The spellings a site of ``rule`` needs in the text (its metadata's); None: always look."""
    meta = rule_meta(rule)
    return meta.markers if meta is not None else None


# Every spelling of a communicating step a built-in rule looks for.
MARKERS: tuple[str, ...] = tuple(dict.fromkeys(m for name in sorted(BUILTIN_RULES) for m in markers_for(name) or ()))


def _firing(text: str, passes: Sequence[str] | None) -> Iterator[str]:
    """The rules of ``passes`` (None: every registered rule) that can have a site in ``text``,
    in order, found one after another (each marker looked for once: ``rules_that_may_fire``)."""
    names = list(available_passes()) if passes is None else list(passes)
    found: dict[str, bool] = {}
    for name in names:
        markers = markers_for(name)
        if markers is None:
            yield name
            continue
        for m in markers:
            hit = found.get(m)
            if hit is None:
                hit = found[m] = m in text
            if hit:
                yield name
                break


def rules_that_may_fire(text: str, passes: Sequence[str] | None = None) -> list[str]:
    """The rules of ``passes`` (None: every registered rule) that can have a site in
    ``text``, in order; rules without markers are always kept.

    Each marker is looked for once however many rules declare it (the gather rules share
    theirs, as do the gradient rules), and a rule stops at its first marker found: a text
    without any costs one substring search per distinct marker, a text with a site about
    one (benchmarks/real_text.py measures both against ``str.find``)."""
    return list(_firing(text, passes))


def may_have_sites(text: str, passes: Sequence[str] | None = None) -> bool:
    """False only when no rule in ``passes`` (None: every registered rule) can
    find a site in ``text``; True means "parse and look" (said at the first rule that may)."""
    return next(_firing(text, passes), None) is not None


def rules_that_may_fire_in(module: Module, passes: Sequence[str] | None = None) -> list[str]:
    """``rules_that_may_fire`` for a parsed module, without printing it: the text it was
    parsed from while it is unchanged, else the spellings of its ops (opcode, source op,
    custom-call target), which hold every marker a site needs."""
    text = module.source if not module.changed else _op_spellings(module)
    return rules_that_may_fire(text, passes)


def _op_spellings(module: Module) -> str:
    seen: set[str] = set()
    for instr in module.instructions():
        seen.add(instr.opcode)
        seen.add(instr.source_op)
        if "custom_call_target" in instr.attributes:
            seen.add(str(instr.attributes.raw("custom_call_target") or instr.attributes["custom_call_target"]))
    return "\n".join(sorted(seen))
