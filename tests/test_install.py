"""Installing hlo_passes never moves the user's jax (issue 12).

pip resolves the project's requirements against the environment the suite
runs in, offline (``--no-index``): if a requirement could only be met by
another jax than the installed one, pip fails here, where CI sees it.  In
the Python 3.12 environment that jax is the newest release (0.12.x), so a
cap such as ``<0.12`` fails this test; ``tools/test_env.sh`` does the real
install there and checks the versions before and after as well.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from programs import REPO_ROOT


def _requirements() -> list[str]:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def _dry_run(requirements: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """pip's plan for ``requirements`` in this environment: what it would install."""
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--quiet",
         "--disable-pip-version-check", "--report", str(report), *requirements],
        capture_output=True, text=True, timeout=300,
    )
    planned = []
    if proc.returncode == 0:
        planned = [item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]]
    return proc, planned


def test_the_requirements_are_met_by_the_installed_jax(tmp_path: Path) -> None:
    proc, planned = _dry_run(_requirements(), tmp_path)
    assert proc.returncode == 0, f"pip cannot meet hlo_passes' requirements with the installed jax:\n{proc.stderr}"
    assert "jax" not in planned and "jaxlib" not in planned, planned


def test_a_cap_below_the_installed_jax_would_be_caught(tmp_path: Path) -> None:
    # The check above can fail: cap jax just below what is installed.
    installed = metadata.version("jax")
    proc, planned = _dry_run([*_requirements(), f"jax<{installed}"], tmp_path)
    assert proc.returncode != 0 or "jax" in planned


@pytest.mark.parametrize("name", ["jax", "jaxlib"])
def test_no_upper_bound_on_jax(name: str) -> None:
    (spec,) = [r for r in _requirements() if r.split(">")[0].split("<")[0].split("=")[0].strip() == name]
    assert "<" not in spec, f"{spec}: an upper bound would force newer jax down"
