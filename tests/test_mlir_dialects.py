"""Ops of the dialects hlo_passes reads: a misspelt one is named and refused like an unknown HLO opcode (issue 28).

``stablehlo.dot_genral`` used to be accepted silently and hlo-rewrite wrote a
module XLA rejects.  Now an op in the namespace of stablehlo, mhlo, chlo, sdy
or func that the dialect does not define (``dialects/stablehlo/dialect_ops.py``, the
union of jaxlib 0.10.2's and 0.12's MLIR bindings) is carried through as text
and named by ``hlo-lint -v``, and refused with ``validate=True``; ops of other
dialects are carried as before.  No op the corpus, the samples or the trainer
texts use is flagged.
"""
from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.errors import ParseError
from hlo_passes.dialects.stablehlo.dialect_ops import DIALECT_OPS, is_unknown_op
from hlo_passes.text import unknown_constructs

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from dialect_ops import installed_ops  # noqa: E402

MODULE = """\
module @m {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<f32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %2 = "arith.addf"(%1, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
"""


def test_the_table_holds_every_op_of_the_installed_bindings() -> None:
    """(Run ``python tools/dialect_ops.py --write`` with a new jax to add its ops.)"""
    for dialect, ops in installed_ops().items():
        assert ops <= DIALECT_OPS[dialect], sorted(ops - DIALECT_OPS[dialect])


def test_unknown_means_in_a_known_namespace_and_not_defined() -> None:
    assert not is_unknown_op("stablehlo.dot_general") and not is_unknown_op("sdy.sharding_constraint")
    assert not is_unknown_op("func.return") and not is_unknown_op("mhlo.xla.rng_get_and_update_state")
    assert is_unknown_op("stablehlo.dot_genral") and is_unknown_op("chlo.top_kk") and is_unknown_op("func.cal")
    assert not is_unknown_op("arith.addf") and not is_unknown_op("vhlo.add_v1") and not is_unknown_op("tpu.foo")


@pytest.mark.parametrize("spelling", ["stablehlo.dot_genral %0, %arg1,", '"stablehlo.dot_genral"(%0, %arg1)'])
def test_a_misspelt_op_is_carried_named_and_refused_with_validate(spelling: str) -> None:
    if spelling.startswith('"'):
        text = MODULE.replace("stablehlo.dot_general %0, %arg1, contracting_dims = [0] x [0]",
                              '"stablehlo.dot_genral"(%0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
                              "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}")
    else:
        text = MODULE.replace("stablehlo.dot_general %0, %arg1,", spelling)
    assert text != MODULE
    module = hlo_passes.parse(text)
    assert unknown_constructs(module) == [("op", "stablehlo.dot_genral", 4, 5)]
    assert module.to_text() == text  # carried through as it was written
    with pytest.raises(ParseError) as err:
        hlo_passes.parse(text, validate=True)
    assert (err.value.line, err.value.column) == (4, 10)
    assert "unknown operation 'stablehlo.dot_genral'" in err.value.reason


def test_ops_of_other_dialects_and_known_ops_are_not_flagged() -> None:
    module = hlo_passes.parse(MODULE, validate=True)
    assert unknown_constructs(module) == []


def _texts(shared: Path) -> list[tuple[str, str]]:
    files = sorted((shared / "corpus" / "stablehlo").glob("*.mlir")) + sorted((shared / "samples").rglob("*.mlir"))
    out = [(f.name, f.read_text()) for f in files]
    out += [(f.name, gzip.decompress(f.read_bytes()).decode())
            for f in sorted((REPO / "benchmarks" / "data").glob("*.mlir.gz"))]
    return out


def test_no_op_the_corpus_uses_is_flagged(shared_dir: Path) -> None:
    flagged, ops = {}, set()
    for name, text in _texts(shared_dir):
        try:
            module = hlo_passes.parse(text, dialect="stablehlo")
        except ParseError:
            continue  # the corpus's invalid lit tests; their verdict is another test's
        ops.update(i.source_op for i in module.instructions())
        if unknown_constructs(module):
            flagged[name] = unknown_constructs(module)
    assert not flagged, flagged
    assert len({op for op in ops if op.startswith("stablehlo.")}) > 90  # the check saw most of the dialect


def test_hlo_lint_v_names_the_op(tmp_path: Path) -> None:
    path = tmp_path / "typo.mlir"
    path.write_text(MODULE.replace("stablehlo.dot_general", "stablehlo.dot_genral"))
    script = Path(sys.executable).with_name("hlo-lint")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "hlo_passes.cli", "lint"]
    quiet = subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=120)
    verbose = subprocess.run([*cmd, "-v", str(path)], capture_output=True, text=True, timeout=120)
    assert quiet.returncode == verbose.returncode == 0, (quiet.stderr, verbose.stderr)
    assert "dot_genral" not in quiet.stderr
    assert f"{path}:4:5: note: carried through unknown op 'stablehlo.dot_genral'" in verbose.stderr
