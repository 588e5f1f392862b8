"""``--kernel gpu-ffi``: ragged-dots become custom calls to the CUDA grouped-matmul handlers.

On every machine:

* the examples' MoE modules lowered for CUDA (``lowering_platforms=("cuda",)``)
  and rewritten by every pass are lowered in both dialects; the text parses, prints and verifies (ours, and
  XLA's HLO / MLIR parsers and converters), every ragged-dot became a typed-FFI
  custom call to ``hlo_passes_gmm_cuda`` / ``hlo_passes_tgmm_cuda`` with the
  canonical operand shapes;
* the lowered modules compute jax's numbers on CPU when their calls are served
  by the CPU handlers, which implement the same contract (the call names are
  the only difference): this checks the graph the lowering builds (operand
  order, transposes, where the calls sit in shard_map bodies and loops);
* where nvcc exists, the CUDA source compiles against the installed jaxlib's
  FFI headers and the library exports both handlers.

With a CUDA device and nvcc (``tools/gpu_check.sh`` on a GPU machine), the
handlers run on the GPU against a numpy reference for every dtype combination,
empty groups and clipped groups, and the lowered MoE modules run on the GPU
against jax's native ragged_dot, as does ``hlo_passes.jit(kernel="gpu-ffi")``;
elsewhere those tests are skipped with the reason, and ``hlo_passes.jit``
falls back to the original program with a warning naming what is missing.
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes import _jax_compat as compat
from hlo_passes.jax_hook import RewriteFallbackWarning
from hlo_passes.lowering import _normalize, gpu_ffi, lower_gmms
from hlo_passes.passes import run_passes
from moe_cases import DIALECTS, run_text, tolerance

SPECS: dict[str, ProgramSpec] = {
    "fused-forward": ProgramSpec(variant="fused"),
    "concat-grad": ProgramSpec(variant="concat", mode="grad"),
    "concat-grad-bf16": ProgramSpec(variant="concat", mode="grad", cfg=MoEConfig(dtype="bfloat16")),
    "fused-mesh2-scan": ProgramSpec(variant="fused", mesh="mesh2", form="implicit", mode="scan"),
}
CASES = [(name, dialect) for name in SPECS for dialect in DIALECTS]
GPU_TARGETS = frozenset(gpu_ffi.TARGETS.values())


@functools.lru_cache(maxsize=None)
def cuda_text(name: str, dialect: str) -> str:
    return moe.lower(SPECS[name], platforms=("cuda",)).as_text(dialect=dialect)


@functools.lru_cache(maxsize=None)
def rewritten(name: str, dialect: str) -> tuple[str, int]:
    """The CUDA lowering after every rewrite pass (as hlo-rewrite runs them), and the sites rewritten."""
    result = run_passes(hlo_passes.parse(cuda_text(name, dialect)))
    return result.module.to_text(), len(result.sites)


@functools.lru_cache(maxsize=None)
def lowered(name: str, dialect: str) -> tuple[str, tuple]:
    module = hlo_passes.parse(rewritten(name, dialect)[0])
    records = lower_gmms(module, "gpu-ffi", "cuda")
    return module.to_text(), tuple(records)


def _shapes(instr) -> tuple:
    """((element type, dims) of each operand), (element type, dims) of the result."""
    ops = tuple((s.element_type, tuple(s.dims)) for s in
                (o.result_shape(r) for o, r in zip(instr.operands, instr.operand_results)))
    return ops, (instr.shape.element_type, tuple(instr.shape.dims))


def expected_calls(text: str) -> list[tuple]:
    """What each ragged-dot of ``text`` must become: target and canonical operand / result shapes."""
    out = []
    for instr in hlo_passes.parse(text).instructions():
        if instr.opcode != "ragged-dot":
            continue
        p = _normalize.plan(instr)
        (lhs_t, _), (rhs_t, _), (gs_t, _) = _shapes(instr)[0]
        ops = ((lhs_t, p.lhs_dims), (rhs_t, p.rhs_dims), (gs_t, (p.groups,)))
        out.append((gpu_ffi.TARGETS[p.form], ops, (instr.shape.element_type, p.out_dims)))
    return sorted(out)


def gpu_calls(module) -> list[tuple]:
    return sorted(
        (i.attributes["custom_call_target"], *_shapes(i)) for i in module.instructions()
        if i.opcode == "custom-call" and i.attributes.get("custom_call_target") in GPU_TARGETS
    )


@pytest.mark.parametrize("name,dialect", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_lowered_text(name: str, dialect: str) -> None:
    text, records = lowered(name, dialect)
    want = expected_calls(rewritten(name, dialect)[0])
    if SPECS[name].variant == "concat":
        assert rewritten(name, dialect)[1] > 0  # the fused GMM the rewrite emits is what gets lowered
    assert want and all(r.lowered and r.kernel == "gpu-ffi" for r in records)
    assert len(records) == len(want)
    if SPECS[name].mode == "grad":
        assert {c[0] for c in want} == GPU_TARGETS  # both kernels, and a transposed rhs

    module = hlo_passes.parse(text)
    module.verify()
    assert not any(i.opcode == "ragged-dot" for i in module.instructions())
    assert gpu_calls(module) == want
    assert module.to_text(regenerate=True)  # every op prints from its fields too
    for call in (i for i in module.instructions() if i.opcode == "custom-call"
                 and i.attributes.get("custom_call_target") in GPU_TARGETS):
        assert call.attributes["frontend_attributes"]["hlo_passes.rule"] == "gmm-lowering"
        # Row-major buffers pinned: XLA is otherwise free to hand the kernel another layout.
        assert ("operand_layout_constraints" if dialect == "hlo" else "operand_layouts") in call.attributes

    # XLA's own readers: HLO through XLA's HLO -> StableHLO import, StableHLO
    # through MLIR's verifier and XLA's StableHLO -> HLO conversion; both must
    # see typed-FFI calls (what XLA:GPU dispatches to a registered handler).
    if dialect == "hlo":
        compat.print_hlo(text)
        mlir = compat.mlir_print(compat.parse_mlir(compat.hlo_text_to_stablehlo(text)))
        calls = [line for line in mlir.splitlines() if "stablehlo.custom_call @hlo_passes_" in line]
        assert len(calls) == len(want) and all("api_version = 4 : i32" in c for c in calls)
    else:
        compat.parse_mlir(text)
        hlo = compat.stablehlo_to_hlo_text(text)
        calls = re.findall(r'custom_call_target="(hlo_passes_t?gmm_cuda)"[^\n]*api_version=API_VERSION_TYPED_FFI', hlo)
        assert sorted(calls) == [c[0] for c in want]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_second_lowering_finds_nothing(dialect: str) -> None:
    text, _ = lowered("concat-grad", dialect)
    module = hlo_passes.parse(text)
    assert lower_gmms(module, "gpu-ffi", "cuda") == []
    assert not module.changed


F16_RAGGED_DOT = """HloModule m

ENTRY main {
  x = f16[16,8]{1,0} parameter(0)
  w = f16[2,8,4]{2,1,0} parameter(1)
  gs = s32[2]{0} parameter(2)
  ROOT r = f16[16,4]{1,0} ragged-dot(x, w, gs), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}
"""


def test_unsupported_element_type_stays_with_reason() -> None:
    module = hlo_passes.parse(F16_RAGGED_DOT)
    (record,) = lower_gmms(module, "gpu-ffi", "cuda")
    assert not record.lowered and record.form == "gmm"
    assert "f32/bf16" in record.reason and "lhs f16" in record.reason
    assert module.to_text() == F16_RAGGED_DOT


# ---- the lowered graph, served by the CPU handlers of the same contract -------

@functools.lru_cache(maxsize=None)
def jax_result(name: str) -> tuple[np.ndarray, ...]:
    import jax

    return tuple(np.asarray(a, dtype=np.float32) for a in jax.tree.leaves(moe.run(SPECS[name])))


@pytest.mark.parametrize("name,dialect", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_lowered_graph_computes_jax_reference_on_cpu(name: str, dialect: str) -> None:
    from hlo_passes import kernels  # registers the CPU handlers

    text, _ = lowered(name, dialect)
    cpu_names = {"gmm": kernels.CPU_GMM_TARGET, "tgmm": kernels.CPU_TGMM_TARGET}
    on_cpu = re.sub(r"hlo_passes_(t?gmm)_cuda\b", lambda m: cpu_names[m.group(1)], text)
    assert on_cpu.count('"hlo_passes_') == text.count('"hlo_passes_')
    spec = SPECS[name]
    exe, got = run_text(on_cpu, spec)
    assert "hlo_passes_gmm" in exe.compiled_text
    want = jax_result(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))


# ---- building the CUDA library (needs nvcc, not a GPU) -------------------------


def _kernels_gpu():
    from hlo_passes.kernels import gpu

    return gpu


def test_build_names_missing_nvcc(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    gpu = _kernels_gpu()
    monkeypatch.setattr(gpu, "find_nvcc", lambda: None)
    with pytest.raises(gpu.GpuKernelUnavailable, match="nvcc .*not found"):
        gpu.build()
    with pytest.raises(gpu.GpuKernelUnavailable, match="nvcc"):
        gpu.register()


def test_cuda_source_builds_with_nvcc() -> None:
    import ctypes

    gpu = _kernels_gpu()
    if gpu.find_nvcc() is None:
        pytest.skip("nvcc not found: the CUDA kernel cannot be built on this machine")
    library = gpu.build(arch=gpu.DEFAULT_ARCH)
    lib = ctypes.CDLL(str(library))
    for name in gpu.TARGETS:
        assert getattr(lib, name)
    assert gpu.build(arch=gpu.DEFAULT_ARCH) == library  # cached


def test_compile_error_carries_nvcc_output(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    gpu = _kernels_gpu()
    if gpu.find_nvcc() is None:
        pytest.skip("nvcc not found: the CUDA kernel cannot be built on this machine")
    broken = tmp_path / "broken.cu"
    broken.write_text("this is not CUDA\n")
    monkeypatch.setattr(gpu, "SOURCE", broken)
    monkeypatch.setenv("HLO_PASSES_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(gpu.GpuKernelUnavailable, match="nvcc failed .*broken.cu"):
        gpu.build(arch=gpu.DEFAULT_ARCH)
    assert not list((tmp_path / "cache").rglob("*.so*"))


# ---- on a GPU -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cuda_kernels():
    gpu = _kernels_gpu()
    why = gpu.unavailable_reason(need_device=True)
    if why is not None:
        pytest.skip(f"GPU run skipped: {why}")
    gpu.register()
    return gpu


def _reference_gmm(lhs: np.ndarray, rhs: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    m = lhs.shape[0]
    out = np.zeros((m, rhs.shape[2]))
    start = 0
    for i, size in enumerate(np.maximum(sizes, 0)):
        lo, hi = min(start, m), min(start + int(size), m)
        out[lo:hi] = lhs[lo:hi].astype(np.float64) @ rhs[i].astype(np.float64)
        start += int(size)
    return out


def _reference_tgmm(lhs: np.ndarray, rhs: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    m = lhs.shape[0]
    out = np.zeros((len(sizes), lhs.shape[1], rhs.shape[1]))
    start = 0
    for i, size in enumerate(np.maximum(sizes, 0)):
        lo, hi = min(start, m), min(start + int(size), m)
        out[i] = lhs[lo:hi].T.astype(np.float64) @ rhs[lo:hi].astype(np.float64)
        start += int(size)
    return out


DTYPES = [("float32", "float32", "float32"), ("bfloat16", "bfloat16", "float32"),
          ("bfloat16", "bfloat16", "bfloat16"), ("float32", "bfloat16", "bfloat16"),
          ("bfloat16", "float32", "float32")]
# m = 200 rows: empty groups, a sum short of m (rows left over), a sum past m
# (clipped), one group, many small ones (row tiles spanning several groups),
# no rows at all, and sizes XLA leaves undefined (negative: counted as 0).
GROUPS = {
    "empties-short": [0, 70, 0, 50, 33],
    "past-m": [120, 0, 150],
    "one": [200],
    "many": [13, 0, 7, 31, 0, 0, 25, 1, 1, 40, 9, 0, 18, 30, 5, 20],
    "all-empty": [0, 0, 0],
    "negative": [90, -5, 60],
}
HANDLER_CASES = [(kind, dtypes, "int32") for kind in ("gmm", "tgmm") for dtypes in DTYPES]
HANDLER_CASES += [(kind, DTYPES[0], "int64") for kind in ("gmm", "tgmm")]


@pytest.mark.parametrize("kind,dtypes,size_type", HANDLER_CASES,
                         ids=[f"{k}-{'-'.join(d)}-{s}" for k, d, s in HANDLER_CASES])
def test_gpu_handlers_match_numpy(cuda_kernels, kind: str, dtypes, size_type: str) -> None:
    import jax
    import jax.numpy as jnp

    lhs_t, rhs_t, out_t = (jnp.dtype(d) for d in dtypes)
    m, k, n = 200, 72, 130  # none a multiple of the 64 x 64 x 16 tiles
    rng = np.random.default_rng(7)
    lhs = jnp.asarray(rng.standard_normal((m, k), dtype=np.float32)).astype(lhs_t)
    tol = dict(rtol=1e-2, atol=5e-2) if out_t == jnp.bfloat16 else dict(rtol=1e-4, atol=1e-4)
    for groups, layout in GROUPS.items():
        sizes = np.asarray(layout, dtype=size_type)
        g = len(sizes)
        if kind == "gmm":
            rhs = jnp.asarray(rng.standard_normal((g, k, n), dtype=np.float32)).astype(rhs_t)
            out_shape, target, ref = (m, n), "hlo_passes_gmm_cuda", _reference_gmm
        else:
            rhs = jnp.asarray(rng.standard_normal((m, n), dtype=np.float32)).astype(rhs_t)
            out_shape, target, ref = (g, k, n), "hlo_passes_tgmm_cuda", _reference_tgmm
        with jax.enable_x64(size_type == "int64"):
            gs = jnp.asarray(sizes)
            assert gs.dtype == size_type
            call = jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(out_shape, out_t))
            result = jax.jit(call)(lhs, rhs, gs)
            assert result.devices() == {jax.devices("cuda")[0]}
            got = np.asarray(result.astype(jnp.float32))
        want = ref(np.asarray(lhs.astype(jnp.float32)), np.asarray(rhs.astype(jnp.float32)), sizes)
        np.testing.assert_allclose(got, want, **tol, err_msg=f"{target} groups {groups}={layout}")


def test_gpu_handlers_reject_bad_shapes(cuda_kernels) -> None:
    import jax
    import jax.numpy as jnp

    call = jax.ffi.ffi_call("hlo_passes_gmm_cuda", jax.ShapeDtypeStruct((8, 5), jnp.float32))
    with pytest.raises(Exception, match=r"expected lhs\[m,k\], rhs\[g,k,n\]"):
        jax.block_until_ready(jax.jit(call)(jnp.ones((8, 3)), jnp.ones((2, 4, 5)), jnp.ones((2,), jnp.int32)))


GPU_SPECS: dict[str, ProgramSpec] = {
    "fused-forward": ProgramSpec(variant="fused", num_devices=1),
    "concat-grad": ProgramSpec(variant="concat", mode="grad", num_devices=1),
    "concat-grad-bf16": ProgramSpec(variant="concat", mode="grad", num_devices=1, cfg=MoEConfig(dtype="bfloat16")),
    "fused-scan": ProgramSpec(variant="fused", mode="scan", num_devices=1),
}
GPU_CASES = [(name, dialect) for name in GPU_SPECS for dialect in DIALECTS]


@pytest.mark.parametrize("name,dialect", GPU_CASES, ids=[f"{n}-{d}" for n, d in GPU_CASES])
def test_lowered_moe_runs_on_gpu(cuda_kernels, name: str, dialect: str) -> None:
    import jax

    from hlo_passes import runtime

    spec = GPU_SPECS[name]
    # jax's own result, with f32 matmuls at full precision (no TF32), is the reference.
    with jax.default_matmul_precision("highest"):
        want = [np.asarray(a, dtype=np.float32) for a in jax.tree.leaves(moe.run(spec))]
    module = run_passes(hlo_passes.parse(moe.lower(spec, platforms=("cuda",)).as_text(dialect=dialect))).module
    records = lower_gmms(module, "gpu-ffi", "cuda")
    assert records and all(r.lowered for r in records)
    exe = runtime.compile_text(module.to_text(), num_devices=1, devices=jax.devices("cuda")[:1])
    assert gpu_ffi.TARGETS["gmm"] in exe.compiled_text
    got = [np.asarray(a, dtype=np.float32) for a in exe.run(*moe.host_inputs(spec))]
    tol = tolerance(spec.cfg) if spec.cfg.dtype == "bfloat16" else dict(rtol=1e-4, atol=1e-4)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tol)


# ---- hlo_passes.jit(kernel="gpu-ffi") ---------------------------------------------


def _ragged_dot_args():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((96, 40), dtype=np.float32)
    w = rng.standard_normal((3, 40, 24), dtype=np.float32)
    return x, w, np.asarray([30, 0, 50], np.int32)


def test_jit_gpu_ffi_without_cuda_falls_back_naming_what_is_missing() -> None:
    import jax

    if _kernels_gpu().unavailable_reason(need_device=True) is None:
        pytest.skip("a CUDA device is present: the GPU run is tested instead")
    args = _ragged_dot_args()
    f = hlo_passes.jit(jax.lax.ragged_dot, kernel="gpu-ffi")
    with pytest.warns(RewriteFallbackWarning, match="nvcc|CUDA device"):
        got = f(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.lax.ragged_dot(*args)), rtol=1e-5, atol=1e-5)


def test_jit_gpu_ffi_runs_on_gpu(cuda_kernels) -> None:
    import warnings

    import jax

    args = _ragged_dot_args()
    f = hlo_passes.jit(jax.lax.ragged_dot, kernel="gpu-ffi")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RewriteFallbackWarning)
        got = np.asarray(f(*args))
    lowered = f.lower(*args)
    assert lowered.gmm_lowerings and all(g.lowered and g.kernel == "gpu-ffi" for g in lowered.gmm_lowerings)
    np.testing.assert_allclose(got, _reference_gmm(*args), rtol=1e-4, atol=1e-4)


# ---- the fused expert FFN (MOE005 priced for GPU) ---------------------------------

# (form, mode, dialect, dtype, experts): every form, forward and remat training step, f32 and bf16.
FFN_GPU_CASES = [("gate_first", "forward", "hlo", "float32", 8), ("up_first", "forward", "stablehlo", "bfloat16", 64),
                 ("pair", "forward", "hlo", "bfloat16", 8), ("pair", "remat", "stablehlo", "float32", 16),
                 ("gate_first", "remat", "hlo", "bfloat16", 64)]


@pytest.mark.parametrize("form,mode,dialect,dtype,experts", FFN_GPU_CASES,
                         ids=["-".join(map(str, c)) for c in FFN_GPU_CASES])
def test_moe_ffn_fusion_runs_on_gpu(cuda_kernels, form: str, mode: str, dialect: str, dtype: str,
                                    experts: int) -> None:
    """MOE005 priced for GPU replaces the expert FFN by one call of the CUDA fused-FFN kernel; the
    rewritten program runs on the GPU equal to the original (XLA:GPU's own ragged-dots, f32 at
    full precision: no TF32) at the compute type's rounding; rows past the groups stay +0."""
    import jax
    import jax.numpy as jnp

    from examples import moe_ffn
    from hlo_passes import runtime
    from hlo_passes.rewrites.moe_ffn_fusion import GPU_FFN_TARGETS

    jdtype = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}[dtype]
    args = moe_ffn.inputs(form, dtype=jdtype, experts=experts)
    with jax.default_matmul_precision("highest"):
        text = jax.jit(moe_ffn.function(form, mode)).trace(*args).lower(
            lowering_platforms=("cuda",)).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), ["moe-ffn-fusion"], platform="gpu")
    assert [(s.form, s.rewritten) for s in result.sites] == [(form, True)]
    devices = jax.devices("cuda")[:1]
    want_exe = runtime.compile_text(text, num_devices=1, devices=devices)
    got_exe = runtime.compile_text(result.module.to_text(), num_devices=1, devices=devices)
    assert GPU_FFN_TARGETS[form] in got_exe.compiled_text
    want = [np.asarray(a, dtype=np.float32) for a in jax.tree.leaves(want_exe.run(*args))]
    got = [np.asarray(a, dtype=np.float32) for a in jax.tree.leaves(got_exe.run(*args))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(MoEConfig(dtype=dtype)))
    if mode == "forward":
        used = int(np.sum(args[1]))
        assert (got[0][used:] == 0).all() and not np.signbit(got[0][used:]).any()


def test_jit_moe_ffn_fusion_on_gpu(cuda_kernels) -> None:
    """``hlo_passes.jit(passes=["MOE005"], kernel="auto")`` on the GPU prices for it: the FFN becomes
    the CUDA kernel's call (the hook registers the CUDA handlers it reads), equal to jax's own
    result.  (With the default kernel, XLA's, the rule cannot act, and the jit says so.)"""
    import warnings

    import jax

    from examples import moe_ffn
    from hlo_passes.rewrites.moe_ffn_fusion import GPU_FFN_TARGETS

    fn = moe_ffn.function("pair")
    args = moe_ffn.inputs("pair", experts=4, tokens=64, embed=32, mlp=48)
    with jax.default_matmul_precision("highest"):
        want = np.asarray(jax.jit(fn)(*args))
        jitted = hlo_passes.jit(fn, passes=["MOE005"], kernel="auto")
        with warnings.catch_warnings():
            warnings.simplefilter("error", RewriteFallbackWarning)
            got = np.asarray(jitted(*args))
        low = jitted.lower(*args)
    assert [(s.form, s.rewritten) for s in low.result.sites] == [("pair", True)]
    assert GPU_FFN_TARGETS["pair"] in low.as_text()
    np.testing.assert_allclose(got, want, **tolerance(MoEConfig()))
