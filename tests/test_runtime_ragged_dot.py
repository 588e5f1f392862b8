"""``runtime.compile_text`` on HLO text holding a ``ragged-dot``: handed over as ``chlo.ragged_dot``.

XLA's HLO → MHLO import makes ``mhlo.ragged_dot`` of it, which XLA:TPU refuses ("failed to
legalize operation 'mhlo.ragged_dot' that was explicitly marked illegal": what jaxlib hands a PJRT
plugin is portable StableHLO, and MHLO's op has none).  ``runtime.chlo_ragged_dots`` hands it over
as ``chlo.ragged_dot``, as jax's own lowering does.  On the TPU machine the rewritten text compiles
and runs equal to ``jax.jit`` of the program (tools/tpu_aot_check.py, ``ragged_text``;
benchmarks/results/tpu_aot_check.md); XLA:CPU compiles no ``ragged-dot`` at all (the CPU tests run
the cpu-ffi kernel instead), so here: the conversion gives back, through XLA's own StableHLO → HLO
conversion, the very ``ragged-dot`` it was given — every dimension number, batched or not.
"""
from __future__ import annotations

import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from examples import moe_mask
from hlo_passes import _jax_compat as compat
from hlo_passes import runtime

pytestmark = pytest.mark.jax_facing

RAGGED = re.compile(r"= (\S+) ragged-dot\([^)]*\), (.*)$", re.M)


def plain(x, w, g):
    return jax.lax.ragged_dot(x, w, g)


def batched(x, w, g):
    dims = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([2], [2]), ([0], [0])),
                                             lhs_ragged_dimensions=[1], rhs_group_dimensions=[1])
    return jax.lax.ragged_dot_general(x, w, g, dims)


def _hlo(fn, *shapes) -> str:
    args = [jax.ShapeDtypeStruct(s, d) for s, d in shapes]
    return compat.lower_keeping_ragged_dot(jax.jit(fn).trace(*args)).as_text(dialect="hlo")


def _moe006_output(tmp_path) -> str:
    """``hlo-rewrite --passes MOE006`` on examples/moe_mask.py's ``ffn`` program lowered for TPU."""
    src, dst = tmp_path / "ffn.hlo", tmp_path / "ffn.out.hlo"
    src.write_text(moe_mask.lower("ffn", jnp.float32, "hlo"))
    subprocess.run([sys.executable, "-c", "import sys; from hlo_passes.cli import rewrite_entry; "
                    "sys.argv[0] = 'hlo-rewrite'; sys.exit(rewrite_entry())", str(src), "--passes", "MOE006",
                    "-o", str(dst), "-q"], check=True, timeout=300)
    return dst.read_text()


@pytest.mark.parametrize("which", ["plain", "batched", "moe006_output"])
def test_a_ragged_dot_is_handed_over_as_chlo_and_comes_back_the_same(which, tmp_path) -> None:
    if which == "plain":
        text = _hlo(plain, ((16, 8), jnp.float32), ((4, 8, 6), jnp.float32), ((4,), jnp.int32))
    elif which == "batched":
        text = _hlo(batched, ((2, 16, 8), jnp.bfloat16), ((2, 4, 8, 6), jnp.bfloat16), ((2, 4), jnp.int32))
    else:
        text = _moe006_output(tmp_path)
    want = RAGGED.findall(text)
    assert want
    mhlo = compat.parse_mlir(compat.hlo_text_to_stablehlo(text))
    assert '"mhlo.ragged_dot"' in compat.mlir_print(mhlo, generic=True)  # what XLA's import makes
    module = runtime.chlo_ragged_dots(mhlo)
    printed = compat.mlir_print(module, generic=True)
    assert "mhlo.ragged_dot" not in printed and printed.count('"chlo.ragged_dot"') == len(want)
    assert RAGGED.findall(compat.stablehlo_to_hlo_text(compat.mlir_print(module))) == want


def test_a_module_without_ragged_dot_is_left_alone() -> None:
    text = jax.jit(lambda a: a * 2).lower(np.ones(4, np.float32)).as_text(dialect="hlo")
    module = compat.parse_mlir(compat.hlo_text_to_stablehlo(text))
    assert runtime.chlo_ragged_dots(module) is module
