"""The console scripts' and the jit hook's own lines, one emitter each.

* ``rewrite_line``: what ``hlo-rewrite`` prints on stderr per site
  (``path:line:col (op_name, source): MOE001 moe-gather-fusion [concat] collectives 4 -> 2, ...``);
* ``jit_summary``: what ``hlo_passes.jit(...).explain()`` returns and the log shows (the
  source file:line first: the user reads the program, not the lowered text);
* ``hook_warning``: what ``hlo_passes.install()`` warns or logs per finding of a compiled module.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..report import shown_source
from .model import Diagnostic, saving, wording_of
from .text import source_place


def _text_place(d: Diagnostic) -> str:
    """``path:line:col (op_name, source)`` (``report.Location``'s own spelling)."""
    return str(d.location)


def user_place(d: Diagnostic) -> str:
    """A place in the user's terms: the framework source first, the lowered text's line after."""
    source = shown_source(d.source)
    if source:
        return f"{source} ({d.op_name})" if d.op_name else source
    return _text_place(d)


def _outcome(d: Diagnostic) -> str:
    """What became of a site: the fix made (``collectives 4 -> 2, saves ...``), or why it was not."""
    why = d.details.get("not_rewritten")
    if not why and d.details.get("rewritten") is False:
        why = "the rule reports this site without rewriting it"
    return f"detected, not rewritten: {why}" if why else str(d.fix)


def rewrite_line(d: Diagnostic) -> str:
    return f"{_text_place(d)}: {d.rule} {d.pass_name} [{d.form}] {_outcome(d)}"


def jit_site(d: Diagnostic) -> str:
    """``MOE001 moe-gather-fusion [concat] at model.py:21 (concatenate): collectives 4 -> 2, ...``."""
    return f"{d.rule} {d.pass_name} [{d.form}] at {user_place(d)}: {_outcome(d)}"


def jit_near_miss(d: Diagnostic) -> str:
    return f"near miss: {d.pass_name} refused ({d.details['check']}) at {user_place(d)}: {d.details['reason']}"


def jit_summary(name: str, verdict: str, sites: Sequence[Diagnostic], near_misses: Sequence[Diagnostic],
                more: Sequence[str] = ()) -> list[str]:
    """The verdict line (``hlo_passes.jit(train): rewritten: 2 sites``), then each site and
    near miss indented; ``more``: lines of other steps (the GMM kernels), already indented."""
    lines = [f"hlo_passes.jit({name}): {verdict}"]
    lines += [f"  {jit_site(d)}" for d in sites]
    lines += [f"  {jit_near_miss(d)}" for d in near_misses]
    return lines + list(more)


def hook_warning(d: Diagnostic, module_name: str, tag: str = "") -> str:
    """One finding of a module XLA compiled (``install()``); ``tag`` names the process.
    ``MOE001 in jit_step at model.py:21 (in ffn), op jit(step)/concatenate: unfused ...``."""
    at = f" at {source_place(d)}" if d.source else ""
    op = f", op {d.op_name}" if d.op_name else ""
    fixed_by = wording_of(d.pass_name or d.rule).fixed_by
    return f"{tag}{d.rule} in {module_name}{at}{op}: {d.message}; {saving(d)}" + (f" ({fixed_by})" if fixed_by else "")
