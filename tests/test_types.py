"""The type checker over ``hlo_passes/`` (mypy, ``[tool.mypy]`` in pyproject.toml), as CI runs it.

mypy is one of the test extras; it runs in a subprocess of this interpreter, so both CI
environments check the package against their own jax.  The rules and their engine
(``hlo_passes.rewrites``), the parsers and the printers are held to more: every function's
parameters and result annotated (``disallow_untyped_defs``).  The packages in ``STRICT`` are
held to what ``mypy --strict`` checks in a module (an override in pyproject.toml, issue 48).
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
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


# Packages under mypy --strict's per-module flags (issue 48), and those flags.
STRICT = ("hlo_passes.ir", "hlo_passes.dialects", "hlo_passes.passes", "hlo_passes.diagnostics",
          "hlo_passes.lowering", "hlo_passes.gmm", "hlo_passes.rewrites")
# Modules on their own, not packages: the pass interface and the pipeline driver; the rule model
# (rule.py), the check ids (checks.py), sites and near misses (report.py).
STRICT_MODULES = ("hlo_passes.pass_interface", "hlo_passes.pipeline_driver", "hlo_passes.rule", "hlo_passes.checks",
                  "hlo_passes.report")
STRICT_FLAGS = {"disallow_any_generics": True, "disallow_subclassing_any": True, "disallow_untyped_calls": True,
                "disallow_untyped_defs": True, "disallow_incomplete_defs": True, "check_untyped_defs": True,
                "disallow_untyped_decorators": True, "warn_return_any": True, "implicit_reexport": False,
                "extra_checks": True}


def _in_rules(error: str) -> bool:
    return error.replace("\\", "/").startswith("hlo_passes/rewrites/")


def test_the_package_type_checks() -> None:
    others = [e for e in _errors() if not _in_rules(e)]
    assert not others, f"{len(others)} type errors:\n" + "\n".join(others)


def test_the_rules_are_annotated_and_type_check() -> None:
    rules = [e for e in _errors() if _in_rules(e)]
    assert not rules, f"{len(rules)} type errors in hlo_passes/rewrites:\n" + "\n".join(rules)


def test_the_strict_packages_are_held_to_strict() -> None:
    """Each package of ``STRICT`` (and its modules) is in an override with every per-module flag
    of ``--strict``; the global ones are on for all (so the type check above enforces them)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["warn_redundant_casts"] and config["warn_unused_ignores"] and config["strict_equality"]
    for package in (*STRICT, *STRICT_MODULES):
        names = [package] if package in STRICT_MODULES else [package, f"{package}.*"]
        held = [o for o in config["overrides"] if all(n in o["module"] for n in names)
                and all(o.get(flag) == value for flag, value in STRICT_FLAGS.items())]
        assert held, f"{package} is not under mypy --strict's flags in pyproject.toml"
