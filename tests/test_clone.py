"""``Module.clone()``: a copy made without printing and parsing (issue 15).

What ``run_passes(copy=True)`` works on.  The copy prints what the original prints, shares no
mutable state with it (a rewrite of the copy leaves the original as it was), and rewriting it
gives what rewriting a fresh parse of the original's text gives.  ``lint_module`` pre-scans a
parsed module without printing it.
"""
from __future__ import annotations

import pathlib

import pytest

import hlo_passes
from hlo_passes.ir import Module
from hlo_passes.lint import lint_module
from hlo_passes.passes import run_passes
from hlo_passes.passes.prescan import MARKERS, rules_that_may_fire, rules_that_may_fire_in

from fixture_harness import all_cases, render_report

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Every fixture case (each form of both rules, near misses among them) and the bundled examples.
SOURCES = [(c.module_text, str(c.path.relative_to(ROOT)), c.name) for c in all_cases()] + [
    (p.read_text(), str(p.relative_to(ROOT)), str(p.relative_to(ROOT)))
    for p in sorted([*ROOT.glob("examples/data/*.hlo"), *ROOT.glob("examples/data/*.mlir")])]


def _structure(module: Module) -> list[tuple]:
    """Everything the rules read of a module, by name (not by identity)."""
    out = []
    for comp in module.computations.values():
        out.append(("comp", comp.name, comp.root.name if comp.root else None,
                    comp.parent.name if comp.parent else None))
        for i in comp.instructions:
            out.append((i.name, i.opcode, i.source_op, str(i.shape), [o.name for o in i.operands],
                        list(i.operand_results), [c.name for c in i.called_computations],
                        [u.name for u in i.users], dict(i.attributes._raw), i.line, i.column, i.span))
    return out


def _edges(module: Module) -> list[tuple[str, str, int]]:
    return [(u.name, v.name, k) for u, v, k in module.graph.edges(keys=True)]


@pytest.fixture(params=SOURCES, ids=[s[2] for s in SOURCES])
def source(request) -> tuple[str, str]:
    text, path, _ = request.param
    return text, path


def test_clone_prints_and_reads_like_the_original(source):
    text, path = source
    original = hlo_passes.parse(text, path=path)
    clone = original.clone()
    assert clone is not original and clone.graph is not original.graph
    assert clone.to_text() == original.to_text() == text
    assert clone.to_text(regenerate=True) == original.to_text(regenerate=True)
    assert _structure(clone) == _structure(original)
    assert _edges(clone) == _edges(original)
    assert clone.entry.name == original.entry.name and clone.entry is clone.computations[clone.entry.name]
    # No object of the original is reachable from the copy's instructions.
    originals = {id(i) for i in original.instructions()} | {id(c) for c in original.computations.values()}
    for i in clone.instructions():
        assert id(i) not in originals and i.module is clone
        assert not any(id(o) in originals for o in i.operands)
        assert not any(id(c) in originals for c in i.called_computations)


def test_rewriting_the_clone_leaves_the_original_untouched(source):
    text, path = source
    original = hlo_passes.parse(text, path=path)
    before = _structure(original), _edges(original)
    result = run_passes(original.clone(), copy=False)
    assert original.to_text() == text and not original.changed
    assert (_structure(original), _edges(original)) == before
    # The same as the rules make of a fresh parse of the text (what copy=True did before).
    reparsed = run_passes(hlo_passes.parse(text, path=path), copy=False)
    assert result.module.to_text() == reparsed.module.to_text()
    assert result.sites == reparsed.sites and result.near_misses == reparsed.near_misses
    assert render_report(result, text) == render_report(reparsed, text)


def test_run_passes_copies_without_printing(monkeypatch):
    path = ROOT / "examples/data/moe_mesh2_concat.mlir"
    module = hlo_passes.parse_file(path)
    printed = []
    monkeypatch.setattr(type(module), "to_text", lambda self, regenerate=False: printed.append(self) or "")
    result = run_passes(module, copy=True)
    assert result.changed and not printed and not module.changed


def test_a_rewritten_clone_prints_what_a_reparse_of_it_would():
    path = ROOT / "examples/data/moe_mesh2_concat.hlo"
    module = run_passes(hlo_passes.parse_file(path)).module
    assert module.changed
    clone = module.clone()
    assert clone.to_text() == module.to_text()
    assert _structure(clone) == _structure(module)
    # Fresh names of the copy do not collide with the ones the rewrite made.
    name = clone.fresh_name("slice")
    assert name not in {i.name for i in module.instructions()}


def test_lint_module_does_not_print_a_parsed_module(monkeypatch):
    module = hlo_passes.parse_file(ROOT / "examples/data/moe_mesh2_concat.mlir")
    expected = lint_module(module)
    monkeypatch.setattr(type(module), "to_text", lambda self, regenerate=False: pytest.fail("printed"))
    assert [f.rule for f in lint_module(module)] == [f.rule for f in expected] == ["MOE001"]


def test_pre_scan_of_a_changed_module_reads_its_ops():
    text = (ROOT / "examples/data/moe_mesh2_concat.hlo").read_text()
    module = hlo_passes.parse(text, dialect="hlo")
    assert rules_that_may_fire_in(module) == rules_that_may_fire(text)
    fused = run_passes(module).module
    assert fused.changed
    # The fused module still gathers (once): its ops carry the marker.
    assert "moe-gather-fusion" in rules_that_may_fire_in(fused)
    for instr in fused.instructions():  # no collective or sharding change left anywhere
        if any(m in instr.opcode or m in instr.source_op for m in MARKERS):
            instr.opcode = instr.source_op = "copy"
        if "custom_call_target" in instr.attributes:
            instr.attributes["custom_call_target"] = "Other"
    assert rules_that_may_fire_in(fused, ["moe-gather-fusion", "moe-gradient-fusion"]) == []
