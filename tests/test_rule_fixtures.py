"""The rules on small hand-written modules: FileCheck lines on the output and the report.

Each case of ``tests/fixtures/<pass>/*.{hlo,mlir}`` (see ``fixture_harness``)
is one test.  Nothing here imports jax: ``test_fixtures_run_without_jax``
runs this file again in a process where jax cannot be imported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fixture_harness import FIXTURES, all_cases, explain, fixture_files, run_case

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixture(case) -> None:
    outcome = run_case(case)
    problems = outcome.failures()
    if problems:
        pytest.fail(explain(outcome, problems), pytrace=False)


def test_every_rule_has_fixtures_in_both_dialects() -> None:
    from hlo_passes.passes import available_passes

    names = {p.parent.name for p in fixture_files()}
    assert names == set(available_passes()), "a fixture folder per pass, named after it"
    for name in names:
        suffixes = {p.suffix for p in (FIXTURES / name).iterdir()}
        assert suffixes == {".hlo", ".mlir"}, name
    assert len(CASES) >= 2 * len(names)


# Blocks ``import jax`` (and jaxlib) for the whole child process: the first
# import of either raises, which fails the test that did it.
_NO_JAX = textwrap.dedent("""
    import importlib.abc, json, sys

    class NoJax(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("jax", "jaxlib"):
                raise ImportError(f"jax is hidden in this process ({name})")
            return None

    sys.meta_path.insert(0, NoJax())
    import pytest
    code = pytest.main(sys.argv[1:])
    hidden = True
    try:
        import jax  # noqa: F401
        hidden = False
    except ImportError:
        pass
    print("NOJAX " + json.dumps({"code": int(code), "hidden": hidden,
                                 "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib"))}))
""")


def test_fixtures_run_without_jax(tmp_path: Path) -> None:
    """The harness, the parsers, the rules and the printer need no jax: every fixture
    passes in a process where importing jax raises."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(
        [sys.executable, "-c", _NO_JAX, str(Path(__file__)), "-q", "-p", "no:cacheprovider",
         "-k", "not without_jax", f"--basetemp={tmp_path / 'child'}"],
        cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True, timeout=600,
    )
    tail = proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("NOJAX ")]
    assert lines, tail
    status = json.loads(lines[-1][len("NOJAX "):])
    assert status["hidden"] and status["loaded"] == [], status
    assert status["code"] == 0, tail
    # Every case ran (and passed) there, plus the folder check.
    assert f"{len(CASES) + 1} passed" in proc.stdout, tail
