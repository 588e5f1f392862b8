"""benchmarks/program_effect.py --quick: the fragment is written and its counts show the rewrite.

One run in a fresh process (the benchmark sets its own device count), into
a temporary folder.  No timing is asserted: a smoke run on a shared machine
says nothing about speed; the counts come from the compiled programs.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# A benchmark smoke run: long, not about the jax version (CI runs it once, docs/testing.md).
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent
SECTIONS = ("### Configurations", "### Collectives and copies", "### Device memory", "### Step time")
PROGRAMS = [f"tiny/{mesh}/{mode}" for mesh in ("mesh1", "mesh2") for mode in ("forward", "train")]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    out = tmp_path_factory.mktemp("program_effect")
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "program_effect.py"), "--quick", "--out", str(out)],
        cwd=REPO, env=dict(os.environ), capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return (out / "program_effect.md").read_text(), json.loads((out / "program_effect.json").read_text())


def _table(fragment: str, heading: str) -> dict[str, list[str]]:
    """Rows of the first table under ``heading``, keyed by their first cell."""
    section = fragment.split(heading, 1)[1]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("| ---") and not line.startswith("| program"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = cells[1:]
        elif rows and not line.startswith("|"):
            break
    return rows


def _pair(cell: str) -> tuple[int, int]:
    a, b = re.fullmatch(r"(\d+) → (\d+)", cell).groups()
    return int(a), int(b)


def test_fragment_has_every_table_and_program(quick_run) -> None:
    fragment, data = quick_run
    for heading in SECTIONS:
        assert heading in fragment
    for heading in SECTIONS[1:]:
        assert sorted(_table(fragment, heading)) == sorted(PROGRAMS), heading
    assert "Machine:" in fragment and data["machine"]["cores"] >= 1
    assert [p["key"] for p in data["programs"]] == PROGRAMS
    for p in data["programs"]:
        assert len(p["times_ms"][0]) == len(p["times_ms"][1]) == data["runs"] == 3
        assert p["original"]["peak_bytes"] > 0 and p["rewritten"]["peak_bytes"] > 0


def test_counts_show_the_rewrite(quick_run) -> None:
    """Half the all-gathers (one per FSDP stage instead of one per half and stage),
    in training also half the reduce-scatters; the bytes gathered stay the same."""
    fragment, data = quick_run
    table = _table(fragment, "### Collectives and copies")
    for key, cells in table.items():
        stages = 1 if "mesh1" in key else 2
        assert _pair(cells[1]) == (2 * stages, stages), key
        scatters = _pair(cells[3])
        assert scatters == ((2 * stages, stages) if key.endswith("train") else (0, 0)), key
    for p in data["programs"]:
        o, n = p["original"], p["rewritten"]
        assert o["all_gather_bytes"] == n["all_gather_bytes"] > 0
        # The slices before the gathers and the concatenate (and in training dW's pads) are gone.
        assert n["split_join_bytes"] < o["split_join_bytes"]
        rules = {s.split(":")[0] for s in p["sites"]}
        assert rules == ({"moe-gather-fusion", "moe-gradient-fusion"} if p["mode"] == "train"
                         else {"moe-gather-fusion"})
        # The benchmark refuses to report programs whose results differ; f32 agrees closely.
        assert p["max_abs_diff"] <= 1e-4
