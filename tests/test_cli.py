"""hlo-rewrite and hlo-lint, run as the console scripts pip installs, on real files."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes.lint import json_schema
from hlo_passes.passes import run_passes
from programs import REPO_ROOT
from sarif_structure import check_sarif
from cli_runner import run, script

DATA = REPO_ROOT / "examples" / "data"
HLO = DATA / "moe_mesh2_concat.hlo"
MLIR = DATA / "moe_mesh2_concat.mlir"


# The console script's command (other test files run it as a subprocess themselves); ``run``
# runs it in this process where that is the same, else as a subprocess (cli_runner says which).
_script = script


def _gathers(text: str) -> int:
    return sum(i.opcode == "all-gather" for i in hlo_passes.parse(text).instructions())


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for f in (HLO, MLIR):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def _snapshot(path: Path) -> tuple[bytes, int]:
    st = path.stat()
    return path.read_bytes(), st.st_mtime_ns


def test_console_scripts_are_registered() -> None:
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert scripts.get("hlo-rewrite") == "hlo_passes.cli:rewrite_entry"
    assert scripts.get("hlo-lint") == "hlo_passes.cli:lint_entry"
    # The scripts themselves (most tests run their function in this process, cli_runner):
    # a finding is exit 1 and a clean rewrite exit 0, as in-process.
    for tool, args, status in (("hlo-lint", [MLIR], 1), ("hlo-rewrite", [HLO, "--dry-run"], 0)):
        as_script, here = run(tool, *args, console_script=True), run(tool, *args)
        assert (as_script.returncode, as_script.stdout, as_script.stderr) == (status, here.stdout, here.stderr)


# ---- hlo-rewrite -------------------------------------------------------------------


def test_rewrite_file_to_file(work: Path) -> None:
    src = work / HLO.name
    before = _snapshot(src)
    proc = run("hlo-rewrite", src, "-o", work / "out.hlo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    out = (work / "out.hlo").read_text()
    expected = run_passes(hlo_passes.parse_file(HLO)).module.to_text()
    assert out == expected
    assert (_gathers(src.read_text()), _gathers(out)) == (4, 2)
    assert _snapshot(src) == before  # the input is never modified
    site = run_passes(hlo_passes.parse_file(src), rewrite=False).sites[0]
    assert f"{src}:{site.location.line}:{site.location.column}: MOE001" in proc.stderr
    assert "collectives 4 -> 2" in proc.stderr
    assert sorted(p.name for p in work.iterdir()) == sorted([HLO.name, MLIR.name, "out.hlo"])


def test_rewrite_stdin_to_stdout() -> None:
    text = MLIR.read_text()
    proc = run("hlo-rewrite", "-", stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run_passes(hlo_passes.parse(text)).module.to_text()
    assert _gathers(proc.stdout) == 2
    assert proc.stderr.startswith("<stdin>:")


def test_rewrite_of_fused_module_is_identity(work: Path) -> None:
    fused = work / "fused.mlir"
    fused.write_text(run_passes(hlo_passes.parse_file(MLIR)).module.to_text())
    proc = run("hlo-rewrite", fused, "-o", work / "again.mlir")
    assert proc.returncode == 0
    assert (work / "again.mlir").read_bytes() == fused.read_bytes()
    assert "nothing to rewrite" in proc.stderr


def test_dry_run_writes_nothing(work: Path) -> None:
    proc = run("hlo-rewrite", work / HLO.name, "-o", work / "out.hlo", "--dry-run")
    assert proc.returncode == 0 and proc.stdout == ""
    assert "collectives 4 -> 2" in proc.stderr
    assert not (work / "out.hlo").exists()


def test_diff_is_a_unified_diff_of_the_rewrite(work: Path) -> None:
    proc = run("hlo-rewrite", work / HLO.name, "--diff")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ") and lines[2].startswith("@@")
    removed = [l for l in lines if l.startswith("-") and not l.startswith("---")]
    added = [l for l in lines if l.startswith("+") and not l.startswith("+++")]
    assert sum("all-gather(" in l for l in removed) == 4
    assert sum("all-gather(" in l for l in added) == 2
    assert not any("concatenate(" in l for l in added)


def test_report_lists_sites_with_costs(work: Path) -> None:
    report = work / "report.json"
    proc = run("hlo-rewrite", work / HLO.name, "-o", work / "out.hlo", "--report", report)
    assert proc.returncode == 0
    data = json.loads(report.read_text())
    site = run_passes(hlo_passes.parse_file(HLO)).sites[0]
    (s,) = data["sites"]
    assert (s["rule"], s["rule_id"], s["form"]) == ("moe-gather-fusion", "MOE001", "concat")
    assert (s["location"]["line"], s["location"]["column"]) == (site.location.line, site.location.column)
    assert s["location"]["path"] == str(work / HLO.name)
    assert (s["before"]["count"], s["after"]["count"]) == (4, 2)
    assert s["before"]["bytes_moved"] == site.before.bytes_moved > 0
    assert s["bytes_saved"] == 73728
    assert data["totals"] == {
        "sites": 1, "detected_not_rewritten": 0, "collectives_before": 4, "collectives_after": 2,
        "bytes_moved_before": site.before.bytes_moved, "bytes_moved_after": site.after.bytes_moved,
        "bytes_saved": 73728,
    }
    assert data["changed"] is True and data["dialect"] == "hlo"


def test_explain_prints_near_misses_with_the_failing_check(work: Path) -> None:
    text = HLO.read_text()
    m = re.search(r"concatenate\((all_gather\.\d+), (all_gather\.\d+)\)", text)
    swapped = text.replace(m.group(0), f"concatenate({m.group(2)}, {m.group(1)})")
    src = work / "swapped.hlo"
    src.write_text(swapped)
    proc = run("hlo-rewrite", src, "--explain", "-o", work / "out.hlo")
    assert proc.returncode == 0
    assert (work / "out.hlo").read_text() == swapped
    near = [l for l in proc.stderr.splitlines() if "near miss:" in l]
    assert near and "concat-order" in near[0] and near[0].startswith(f"{src}:")
    # One format for near misses: hlo-lint --explain prints the same line.
    lint = run("hlo-lint", src, "--explain")
    assert [l for l in lint.stderr.splitlines() if "near miss:" in l] == near


def test_in_place_rewrites_the_input_atomically(work: Path) -> None:
    src = work / HLO.name
    os.chmod(src, 0o640)
    proc = run("hlo-rewrite", src, "--in-place")
    assert proc.returncode == 0 and proc.stdout == ""
    assert src.read_text() == run_passes(hlo_passes.parse_file(HLO)).module.to_text()
    assert src.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in work.iterdir()) == sorted([HLO.name, MLIR.name])


def test_list_passes() -> None:
    proc = run("hlo-rewrite", "--list-passes")
    assert proc.returncode == 0
    assert re.search(r"^moe-gather-fusion\s+MOE001\s+\S", proc.stdout, re.M)


BAD_HLO = "HloModule broken\n\nENTRY main {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] add(p, \n}\n"


def test_bad_input_exits_2_with_the_position_and_writes_nothing(work: Path) -> None:
    bad = work / "bad.hlo"
    bad.write_text(BAD_HLO)
    out = work / "out.hlo"
    out.write_text("previous result\n")
    proc = run("hlo-rewrite", bad, "-o", out, "--report", work / "r.json")
    assert proc.returncode == 2
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: error: ", proc.stderr)
    assert out.read_text() == "previous result\n"
    assert not (work / "r.json").exists()
    assert sorted(p.name for p in work.iterdir()) == sorted([HLO.name, MLIR.name, "bad.hlo", "out.hlo"])
    proc = run("hlo-rewrite", "-", stdin="func.func @main( {\n")
    assert proc.returncode == 2 and re.match(r"<stdin>:\d+:\d+: error: ", proc.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["--passes", "no-such-pass", "IN"],
        [],
        ["IN", "--in-place", "-o", "x.hlo"],
        ["-", "--in-place"],
        ["missing.hlo"],
        ["IN", "--dialect", "xml"],
        ["IN", "--plugin", "no_such_plugin_module_xyz"],
    ],
    ids=["unknown-pass", "no-input", "in-place-and-o", "in-place-stdin", "missing-file", "bad-dialect",
         "bad-plugin"],
)
def test_bad_usage_exits_2(work: Path, args: list[str]) -> None:
    src = work / HLO.name
    before = _snapshot(src)
    proc = run("hlo-rewrite", *[str(src) if a == "IN" else a for a in args], cwd=work, stdin="")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr and proc.stdout == ""
    assert _snapshot(src) == before


# Plugins that make the process fail at a chosen point: a pass that raises
# after the input is read, and writers that fail or die after the first chunk
# of the output went to disk.
RAISING_PASS = """
from hlo_passes.passes import register

class Explode:
    name = "explode"
    description = "raises, for the tests"

    def apply(self, module, *, rewrite):
        raise RuntimeError("boom from a pass")

register(Explode())
"""
FAILING_WRITE = """
import errno, os, signal
import hlo_passes.files as files

def write_then_fail(f, payload):
    f.write(payload[:4096])
    f.flush()
    if os.environ.get("HLO_TEST_KILL"):
        os.kill(os.getpid(), signal.SIGKILL)
    raise OSError(errno.ENOSPC, "No space left on device")

files._write_all = write_then_fail
"""


def _plugin(tmp: Path, name: str, code: str) -> Path:
    path = tmp.parent / f"{tmp.name}_{name}.py"
    path.write_text(textwrap.dedent(code))
    return path


def test_failing_pass_exits_3_and_writes_nothing(work: Path) -> None:
    plugin = _plugin(work, "explode", RAISING_PASS)
    src = work / HLO.name
    before = _snapshot(src)
    out = work / "out.hlo"
    out.write_text("previous result\n")
    proc = run("hlo-rewrite", src, "-o", out, "--report", work / "r.json", "--plugin", plugin,
               "--passes", "moe-gather-fusion,explode", "--strict")
    assert proc.returncode == 3
    assert "boom from a pass" in proc.stderr and "nothing was written" in proc.stderr
    assert out.read_text() == "previous result\n" and _snapshot(src) == before
    assert sorted(p.name for p in work.iterdir()) == sorted([HLO.name, MLIR.name, "out.hlo"])
    proc = run("hlo-rewrite", src, "--in-place", "--plugin", plugin, "--passes", "explode", "--strict")
    assert proc.returncode == 3 and _snapshot(src) == before


def test_failing_pass_is_refused_without_strict(work: Path) -> None:
    """Without --strict the raising pass refuses the module (an internal-error near miss); the others rewrite."""
    plugin = _plugin(work, "explode", RAISING_PASS)
    src = work / HLO.name
    out = work / "out.hlo"
    proc = run("hlo-rewrite", src, "-o", out, "--report", work / "r.json", "--plugin", plugin,
               "--passes", "moe-gather-fusion,explode", "--explain")
    assert proc.returncode == 0, proc.stderr
    assert "refused (internal-error): internal error in explode" in proc.stderr
    assert "RuntimeError: boom from a pass" in proc.stderr
    report = json.loads((work / "r.json").read_text())
    assert [m["check"] for m in report["near_misses"] if m["rule"] == "explode"] == ["internal-error"]
    assert [s["rule"] for s in report["sites"]] == ["moe-gather-fusion"]
    assert out.read_text() != src.read_text() and "all-gather" in out.read_text()


def test_write_failing_mid_way_leaves_target_and_no_temp_file(work: Path) -> None:
    plugin = _plugin(work, "diskfull", FAILING_WRITE)
    src = work / HLO.name
    before = _snapshot(src)
    proc = run("hlo-rewrite", src, "--in-place", "--plugin", plugin)
    assert proc.returncode == 2 and "No space left" in proc.stderr
    assert _snapshot(src) == before
    assert sorted(p.name for p in work.iterdir()) == sorted([HLO.name, MLIR.name])


def test_process_killed_mid_write_leaves_target_whole(work: Path) -> None:
    plugin = _plugin(work, "killed", FAILING_WRITE)
    src = work / HLO.name
    before = _snapshot(src)
    env = {**os.environ, "HLO_TEST_KILL": "1"}
    proc = run("hlo-rewrite", src, "--in-place", "--plugin", plugin, env=env)
    assert proc.returncode == -9
    # The target is the old file, whole; only a hidden temporary file with the
    # partial output is left behind (nothing can clean up after SIGKILL).
    assert _snapshot(src) == before
    leftovers = [p.name for p in work.iterdir() if p.name not in (HLO.name, MLIR.name)]
    assert len(leftovers) == 1 and leftovers[0].startswith(f".{HLO.name}.") and leftovers[0].endswith(".tmp")
    assert (work / leftovers[0]).stat().st_size == 4096


# ---- hlo-lint ----------------------------------------------------------------------------


@pytest.fixture
def lint_dir(tmp_path: Path) -> Path:
    d = tmp_path / "modules"
    d.mkdir()
    shutil.copy(HLO, d / "unfused.hlo")
    (d / "fused.mlir").write_text(run_passes(hlo_passes.parse_file(MLIR)).module.to_text())
    return d


def test_lint_exit_codes(lint_dir: Path, tmp_path: Path) -> None:
    clean = run("hlo-lint", lint_dir / "fused.mlir")
    assert clean.returncode == 0 and clean.stdout.strip() == "0 findings in 1 file"
    found = run("hlo-lint", lint_dir)
    assert found.returncode == 1
    line = run_passes(hlo_passes.parse_file(HLO), rewrite=False).sites[0].location.line
    assert found.stdout.startswith(f"{lint_dir / 'unfused.hlo'}:{line}:3: MOE001 ")
    assert "fusing saves 73,728 bytes per device" in found.stdout
    (lint_dir / "bad.hlo").write_text(BAD_HLO)
    errored = run("hlo-lint", lint_dir, "--format", "json")
    assert errored.returncode == 2
    data = json.loads(errored.stdout)
    assert sorted(d["rule"] for d in data) == ["MOE001", "parse-error"]  # the others still linted
    assert re.search(rf"{re.escape(str(lint_dir / 'bad.hlo'))}:\d+:\d+: error:", errored.stderr)
    assert run("hlo-lint", tmp_path / "does-not-exist").returncode == 2
    assert run("hlo-lint").returncode == 2
    assert run("hlo-lint", lint_dir, "--format", "xml").returncode == 2


def test_lint_select_ignore(lint_dir: Path) -> None:
    assert run("hlo-lint", lint_dir, "--ignore", "MOE001").returncode == 0
    assert run("hlo-lint", lint_dir, "--select", "MOE002").returncode == 0
    assert run("hlo-lint", lint_dir, "--select", "MOE").returncode == 1
    assert run("hlo-lint", lint_dir, "--select", "MOE002,MOE001").returncode == 1


def test_lint_json_and_sarif_to_output_files(lint_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "findings.json"
    proc = run("hlo-lint", lint_dir, "--format", "json", "--output", out)
    assert proc.returncode == 1 and proc.stdout == ""
    data = json.loads(out.read_text())
    jsonschema.validate(data, json_schema())
    (f,) = data
    assert (f["rule"], f["path"], f["bytes_saved"]) == ("MOE001", str(lint_dir / "unfused.hlo"), 73728)

    sarif = tmp_path / "findings.sarif"
    proc = run("hlo-lint", "unfused.hlo", "fused.mlir", "--format", "sarif", "--output", sarif, cwd=lint_dir)
    assert proc.returncode == 1
    log = json.loads(sarif.read_text())
    check_sarif(log)
    (result,) = log["runs"][0]["results"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "unfused.hlo", "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == f["line"]


def test_lint_github_format(lint_dir: Path) -> None:
    proc = run("hlo-lint", "unfused.hlo", "--format", "github", cwd=lint_dir)
    assert proc.returncode == 1
    assert re.fullmatch(r"::warning file=unfused\.hlo,line=\d+,col=3,title=MOE001::.+\n", proc.stdout)


def test_lint_reads_no_jax(lint_dir: Path) -> None:
    # The lint runs in CI without an accelerator and must start fast: it
    # must not import jax at all.
    code = ("import sys; from hlo_passes import cli; rc = cli.lint_main([sys.argv[1], '-j', '1']); "
            "assert 'jax' not in sys.modules, 'jax imported'; "
            "rc2 = cli.rewrite_main([sys.argv[2], '--dry-run', '-q']); "
            "assert 'jax' not in sys.modules, 'jax imported'; print(rc, rc2)")
    proc = subprocess.run([sys.executable, "-c", code, str(lint_dir), str(lint_dir / "unfused.hlo")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-2:] == ["1", "0"]


# ---- an XLA dump folder made by this test ---------------------------------------------------

_DUMP_SCRIPT = """
import sys
from pathlib import Path
from examples.dump_programs import DUMP_PROGRAMS, dump
from examples.moe import ProgramSpec

specs = [ProgramSpec(variant="concat", mesh="mesh2"), ProgramSpec(variant="fused", mesh="mesh2")]
for spec in specs:
    DUMP_PROGRAMS[spec.name] = spec
dump(Path(sys.argv[1]), [s.name for s in specs])
"""


@pytest.fixture(scope="module")
def xla_dump(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """``--xla_dump_to`` output of an unfused and a fused program, written by a child process."""
    from examples.dump_programs import DUMP_FLAGS

    out = tmp_path_factory.mktemp("xla_dump_lint")
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_dump")]
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in flags):
        flags.append("--xla_force_host_platform_device_count=8")
    env["XLA_FLAGS"] = " ".join(flags + list(DUMP_FLAGS))
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", _DUMP_SCRIPT, str(out)], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # What else XLA writes into dump folders; the lint must skip it.
    (out / "mesh2_concat_explicit_forward" / "module_0000.jit_moe_body.cpu_after_optimizations-buffer-assignment.txt"
     ).write_text("BufferAssignment:\nallocation 0: size 16384, parameter 0\n")
    (out / "mesh2_concat_explicit_forward" / "module_0000.jit_moe_body.cpu_after_optimizations-memory-usage-report.txt"
     ).write_text("Total bytes used: 16384 (16.0KiB)\n")
    return out, json.loads((out / "manifest.json").read_text())


def _expected_line(text: str) -> int:
    """The concatenate of all-gathered halves, found by text search (not by the parser)."""
    gathered = set(re.findall(r"^\s*%?([\w.\-]+) = \S+ all-gather\(", text, re.M))
    for n, line in enumerate(text.splitlines(), 1):
        m = re.search(r"concatenate\(%?([\w.\-]+), %?([\w.\-]+)\)", line)
        if m and {m.group(1), m.group(2)} <= gathered:
            return n
    raise AssertionError("no concatenate of two all-gathers")


# Stages where the halves' slices, gathers and concatenate are still visible
# in the dump text; after optimizations they sit inside fusions.
VISIBLE_STAGES = ("before_optimizations", "after_shardy", "after_spmd_partitioning")


def test_lint_xla_dump_folder(xla_dump: tuple[Path, dict]) -> None:
    out, manifest = xla_dump
    # Every stage's own finding (--no-fold); folded, the site is one finding (below).
    proc = run("hlo-lint", out, "--format", "json", "-j", "2", "--no-fold")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    jsonschema.validate(data, json_schema())
    assert not [d for d in data if d["severity"] == "error"]  # optimized dumps parse, reports skipped
    by_path = {}
    for d in data:
        by_path.setdefault(d["path"], []).append(d)
    unfused = manifest["mesh2_concat_explicit_forward"]
    for stage in VISIBLE_STAGES:
        path = out / unfused[stage]
        (f,) = by_path.pop(str(path))
        assert f["rule"] == "MOE001" and f["form"] == "concat"
        assert f["line"] == _expected_line(path.read_text()), stage
        assert f["bytes_saved"] == 73728
        assert f["op_name"], stage  # dumps carry metadata
    # The StableHLO jax lowered for it (written beside the dumps, *.mlir) holds the site too.
    for form in ("stablehlo", "stablehlo_debuginfo", "stablehlo_generic"):
        (f,) = by_path.pop(str(out / unfused[form]))
        assert f["rule"] == "MOE001" and f["form"] == "concat", form
    # Whatever the optimized stage yields, it may only be the unfused program's.
    assert set(by_path) <= {str(out / unfused["after_optimizations"])}
    # Folded (the default): one finding, at the earliest stage, the lowered StableHLO; its
    # debug-info print is the same module with locations (copies, issue 20), the other stages
    # are listed (issue 27).
    folded = json.loads(run("hlo-lint", out / "mesh2_concat_explicit_forward", "--format", "json", "-j", "2").stdout)
    (f,) = folded
    first, second = sorted([str(out / unfused["stablehlo"]), str(out / unfused["stablehlo_debuginfo"])])
    assert f["path"] == first and f["paths"] == [first, second] and f["copies"] == 2
    assert sorted(s["path"] for s in f["stages"]) == sorted(
        str(out / unfused[s]) for s in (*VISIBLE_STAGES, "stablehlo_generic", "after_optimizations"))
    fused = manifest["mesh2_fused_explicit_forward"]
    clean = run("hlo-lint", out / "mesh2_fused_explicit_forward")
    assert clean.returncode == 0, clean.stdout
    assert clean.stdout.strip().startswith(f"0 findings in {len(fused)} files")
    # A glob over one stage of every program.
    glob_run = run("hlo-lint", f"{out}/**/*before_optimizations.txt", "--format", "json", "-j", "1")
    assert glob_run.returncode == 1
    assert [d["path"] for d in json.loads(glob_run.stdout)] == [str(out / unfused["before_optimizations"])]


def test_pre_commit_hook_and_example_workflow_use_the_scripts() -> None:
    import yaml
    (hook,) = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "hlo-lint" and hook["entry"] == "hlo-lint" and hook["language"] == "python"
    assert re.search(hook["files"], "dump/model.mlir") and not re.search(hook["files"], "notes.txt")
    workflow = yaml.safe_load((REPO_ROOT / "examples" / "ci" / "hlo-lint.yml").read_text())
    runs = [s.get("run", "") for s in workflow["jobs"]["lint"]["steps"]]
    assert any(r.startswith("hlo-lint ") and "--format github" in r for r in runs)
    assert any("--format sarif" in r for r in runs)
    # Every option the workflow passes must exist.
    for r in runs:
        if r.startswith("hlo-lint "):
            args = r.split("||")[0].split()[1:]
            args = [a for a in args if a != "hlo_dump"]
            proc = run("hlo-lint", "--list-rules", *args)
            assert proc.returncode == 0, (r, proc.stderr)
