"""The GitHub emitter: workflow commands that annotate a pull request (``::warning file=...::``)."""
from __future__ import annotations

from collections.abc import Sequence

from .model import Diagnostic, saving
from .text import copies_note


def _escape(text: str, property_value: bool = False) -> str:
    # GitHub's workflow command escaping: data escapes % CR LF; property
    # values also : and ,.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        kind = "error" if d.is_error else "warning"
        props = [f"file={_escape(d.path, True)}"]
        if d.line > 0:
            props.append(f"line={d.line}")
            if d.column > 0:
                props.append(f"col={d.column}")
        props.append(f"title={_escape(d.rule, True)}")
        message = d.message
        if d.op_name:
            message += f" (op_name: {d.op_name})"
        if not d.is_error:
            message += f"; {saving(d.bytes_saved)}"
        message += copies_note(d)
        lines.append(f"::{kind} {','.join(props)}::{_escape(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
