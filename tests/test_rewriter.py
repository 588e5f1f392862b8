"""The rewriter is the one way a module changes (issue 30).

``test_no_module_outside_the_ir_mutates_a_graph`` reads every module of the package with
``ast``: outside the IR layer (``ir.module``, ``ir.rewriter``) and the parsers and printers (which build
and print the module), nothing calls networkx's graph mutators, writes an instruction's or
computation's fields, or calls the IR's mutating methods; the methods a rewriter shares a
name with (``set_operand``, ``replace_all_uses``...) are called on a rewriter only (a name
``rw`` or ``rewriter``).  ``test_rules_mutate_only_through_the_rewriter`` checks the same at
run time: with the IR's mutators watched, every rule rewrites every fixture, and each change
must come through ``ir/rewriter.py``.  The rest are unit tests of the rewriter.
"""
from __future__ import annotations

import ast
import pathlib
import sys

import networkx as nx
import pytest

from hlo_passes.ir import module as ir_module, rewriter
from hlo_passes.errors import InvariantError
from hlo_passes.ir import CREATED_BY, Attributes, Computation, Instruction, Module, Shape, Value
from hlo_passes.passes import run_passes
from hlo_passes.pass_interface import Changes, PassContext
from hlo_passes.ir.rewriter import (
    AttributeSet,
    Created,
    DryRunError,
    DryRunRewriter,
    Erased,
    OperandsChanged,
    Reordered,
    Rewriter,
    UsesReplaced,
)
from hlo_passes.text import parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hlo_passes"
# The IR layer, and what builds or prints a module from text.
EXEMPT = ("ir/module.py", "ir/rewriter.py", "dialects/")

GRAPH_MUTATORS = frozenset({"add_node", "remove_node", "add_edge", "remove_edge", "add_nodes_from",
                            "remove_nodes_from", "add_edges_from", "remove_edges_from", "clear_edges"})
# Methods only the IR has: never called outside it.
IR_ONLY = frozenset({"set_root", "remove_parameter", "tag_created", "set_decoded", "adopt_source", "fill_graph",
                     "_register", "_unregister"})
# Mutating methods of the IR a rewriter has too: called on a rewriter only.
SHARED = frozenset({"set_operand", "remove_operand", "set_shape", "mark_changed", "add_computation",
                    "remove_computation", "replace_all_uses", "erase"})
REWRITER_NAMES = frozenset({"rw", "rewriter"})
# Fields of Instruction / Computation / Module a pass must not write.
IR_FIELDS = frozenset({"attributes", "operands", "operand_results", "called_computations", "dialect_data",
                       "_dialect_data", "changed", "structure_changed", "shape", "opcode", "source_op",
                       "num_results", "computation", "instructions", "computations", "root", "parent", "entry",
                       "name", "module", "span", "lead"})
# Their containers, whose items a pass must not write either.
IR_CONTAINERS = frozenset({"attributes", "operands", "operand_results", "called_computations", "dialect_data",
                           "instructions", "computations"})
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                                "popitem", "sort", "reverse"})


def _receiver_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_computation(node: ast.expr) -> bool:
    """``comp``, ``x.computation``, ``module.computations[...]``: what ``.add``/``.remove`` on it means."""
    name = _receiver_name(node)
    if isinstance(node, ast.Subscript):
        name = _receiver_name(node.value)
    return name in ("comp", "computation", "computations", "entry") or name.endswith("_comp")


def _field_of(target: ast.expr) -> str | None:
    """The IR field a store into ``target`` writes (``x.shape = ``, ``x.operands[0] = ``), if any."""
    if isinstance(target, ast.Attribute):
        base = target.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            return None  # a class's own fields
        return target.attr if target.attr in IR_FIELDS else None
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute):
        return target.value.attr if target.value.attr in IR_CONTAINERS else None
    return None


def mutations(source: str) -> list[tuple[int, str]]:
    """(line, what) for every mutation of a module ``source`` makes outside a rewriter."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    field = _field_of(t)
                    if field is not None:
                        found.append((node.lineno, f"writes .{field}"))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in IR_ONLY:
                found.append((node.lineno, f"calls {func.id}"))
            if not isinstance(func, ast.Attribute):
                continue
            name, receiver = func.attr, func.value
            if name in GRAPH_MUTATORS:
                found.append((node.lineno, f"calls {name} on a graph"))
            elif name in IR_ONLY:
                found.append((node.lineno, f"calls {name}"))
            elif name in SHARED and _receiver_name(receiver) not in REWRITER_NAMES:
                found.append((node.lineno, f"calls {name} on {ast.unparse(receiver)}, not a rewriter"))
            elif name in ("add", "remove", "append") and _is_computation(receiver):
                found.append((node.lineno, f"calls {ast.unparse(receiver)}.{name}"))
            elif name in CONTAINER_MUTATORS and isinstance(receiver, ast.Attribute) \
                    and receiver.attr in IR_CONTAINERS:
                found.append((node.lineno, f"calls .{receiver.attr}.{name}"))
    return found


def _checked_modules() -> list[pathlib.Path]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not any(rel == e or rel.startswith(e) for e in EXEMPT):
            out.append(path)
    return out


def test_no_module_outside_the_ir_mutates_a_graph() -> None:
    checked = _checked_modules()
    assert any(p.name == "crossings.py" for p in checked) and any(p.parent.name == "lowering" for p in checked)
    problems = [f"{p.relative_to(ROOT)}:{line}: {what}"
                for p in checked for line, what in mutations(p.read_text(encoding="utf-8"))]
    assert problems == []


# Where a rewriter is made: the IR's own (a trial copy's, ``Rewriter.trial``) and the pipeline
# driver's, one per pass and round.  Every other change is a pipeline stage's, through the
# rewriter it is handed: journaled and verified (issue 48).
REWRITER_MAKERS = ("ir/rewriter.py", "pipeline_driver.py")


def rewriters_made(source: str) -> list[int]:
    """The lines of ``source`` that make a rewriter: a call of ``Rewriter`` or ``DryRunRewriter``
    (by name or attribute), or of an expression that picks one (``(Rewriter if x else ...)(m)``)."""
    makers = {"Rewriter", "DryRunRewriter"}
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        named = {n.id for n in ast.walk(node.func) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(node.func) if isinstance(n, ast.Attribute)}
        if named & makers:
            lines.append(node.lineno)
    return lines


def test_only_the_pipeline_driver_makes_a_rewriter() -> None:
    made = [f"{p.relative_to(ROOT)}:{line}" for p in sorted(PACKAGE.rglob("*.py"))
            if p.relative_to(PACKAGE).as_posix() not in REWRITER_MAKERS
            for line in rewriters_made(p.read_text(encoding="utf-8"))]
    assert made == []
    assert rewriters_made("rw = (Rewriter if rewrite else DryRunRewriter)(module, name)") == [1]
    assert rewriters_made("rw = rewriter.Rewriter(module)") == [1]
    assert rewriters_made("def f(rw: Rewriter) -> None: rw.create('negate', s)") == []


@pytest.mark.parametrize("snippet, what", [
    ("module.graph.add_edge(a, b, key=0)", "calls add_edge on a graph"),
    ("g.remove_node(a)", "calls remove_node on a graph"),
    ("instr.attributes['index'] = 2", "writes .attributes"),
    ("del instr.attributes['sharding']", "writes .attributes"),
    ("instr.operands = [a]", "writes .operands"),
    ("value.operand_results[0] = 1", "writes .operand_results"),
    ("caller.num_results -= 1", "writes .num_results"),
    ("instr.name = 'x'", "writes .name"),
    ("comp.changed = True", "writes .changed"),
    ("comp.instructions[:] = order", "writes .instructions"),
    ("module.dialect_data.setdefault('body', [])", "calls .dialect_data.setdefault"),
    ("tag_created(new, 'r')", "calls tag_created"),
    ("comp.remove_parameter(p)", "calls remove_parameter"),
    ("module.replace_all_uses(a, b)", "calls replace_all_uses on module, not a rewriter"),
    ("user.set_operand(0, a)", "calls set_operand on user, not a rewriter"),
    ("x.set_shape(s)", "calls set_shape on x, not a rewriter"),
    ("instr.computation.remove(instr)", "calls instr.computation.remove"),
    ("comp.add('slice', s, [a])", "calls comp.add"),
])
def test_the_check_sees_each_kind_of_mutation(snippet: str, what: str) -> None:
    assert [w for _, w in mutations(snippet)] == [what]


def test_the_check_passes_reads_and_rewriter_calls() -> None:
    source = ("rw.set_operand(a, 0, b)\nrewriter.replace_all_uses(a, b)\nx = instr.attributes['index']\n"
              "self.name = name\nseen.add(x)\nitems.remove(y)\nrw.erase(a)\n")
    assert mutations(source) == []


# ---- the same at run time ---------------------------------------------------------------
_WATCHED = [
    (Instruction, ("set_operand", "remove_operand", "set_shape", "mark_changed")),
    (Computation, ("add", "remove", "append", "remove_parameter", "set_root")),
    (Module, ("replace_all_uses", "add_computation", "remove_computation", "fresh_name")),
    (Attributes, ("__setitem__", "__delitem__")),
    (nx.MultiDiGraph, ("add_edge", "remove_edge", "add_node", "remove_node", "add_edges_from",
                       "remove_edges_from")),
]
_IR_FILES = (ir_module.__file__, nx.__file__.rsplit("/", 1)[0])


def _watch(monkeypatch: pytest.MonkeyPatch, offences: list[str]) -> None:
    """Wrap the IR's mutators: the nearest caller outside ir/module.py (and networkx) must be the rewriter."""
    for cls, names in _WATCHED:
        for name in names:
            original = getattr(cls, name)

            def watched(*args, __original=original, __name=f"{cls.__name__}.{name}", **kwargs):
                frame = sys._getframe(1)
                # Past the IR's own frames, networkx's, and these wrappers' (a mutator calling another).
                while frame is not None and (frame.f_code.co_filename.startswith(_IR_FILES)
                                             or frame.f_code is watched.__code__):
                    frame = frame.f_back
                where = frame.f_code.co_filename if frame is not None else "?"
                if where != rewriter.__file__:
                    offences.append(f"{__name} from {where}:{frame.f_lineno if frame else 0}")
                return __original(*args, **kwargs)

            monkeypatch.setattr(cls, name, watched)


def test_rules_mutate_only_through_the_rewriter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every FileCheck fixture case, rewritten by its rule with the IR's mutators watched."""
    from fixture_harness import all_cases

    cases = [(c, parse(c.module_text)) for c in all_cases()]
    assert len(cases) >= 20
    offences: list[str] = []
    _watch(monkeypatch, offences)
    next(cases[0][1].instructions()).mark_changed()  # the watch sees a change made from here
    assert len(offences) == 1 and offences[0].startswith("Instruction.mark_changed from ")
    offences.clear()
    rewritten = 0
    for case, module in cases:
        result = run_passes(module, [case.pass_name], strict=True, check_invariants=True)
        rewritten += sum(s.rewritten for s in result.sites)
        assert bool(result.journal) == any(s.rewritten for s in result.sites), case.name
    assert rewritten >= 20
    assert sorted(set(offences)) == []


# ---- unit tests ---------------------------------------------------------------------------
HLO = """HloModule m

ENTRY main {
  p = f32[4,6]{1,0} parameter(0), metadata={op_name="jit(f)/w" source_file="model.py" source_line=7}
  n = f32[4,6]{1,0} negate(p), metadata={op_name="jit(f)/neg" source_file="model.py" source_line=9}
  ROOT e = f32[4,6]{1,0} exponential(n)
}
"""

MLIR = """module @m {
  func.func public @main(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4x6xf32> loc(#loc3)
    %1 = stablehlo.exponential %0 : tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
}
#loc1 = loc("model.py":9:4)
#loc2 = loc("jit(f)/neg"(#loc1))
#loc3 = loc(#loc2)
"""


def _ops(module: Module) -> dict[str, Instruction]:
    return {i.opcode: i for i in module.instructions()}


def test_journal_records_each_change_by_name() -> None:
    module = parse(HLO)
    ops = _ops(module)
    rw = Rewriter(module, "my-rule")
    half = Shape.array("f32", (4, 3))
    piece = rw.slice_along(ops["negate"], 1, 0, 3, half, after=ops["negate"])
    whole = rw.concatenate([piece, piece], 1, ops["negate"].shape, after=piece)
    rw.set_operand(piece, 0, ops["parameter"])
    uses = rw.replace_all_uses(ops["negate"], whole)
    rw.erase(ops["negate"])
    rw.set_attribute(whole, "dimensions", (1,))
    assert uses == 1 and rw.changed
    assert rw.journal == [
        Created(piece.name, "slice", "main"),
        Created(whole.name, "concatenate", "main"),
        OperandsChanged(piece.name, "set", 0),
        UsesReplaced("n", whole.name, 1),
        Erased("n", "negate"),
        AttributeSet(whole.name, "dimensions"),
    ]
    module.verify()
    text = module.to_text()
    assert f"{piece.name} = f32[4,3]" in text and "slice={[0:4], [0:3]}" in text
    assert f'frontend_attributes={{{CREATED_BY}="my-rule"}}' in text
    assert "negate" not in text


MULTI = """func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4xf32>, tensor<4xf32>
  %1 = stablehlo.negate %0#1 : tensor<4xf32>
  return %1, %0#0 : tensor<4xf32>, tensor<4xf32>
}
"""


def test_ops_read_typed_values_and_the_touched_computations_are_kept() -> None:
    module = parse(MULTI)
    barrier, neg = (i for i in module.instructions() if i.opcode in ("opt-barrier", "negate"))
    assert neg.operand_values == [Value(barrier, 1)] and Value(barrier, 1).ref == "%0#1"
    rw = Rewriter(module, "r")
    # A new op reads the values given (here result 0 of the barrier, then result 1).
    first = rw.create("negate", neg.shape, [Value(barrier, 0)], after=neg)
    both = rw.concatenate([Value(barrier, 1), first], 0, Shape.array("f32", (8,)), after=first)
    assert first.operand_values == [Value(barrier, 0)] and both.operand_values == [Value(barrier, 1), Value(first)]
    # Another result of the same op: only the index changes.
    rw.set_operand(neg, 0, Value(barrier, 0))
    assert neg.operand_values == [Value(barrier, 0)] and rw.journal[-1] == OperandsChanged(neg.name, "result", 0)
    rw.replace_all_uses(neg, first)
    assert [c.name for c in rw.touched] == ["main"]
    module.verify()
    text = module.to_text()
    assert '"stablehlo.negate"(%0#0)' in text and '"stablehlo.concatenate"(%0#1, %negate' in text
    assert "%1 = stablehlo.negate %0#0" in text and f"return %{first.name}, %0#0" in text


def test_new_ops_speak_opcodes_and_print_in_the_dialect() -> None:
    # The IR and the rewriter speak opcodes in both dialects; the dialect's printer names them.
    hlo, mlir = parse(HLO), parse(MLIR)
    for module in (hlo, mlir):
        neg = _ops(module)["negate"]
        rw = Rewriter(module, "r")
        piece = rw.slice_along(neg, 1, 0, 3, Shape.array("f32", (4, 3)), after=neg)
        assert piece.source_op == piece.opcode == "slice"
        assert rw.create("transpose", neg.shape, [neg], {"dimensions": (0, 1)}, after=piece).source_op == "transpose"
        module.verify()
    text = mlir.to_text()
    assert '"stablehlo.slice"' in text and '"stablehlo.transpose"' in text
    assert " slice(" in hlo.to_text() and "stablehlo" not in hlo.to_text()


def test_names_are_unique() -> None:
    module = parse(HLO)
    neg = _ops(module)["negate"]
    rw = Rewriter(module)
    made = [rw.create("negate", neg.shape, [neg], name_hint="n", after=neg) for _ in range(5)]
    made.append(rw.clone(neg, [neg], neg.shape, after=neg))
    names = [i.name for i in module.instructions()]
    assert len(names) == len(set(names)) == 3 + len(made)
    assert all(c.opcode == "negate" and CREATED_BY not in str(c.attributes.get("frontend_attributes", {}))
               for c in made)  # a rewriter of no rule tags nothing


def test_locations_are_carried_from_the_op_replaced() -> None:
    module = parse(HLO)
    neg = _ops(module)["negate"]
    rw = Rewriter(module, "r")
    new = rw.create("negate", neg.shape, [neg.operands[0]], before=neg, like=neg)
    assert new.attributes["metadata"] == neg.attributes["metadata"]
    assert 'source_line=9' in module.to_text().split(new.name + " =")[1].split("\n")[0]
    mlir = parse(MLIR)
    neg = _ops(mlir)["negate"]
    new = Rewriter(mlir, "r").create("negate", neg.shape, [neg.operands[0]], before=neg, like=neg)
    assert new.dialect_data["loc"] == neg.dialect_data["loc"]


def test_tags_wait_for_the_end_of_a_batch() -> None:
    module = parse(HLO)
    neg = _ops(module)["negate"]
    rw = Rewriter(module, "r")
    with rw.batch():
        new = rw.clone(neg, [neg], neg.shape, after=neg)
        rw.set_attribute(new, "metadata", {"op_name": "x"})
        assert "frontend_attributes" not in new.attributes
    assert list(new.attributes)[-2:] == ["metadata", "frontend_attributes"]
    assert new.attributes["frontend_attributes"] == {CREATED_BY: "r"} and new.dialect_data["created_by"] == "r"


def test_reorder_keeps_the_instructions() -> None:
    module = parse(HLO)
    comp = module.entry
    rw = Rewriter(module)
    with pytest.raises(ValueError, match="not of its instructions"):
        rw.reorder(comp, comp.instructions[:2])
    rw.reorder(comp, list(comp.instructions))
    assert rw.journal == [Reordered("main")]


def test_a_dry_run_refuses_every_mutation() -> None:
    module = parse(HLO)
    text = module.to_text()
    ops = _ops(module)
    rw = DryRunRewriter(module, "moe-gather-fusion")
    neg, exp = ops["negate"], ops["exponential"]
    attempts = [
        lambda: rw.create("negate", neg.shape, [neg], after=neg),
        lambda: rw.clone(neg, [neg], neg.shape, after=neg),
        lambda: rw.replace_all_uses(neg, exp),
        lambda: rw.set_attribute(neg, "metadata", {}),
        lambda: rw.remove_attribute(neg, "metadata"),
        lambda: rw.set_operand(exp, 0, ops["parameter"]),
        lambda: rw.set_shape(neg, Shape.array("f32", (6, 4))),
        lambda: rw.erase(exp),
        lambda: rw.reorder(module.entry, list(module.entry.instructions)),
    ]
    for attempt in attempts:
        with pytest.raises(DryRunError, match="moe-gather-fusion asked to .* in a dry run"):
            attempt()
    assert rw.journal == [] and not module.changed and module.to_text() == text


class _Eraser:
    """A rule that removes the root's operand whatever mode it runs in (a rule with a bug)."""

    name = "eraser"
    tag = "eraser"
    repeats = True
    description = "test rule"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        root = module.entry.root
        rewriter.replace_all_uses(root.operands[0], root.operands[0].operands[0])
        return Changes()


def test_run_passes_gives_each_rule_its_rewriter() -> None:
    from hlo_passes import passes

    passes.register(_Eraser())
    try:
        module = parse(HLO)
        with pytest.raises(DryRunError, match="eraser asked to replace the uses of n in a dry run"):
            run_passes(module, ["eraser"], rewrite=False, strict=True)
        lint = run_passes(module, ["eraser"], rewrite=False)  # a rule's bug: refused, named
        assert [m.check for m in lint.near_misses] == ["internal-error"] and not lint.journal
        # Rewriting: the journal says what changed, though the rule claims no site ...
        with pytest.raises(InvariantError, match="no rewrite, the rewriter's journal has 1 change"):
            run_passes(module, ["eraser"], strict=True, check_invariants=True)
        assert module.to_text() == HLO  # ... and the caller's module is untouched
    finally:
        passes.unregister("eraser")


# A module after layout assignment, as XLA hands a pass its optimized module (issue 31).
_WRAPPED_HLO = """HloModule wrapped

ENTRY %main (p: f32[4,8], q: f32[8,4]) -> f32[8,4] {
  %p = f32[4,8]{1,0} parameter(0)
  %q = f32[8,4]{1,0} parameter(1)
  %t = f32[8,4]{0,1} transpose(%p), dimensions={1,0}
  %c = f32[8,4]{1,0} copy(%t)
  %s = f32[8,4]{1,0} multiply(%c, %c)
  ROOT %a = f32[8,4]{1,0} add(%s, %q)
}
"""


def test_wrap_in_fusion_is_the_reverse_of_inline_and_computes_the_same() -> None:
    """``wrap_in_fusion`` puts an op in a loop fusion of its own (one parameter per distinct
    operand, the layouts kept); XLA parses and runs the module to the same bits; ``inline``
    takes the op out again."""
    import numpy as np

    from hlo_passes import _jax_compat as compat, runtime

    module = parse(_WRAPPED_HLO, dialect="hlo")
    rw = Rewriter(module, "test-rule")
    ops = {i.name: i for i in module.instructions()}
    fusions = [rw.wrap_in_fusion(ops[name]) for name in ("t", "c", "s")]
    text = module.to_text()
    assert [f.opcode for f in fusions] == ["fusion"] * 3 and text.count("kind=kLoop") == 3
    square = fusions[2].called_computations[0]
    assert len(fusions[2].operands) == 1 and [i.opcode for i in square.instructions] == ["parameter", "multiply"]
    assert "f32[8,4]{0,1} fusion(%p)" in text  # the transpose's layout, on the fusion that holds it
    compat.hlo_text_to_proto(text)  # XLA's parser takes it
    p, q = np.arange(32, dtype=np.float32).reshape(4, 8), np.ones((8, 4), np.float32)
    want = runtime.compile_text(_WRAPPED_HLO, num_devices=1, cache=False).run(p, q)
    got = runtime.compile_text(text, num_devices=1, cache=False).run(p, q)
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))
    rw.inline(fusions[0])
    assert [i.opcode for i in module.entry.instructions][:3] == ["parameter", "parameter", "transpose"]
    assert not any(c.name.startswith("wrapped_transpose") for c in module.computations.values())


def test_a_fused_body_is_removed_without_searching_for_callers_only_after_its_fusion() -> None:
    """``remove_computation(fused_body_of=...)`` skips the search for other callers (a fused
    computation has one: XLA's invariant) only once that fusion is gone."""
    module = parse(_WRAPPED_HLO, dialect="hlo")
    rw = Rewriter(module)
    fusion = rw.wrap_in_fusion(next(i for i in module.instructions() if i.name == "t"))
    body = fusion.called_computations[0]
    with pytest.raises(ValueError, match="not an erased fusion"):
        rw.remove_computation(body, fused_body_of=fusion)
    with pytest.raises(ValueError, match="called by"):
        rw.remove_computation(body)
