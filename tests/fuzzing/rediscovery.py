"""Which of issue 21's finding classes a campaign found: ``python -m fuzzing.rediscovery OUT``.

Run on the commit before the fixes (the harness copied over it), a campaign
must find every class the outside campaign reported; this reads the
campaign's ``findings.jsonl`` and ``summary.json`` and prints one row per
class (count, the first mutant index, where it was raised), then the
findings no class claims.  Exit status 1 if a class was not found.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Finding = dict[str, Any]


def _msg(f: Finding) -> str:
    return f.get("message") or ""


def _where(f: Finding) -> str:
    return f.get("where") or ""


# Issue 21's classes, in its order: (name, does a finding belong to it).
CLASSES: tuple[tuple[str, Callable[[Finding], bool]], ...] = (
    ("ValueError of a number with thousands of digits",
     lambda f: f["type"] == "ValueError" and "digits" in _msg(f)),
    ("IndexError inside a rule on a module that parsed",
     lambda f: f["type"] == "IndexError" and _where(f).startswith("hlo_passes/rewrites/")),
    ("OverflowError: float infinity to integer", lambda f: f["type"] == "OverflowError"),
    ("ZeroDivisionError (an empty replica group)", lambda f: f["type"] == "ZeroDivisionError"),
    ("hang in run_passes (a self-using instruction, long chains)",
     lambda f: f["outcome"] == "hang" and f["stage"] == "run_passes"),
    # Device groups expanded before they were checked hang, or (a worker's memory is capped)
    # run out of memory first: the same defect.
    ("hang while parsing (device groups, strings, identifiers, attribute lists)",
     lambda f: (f["outcome"] == "hang" and f["stage"] in ("parse", "validate", "regenerate", "reparse"))
     or (f["type"] == "MemoryError" and "groups" in _where(f))),
    ("internal error masked as a ParseError at 1:1", lambda f: f["outcome"] == "unlocated-parse-error"),
    ("regenerated text that does not parse again", lambda f: f["outcome"] == "regen-unparseable"),
    ("CRLF input printed with mixed line endings", lambda f: f["outcome"] == "crlf-mixed"),
)


def classify(findings: list[Finding]) -> tuple[dict[str, list[Finding]], list[Finding]]:
    """Findings per class, and those of no class."""
    by_class: dict[str, list[Finding]] = {name: [] for name, _ in CLASSES}
    other: list[Finding] = []
    for f in findings:
        for name, belongs in CLASSES:
            if belongs(f):
                by_class[name].append(f)
                break
        else:
            other.append(f)
    return by_class, other


def report(out: Path) -> tuple[str, bool]:
    """The markdown table for the campaign in ``out``, and whether every class was found."""
    findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines() if line.strip()]
    summary = json.loads((out / "summary.json").read_text())
    by_class, other = classify(findings)
    lines = [f"Rediscovery: {summary['mutants']} mutants, seed {summary['seed']}, {summary['seed_modules']} seed modules, "
             f"{len(findings)} findings", "", "| class | found | first mutant | raised at (first) |",
             "| --- | --- | --- | --- |"]
    for name, hits in by_class.items():
        first = hits[0] if hits else None
        lines.append(f"| {name} | {len(hits)} | {first['index'] if first else '—'} | "
                     f"{'`' + _where(first) + '`' if first and _where(first) else '—'} |")
    late = summary.get("late_parse_errors") or {}
    lines.append(f"| ParseError raised only later (allowed; counted) | {sum(late.values())} | — | "
                 f"{', '.join(f'{k} {v}' for k, v in sorted(late.items())) or '—'} |")
    if other:
        lines += ["", "Findings of no class above:", ""]
        lines += [f"- {f['outcome']} {f['stage']} {f['type']} `{_where(f)}`: {_msg(f)[:120]}" for f in other[:20]]
    return "\n".join(lines) + "\n", all(by_class.values())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    text, complete = report(Path(args[0]))
    print(text)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
