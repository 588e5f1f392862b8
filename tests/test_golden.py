"""Every module the tests and examples produce, rewritten, against tests/golden/ byte for byte.

A failure shows the diff; if the change is intended, ``make golden`` writes the
new files and ``git diff tests/golden`` is what to review (see golden_cases.py).
"""
from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from conftest import shared_path
from golden_cases import GOLDEN, cases, committed, jax_set, normalized, outputs

_DUMPS: dict = {}
SHARED = shared_path()
CASES = cases(lambda: _DUMPS, SHARED if (SHARED / "samples").is_dir() else None)
VERSION_SET = jax_set()


def _folder(case) -> Path:
    return GOLDEN / (VERSION_SET if case.versioned else "common")


def _diff(want: str, have: str, name: str) -> str:
    lines = list(difflib.unified_diff(have.splitlines(), want.splitlines(), f"golden/{name}", "now", lineterm="", n=2))
    return "\n".join(lines[:80]) + ("\n..." if len(lines) > 80 else "")


@pytest.fixture(scope="module")
def version_set_present() -> None:
    if not (GOLDEN / VERSION_SET).is_dir():
        pytest.skip(f"no golden set for {VERSION_SET} (tests/golden/{VERSION_SET}); `make golden` writes it")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rewrite_matches_golden(case, request, version_set_present) -> None:
    if case.name.startswith("dumps/") and not _DUMPS:
        _DUMPS.update(request.getfixturevalue("own_dumps"))
    want = outputs(case, normalized(case.make()))
    folder = _folder(case)
    stem = Path(case.name).name
    have = {p.name: p.read_text(encoding="utf-8", errors="surrogateescape")
            for p in (folder / case.name).parent.glob(f"{stem}.*")
            if p.name in (f"{stem}.report.json", f"{stem}.out{case.suffix}")}
    want = {Path(k).name: v for k, v in want.items()}
    problems = []
    for name in sorted(set(want) | set(have)):
        if name not in have:
            problems.append(f"{name}: not in the golden set (the module changed now: a new rewrite?)")
        elif name not in want:
            problems.append(f"{name}: in the golden set, but the module is no longer changed")
        elif want[name] != have[name]:
            problems.append(_diff(want[name], have[name], f"{folder.name}/{Path(case.name).parent}/{name}"))
    assert not problems, "\n\n".join(problems) + "\n\n(intended? `make golden`, then review `git diff tests/golden`)"


def test_no_stale_golden_files(version_set_present) -> None:
    """Every committed golden file belongs to a module the tests still produce."""
    names = {(VERSION_SET if c.versioned else "common", c.name) for c in CASES}
    stale = []
    for rel in committed(VERSION_SET):
        folder, inner = rel.parts[0], Path(*rel.parts[1:])
        stem = str(inner).rsplit(".report.json", 1)[0] if inner.name.endswith(".report.json") \
            else str(inner).rsplit(".out.", 1)[0]
        if (folder, stem) not in names and not (stem.startswith("samples/") and not (SHARED / "samples").is_dir()):
            stale.append(str(rel))
    assert not stale, f"golden files of modules no test produces (`make golden` removes them): {stale[:10]}"
