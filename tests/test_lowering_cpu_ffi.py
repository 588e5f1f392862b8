"""The cpu-ffi lowering of grouped matmuls, executed.

Ragged-dots lowered for TPU (jax keeps ``chlo.ragged_dot`` / ``ragged-dot``
there) in every form of dimension numbers jax writes or accepts are lowered
to the ``hlo_passes_gmm`` / ``hlo_passes_tgmm`` custom calls, compiled and run
by XLA:CPU through the FFI handlers and compared with ``jax.jit`` of the same
function on CPU; so are the examples' MoE programs (forward, gradient, scan,
router; f32, bf16, empty groups) after the rewrites, the CLI's output and
``hlo_passes.jit(kernel=...)``.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax.lax import RaggedDotDimensionNumbers

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from gmm_cases import check_matches_jax, jax_reference, platform_text, rewrite_and_lower, to_cpu_ffi
from hlo_passes import _jax_compat as compat
from hlo_passes import cli, lowering, runtime
from hlo_passes.lowering import KernelUnavailableError, lower_gmms, resolve_kernel
from moe_cases import DIALECTS, run_text
from programs import REPO_ROOT

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing

TAG = {"hlo_passes.rule": "gmm-lowering"}


def _dn(lc, rc, ragged, group, lb=(), rb=()) -> RaggedDotDimensionNumbers:
    return RaggedDotDimensionNumbers(
        dot_dimension_numbers=((list(lc), list(rc)), (list(lb), list(rb))),
        lhs_ragged_dimensions=list(ragged), rhs_group_dimensions=list(group),
    )


# 12 rows in groups of 5, 0 and 4: an empty group, and 3 rows past the last group.
GROUPS = np.array([5, 0, 4], np.int32)

# name: lhs shape, rhs shape, dimension numbers, canonical form, ops inserted (transposes + reshapes)
FORMS = {
    "gmm": ((12, 8), (3, 8, 4), _dn([1], [1], [0], [0]), "gmm", 0),
    # jax's gradient of ragged_dot w.r.t. lhs: rhs contracted on its last dimension.
    "gmm_rhs_nk": ((12, 8), (3, 4, 8), _dn([1], [2], [0], [0]), "gmm", 1),
    "gmm_lhs_km": ((8, 12), (3, 8, 4), _dn([0], [1], [1], [0]), "gmm", 1),
    "gmm_group_middle": ((12, 8), (8, 3, 4), _dn([1], [0], [0], [1]), "gmm", 1),
    "gmm_two_contracting": ((12, 2, 4), (3, 2, 4, 5), _dn([1, 2], [1, 2], [0], [0]), "gmm", 2),
    "gmm_two_free": ((12, 8), (3, 8, 2, 3), _dn([1], [1], [0], [0]), "gmm", 2),
    # jax's gradient w.r.t. rhs: the ragged dimension is contracted.
    "tgmm": ((12, 8), (12, 4), _dn([0], [0], [0], []), "tgmm", 0),
    "tgmm_rows_last": ((8, 12), (4, 12), _dn([1], [1], [1], []), "tgmm", 2),
    "tgmm_two_free": ((12, 2, 4), (12, 4), _dn([0], [0], [0], []), "tgmm", 2),
}


def _ragged(dn: RaggedDotDimensionNumbers, preferred=None):
    def f(lhs, rhs, gs):
        return jax.lax.ragged_dot_general(lhs, rhs, gs, dn, preferred_element_type=preferred)
    return f


def _inputs(lhs_shape, rhs_shape, lhs_dtype=np.float32, rhs_dtype=np.float32, groups=GROUPS, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(lhs_shape).astype(lhs_dtype), rng.standard_normal(rhs_shape).astype(rhs_dtype),
            groups)


def _tpu_text(f, args, dialect: str, debug_info: bool = False) -> str:
    return jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)).as_text(dialect=dialect, debug_info=debug_info)


def _run_one_device(text: str, args) -> list[np.ndarray]:
    return [np.asarray(a) for a in runtime.compile_text(text, num_devices=1).run(*args)]


def _created(module: hlo_passes.Module) -> list[hlo_passes.ir.Instruction]:
    return [i for i in module.instructions()
            if i.attributes.get("frontend_attributes", {}).get("hlo_passes.rule") == "gmm-lowering"]


def _check_valid(text: str, dialect: str) -> hlo_passes.Module:
    """Our parser and verifier, and XLA's or MLIR's own, accept the lowered text."""
    if dialect == "stablehlo":
        compat.parse_mlir(text)
    else:
        compat.print_hlo(text)
    module = hlo_passes.parse(text, validate=True)
    module.verify()
    return module


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", list(FORMS))
def test_each_form_is_lowered_and_runs_like_jax(name: str, dialect: str) -> None:
    lhs_shape, rhs_shape, dn, form, inserted = FORMS[name]
    f = _ragged(dn)
    args = _inputs(lhs_shape, rhs_shape)
    text = _tpu_text(f, args, dialect)
    module = hlo_passes.parse(text)
    (record,) = lower_gmms(module, "cpu-ffi")
    assert (record.form, record.lowered, record.kernel, record.reason) == (form, True, "cpu-ffi", None)
    assert record.location.line == next(i + 1 for i, line in enumerate(text.splitlines()) if "ragged" in line and "=" in line)
    new_text = module.to_text()
    after = _check_valid(new_text, dialect)
    created = _created(after)
    (call,) = [i for i in created if i.opcode == "custom-call"]
    assert call.attributes["custom_call_target"] == f"hlo_passes_{form}"
    others = [i.opcode for i in created if i is not call]
    assert len(others) == inserted and set(others) <= {"transpose", "reshape"}
    (got,) = _run_one_device(new_text, args)
    np.testing.assert_allclose(got, np.asarray(jax.jit(f)(*args)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "case",
    [
        # bf16 inputs accumulated and returned in f32 (preferred_element_type), both forms;
        # each case in one dialect (the forms test covers both dialects for every form).
        ("gmm", np.dtype(jnp.bfloat16), np.dtype(jnp.bfloat16), jnp.float32, "hlo"),
        ("tgmm", np.dtype(jnp.bfloat16), np.dtype(jnp.bfloat16), jnp.float32, "stablehlo"),
        ("gmm_rhs_nk", np.dtype(jnp.bfloat16), np.dtype(jnp.bfloat16), None, "stablehlo"),
        ("tgmm_rows_last", np.dtype(jnp.bfloat16), np.dtype(jnp.bfloat16), None, "hlo"),
        ("gmm", np.dtype(np.float32), np.dtype(jnp.bfloat16), None, "stablehlo"),
    ],
    ids=["gmm_bf16_f32acc", "tgmm_bf16_f32acc", "gmm_bf16", "tgmm_bf16", "gmm_f32_x_bf16"],
)
def test_bf16_operands(case) -> None:
    name, lhs_dtype, rhs_dtype, preferred, dialect = case
    lhs_shape, rhs_shape, dn, _, _ = FORMS[name]
    f = _ragged(dn, preferred)
    args = _inputs(lhs_shape, rhs_shape, lhs_dtype, rhs_dtype)
    new_text, _ = to_cpu_ffi(_tpu_text(f, args, dialect))
    (got,) = _run_one_device(new_text, args)
    want = np.asarray(jax.jit(f)(*args))
    assert got.dtype == want.dtype
    tol = 1e-5 if want.dtype == np.float32 else 2e-2
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=tol, atol=tol)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_s64_group_sizes(dialect: str) -> None:
    with jax.enable_x64(True):
        lhs_shape, rhs_shape, dn, _, _ = FORMS["gmm_rhs_nk"]
        f = _ragged(dn)
        args = _inputs(lhs_shape, rhs_shape, groups=GROUPS.astype(np.int64))
        text = _tpu_text(f, args, dialect)
        assert "s64[3]" in text or "tensor<3xi64>" in text
        new_text, _ = to_cpu_ffi(text)
        (got,) = _run_one_device(new_text, args)
        np.testing.assert_allclose(got, np.asarray(jax.jit(f)(*args)), rtol=1e-5, atol=1e-5)


@given(
    m=st.integers(1, 24), k=st.integers(1, 9), n=st.integers(1, 9), g=st.integers(1, 5),
    data=st.data(), which=st.sampled_from(["gmm", "gmm_rhs_nk", "tgmm"]),
)
def test_property_random_groups(m: int, k: int, n: int, g: int, data, which: str) -> None:
    """Any sizes, any group sizes (empty groups, fewer rows than the groups hold, rows left over)."""
    sizes = np.array(data.draw(st.lists(st.integers(0, m), min_size=g, max_size=g)), np.int32)
    lhs_shape, rhs_shape = {"gmm": ((m, k), (g, k, n)), "gmm_rhs_nk": ((m, k), (g, n, k)),
                            "tgmm": ((m, k), (m, n))}[which]
    f = _ragged(FORMS[which][2])
    args = _inputs(lhs_shape, rhs_shape, groups=sizes, seed=m * 100 + k)
    new_text, _ = to_cpu_ffi(_tpu_text(f, args, "hlo"))
    (got,) = _run_one_device(new_text, args)
    np.testing.assert_allclose(got, np.asarray(jax.jit(f)(*args)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_forms_no_kernel_covers_are_kept_and_reported(dialect: str) -> None:
    """A ragged-dot with batch dimensions, and one in f16, stay ragged-dots, with the reason."""
    batched = _ragged(_dn([2], [2], [1], [1], [0], [0]))
    args = _inputs((2, 12, 8), (2, 3, 8, 4), groups=np.array([[5, 0, 4], [1, 2, 3]], np.int32))
    text = _tpu_text(batched, args, dialect)
    module = hlo_passes.parse(text)
    (record,) = lower_gmms(module, "cpu-ffi")
    assert (record.form, record.lowered) == ("batched", False) and "batch" in record.reason
    assert module.to_text() == text
    assert "kept (" in str(record)

    f16 = _ragged(FORMS["gmm"][2])
    args = _inputs((12, 8), (3, 8, 4), np.float16, np.float16)
    text = _tpu_text(f16, args, dialect)
    module = hlo_passes.parse(text)
    (record,) = lower_gmms(module, "cpu-ffi")
    assert (record.form, record.lowered) == ("gmm", False) and "f16" in record.reason
    assert module.to_text() == text


def test_metadata_and_frontend_attributes_are_kept() -> None:
    """The custom call and the transposes carry the ragged-dot's metadata / location and its
    frontend attributes (MaxText's tiling hint), plus the lowering's tag."""
    lhs_shape, rhs_shape, dn, _, _ = FORMS["gmm_rhs_nk"]
    f = _ragged(dn)
    args = _inputs(lhs_shape, rhs_shape)
    hint = "128,128,128"
    for dialect in DIALECTS:
        text = _tpu_text(f, args, dialect, debug_info=True)
        if dialect == "hlo":
            text, n = re.subn(r"(ragged-dot\([^)]*\)[^\n]*)", rf'\1, frontend_attributes={{ragged_dot_tiling="{hint}"}}', text)
        else:
            text, n = re.subn(r'("chlo\.ragged_dot"\([^)]*\) <\{.*?\}>)',
                              rf'\1 {{mhlo.frontend_attributes = {{ragged_dot_tiling = "{hint}"}}}}', text)
        assert n == 1
        module = hlo_passes.parse(text)
        (source_loc,) = [i.dialect_data.get("loc") for i in module.instructions() if i.opcode == "ragged-dot"]
        (record,) = lower_gmms(module, "cpu-ffi")
        if dialect == "hlo":
            assert record.location.op_name and "ragged_dot" in record.location.op_name
        after = _check_valid(module.to_text(), dialect)
        created = _created(after)
        assert sorted(i.opcode for i in created) == ["custom-call", "transpose"]
        (call,) = [i for i in created if i.opcode == "custom-call"]
        assert call.attributes["frontend_attributes"] == {"ragged_dot_tiling": hint, **TAG}
        for op in created:
            if dialect == "hlo":
                assert "ragged_dot" in op.attributes["metadata"]["op_name"]
            else:
                assert source_loc and op.dialect_data.get("loc") == source_loc  # loc(#locN): the op's name and source line
        (got,) = _run_one_device(module.to_text(), args)
        np.testing.assert_allclose(got, np.asarray(jax.jit(f)(*args)), rtol=1e-5, atol=1e-5)


def test_kernel_choice() -> None:
    assert resolve_kernel("auto", "cpu") == "cpu-ffi"
    for platform in ("tpu", "gpu", "cuda", "rocm", None):
        assert resolve_kernel("auto", platform) == "xla"
    assert resolve_kernel("pallas", "cpu") == "pallas"
    with pytest.raises(ValueError, match="unknown kernel 'cuda'"):
        resolve_kernel("cuda")
    with pytest.raises(ValueError, match="unknown platform 'metal'"):
        resolve_kernel("auto", "metal")

    lhs_shape, rhs_shape, dn, _, _ = FORMS["gmm"]
    text = _tpu_text(_ragged(dn), _inputs(lhs_shape, rhs_shape), "hlo")
    for kernel, platform in (("xla", None), ("auto", "tpu"), ("auto", None)):
        module = hlo_passes.parse(text)
        (record,) = lower_gmms(module, kernel, platform)
        assert (record.kernel, record.lowered) == ("xla", False)
        # TPU's default keeps XLA's ragged-dot where the tile table has no faster megablox tiling.
        assert ("tile table" if platform == "tpu" else "natively") in record.reason
        assert module.to_text() == text
    module = hlo_passes.parse(text)
    assert [r.kernel for r in lower_gmms(module, "auto", "cpu")] == ["cpu-ffi"]
    assert "hlo_passes_gmm" in module.to_text()


def test_missing_backend_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setitem(lowering.BACKENDS, "gpu-ffi", "no_such_backend")
    with pytest.raises(KernelUnavailableError, match=r"kernel 'gpu-ffi' is not available: .*no_such_backend\.py is missing"):
        lower_gmms(hlo_passes.parse(_tpu_text(_ragged(FORMS["gmm"][2]), _inputs((12, 8), (3, 8, 4)), "hlo")),
                   "gpu-ffi")


def test_existing_gmm_kernels_are_kept() -> None:
    """A Pallas megablox kernel lowered for TPU keeps its kernel; it is reported, not lowered."""
    from jax.experimental.pallas.ops.tpu.megablox import gmm

    def f(x, w, gs):
        return gmm(x, w, gs, tiling=(128, 128, 128))

    args = [jax.ShapeDtypeStruct(s, d) for s, d in (((256, 128), jnp.float32), ((2, 128, 128), jnp.float32),
                                                     ((2,), jnp.int32))]
    lowered = jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",))
    for dialect in DIALECTS:
        text = lowered.as_text(dialect=dialect)
        module = hlo_passes.parse(text)
        records = lower_gmms(module, "cpu-ffi")
        assert [(r.form, r.lowered) for r in records] == [("kernel", False)]
        assert "gmm" in records[0].reason
        assert module.to_text() == text


# ---- the examples' MoE programs, lowered for TPU, rewritten, run here -------------
# (forward f32 and bf16 programs of both variants and forms: test_moe_gather_fusion.py)

MOE_PROGRAMS = [
    # The gradient rule's forms: ragged contracting (tgmm) weight gradients.
    ProgramSpec(variant="two_gmm", mesh="mesh2", mode="grad"),
    ProgramSpec(variant="concat", mesh="mesh1", form="implicit", mode="grad"),
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan"),
    ProgramSpec(variant="concat", mesh="mesh1", layer="router", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", MOE_PROGRAMS, ids=lambda s: s.name)
def test_moe_programs_lowered_for_tpu_run_like_jax(spec: ProgramSpec, dialect: str) -> None:
    """Rewritten by both rules, lowered to cpu-ffi, executed on 8 CPU devices: jax's numbers."""
    text = platform_text(spec, "tpu", dialect)
    assert moe.make_group_sizes(spec.cfg).min() == 0 or spec.layer == "router"  # an empty expert
    result, new_text, records = rewrite_and_lower(text)
    assert "moe-gather-fusion" in {s.rule for s in result.sites}
    forms = [r.form for r in records]
    if spec.mode in ("grad", "scan_grad"):
        assert "moe-gradient-fusion" in {s.rule for s in result.sites}
        assert "tgmm" in forms and "gmm" in forms
    _check_valid(new_text, dialect)
    check_matches_jax(new_text, spec)
    if dialect == "hlo":  # (one dialect is enough for the original: the programs are the same)
        # The original module, lowered the same way, computes the same numbers too.
        check_matches_jax(to_cpu_ffi(text)[0], spec)


# ---- hlo-rewrite and hlo_passes.jit ----------------------------------------------------


def test_cli_kernel_cpu_ffi_output_runs(tmp_path) -> None:
    spec = MOE_PROGRAMS[0]
    src = tmp_path / "tpu.mlir"
    src.write_text(platform_text(spec, "tpu", "stablehlo"))
    out, report = tmp_path / "cpu.mlir", tmp_path / "report.json"
    code = (
        "import sys\n"
        "from hlo_passes.cli import rewrite_main\n"
        f"rc = rewrite_main([{str(src)!r}, '--kernel', 'cpu-ffi', '-o', {str(out)!r}, '--report', {str(report)!r}])\n"
        "assert 'jax' not in sys.modules, 'hlo-rewrite imported jax'\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "ragged-dot [" in line]
    assert len(lines) == 5 and all(line.startswith(f"{src}:") and line.endswith("-> cpu-ffi") for line in lines)
    data = json.loads(report.read_text())
    assert data["kernel"] == "cpu-ffi" and data["changed"]
    assert sorted({g["form"] for g in data["gmm_lowerings"]}) == ["gmm", "tgmm"]
    assert all(g["lowered"] for g in data["gmm_lowerings"])
    # The rules' fused GMMs have no source line; they say which rule made them.
    assert sorted(g["created_by"] or "source" for g in data["gmm_lowerings"]) == [
        "moe-gather-fusion", "moe-gradient-fusion", "source", "source", "source"]
    assert all((g["location"]["line"] > 0) == (g["created_by"] is None) for g in data["gmm_lowerings"])
    check_matches_jax(out.read_text(), spec)


def test_cli_kernel_auto_and_errors(tmp_path, monkeypatch, capsys) -> None:
    src = tmp_path / "tpu.hlo"
    text = platform_text(ProgramSpec(variant="fused"), "tpu", "hlo")
    src.write_text(text)
    # auto without a platform: XLA's ragged-dot stays; the module is unchanged.
    assert cli.rewrite_main([str(src), "-o", str(tmp_path / "a.hlo")]) == 0
    assert (tmp_path / "a.hlo").read_text() == text
    assert "nothing to rewrite" in capsys.readouterr().err
    assert cli.rewrite_main([str(src), "--platform", "cpu", "-o", str(tmp_path / "b.hlo")]) == 0
    assert "-> cpu-ffi" in capsys.readouterr().err
    _, got = run_text((tmp_path / "b.hlo").read_text(), ProgramSpec(variant="fused"))
    for g, w in zip(got, jax_reference(ProgramSpec(variant="fused"))):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    monkeypatch.setitem(lowering.BACKENDS, "gpu-ffi", "no_such_backend")
    assert cli.rewrite_main([str(src), "--kernel", "gpu-ffi", "-o", str(tmp_path / "c.hlo")]) == 2
    err = capsys.readouterr().err
    assert "kernel 'gpu-ffi' is not available" in err and not (tmp_path / "c.hlo").exists()


def _moe_ffn(x, w, gs):
    h = jax.lax.ragged_dot(x, w, gs)
    f = h.shape[1] // 2
    return jax.nn.silu(h[:, :f]) * h[:, f:]


def test_jit_kernel_cpu_ffi_matches_jax_jit() -> None:
    args = _inputs((12, 8), (3, 8, 6))

    def loss(x, w, gs):
        return jnp.sum(jnp.square(_moe_ffn(x, w, gs)))

    def step(x, w, gs):
        return _moe_ffn(x, w, gs), jax.grad(loss, argnums=(0, 1))(x, w, gs)

    want = jax.tree.leaves(jax.jit(step)(*args))
    for kernel in ("cpu-ffi", "auto"):
        fast = hlo_passes.jit(step, kernel=kernel)
        got = jax.tree.leaves(fast(*args))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
        low = fast.lower(*args)
        # h, then the gradient's recomputed h, d/dx (gmm) and d/dw (tgmm).
        assert sorted(r.form for r in low.gmm_lowerings) == ["gmm", "gmm", "gmm", "tgmm"]
        assert all(r.lowered and r.kernel == "cpu-ffi" for r in low.gmm_lowerings)
        compiled = low.compile().as_text()
        assert 'custom_call_target="hlo_passes_gmm"' in compiled
        assert 'custom_call_target="hlo_passes_tgmm"' in compiled
    plain = hlo_passes.jit(step, kernel="xla").lower(*args)
    assert plain.gmm_lowerings == [] and "hlo_passes_gmm" not in plain.compile().as_text()
    with pytest.raises(ValueError, match="unknown kernel"):
        hlo_passes.jit(step, kernel="mosaic")


def test_jit_moe_training_step_on_the_kernel() -> None:
    """Both rules and the kernel in one hlo_passes.jit: jax.jit's numbers."""
    spec = ProgramSpec(variant="two_gmm", mesh="mesh1", mode="grad")
    mesh = moe.program_mesh(spec)
    fn, args = moe.program_fn(spec, mesh), moe.inputs(spec, mesh)
    fast = hlo_passes.jit(fn, kernel="cpu-ffi")
    low = fast.lower(*args)
    assert {s.rule for s in low.report} == {"moe-gather-fusion", "moe-gradient-fusion"}
    assert low.gmm_lowerings and all(r.lowered for r in low.gmm_lowerings)
    assert not low.fell_back
    got = [np.asarray(a) for a in jax.tree.leaves(fast(*args))]
    for g, w in zip(got, jax_reference(spec)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_jit_without_the_cpu_kernel(monkeypatch) -> None:
    """No kernel (no compiler): auto keeps jax's CPU program quietly; cpu-ffi falls back with a warning."""
    from hlo_passes import jax_hook

    monkeypatch.setattr(jax_hook, "KERNELS_PACKAGE", "hlo_passes.no_such_kernels")
    args = _inputs((12, 8), (3, 8, 6))
    want = np.asarray(jax.jit(_moe_ffn)(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = hlo_passes.jit(_moe_ffn)
        np.testing.assert_array_equal(np.asarray(quiet(*args)), want)
        assert quiet.lower(*args).gmm_lowerings == []
    loud = hlo_passes.jit(_moe_ffn, kernel="cpu-ffi")
    with pytest.warns(jax_hook.RewriteFallbackWarning, match="no_such_kernels"):
        got = loud(*args)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_ragged_dot_in_a_fusion_is_kept() -> None:
    """Optimized HLO: a kernel call cannot replace a ragged-dot inside a fused computation."""
    text = """HloModule m, entry_computation_layout={(f32[12,8]{1,0}, f32[3,8,4]{2,1,0}, s32[3]{0})->f32[12,4]{1,0}}

fused {
  p0 = f32[12,8]{1,0} parameter(0)
  p1 = f32[3,8,4]{2,1,0} parameter(1)
  p2 = s32[3]{0} parameter(2)
  ROOT r = f32[12,4]{1,0} ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}

ENTRY main {
  x = f32[12,8]{1,0} parameter(0)
  w = f32[3,8,4]{2,1,0} parameter(1)
  gs = s32[3]{0} parameter(2)
  ROOT f = f32[12,4]{1,0} fusion(x, w, gs), kind=kCustom, calls=fused
}
"""
    module = hlo_passes.parse(text)
    (record,) = lower_gmms(module, "cpu-ffi")
    assert not record.lowered and "fused computation" in record.reason
    assert module.to_text() == text
