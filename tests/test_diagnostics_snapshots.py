"""Snapshot tests of every emitter of ``hlo_passes.diagnostics``: the lint's formats (text, JSON,
GitHub, SARIF, its stderr notes), ``hlo-rewrite``'s own lines, the jit hook's summary and the
lines ``install()`` warns.  The expected outputs are under ``tests/snapshots/``; a change to any
output fails here.  After a change that is meant, refresh them and read the diff:

    HLO_PASSES_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_diagnostics_snapshots.py

The inputs are fixed texts of the repository (no jax lowering), linted from the repository
root with relative paths, so the outputs are the same in every checkout and jax version.
"""
from __future__ import annotations

import difflib
import io
import json
import os
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes import cli, diagnostics
from hlo_passes._version import __version__
from hlo_passes.lint import json_schema, lint_files
from hlo_passes.passes import run_passes
from programs import REPO_ROOT
from sarif_structure import check_sarif

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("HLO_PASSES_UPDATE_SNAPSHOTS") == "1"

# Sites in both dialects and both rules, op names from metadata (compiled.hlo, the first case
# of the fixture of that name), a near miss (the first of near_miss_slices.mlir), a file that
# does not parse and one that does not exist.
LINTED = [
    "examples/data/moe_mesh2_concat.hlo",
    "examples/data/moe_mesh2_concat.mlir",
    "tests/snapshots/inputs/compiled.hlo",
    "tests/snapshots/inputs/near_miss_slices.mlir",
    "tests/snapshots/inputs/pad_add.mlir",
    "tests/snapshots/inputs/broken.hlo",
    "tests/snapshots/inputs/no_such_file.hlo",
]
REWRITTEN = ["examples/data/moe_mesh2_concat.hlo", "tests/snapshots/inputs/pad_add.mlir",
             "tests/snapshots/inputs/near_miss_slices.mlir", "tests/snapshots/inputs/compiled.hlo"]


def check_snapshot(name: str, actual: str) -> None:
    """``actual`` must equal ``tests/snapshots/<name>`` (rewritten instead when updating)."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(actual)
        return
    assert path.is_file(), f"no snapshot {path}: HLO_PASSES_UPDATE_SNAPSHOTS=1 writes it"
    expected = path.read_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"{name} (snapshot)", f"{name} (now)"))
        pytest.fail(f"output differs from its snapshot (HLO_PASSES_UPDATE_SNAPSHOTS=1 refreshes it):\n{diff}")


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)


def _lint_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.lint_main([*LINTED, "-j", "1", "--no-progress", *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_lint_formats(at_root: None, fmt: str) -> None:
    code, out, err = _lint_cli("--format", fmt, "--explain")
    assert code == 2  # a file failed
    if fmt == "json":
        jsonschema.validate(json.loads(out), json_schema())
    if fmt == "sarif":
        check_sarif(json.loads(out))
        out = _stable_sarif(out)
    check_snapshot(f"lint.{fmt}", out)
    # stderr: the errors again (for a machine-readable format) and the near misses.
    check_snapshot(f"lint.{fmt}.stderr" if fmt == "text" else "lint.machine.stderr", err)


def test_folded_copies_in_each_format(at_root: None) -> None:
    run = lint_files(LINTED[:2], jobs=1)
    copies = [replace(f, copies=4, paths=(f.path, "host1/m.hlo", "host2/m.hlo", "host3/m.hlo"))
              for f in run.findings]
    text = diagnostics.format_text(copies, files=8, modules=2)
    github = diagnostics.format_github(copies)
    sarif = _stable_sarif(diagnostics.format_sarif(copies))
    check_snapshot("copies.text", text)
    check_snapshot("copies.github", github)
    check_snapshot("copies.sarif", sarif)


# A forward step's dump folder as XLA writes it (tests/train_step_dump_worker.py --forward
# --relative-sources --xla-only; the StableHLO handed to XLA, before and after optimizations),
# its stack frames naming examples/moe.py relative to the checkout: the site folded across its
# stages and, in github and sarif, placed on the source line (issue 27).
DUMP = "tests/snapshots/inputs/xla_dump"


@pytest.mark.parametrize("fmt", ["text", "github", "sarif"])
def test_dump_stages_fold_at_the_source(at_root: None, fmt: str) -> None:
    out = io.StringIO()
    code = cli.lint_main([DUMP, "-j", "1", "--no-progress", "--format", fmt, "--source-root", "."], stdout=out,
                         stderr=io.StringIO())
    assert code == 1
    text = out.getvalue()
    if fmt == "sarif":
        check_sarif(json.loads(text))
        text = _stable_sarif(text)
    check_snapshot(f"stages.{fmt}", text)


def _stable_sarif(log: str) -> str:
    """The version changes with every release, the checkout's place with the machine (the
    %SRCROOT% base); the rest of the log must not."""
    return (log.replace(f'"version": "{__version__}"', '"version": "<version>"')
            .replace(f'"{REPO_ROOT.resolve().as_uri()}/"', '"file:///<checkout>/"'))


def test_rewrite_lines(at_root: None) -> None:
    out = []
    for path in REWRITTEN:
        err = io.StringIO()
        code = cli.rewrite_main([path, "--dry-run", "--explain"], stdout=io.StringIO(), stderr=err)
        out.append(f"$ hlo-rewrite {path} --dry-run --explain  # exit {code}\n{err.getvalue()}")
    check_snapshot("rewrite.stderr", "".join(out))


def test_rule_listings() -> None:
    passes, rules = io.StringIO(), io.StringIO()
    assert cli.rewrite_main(["--list-passes"], stdout=passes) == 0
    assert cli.lint_main(["--list-rules"], stdout=rules) == 0
    check_snapshot("listings", f"$ hlo-rewrite --list-passes\n{passes.getvalue()}$ hlo-lint --list-rules\n{rules.getvalue()}")


def _results() -> list[tuple[str, object]]:
    results = []
    for path in REWRITTEN:
        results.append((path, run_passes(hlo_passes.parse_file(path))))
    return results


def test_jit_summary_lines(at_root: None) -> None:
    from hlo_passes.jax_hook import RewrittenLowered  # deferred: it imports jax (seconds)

    out = []
    original = object()
    for path, result in _results():
        # What explain() and the log say of a lowering that these passes rewrote, or left.
        lowered = object() if result.changed else original
        low = RewrittenLowered(original, lowered, result, None, name=Path(path).stem)
        out.extend(low.summary_lines())
    out.extend(RewrittenLowered(original, original, None, None, name="helper").summary_lines())
    out.extend(RewrittenLowered(original, original, None, RuntimeError("XLA said no"), name="step").summary_lines())
    check_snapshot("jit.summary", "\n".join(out) + "\n")


def test_install_hook_lines(at_root: None) -> None:
    findings = lint_files(LINTED[:3], jobs=1).findings
    lines = [diagnostics.hook_warning(f, "jit_train_step", tag) for f in findings
             for tag in ("", "[process 1 of 4] ")]
    check_snapshot("hook.warnings", "\n".join(lines) + "\n")


def test_snapshot_check_fails_on_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The check itself must be able to fail (and says how to refresh).
    monkeypatch.setattr(f"{__name__}.SNAPSHOTS", tmp_path)
    monkeypatch.setattr(f"{__name__}.UPDATE", False)
    (tmp_path / "x").write_text("one\n")
    check_snapshot("x", "one\n")
    with pytest.raises(pytest.fail.Exception, match="HLO_PASSES_UPDATE_SNAPSHOTS=1"):
        check_snapshot("x", "two\n")
