"""hlo_passes.lint in-process: findings, rule ids, locations, the four formats."""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes import cli, files
from hlo_passes.lint import (
    RULES,
    Finding,
    collect_files,
    format_findings,
    json_schema,
    lint_files,
    lint_text,
    rule_id,
)
from hlo_passes.passes import run_passes
from sarif_structure import check_sarif

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "examples" / "data"
HLO = DATA / "moe_mesh2_concat.hlo"
MLIR = DATA / "moe_mesh2_concat.mlir"


def _concat_line(text: str) -> int:
    """1-based line of the concatenate whose operands are all-gathers (found without the parser)."""
    gathered = {m.group(1) for m in re.finditer(r"^\s*%?([\w.\-]+) = \S+ all-gather\(", text, re.M)}
    for n, line in enumerate(text.splitlines(), 1):
        m = re.search(r"concatenate\(%?([\w.\-]+), %?([\w.\-]+)\)", line)
        if m and {m.group(1), m.group(2)} <= gathered:
            return n
    raise AssertionError("no concatenate of all-gathers")


def _fused_text(path: Path) -> str:
    return run_passes(hlo_passes.parse_file(path)).module.to_text()


def test_rule_ids_in_one_place() -> None:
    assert rule_id("moe-gather-fusion") == "MOE001"
    assert rule_id("moe-gradient-fusion") == "MOE002"
    assert rule_id("moe-pair-gather-fusion") == "MOE003"
    assert rule_id("some-plugin") == "some-plugin"
    assert {r.id for r in RULES.values()} == {"MOE001", "MOE002", "MOE003", "MOE004", "MOE005", "MOE006"}


@pytest.mark.parametrize("path", [HLO, MLIR], ids=["hlo", "stablehlo"])
def test_lint_file_finds_unfused_gather_at_the_site(path: Path) -> None:
    text = path.read_text()
    (f,) = hlo_passes.lint(path)
    assert isinstance(f, hlo_passes.Finding)
    site = run_passes(hlo_passes.parse_file(path), rewrite=False).sites[0]
    assert (f.rule, f.path, f.line, f.column) == ("MOE001", str(path), site.location.line, site.location.column)
    assert f.bytes_saved == site.bytes_saved == 73728
    assert f.severity == "warning" and f.form == "concat"
    if path.suffix == ".hlo":
        assert f.line == _concat_line(text)
    assert f.details["collectives_before"] == 4 and f.details["collectives_after"] == 2


def test_lint_module_and_fused_module_clean() -> None:
    module = hlo_passes.parse_file(HLO)
    assert [f.rule for f in hlo_passes.lint(module)] == ["MOE001"]
    assert hlo_passes.lint(module)[0].path == str(HLO)
    assert hlo_passes.lint(hlo_passes.parse(_fused_text(HLO))) == []
    assert hlo_passes.lint(hlo_passes.parse(_fused_text(MLIR))) == []


def test_select_and_ignore_by_id_or_prefix() -> None:
    module = hlo_passes.parse_file(HLO)
    assert len(hlo_passes.lint(module, select=["MOE"])) == 1
    assert len(hlo_passes.lint(module, select=["MOE001"])) == 1
    assert hlo_passes.lint(module, select=["MOE002"]) == []
    assert hlo_passes.lint(module, ignore=["MOE001"]) == []
    assert hlo_passes.lint(module, ignore=["MOE"]) == []


def test_lint_raises_parse_error_for_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\n\nENTRY e {\n  ROOT x = f32[] add(\n}\n")
    with pytest.raises(hlo_passes.ParseError) as err:
        hlo_passes.lint(bad)
    assert re.match(rf"{re.escape(str(bad))}:[45]:\d+: error: ", str(err.value))


def test_op_name_and_source_from_hlo_metadata() -> None:
    text = HLO.read_text()
    line = _concat_line(text)
    lines = text.splitlines(keepends=True)
    body = lines[line - 1].rstrip("\n")
    lines[line - 1] = (body + ', metadata={op_name="jit(moe)/shard_map/concatenate" '
                       'source_file="/src/model/moe.py" source_line=123}\n')
    (f,) = lint_text("".join(lines), path="edited.hlo")
    assert f.op_name == "jit(moe)/shard_map/concatenate"
    assert f.source == "/src/model/moe.py:123"
    assert f.line == line and f.path == "edited.hlo"


def test_op_name_and_source_from_mlir_locations() -> None:
    text = MLIR.read_text()
    site = run_passes(hlo_passes.parse(text), rewrite=False).sites[0]
    lines = text.splitlines(keepends=True)
    anchor = lines[site.location.line - 1].rstrip("\n")
    lines[site.location.line - 1] = anchor + " loc(#loc7)\n"
    lines.append('#loc3 = loc("/src/model/moe.py":77:12)\n')
    lines.append('#loc7 = loc("jit(moe)/shard_map/concatenate"(#loc3))\n')
    (f,) = lint_text("".join(lines), path="edited.mlir")
    assert (f.op_name, f.source) == ("jit(moe)/shard_map/concatenate", "/src/model/moe.py:77")


def test_collect_files_skips_non_modules_in_directories(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.before_optimizations.txt").write_text(HLO.read_text())
    (tmp_path / "sub" / "m.buffer-assignment.txt").write_text("BufferAssignment:\nallocation 0: size 4\n")
    (tmp_path / "m.memory-usage-report.txt").write_text("Total bytes used: 1\n")
    (tmp_path / "x.mlir").write_text(MLIR.read_text())
    (tmp_path / "notes.md").write_text("HloModule in prose\n")
    files, missing = collect_files([str(tmp_path)])
    assert sorted(Path(f).name for f in files) == ["m.before_optimizations.txt", "x.mlir"]
    assert missing == []
    files, missing = collect_files([str(tmp_path / "**" / "*.txt"), str(tmp_path / "nope.hlo")])
    # A glob names files explicitly: every match is linted.
    assert len(files) == 3
    assert [m.path for m in missing] == [str(tmp_path / "nope.hlo")] and missing[0].is_error
    empty = tmp_path / "empty_dump"
    empty.mkdir()
    (empty / "module.buffer-assignment.txt").write_text("BufferAssignment:\n")
    files, missing = collect_files([str(empty)])
    assert files == [] and [m.message for m in missing] == ["no HLO or StableHLO modules in this directory"]
    assert lint_files([str(empty)], jobs=1).exit_code == 2


def test_lint_files_reports_errors_and_keeps_going(tmp_path: Path) -> None:
    good = tmp_path / "a.hlo"
    good.write_text(HLO.read_text())
    bad = tmp_path / "b.hlo"
    bad.write_text("HloModule broken\nENTRY e {\n")
    run = lint_files([str(good), str(bad)], jobs=1)
    assert [f.rule for f in run.findings] == ["MOE001", "parse-error"]
    assert run.errors[0].path == str(bad) and run.errors[0].line >= 1
    assert run.exit_code == 2
    assert lint_files([str(good)], jobs=1).exit_code == 1
    clean = tmp_path / "c.hlo"
    clean.write_text(_fused_text(HLO))
    assert lint_files([str(clean)], jobs=1).exit_code == 0


def test_pool_gives_the_same_findings_as_one_process(tmp_path: Path) -> None:
    for i in range(6):
        # Distinct modules (copies would be folded into one lint).
        text = HLO.read_text() if i % 2 else _fused_text(HLO)
        (tmp_path / f"m{i}.hlo").write_text(text.replace("HloModule jit_moe_body", f"HloModule jit_moe_body_{i}", 1))
    (tmp_path / "broken.mlir").write_text("func.func @main( {\n")
    serial = lint_files([str(tmp_path)], jobs=1)
    parallel = lint_files([str(tmp_path)], jobs=2)
    assert serial.findings == parallel.findings
    assert len(serial.warnings) == 3 and len(serial.errors) == 1


# ---- formats ---------------------------------------------------------------------


def _findings(tmp_path: Path) -> list[Finding]:
    bad = tmp_path / "dir with space" / "bad.hlo"
    bad.parent.mkdir()
    bad.write_text("HloModule broken\nENTRY e {\n")
    return lint_files([str(HLO), str(MLIR), str(bad)], jobs=1).findings


def test_json_output_follows_the_shipped_schema(tmp_path: Path) -> None:
    findings = _findings(tmp_path)
    data = json.loads(format_findings(findings, "json"))
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(data, schema)
    assert [d["rule"] for d in data] == ["MOE001", "MOE001", "parse-error"]
    for key in ("rule", "path", "line", "column", "message", "op_name", "bytes_saved"):
        assert all(key in d for d in data)
    assert data[0]["bytes_saved"] == 73728 and data[0]["line"] == _concat_line(HLO.read_text())
    # The schema has teeth: it rejects what it documents as invalid.
    for broken in (
        [{k: v for k, v in data[0].items() if k != "rule"}],
        [{**data[0], "line": 0}],
        [{**data[2], "bytes_saved": 5}],
        [{**data[0], "unknown_key": 1}],
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def test_sarif_output_has_every_required_structure(tmp_path: Path) -> None:
    findings = _findings(tmp_path)
    log = json.loads(format_findings(findings, "sarif", source_root=REPO))
    check_sarif(log)
    run = log["runs"][0]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["MOE001", "MOE001"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": findings[0].line, "startColumn": findings[0].column}
    art = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    # A file of the repository (--source-root) is written relative to it.
    assert art == {"uri": HLO.relative_to(REPO).as_posix(), "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == REPO.as_uri() + "/"
    assert results[0]["properties"]["bytesSaved"] == 73728
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    uri = note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert "dir%20with%20space/bad.hlo" in uri
    # The checker has teeth too.
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["ruleIndex"] = 1
    with pytest.raises(AssertionError):
        check_sarif(broken)
    del broken["version"]
    with pytest.raises(jsonschema.ValidationError):
        check_sarif(broken)


def test_sarif_relative_paths_use_srcroot() -> None:
    f = Finding(rule="MOE001", path="dumps/a b.txt", line=3, column=1, message="m", bytes_saved=1)
    log = json.loads(format_findings([f], "sarif"))
    check_sarif(log)
    art = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art == {"uri": "dumps/a%20b.txt", "uriBaseId": "%SRCROOT%"}
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_github_annotations_escape_their_fields() -> None:
    f = Finding(rule="MOE001", path="a,b:c.hlo", line=7, column=2, message="50% of it\nnext",
                op_name="jit(f)/x", bytes_saved=1024)
    err = Finding(rule="parse-error", path="bad.hlo", line=0, column=0, message="oops", severity="error")
    out = format_findings([f, err], "github").splitlines()
    assert out[0] == ("::warning file=a%2Cb%3Ac.hlo,line=7,col=2,title=MOE001::"
                      "50%25 of it%0Anext (op_name: jit(f)/x); fusing saves 1,024 bytes per device")
    assert out[1] == "::error file=bad.hlo,title=parse-error::oops"


def test_text_output_lists_location_op_name_and_bytes() -> None:
    f = Finding(rule="MOE001", path="m.hlo", line=7, column=2, message="unfused", op_name="jit(f)/c",
                source="model.py:9", bytes_saved=4096)
    text = format_findings([f], "text", files=1)
    assert text.splitlines() == [
        "m.hlo:7:2: MOE001 unfused", "    op_name: jit(f)/c", "    source: model.py:9",
        "    fusing saves 4,096 bytes per device", "1 finding in 1 file",
    ]


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"m{i}.hlo").write_text(HLO.read_text())

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = io.StringIO(), Tty()
    assert cli.lint_main([str(tmp_path), "-j", "1"], stdout=out, stderr=err) == 1
    assert "3/3 files" in err.getvalue() and "\r" in err.getvalue()
    plain = io.StringIO()
    assert cli.lint_main([str(tmp_path), "-j", "1"], stdout=io.StringIO(), stderr=plain) == 1
    assert "files" not in plain.getvalue() and "\r" not in plain.getvalue()  # no bar: only the pricing note


def test_atomic_write_failing_mid_way_leaves_the_target(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "out.hlo"
    target.write_text("old contents\n")
    calls = []

    def failing(f, payload):
        f.write(payload[:10])
        calls.append(len(payload))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "_write_all", failing)
    with pytest.raises(OSError):
        cli.atomic_write(target, "x" * 100_000)
    assert calls and target.read_text() == "old contents\n"
    assert os.listdir(tmp_path) == ["out.hlo"]
    monkeypatch.undo()
    os.chmod(target, 0o640)
    cli.atomic_write(target, "new\n")
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640
    assert os.listdir(tmp_path) == ["out.hlo"]
