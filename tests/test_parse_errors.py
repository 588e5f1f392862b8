"""Parse errors point where the expected thing is missing (issue 28), as XLA's and MLIR's parsers do.

Each case names the place (line:column) and what the error says: what was
expected there, where the bracket, list, region, computation or module that
is not closed was opened, and "unexpected end of input" when the text ends
early.  Before issue 28 these landed at the next closing brace (lines later)
or at the start of the construct, or a missing operand was not noticed.
"""
from __future__ import annotations

import pytest

import hlo_passes
from hlo_passes.errors import ParseError
from hlo_passes.dialects.stablehlo import parser as stablehlo

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

HLO = """\
HloModule m, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %e (p: f32[4], q: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %q = f32[4]{0} parameter(1)
  %r = f32[4]{0} all-reduce(%p), replica_groups={{0,1}}, to_apply=%add, metadata={op_name="a" source_line=3}
  ROOT %m = f32[4]{0} multiply(%r, %q)
}
"""

MLIR = """\
module @m {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg1 : tensor<4xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = "stablehlo.subtract"(%3, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
}
"""


def _error(text: str, dialect: str) -> ParseError:
    with pytest.raises(ParseError) as err:
        hlo_passes.parse(text, dialect=dialect)
    return err.value


HLO_CASES = {
    # The case: the ')' is missing at the end of the line, not at the '}' below it.
    "operand list not closed": (HLO.replace("multiply(%r, %q)", "multiply(%r, %q"), (13, 38),
                                ["expected ')' at the end of the operands of multiply", "opened at 13:31"]),
    "operand list not closed before the attributes": (
        HLO.replace("all-reduce(%p), replica", "all-reduce(%p, replica"), (12, 108),
        ["expected ')' at the end of the operands of all-reduce", "opened at 12:28"]),
    "operand missing": (HLO.replace("multiply(%r, %q)", "multiply(%r, )"), (13, 36),
                        ["expected an operand name, found ')'"]),
    "text ends inside an attribute": (HLO[:HLO.index("source_line=3")], (12, 95),
                                      ["unexpected end of input", "'{' opened at 12:82 is not closed"]),
    "text ends between instructions": (HLO[:HLO.index("  ROOT %m")], (13, 1),
                                       ["unexpected end of input", "computation 'e' (opened at 9:1) is not closed"]),
    "text ends inside a shape": (HLO[:HLO.index("  %q = f32[4]{0} parameter(1)") + 10], (11, 11),
                                 ["unexpected end of input", "expected a shape", "at 11:8"]),
    "a brace not closed on its line": (HLO.replace("replica_groups={{0,1}}", "replica_groups={{0,1}"), (15, 1),
                                       ["computation 'e' (opened at 9:1) is not closed",
                                        "the value of replica_groups at 12:49 runs over several lines"]),
}


@pytest.mark.parametrize("case", sorted(HLO_CASES))
def test_hlo_errors_point_where_the_thing_is_missing(case: str) -> None:
    text, (line, column), parts = HLO_CASES[case]
    err = _error(text, "hlo")
    assert (err.line, err.column) == (line, column), str(err)
    for part in parts:
        assert part in err.reason, str(err)


MLIR_CASES = {
    # The case: an operand missing in a pretty op (it was accepted with one operand).
    "operand missing in a pretty op": (MLIR.replace("stablehlo.multiply %0, %arg1", "stablehlo.multiply %0,"),
                                       (4, 33), ["expected an SSA operand after ','", "found ':'"]),
    "operand missing in a generic op": (MLIR.replace('"stablehlo.subtract"(%3, %0)', '"stablehlo.subtract"(%3, )'),
                                        (7, 35), ["expected an SSA operand after ','"]),
    "operand list not closed": (MLIR.replace('"stablehlo.subtract"(%3, %0)', '"stablehlo.subtract"(%3, %0'),
                                (7, 38), ["expected ',' or ')' after an operand", "opened at 7:30"]),
    "text ends inside a function": (MLIR[:MLIR.index("%3 =") + 20], (6, 25),
                                    ["unexpected end of input", "region opened at 2:87 is not closed"]),
    "module not closed": (MLIR.rstrip()[:-1], (10, 1), ["unexpected end of input", "module opened at 1:11"]),
    "bracket not closed": (MLIR.replace("dims = []", "dims = ["), (9, 3),
                           ["unbalanced '}'", "expected ']' to close the '[' opened at 6:48"]),
}


@pytest.mark.parametrize("case", sorted(MLIR_CASES))
@pytest.mark.parametrize("scan", ["lines", "coarse", "plain"])
def test_stablehlo_errors_point_where_the_thing_is_missing(case: str, scan: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The same place and words whichever scan the parser starts with (a fast scan that meets an
    error reads the text again by tokens, whose error it reports)."""
    monkeypatch.setattr(stablehlo, "scan_mode", lambda text: scan)
    if scan == "plain":
        init = stablehlo._Parser.__init__
        monkeypatch.setattr(stablehlo._Parser, "__init__",
                            lambda self, text, path, validate, fast=True: init(self, text, path, validate, False))
    text, (line, column), parts = MLIR_CASES[case]
    err = _error(text, "stablehlo")
    assert (err.line, err.column) == (line, column), str(err)
    for part in parts:
        assert part in err.reason, str(err)
