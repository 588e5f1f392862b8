"""The text emitter: what ``hlo-lint`` prints by default, and its one-line notes."""
from __future__ import annotations

from collections.abc import Sequence

from ..report import shown_source
from .model import NEAR_MISS, Diagnostic, saving

# One-line formats name this many of a finding's copies, then "...".
COPIES_SHOWN = 3


def copies_note(d: Diagnostic) -> str:
    """``"; identical in 8 copies: a/m.txt, b/m.txt, ..."``: the folded copies, for one-line formats."""
    if d.copies <= 1:
        return ""
    shown = ", ".join(d.all_paths[:COPIES_SHOWN]) + (", ..." if d.copies > COPIES_SHOWN else "")
    return f"; identical in {d.copies} copies: {shown}"


def source_place(d: Diagnostic) -> str:
    """``model.py:21 (in MoE.__call__)``: the source line (relative to the working directory when
    under it) and the function of the frame it was chosen from."""
    place = shown_source(d.source) or ""
    return f"{place} (in {d.source_function})" if d.source_function else place


def position(d: Diagnostic) -> str:
    """``path:line:col``, or just the path for what concerns a whole file."""
    return f"{d.path}:{d.line}:{d.column}" if d.line > 0 else d.path


def format_note(d: Diagnostic) -> str:
    """One line for a note (a near miss, a file skipped), as ``hlo-lint`` prints them on stderr;
    a near miss names its rule's code, as a finding does."""
    extras = [x for x in (d.op_name, d.source) if x]
    rule = f"{d.rule} " if d.message.startswith(NEAR_MISS) else ""
    return f"{position(d)}: note: {rule}{d.message}" + (f" [{', '.join(extras)}]" if extras else "")


def format_error(d: Diagnostic) -> str:
    """One line for a file that could not be linted."""
    return f"{position(d)}: error: {d.rule}: {d.message}"


def _finding(d: Diagnostic) -> str:
    line = f"{d.path}:{d.line}:{d.column}: {d.rule} {d.message}"
    if d.op_name:
        line += f"\n    op_name: {d.op_name}"
    if d.source:
        line += f"\n    source: {source_place(d)}"
    line += f"\n    {saving(d)}"
    for note in d.notes:
        line += f"\n    note: {note}"
    if d.copies > 1:
        line += f"\n    {copies_note(d)[2:]} (modules equal without locations)"
    return line


def _summary(diagnostics: Sequence[Diagnostic], files: int | None, modules: int | None) -> str:
    warnings = sum(not d.is_error for d in diagnostics)
    errors = len(diagnostics) - warnings
    summary = f"{warnings} finding{'s' * (warnings != 1)}"
    if errors:
        summary += f", {errors} error{'s' * (errors != 1)}"
    if files is not None:
        summary += f" in {files} file{'s' * (files != 1)}"
        if modules is not None and modules != files:
            summary += f" ({modules} distinct module{'s' * (modules != 1)})"
    return summary


def assumed_pricing(diagnostics: Sequence[Diagnostic]) -> str | None:
    """``priced for tpu, assumed: ...`` when a finding's verdict rests on a platform nobody named
    (the text does not say where it was compiled, and no --platform); None when none does."""
    assumed = sorted({str(d.details.get("priced_for")) for d in diagnostics
                      if not d.is_error and d.details.get("platform_assumed")})
    if not assumed:
        return None
    return (f"findings priced for {', '.join(assumed)}, assumed: the text does not say which platform it was "
            "compiled for (--platform names it)")


def format_text(diagnostics: Sequence[Diagnostic], files: int | None = None, modules: int | None = None) -> str:
    """Each finding with its notes, each error on one line, then the count."""
    lines = [format_error(d) + copies_note(d) if d.is_error else _finding(d) for d in diagnostics]
    lines.append(_summary(diagnostics, files, modules))
    return "\n".join(lines) + "\n"
