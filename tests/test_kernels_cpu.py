"""The CPU grouped-matmul FFI kernels (hlo_passes.kernels) against jax and numpy.

Every kernel result here is computed by XLA:CPU calling the registered FFI
target and compared numerically with ``jax.lax.ragged_dot`` (gmm), jax's
ragged-contracting ``ragged_dot_general`` (tgmm, the rhs gradient of
ragged_dot) or a float64 numpy loop over the groups.
"""
from __future__ import annotations

import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlo_passes import kernels
from hlo_passes.errors import KernelBuildError
from hlo_passes.kernels import _build

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing

F32, BF16 = np.dtype(jnp.float32), np.dtype(jnp.bfloat16)


# --- references --------------------------------------------------------------

def _group_bounds(group_sizes, m: int) -> list[tuple[int, int]]:
    """[start, end) of each group, clipped at m (jax masks rows start <= r < end, r < m)."""
    ends = np.cumsum(np.asarray(group_sizes, dtype=np.int64))
    starts = ends - np.asarray(group_sizes, dtype=np.int64)
    return [(min(int(s), m), min(int(e), m)) for s, e in zip(starts, ends)]


def ref_gmm(lhs, rhs, group_sizes) -> np.ndarray:
    lhs64, rhs64 = np.asarray(lhs, np.float64), np.asarray(rhs, np.float64)
    out = np.zeros((lhs64.shape[0], rhs64.shape[2]))
    for g, (s, e) in enumerate(_group_bounds(group_sizes, lhs64.shape[0])):
        out[s:e] = lhs64[s:e] @ rhs64[g]
    return out


def ref_tgmm(lhs, rhs, group_sizes) -> np.ndarray:
    lhs64, rhs64 = np.asarray(lhs, np.float64), np.asarray(rhs, np.float64)
    bounds = _group_bounds(group_sizes, lhs64.shape[0])
    return np.stack([lhs64[s:e].T @ rhs64[s:e] for s, e in bounds]) if bounds else \
        np.zeros((0, lhs64.shape[1], rhs64.shape[1]))


_TGMM_DIMS = jax.lax.RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([0], [0]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[]
)


def jax_tgmm(lhs, rhs, group_sizes):
    """jax's own tgmm: ragged_dot with the ragged dimension contracted (ragged_dot's dW)."""
    return jax.lax.ragged_dot_general(lhs, rhs, group_sizes, _TGMM_DIMS)


def _random(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32).astype(dtype)


def _assert_close(got, want: np.ndarray, out_dtype, k: int) -> None:
    got = np.asarray(got)
    assert got.dtype == out_dtype and got.shape == want.shape
    # f32 accumulation of k products: error grows with k and the magnitude of
    # the summands; bf16 output adds half an ulp of bf16 (2^-9 relative).
    scale = np.sqrt(max(k, 1)) * (np.abs(want) + 1.0)
    tol = 1e-6 * scale if out_dtype == F32 else 2.0**-8 * (np.abs(want) + 1e-6 * scale) + 1e-6 * scale
    err = np.abs(got.astype(np.float64) - want)
    assert (err <= tol).all(), f"max error {err.max()} (worst at {np.unravel_index(np.argmax(err - tol), err.shape)})"


def _sizes(rng: np.random.Generator, g: int, total: int) -> np.ndarray:
    """g non-negative sizes summing to total (some groups empty)."""
    cuts = np.sort(rng.integers(0, total + 1, size=g - 1))
    return np.diff(np.concatenate([[0], cuts, [total]])).astype(np.int32)


# --- gmm ---------------------------------------------------------------------

@st.composite
def _problems(draw):
    m = draw(st.integers(1, 40))
    k = draw(st.integers(0, 40))
    n = draw(st.integers(1, 40))
    g = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(0, 16), min_size=g, max_size=g))
    dtypes = draw(st.tuples(*[st.sampled_from([F32, BF16])] * 3))
    seed = draw(st.integers(0, 2**31 - 1))
    return m, k, n, np.array(sizes, np.int32), dtypes, seed


@given(_problems())
def test_gmm_random_shapes_and_dtypes(problem):
    m, k, n, sizes, (lhs_t, rhs_t, out_t), seed = problem
    rng = np.random.default_rng(seed)
    lhs, rhs = _random(rng, (m, k), lhs_t), _random(rng, (len(sizes), k, n), rhs_t)
    got = kernels.gmm(lhs, rhs, sizes, preferred_element_type=out_t)
    _assert_close(got, ref_gmm(lhs, rhs, sizes), out_t, k)


@given(_problems())
def test_tgmm_random_shapes_and_dtypes(problem):
    m, k, n, sizes, (lhs_t, rhs_t, out_t), seed = problem
    rng = np.random.default_rng(seed)
    lhs, rhs = _random(rng, (m, k), lhs_t), _random(rng, (m, n), rhs_t)
    got = kernels.tgmm(lhs, rhs, sizes, preferred_element_type=out_t)
    _assert_close(got, ref_tgmm(lhs, rhs, sizes), out_t, m)


# sum(sizes) == m, < m (rows past the last group are zero), > m (clipped);
# empty groups first, in the middle and last; a single group; all empty.
_GROUPINGS = {
    "exact": [3, 0, 5, 4, 0],
    "short": [0, 2, 0, 3, 1],
    "clipped": [4, 0, 5, 9, 2],
    "one_group": [12],
    "all_empty": [0, 0, 0],
}


@pytest.mark.parametrize("name", sorted(_GROUPINGS))
def test_gmm_groupings_match_ragged_dot(name):
    sizes = np.array(_GROUPINGS[name], np.int32)
    rng = np.random.default_rng(1)
    lhs, rhs = _random(rng, (12, 7), F32), _random(rng, (len(sizes), 7, 9), F32)
    got = np.asarray(kernels.gmm(lhs, rhs, sizes))
    want = np.asarray(jax.lax.ragged_dot(lhs, rhs, jnp.asarray(sizes)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, ref_gmm(lhs, rhs, sizes), rtol=1e-5, atol=1e-5)
    covered = min(int(sizes.sum()), 12)
    assert not got[covered:].any()


@pytest.mark.parametrize("name", sorted(_GROUPINGS))
def test_tgmm_groupings_match_jax(name):
    sizes = np.array(_GROUPINGS[name], np.int32)
    rng = np.random.default_rng(2)
    lhs, rhs = _random(rng, (12, 7), F32), _random(rng, (12, 9), F32)
    got = np.asarray(kernels.tgmm(lhs, rhs, sizes))
    want = np.asarray(jax_tgmm(lhs, rhs, jnp.asarray(sizes)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, ref_tgmm(lhs, rhs, sizes), rtol=1e-5, atol=1e-5)
    for g, size in enumerate(sizes):
        if size == 0:
            assert not got[g].any()


def test_tgmm_is_the_rhs_gradient_of_ragged_dot():
    rng = np.random.default_rng(3)
    sizes = np.array([5, 0, 11, 3], np.int32)
    lhs, rhs, cot = _random(rng, (20, 6), F32), _random(rng, (4, 6, 8), F32), _random(rng, (20, 8), F32)
    grad = jax.grad(lambda w: jnp.sum(jax.lax.ragged_dot(lhs, w, jnp.asarray(sizes)) * cot))(rhs)
    np.testing.assert_allclose(np.asarray(kernels.tgmm(lhs, cot, sizes)), np.asarray(grad), rtol=1e-5, atol=1e-5)


def test_odd_sizes_across_every_tile_boundary():
    """Shapes past the kernel's register and cache tiles in every dimension (k and one
    group's rows > KC=256, group rows > MC, n > NC=512), none a multiple of them."""
    rng = np.random.default_rng(4)
    m, k, n = 420, 263, 531
    sizes = np.array([0, 137, 1, 270, 12], np.int32)
    lhs, rhs = _random(rng, (m, k), F32), _random(rng, (len(sizes), k, n), F32)
    _assert_close(kernels.gmm(lhs, rhs, sizes), ref_gmm(lhs, rhs, sizes), F32, k)
    dout = _random(rng, (m, n), F32)
    _assert_close(kernels.tgmm(lhs, dout, sizes), ref_tgmm(lhs, dout, sizes), F32, m)


def test_many_groups():
    rng = np.random.default_rng(5)
    m, k, n, g = 300, 24, 40, 64
    sizes = _sizes(rng, g, 290)
    lhs, rhs = _random(rng, (m, k), F32), _random(rng, (g, k, n), F32)
    got = np.asarray(kernels.gmm(lhs, rhs, sizes))
    np.testing.assert_allclose(got, np.asarray(jax.lax.ragged_dot(lhs, rhs, jnp.asarray(sizes))), rtol=1e-5,
                               atol=1e-5)
    dout = _random(rng, (m, n), F32)
    np.testing.assert_allclose(np.asarray(kernels.tgmm(lhs, dout, sizes)),
                               np.asarray(jax_tgmm(lhs, dout, jnp.asarray(sizes))), rtol=1e-5, atol=1e-5)


def test_bf16_inputs_accumulate_in_f32():
    """k = 1024 bf16 products summed: a bf16 accumulator would be off by ~1e-2 relative."""
    rng = np.random.default_rng(6)
    m, k, n = 40, 1024, 24
    sizes = np.array([17, 0, 23], np.int32)
    lhs, rhs = _random(rng, (m, k), BF16), _random(rng, (3, k, n), BF16)
    got = np.asarray(kernels.gmm(lhs, rhs, sizes, preferred_element_type=jnp.float32))
    want = ref_gmm(lhs, rhs, sizes)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    jax_f32 = jax.lax.ragged_dot(lhs, rhs, jnp.asarray(sizes), preferred_element_type=jnp.float32)
    np.testing.assert_allclose(got, np.asarray(jax_f32), rtol=1e-5, atol=1e-4)
    dout = _random(rng, (m, n), BF16)
    np.testing.assert_allclose(np.asarray(kernels.tgmm(lhs, dout, sizes, preferred_element_type=jnp.float32)),
                               ref_tgmm(lhs, dout, sizes), rtol=1e-5, atol=1e-4)


def test_bf16_output_rounds_like_xla():
    """f32 results on bf16 rounding ties (both directions, both signs), a
    subnormal (XLA's dot flushes it to zero), overflow to inf, infinities and
    NaN: the kernel's bf16 output is bit-identical to XLA's f32 dot followed by
    its f32 -> bf16 convert."""
    values = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 2**-130, 3.0e38, 3.3961e38, np.inf, -np.inf,
                       65504.0 + 2**-3, 1 + 2**-8 + 2**-20, np.nan], np.float32)
    lhs = np.ones((1, 1), np.float32)
    rhs = values.reshape(1, 1, -1)
    got = np.asarray(kernels.gmm(lhs, rhs, np.array([1], np.int32), preferred_element_type=jnp.bfloat16))
    want = np.asarray(jax.jit(lambda a, b: jnp.dot(a, b[0]).astype(jnp.bfloat16))(lhs, rhs))
    np.testing.assert_array_equal(got.view(np.uint16)[0, :-1], want.view(np.uint16)[0, :-1])
    assert np.isnan(got[0, -1].astype(np.float32)) and np.isnan(want[0, -1].astype(np.float32))


def test_bf16_in_bf16_out_matches_ragged_dot():
    rng = np.random.default_rng(7)
    sizes = np.array([6, 0, 9, 2], np.int32)
    lhs, rhs = _random(rng, (20, 33), BF16), _random(rng, (4, 33, 17), BF16)
    got = kernels.gmm(lhs, rhs, sizes)
    assert got.dtype == BF16
    _assert_close(got, ref_gmm(lhs, rhs, sizes), BF16, 33)
    want = np.asarray(jax.lax.ragged_dot(lhs, rhs, jnp.asarray(sizes))).astype(np.float64)
    # Both round an f32 sum once; the sums may differ in the last f32 bits.
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2**-7, atol=1e-2)


def test_mixed_input_dtypes():
    rng = np.random.default_rng(8)
    sizes = np.array([3, 5, 4], np.int32)
    for lhs_t, rhs_t in ((F32, BF16), (BF16, F32)):
        lhs, rhs = _random(rng, (12, 10), lhs_t), _random(rng, (3, 10, 6), rhs_t)
        _assert_close(kernels.gmm(lhs, rhs, sizes), ref_gmm(lhs, rhs, sizes), F32, 10)
        dout = _random(rng, (12, 6), rhs_t)
        _assert_close(kernels.tgmm(lhs, dout, sizes), ref_tgmm(lhs, dout, sizes), F32, 12)


def test_s64_group_sizes():
    rng = np.random.default_rng(9)
    lhs, rhs = _random(rng, (15, 8), F32), _random(rng, (3, 8, 5), F32)
    dout = _random(rng, (15, 5), F32)
    with jax.enable_x64(True):
        sizes = jnp.array([4, 0, 13], jnp.int64)
        assert sizes.dtype == np.int64
        got = np.asarray(kernels.gmm(lhs, rhs, sizes))
        got_t = np.asarray(kernels.tgmm(lhs, dout, sizes))
    np.testing.assert_allclose(got, ref_gmm(lhs, rhs, [4, 0, 13]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_t, ref_tgmm(lhs, dout, [4, 0, 13]), rtol=1e-5, atol=1e-5)


def test_under_jit_with_traced_group_sizes():
    rng = np.random.default_rng(10)
    lhs, rhs = _random(rng, (30, 16), F32), _random(rng, (4, 16, 12), F32)
    step = jax.jit(lambda x, w, gs: jnp.tanh(kernels.gmm(x, w, gs)).sum(axis=1))
    for sizes in ([10, 0, 15, 5], [0, 30, 0, 0], [1, 2, 3, 4]):
        gs = np.array(sizes, np.int32)
        np.testing.assert_allclose(np.asarray(step(lhs, rhs, gs)), np.tanh(ref_gmm(lhs, rhs, gs)).sum(axis=1),
                                   rtol=1e-5, atol=1e-5)


def test_two_threads_equal_one_thread(monkeypatch):
    """Large enough for several tiles and the kernel's multi-thread threshold.
    Some rows of every group are subnormal: XLA flushes them (its threads run
    with FTZ/DAZ), so the kernel's own threads must too, or their rows differ."""
    rng = np.random.default_rng(11)
    m, k, n = 400, 96, 600
    sizes = np.array([130, 0, 250, 20], np.int32)
    lhs, rhs, dout = _random(rng, (m, k), F32), _random(rng, (4, k, n), F32), _random(rng, (m, n), F32)
    tiny_rows = np.r_[0:12, 130:142, 370:382, 390:400]
    lhs[tiny_rows] = np.float32(1e-39) * np.sign(lhs[tiny_rows])
    results = {}
    for threads in ("1", "2"):
        monkeypatch.setenv("HLO_PASSES_GMM_THREADS", threads)
        results[threads] = (np.asarray(kernels.gmm(lhs, rhs, sizes)), np.asarray(kernels.tgmm(lhs, dout, sizes)))
    np.testing.assert_array_equal(results["1"][0], results["2"][0])
    np.testing.assert_array_equal(results["1"][1], results["2"][1])
    want = np.asarray(jax.lax.ragged_dot(lhs, rhs, jnp.asarray(sizes)))
    np.testing.assert_array_equal(results["2"][0][tiny_rows], want[tiny_rows])
    _assert_close(results["2"][0], want, F32, k)
    _assert_close(results["2"][1], ref_tgmm(np.where(np.abs(lhs) < 1e-38, 0, lhs), dout, sizes), F32, m)


def test_ffi_target_rejects_mismatched_shapes():
    lhs, rhs, gs = np.ones((4, 3), np.float32), np.ones((2, 5, 6), np.float32), np.array([2, 2], np.int32)
    call = jax.ffi.ffi_call(kernels.CPU_GMM_TARGET, jax.ShapeDtypeStruct((4, 6), jnp.float32))
    with pytest.raises(Exception, match=r"hlo_passes_gmm: expected lhs\[m,k\], rhs\[g,k,n\]"):
        np.asarray(call(lhs, rhs, gs))
    with pytest.raises(ValueError, match="gmm: expected"):
        kernels.gmm(lhs, rhs, gs)
    with pytest.raises(ValueError, match="output dtype must be float32 or bfloat16"):
        kernels.gmm(lhs, np.ones((2, 3, 6), np.float32), gs, preferred_element_type=jnp.float16)


# --- build -------------------------------------------------------------------

def test_build_cache_hit_reuses_the_library():
    again = _build.build_library(kernels.SOURCE)
    assert not again.built
    assert again.path == kernels.library_path
    assert again.path.is_file()


def test_cache_key_covers_the_cpu(monkeypatch):
    here = _build.library_target(kernels.SOURCE)
    monkeypatch.setattr(_build, "_cpu_identity", lambda: "x86_64 model name=some other CPU")
    assert _build.library_target(kernels.SOURCE) != here


def test_missing_compiler_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    with pytest.raises(KernelBuildError, match=r"no C\+\+ compiler: '/nonexistent/c\+\+' \(\$CXX\)"):
        _build.build_library(kernels.SOURCE, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_missing_ffi_headers_are_named(monkeypatch, tmp_path):
    monkeypatch.setattr(jax.ffi, "include_dir", lambda: str(tmp_path))
    with pytest.raises(KernelBuildError, match=r"XLA FFI headers not found: .*xla/ffi/api/ffi\.h"):
        _build.build_library(kernels.SOURCE, directory=tmp_path / "cache")


def test_compile_error_carries_compiler_stderr(tmp_path):
    bad = tmp_path / "broken.cc"
    bad.write_text("int f() { return undeclared_name; }\n")
    cache = tmp_path / "cache"
    with pytest.raises(KernelBuildError, match=r"(?s)compiling broken\.cc failed.*undeclared_name"):
        _build.build_library(bad, directory=cache)
    assert list(cache.iterdir()) == []  # no half-written library or temporary left behind


def test_cache_dir_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("HLO_PASSES_CACHE_DIR", str(tmp_path / "a"))
    assert _build.cache_dir() == tmp_path / "a"
    monkeypatch.delenv("HLO_PASSES_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _build.cache_dir() == tmp_path / "xdg" / "hlo_passes"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _build.cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "hlo_passes"


_CONCURRENT_BUILD = r"""
import importlib.util, pathlib, sys, time
spec = importlib.util.spec_from_file_location("_build", sys.argv[1])
build = sys.modules["_build"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)
source, cache, me = sys.argv[2], sys.argv[3], sys.argv[4]
build.library_target(source, directory=cache)  # jax imported, compiler probed
barrier = pathlib.Path(cache).parent
(barrier / f"ready-{me}").touch()
while len(list(barrier.glob("ready-*"))) < 2:
    time.sleep(0.01)
result = build.build_library(source, directory=cache)
print(result.built, result.path)
"""


def test_two_processes_building_at_once_share_one_library(tmp_path):
    """Two processes released together past a barrier both find no library and
    compile, each into its own temporary; the renames leave one complete
    library and no temporaries. _build is loaded from its file so that the
    processes do not import (and build) hlo_passes.kernels."""
    import ctypes
    import subprocess
    import sys

    source = tmp_path / "tiny.cc"
    source.write_text('extern "C" int hlo_passes_tiny() { return 42; }\n')
    cache = tmp_path / "cache"
    # A compiler that takes 2 s keeps both builds in flight at once even when
    # the machine is busy and one process passes the barrier late.
    slow_cxx = tmp_path / "slow-c++"
    compiler, _ = _build._compiler()  # $CXX or g++, resolved (with any arguments)
    slow_cxx.write_text(f'#!/bin/sh\ncase "$1" in --version) ;; *) sleep 2 ;; esac\nexec {compiler} "$@"\n')
    slow_cxx.chmod(0o755)
    env = {**os.environ, "CXX": str(slow_cxx)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _CONCURRENT_BUILD, _build.__file__, str(source), str(cache), str(i)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for i in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    reports = {tuple(out.split()) for out, _ in outs}
    assert len(reports) == 1 and reports.pop()[0] == "True", outs  # both built, same path
    (library,) = cache.iterdir()
    assert ctypes.CDLL(str(library)).hlo_passes_tiny() == 42


def test_stale_temporaries_are_removed(tmp_path):
    source = tmp_path / "tiny.cc"
    source.write_text('extern "C" int hlo_passes_tiny() { return 7; }\n')
    cache = tmp_path / "cache"
    cache.mkdir()
    stale, fresh = cache / ".tiny-dead.so.tmp", cache / ".tiny-live.so.tmp"
    stale.write_bytes(b"")
    fresh.write_bytes(b"")
    os.utime(stale, (1, 1))
    result = _build.build_library(source, directory=cache)
    assert result.built and result.path.is_file()
    assert not stale.exists() and fresh.exists()
