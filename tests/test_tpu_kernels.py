"""The TPU kernels compiled by Mosaic and run on the chip (``HLO_PASSES_TEST_TPU=1``, tools/tpu_check.sh).

Off a TPU these skip, saying so (CI has none); the same kernels' numerics are checked on CPU in
Pallas interpret mode by tests/test_lowering_pallas.py and tests/test_moe_ffn_fusion.py.

* ``--kernel pallas`` for TPU: a gmm and a tgmm ragged-dot lowered for TPU become megablox
  ``tpu_custom_call``s, compiled and run on the chip: within bf16 rounding of an f32 reference on
  the rows inside the groups, zeros past them (gmm), as ragged_dot says (tgmm: empty groups 0).
* TPU's default (``--kernel auto --platform tpu``): megablox at its searched tiling where the
  tile table says it beat XLA's ragged-dot, run on the chip equal within bf16 rounding to XLA's
  own ragged-dot there; XLA's ragged-dot kept elsewhere, with the measurement as the reason.
* The fused expert FFN (MOE005's Pallas kernel): each form, on the chip, as close to the f32
  reference as XLA's unfused chain is (within twice its error), rows past the groups +0; and
  the rule's rewrite of a lowered program run on the chip against the program XLA runs.
"""
from __future__ import annotations

from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo_passes
from examples import moe_ffn
from hlo_passes import runtime
from hlo_passes.gmm import ffn_kernel, tpu_tiling
from hlo_passes.gmm.pallas_ffn import moe_ffn as pallas_ffn
from hlo_passes.lowering import lower_gmms
from hlo_passes.passes import run_passes

pytestmark = pytest.mark.tpu

HIGHEST = jax.lax.Precision.HIGHEST
# Half a bf16 ulp, relative: what rounding an f32 result to bf16 may change it by.
BF16_ROUNDING = 2.0**-8


@pytest.fixture(scope="module")
def chip():
    return jax.devices("tpu")[0]


def _groups(e: int, used: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(used, rng.dirichlet(np.ones(e))).astype(np.int32)
    sizes[1] = 0  # one empty group
    sizes[0] += used - sizes.sum()
    return sizes


def _assert_bf16_rounding(got, ref) -> None:
    """Each element within bf16 rounding of the f32 reference (plus f32 accumulation's order)."""
    got, ref = np.asarray(got, np.float32), np.asarray(ref, np.float32)
    rms = float(np.sqrt(np.mean(ref * ref)))
    np.testing.assert_allclose(got, ref, rtol=BF16_ROUNDING, atol=1e-5 * rms)


def _run_on_chip(module: hlo_passes.Module, chip, *args):
    exe = runtime.compile_text(module.to_text(), devices=[chip])
    return [np.asarray(o) for o in exe.run(*args)]


GMM_DIMS = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([1], [1]), ([], [])),
                                             lhs_ragged_dimensions=[0], rhs_group_dimensions=[0])
TGMM_DIMS = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([0], [0]), ([], [])),
                                              lhs_ragged_dimensions=[0], rhs_group_dimensions=[])


def _gmm_case(mode: str, m: int, k: int, n: int, e: int, used: int, chip, seed: int = 0):
    rng = np.random.default_rng(seed)
    lhs = jnp.asarray(rng.standard_normal((m, k), np.float32), jnp.bfloat16)
    shape = (e, k, n) if mode == "gmm" else (m, n)
    rhs = jnp.asarray(rng.standard_normal(shape, np.float32) / np.sqrt(k), jnp.bfloat16)
    gs = jnp.asarray(_groups(e, used, seed))
    dims = GMM_DIMS if mode == "gmm" else TGMM_DIMS
    lhs, rhs, gs = jax.device_put((lhs, rhs, gs), chip)

    def f(a, b, g):
        return jax.lax.ragged_dot_general(a, b, g, dims)

    def ref(a, b, g):
        return jax.lax.ragged_dot_general(a.astype(jnp.float32), b.astype(jnp.float32), g, dims, precision=HIGHEST)

    return f, ref, (lhs, rhs, gs)


@pytest.mark.parametrize("mode", ["gmm", "tgmm"])
def test_pallas_kernels_run_on_the_chip(mode: str, chip) -> None:
    m, k, n, e, used = 1000, 256, 512, 6, 900
    f, ref, args = _gmm_case(mode, m, k, n, e, used, chip)
    module = hlo_passes.parse(jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)).as_text())
    (record,) = lower_gmms(module, "pallas", platform="tpu")
    assert record.lowered and record.form == mode and "tpu_custom_call" in module.to_text()
    (got,) = _run_on_chip(module, chip, *args)
    want = np.asarray(jax.jit(ref)(*args))
    if mode == "gmm":
        _assert_bf16_rounding(got[:used], want[:used])
        assert not got[used:].any()  # rows past the groups: zero
    else:
        _assert_bf16_rounding(got, want)
        assert not got[1].any()  # the empty group's gradient: zero


def test_tpu_default_takes_megablox_only_where_measured_faster(chip) -> None:
    """E 8, m 4096, K 2048, N 2048 (bf16): the tile table's megablox (256, 2048, 1024) measured
    1.10-1.14x XLA's ragged-dot; the default splices it and it runs on the chip as XLA's does.  At a
    shape the table does not hold, XLA's ragged-dot stays, saying why."""
    f, ref, args = _gmm_case("gmm", 4096, 2048, 2048, 8, 4096, chip)
    spec_key = ("gmm", 8, 4096, 2048, 2048, "bf16")
    assert tpu_tiling.TABLE[spec_key][1] >= tpu_tiling.MARGIN
    module = hlo_passes.parse(jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)).as_text())
    (record,) = lower_gmms(module, "auto", platform="tpu")
    assert record.lowered and record.kernel == "pallas"
    (got,) = _run_on_chip(module, chip, *args)
    xla = np.asarray(jax.jit(f)(*args), np.float32)
    want = np.asarray(jax.jit(ref)(*args))
    _assert_bf16_rounding(got, want)
    _assert_bf16_rounding(xla, want)
    f, _, small = _gmm_case("gmm", 512, 256, 256, 4, 512, chip)
    module = hlo_passes.parse(jax.jit(f).trace(*small).lower(lowering_platforms=("tpu",)).as_text())
    (record,) = lower_gmms(module, "auto", platform="tpu")
    assert not record.lowered and record.kernel == "xla" and "tile table" in record.reason


def _ffn_args(form: str, t: int, d: int, f: int, e: int, used: int, dtype, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.standard_normal((t, d), np.float32), dtype)
    width = f if form == "pair" else 2 * f
    w = [jnp.asarray(rng.standard_normal((e, d, width), np.float32) / np.sqrt(d), dtype)
         for _ in range(2 if form == "pair" else 1)]
    wo = jnp.asarray(rng.standard_normal((e, f, d), np.float32) / np.sqrt(f), dtype)
    return x, jnp.asarray(_groups(e, used, seed)), w, wo


def _chain(form: str, x, gs, w, wo, precision=None):
    f = wo.shape[1]
    if form == "pair":
        gate = jax.lax.ragged_dot(x, w[0], gs, precision=precision)
        up = jax.lax.ragged_dot(x, w[1], gs, precision=precision)
    else:
        h = jax.lax.ragged_dot(x, w[0], gs, precision=precision)
        gate, up = (h[:, f:], h[:, :f]) if form == "up_first" else (h[:, :f], h[:, f:])
    return jax.lax.ragged_dot(jax.nn.silu(gate) * up, wo, gs, precision=precision)


def _err(got, ref, rows: int) -> float:
    got, ref = np.asarray(got, np.float32)[:rows], np.asarray(ref, np.float32)[:rows]
    return float(np.abs(got - ref).max() / np.sqrt(np.mean(ref * ref)))


@pytest.mark.parametrize("form", ["gate_first", "up_first", "pair"])
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32], ids=["bf16", "f32"])
def test_fused_ffn_kernel_on_the_chip(form: str, dtype, chip) -> None:
    """Tiles of 256 rows over 5 F blocks of 128 (explicit blocks) and the chosen blocks; groups
    end before t (the rows past them +0)."""
    t, d, f, e, used = 1200, 256, 640, 8, 1100
    x, gs, w, wo = jax.device_put(_ffn_args(form, t, d, f, e, used, dtype), chip)
    w_up = w[1] if form == "pair" else None

    def reference(x, gs, w, wo):
        f32 = jnp.float32
        return _chain(form, x.astype(f32), gs, [v.astype(f32) for v in w], wo.astype(f32), precision=HIGHEST)

    ref = jax.jit(reference)(x, gs, w, wo)
    chain = jax.jit(lambda x, gs, w, wo: _chain(form, x, gs, w, wo))(x, gs, w, wo)
    # As close to the f32 reference as XLA's own chain (its roundings, its matmul precision) is.
    bound = 2 * _err(chain, ref, used) + 1e-5
    for blocks in ((256, 128), (None, None)):
        got = jax.jit(lambda x, gs, w, wo, blocks=blocks: pallas_ffn(
            x, w[0], wo, gs, w_up=w_up, up_first=form == "up_first", tm=blocks[0], bf=blocks[1]))(x, gs, w, wo)
        got = np.asarray(got)
        assert got.dtype == np.dtype(dtype)
        assert _err(got, ref, used) <= bound, (blocks, _err(got, ref, used), bound)
        tail = got[used:].astype(np.float32)
        assert (tail == 0).all() and not np.signbit(tail).any()


# StableHLO: jaxlib 0.10.2's HLO-text path (runtime.compile_text of HLO) cannot compile an
# unrewritten ragged-dot for TPU ("failed to legalize mhlo.ragged_dot", measured 2026-12-05); XLA's
# own program is therefore run through jax.jit.
@pytest.mark.parametrize("form,dialect", [("gate_first", "stablehlo"), ("pair", "stablehlo")])
def test_moe005_rewrite_runs_on_the_chip(form: str, dialect: str, chip) -> None:
    """MOE005 priced for TPU splices the Pallas kernel into a lowered program (the speed gate off:
    a small shape); the rewritten module, compiled for and run on the chip, is as close to the f32
    reference as XLA's own program on the chip is (within twice its error), rows past the groups 0."""
    sizes = dict(tokens=512, embed=128, mlp=256, experts=8, dtype=jnp.bfloat16)
    text = moe_ffn.lower(form, "forward", dialect, **sizes)
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        result = run_passes(hlo_passes.parse(text), ["moe-ffn-fusion"], platform="tpu")
    assert [s.rewritten for s in result.sites] == [True]
    after = hlo_passes.parse(result.module.to_text())
    assert "tpu_custom_call" in after.to_text()
    args = moe_ffn.inputs(form, **sizes)
    on_chip = jax.device_put(list(args), chip)
    want = np.asarray(jax.jit(moe_ffn.function(form))(*on_chip))  # XLA's own program
    (got,) = _run_on_chip(after, chip, *args)
    with jax.default_matmul_precision("highest"):
        ref = jax.jit(moe_ffn.function(form))(*jax.device_put([np.asarray(a, np.float32) if a.dtype != np.int32
                                                               else a for a in args], chip))
    used = int(args[1].sum())
    assert _err(got, ref, used) <= 2 * _err(want, ref, used) + 1e-5
    assert not np.asarray(got, np.float32)[used:].any()
