"""Break each legality check of the MoE rules in turn; say which fixture catches it.

    python tools/mutate_checks.py            # every check, a table on stdout
    python tools/mutate_checks.py --guards   # also the pattern guards (``if ...: return None``)
    python tools/mutate_checks.py --markdown out.md

A *check* is a ``raise Refusal(...)`` in the engine's modules (``FILES`` under
``hlo_passes/``: the split engine's, and the IR analyses it uses); breaking it means replacing the raise with
``pass`` (the check always passes).  A *guard* is an ``if`` whose body only
returns None / an empty list or continues; breaking it means its test is
``False``.  Each mutant is a copy of ``hlo_passes`` in a temporary folder put
first on ``PYTHONPATH``, and the fixtures (``tests/fixture_harness.py -q``,
no jax) run against it.  A mutant is *killed* when at least one fixture fails.
Not run in CI: about 1-2 s per mutant.
"""
from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILES = [f"rewrites/split/{name}.py" for name in ("engine", "walk", "chains", "crossings", "fusions", "sources",
                                                  "meetings", "gmms")] + ["ir/analysis.py"]
RULES = REPO / "hlo_passes"


@dataclass
class Mutant:
    file: str
    line: int  # 1-based first line of the mutated statement
    kind: str  # "check" or "guard"
    label: str  # the check's name, or the guard's condition

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _check_name(node: ast.Raise) -> str:
    call = node.exc
    if isinstance(call, ast.Call) and call.args:
        first = call.args[0]
        if isinstance(first, ast.Constant):
            return str(first.value)
        return ast.unparse(first)
    return "?"


def _is_refusal(node: ast.AST) -> bool:
    return (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
            and isinstance(node.exc.func, ast.Name) and node.exc.func.id == "Refusal")


def _is_guard(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return False
    stmt = node.body[0]
    if isinstance(stmt, ast.Continue):
        return True
    if isinstance(stmt, ast.Return):
        v = stmt.value
        return v is None or (isinstance(v, ast.Constant) and v.value is None) or (
            isinstance(v, ast.List) and not v.elts)
    return False


def mutants(guards: bool) -> list[Mutant]:
    found = []
    for name in FILES:
        tree = ast.parse((RULES / name).read_text())
        for node in ast.walk(tree):
            if _is_refusal(node):
                found.append(Mutant(name, node.lineno, "check", _check_name(node)))
            elif guards and _is_guard(node):
                found.append(Mutant(name, node.lineno, "guard", ast.unparse(node.test)[:60]))
    return sorted(found, key=lambda m: (m.kind, FILES.index(m.file), m.line))


def mutate(source: str, mutant: Mutant) -> str:
    tree = ast.parse(source)
    lines = source.split("\n")
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != mutant.line:
            continue
        if mutant.kind == "check" and _is_refusal(node):
            indent = lines[node.lineno - 1][: node.col_offset]
            # The same number of lines, so every other line keeps its number.
            new = [indent + "pass"] + [""] * (node.end_lineno - node.lineno)
            lines[node.lineno - 1: node.end_lineno] = new
            return "\n".join(lines)
        if mutant.kind == "guard" and _is_guard(node):
            test = node.test
            first, last = test.lineno - 1, test.end_lineno - 1
            head = lines[first][: test.col_offset]
            tail = lines[last][test.end_col_offset:]
            lines[first: last + 1] = [head + "False" + tail] + [""] * (last - first)
            return "\n".join(lines)
    raise ValueError(f"nothing to mutate at {mutant.where}")


def run_fixtures(package_root: Path | None) -> tuple[bool, list[str]]:
    """Run every fixture with ``hlo_passes`` from ``package_root``; (all passed, failing cases)."""
    env = dict(os.environ)
    if package_root is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(package_root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # Not run from the repository root: '' on sys.path would find its hlo_passes first.
    code = (f"import sys, hlo_passes; sys.path.insert(0, {str(REPO / 'tests')!r}); import fixture_harness as h; "
            f"assert hlo_passes.__file__.startswith({str(package_root or REPO)!r}), hlo_passes.__file__; "
            "sys.exit(h.main(['-q']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=package_root or REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        return False, [f"harness error {proc.returncode}: {proc.stderr.strip()[-300:]}"]
    failed = [line.split()[1].rstrip(":") for line in proc.stdout.splitlines() if line.startswith("FAIL ")]
    return proc.returncode == 0, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guards", action="store_true", help="also break the pattern guards")
    parser.add_argument("--markdown", type=Path, help="write the table here too")
    args = parser.parse_args(argv)
    ok, failed = run_fixtures(None)
    if not ok:
        print("the fixtures fail before any mutation:", *failed, sep="\n  ")
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="hlo_passes_mutants_") as tmp:
        root = Path(tmp)
        for m in mutants(args.guards):
            shutil.rmtree(root / "hlo_passes", ignore_errors=True)
            shutil.copytree(REPO / "hlo_passes", root / "hlo_passes",
                            ignore=shutil.ignore_patterns("__pycache__", "*.so"))
            target = root / "hlo_passes" / m.file
            target.write_text(mutate(target.read_text(), m))
            passed, failed = run_fixtures(root)
            verdict = "survived" if passed else "killed"
            rows.append((m, verdict, failed))
            print(f"{verdict:8}  {m.kind:5}  {m.where:24}  {m.label:28}  {', '.join(failed[:3])}"
                  + (f" (+{len(failed) - 3})" if len(failed) > 3 else ""), flush=True)
    killed = sum(1 for _, v, _ in rows if v == "killed")
    print(f"\n{killed} of {len(rows)} mutants killed")
    if args.markdown:
        out = ["| check | where | broken: fixtures that fail |", "| --- | --- | --- |"]
        for m, verdict, failed in rows:
            cases = ", ".join(f"`{c}`" for c in failed[:3]) + (f" (+{len(failed) - 3})" if len(failed) > 3 else "")
            out.append(f"| {m.kind} `{m.label}` | `{m.where}` | {cases if failed else '**survived**'} |")
        args.markdown.write_text("\n".join(out) + "\n")
    return 0 if killed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
