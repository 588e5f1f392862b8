"""Every StableHLO text we have parses, prints back byte-identical, and regenerates faithfully.

"Faithfully" is judged by jaxlib's MLIR parser: its print of our
``to_text(regenerate=True)`` must equal its print of the original.  Both are
printed with debug info; locations MLIR makes up from text positions
(``loc("-":line:col)``, for ops without an explicit location) are masked,
since a regenerated text lays ops out differently.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlo_passes.ir.device_groups import DeviceGroups

import hlo_passes
from hlo_passes.text import parse_stablehlo

_POS = re.compile(r'loc\("-":\d+:\d+\)')


def _texts(shared: Path) -> list[Path]:
    files = sorted((shared / "corpus" / "stablehlo").glob("*.mlir"))
    files += sorted((shared / "samples").glob("*.mlir"))
    files += sorted((shared / "samples").glob("*/*.mlir"))
    return files


@pytest.mark.corpus
def test_whole_stablehlo_corpus_roundtrips(shared_dir: Path) -> None:
    from hlo_passes import _jax_compat as compat

    ir = compat.ir
    files = _texts(shared_dir)
    assert len([f for f in files if "corpus" in f.parts]) == 342
    failures: list[str] = []
    with compat.make_ir_context():
        for f in files:
            text = f.read_text()
            module = parse_stablehlo(text, path=str(f))
            if module.to_text() != text:
                failures.append(f"{f.name}: not byte-identical")
                continue
            ref = _POS.sub("loc(P)", ir.Module.parse(text).operation.get_asm(enable_debug_info=True))
            regen = module.to_text(regenerate=True)
            try:
                ours = ir.Module.parse(regen).operation.get_asm(enable_debug_info=True)
            except Exception as e:  # jaxlib's MLIRError
                failures.append(f"{f.name}: jaxlib rejects the regenerated text: {str(e)[:200]}")
                continue
            if _POS.sub("loc(P)", ours) != ref:
                failures.append(f"{f.name}: regenerated module differs")
    assert not failures, "\n".join(failures[:20])


@pytest.mark.corpus
def test_corpus_validates(shared_dir: Path) -> None:
    """validate=True runs the lark grammar over every attribute and type and decodes every
    normalised attribute, for every file."""
    for f in _texts(shared_dir):
        module = parse_stablehlo(f.read_text(), path=str(f), validate=True)
        meshes = module.attributes.get("sdy.meshes", {})
        for ins in module.instructions():
            raw = ins.attributes.raw("replica_groups") if "replica_groups" in ins.attributes else None
            if raw is None:
                continue
            groups = ins.attributes["replica_groups"]
            symbol = re.search(r"mesh = @([\w.]+)", raw)
            if symbol is not None and symbol.group(1) not in meshes:
                assert isinstance(groups, str) and groups in raw, f.name  # no such mesh: left as text
                continue
            assert isinstance(groups, DeviceGroups) and all(isinstance(g, tuple) for g in groups), f.name
            assert groups == tuple(groups.groups) and len(groups) == groups.num_groups, f.name


@pytest.mark.corpus
def test_reprinted_ops_keep_their_spelling(shared_dir: Path) -> None:
    """Every op marked changed (operand 0 set to itself) re-prints from its template
    with operands and regions from the graph: the text must come back byte-identical."""
    failures = []
    for f in _texts(shared_dir):
        text = f.read_text()
        module = parse_stablehlo(text, path=str(f))
        touched = 0
        for ins in list(module.instructions()):
            if ins.opcode == "parameter" or ins.dialect_data.get("implicit"):
                continue
            if ins.operands:
                ins.set_operand(0, ins.operands[0], ins.operand_results[0])
            else:
                ins.mark_changed()
            touched += 1
        assert module.changed or touched == 0
        if module.to_text() != text:
            failures.append(f.name)
    assert not failures, failures[:20]


@pytest.mark.corpus
def test_corpus_verifies(shared_dir: Path) -> None:
    """MLIR accepted every file, so the graph verifier finds nothing either: regions may
    use values of the regions around them, '?' sizes are unknown, the legacy
    ``stablehlo.dot`` contracts by position."""
    problems = {}
    for path in _texts(shared_dir):
        module = hlo_passes.parse_file(path)
        try:
            module.verify()
        except hlo_passes.VerificationError as err:
            problems[path.name] = err.problems[:3]
    assert problems == {}
