"""The JSON schema of ``hlo-lint --format json``: the shape of a finding, whatever rule made it.

A finding's ``rule`` is a rule code (letters, then three or more digits: ``RuleMeta`` holds every
rule, built-in or plugin, to that form), a plugin's pass name, or the kind of a file that could
not be linted; the schema lists no rule, so a new rule changes nothing here (which rules exist is
``hlo-lint --list-rules``).  It ships as ``hlo_passes/schemas/lint-findings.schema.json``
(``lint.json_schema()`` reads that file); a test checks that it equals what this generates.

    python -m hlo_passes.diagnostics.schema --write    # regenerate it after changing this module
    python -m hlo_passes.diagnostics.schema --check    # exit 1 if it is out of date
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..rule import CODE_PATTERN
from .json_list import SCHEMA_FILE
from .model import ERROR_RULES

_NULLABLE_STRING = ["string", "null"]


def _rule_defs() -> dict[str, Any]:
    return {
        "rule_code": {
            "description": "A rule's code, built in (hlo-lint --list-rules) or a plugin's: letters, then three "
                           "or more digits.",
            "type": "string",
            "pattern": f"^{CODE_PATTERN}$",
        },
        "plugin_rule": {
            "description": "The pass name of a plugin registered without metadata.",
            "type": "string",
            "minLength": 1,
            "not": {"$ref": "#/$defs/error_rule"},
        },
        "error_rule": {"description": "A file that could not be linted.", "enum": list(ERROR_RULES)},
    }


def _properties() -> dict[str, Any]:
    return {
        "rule": {
            "description": f"The rule's code (MOE001, ...), a plugin's pass name, or, for files that failed, "
                           f"{' / '.join(ERROR_RULES)}.",
            "anyOf": [{"$ref": "#/$defs/rule_code"}, {"$ref": "#/$defs/plugin_rule"},
                      {"$ref": "#/$defs/error_rule"}],
        },
        "path": {"description": "The file, as given on the command line or found in a directory.",
                 "type": "string", "minLength": 1},
        "line": {"description": "1-based line of the op the finding anchors to; 0 when unknown.",
                 "type": "integer", "minimum": 0},
        "column": {"description": "1-based column; 0 when unknown.", "type": "integer", "minimum": 0},
        "message": {"type": "string", "minLength": 1},
        "op_name": {"description": "The framework op name from HLO metadata or the MLIR location, when the text "
                                   "has one.", "type": _NULLABLE_STRING},
        "source": {"description": "file:line of the framework source, when the text has it: HLO op metadata "
                                  "(stack_frame_id resolved through the module's stack-frame tables, or "
                                  "source_file/source_line), MLIR locations.",
                   "type": _NULLABLE_STRING},
        "bytes_saved": {"description": "Bytes per device the rewrite saves (collective traffic and copies); "
                                       "negative where it copies more than it removes (MOE003's local "
                                       "concatenation: it saves collective and GMM launches); 0 for errors.",
                        "type": "integer"},
        "severity": {"enum": ["warning", "error"]},
        "pass_name": {"description": "The rewrite pass that reports the rule (null for errors).",
                      "type": _NULLABLE_STRING},
        "form": {"description": "Which shape of the pattern matched (e.g. concat, two_gmm); null for errors.",
                 "type": _NULLABLE_STRING},
        "details": {"description": "Pass-specific facts: collectives and bytes moved before/after, split "
                                   "dimension, where the halves start (pieces), ...", "type": "object"},
        "notes": {"description": "Where the weight is cut into halves (with the source file:line when the text "
                                 "has it), or how to get source locations.",
                  "type": "array", "items": {"type": "string"}},
        "fix": {"description": "What the rewrite does there (collectives before -> after, bytes saved per "
                               "device); null for errors.", "type": _NULLABLE_STRING},
        "copies": {"description": "How many identical copies of the module (equal without locations, e.g. the "
                                  "dump folders of N hosts) this finding stands for; it is reported once, at the "
                                  "first path in sorted order.", "type": "integer", "minimum": 1},
        "paths": {"description": "Every copy's path, sorted; the first is path.", "type": "array",
                  "items": {"type": "string", "minLength": 1}, "minItems": 1},
        "source_function": {"description": "The function of the stack frame source was chosen from (the "
                                           "innermost frame outside jax, flax, optax and the standard library), "
                                           "when the text names it.", "type": _NULLABLE_STRING},
        "stages": {"description": "The same site in the module's other dump stages (StableHLO handed to XLA, "
                                  "before optimizations, after a pass, after optimizations), folded into this "
                                  "finding, which is reported at the earliest stage; empty when none.",
                   "type": "array",
                   "items": {"type": "object", "required": ["stage", "path", "line", "column"],
                             "properties": {"stage": {"type": "string"},
                                            "path": {"type": "string", "minLength": 1},
                                            "line": {"type": "integer", "minimum": 0},
                                            "column": {"type": "integer", "minimum": 0}},
                             "additionalProperties": False}},
    }


def generate() -> dict[str, Any]:
    """The schema of a finding list."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://hlo-passes.invalid/schemas/lint-findings.schema.json",
        "title": "hlo-lint --format json",
        "description": "A list with one object per finding (an unfused pattern a rewrite pass would fuse) and "
                       "one per file that could not be linted (severity error; rule parse-error, internal-error, "
                       "no-such-file, no-match (a glob), no-modules (a folder), not-readable or too-large). Keys "
                       "are stable across releases; new optional keys may be added. Generated by "
                       "`python -m hlo_passes.diagnostics.schema --write`.",
        "$defs": _rule_defs(),
        "type": "array",
        "items": {
            "type": "object",
            "required": ["rule", "path", "line", "column", "message", "op_name", "bytes_saved", "severity"],
            "properties": _properties(),
            "allOf": [{
                "if": {"properties": {"severity": {"const": "error"}}},
                "then": {"properties": {"rule": {"$ref": "#/$defs/error_rule"}, "bytes_saved": {"const": 0}}},
                "else": {"properties": {"rule": {"not": {"$ref": "#/$defs/error_rule"}},
                                        "line": {"minimum": 1}, "column": {"minimum": 1}}},
            }],
            "additionalProperties": False,
        },
    }


def schema_text() -> str:
    """The schema as the shipped file holds it."""
    return json.dumps(generate(), indent=2) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hlo_passes.diagnostics.schema", description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE.name}")
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped file is out of date")
    args = parser.parse_args(argv)
    text = schema_text()
    if args.write:
        SCHEMA_FILE.write_text(text)
        return 0
    if args.check:
        same = SCHEMA_FILE.read_text() == text
        if not same:
            print(f"{SCHEMA_FILE} is out of date: python -m hlo_passes.diagnostics.schema --write", file=sys.stderr)
        return 0 if same else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
