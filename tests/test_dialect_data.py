"""What a dialect keeps to print an op back (``dialect_data``) is the dialect's own (issue 30).

The rules, reports, source frames, lowering, the kernel splicer and the faces read what they
need through typed accessors of the IR (``Instruction.mlir_loc``, ``is_terminator``,
``mlir_pretty_value``, ``mlir_arg_attrs``, ``Computation.func_op``, ``Module.stack_tables``) and
change it through the rewriter; only the IR layer (``ir.module``, ``ir.rewriter``), the parsers and the
printers touch ``dialect_data``.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hlo_passes"
OWNERS = ("ir/module.py", "ir/rewriter.py", "dialects/")  # the IR layer and the dialects


def test_only_the_dialects_touch_dialect_data() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(OWNERS):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("dialect_data", "_dialect_data"):
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_typed_accessors() -> None:
    from hlo_passes.text import parse_hlo, parse_stablehlo

    mlir = parse_stablehlo("""func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32> loc(#loc1)
  %1 = stablehlo.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
#loc1 = loc("x.py":3:4)
""")
    neg, ab = (i for i in mlir.instructions() if i.opcode in ("negate", "abs"))
    assert neg.mlir_loc == "loc(#loc1)" and ab.mlir_loc is None
    ab.take_location(neg)
    assert ab.mlir_loc == "loc(#loc1)"
    hlo = parse_hlo("HloModule m\n\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n")
    assert hlo.entry.root.mlir_loc is None and hlo.stack_tables == []


def test_accessors_the_rules_read() -> None:
    from hlo_passes.text import parse_hlo, parse_stablehlo

    mlir = parse_stablehlo("""func.func @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.5> : tensor<4xf32>
  %0 = stablehlo.add %arg0, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
""")
    comp = mlir.entry
    arg, const, add, ret = comp.instructions
    assert [i.is_terminator for i in (arg, const, add, ret)] == [False, False, False, True]
    assert const.mlir_pretty_value == "dense<0.5>"
    assert arg.mlir_arg_attrs == '{mhlo.sharding = "{replicated}"}' and add.mlir_arg_attrs is None
    assert comp.func_op is not None and comp.func_op.source_op == "func.func"
    hlo = parse_hlo("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] constant({1,2,3,4})\n}\n")
    assert not any(i.is_terminator for i in hlo.instructions())
    assert hlo.entry.root.mlir_pretty_value is None and hlo.entry.func_op is None


def test_a_result_group_shrinks_through_the_rewriter() -> None:
    from hlo_passes.ir.rewriter import DryRunError, DryRunRewriter, Rewriter
    from hlo_passes.text import parse_stablehlo

    text = """func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = stablehlo.optimization_barrier %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>
  return %0#0 : tensor<4xf32>
}
"""
    m = parse_stablehlo(text)
    barrier = next(i for i in m.instructions() if i.opcode == "opt-barrier")
    try:
        DryRunRewriter(m, "test").shrink_result_group(barrier)
    except DryRunError:
        pass
    else:
        raise AssertionError("a dry run changed the result group")
    rw = Rewriter(m, "test")
    rw.shrink_result_group(barrier)
    assert [c.key for c in rw.journal] == ["results"] and barrier.changed
    # (The group is printed once the op is re-printed with one result fewer: _crossings drops the
    # result, its sharding and its uses together.)
    assert barrier.dialect_data["results"][0][1] == 1
