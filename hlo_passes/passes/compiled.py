"""The one engine call of the pass inside XLA's pipeline (``hlo_passes.xla_pass``).

XLA hands that pass an optimized module (partitioned, layouts assigned,
fused); what the rules can rewrite there is the engine's business, what the
hook does around it (pre-filter, proto conversion, agreement between
processes, reporting) is the face's.  Keeping the engine side in this one
function lets either change without the other.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..ir import Module
from ..report import NearMiss, Site
from ..pass_interface import PassContext
from ..rewrites.split.opening import FuseAgain
from ..text import parsed_for_one_call
from ..pipeline_driver import Pipeline
from .registry import default_passes, opt_in_passes, pipeline, rule_meta, run_passes


def rule_id(pass_name: str) -> str:
    """The code a pass reports under (``MOE003``), else its name."""
    meta = rule_meta(pass_name)
    return meta.code if meta is not None else pass_name


def passes_inside_xla(passes: Sequence[str] | None) -> list[str]:
    """The passes run on an optimized module: those named, else its default set
    (``default_passes(compiled=True)``; XLA hands the pass its module before scheduling, so
    ``Module.scheduled`` cannot tell which set is meant)."""
    return default_passes(compiled=True) if passes is None else list(passes)


def passes_key(passes: Sequence[str] | None) -> str:
    """The passes inside XLA as a compile's cache key names them (the default set sorted: one key
    whatever order the registry holds it in)."""
    return ",".join(sorted(passes_inside_xla(None)) if passes is None else passes)


def opt_in_sites(module: Module, context: PassContext | None = None) -> dict[str, list[Site]]:
    """The sites the opt-in passes would rewrite in the optimized module ``module`` (where their fix
    pays on the platform of ``context``), by pass name: what a run of the default set leaves to a
    setting that names them."""
    found: dict[str, list[Site]] = {}
    for site in pipeline(opt_in_passes(compiled=True), rewrite=False, context=context).run(module).sites:
        if site.pays:
            found.setdefault(site.rule, []).append(site)
    return found


def opt_in_hint(found: dict[str, list[Site]], name: str) -> str | None:
    """One line naming the setting under which the opt-in passes of ``found`` would act."""
    if not found:
        return None
    would = ", ".join(f"{rule_id(n)} {n} (opt-in) would rewrite {len(s)} site{'s' * (len(s) != 1)}"
                      + (f" (first at {s[0].shown_at.source})" if s[0].shown_at.source else "")
                      for n, s in found.items())
    codes = ",".join(rule_id(n) for n in [*default_passes(compiled=True), *found])
    return (f"hlo_passes: in {name}, {would}: set HLO_PASSES_PASSES={codes} "
            f"(or install(passes=[...]) with them) to run it")


def rewrite_compiled_text(text: str, name: str, passes: Sequence[str] | None = None,
                          hints: list[str] | None = None, *, context: PassContext | None = None
                          ) -> tuple[str | None, list[Site], list[NearMiss]]:
    """Rewrite the optimized HLO module ``text`` (XLA's print of the module called ``name``).

    Returns ``(new_text, sites, near_misses)``: ``new_text`` is None when nothing
    changed (the hook must then hand XLA nothing back), else the whole module as
    HLO text for XLA's parser.  ``passes``: pass names or rule codes, None the
    default set of an optimized module (``passes_inside_xla``).  Raises what parsing raises, and
    what a rule raises (strict: a rule's bug is the module's fallback, not a near miss beside others' rewrites);
    the caller turns that into a fallback.

    ``hints``: with the default set (``passes`` None) and nothing rewritten, the line that names
    the setting under which an opt-in pass would rewrite a site of the module goes there.
    ``context``: what the passes run for (the platform sites are priced for; default: the
    default platform, assumed); sites get no pictures here whatever it says.
    """
    # Parsed for this call only (``parsed_for_one_call``: freed here, not by a full collection
    # inside some later compile).  No site pictures: nobody draws them here (they were a tenth of
    # the rules' time).
    context = replace(context or PassContext(), pictures=False)
    with parsed_for_one_call(text, "hlo", f"<compiled {name}>") as module:
        # copy=False: the module was parsed for this call only.
        result = run_passes(module, passes_inside_xla(passes), rewrite=True, copy=False, strict=True,
                            context=context)
        if hints is not None and passes is None and not result.changed:
            hint = opt_in_hint(opt_in_sites(result.module, context), name)
            if hint is not None:
                hints.append(hint)
        if not result.changed:
            return None, result.sites, result.near_misses
        # XLA's fusion passes have run: what the rules left unfused (the ops of the fusions they
        # opened, their own copies) is fused as XLA would have, or XLA:CPU compiles a kernel per op:
        # a stage of its own, journaled and verified as the rules are.
        fused = Pipeline([FuseAgain()], strict=True, context=context).run(result.module, copy=False)
        return fused.module.to_text(), result.sites, result.near_misses


# An op of XLA:TPU's own kernels (Mosaic) that XLA:TPU made of a ragged-dot before the pass inside
# its pipeline runs: a custom-call to ``tpu_custom_call`` whose metadata still names jax's
# ``ragged_dot`` (the op it was lowered from).
_TPU_KERNEL_OF_RAGGED_DOT = re.compile(r'custom_call_target="tpu_custom_call".*op_name="[^"]*ragged_dot')


def ragged_dots_lowered_by_xla(text: str) -> int:
    """How many of the optimized module ``text``'s ops are XLA:TPU's own kernels made of a ragged-dot
    (custom-calls to ``tpu_custom_call`` whose metadata names ``ragged_dot``): the grouped matmuls
    that the rules over ragged-dots (the fused-FFN and mask rules) never see inside XLA:TPU's pipeline."""
    return sum(1 for line in text.splitlines() if _TPU_KERNEL_OF_RAGGED_DOT.search(line))
