"""The check-id table (issue 27): one meaning per check id, in ``hlo_passes/checks.py`` and in
``docs/checks.md``, and every id the rules raise is in it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hlo_passes.checks import CHECKS, legend, meaning

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hlo_passes"


def _raised_ids() -> set[str]:
    """Every check id the package raises: ``Refusal("id", ...)``, ``Refusal(INCONSISTENT, ...)``,
    ``refusal.check = "id"`` and the ``f"{verb}-dim"`` ids of ``ALONG_A_DIMENSION``."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
                elif isinstance(first, ast.Name) and first.id == "INCONSISTENT":
                    found.add("inconsistent-shapes")
                elif isinstance(first, ast.JoinedStr):
                    found.update(("gather-dim", "scatter-dim"))
                elif isinstance(first, ast.Name):  # a local variable: the constants assigned to it
                    values = [c.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                              and any(getattr(t, "id", None) == first.id for t in n.targets)
                              for c in ast.walk(n.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                    found.update(values or [f"<name {first.id} in {path.name}>"])
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and any(
                    isinstance(t, ast.Attribute) and t.attr == "check" for t in node.targets):
                found.add(node.value.value)
    return found


def test_every_raised_check_has_a_meaning() -> None:
    raised = _raised_ids()
    assert raised, "no Refusal found: the scan is broken"
    assert raised - set(CHECKS) == set()


def test_every_meaning_is_of_a_check_the_package_names() -> None:
    source = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py") if p.name != "checks.py")
    unused = [c for c in CHECKS if f'"{c}"' not in source and c not in _raised_ids()]
    assert unused == []


def test_one_line_per_check_and_the_docs_hold_the_same_table() -> None:
    for check, text in CHECKS.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", check) and "\n" not in text and not text.endswith(".")
    rows = re.findall(r"^\| `([a-z-]+)` \| (.*) \|$", (ROOT / "docs" / "checks.md").read_text(), re.M)
    assert dict(rows) == CHECKS and [r[0] for r in rows] == list(CHECKS)


def test_legend_names_each_known_check_once_in_order() -> None:
    assert legend(["same-shape", "plugin-check", "concat-dim", "same-shape"]) == [
        f"same-shape: {CHECKS['same-shape']}", f"concat-dim: {CHECKS['concat-dim']}"]
    assert meaning("plugin-check") is None
