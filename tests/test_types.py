"""The type checker over ``hlo_passes/`` (mypy, ``[tool.mypy]`` in pyproject.toml), as CI runs it.

mypy is one of the test extras; it runs in a subprocess of this interpreter, so both CI
environments check the package against their own jax.  The rules and their engine
(``hlo_passes.rewrites``), the parsers and the printers are held to more: every function's
parameters and result annotated (``disallow_untyped_defs``).
"""
from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# path:line: error: message  [code]
_ERROR = re.compile(r"^(?P<path>[^:\n]+):\d+: error: .*$", re.M)


@cache
def _errors() -> tuple[str, ...]:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml")],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    errors = tuple(m.group(0) for m in _ERROR.finditer(proc.stdout))
    # Exit 1 is "type errors found" (listed); anything else is mypy failing to run at all.
    assert proc.returncode in (0, 1) and (proc.returncode == 0) == (not errors), proc.stdout + proc.stderr
    return errors


def _in_rules(error: str) -> bool:
    return error.replace("\\", "/").startswith("hlo_passes/rewrites/")


def test_the_package_type_checks() -> None:
    others = [e for e in _errors() if not _in_rules(e)]
    assert not others, f"{len(others)} type errors:\n" + "\n".join(others)


def test_the_rules_are_annotated_and_type_check() -> None:
    rules = [e for e in _errors() if _in_rules(e)]
    assert not rules, f"{len(rules)} type errors in hlo_passes/rewrites:\n" + "\n".join(rules)
