"""Graph edits change only the lines of the edited instructions, and XLA reads the result."""
from __future__ import annotations

import difflib
import subprocess
import sys

import hlo_passes
from hlo_passes import Shape

TEXT = """HloModule edits, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

// a comment that must survive
%add_f32 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

ENTRY %main (a: f32[4], b: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)   // trailing comment
  %m = f32[4]{0} multiply(f32[4]{0} %a, f32[4]{0} %b), metadata={op_name="mul"}
  %unused = f32[4]{0} negate(%a)
  ROOT %r = f32[4]{0} add(%m, %b), sharding={replicated}
}
"""


def _diff(a: str, b: str) -> list[str]:
    return [l for l in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
            if l[:1] in "+-" and not l.startswith(("+++", "---"))]


def _xla_parses(text: str) -> None:
    # In a subprocess: XLA's parser may abort the process on bad input.
    code = ("import sys; from hlo_passes import _jax_compat as compat; "
            "compat.hlo_module_from_text(sys.stdin.read())")
    r = subprocess.run([sys.executable, "-c", code], input=text, text=True, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_replace_insert_remove_touch_only_their_lines() -> None:
    m = hlo_passes.parse(TEXT)
    entry = m.entry
    by = {i.name: i for i in entry.instructions}
    # replace an operand
    by["r"].set_operand(1, by["a"])
    # insert an instruction with a fresh name, use it from the root
    neg = entry.add("negate", Shape.array("f32", [4]), [by["m"]], after=by["m"])
    assert neg.name not in by
    m.replace_all_uses(by["m"], neg)
    neg.set_operand(0, by["m"])
    # remove one
    entry.remove(by["unused"])
    out = m.to_text()
    diff = _diff(TEXT, out)
    assert diff == [
        "-  %unused = f32[4]{0} negate(%a)",
        "-  ROOT %r = f32[4]{0} add(%m, %b), sharding={replicated}",
        f"+  %{neg.name} = f32[4] negate(%m)",
        f"+  ROOT %r = f32[4]{{0}} add(%{neg.name}, %a), sharding={{replicated}}",
    ], "\n".join(diff)
    assert "// a comment that must survive" in out and "// trailing comment" in out
    _xla_parses(out)
    again = hlo_passes.parse(out)
    assert [o.name for o in again.entry.root.operands] == [neg.name, "a"]


def test_attribute_set_by_a_pass_is_printed_from_its_value() -> None:
    m = hlo_passes.parse(TEXT)
    mul = next(i for i in m.entry.instructions if i.name == "m")
    mul.attributes["metadata"] = {"op_name": "renamed", "source_line": 3}
    out = m.to_text()
    assert _diff(TEXT, out) == [
        '-  %m = f32[4]{0} multiply(f32[4]{0} %a, f32[4]{0} %b), metadata={op_name="mul"}',
        '+  %m = f32[4]{0} multiply(%a, %b), metadata={op_name="renamed" source_line=3}',
    ]
    _xla_parses(out)
    assert m.to_text(regenerate=True).count("renamed") == 1


def test_unchanged_module_prints_its_source() -> None:
    m = hlo_passes.parse(TEXT)
    assert m.to_text() == TEXT
    regen = m.to_text(regenerate=True)
    assert "%m = f32[4]{0} multiply(%a, %b)" in regen
    _xla_parses(regen)


def test_root_change_reprints_both_lines() -> None:
    m = hlo_passes.parse(TEXT)
    by = {i.name: i for i in m.entry.instructions}
    m.entry.set_root(by["m"])
    out = m.to_text()
    assert sorted(_diff(TEXT, out)) == sorted([
        '-  %m = f32[4]{0} multiply(f32[4]{0} %a, f32[4]{0} %b), metadata={op_name="mul"}',
        '-  ROOT %r = f32[4]{0} add(%m, %b), sharding={replicated}',
        '+  ROOT %m = f32[4]{0} multiply(%a, %b), metadata={op_name="mul"}',
        '+  %r = f32[4]{0} add(%m, %b), sharding={replicated}',
    ])


def test_remove_last_operand_before_its_results_were_read() -> None:
    """``operand_results`` is created on first use from the operand count: removing the
    last operand of an instruction nobody had asked about must not pop past its end
    (it did, as an IndexError, in moe-gather-fusion on a call fed straight from
    xla.sdy.GlobalToLocalShape; tests/fixtures/moe-gather-fusion/implicit.hlo)."""
    module = hlo_passes.parse(TEXT)
    root = next(i for i in module.instructions() if i.name == "r")
    assert root._operand_results is None  # the path under test: never read yet
    assert root.remove_operand(1).name == "b"
    assert [o.name for o in root.operands] == ["m"] and root.operand_results == [0]
