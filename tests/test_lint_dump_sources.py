"""Where a finding points, on real dumps of the jax version under test (issue 27).

* XLA's dumps (``--xla_dump_to``, every stage) and ``compiled.as_text()`` carry each op's
  ``stack_frame_id`` and the stack-frame tables: every finding there has the user's source line
  (examples/moe.py), the same one the StableHLO with debug info gives, and no "no metadata" note;
  the frames decoded agree with XLA's own reading of the tables (its HLO -> MLIR import).
* ``install()`` warns at the user's source line.
* A training step dumped the way a CI job dumps it (``XLA_FLAGS=--xla_dump_to=... ``, jax's
  ``JAX_DUMP_IR_TO`` into the same folder; tests/train_step_dump_worker.py) lints to one finding
  per site, reported at the earliest stage with the others listed; ``--no-fold`` shows them all.
* ``--format github`` / ``sarif`` with ``--source-root`` put the primary location on the user's
  file, relative to the root, and the dump position in a related location.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes import cli
from hlo_passes.lint import json_schema, lint_files, lint_text
from hlo_passes.report import shown_source, stack_of
from programs import REPO_ROOT
from sarif_structure import check_sarif

MOE_PY = str(REPO_ROOT / "examples" / "moe.py")
# What says the text has no source lines (report.source_hint's notes).
NO_LINES = re.compile(r"no op metadata|no source locations|no source lines|does not hold")


def _sources(finding) -> tuple[str | None, tuple[str, ...]]:
    return finding.source, tuple(sorted(p["source"] for p in finding.details["pieces"]))


def _lint_dir(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.lint_main([*argv, "--no-progress", "-j", "1"], stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


# ---- stack-frame source lines in XLA's dumps -------------------------------------------


def test_every_dump_finding_has_the_users_source_line(own_dumps) -> None:
    """Every stage XLA dumps, both rules: the source line of the site and of each half, from the
    stack frames; the halves start where the StableHLO with debug info says."""
    programs = sorted({p for p, _ in own_dumps})
    checked = 0
    for program in programs:
        lowered = {f.rule: f for f in lint_text(own_dumps[(program, "stablehlo_debuginfo")].text)}
        assert lowered and all(f.source and f.source.startswith(MOE_PY) for f in lowered.values())
        for (p, stage), own in own_dumps.items():
            if p != program or own.dialect != "hlo":
                continue
            text = own.text
            assert "stack_frame_id=" in text and "\nStackFrames\n" in text, (program, stage)
            for f in lint_text(text, path=stage):
                checked += 1
                where = (program, stage, f.rule)
                assert f.source and f.source.startswith(MOE_PY + ":"), where
                assert f.source_function, where
                assert not any(NO_LINES.search(n) for n in f.notes), (where, f.notes)
                assert _sources(f)[1] == _sources(lowered[f.rule])[1], where
    assert checked >= 3 * len(programs)


def test_compiled_as_text_has_the_users_source_line(own_texts) -> None:
    from programs import OWN_PROGRAMS

    for (program, form), own in own_texts.items():
        if form != "compiled":
            continue
        findings = lint_text(own.text)
        assert bool(findings) == (OWN_PROGRAMS[program].variant != "fused"), program
        for f in findings:
            assert f.source and f.source.startswith(MOE_PY + ":"), (program, f.rule)
            assert all(p["source"] and p["source"].startswith(MOE_PY) for p in f.details["pieces"])


def test_hlo_without_metadata_says_which_call_keeps_it(own_texts) -> None:
    # lowered.as_text(dialect="hlo") drops the metadata; the note names the call that keeps it.
    program = sorted(p for p, _ in own_texts)[0]
    text = own_texts[(program, "hlo")].text
    assert "metadata=" not in text
    findings = lint_text(text)
    assert findings
    for f in findings:
        assert f.source is None and 'lowered.as_text(dialect="hlo", debug_info=True)' in f.notes[-1]


@pytest.mark.jax_facing
def test_hlo_with_debug_info_has_source_lines() -> None:
    from examples import moe

    text = moe.lower("concat", mesh="mesh1").as_text(dialect="hlo", debug_info=True)
    (f,) = lint_text(text)
    assert f.source and f.source.startswith(MOE_PY + ":") and not any(NO_LINES.search(n) for n in f.notes)


@pytest.mark.jax_facing
def test_decoded_frames_agree_with_xlas_import(own_dumps) -> None:
    """XLA's HLO -> MLIR import turns the tables into callsite locations: the stacks it builds
    are the stacks decoded here, frame for frame (parents, order, files, lines, functions)."""
    from hlo_passes import _jax_compat as compat

    for program in sorted({p for p, _ in own_dumps})[:2]:
        text = own_dumps[(program, "before_optimizations")].text
        stacks = {}
        for which, module in (("ours", hlo_passes.parse(text)),
                              ("xla", hlo_passes.parse(_mlir_text(compat.hlo_text_to_stablehlo(text))))):
            stacks[which] = {tuple((f.source, f.function) for f in stack_of(instr)) for instr in module.instructions()}
            stacks[which].discard(())
        assert stacks["ours"] and stacks["ours"] == stacks["xla"], program


def _mlir_text(bytecode: bytes) -> str:
    from hlo_passes import _jax_compat as compat

    return compat.mlir_print(compat.parse_mlir(bytecode), debug_info=True)


@pytest.mark.jax_facing
def test_install_warns_at_the_source_line() -> None:
    import jax

    from hlo_passes import jax_hook
    from test_jax_hook import NO_FUSION, UNFUSED, _program

    fn, args = _program(UNFUSED)
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            jax.jit(fn, compiler_options=NO_FUSION)(*args)
    finally:
        hlo_passes.uninstall()
    (w,) = [w for w in record if issubclass(w.category, jax_hook.MoELintWarning)]
    (finding,) = [f for f in lint_text(jax.jit(fn, compiler_options=NO_FUSION).lower(*args).as_text(debug_info=True))]
    file, line = finding.source.rsplit(":", 1)
    # Python shows the warning at the user's line (and prints it), and the text says where too.
    assert (w.filename, w.lineno) == (file, int(line)) and file == MOE_PY
    assert f" at {shown_source(finding.source)} (in {finding.source_function})" in str(w.message)


# ---- one finding per site in a dump folder of a training step -------------------------------


@pytest.fixture(scope="module")
def train_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training step's dump folder, as a CI job writes it (XLA's dumps and jax's, one folder)."""
    out = tmp_path_factory.mktemp("train_step_dump")
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_DUMP_IR_TO")}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "train_step_dump_worker.py"), str(out)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_one_finding_per_site_across_stages(train_dump: Path) -> None:
    names = sorted(p.name for p in train_dump.rglob("*") if "jit_step" in p.name or p.name == "module.mlir")
    assert any(n.endswith(".before_optimizations.txt") for n in names) and "module.mlir" in names
    assert any(n.startswith("jax_ir") for n in names)
    run = lint_files([str(train_dump)], jobs=1)
    unfolded = lint_files([str(train_dump)], jobs=1, fold=False)
    # Sites: (rule, source line of the halves); each stage reports each site once.
    per_stage = Counter((f.rule, _sources(f)[1]) for f in unfolded.findings)
    assert len(per_stage) == len(run.findings) == 2  # MOE001 forward, MOE002 its gradient
    assert all(n >= 2 for n in per_stage.values()), per_stage
    for f in run.findings:
        assert f.source and f.source.startswith(MOE_PY + ":")
        # Reported at the earliest stage: the StableHLO handed to XLA (jax's copy of module.mlir).
        assert f.path.endswith(".mlir") and f.copies == 2, f.path
        # Every other stage that has the site is listed, in compile order, as notes too.
        stage_paths = {g.path for g in unfolded.findings if (g.rule, _sources(g)[1]) == (f.rule, _sources(f)[1])}
        assert {s.path for s in f.stages} | set(f.all_paths) == stage_paths
        assert [n for n in f.notes if n.startswith("also at ")] == [f"also at {s}" for s in f.stages]
        assert f.stages[0].stage == "before_optimizations"
    data = json.loads(_lint_dir(str(train_dump), "--format", "json")[1])
    jsonschema.validate(data, json_schema())
    assert [len(d["stages"]) for d in data] == [len(f.stages) for f in run.findings]
    code, text = _lint_dir(str(train_dump), "--no-fold")
    assert code == 1 and text.splitlines()[-1].startswith(f"{sum(per_stage.values())} findings in ")


def test_dump_folders_of_the_own_programs_fold_to_one_finding_per_site(own_dump_dir: Path) -> None:
    for folder in sorted(p for p in own_dump_dir.iterdir() if p.is_dir()):
        unfolded = lint_files([str(folder)], jobs=1, fold=False).findings
        folded = lint_files([str(folder)], jobs=1).findings
        # At most one site per rule in these programs.
        assert sorted(f.rule for f in folded) == sorted({f.rule for f in unfolded}), folder.name
        assert sum(1 + len(f.stages) for f in folded) + sum(f.copies - 1 for f in folded) == len(unfolded)


# ---- GitHub and SARIF: the user's file is the primary location -------------------------------


def _repo_copy(tmp_path: Path, train_dump: Path) -> tuple[Path, Path]:
    """A checkout (a git top level holding examples/moe.py) and the dump made elsewhere: its
    stack frames name another machine's absolute paths."""
    repo = tmp_path / "checkout"
    (repo / "examples").mkdir(parents=True)
    (repo / ".git").mkdir()
    shutil.copy(MOE_PY, repo / "examples" / "moe.py")
    dump = tmp_path / "dump"
    shutil.copytree(train_dump, dump)
    for p in dump.rglob("*"):
        if p.suffix in (".txt", ".mlir"):
            p.write_text(p.read_text().replace(str(REPO_ROOT), "/home/runner/work/proj/proj"))
    return repo, dump


def test_github_annotations_land_on_the_source(tmp_path: Path, train_dump: Path, monkeypatch) -> None:
    repo, dump = _repo_copy(tmp_path, train_dump)
    monkeypatch.chdir(repo)  # the default --source-root: the git top level of the working directory
    code, out = _lint_dir(str(dump), "--format", "github")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2
    for line in lines:
        m = re.match(r"::warning file=examples/moe\.py,line=(\d+),title=MOE00[12]::.*; found in (\S+):(\d+):(\d+); "
                     r"also in \d+ other stages? of the module", line)
        assert m, line
        assert m.group(2).startswith(str(dump))
    # Not a file of the repository (another --source-root): the dump position, as before.
    other = tmp_path / "elsewhere"
    other.mkdir()
    code, out = _lint_dir(str(dump), "--format", "github", "--source-root", str(other))
    lines = out.splitlines()
    assert len(lines) == 2 and all(re.match(rf"::warning file={re.escape(str(dump))}/\S+,line=\d+,col=\d+,", line)
                                   for line in lines), lines


def test_sarif_results_point_at_the_source(tmp_path: Path, train_dump: Path) -> None:
    repo, dump = _repo_copy(tmp_path, train_dump)
    code, out = _lint_dir(str(dump), "--format", "sarif", "--source-root", str(repo))
    log = json.loads(out)
    check_sarif(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    assert len(run["results"]) == 2
    for result in run["results"]:
        (primary,) = result["locations"]
        assert primary["physicalLocation"]["artifactLocation"] == {"uri": "examples/moe.py", "uriBaseId": "%SRCROOT%"}
        line = primary["physicalLocation"]["region"]["startLine"]
        assert result["properties"]["source"].endswith(f"/examples/moe.py:{line}")
        related = result["relatedLocations"]
        # First the dump position (outside the repository: an absolute file: URI).
        assert related[0]["message"]["text"].startswith("found at ")
        assert related[0]["physicalLocation"]["artifactLocation"]["uri"].startswith(dump.resolve().as_uri())
        halves = [r for r in related if r["message"]["text"].startswith("half ")]
        assert len(halves) == 2 and all(h["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
                                        for h in halves)
        assert sum(r["message"]["text"].startswith("the same site in another stage") for r in related) >= 1
    # Without the file in the repository, the dump position is the primary location.
    other = tmp_path / "elsewhere"
    other.mkdir()
    log = json.loads(_lint_dir(str(dump), "--format", "sarif", "--source-root", str(other))[1])
    check_sarif(log)
    for result in log["runs"][0]["results"]:
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(dump.resolve().as_uri())
