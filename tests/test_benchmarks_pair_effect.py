"""benchmarks/pair_effect.py --quick: MOE003's benchmark runs the rule on every form and its
counts show the rewrite.

One run in a fresh process (the benchmark sets its own device count).  No timing is
asserted; the counts come from the compiled programs.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# A benchmark smoke run: long, not about the jax version (CI runs it once, docs/testing.md).
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent
FORMS = ("explicit", "implicit", "concat_inside")
PROGRAMS = [f"tiny/{mesh}/{form}/{mode}" for mesh in ("mesh1", "mesh2") for form in FORMS
            for mode in ("forward", "train")]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("pair_effect")
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "pair_effect.py"), "--quick", "--out", str(out)],
        cwd=REPO, env=dict(os.environ), capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    fragment = (out / "pair_effect.md").read_text()
    for key in PROGRAMS:
        assert f"| {key} |" in fragment, key
    return json.loads((out / "pair_effect.json").read_text())


def test_every_form_is_rewritten_and_its_gathers_halved(quick_run) -> None:
    assert [p["key"] for p in quick_run["programs"]] == PROGRAMS
    for p in quick_run["programs"]:
        o, n = p["original"], p["rewritten"]
        assert any(s.startswith("moe-pair-gather-fusion:") for s in p["sites"]), p["key"]
        # Each weight gathered once per stage before; both together once per stage after.
        assert o["all_gather_count"] == 2 * n["all_gather_count"] > 0, (p["key"], o["all_gather_count"],
                                                                      n["all_gather_count"])
        assert o["all_gather_bytes"] == n["all_gather_bytes"] > 0, p["key"]
        assert len(p["times_ms"][0]) == len(p["times_ms"][1]) == quick_run["runs"] == 3
        # The benchmark refuses programs whose results differ; f32 agrees closely.
        assert p["max_abs_diff"] <= 1e-4, p["key"]
