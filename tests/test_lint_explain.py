"""hlo-lint --explain shows near misses; a finding's notes point at the slices, where the user's
fix goes (with their source file:line when the text has it), or say how to get locations."""
from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes.lint import json_schema
from sarif_structure import check_sarif
from test_cli import HLO, MLIR, run


def _with_slice_metadata(tmp_path: Path) -> tuple[Path, list[int]]:
    """The bundled HLO with metadata on its two slices of the weight, as an XLA dump has it."""
    lines = HLO.read_text().splitlines(keepends=True)
    slice_lines = [n for n, l in enumerate(lines, 1) if re.match(r"\s*slice\.\d+ = .* slice\(shard_map\.11\)", l)]
    assert len(slice_lines) == 2
    for k, n in enumerate(slice_lines):
        body = lines[n - 1].rstrip("\n")
        lines[n - 1] = (f'{body}, metadata={{op_name="jit(step)/shard_map/slice" '
                        f'source_file="/src/model/moe.py" source_line={120 + k}}}\n')
    path = tmp_path / "with_metadata.hlo"
    path.write_text("".join(lines))
    return path, slice_lines


def test_notes_give_the_slice_lines_and_their_source(tmp_path: Path) -> None:
    path, slice_lines = _with_slice_metadata(tmp_path)
    proc = run("hlo-lint", path)
    assert proc.returncode == 1
    notes = [l.strip() for l in proc.stdout.splitlines() if l.strip().startswith("note:")]
    assert notes == [
        # (the text names no platform: its claim is not held against a compiled program)
        "note: collectives 4 -> 2 as written; XLA may combine (not checked: the text does not say it runs on cpu "
        "(--platform cpu lets it be compiled here))",
        f"note: half 1 starts at {path}:{slice_lines[0]}:3 (jit(step)/shard_map/slice), from /src/model/moe.py:120",
        f"note: half 2 starts at {path}:{slice_lines[1]}:3 (jit(step)/shard_map/slice), from /src/model/moe.py:121",
    ]
    data = json.loads(run("hlo-lint", path, "--format", "json").stdout)
    jsonschema.validate(data, json_schema())
    assert [n.split(" (")[0] for n in data[0]["notes"]] == [n[len("note: "):].split(" (")[0] for n in notes]
    assert [p["line"] for p in data[0]["details"]["pieces"]] == slice_lines
    sarif = json.loads(run("hlo-lint", path, "--format", "sarif").stdout)
    check_sarif(sarif)
    related = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == slice_lines
    assert related[0]["message"]["text"] == "half 1 starts here (/src/model/moe.py:120)"


def test_without_locations_the_notes_say_how_to_get_them() -> None:
    hlo = run("hlo-lint", HLO).stdout
    assert ("note: this text has no op metadata: print it with `lowered.as_text(dialect=\"hlo\", debug_info=True)` "
            "(jax); XLA's dumps (`--xla_dump_to=DIR --xla_dump_hlo_as_text`, unless `--xla_dump_disable_metadata`) "
            "and `compiled.as_text()` keep it") in hlo
    mlir = run("hlo-lint", MLIR).stdout
    assert "note: this text has no source locations: print it with `lowered.as_text(debug_info=True)`" in mlir
    assert re.search(rf"note: half 1 starts at {re.escape(str(MLIR))}:\d+:\d+\n", mlir)


@pytest.mark.jax_facing
def test_lowered_with_debug_info_gives_the_source_of_the_split() -> None:
    from test_jax_hook import UNFUSED, _program

    fn, args = _program(UNFUSED)
    (finding,) = hlo_passes.lint_fn(fn, *args)
    moe_py = Path(__file__).resolve().parent.parent / "examples" / "moe.py"
    # (after the note that the claim is the lowered text's: lint_fn compiles nothing)
    assert finding.notes[0].startswith("collectives 4 -> 2 as written"), finding.notes
    sources = [re.search(r", from (\S+):(\d+)$", n) for n in finding.notes[1:]]
    assert len(sources) == 2 and all(sources), finding.notes
    for m in sources:
        assert Path(m.group(1)).resolve() == moe_py.resolve()
        # The line that cuts the weight into gate and up.
        assert "w[" in moe_py.read_text().splitlines()[int(m.group(2)) - 1]


def test_lint_explain_prints_near_misses(tmp_path: Path) -> None:
    text = HLO.read_text()
    m = re.search(r"concatenate\((all_gather\.\d+), (all_gather\.\d+)\)", text)
    swapped = tmp_path / "swapped.hlo"
    swapped.write_text(text.replace(m.group(0), f"concatenate({m.group(2)}, {m.group(1)})"))
    proc = run("hlo-lint", swapped, "--explain")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a near miss is not a finding
    assert proc.stdout == "0 findings in 1 file\n"
    (near,) = [l for l in proc.stderr.splitlines() if "near miss" in l]
    assert re.match(rf"{re.escape(str(swapped))}:\d+:\d+: note: MOE001 near miss: refused \(concat-order\): ", near)
    json_run = run("hlo-lint", swapped, "--explain", "--format", "json")
    assert json.loads(json_run.stdout) == [] and "concat-order" in json_run.stderr
    quiet = run("hlo-lint", swapped)
    assert quiet.returncode == 0 and quiet.stderr == ""
    clean = run("hlo-lint", HLO, "--explain")
    assert clean.returncode == 1 and "hlo-lint: no near misses" in clean.stderr
