"""One diagnostics model, one emitter per output format (ruff's manner).

``model``: the ``Diagnostic`` and how sites and near misses become one.  Emitters:
``text``, ``json_list``, ``github``, ``sarif`` (the lint's formats) and ``lines`` (the console
scripts' and the jit hook's own lines).  ``schema``: the JSON schema, generated from the rules'
metadata.  ``fold``: one finding per site over a module's copies and dump stages; ``places``:
which source files are the repository's (``--source-root``), where GitHub and SARIF point.
"""
from __future__ import annotations

from .github import format_github
from .json_list import format_json
from .lines import hook_warning, jit_summary, rewrite_line
from .model import NEAR_MISS, Diagnostic, SiteRecord, fix_summary, from_near_miss, from_site, record_of, rule_id
from .sarif import format_sarif
from .text import assumed_pricing, copies_note, format_error, format_note, format_text, position

FORMATS = ("text", "json", "github", "sarif")

__all__ = [
    "FORMATS",
    "NEAR_MISS",
    "Diagnostic",
    "SiteRecord",
    "assumed_pricing",
    "copies_note",
    "fix_summary",
    "format_error",
    "format_github",
    "format_json",
    "format_note",
    "format_sarif",
    "format_text",
    "from_near_miss",
    "from_site",
    "hook_warning",
    "jit_summary",
    "position",
    "record_of",
    "rewrite_line",
    "rule_id",
]
