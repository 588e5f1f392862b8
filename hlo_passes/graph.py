"""Pictures of sites: ``hlo-rewrite --graph DIR`` and ``hlo-lint --graph DIR``.

Each site becomes one Graphviz graph with two clusters side by side: before
(the weight, its slices, each half's collectives stage by stage, where the
halves meet, the GMMs) and after (one chain of the same collectives on the
whole weight); edges carry the value's shape and bytes.  ``NAME.dot`` is
always written; ``NAME.svg`` too when the Python ``graphviz`` package (the
``graph`` extra) and Graphviz's ``dot`` program (Debian: ``apt-get install
graphviz``) are there, and otherwise a note says how to render the ``.dot``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from .files import OutputError, atomic_write
from .lint import rule_id
from .report import SitePicture, Subgraph

# kind → node attributes
_STYLE = {
    "weight": 'shape=box, style="filled,bold", fillcolor="#dbe9f6"',
    "slice": 'shape=box, style=filled, fillcolor="#fff3c4"',
    "collective": 'shape=box, style=filled, fillcolor="#f6c28b"',
    "step": "shape=box",
    "boundary": 'shape=box, style=dashed',
    "meet": 'shape=box, style=filled, fillcolor="#e3d3f2"',
    "gmm": 'shape=box3d, style=filled, fillcolor="#cfe8cf"',
    "use": 'shape=plaintext',
}
RENDER_HINT = ("render it with `dot -Tsvg {dot} -o {svg}` (Graphviz's dot: apt-get install graphviz; "
               "SVG straight from hlo_passes needs `pip install 'hlo_passes[graph]'` too)")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _cluster(name: str, title: str, sub: Subgraph, prefix: str) -> list[str]:
    lines = [f"  subgraph cluster_{name} {{", f"    label={_quote(title)};", "    fontsize=16;"]
    for n in sub.nodes:
        lines.append(f"    {prefix}{n.id} [label={_quote(n.label)}, {_STYLE.get(n.kind, 'shape=box')}];")
    for e in sub.edges:
        lines.append(f"    {prefix}{e.src} -> {prefix}{e.dst} [label={_quote(e.label)}];")
    lines.append("  }")
    return lines


def to_dot(picture: SitePicture, *, where: str = "") -> str:
    """The DOT text of one site: cluster ``before`` (nodes ``b_*``) and ``after`` (``a_*``)."""
    title = picture.title + (f"\n{where}" if where else "")
    lines = [
        "digraph site {",
        f"  label={_quote(title)};",
        "  labelloc=t;",
        '  fontname="Helvetica"; node [fontname="Helvetica", fontsize=11]; edge [fontname="Helvetica", fontsize=9];',
        "  rankdir=TB;",
        *_cluster("before", "before", picture.before, "b_"),
        *_cluster("after", "after the rewrite", picture.after, "a_"),
        "}",
    ]
    return "\n".join(lines) + "\n"


def render_svg(dot_text: str) -> bytes | str:
    """SVG bytes, or why they cannot be made here (a sentence)."""
    try:
        import graphviz  # deferred: an optional extra (the graph one); DOT is written without it
    except ImportError:
        return "the Python graphviz package is not installed"
    try:
        return graphviz.Source(dot_text).pipe(format="svg")
    except graphviz.ExecutableNotFound:
        return "Graphviz's dot program was not found on PATH"
    except graphviz.CalledProcessError as err:
        return f"dot failed: {err}"


def _stem(name: str) -> str:
    base = os.path.basename(name) or name
    base = re.sub(r"\.(mlir|hlo|txt)$", "", base)
    return re.sub(r"[^\w.\-]+", "_", base).strip("_.") or "module"


def site_file_stem(input_name: str, rule: str, line: int) -> str:
    return f"{_stem(input_name)}.{rule}.L{line}"


def write_site_graphs(sites: Sequence[Any], directory: str, input_name: str,
                      taken: set[str] | None = None) -> list[str]:
    """Write ``.dot`` (and ``.svg``) files for every site with a picture; lines for the user.

    ``sites`` are ``Site``s (or ``Finding``s) with ``picture``, a rule and a line;
    ``taken`` holds the stems already written in this run (several inputs, one folder).
    """
    os.makedirs(directory, exist_ok=True)
    taken = set() if taken is None else taken
    out: list[str] = []
    missing_svg: str | None = None
    dot_files: list[tuple[str, str]] = []
    for site in sites:
        picture = getattr(site, "picture", None)
        rule = rule_id(getattr(site, "pass_name", None) or site.rule)
        line = site.location.line if hasattr(site, "location") else site.line
        if picture is None:
            # A site's details are typed (report.SiteDetails), a finding's the JSON's dict.
            details = getattr(site, "details", None)
            error = details.get("picture_error") if isinstance(details, dict) else getattr(details, "picture_error", None)
            why = error or "the rule draws no picture"
            out.append(f"note: {input_name}:{line}: no picture of this {rule} site ({why})")
            continue
        stem = site_file_stem(input_name, rule, line)
        n = 2
        base = stem
        while stem in taken:
            stem = f"{base}-{n}"
            n += 1
        taken.add(stem)
        dot_text = to_dot(picture, where=f"{input_name}:{line}")
        dot_path = os.path.join(directory, stem + ".dot")
        svg_path = os.path.join(directory, stem + ".svg")
        try:
            atomic_write(dot_path, dot_text)
            svg = render_svg(dot_text) if missing_svg is None else missing_svg
            if isinstance(svg, bytes):
                atomic_write(svg_path, svg)
                out.append(f"wrote {svg_path}")
            else:
                missing_svg = svg
                dot_files.append((dot_path, svg_path))
                out.append(f"wrote {dot_path}")
        except OutputError as err:
            out.append(f"error: {err}")
    if missing_svg is not None:
        dot, svg = dot_files[0]
        out.append(f"note: no SVG: {missing_svg}; " + RENDER_HINT.format(dot=dot, svg=svg))
    return out
