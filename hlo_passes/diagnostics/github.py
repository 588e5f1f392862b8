"""The GitHub emitter: workflow commands that annotate a pull request (``::warning file=...::``).

An annotation lands on the diff only on a file of the repository: a finding whose source line is
one (``places.SourceRoot``) is annotated there, and says where in the dump it was found; any
other at its place in the dump.
"""
from __future__ import annotations

from collections.abc import Sequence

from .model import Diagnostic, saving
from .places import SourceRoot
from .text import copies_note, position


def _escape(text: str, property_value: bool = False) -> str:
    # GitHub's workflow command escaping: data escapes % CR LF; property
    # values also : and ,.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(diagnostics: Sequence[Diagnostic], source_root: SourceRoot | None = None) -> str:
    """One command per diagnostic; ``source_root``: the repository (default: ``SourceRoot()``)."""
    root = source_root if source_root is not None else SourceRoot()
    lines = []
    for d in diagnostics:
        kind = "error" if d.is_error else "warning"
        in_repo = None if d.is_error else root.source(d.source)
        if in_repo is not None:
            props = [f"file={_escape(in_repo[0], True)}"] + ([f"line={in_repo[1]}"] if in_repo[1] > 0 else [])
        else:
            props = [f"file={_escape(root.file(d.path) or d.path, True)}"]
            if d.line > 0:
                props.append(f"line={d.line}")
                if d.column > 0:
                    props.append(f"col={d.column}")
        props.append(f"title={_escape(d.rule, True)}")
        message = d.message
        if d.op_name:
            message += f" (op_name: {d.op_name})"
        if not d.is_error:
            message += f"; {saving(d)}"
        if in_repo is not None:
            message += f"; found in {position(d)}"
        if d.stages:
            message += f"; also in {len(d.stages)} other stage{'s' * (len(d.stages) > 1)} of the module"
        message += copies_note(d)
        lines.append(f"::{kind} {','.join(props)}::{_escape(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
