"""Memory per parsed HLO instruction, and the on-demand fields that keep it low.

``Instruction`` creates ``dialect_data``, ``operand_results`` and
``called_computations`` on first access, ``Attributes`` its decoded-value
dict, ``Module`` its set of names; the parser and printer must not create
them for every instruction (each would cost 56-64 bytes on 10^5 nodes),
and passes must see the same values as when they were plain fields.
"""
from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from parse_speed import generated_hlo  # noqa: E402

TEXT = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4]{0} parameter(0)
  // a comment that belongs to n's lead
  n = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="n"}
  c = f32[] constant(0)
  r = f32[] reduce(n, c), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[4]) tuple(r, n)
}
"""


def _lazy_fields(module) -> list[str]:
    made = []
    for i in module.instructions():
        for slot in ("_dialect_data", "_operand_results", "_called_computations"):
            if getattr(i, slot) is not None:
                made.append(f"{i.name}.{slot}")
        if i.attributes._decoded is not None:
            made.append(f"{i.name}.attributes._decoded")
    return made


def test_parse_and_print_create_no_per_instruction_extras() -> None:
    m = hlo_passes.parse(TEXT)
    # Only the reduce calls a computation; nothing else needs an extra.
    assert _lazy_fields(m) == ["r._called_computations"]
    assert m._names is None
    assert m.to_text() == TEXT
    m.to_text(regenerate=True)
    # Printing signatures reads parameter numbers, which decodes them.
    params = {f"{i.name}.attributes._decoded" for i in m.instructions() if i.opcode == "parameter"}
    made = [f for f in _lazy_fields(m) if f not in params]
    assert made == ["r._called_computations"]


def test_on_demand_fields_behave_like_plain_ones() -> None:
    m = hlo_passes.parse(TEXT)
    by = {i.name: i for i in m.instructions()}
    r, n = by["r"], by["n"]
    assert r.operand_results == [0, 0] and r.called_computations == [m.computations["add"]]
    assert n.called_computations == [] and n.dialect_data == {}
    r.operand_results[1] = 0  # the list is kept, so writes stick
    assert r.operand_results is r.operand_results
    n.dialect_data["note"] = 1
    assert n.dialect_data == {"note": 1}
    assert n.attributes["metadata"] == {"op_name": "n"}
    assert n.attributes._decoded == {"metadata": {"op_name": "n"}}


def test_fresh_names_avoid_every_parsed_name() -> None:
    m = hlo_passes.parse(TEXT.replace("n = f32[4]{0} negate", "neg.hp1 = f32[4]{0} negate")
                         .replace("(r, n)", "(r, neg.hp1)").replace("reduce(n, c)", "reduce(neg.hp1, c)"))
    assert m._names is None
    fresh = m.fresh_name("neg")
    assert fresh != "neg.hp1" and fresh not in {i.name for i in m.instructions()}


def test_edit_after_parse_prints_comment_lead_and_new_line() -> None:
    m = hlo_passes.parse(TEXT)
    by = {i.name: i for i in m.instructions()}
    e = m.entry
    ab = e.add("abs", by["n"].shape, [by["p"]], after=by["p"])
    by["n"].set_operand(0, ab)
    out = m.to_text()
    assert "  // a comment that belongs to n's lead\n" in out
    assert out.index(f"{ab.name} = f32[4]{{0}} abs(") < out.index("// a comment")
    again = hlo_passes.parse(out)
    assert [o.name for o in {i.name: i for i in again.instructions()}["n"].operands] == [ab.name]


@pytest.mark.parametrize("operands, where", [
    ("f32[4]{0} %p, f32[4]{0} %q", None),
    ("f32[4]{0}\n      %p,\n    f32[4] q", None),
    ("f32[4]{0} %p, f32[x] %q", "[x] %q"),       # bad shape: the general path's error
    ("f32[4]{0} %p, f32[4]{0} %nope", "nope"),   # undefined operand
])
def test_operands_written_with_shapes(operands: str, where: str | None) -> None:
    text = f"""HloModule m
ENTRY e {{
  p = f32[4]{{0}} parameter(0)
  q = f32[4]{{0}} parameter(1)
  ROOT a = f32[4]{{0}} add({operands})
}}"""
    if where is None:
        m = hlo_passes.parse(text)
        assert [o.name for o in m.entry.root.operands] == ["p", "q"]
        return
    with pytest.raises(ParseError) as info:
        hlo_passes.parse(text)
    err = info.value
    line = text.splitlines()[err.line - 1]
    assert line[err.column - 1:].startswith(where), (str(err), where)


def test_peak_memory_per_instruction() -> None:
    # Measured ~1,930 bytes on CPython 3.11 (2,600 before the on-demand
    # fields and shared attribute texts); the bound leaves room for
    # allocator noise, not for a new per-instruction dict or list.
    text = generated_hlo(0.5)
    hlo_passes.parse(text)  # warm the shape and opcode caches
    gc.collect()
    tracemalloc.start()
    m = hlo_passes.parse(text)
    m.graph  # noqa: B018 - built on first use; counted, as every rule builds it
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = sum(1 for _ in m.instructions())
    assert peak / n < 2100, f"{peak / n:.0f} bytes per instruction"


def test_equal_attribute_texts_share_one_string() -> None:
    m = hlo_passes.parse(TEXT.replace('metadata={op_name="n"}', 'metadata={op_name="same"}')
                         .replace("dimensions={0}, to_apply=add",
                                  'dimensions={0}, to_apply=add, metadata={op_name="same"}'))
    by = {i.name: i for i in m.instructions()}
    a, b = by["n"].attributes.raw("metadata"), by["r"].attributes.raw("metadata")
    assert a == b == '{op_name="same"}' and a is b
