"""What SARIF 2.1.0 requires of a log, for the parts hlo-lint writes.

No package on PyPI ships the official SARIF 2.1.0 JSON schema (sarif-om,
sarif-tools, sarif-pydantic and pydantic-sarif were checked: classes, no
schema file), so this is a JSON schema written from the OASIS SARIF 2.1.0
specification's normative requirements (section numbers in the
descriptions), plus the cross-reference checks a schema cannot express.
``check_sarif(log)`` raises ``AssertionError`` / ``jsonschema.ValidationError``.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import jsonschema

_MESSAGE = {
    # §3.11.2: a message has text or an id (a reference to a rule's messageStrings).
    "type": "object",
    "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
    "properties": {"text": {"type": "string"}, "id": {"type": "string"}},
}
_MULTIFORMAT = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}  # §3.27.10, §3.58.6
_REGION = {
    # §3.30: line and column numbers are 1-based; a text region needs startLine
    # (or charOffset, which hlo-lint does not write).
    "type": "object",
    "anyOf": [{"required": ["startLine"]}, {"required": ["charOffset"]}, {"required": ["byteOffset"]}],
    "properties": {
        "startLine": {"type": "integer", "minimum": 1},
        "startColumn": {"type": "integer", "minimum": 1},
        "endLine": {"type": "integer", "minimum": 1},
        "endColumn": {"type": "integer", "minimum": 1},
    },
}
_ARTIFACT_LOCATION = {
    "type": "object",
    "properties": {"uri": {"type": "string", "format": "uri-reference"}, "uriBaseId": {"type": "string"}},
}
_LOCATION = {
    "type": "object",
    "properties": {
        # §3.28.2: an id is a non-negative integer (-1: none), unique within a result; §3.28.5: a message.
        "id": {"type": "integer", "minimum": -1},
        "message": _MESSAGE,
        "physicalLocation": {
            # §3.29.2: a physicalLocation has an artifactLocation or an address.
            "type": "object",
            "anyOf": [{"required": ["artifactLocation"]}, {"required": ["address"]}],
            "properties": {"artifactLocation": _ARTIFACT_LOCATION, "region": _REGION},
        },
        "logicalLocations": {
            "type": "array",
            "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "fullyQualifiedName": {"type": "string"},
                "kind": {"type": "string"}}},
        },
    },
}
_REPORTING_DESCRIPTOR = {
    # §3.49.3: id is required.
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "shortDescription": _MULTIFORMAT,
        "fullDescription": _MULTIFORMAT,
        "help": _MULTIFORMAT,
        "defaultConfiguration": {"type": "object", "properties": {"level": _LEVEL}},
    },
}
_RESULT = {
    # §3.27: message is required; ruleIndex ≥ 0 (−1 means none).
    "type": "object",
    "required": ["message"],
    "properties": {
        "ruleId": {"type": "string"},
        "ruleIndex": {"type": "integer", "minimum": -1},
        "level": _LEVEL,
        "kind": {"enum": ["notApplicable", "pass", "fail", "review", "open", "informational"]},
        "message": _MESSAGE,
        "locations": {"type": "array", "items": _LOCATION},
        # §3.27.22: other locations that help understand the result.
        "relatedLocations": {"type": "array", "items": _LOCATION},
        "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string"}},
        "properties": {"type": "object"},
    },
}
_NOTIFICATION = {
    "type": "object",
    "required": ["message"],  # §3.58.2
    "properties": {"message": _MESSAGE, "level": _LEVEL, "locations": {"type": "array", "items": _LOCATION}},
}
SARIF_2_1_0_STRUCTURE: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    # §3.13.2: version is required and is "2.1.0"; §3.13.4: runs is required (may be null).
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],  # §3.14.6
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],  # §3.18.2
                        "properties": {"driver": {
                            "type": "object",
                            "required": ["name"],  # §3.19.8
                            "properties": {
                                "name": {"type": "string", "minLength": 1},
                                "version": {"type": "string"},
                                "rules": {"type": "array", "items": _REPORTING_DESCRIPTOR},
                            },
                        }},
                    },
                    "invocations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["executionSuccessful"],  # §3.20.14
                            "properties": {
                                "executionSuccessful": {"type": "boolean"},
                                "toolExecutionNotifications": {"type": "array", "items": _NOTIFICATION},
                            },
                        },
                    },
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "results": {"type": "array", "items": _RESULT},
                },
            },
        },
    },
}


def check_sarif(log: dict[str, Any]) -> None:
    """Validate ``log`` against the structure above and the cross-references."""
    jsonschema.Draft7Validator(
        SARIF_2_1_0_STRUCTURE, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    ).validate(log)
    for run in log["runs"]:
        rules = run["tool"]["driver"].get("rules", [])
        ids = [r["id"] for r in rules]
        # §3.49.3: ids are unique within a tool component.
        assert len(ids) == len(set(ids)), ids
        for result in run.get("results", []):
            # §3.27.5/§3.27.6: ruleIndex points at the rule whose id is ruleId.
            if "ruleIndex" in result and result["ruleIndex"] >= 0:
                assert result["ruleIndex"] < len(rules), result
                assert rules[result["ruleIndex"]]["id"] == result.get("ruleId", ids[result["ruleIndex"]])
            # A result has a ruleId or a ruleIndex (§3.27.5: SHALL contain at least one when a rule applies).
            assert "ruleId" in result or "ruleIndex" in result, result
            # §3.28.2: location ids are unique within a result.
            ids_here = [loc["id"] for loc in result.get("relatedLocations", []) if loc.get("id", -1) >= 0]
            assert len(ids_here) == len(set(ids_here)), ids_here
            for loc in result.get("locations", []) + result.get("relatedLocations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                parts = urlsplit(art["uri"])
                # §3.4.3: a relative reference is resolved against uriBaseId;
                # an absolute one is a file: URI here.
                assert (parts.scheme == "") == ("uriBaseId" in art), art
                assert " " not in art["uri"], art  # URIs are percent-encoded
                region = loc["physicalLocation"].get("region", {})
                if "endLine" in region:
                    assert region["endLine"] >= region["startLine"], region
