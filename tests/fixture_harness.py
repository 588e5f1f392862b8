"""FileCheck fixtures for the rewrite rules: a small module in, CHECK lines out.

A fixture file ``tests/fixtures/<pass>/<name>.hlo`` (or ``.mlir``) holds one
or more cases split at lines ``// -----`` (as MLIR's ``--split-input-file``
tests do).  Each case is an input module written by hand plus two kinds of
FileCheck lines (``filecheck`` from PyPI, a Python port of LLVM's FileCheck;
``-NEXT``, ``-NOT``, ``-DAG``, ``-SAME``, ``-LABEL`` and ``[[VAR:...]]`` all work):

* ``// CHECK:`` lines match the module after running ``<pass>`` on it;
* ``// REPORT:`` lines match the report, rendered by ``render_report`` as
  stable text lines::

      sites: 1, near misses: 1
      site moe-gather-fusion concat at w.g in main: collectives 2 -> 1, bytes 384 -> 384, saves 640, rewritten [13:3]
        details: collectives=explicit halves=2 split_dim=2 split_sizes=[4, 4] weight=w
      near-miss moe-gather-fusion concat-order at up: <the reason> [20:3 jit(f)/slice]

  Each names the op its location points at (``w.g``; ``%5`` in MLIR), then
  ``[line:column op_name]`` last, so CHECK lines can leave the numbers out.  A site is
  ``rewritten``, ``reported`` (optimized HLO: detected only) or ``does not pay`` (by the
  cost model: detected only; its price is in the JSON report, not here).

A line ``// PLATFORM: cpu`` runs the case with sites priced for that platform
(``run_passes(..., platform=)``, the pipeline's ``PassContext``; default: the cost model's), for a rule whose fix is
made for one platform only (MOE005 emits the CPU kernel's call).

Every comment line is blanked before parsing, so line numbers in the report
are the fixture file's own.  Besides the CHECK lines each case must hold:
the output parses and verifies, an unchanged module prints byte-identical,
and a second run rewrites nothing.  Nothing here imports jax.
"""
from __future__ import annotations

import contextlib
import io
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import hlo_passes
from hlo_passes.lowering import target_for
from hlo_passes.pass_interface import PassContext
from hlo_passes.passes import Result, run_passes

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPO_ROOT = FIXTURES.parent.parent
SPLIT = re.compile(r"^// -----[ \t]*$", re.MULTILINE)
_COMMENT = re.compile(r"^\s*//.*$")
SUFFIXES = (".hlo", ".mlir")
_PLATFORM = re.compile(r"^// PLATFORM:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_KERNEL = re.compile(r"^// KERNEL:[ \t]*(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    """One module of a fixture file with its CHECK lines; ``first_line`` is 1-based."""

    path: Path
    first_line: int
    text: str  # the case's lines, preceded by blank lines up to ``first_line``

    @property
    def pass_name(self) -> str:
        return self.path.parent.name

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(FIXTURES)}:{self.first_line}"

    @property
    def platform(self) -> str | None:
        """The platform the case's sites are priced for (``// PLATFORM: cpu``); None: the default."""
        m = _PLATFORM.search(self.text)
        return m.group(1) if m else None

    @property
    def kernel(self) -> str | None:
        """The kernel the case's ragged-dots are lowered to after the passes (``// KERNEL: cpu-ffi``),
        as hlo-rewrite's --kernel says it; None: none named (XLA's own ragged-dot)."""
        m = _KERNEL.search(self.text)
        return m.group(1) if m else None

    @property
    def module_text(self) -> str:
        """The input module: every ``//`` comment line (CHECKs among them) blanked,
        so that the printed output cannot match its own CHECK lines."""
        return "\n".join("" if _COMMENT.match(line) else line for line in self.text.split("\n"))


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*/*") if p.suffix in SUFFIXES)


def cases_of(path: Path) -> list[Case]:
    text = path.read_text(encoding="utf-8")
    cases = []
    start, line = 0, 1
    for m in [*SPLIT.finditer(text), None]:
        end = m.start() if m else len(text)
        chunk = text[start:end]
        if chunk.strip():
            # Leading blank lines keep each line where it is in the file.
            cases.append(Case(path, line, "\n" * (line - 1) + chunk))
        if m is not None:
            line += text[start:m.end()].count("\n") + 1
            start = m.end() + 1
    return cases


def all_cases() -> list[Case]:
    return [c for p in fixture_files() for c in cases_of(p)]


# ---- the report as text ---------------------------------------------------------

def op_at(lines: list[str], line: int) -> str:
    """The name an op is given on ``line`` (``w.g`` in HLO, ``%5`` in MLIR): what a
    report line says it points at, so that CHECK lines need no line numbers."""
    if not 0 < line <= len(lines):
        return "?"
    text = lines[line - 1].strip()
    if text.startswith("ROOT "):
        text = text[5:]
    name = text.split(" = ", 1)[0] if " = " in text else text.split(" ", 1)[0]
    return name.split(":", 1)[0] if name.startswith("%") else name


def _where(loc, lines: list[str]) -> tuple[str, str]:
    at = f"{loc.line}:{loc.column}" + (f" {loc.op_name}" if loc.op_name else "")
    return op_at(lines, loc.line), at


def _value(v) -> str:
    return "[" + ", ".join(map(str, v)) + "]" if isinstance(v, (list, tuple)) else str(v)


def render_report(result: Result, source: str) -> str:
    """Sites and near misses, one line each, in the order the passes found them;
    ``source`` is the input text the locations point into."""
    lines = source.split("\n")
    out = [f"sites: {len(result.sites)}, near misses: {len(result.near_misses)}"]
    for s in result.sites:
        state = "rewritten" if s.rewritten else "reported" if s.pays else "does not pay"
        name, at = _where(s.location, lines)
        out.append(f"site {s.rule} {s.form} at {name} in {s.location.computation}: "
                   f"collectives {s.before.count} -> {s.after.count}, "
                   f"bytes {s.before.bytes_moved} -> {s.after.bytes_moved}, saves {s.bytes_saved}, {state} [{at}]")
        details = " ".join(f"{k}={_value(v)}" for k, v in sorted(s.details.to_json().items())
                           if k not in ("not_rewritten", "pays", "price"))
        out.append(f"  details: {details}")
    for m in result.near_misses:
        name, at = _where(m.location, lines)
        out.append(f"near-miss {m.rule} {m.check} at {name}: {m.reason} [{at}]")
    return "\n".join(out) + "\n"


# ---- FileCheck ------------------------------------------------------------------

def filecheck(checks: str, text: str, prefix: str, check_name: str) -> str | None:
    """Run FileCheck with ``prefix`` over ``text``; None if it matches, else its message
    (the first unmatched CHECK with its line in ``check_name``)."""
    from filecheck.main import main

    with tempfile.TemporaryDirectory(prefix="hlo_passes_fc_") as tmp:
        check_file = Path(tmp) / "checks"
        input_file = Path(tmp) / "input"
        check_file.write_text(checks, encoding="utf-8")
        input_file.write_text(text, encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
            try:
                main(["filecheck", str(check_file), "--input-file", str(input_file), "--check-prefix", prefix])
                code = 0
            except SystemExit as stop:
                code = stop.code or 0
        if code == 0:
            return None
        return err.getvalue().replace(str(check_file), check_name).replace(str(input_file), "<output>")


@dataclass
class Outcome:
    case: Case
    result: Result
    output: str
    report: str

    def failures(self) -> list[str]:
        """Everything that does not hold, each with what is needed to see why."""
        case = self.case
        where = f"{case.path.relative_to(REPO_ROOT)}"
        problems = []
        for prefix, text in (("CHECK", self.output), ("REPORT", self.report)):
            if not re.search(rf"^\s*//\s*{prefix}(-[A-Z]+)?:", case.text, re.MULTILINE):
                problems.append(f"{prefix}: no {prefix} line in this case (a case must check both)")
                continue
            message = filecheck(case.text, text, prefix, where)
            if message:
                problems.append(f"{prefix} lines do not match:\n{message.rstrip()}\n"
                                f"--- actual {'output' if prefix == 'CHECK' else 'report'} ---\n"
                                f"{text.strip(chr(10))}")
        problems.extend(self._invariants())
        return problems

    def _invariants(self) -> list[str]:
        problems = []
        try:
            hlo_passes.parse(self.case.module_text, validate=True).verify()
        except Exception as err:  # a fixture must be a valid module
            problems.append(f"the input does not parse and verify: {type(err).__name__}: {err}")
        rewritten = any(s.rewritten for s in self.result.sites)
        if not rewritten and self.output != self.case.module_text:
            problems.append("nothing was rewritten but the module does not print byte-identical")
        try:
            again = hlo_passes.parse(self.output, validate=True, path=str(self.case.path))
            again.verify()
        except Exception as err:  # the message is the finding
            return problems + [f"the output does not parse and verify: {type(err).__name__}: {err}"]
        second = run_passes(again, [self.case.pass_name], platform=self.case.platform)
        if any(s.rewritten for s in second.sites) or second.module.to_text() != self.output:
            problems.append("a second run rewrote the output again:\n" + render_report(second, self.output))
        return problems


def run_case(case: Case) -> Outcome:
    module = hlo_passes.parse(case.module_text, path=str(case.path.relative_to(REPO_ROOT)))
    target = target_for(case.kernel, case.platform) if case.kernel else None
    result = run_passes(module, [case.pass_name], context=PassContext.for_platform(case.platform, gmm_target=target))
    return Outcome(case, result, result.module.to_text(), render_report(result, case.module_text))


def explain(outcome: Outcome, problems: list[str]) -> str:
    case = outcome.case
    body = case.module_text.strip("\n")
    return (f"{case.name} (lines from {case.first_line}):\n" + "\n\n".join(problems) +
            f"\n--- input ---\n{body}\n--- actual output ---\n{outcome.output.strip(chr(10))}\n"
            f"--- actual report ---\n{outcome.report.rstrip()}")


def main(argv: list[str] | None = None) -> int:
    """``python tests/fixture_harness.py FILE...``: print each case's output and report
    (for writing CHECK lines), then what fails."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("-q", "--quiet", action="store_true", help="only the failures")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.files or fixture_files():
        for case in cases_of(path.resolve()):
            try:
                outcome = run_case(case)
                problems = outcome.failures()
            except Exception as err:  # a crash is a failure of this case, not of the run
                failed += 1
                print(f"FAIL {case.name}: {type(err).__name__}: {err}")
                continue
            if not args.quiet:
                print(f"==== {case.name}")
                if any(s.rewritten for s in outcome.result.sites):
                    print(outcome.output.strip("\n"))
                print(outcome.report, end="")
            if problems:
                failed += 1
                print(f"FAIL {case.name}:\n" + "\n".join(problems))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
