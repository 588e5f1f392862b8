"""Which source files are the repository's (``--source-root``), for GitHub and SARIF (issue 27).

A dump's stack frames name files as jax recorded them on the machine that lowered the program;
the lint may run in another checkout (a CPU runner linting a TPU job's dump).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlo_passes.diagnostics import Diagnostic, format_github, format_sarif
from hlo_passes.diagnostics.places import SourceRoot, default_source_root
from sarif_structure import check_sarif

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    for rel in ("model/moe.py", "src/pkg/layer.py", "train.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# code\n")
    (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/checkout\n")  # a worktree's .git is a file
    (tmp_path / "outside.py").write_text("# not the repository's\n")
    return root


def test_default_root_is_the_git_top_level(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "model")
    assert default_source_root() == repo.resolve()
    assert SourceRoot().root == repo.resolve()
    assert default_source_root(repo.parent) == repo.parent.resolve()  # no git above: the directory itself


@pytest.mark.parametrize("source, expected", [
    ("{repo}/model/moe.py:21", ("model/moe.py", 21)),  # this machine, inside
    ("{tmp}/outside.py:3", None),  # this machine, outside the repository
    ("/home/runner/work/p/p/model/moe.py:21", ("model/moe.py", 21)),  # another machine's checkout
    ("model/moe.py:7", ("model/moe.py", 7)),  # recorded relative (jax's canonicalization regex)
    ("/venv/lib/python3.12/site-packages/pkg/layer.py:5", ("src/pkg/layer.py", 5)),  # pip install . of it
    ("/venv/lib/python3.12/site-packages/flax/linen/module.py:700", None),  # another library
    ("/home/runner/work/p/p/model/gone.py:21", None),
    ("{repo}/train.py", ("train.py", 0)),  # no line
    (None, None),
])
def test_sources_in_the_repository(repo: Path, source: str | None, expected) -> None:
    root = SourceRoot(repo)
    if source is not None:
        source = source.format(repo=repo, tmp=repo.parent)
    assert root.source(source) == expected


def _finding(source: str, path: str) -> Diagnostic:
    return Diagnostic(rule="MOE001", path=path, line=12, column=3, message="unfused", op_name="concatenate",
                      source=source, bytes_saved=64, pass_name="moe-gather-fusion", form="concat",
                      details={"pieces": [{"line": 10, "column": 3, "op_name": "slice", "source": source}]})


def test_github_and_sarif_primary_location(repo: Path) -> None:
    dump = repo.parent / "dump.txt"
    dump.write_text("HloModule m\n")
    inside, outside = _finding("/ci/p/p/model/moe.py:21", str(dump)), _finding("/ci/lib/other.py:9", str(dump))
    root = SourceRoot(repo)
    gh = format_github([inside, outside], root).splitlines()
    assert gh[0].startswith("::warning file=model/moe.py,line=21,title=MOE001::unfused")
    assert gh[0].endswith(f"; found in {dump}:12:3")
    assert gh[1].startswith(f"::warning file={dump},line=12,col=3,title=MOE001::")
    log = json.loads(format_sarif([inside, outside], root))
    check_sarif(log)
    first, second = log["runs"][0]["results"]
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "model/moe.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 21}}
    assert first["relatedLocations"][0]["physicalLocation"]["artifactLocation"] == {"uri": dump.resolve().as_uri()}
    assert second["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": dump.resolve().as_uri()}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
