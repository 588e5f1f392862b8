"""The SARIF 2.1.0 emitter (what ``github/codeql-action/upload-sarif`` takes).

The rule descriptors come from the rules' metadata: every built-in rule, and every other rule
a finding names (a plugin's, with its own metadata when it has some).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._version import __version__
from ..passes import available_passes, builtin_names
from ..rule import RuleMeta, metadata_of
from .model import Diagnostic, saving
from .text import copies_note


def _known_rules() -> dict[str, RuleMeta]:
    """Code -> metadata of every registered rule that has metadata."""
    metas = (metadata_of(r) for r in available_passes().values())
    return {m.code: m for m in metas if m is not None}


def _descriptor(code: str, meta: RuleMeta | None) -> dict[str, Any]:
    descriptor: dict[str, Any] = {"id": code, "defaultConfiguration": {"level": "warning"}}
    if meta is None:
        descriptor["shortDescription"] = {"text": code}
        return descriptor
    descriptor.update({
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": meta.help},
        "help": {"text": meta.help},
        "properties": {"pass": meta.pass_name},
    })
    return descriptor


def _artifact_location(path: str) -> dict[str, Any]:
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    # Relative paths resolve against the checkout; code scanning maps
    # %SRCROOT% to the repository root.
    return {"uri": quote(p.as_posix()), "uriBaseId": "%SRCROOT%"}


def _location(d: Diagnostic) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact_location(d.path)}
    if d.line >= 1:
        region = {"startLine": d.line}
        if d.column >= 1:
            region["startColumn"] = d.column
        physical["region"] = region
    loc: dict[str, Any] = {"physicalLocation": physical}
    if d.op_name:
        loc["logicalLocations"] = [{"fullyQualifiedName": d.op_name, "kind": "function"}]
    return loc


def _related(d: Diagnostic) -> list[dict[str, Any]]:
    """Where the halves start (the slices): the place a user's fix usually goes; then the
    other copies of the module (SARIF's place for "also here")."""
    related = []
    for k, piece in enumerate(d.details.get("pieces", ()), 1):
        if piece.get("line", 0) < 1:
            continue
        loc = _location(Diagnostic(rule=d.rule, path=d.path, line=piece["line"], column=piece["column"],
                                   message="", op_name=piece.get("op_name")))
        loc["id"] = k
        loc["message"] = {"text": f"half {k} starts here" + (f" ({piece['source']})" if piece.get("source") else "")}
        related.append(loc)
    first = len(related) + 1
    related += [{**_location(replace(d, path=p)), "id": first + i,
                 "message": {"text": f"identical copy {i + 2} of {d.copies}"}}
                for i, p in enumerate(d.all_paths[1:])]
    return related


def _notification(d: Diagnostic) -> dict[str, Any]:
    note: dict[str, Any] = {"level": "error", "message": {"text": f"{d.rule}: {d.message}"},
                            "descriptor": {"id": d.rule}, "locations": [_location(d)]}
    if d.copies > 1:
        note["properties"] = {"copies": d.copies, "paths": list(d.all_paths)}
    return note


def _result(d: Diagnostic, index: int) -> dict[str, Any]:
    properties = {"bytesSaved": d.bytes_saved, "opName": d.op_name, "source": d.source, "form": d.form,
                  "notes": list(d.notes), "copies": d.copies, "paths": list(d.all_paths)}
    if d.fix is not None:
        properties["fix"] = d.fix
    return {
        "ruleId": d.rule,
        "ruleIndex": index,
        "level": "warning",
        "message": {"text": d.message + f"; {saving(d.bytes_saved)}" + copies_note(d)},
        "locations": [_location(d)],
        "partialFingerprints": {"opName/v1": f"{d.rule}:{d.op_name or d.line}"},
        "relatedLocations": _related(d),
        "properties": properties,
    }


def format_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    known = _known_rules()
    builtin = {c for c, m in known.items() if m.pass_name in builtin_names()}
    codes = sorted({d.rule for d in diagnostics if not d.is_error} | builtin)
    rules = [_descriptor(code, known.get(code)) for code in codes]
    index = {code: i for i, code in enumerate(codes)}
    results = [_result(d, index[d.rule]) for d in diagnostics if not d.is_error]
    notifications = [_notification(d) for d in diagnostics if d.is_error]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hlo-lint", "version": __version__, "rules": rules}},
            "invocations": [{
                "executionSuccessful": not notifications,
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
