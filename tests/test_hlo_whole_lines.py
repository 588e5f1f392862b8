"""HLO instruction lines read in one match build exactly what the general path builds.

The HLO parser takes a line in the form XLA's printer writes (``name = shape
opcode(operands), attr=value, ...``) with one regular expression
(``_HloParser.read_whole_line``); every other line goes the general way
(head, operands, one attribute at a time).  Here every HLO text we have is
parsed both ways, and every field of every instruction (attributes' source
text in order, positions, operands, called computations, dialect data) and
every error must be the same.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from hlo_passes.errors import ParseError
from hlo_passes.ir import Computation, Instruction, Module
from hlo_passes.dialects.hlo import parser as hlo
from hlo_passes.text import parse_hlo

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free


def _general(text: str, monkeypatch: pytest.MonkeyPatch, validate: bool = False) -> Module:
    with monkeypatch.context() as m:
        m.setattr(hlo._HloParser, "read_whole_line", lambda self, *a: None)
        return parse_hlo(text, validate=validate)


def _plain(value: object) -> object:
    """A dialect-data value with the IR objects in it named (they differ between parses)."""
    if isinstance(value, (Instruction, Computation)):
        return ("ir", value.name)
    if isinstance(value, dict):
        return sorted((k, _plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _fields(module: Module) -> list[tuple]:
    index = {id(ins): n for n, ins in enumerate(module.instructions())}
    out = []
    for comp in module.computations.values():
        out.append((comp.name, comp.line, comp.column, _plain(comp.dialect_data)))
        for ins in comp.instructions:
            out.append((
                ins.name, ins.opcode, ins.source_op, ins.shape, ins.line, ins.column, ins.span, ins.lead,
                [index[id(o)] for o in ins.operands], [c.name for c in ins.called_computations],
                list(ins.attributes.source_texts().items()), _plain(ins.dialect_data),
            ))
    return out


def _texts(shared: Path) -> list[Path]:
    corpus = shared / "corpus" / "hlo"
    files = sorted((corpus / "valid").glob("*.hlo")) + sorted((corpus / "invalid").glob("*.hlo"))
    files += sorted((corpus / "newer").rglob("*.hlo"))
    return files + sorted(p for p in (shared / "samples").rglob("*.txt") if p.read_text().startswith("HloModule"))


def _outcome(parse, text: str):
    try:
        return "ok", _fields(parse(text))
    except ParseError as err:
        return "error", str(err)


def test_real_lines_take_the_one_match_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module as XLA prints it: most instructions are read in one match."""
    taken = []
    original = hlo._HloParser.read_whole_line

    def counting(self, *args):
        got = original(self, *args)
        taken.append(got is not None)
        return got

    text = ("HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
            "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
            "  ROOT %s = f32[] add(%x, %y)\n}\n\n"
            "ENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0), sharding={replicated}\n"
            "  %c = f32[] constant(0)\n"
            "  %b = f32[8]{0} broadcast(%c), dimensions={}, metadata={op_name=\"jit(f)/b\" stack_frame_id=1}\n"
            "  %r = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1}}, to_apply=%add, "
            "backend_config={\"a\":{\"b\":[1,2]}}\n"
            "  ROOT %m = f32[8]{0} multiply(%r, %b), metadata={op_name=\"m\"} // a comment\n}\n")
    monkeypatch.setattr(hlo._HloParser, "read_whole_line", counting)
    fast = parse_hlo(text)
    # Of 8 instructions, the one with a comment after it takes the general path.
    assert len(list(fast.instructions())) == 8 and taken == [True] * 7
    assert _fields(fast) == _fields(_general(text, monkeypatch))
    assert fast.to_text() == text


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.filterwarnings("ignore::hlo_passes.errors.VerificationWarning")
def test_every_text_parses_alike_both_ways(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    differ = []
    files = _texts(shared_dir)
    assert len(files) > 1500
    for f in files:
        text = f.read_text()
        for validate in (False, True):
            fast = _outcome(lambda t: parse_hlo(t, validate=validate), text)
            slow = _outcome(lambda t: _general(t, monkeypatch, validate), text)
            if fast != slow:
                differ.append((f.name, validate))
    assert not differ, differ[:20]


def test_lines_the_one_match_path_leaves_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forms the pattern could take but whose pieces need the general path: each parses
    (or fails) as it does there."""
    head = "HloModule m\n\nENTRY %e (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n"
    lines = [
        "  ROOT %r = f32[2]{0} add(%p, %p), metadata={op_name=\"a\"}, metadata={op_name=\"b\"}\n}\n",  # twice
        "  ROOT %r = f32[2]{0} frobnicate(%p), metadata={op_name=\"a\"}\n}\n",  # unknown opcode
        "  ROOT %r = f32[2]{0} call(%p), to_apply={%q}\n}\n",  # a computation list in braces
        "  %c = pred[] constant(true)\n  ROOT %r = f32[2]{0} add(%p, %p)\n}\n",  # a literal like a name
        "  ROOT %r = f32[2]{0} parameter(x)\n}\n",  # not a number
        "  ROOT %r = f32[2]{0} add(%p, 1p)\n}\n",  # not a name
        "  ROOT %r = f32[2]{0} add(%p, %p), dimensions=\n}\n",  # no value
    ]
    for line in lines:
        text = head + line
        for validate in (False, True):
            assert (_outcome(lambda t: parse_hlo(t, validate=validate), text)
                    == _outcome(lambda t: _general(t, monkeypatch, validate), text)), line


def test_parsed_sets_every_field_init_sets() -> None:
    """``Instruction.parsed`` (the parsers' __init__ without checks) writes each field ``__init__``
    writes, with a parsed instruction's values: a field added to one and not the other fails here."""
    from hlo_passes.ir import Attributes, Shape

    shape = Shape.array("f32", [4])
    made = Instruction("a", "add", shape, [], Attributes(), line=3, column=5, span=(0, 10))
    parsed = Instruction.parsed("a", "add", "add", shape, [], Attributes(), 3, 5, (0, 10), 1, None)
    slots = [name for cls in Instruction.__mro__ for name in getattr(cls, "__slots__", ())]
    assert "attributes" in slots and "_dialect_data" in slots

    def fields(instr: Instruction) -> dict[str, object]:
        return {name: getattr(instr, name, "<unset>") for name in slots if name != "attributes"}

    assert fields(parsed) == fields(made)
    assert "<unset>" not in fields(parsed).values()
    assert parsed.attributes._owner is parsed and made.attributes._owner is made
