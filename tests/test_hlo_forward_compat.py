"""HLO from an XLA newer than hlo_passes: what it does not know is carried, not fatal.

With ``validate=False`` (the default; what the lint and the hook use) an
opcode or attribute the parser does not know is kept as text: the module
prints back byte-identical, ``to_text(regenerate=True)`` prints it from what
was kept, no rule matches through it and ``hlo-lint -v`` names it.
``validate=True`` refuses it at its line, as XLA refuses what it does not
know.  Malformed text fails in both modes; a failure on a value the grammar
cannot read says it may be newer syntax.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError
from hlo_passes.dialects.hlo.parser import unknown_constructs
from hlo_passes.passes import run_passes

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

NEWER = """HloModule m

ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] future-op(p), future_attr={1,2}, metadata={op_name="x"}
  ROOT r = f32[4] negate(q), fancy=true
}
"""


def test_unknown_opcode_and_attributes_are_carried() -> None:
    module = hlo_passes.parse(NEWER)
    assert module.to_text() == NEWER
    q = module.entry.root.operands[0]
    assert (q.opcode, q.attributes["future_attr"], module.entry.root.attributes["fancy"]) == \
        ("future-op", "{1,2}", "true")
    regen = module.to_text(regenerate=True)
    assert "q = f32[4] future-op(p), future_attr={1,2}" in regen and "fancy=true" in regen
    again = hlo_passes.parse(regen)
    assert [(i.name, i.opcode, [o.name for o in i.operands]) for i in again.instructions()] == \
        [(i.name, i.opcode, [o.name for o in i.operands]) for i in module.instructions()]
    assert unknown_constructs(module) == [("opcode", "future-op", 5, 3), ("attribute", "future_attr", 5, 3),
                                          ("attribute", "fancy", 6, 3)]


@pytest.mark.parametrize(("needle", "line"), [("future-op(", 5), ("fancy=", 6)])
def test_validate_refuses_what_it_does_not_know(needle: str, line: int) -> None:
    text = NEWER if needle == "future-op(" else NEWER.replace("future-op(p), future_attr={1,2}", "copy(p)")
    with pytest.raises(ParseError) as info:
        hlo_passes.parse(text, validate=True)
    err = info.value
    assert err.line == line and text.splitlines()[line - 1][err.column - 1:].startswith(needle), str(err)
    assert "this may be HLO from a newer XLA than hlo_passes reads" in err.reason


@pytest.mark.parametrize("bad", [
    "q = f32[4] copy(p#x)",  # a tuple index that is no number
    "q = f32[4] copy op(p)",  # no opcode
    "q = f32[4] copy(p), dimensions=",  # no value
    "q = f32[4] all-reduce-update(p)",  # an async form XLA itself refuses: no newer opcode
])
@pytest.mark.parametrize("validate", [False, True])
def test_malformed_text_fails_in_both_modes(bad: str, validate: bool) -> None:
    text = NEWER.replace("q = f32[4] future-op(p), future_attr={1,2}", bad)
    with pytest.raises(ParseError) as info:
        hlo_passes.parse(text, validate=validate)
    assert info.value.line == 5 and "newer XLA" not in info.value.reason


def test_no_rule_matches_through_an_unknown_op(samples_dir: Path) -> None:
    text = (samples_dir / "mesh1_concat.hlo_dialect.txt").read_text()
    meeting = "concatenate(all_gather.2, all_gather.3)"
    assert meeting in text

    def through(opcode: str) -> str:
        """The same op between each gather and the concatenate."""
        out = text
        for name in ("all_gather.2", "all_gather.3"):
            line = next(ln for ln in out.splitlines() if ln.lstrip().startswith(f"{name} = "))
            indent = line[: len(line) - len(line.lstrip())]
            out = out.replace(line, f"{line}\n{indent}{name}.x = f32[4,64,32]{{2,1,0}} {opcode}({name})", 1)
        return out.replace(meeting, "concatenate(all_gather.2.x, all_gather.3.x)")

    # A copy is looked through; an op nobody knows is not.
    known = run_passes(hlo_passes.parse(through("copy")), ["moe-gather-fusion"])
    unknown = run_passes(hlo_passes.parse(through("future-op")), ["moe-gather-fusion"])
    assert [s.form for s in known.sites] == ["concat"], [str(m) for m in known.near_misses]
    assert unknown.sites == [] and unknown.module.to_text() == through("future-op")


def test_hlo_lint_verbose_names_it(tmp_path: Path) -> None:
    path = tmp_path / "newer.hlo"
    path.write_text(NEWER)
    script = Path(sys.executable).with_name("hlo-lint")
    quiet = subprocess.run([str(script), str(path)], capture_output=True, text=True, timeout=120)
    verbose = subprocess.run([str(script), "-v", str(path)], capture_output=True, text=True, timeout=120)
    assert quiet.returncode == verbose.returncode == 0, (quiet.stderr, verbose.stderr)
    assert "future-op" not in quiet.stderr
    assert f"{path}:5:3: note: carried through unknown opcode 'future-op'" in verbose.stderr
    assert "unknown attribute 'future_attr'" in verbose.stderr and "unknown attribute 'fancy'" in verbose.stderr


def test_an_unreadable_value_says_it_may_be_newer_syntax() -> None:
    text = NEWER.replace("future-op(p), future_attr={1,2}", "copy(p), sharding={future[1,2]}")
    module = hlo_passes.parse(text)  # values are read when a pass needs them
    with pytest.raises(ParseError) as info:
        module.entry.root.operands[0].attributes["sharding"]
    assert info.value.line == 5 and "newer XLA" in info.value.reason
