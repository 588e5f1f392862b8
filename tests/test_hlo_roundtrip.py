"""Every valid corpus HLO module parses, validates and prints back byte-identical.

XLA's reading of ``to_text(regenerate=True)`` is compared in
``test_hlo_corpus_vs_xla.py`` (one restartable XLA worker for the corpus).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError

VALID = Path("/work/shared/corpus/hlo/valid")
for _p in Path(__file__).resolve().parents:
    if (_p / "shared" / "corpus" / "hlo" / "valid").is_dir():
        VALID = _p / "shared" / "corpus" / "hlo" / "valid"
        break

FILES = sorted(VALID.glob("*.hlo"))


def test_corpus_is_there() -> None:
    assert len(FILES) == 1453


@pytest.mark.corpus
def test_every_supported_module_round_trips_and_validates() -> None:
    failures = []
    for f in FILES:
        text = f.read_text(encoding="utf-8")
        try:
            m = hlo_passes.parse(text, path=str(f))
            if m.dialect != "hlo":
                failures.append(f"{f.name}: dialect {m.dialect}")
            elif m.to_text() != text:
                failures.append(f"{f.name}: to_text() differs from the source")
            hlo_passes.parse(text, path=str(f), validate=True)
        except ParseError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


@pytest.mark.corpus
def test_regenerated_text_reparses_to_the_same_structure() -> None:
    failures = []
    for f in FILES:
        m = hlo_passes.parse(f.read_text(encoding="utf-8"))
        regen = m.to_text(regenerate=True)
        m2 = hlo_passes.parse(regen)
        a = [(i.name, i.opcode, i.shape, [o.name for o in i.operands]) for i in m.instructions()]
        b = [(i.name, i.opcode, i.shape, [o.name for o in i.operands]) for i in m2.instructions()]
        if a != b or m2.entry.name != m.entry.name:
            failures.append(f.name)
    assert not failures, failures[:20]


def test_nested_instructions_and_inline_computations() -> None:
    text = (VALID / "hlo_parser_test__380.hlo").read_text()
    m = hlo_passes.parse(text)
    start = next(i for i in m.instructions() if i.name == "call-start.0")
    (callee,) = start.called_computations
    assert callee.name == "_" and list(m.computations) == ["_", "main"]
    assert callee.root.opcode == "tuple"
    assert m.to_text() == text
    assert "to_apply=_," in m.to_text(regenerate=True)
    text = (VALID / "call_inliner_test__14.hlo").read_text()
    m = hlo_passes.parse(text)
    bar = m.computations["bar"]
    assert [i.name for i in bar.instructions] == ["p0", "constant.anon", "add", "constant.anon.1", "res"]
    assert bar.instructions[1].attributes["literal"] == 2
    assert [o.name for o in bar.root.operands] == ["add", "constant.anon.1"]
    assert m.to_text() == text


def test_positions_and_links() -> None:
    text = (VALID / "hlo_parser_test__22.hlo").read_text()
    m = hlo_passes.parse(text)
    root = m.entry.root
    assert root.name == "tuple" and root.line == 7 and root.column == 3
    s, e = root.span
    assert text[s:e].startswith("ROOT %tuple = ")
    assert [o.name for o in root.operands] == ["v1", "v2", "v3"]
    sh = root.attributes["sharding"]
    assert sh.kind == "tuple" and [x.kind for x in sh.tuple_shardings] == ["manual", "maximal", "replicated"]
    assert str(sh) == "{{manual}, {maximal device=0}, {replicated}}"
