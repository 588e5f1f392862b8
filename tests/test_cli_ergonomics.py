"""The console scripts as a user meets them (issue 28), run as subprocesses on real files:
``--version``; a ``--graph`` folder that cannot be made is exit 2 before any work; ``-o`` naming
the input is refused; ``hlo-lint -`` reads stdin; ``hlo-rewrite`` takes several files and
folders; passes by rule code or name, the default set said truthfully, a hint when only an
opt-in rule would fire; help without typos; ``.pb`` dumps skipped with a note; an input over
``--max-input-size`` refused before anything reads it."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes._version import __version__
from hlo_passes.passes import run_passes
from fixture_harness import FIXTURES, cases_of
from test_cli import HLO, MLIR, _script, _snapshot, run
from test_cli_inputs import _as_unprivileged

from programs import REPO_ROOT

PAIR_FIXTURE = REPO_ROOT / "tests" / "fixtures" / "moe-pair-gather-fusion" / "two_gmm.mlir"


def _rewritten(path: Path, passes: list[str] | None = None) -> str:
    return run_passes(hlo_passes.parse_file(path), passes).module.to_text()


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    """A module only the opt-in MOE003 rewrites: gate and up as two weights, each gathered, two GMMs."""
    path = tmp_path / "pair.mlir"
    path.write_text(PAIR_FIXTURE.read_text().split("// -----", 1)[0])
    return path


# ---- --version -------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["hlo-lint", "hlo-rewrite"])
def test_version(tool: str) -> None:
    proc = run(tool, "--version")
    assert proc.returncode == 0 and proc.stdout == f"{tool} {__version__}\n", proc


# ---- --graph DIR that cannot be made: exit 2 before any work -----------------------------------


def _graph_case(tmp_path: Path, case: str) -> tuple[Path, bool, str]:
    """(the --graph folder, whether to run without root's override of permissions, the message)."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o555)
    return {
        "under-a-file": (a_file / "pictures", False, f"cannot write {a_file / 'pictures'}: {a_file} is not a directory"),
        "is-a-file": (a_file, False, f"cannot write {a_file}: it is not a directory"),
        "permission": (closed / "pictures", True, f"cannot write {closed / 'pictures'}: permission denied in {closed}"),
        "proc": (Path("/proc/hlo-passes-pictures"), False, "cannot write /proc/hlo-passes-pictures: "),
    }[case]


@pytest.mark.parametrize("case", ["under-a-file", "is-a-file", "permission", "proc"])
@pytest.mark.parametrize("tool", ["hlo-lint", "hlo-rewrite"])
def test_graph_folder_that_cannot_be_made_is_exit_2_before_any_work(tmp_path: Path, tool: str, case: str) -> None:
    target, unprivileged, message = _graph_case(tmp_path, case)
    out = tmp_path / "out.mlir"
    cmd = [*_script(tool), str(MLIR), "--graph", str(target)] + (["-o", str(out)] if tool == "hlo-rewrite" else [])
    proc = subprocess.run(_as_unprivileged(cmd) if unprivileged else cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{tool}: error: {message}"), line
    # Nothing was spent on the run: no findings printed, no site line, no output written.
    assert proc.stdout == "" and not out.exists()


# ---- -o naming the input ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["same-path", "other-spelling", "symlink", "folder-of-the-input"])
def test_output_naming_the_input_is_refused(tmp_path: Path, how: str) -> None:
    src = tmp_path / HLO.name
    shutil.copy(HLO, src)
    link = tmp_path / "link.hlo"
    link.symlink_to(src)
    output = {"same-path": str(src), "other-spelling": f"{tmp_path}/./{HLO.name}", "symlink": str(link),
              "folder-of-the-input": str(tmp_path)}[how]
    before = _snapshot(src)
    proc = run("hlo-rewrite", src, "-o", output)
    assert proc.returncode == 2, proc
    assert f"which is the input {src}: an input is only rewritten with --in-place" in proc.stderr
    assert _snapshot(src) == before
    # --in-place is how the input is rewritten.
    assert run("hlo-rewrite", src, "--in-place").returncode == 0
    assert src.read_text() == _rewritten(HLO)


# ---- hlo-lint - reads stdin ---------------------------------------------------------------------


def test_lint_reads_stdin_as_rewrite_does() -> None:
    from_file = run("hlo-lint", MLIR)
    from_stdin = run("hlo-lint", "-", stdin=MLIR.read_text())
    assert from_stdin.returncode == from_file.returncode == 1, from_stdin
    assert from_stdin.stdout == from_file.stdout.replace(str(MLIR), "<stdin>")
    assert from_stdin.stdout.startswith("<stdin>:11:7: MOE001 ")
    rewrite = run("hlo-rewrite", "-", "--dry-run", stdin=MLIR.read_text())
    assert rewrite.stderr.startswith("<stdin>:11:7: MOE001 ")
    # With files, in every format; bad text on stdin is a located error.
    both = run("hlo-lint", "-", HLO, "--format", "json", stdin=MLIR.read_text())
    assert both.returncode == 1
    assert sorted(f["path"] for f in json.loads(both.stdout)) == sorted(["<stdin>", str(HLO)])
    bad = run("hlo-lint", "-", stdin="func.func @main( {\n")
    assert bad.returncode == 2 and re.match(r"<stdin>:\d+:\d+: error: parse-error: ", bad.stdout), bad
    empty = run("hlo-lint", "-", stdin="")
    assert empty.returncode == 2 and "<stdin>:1:1: error: parse-error: empty input: no module" in empty.stdout


# ---- hlo-rewrite: several files and folders -----------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two files and a dump folder (modules two levels deep, and what a dump folder also holds)."""
    (tmp_path / "dump" / "sub").mkdir(parents=True)
    shutil.copy(HLO, tmp_path / "a.hlo")
    shutil.copy(MLIR, tmp_path / "b.mlir")
    shutil.copy(HLO, tmp_path / "dump" / "module_0001.before_optimizations.txt")
    shutil.copy(MLIR, tmp_path / "dump" / "sub" / "c.mlir")
    (tmp_path / "dump" / "module_0001.buffer-assignment.txt").write_text("BufferAssignment:\n")
    return tmp_path


def test_rewrite_several_files_and_folders_into_an_output_folder(tree: Path) -> None:
    inputs = [tree / "a.hlo", tree / "b.mlir", tree / "dump"]
    before = {p: _snapshot(p) for p in tree.rglob("*") if p.is_file()}
    proc = run("hlo-rewrite", *inputs, "-o", tree / "out", "--report", tree / "report.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    written = sorted(str(p.relative_to(tree / "out")) for p in (tree / "out").rglob("*") if p.is_file())
    assert written == ["a.hlo", "b.mlir", "module_0001.before_optimizations.txt", "sub/c.mlir"]
    # Each output is what one hlo-rewrite of that file gives; no input changed.
    assert (tree / "out" / "a.hlo").read_text() == _rewritten(HLO)
    assert (tree / "out" / "sub" / "c.mlir").read_text() == _rewritten(MLIR)
    assert (tree / "out" / "module_0001.before_optimizations.txt").read_text() == _rewritten(HLO)
    assert {p: _snapshot(p) for p in before} == before
    assert len([l for l in proc.stderr.splitlines() if "MOE001 moe-gather-fusion [concat]" in l]) == 4
    report = json.loads((tree / "report.json").read_text())
    assert [f["input"] for f in report["files"]] == [str(tree / "a.hlo"), str(tree / "b.mlir"),
                                                     str(tree / "dump" / "module_0001.before_optimizations.txt"),
                                                     str(tree / "dump" / "sub" / "c.mlir")]
    assert report["totals"]["sites"] == 4 and report["totals"]["bytes_saved"] == 4 * 73728


def test_rewrite_several_in_place(tree: Path) -> None:
    proc = run("hlo-rewrite", tree / "a.hlo", tree / "dump", "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert (tree / "a.hlo").read_text() == _rewritten(HLO)
    assert (tree / "dump" / "sub" / "c.mlir").read_text() == _rewritten(MLIR)
    assert (tree / "dump" / "module_0001.buffer-assignment.txt").read_text() == "BufferAssignment:\n"
    assert (tree / "b.mlir").read_text() == MLIR.read_text()  # not named: not touched


def test_several_inputs_with_diff_and_dry_run_write_nothing(tree: Path) -> None:
    before = {p: _snapshot(p) for p in tree.rglob("*") if p.is_file()}
    diff = run("hlo-rewrite", tree / "a.hlo", tree / "b.mlir", "--diff")
    assert diff.returncode == 0
    assert [l for l in diff.stdout.splitlines() if l.startswith("--- ")] == [f"--- {tree / 'a.hlo'}",
                                                                             f"--- {tree / 'b.mlir'}"]
    assert run("hlo-rewrite", tree / "dump", "--dry-run").returncode == 0
    assert {p: _snapshot(p) for p in tree.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("case", ["to-stdout", "o-is-a-file", "same-name", "stdin-and-file"])
def test_several_inputs_that_cannot_be_written_as_asked_are_usage_errors(tree: Path, case: str) -> None:
    (tree / "other").mkdir()
    shutil.copy(HLO, tree / "other" / "a.hlo")
    args = {"to-stdout": [tree / "a.hlo", tree / "b.mlir"],
            "o-is-a-file": [tree / "a.hlo", tree / "b.mlir", "-o", tree / "b.mlir"],
            "same-name": [tree / "a.hlo", tree / "other" / "a.hlo", "-o", tree / "out"],
            "stdin-and-file": ["-", tree / "a.hlo", "--dry-run"]}[case]
    expected = {"to-stdout": "several inputs: give -o DIR, --in-place, --dry-run or --diff",
                "o-is-a-file": "with several inputs or a folder, -o names a folder, and this is a file",
                "same-name": f"would both be written to {tree / 'out' / 'a.hlo'}",
                "stdin-and-file": "'-' (stdin) must be the only input"}[case]
    before = {p: _snapshot(p) for p in tree.rglob("*") if p.is_file()}
    proc = run("hlo-rewrite", *args, stdin="")
    assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
    assert proc.stdout == "" and not (tree / "out").exists()
    assert {p: _snapshot(p) for p in tree.rglob("*") if p.is_file()} == before


def test_a_bad_input_among_several_writes_nothing(tree: Path) -> None:
    (tree / "dump" / "sub" / "broken.mlir").write_text("func.func @main( {\n")
    (tree / "dump" / "empty.hlo").write_text("")
    proc = run("hlo-rewrite", tree / "a.hlo", tree / "dump", "-o", tree / "out")
    assert proc.returncode == 2
    # Every bad input is named, not only the first; no output, not even the folders for them.
    assert re.search(rf"^{re.escape(str(tree / 'dump' / 'sub' / 'broken.mlir'))}:\d+:\d+: error: ", proc.stderr, re.M)
    assert f"{tree / 'dump' / 'empty.hlo'}:1:1: error: empty input: no module" in proc.stderr
    assert proc.stderr.rstrip().endswith("hlo-rewrite: nothing was written")
    assert not (tree / "out").exists()
    in_place = run("hlo-rewrite", tree / "a.hlo", tree / "dump", "--in-place")
    assert in_place.returncode == 2 and (tree / "a.hlo").read_text() == HLO.read_text()


# ---- passes by code or name; the default set; the opt-in hint -----------------------------------


def test_passes_are_named_by_rule_code_or_pass_name(tmp_path: Path) -> None:
    outs = {}
    for spelling in ("MOE001", "moe001", "moe-gather-fusion"):
        out = tmp_path / f"{spelling}.hlo"
        proc = run("hlo-rewrite", HLO, "--passes", spelling, "-o", out)
        assert proc.returncode == 0, proc.stderr
        outs[spelling] = out.read_text()
    assert len(set(outs.values())) == 1 and outs["MOE001"] == _rewritten(HLO, ["moe-gather-fusion"])
    unknown = run("hlo-rewrite", HLO, "--passes", "MOE009", "--dry-run")
    assert unknown.returncode == 2
    assert "unknown pass 'MOE009'; available: moe-gather-fusion (MOE001), moe-gradient-fusion (MOE002), " \
           "moe-pair-gather-fusion (MOE003), moe-pair-gradient-fusion (MOE004)" in unknown.stderr
    # The API takes both too.
    module = hlo_passes.parse_file(HLO)
    assert [s.rule for s in hlo_passes.run_passes(module, ["MOE001"]).sites] == ["moe-gather-fusion"]


def _help(tool: str) -> str:
    # Wide: argparse wraps long lines, also at hyphens inside pass names.
    return run(tool, "--help", env={**os.environ, "COLUMNS": "1000"}).stdout


def test_help_states_the_default_passes_and_the_opt_in_ones() -> None:
    help_text = _help("hlo-rewrite")
    assert ("by rule code or pass name (default: MOE001 moe-gather-fusion, MOE002 moe-gradient-fusion; "
            "opt-in, run only when named: MOE003 moe-pair-gather-fusion, MOE004 moe-pair-gradient-fusion, "
            "MOE005 moe-ffn-fusion, MOE006 gmm-redundant-mask; on an optimized dump (is_scheduled=true), as "
            "inside XLA, also MOE003 and MOE004)"
            in help_text), help_text
    assert "every rewrite pass" not in help_text


def test_an_optimized_dump_gets_the_default_set_of_the_pass_inside_xla(tmp_path: Path) -> None:
    """The two weights' rules run by default on an optimized dump (as the pass inside XLA runs them:
    their forms there keep the GMMs) and only when named on a text before optimization."""
    (case, *_) = cases_of(FIXTURES / "moe-pair-gather-fusion" / "compiled_rounds.hlo")
    text = case.module_text.replace("HloModule pair_rounds", "HloModule pair_rounds, is_scheduled=true", 1)
    dump, report = tmp_path / "module_0001.jit_step.cpu_after_optimizations.txt", tmp_path / "report.json"
    dump.write_text(text)
    proc = run("hlo-rewrite", dump, "--dry-run", "--report", report)
    assert proc.returncode == 0 and "opt-in" not in proc.stderr, proc.stderr
    got = json.loads(report.read_text())
    assert "moe-pair-gather-fusion" in got["passes"] and "moe-pair-gradient-fusion" in got["passes"]
    assert [(s["rule_id"], s["rewritten"]) for s in got["sites"]] == [("MOE003", True)] * 2
    # The same module before optimization (no is_scheduled): MOE003 is opt-in there, and named.
    before = tmp_path / "pair.hlo"
    before.write_text(case.module_text)
    proc = run("hlo-rewrite", before, "--dry-run", "--report", report)
    assert proc.returncode == 0 and json.loads(report.read_text())["sites"] == [], proc.stderr
    assert "MOE003 moe-pair-gather-fusion (opt-in) would rewrite" in proc.stderr, proc.stderr


def test_report_lists_the_passes_that_ran(tmp_path: Path, pair: Path) -> None:
    report = tmp_path / "report.json"
    assert run("hlo-rewrite", HLO, "--dry-run", "--report", report).returncode == 0
    assert json.loads(report.read_text())["passes"] == ["moe-gather-fusion", "moe-gradient-fusion"]
    assert run("hlo-rewrite", pair, "--dry-run", "--passes", "MOE003", "--report", report).returncode == 0
    data = json.loads(report.read_text())
    assert data["passes"] == ["moe-pair-gather-fusion"] and data["totals"]["sites"] == 1


def test_only_an_opt_in_rule_matching_gives_a_hint(pair: Path) -> None:
    proc = run("hlo-rewrite", pair, "--dry-run")
    assert proc.returncode == 0
    assert proc.stderr == (f"hlo-rewrite: {pair}: nothing to rewrite by the default passes; MOE003 "
                           "moe-pair-gather-fusion (opt-in) would rewrite 1 site: run with "
                           "--passes MOE001,MOE002,MOE003\n")
    followed = run("hlo-rewrite", pair, "--dry-run", "--passes", "MOE001,MOE002,MOE003")
    assert "MOE003 moe-pair-gather-fusion [two_gmm] collectives 2 -> 1" in followed.stderr
    # Nothing anywhere: no hint.
    fused = pair.parent / "fused.mlir"
    fused.write_text(_rewritten(MLIR))
    assert run("hlo-rewrite", fused, "--dry-run").stderr == f"hlo-rewrite: {fused}: nothing to rewrite\n"


# ---- help text ---------------------------------------------------------------------------------


def _option_help(help_text: str) -> dict[str, str]:
    """Each option of an argparse --help and its description (empty when it has none)."""
    options: dict[str, str] = {}
    current = None
    for line in help_text.split("options:", 1)[1].splitlines():
        m = re.match(r"  (-\S+(?:, --\S+)?)(?: \S+)?(?:\s{2,}(.*))?$", line)
        if m:
            current = m.group(1).split(", ")[-1]
            options[current] = m.group(2) or ""
        elif current and line.startswith(" " * 24):  # the description under a long option
            options[current] += line.strip()
    return options


@pytest.mark.parametrize("tool", ["hlo-lint", "hlo-rewrite"])
def test_every_option_has_help_and_the_rules_read_well(tool: str) -> None:
    text = _help(tool)
    options = _option_help(text)
    assert {"--format", "--dialect"} & set(options) and "--version" in options
    assert not [o for o, h in options.items() if not h.strip()], options
    flat = " ".join(text.split())
    assert "aparts" not in flat and "reductionss" not in flat
    if tool == "hlo-lint":
        for code, summary in (("MOE001", "unfused MoE weight gather"), ("MOE003", "MoE gate and up weights gathered apart"),
                              ("MOE004", "unfused MoE gate/up weight-gradient reductions")):
            assert f"{code} {summary}" in flat, flat


# ---- .pb dumps, the size limit ----------------------------------------------------------------------


def test_proto_dumps_in_a_folder_are_skipped_with_a_note(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    shutil.copy(HLO, dump / "module_0001.jit_step.before_optimizations.txt")
    for stage in ("before_optimizations", "after_optimizations"):
        (dump / f"module_0001.jit_step.{stage}.hlo.pb").write_bytes(b"\x08\x01\x12\x04step")
    proc = run("hlo-lint", dump, "-j", "1")
    assert proc.returncode == 1, proc
    assert (f"{dump}: note: skipped 2 .pb files (binary HloModuleProto dumps, first "
            f"{dump / 'module_0001.jit_step.after_optimizations.hlo.pb'}): hlo-lint reads text; dump it with "
            "XLA_FLAGS=--xla_dump_hlo_as_text as well") in proc.stderr
    only = tmp_path / "only-protos"
    only.mkdir()
    (only / "module_0001.hlo.pb").write_bytes(b"\x08\x01")
    proc = run("hlo-lint", only)
    assert proc.returncode == 2
    assert f"{only}: note: skipped a .pb file (a binary HloModuleProto dump)" in proc.stderr
    assert f"{only}: error: no-modules" in proc.stdout


def test_lint_refuses_an_input_over_the_limit_before_reading_it(tmp_path: Path) -> None:
    """The refusal comes from the file's size: nothing opens it (the copies' grouping read every
    file whole first: 1.8 s and 338 MB of memory for a 100 MB file, measured)."""
    big = tmp_path / "big.hlo"
    big.write_text(HLO.read_text() + "// padding\n" * 200_000)
    small = tmp_path / "small.hlo"
    shutil.copy(HLO, small)
    watch = (
        "import builtins, io, os, sys\n"
        "real = builtins.open\n"
        "def watched(file, *a, **k):\n"
        "    if os.fspath(file) == sys.argv[1]: print('OPENED', file=sys.stderr)\n"
        "    return real(file, *a, **k)\n"
        "builtins.open = io.open = watched\n"
        "from hlo_passes import cli\n"
        "sys.exit(cli.lint_main(sys.argv[1:] + ['--max-input-size', '1M', '-j', '1']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", watch, str(big), str(small)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 2, proc
    assert "OPENED" not in proc.stderr
    size = big.stat().st_size
    assert (f"{big}: error: too-large: input too large: {size:,} bytes, the limit is 1,048,576 bytes "
            "(--max-input-size)") in proc.stdout
    assert f"{small}:61:3: MOE001 " in proc.stdout  # the other file is still linted
