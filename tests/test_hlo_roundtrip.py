"""Every valid corpus HLO module parses, validates and prints back byte-identical.

XLA's reading of ``to_text(regenerate=True)`` is compared in
``test_hlo_corpus_vs_xla.py`` (one restartable XLA worker for the corpus).
"""
from __future__ import annotations

from pathlib import Path

import warnings

import pytest

import hlo_passes
from hlo_passes import ParseError, VerificationError
from hlo_passes.errors import VerificationWarning

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

VALID = Path("/work/shared/corpus/hlo/valid")
for _p in Path(__file__).resolve().parents:
    if (_p / "shared" / "corpus" / "hlo" / "valid").is_dir():
        VALID = _p / "shared" / "corpus" / "hlo" / "valid"
        break

FILES = sorted(VALID.glob("*.hlo"))


def test_corpus_is_there() -> None:
    assert len(FILES) == 1453


# Valid corpus modules that break a result-shape rule on purpose (XLA tests
# of passes that must cope with them); XLA's parser accepts them, so
# validate=True must too, reporting what it found.
SHAPE_INVALID = {
    "algebraic_simplifier_test__362.hlo": "test/copy1: copy result should equal its operand's shape",
    "collective_ops_utils_test__3.hlo": "e/_: all-gather result should be [1024], not [512]",
    "invalid_concat__1.hlo": "computation/cat.3: concatenate result should be [3, 2]",
    "operand_upcaster__1.hlo": "test_dot/result: dot result should be [8, 8], not [8]",
}


@pytest.mark.corpus
def test_every_supported_module_round_trips_and_validates() -> None:
    failures = []
    flagged = {}
    for f in FILES:
        text = f.read_text(encoding="utf-8")
        try:
            m = hlo_passes.parse(text, path=str(f))
            if m.dialect != "hlo":
                failures.append(f"{f.name}: dialect {m.dialect}")
            elif m.to_text() != text:
                failures.append(f"{f.name}: to_text() differs from the source")
            assert m.shape_problems is None  # not checked without validate
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                v = hlo_passes.parse(text, path=str(f), validate=True)
            if v.shape_problems:
                flagged[f.name] = v.shape_problems
                if [w.category for w in caught] != [VerificationWarning]:
                    failures.append(f"{f.name}: expected one VerificationWarning, got {caught}")
            elif v.shape_problems != [] or caught:
                failures.append(f"{f.name}: shape_problems {v.shape_problems!r}, warnings {caught}")
        except ParseError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"
    assert sorted(flagged) == sorted(SHAPE_INVALID)
    for name, problems in flagged.items():
        assert len(problems) == 1 and problems[0].endswith(SHAPE_INVALID[name]), problems
        assert problems[0].startswith("line "), problems


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


BAD_SLICE = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[2] slice(p), slice={[0:2:x]}\n}\n"


def test_attribute_errors_are_parse_errors_lazily_and_with_validate() -> None:
    m = hlo_passes.parse(BAD_SLICE)  # lazy: parses, the value is not read yet
    with pytest.raises(ParseError) as lazy:
        m.entry.root.attributes["slice"]
    with pytest.raises(ParseError) as eager:
        hlo_passes.parse(BAD_SLICE, validate=True)
    for err in (lazy.value, eager.value):
        assert (err.line, err.column) == (4, 41), str(err)
        assert "slice" in err.reason


def test_decoded_values() -> None:
    text = """HloModule m, entry_computation_layout={(f32[8,4]{1,0:T(8,128)S(1)})->f32[8,4]{1,0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[8,4]{1,0:T(8,128)S(1)} parameter(0)
  ar = f32[8,4] all-reduce(p), channel_id=3, replica_groups=[2,4]<=[4,2]T(1,0), use_global_device_ids=true, to_apply=add, sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  sl = f32[2,4] slice(ar), slice={[0:8:4], [0:4]}
  a2 = f32[] constant(0)
  pd = f32[5,4] pad(sl, a2), padding=1_2x0_0
  ROOT d = f32[5,5] dot(pd, pd), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={op_name="x" source_line=7}, frontend_attributes={k="v", m={mesh = #sdy.mesh<["x"=8]>}}
}
"""
    m = hlo_passes.parse(text, validate=True)
    by = {i.name: i for i in m.instructions()}
    ar = by["ar"].attributes
    assert ar["replica_groups"] == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert ar["channel_id"] == 3 and ar["use_global_device_ids"] is True and ar["to_apply"] == "add"
    sh = ar["sharding"]
    assert (sh.kind, sh.tile_shape, sh.devices, sh.last_tile_dim_replicate) == ("tiled", (2, 1, 4), tuple(range(8)), True)
    assert by["ar"].called_computations == [m.computations["add"]]
    assert by["sl"].attributes["slice"] == ((0, 8, 4), (0, 4, 1))
    assert by["pd"].attributes["padding"] == ((1, 2, 0), (0, 0, 0))
    d = by["d"].attributes
    assert d["lhs_contracting_dims"] == (1,) and d["metadata"] == {"op_name": "x", "source_line": 7}
    assert d["frontend_attributes"] == {"k": "v", "m": '{mesh = #sdy.mesh<["x"=8]>}'}
    assert by["p"].shape.layout == "{1,0:T(8,128)S(1)}" and by["p"].attributes["parameter_number"] == 0
    assert by["a2"].attributes["literal"] == 0
    assert m.to_text() == text
    from hlo_passes.ir.verify import verify_module

    assert verify_module(m) == []
    by["sl"].set_shape(hlo_passes.Shape.array("f32", [3, 4]))
    assert any("slice result should be [2, 4]" in p for p in verify_module(m))


SLICE_MODULE = """HloModule m

ENTRY e {
  p = f32[8,4]{1,0} parameter(0)
  sl = f32[2,4]{1,0} slice(p), slice={[0:8:4], [0:4]}
  ROOT n = f32[2,4]{1,0} negate(sl)
}
"""


def test_verify_names_the_instruction_and_line_a_pass_broke() -> None:
    m = hlo_passes.parse(SLICE_MODULE, validate=True)
    assert m.shape_problems == []
    m.verify()  # consistent as parsed
    sl = next(i for i in m.instructions() if i.name == "sl")
    # What a buggy pass would do: a new limit without the matching shape.
    sl.attributes["slice"] = ((0, 6, 2), (0, 4, 1))
    with pytest.raises(VerificationError) as info:
        m.verify()
    assert info.value.problems == ["line 5: e/sl: slice result should be [3, 4], not [2, 4]"]
    assert str(info.value) == info.value.problems[0]


def test_verify_reports_new_instructions_as_new() -> None:
    m = hlo_passes.parse(SLICE_MODULE)
    e = m.entry
    p = e.instructions[0]
    bad = e.add("slice", hlo_passes.Shape.array("f32", [5, 4]), [p], {"slice": ((0, 8, 1), (0, 4, 1))},
                before=e.root)
    from hlo_passes.ir.verify import verify_module

    problems = verify_module(m)
    assert problems == [f"new: e/{bad.name}: slice result should be [8, 4], not [5, 4]"]


def test_validate_reports_shape_problems_without_rejecting() -> None:
    text = SLICE_MODULE.replace("sl = f32[2,4]{1,0} slice", "sl = f32[3,4]{1,0} slice")
    with pytest.warns(VerificationWarning, match=r"line 5: e/sl: slice result should be \[2, 4\], not \[3, 4\]"):
        m = hlo_passes.parse(text, validate=True)
    assert m.shape_problems == ["line 5: e/sl: slice result should be [2, 4], not [3, 4]"]
    assert m.to_text() == text
    with pytest.raises(VerificationError):
        m.verify()
    # Without validate the parser does not look (XLA's parser does not either).
    assert hlo_passes.parse(text).shape_problems is None
