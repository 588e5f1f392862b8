"""send/recv shapes: built from the operands as XLA's parser builds them.

XLA ignores the shape written on send, recv (all but its data element),
send-done and recv-done; instructions written without a shape then infer
theirs from the built one.  Each case is checked against our expectation and
against XLA's own parse of the same text, so a wrong idea of XLA fails too.
"""
from __future__ import annotations

import pytest

import hlo_passes
from hlo_passes import ParseError

CASES = {
    # recv-done declares a wrong data shape; the gte sees the recv's.
    "recv_done_declared_wrong": ("""HloModule m
ENTRY e {
  tok = token[] parameter(0)
  r = (f32[8,4]{1,0}, u32[], token[]) recv(tok), channel_id=5
  d = (f32[8,3], token[]) recv-done(r), channel_id=5
  ROOT g = get-tuple-element(d), index=0
}""", {"d": "(f32[8,4]{1,0}, token[])", "g": "f32[8,4]{1,0}"}),
    # send's data comes from operand 0, in whichever order the text gives them.
    "send_operands_swapped": ("""HloModule m
ENTRY e {
  data = f32[16]{0} parameter(0)
  tok = token[] after-all()
  s = (f32[16]{0}, u32[], token[]) send(tok, data), channel_id=2
  ROOT t = tuple(s)
}""", {"s": "(token[], u32[], token[])", "t": "((token[], u32[], token[]))"}),
    # The send's data has the layout of its operand, not the one written.
    "send_layout_from_operand": ("""HloModule m
ENTRY e {
  p = f32[4,2]{1,0} parameter(0)
  tok = token[] after-all()
  s = (f32[4,2]{0,1}, u32[8], token[]) send(p, tok), channel_id=1
  sd = f32[4,2] send-done(s), channel_id=1
  ROOT t = tuple(s, sd)
}""", {"s": "(f32[4,2]{1,0}, u32[], token[])", "sd": "token[]",
       "t": "((f32[4,2]{1,0}, u32[], token[]), token[])"}),
    # A send of an inferred shape waits for that shape.
    "send_of_inferred": ("""HloModule m
ENTRY e {
  p = f32[3]{0} parameter(0)
  a = tuple(p)
  tok = token[] after-all()
  s = (f32[9], u32[], token[]) send(a, tok), channel_id=1
  ROOT g = get-tuple-element(s), index=0
}""", {"s": "((f32[3]{0}), u32[], token[])", "g": "(f32[3]{0})"}),
}


def _plain(shape: str) -> str:
    return shape.replace(" ", "")


def _ours(text: str) -> dict[str, str]:
    module = hlo_passes.parse(text, dialect="hlo")
    return {i.name: _plain(str(i.shape)) for i in module.instructions()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_derived_shapes(case: str) -> None:
    text, want = CASES[case]
    got = _ours(text)
    for name, shape in want.items():
        assert got[name] == _plain(shape), (name, got[name])


@pytest.mark.parametrize("case", sorted(CASES))
def test_derived_shapes_match_xla(case: str, xla_reference) -> None:
    text, want = CASES[case]
    ref = xla_reference.parse(text)
    assert ref.ok, ref.error
    theirs = {i.name: _plain(i.shape) for c in ref.computations for i in c.instructions}
    for name, shape in want.items():
        assert theirs[name] == _plain(shape), (name, theirs[name])


def test_unchanged_module_prints_its_source() -> None:
    text = CASES["send_layout_from_operand"][0]
    assert hlo_passes.parse(text, dialect="hlo").to_text() == text


def test_regenerated_text_reads_back_the_same() -> None:
    for text, _ in CASES.values():
        module = hlo_passes.parse(text, dialect="hlo")
        again = hlo_passes.parse(module.to_text(regenerate=True), dialect="hlo")
        assert _ours(text) == {i.name: _plain(str(i.shape)) for i in again.instructions()}


@pytest.mark.parametrize("op, line", [
    ("s = send(p, tk), channel_id=1", "send"),
    ("s = slice(p), slice={[0:2]}", "slice"),
    ("s = reshape(p)", "reshape"),
])
def test_missing_shape_where_xla_cannot_infer(op: str, line: str, xla_reference) -> None:
    text = f"""HloModule m
ENTRY e {{
  p = f32[4] parameter(0)
  tk = token[] after-all()
  {op}
  ROOT t = tuple(p)
}}"""
    with pytest.raises(ParseError) as info:
        hlo_passes.parse(text, dialect="hlo")
    err = info.value
    assert f"cannot infer shape for opcode: {line}" in str(err)
    ref = xla_reference.parse(text)
    assert not ref.ok and f"cannot infer shape for opcode: {line}" in ref.error
    # Same place as XLA's message: line:column of the '('.
    assert f"{err.line}:{err.column}:" in ref.error
