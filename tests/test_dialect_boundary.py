"""MLIR's function call is named only in the StableHLO dialect (issue 48).

Past the dialect boundary a call is ``call`` in both dialects: the StableHLO parser reads
``func.call`` as opcode ``call``, the rewriter creates ops spelled with their opcode, and the
StableHLO printer writes a new ``call`` back as ``func.call`` (``attrs.MLIR_OF``).  So no rule,
lowering, ``gmm/`` module, the op table or the rewriter needs the MLIR name: a string that holds
it (other than prose in a docstring) anywhere outside ``hlo_passes/dialects/stablehlo/`` is a
dialect's syntax leaking into the IR's users.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

from hlo_passes.dialects.stablehlo import attrs
from hlo_passes.ir import Shape
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.text import parse

pytestmark = pytest.mark.jax_free

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hlo_passes"
STABLEHLO = PACKAGE / "dialects" / "stablehlo"


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module and of its classes and functions."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _mlir_call_strings(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """``file:line`` of each string (f-string parts included) in ``path`` naming ``func.call``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    prose = _docstrings(tree)
    return sorted(f"{path.relative_to(root)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and "func.call" in node.value
                  and id(node) not in prose)


def test_func_call_is_named_only_in_the_stablehlo_dialect() -> None:
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if STABLEHLO not in p.parents]
    assert len(outside) > 100  # the scan sees the package
    found = [hit for p in outside for hit in _mlir_call_strings(p)]
    assert found == [], "func.call named outside hlo_passes/dialects/stablehlo/: " + ", ".join(found)
    inside = [hit for p in sorted(STABLEHLO.rglob("*.py")) for hit in _mlir_call_strings(p)]
    assert any("attrs.py" in hit for hit in inside)  # where the dialect names it


def test_the_scan_sees_a_func_call_string(tmp_path: pathlib.Path) -> None:
    module = tmp_path / "leak.py"
    module.write_text('"""Prose about func.call is fine."""\nNAME = "func.call"\n\n\n'
                      'def f():\n    """So is this func.call."""\n    return f"{NAME} @f" + "func.call @g"\n')
    assert _mlir_call_strings(module, tmp_path) == ["leak.py:2", "leak.py:7"]


MLIR = """module @m {
  func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.exponential %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
"""


def test_a_call_is_call_past_the_boundary_both_ways() -> None:
    module = parse(MLIR)
    (call,) = [i for i in module.instructions() if i.opcode == "call"]
    assert call.source_op == "func.call"  # the parsed op keeps the text's spelling
    callee = call.called_computations[0]
    rw = Rewriter(module, "r")
    new = rw.create("call", Shape.array("f32", (4,)), [call], {"to_apply": callee.name}, after=call,
                    called=[callee])
    assert new.opcode == new.source_op == "call"  # the rewriter speaks opcodes
    rw.replace_all_uses(call, new)
    rw.set_operand(new, 0, call.operands[0])
    rw.erase(call)
    module.verify()
    text = module.to_text()
    assert attrs.MLIR_OF["call"] == "func.call"
    assert '= "func.call"(%arg0) {callee = @f, ' in text, text
    assert parse(text).to_text() == text
