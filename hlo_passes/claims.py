"""A site's "collectives A -> B" held against the compiled program (issue 47): gradients, gathers.

On a text before optimization (a lowering, a dump before optimizations) a gradient's halves are
reduced one collective each, and MOE002 / MOE004 claim "2 -> 1".  XLA's combiners
(``AllReduceCombiner`` and its siblings) may put both into one op of the compiled program, which
then runs one already: the claim would be false about what runs.  ``hold_claims`` holds each such
claim (``lint.claims_to_hold``) against the compiled program: the text compiled here, once (a CPU
program, where jax is installed and this process has its devices), or the compiled module a caller
already has (``hlo_passes.jit``'s compile of the original).  The compiled module is linted for the
same rules: a site whose halves it reduces in one op (the rule's near miss ``xla-combined`` at the
same source place) becomes that near miss; a site it still shows apart is confirmed; anything else,
and every claim that could not be held (another platform, no jax, too few devices, XLA refusing
the text), says its collectives are as written (``lint.mark_as_written``).  One function for every
entry point, so that they show one record (``diagnostics.record_of``).

A gather site (MOE001, MOE003) is held the same way, counted per source place: a rematerialized
layer (``jax.checkpoint``) gathers its weight's halves again in the text, at the forward's place,
and XLA's common-subexpression elimination may run that copy's gathers once, as the forward's (jax
0.10's XLA:CPU does).  Where the compiled program shows fewer sites at a place than the text, the
text's later ones (the recomputed copies) become near misses ``xla-computed-once``: fusing them saves
nothing XLA runs, and the claim shrinks to the collectives the compiled program runs fewer.

Nothing is imported from jax until a text is to be compiled: the text tools import this module.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from .diagnostics import Diagnostic, record_of, rule_id
from .ir import Module, is_partitioned
from .lint import claims_to_hold, compiled_program, lint_module, mark_as_written
from .report import NearMiss, Site, Written
from .text import parsed_for_one_call

__all__ = ["COMBINED", "COMPUTED_ONCE", "hold_claims", "hold_against"]

# The check a gradient rule names halves XLA's combiner already reduces in one op by
# (``rewrites.split.hidden_reductions.combined_refusal``).
COMBINED = "xla-combined"
# The check a site of the text names where the compiled program runs its collectives once already,
# as another site's at the same place (a recomputed copy XLA's CSE merged with the original).
COMPUTED_ONCE = "xla-computed-once"
# Said where the text names no platform: its program may be anything's.
_NO_PLATFORM = "the text does not say it runs on cpu (--platform cpu lets it be compiled here)"


def hold_claims(module: Module, sites: list[Site], misses: list[NearMiss], platform: str | None) -> None:
    """``lint.ClaimCheck`` that compiles: the claims of ``module``'s sites (``lint.claims_to_hold``)
    held against its compiled program, compiled here when that can be done (``_compile_here``),
    else marked as written with why.  Edits ``sites`` and ``misses``."""
    pending = claims_to_hold(module, sites)
    if not pending:
        return
    compiled, why = _compile_here(module, platform)
    if compiled is None:
        mark_as_written(pending, why)
        return
    hold_against(compiled, pending, sites, misses, platform, what="text")


def hold_against(compiled_text: str, pending: Sequence[Site], sites: list[Site], misses: list[NearMiss],
                 platform: str | None, *, what: str = "text", name: str = "<compiled>") -> list[NearMiss]:
    """Hold the claims of ``pending`` (sites of ``sites``) against ``compiled_text`` (XLA's optimized
    module of the same program), per rule and source place: a site whose reductions it runs in one op
    already is taken out of ``sites`` and its near miss ``xla-combined`` added to ``misses``; where it
    shows sites apart, as many of the text's as it shows stand, checked, and the text's others (copies
    XLA runs once, ``COMPUTED_ONCE``) become near misses alike.  A site it shows neither way at its
    place stands where it shows one of the same rule and collectives at a place no site of the text
    has (XLA moved the op the site is placed at: a dequantization's gathers of the quantized halves),
    else is marked as written.  ``what``: what the claim was read off (``text``, ``lowered text``).
    The near misses made, in the order of ``pending``."""
    if not pending:
        return []
    rules = sorted({s.rule for s in pending})
    with parsed_for_one_call(compiled_text, "hlo", name) as module:
        found = lint_module(module, passes=rules, select=[rule_id(r) for r in rules], explain=True,
                            platform=platform, claims=compiled_program)
    combined: dict[tuple[str | None, str | None], list[str]] = {}
    apart: dict[tuple[str | None, str | None], list[Diagnostic]] = {}
    for f in found:
        key = (f.pass_name, f.record.source if f.record is not None else f.source)
        if f.is_note and f.details.get("check") == COMBINED:
            combined.setdefault(key, []).append(str(f.details["reason"]))
        elif not f.is_note and not f.is_error and f.record is not None:
            apart.setdefault(key, []).append(f)
    keys = [(site.rule, record_of(site).source) for site in pending]
    # The compiled program's sites at places no site of the text has, per rule.
    elsewhere: dict[str | None, list[Diagnostic]] = {}
    for key, shown in apart.items():
        if key not in keys:
            elsewhere.setdefault(key[0], []).extend(shown)
    made = []
    held: dict[tuple[str | None, str | None], int] = {}
    for site, key in zip(pending, keys):
        if key in combined and key not in apart:
            reason = f"{combined[key][0]} (fusing them changes nothing XLA runs)"
        elif key in apart and key not in combined:
            held[key] = held.get(key, 0) + 1
            if held[key] <= len(apart[key]):
                _held_as_compiled(site, apart[key][held[key] - 1])
                continue
            n = len(apart[key])
            reason = (f"it runs {n} such site{'s' * (n != 1)} at this place, the {what} has {held[key]}: XLA runs "
                      "this one's collectives once already, as another's (a recomputed copy, merged by its "
                      "common-subexpression elimination), and fusing them changes nothing XLA runs")
        elif key not in combined and (there := _same_claim(site, elsewhere.get(site.rule, []))) is not None:
            elsewhere[site.rule].remove(there)
            _held_as_compiled(site, there)  # the compiled program runs them apart, elsewhere
            continue
        else:
            mark_as_written([site], "the compiled program shows its collectives neither apart nor in one op at "
                                    f"{key[1] or 'its place'}")
            continue
        sites.remove(site)
        check = COMBINED if key in combined else COMPUTED_ONCE
        miss = NearMiss(site.rule, check, f"collectives {site.before.count} -> {site.after.count} in the {what}, "
                        f"not in the compiled program: {reason}", site.location)
        misses.append(miss)
        made.append(miss)
    return made


def _same_claim(site: Site, shown: list[Diagnostic]) -> Diagnostic | None:
    """The first of the compiled program's sites ``shown`` whose collectives are ``site``'s."""
    return next((f for f in shown if f.record is not None
                 and f.record.collectives == (site.before.count, site.after.count)), None)


def _held_as_compiled(site: Site, compiled: Diagnostic) -> None:
    """``site`` of the text, held against ``compiled`` (the compiled program's record of it): its
    collectives are what runs, and its measure is the compiled program's, so that every entry point
    shows one record (issue 47).  The text's copies are not what a device copies: a text before
    partitioning slices the weight's global view (the compiled program, each device's shard), and
    XLA fuses the slices and joins a text copies (a dequantized half's concatenation) into the ops
    that read them.  So the bytes, the price and the verdict are the compiled site's, and its form
    and source place where XLA moved the op the site is placed at (a dequantization's gathers of
    the quantized halves).  Not where the compiled program's fix is one the text cannot write (the
    kept GMMs' reductions as one combined op of optimized HLO, ``combined``): there the text's own
    fix, and its price, stand."""
    site.details.collectives_as_written = None
    record = compiled.record
    if record is None or compiled.details.get("combined"):
        return
    site.bytes_saved = record.bytes_saved
    site.details.price = compiled.details.get("price", site.details.price)
    site.details.pays = record.pays
    shown = record_of(site)
    if (shown.form, shown.source) != (record.form, record.source):
        at = site.shown_at
        site.written = Written(record.form, replace(at, source=record.source, function=compiled.source_function))


def _compile_here(module: Module, platform: str | None) -> tuple[str | None, str]:
    """(XLA's optimized text of ``module`` compiled by this process's jax, ``""``), or (None, why it
    cannot be): only a CPU program (the platform every jax has), with jax installed and as many CPU
    devices as the module runs on."""
    if platform is None:
        return None, _NO_PLATFORM
    if platform != "cpu":
        return None, f"a {platform} program is not compiled here"
    text = getattr(module, "source", None)
    if not text:
        return None, "the module's text is not at hand"
    try:
        # Deferred, both: the text tools import this module and do without jax (runtime imports it).
        import jax
        from . import runtime  # deferred: it imports jax
    except ImportError as err:
        return None, f"jax is not installed ({err})"
    replicas, partitions = module.declared_devices
    wanted = replicas * partitions
    try:
        have = jax.devices("cpu")
    except RuntimeError as err:
        return None, f"this process's jax has no CPU backend ({err})"
    if wanted > len(have):
        return None, (f"the module runs on {wanted} devices, this process's jax has {len(have)} CPU devices "
                      f"(XLA_FLAGS=--xla_force_host_platform_device_count={wanted} gives it {wanted})")
    try:
        # A dump after SPMD partitioning (before the combiners) is one device's program.
        partitioned = is_partitioned(module)
        exe = runtime.compile_text(text, dialect=module.dialect, partitioned=partitioned,
                                   **({"num_devices": wanted} if partitioned else {"devices": have[:wanted]}))
        return exe.compiled_text, ""
    except Exception as err:  # noqa: BLE001 - XLA refusing the text leaves the claim as written, said why
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        return None, f"XLA could not compile it here ({type(err).__name__}{': ' + first if first else ''})"


def host_devices_flag(environ: dict[str, str] | None = None, count: int = 8) -> None:
    """Give this process's jax ``count`` CPU devices (``--xla_force_host_platform_device_count``)
    unless ``XLA_FLAGS`` names a number already, so that a text tool can compile a CPU program of
    that many devices to hold its claims (read once, when jax makes its CPU backend: a console
    script calls it first)."""
    env = os.environ if environ is None else environ
    flags = env.get("XLA_FLAGS", "")
    if "--xla_force_host_platform_device_count" not in flags:
        env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()
