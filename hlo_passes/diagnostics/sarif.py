"""The SARIF 2.1.0 emitter (what ``github/codeql-action/upload-sarif`` takes).

The rule descriptors come from the rules' metadata: every built-in rule, and every other rule
a finding names (a plugin's, with its own metadata when it has some).  Files of the repository
(``places.SourceRoot``) are written relative to it, against the base ``%SRCROOT%`` that
``originalUriBaseIds`` defines, so that code scanning maps them to the checkout; other files as
absolute ``file:`` URIs.  A result's location is the user's source line when it is a file of the
repository, and the dump position is then its first related location; otherwise the dump
position.  Related locations also hold where each half starts, the module's other stages the
site was found in, and its identical copies.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._version import __version__
from ..passes import available_passes, builtin_names
from ..rule import RuleMeta, metadata_of
from .model import Diagnostic, saving, wording_of
from .places import SourceRoot
from .text import copies_note, position

SRCROOT = "%SRCROOT%"


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


class _Places:
    """SARIF locations of one log, paths relative to the repository where they are in it."""

    def __init__(self, root: SourceRoot) -> None:
        self.root = root

    def artifact(self, path: str) -> dict[str, Any]:
        rel = self.root.relative(path)
        if rel is not None:
            return {"uri": quote(rel), "uriBaseId": SRCROOT}
        return {"uri": Path(path).resolve().as_uri()}

    def at(self, path: str, line: int, column: int = 0, op_name: str | None = None,
           artifact: dict[str, Any] | None = None) -> dict[str, Any]:
        physical: dict[str, Any] = {"artifactLocation": artifact or self.artifact(path)}
        if line >= 1:
            region = {"startLine": line}
            if column >= 1:
                region["startColumn"] = column
            physical["region"] = region
        loc: dict[str, Any] = {"physicalLocation": physical}
        if op_name:
            loc["logicalLocations"] = [{"fullyQualifiedName": op_name, "kind": "function"}]
        return loc

    def source(self, source: str | None, op_name: str | None = None) -> dict[str, Any] | None:
        """The location of a ``file:line`` of the repository; None when it is not one."""
        found = self.root.source(source)
        if found is None:
            return None
        return self.at("", found[1], op_name=op_name, artifact={"uri": quote(found[0]), "uriBaseId": SRCROOT})

    def dump(self, d: Diagnostic) -> dict[str, Any]:
        return self.at(d.path, d.line, d.column, d.op_name)

    def primary(self, d: Diagnostic) -> dict[str, Any]:
        return self.source(d.source, d.op_name) or self.dump(d)

    def related(self, d: Diagnostic) -> list[dict[str, Any]]:
        """The dump position (when the source line is the primary location), where the halves
        start (the place a user's fix usually goes), the module's other stages, the other copies."""
        related: list[tuple[dict[str, Any], str]] = []
        if self.root.source(d.source) is not None:
            related.append((self.dump(d), f"found at {position(d)}"))
        piece_word = wording_of(d.pass_name or d.rule).piece
        for k, piece in enumerate(d.details.get("pieces", ()), 1):
            text = f"{piece_word} {k} starts here"
            loc = self.source(piece.get("source"), piece.get("op_name"))
            if loc is None and piece.get("line", 0) >= 1:
                loc = self.at(d.path, piece["line"], piece["column"], piece.get("op_name"))
                text += f" ({piece['source']})" if piece.get("source") else ""
            if loc is not None:
                related.append((loc, text))
        for s in d.stages:
            related.append((self.at(s.path, s.line, s.column), f"the same site in another stage: {s}"))
        for i, p in enumerate(d.all_paths[1:]):
            related.append((self.at(p, d.line, d.column, d.op_name), f"identical copy {i + 2} of {d.copies}"))
        return [{**loc, "id": k, "message": {"text": text}} for k, (loc, text) in enumerate(related, 1)]


def _notification(d: Diagnostic, places: _Places) -> dict[str, Any]:
    note: dict[str, Any] = {"level": "error", "message": {"text": f"{d.rule}: {d.message}"},
                            "descriptor": {"id": d.rule}, "locations": [places.dump(d)]}
    if d.copies > 1:
        note["properties"] = {"copies": d.copies, "paths": list(d.all_paths)}
    return note


def _result(d: Diagnostic, index: int, places: _Places) -> dict[str, Any]:
    properties = {"bytesSaved": d.bytes_saved, "opName": d.op_name, "source": d.source, "form": d.form,
                  "notes": list(d.notes), "copies": d.copies, "paths": list(d.all_paths),
                  "stages": [str(s) for s in d.stages]}
    if d.source_function:
        properties["sourceFunction"] = d.source_function
    if d.fix is not None:
        properties["fix"] = d.fix
    if d.details.get("priced_for") is not None:  # the verdict's platform, as every entry point shows it
        properties["pricedFor"] = d.details["priced_for"]
        properties["platformAssumed"] = bool(d.details.get("platform_assumed"))
    return {
        "ruleId": d.rule,
        "ruleIndex": index,
        "level": "warning",
        "message": {"text": d.message + f"; {saving(d)}" + copies_note(d)},
        "locations": [places.primary(d)],
        "partialFingerprints": {"opName/v1": f"{d.rule}:{d.op_name or d.line}"},
        "relatedLocations": places.related(d),
        "properties": properties,
    }


def format_sarif(diagnostics: Sequence[Diagnostic], source_root: SourceRoot | None = None) -> str:
    """The SARIF log; ``source_root``: the repository (default: ``SourceRoot()``)."""
    places = _Places(source_root if source_root is not None else SourceRoot())
    known = _known_rules()
    builtin = {c for c, m in known.items() if m.pass_name in builtin_names()}
    codes = sorted({d.rule for d in diagnostics if not d.is_error} | builtin)
    rules = [_descriptor(code, known.get(code)) for code in codes]
    index = {code: i for i, code in enumerate(codes)}
    results = [_result(d, index[d.rule], places) for d in diagnostics if not d.is_error]
    notifications = [_notification(d, places) for d in diagnostics if d.is_error]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hlo-lint", "version": __version__, "rules": rules}},
            "invocations": [{
                "executionSuccessful": not notifications,
                "toolExecutionNotifications": notifications,
            }],
            "originalUriBaseIds": {SRCROOT: {"uri": places.root.root.as_uri() + "/",
                                             "description": {"text": "The repository checked (--source-root)."}}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
