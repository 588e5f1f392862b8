"""What a dialect keeps to print an op back (``dialect_data``) is the dialect's own (issue 30).

Reports, source frames, lowering, the kernel splicer and the faces read what they need through
typed accessors of the IR (``Instruction.mlir_loc``, ``Module.stack_tables``) and the printers'
functions; only the IR, the parsers and the printers touch ``dialect_data``.  The rules
(``rewrites/``) still do where they clone ops and find terminators: they move onto the rewriter
(issue 30, part 1), which carries locations itself; they are named here until then.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hlo_passes"
OWNERS = ("ir.py", "rewriter.py", "parser/", "printer/")  # the IR layer and the dialects
NOT_YET = ("rewrites/",)  # the rules, until they create and clone ops through the rewriter


def test_only_the_dialects_touch_dialect_data() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(OWNERS + NOT_YET):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("dialect_data", "_dialect_data"):
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_the_rules_still_named_do_touch_it() -> None:
    """The allowance above is for modules that need it; once they do not, it goes."""
    users = {p.relative_to(PACKAGE).as_posix().split("/")[0] + "/" for p in PACKAGE.rglob("*.py")
             if "dialect_data" in p.read_text()}
    assert set(NOT_YET) <= users


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
