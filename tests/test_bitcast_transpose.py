"""A bitcast between two layouts of the same dimensions is a transpose (issue 43, MOE004).

The soundness campaign's seed 453 (smallest form: ``family=moe_pair mesh=2 shard=2
gather=partitioner hint=replicate step=train layout=b width=32 model=32 tokens=sharded``): XLA's
optimized module reads each weight gradient ``f32[2,32,32]{2,1,0}`` (one all-reduce) as
``f32[2,32,32]{1,2,0}`` by a bitcast, the same bytes in another order: out[e,i,j] = in[e,j,i]
(F = D = 32, so the dimensions look unchanged).  MOE004 took it for a bitcast that keeps every
element where it is, widened the joined gradient along dimension 2 on both sides and sliced dW_gate
and dW_up out of the wrong dimension: gradients off by 0.31 against 0.26.  The split dimension is
now followed through such a bitcast as through the transpose it is (``bitcast_permutation``), and a
bitcast between layouts that is no permutation (a tiled layout) is refused as
``bitcast-moves-split``.  The program itself, executed through the pass inside XLA:
``tests/test_soundness.py::test_moe004_square_bitcast_keeps_its_values``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.checks import Refusal
from hlo_passes.ir import Shape
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.rewrites.split.chains import bitcast_permutation, map_split_dim
from hlo_passes.rewrites.split.held import unhold

pytestmark = pytest.mark.jax_free

FIXTURE = Path(__file__).parent / "fixtures" / "soundness" / "moe004_square_bitcast.txt"


class _Op:
    """The two fields of an instruction ``bitcast_permutation`` reads."""

    def __init__(self, src: Shape, dst: Shape, opcode: str = "bitcast") -> None:
        self.opcode, self.shape, self.ref = opcode, dst, "%bitcast"
        self.operands = [type("Operand", (), {"shape": src})()]


def _shape(dims: tuple[int, ...], layout: str) -> Shape:
    return Shape("f32", dims, (False,) * len(dims), layout=layout)


def test_a_bitcast_between_layouts_is_a_transpose() -> None:
    op = _Op(_shape((2, 32, 32), "{2,1,0}"), _shape((2, 32, 32), "{1,2,0}"))
    assert bitcast_permutation(op) == (0, 2, 1)  # type: ignore[arg-type]
    assert map_split_dim(op, 2) == 1  # type: ignore[arg-type]
    assert map_split_dim(op, 1) == 2  # type: ignore[arg-type]
    assert map_split_dim(op, 0) == 0  # type: ignore[arg-type]
    same = _Op(_shape((2, 32, 32), "{2,1,0}"), _shape((2, 32, 32), "{2,1,0}"))
    assert map_split_dim(same, 2) == 2  # type: ignore[arg-type]


def test_a_bitcast_between_tiled_layouts_is_refused() -> None:
    op = _Op(_shape((32, 32), "{1,0:T(8,128)}"), _shape((32, 32), "{0,1:T(8,128)}"))
    with pytest.raises(Refusal) as err:
        map_split_dim(op, 1)  # type: ignore[arg-type]
    assert err.value.check == "bitcast-moves-split"


def test_the_joined_gradient_is_sliced_where_the_bitcast_put_it() -> None:
    """Both gradients are operands of the module's one combined all-reduce, so MOE004 names the
    module's site ``xla-combined`` (issue 47: fusing them saves no collective there) and leaves it.
    The bitcast is read on the same module with that op taken apart for good (one all-reduce per
    operand, as a program without the combiner runs them): the site is rewritten there."""
    text = FIXTURE.read_text(encoding="utf-8")
    same, sites, misses = rewrite_compiled_text(text, "jit_step", ["MOE004"])
    assert same is None and sites == []
    assert [(m.rule, m.check) for m in misses] == [("moe-pair-gradient-fusion", "xla-combined")]
    module = hlo_passes.parse(text)
    unhold(Rewriter(module), module, ["all-reduce"], mark=False)
    new, sites, _ = rewrite_compiled_text(module.to_text(), "jit_step", ["MOE004"])
    assert new is not None and [(s.rule, s.form) for s in sites if s.rewritten] == \
        [("moe-pair-gradient-fusion", "two_gmm_apart")]
    # The joined gradient f32[2,32,64]{2,1,0} (dW_gate | dW_up along the GMMs' F) read as its
    # transpose: [2,64,32]{1,2,0}, and each gradient sliced out of dimension 1 there.
    assert re.search(r"= f32\[2,64,32\]\{1,2,0\} bitcast\(", new), new
    slices = re.findall(r"f32\[2,32,32\]\{1,2,0\} slice\(\S+\), slice=\{([^}]*)\}", new)
    assert sorted(slices) == ["[0:2], [0:32], [0:32]", "[0:2], [32:64], [0:32]"], slices
