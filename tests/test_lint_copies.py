"""hlo-lint over the dump folders of N hosts: one finding per distinct module, with the copies.

Each host of a multi-host job dumps the same modules; what differs between
hosts is where the source lives (absolute paths in HLO metadata, jax 0.12's
stack-frame tables, MLIR locations).  Modules equal without locations are
folded: the first path in sorted order is reported with the number of
copies, and JSON / SARIF list every path.
"""
from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from hlo_passes import cli
from hlo_passes._copies import group_copies, module_key, without_locations
from hlo_passes.lint import format_findings, json_schema, lint_files
from sarif_structure import check_sarif

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "examples" / "data"
HOSTS = 4
# Dumps and modules that parse on every jax release: text files, no jax needed.
SOURCES = ("samples/dump_mesh1_concat",)


def _host_copy(text: str, host: int) -> str:
    """The text as host ``host`` would have written it: its own absolute source paths."""
    text = re.sub(r'( source_file="[^"]*"| source_line=\d+)', "", text)
    text = re.sub(r'(metadata=\{[^{}]*?op_name="(?:[^"\\]|\\.)*")',
                  lambda m: f'{m.group(1)} source_file="/hosts/h{host}/src/model.py" source_line={100 + host}', text)
    # jax >= 0.10's stack-frame tables: each host's own checkout path, as in its MLIR locations.
    text = re.sub(r'^FileNames\n(?:\d+ "[^"\n]*"\n)*',
                  lambda m: re.sub(r'^(\d+) "', rf'\1 "/hosts/h{host}/', m.group(), flags=re.M), text, flags=re.M)
    return re.sub(r'loc\("([^"()]*)":(\d+)', lambda m: f'loc("/hosts/h{host}/{m.group(1)}":{m.group(2)}', text)


# The lowered modules each host also keeps, in a folder of their own (beside the dump, they would
# be taken for stages of the dump's module of the same name: another program's).
LOWERED = (DATA / "moe_mesh2_concat.hlo", DATA / "moe_mesh2_concat.mlir")


def _host_folder(root: Path, host: int, module: Path) -> Path:
    return root / f"host{host}" / ("lowered" if module in LOWERED else "xla_dump")


@pytest.fixture
def host_dumps(tmp_path: Path, shared_dir: Path) -> tuple[Path, list[Path]]:
    """``HOSTS`` dump folders of one job (host 3 also has a module only it compiled)."""
    modules = [p for src in SOURCES for p in sorted((shared_dir / src).iterdir())
               if p.suffix in (".txt", ".mlir") and p.read_text().lstrip().startswith(("HloModule", "module", "#loc"))]
    modules += list(LOWERED)
    root = tmp_path / "job"
    for host in range(HOSTS):
        for m in modules:
            folder = _host_folder(root, host, m)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / m.name).write_text(_host_copy(m.read_text(), host))
    only_here = root / "host3" / "xla_dump" / "module_9999.jit_other.before_optimizations.txt"
    only_here.write_text((DATA / "moe_mesh2_concat.hlo").read_text().replace("HloModule jit_moe_body", "HloModule jit_other", 1))
    return root, modules


def _lint(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.lint_main([*argv, "--no-progress", "-j", "1"], stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


def _dump_stages(modules: list[Path]) -> list[Path]:
    """The files of the sample dump folder: the stages of one module (``module.mlir`` and XLA's)."""
    return [m for m in modules if m not in LOWERED]


def test_copies_are_folded_in_every_format(host_dumps) -> None:
    root, modules = host_dumps
    # The hosts' copies differ in their locations (the dumps with metadata, the MLIR with file locations).
    differ = [m for m in modules
              if _host_folder(root, 0, m).joinpath(m.name).read_text() != _host_folder(root, 1, m).joinpath(m.name).read_text()]
    assert len(differ) >= 5, [m.name for m in differ]
    # One site per distinct module: the dump's stages are one module (one site, folded across
    # its stages, issue 27), each lowered module another, and host 3's own.
    sites = 1 + len(LOWERED) + 1
    distinct = len(modules) + 1
    files = HOSTS * len(modules) + 1

    code, text = _lint(str(root))
    assert code == 1
    findings = [line for line in text.splitlines() if re.match(r"\S+:\d+:\d+: MOE", line)]
    assert len(findings) == sites, text
    # Reported at the first path in sorted order: host0's copy, with the number of copies.
    assert sum(f"{root}/host0/" in line for line in findings) == sites - 1
    assert text.count(f"identical in {HOSTS} copies: {root}/host0/") == sites - 1
    assert text.splitlines()[-1] == f"{sites} findings in {files} files ({distinct} distinct modules)"

    code, out = _lint(str(root), "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, json_schema())
    assert len(data) == sites
    folded = [f for f in data if f["copies"] == HOSTS]
    assert len(folded) == sites - 1
    for f in folded:
        name = Path(f["path"]).name
        folder = Path(f["path"]).parent.name
        assert f["paths"] == sorted(str(root / f"host{h}" / folder / name) for h in range(HOSTS))
        assert f["path"] == f["paths"][0]
    # The dump's site: at the earliest stage (the StableHLO XLA was handed), the others its stages.
    (dumped,) = [f for f in data if f["stages"]]
    assert Path(dumped["path"]).name == "module.mlir"
    assert sorted(Path(s["path"]).name for s in dumped["stages"]) == sorted(
        m.name for m in _dump_stages(modules) if m.name != "module.mlir")
    assert all(s["path"].startswith(f"{root}/host0/") for s in dumped["stages"])
    (single,) = [f for f in data if f["copies"] == 1]
    assert single["paths"] == [single["path"]] and "jit_other" in single["path"]

    code, out = _lint(str(root), "--format", "sarif", "--source-root", str(root))
    log = json.loads(out)
    check_sarif(log)
    results = log["runs"][0]["results"]
    assert len(results) == sites
    for r in results:
        paths = r["properties"]["paths"]
        assert r["properties"]["copies"] == len(paths)
        # Related locations: where the halves start (issue 19), then the other stages, then the other copies.
        related = [loc["physicalLocation"]["artifactLocation"] for loc in r.get("relatedLocations", [])
                   if loc["message"]["text"].startswith("identical copy")]
        # Under --source-root, relative to it.
        assert related == [{"uri": str(Path(p).relative_to(root)), "uriBaseId": "%SRCROOT%"} for p in paths[1:]]
        assert r["locations"][0]["physicalLocation"]["artifactLocation"] == {
            "uri": str(Path(paths[0]).relative_to(root)), "uriBaseId": "%SRCROOT%"}

    code, out = _lint(str(root), "--format", "github")
    lines = out.splitlines()
    assert len(lines) == sites
    assert sum(f"identical in {HOSTS} copies" in line for line in lines) == sites - 1

    # --no-fold: every file on its own.
    code, out = _lint(str(root), "--format", "json", "--no-fold")
    assert len(json.loads(out)) == files


def test_modules_that_differ_beyond_locations_are_not_folded(host_dumps) -> None:
    root, modules = host_dumps
    hlo = root / "host2" / "lowered" / "moe_mesh2_concat.hlo"
    # One host compiled another program (here: another module name).
    hlo.write_text(hlo.read_text().replace("HloModule jit_moe_body", "HloModule jit_moe_body_v2", 1))
    run = lint_files([str(root)], jobs=1)
    by_name = {}
    for f in run.warnings:
        by_name.setdefault(Path(f.path).name, []).append(f)
    assert sorted(f.copies for f in by_name["moe_mesh2_concat.hlo"]) == [1, HOSTS - 1]
    assert run.modules == len(modules) + 2
    # fold=False: every file on its own, as before.
    unfolded = lint_files([str(root)], jobs=1, fold=False)
    assert len(unfolded.warnings) == len(run.files) and all(f.copies == 1 for f in unfolded.warnings)


def test_errors_fold_too(tmp_path: Path) -> None:
    for host in range(3):
        (tmp_path / f"h{host}").mkdir()
        (tmp_path / f"h{host}" / "bad.hlo").write_text("HloModule broken\nENTRY e {\n")
    run = lint_files([str(tmp_path)], jobs=1)
    (err,) = run.errors
    assert err.copies == 3 and err.path == str(tmp_path / "h0" / "bad.hlo") and run.exit_code == 2
    assert format_findings(run.findings, "text").startswith(
        f"{err.path}:{err.line}:{err.column}: error: parse-error: ")
    assert "identical in 3 copies" in format_findings(run.findings, "text")


def test_pool_folds_like_one_process(host_dumps) -> None:
    root, _ = host_dumps
    assert lint_files([str(root)], jobs=1).findings == lint_files([str(root)], jobs=2).findings


# ---- what counts as a location ---------------------------------------------------


def test_without_locations_hlo() -> None:
    text = ('HloModule m\n\nFileNames\n1 "/home/a/model.py"\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n'
            'ENTRY e {\n  p = f32[2]{0} parameter(0), metadata={op_name="a}{b" source_file="/x/y.py" source_line=3}\n'
            '  ROOT c = f32[2]{0} custom-call(p), custom_call_target="t", backend_config="metadata={keep}"\n}\n')
    got = without_locations(text)
    assert "FileNames" not in got and "StackFrames" not in got and "/home/a" not in got
    assert "metadata={op_name" not in got and "/x/y.py" not in got
    assert 'backend_config="metadata={keep}"' in got  # inside a string: not a location
    assert "p = f32[2]{0} parameter(0)\n" in got


def test_without_locations_mlir() -> None:
    text = ('module @m {\n  func.func @main(%a: tensor<2xf32> loc("x")) -> tensor<2xf32> {\n'
            '    %0 = stablehlo.add %a, %a {s = "loc(keep)"} : tensor<2xf32> loc(callsite("f(a)"("/h/1.py":3:4) at #loc2))\n'
            '    return %0 : tensor<2xf32> loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n'
            '#loc = loc(unknown)\n#loc1 = loc("/h/1.py":5:6)\n#loc2 = loc("f"(#loc1))\n')
    got = without_locations(text)
    assert "loc(" not in got.replace('"loc(keep)"', "") and "#loc" not in got and "/h/1.py" not in got
    assert '{s = "loc(keep)"}' in got and "%alloc" not in got


def test_debug_info_is_all_that_separates_the_two_prints(shared_dir: Path) -> None:
    samples = shared_dir / "samples"
    for debug in sorted(samples.glob("*.stablehlo.debuginfo.mlir")):
        plain = debug.with_name(debug.name.replace(".debuginfo", ""))
        assert without_locations(debug.read_text()) == without_locations(plain.read_text()), debug.name
        assert module_key(debug.read_text()) == module_key(plain.read_text())


def test_group_copies_order_and_unreadable(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    for d in ("b", "a"):
        shutil.copy(DATA / "moe_mesh2_concat.mlir", tmp_path / d / "m.mlir")
    missing = str(tmp_path / "gone.mlir")
    files = [str(tmp_path / "b" / "m.mlir"), missing, str(tmp_path / "a" / "m.mlir")]
    # Each group sorted; groups in the order their first path comes in the list.
    assert group_copies(files) == [[missing], [str(tmp_path / "a" / "m.mlir"), str(tmp_path / "b" / "m.mlir")]]
