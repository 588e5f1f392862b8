"""MOE005 moe-ffn-fusion: the expert FFN (GMM, silu-gated activation, GMM) as one kernel call.

The programs are MoE FFNs as libraries write them (``examples/moe_ffn.py``: prefused weight with
the gate or the up half first, the gate/up pair; forward, training step, training step under
``jax.checkpoint``), the sharded programs of ``examples/moe.py`` (explicit ``all_gather`` in a
shard_map, or gathers the partitioner inserts) and the rematerialized FSDP training steps of
``examples/moe_remat.py``.  Each is lowered for TPU (the GMMs stay ragged-dots), rewritten with
sites priced for CPU, every remaining ragged-dot lowered to the cpu-ffi kernel, compiled with
XLA and run: the rewritten program must compute the original's numbers at the rounding of its
compute type (``moe_cases.tolerance``).  The kernel itself is checked against this project's
two-GMM CPU path and jax's ``ragged_dot``.  Priced for TPU the rule splices in the Pallas
kernel's ``tpu_custom_call`` (checked as text, by XLA's and MLIR's parsers); the same kernel in
Pallas interpret mode, put in its place, runs the rewritten program on CPU, equal to the
original's numbers.  ``hlo_passes.jit`` prices for the backend it compiles for: on CPU it fuses.
"""
from __future__ import annotations

import base64
import dataclasses
import functools
import json
import re
import subprocess
from pathlib import Path
from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo_passes
import hlo_passes.kernels as kernels
from examples import moe, moe_ffn, moe_remat
from hlo_passes import jax_hook, runtime
from hlo_passes.gmm import ffn_kernel, pallas_ffn
from hlo_passes.lint import lint_module
from hlo_passes.lowering import lower_gmms, pallas_tpu
from hlo_passes.passes import prescan, run_passes
from hlo_passes.rewrites.builtin import builtin_rules
from hlo_passes.rewrites.moe_ffn_fusion import FFN_TARGETS, GPU_FFN_TARGETS, MoeFfnFusion
from cli_runner import script
from moe_cases import check_parsers, tolerance, tpu_kernels

PASS = "moe-ffn-fusion"
CODE = "MOE005"
ROOT = Path(__file__).resolve().parent.parent
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}
# (dtype, experts): f32 at the smallest expert count, bf16 at the largest.
SIZES = [("float32", 8), ("bfloat16", 64)]


def _tol(dtype: str) -> dict:
    return tolerance(moe.MoEConfig(dtype=dtype))


def rewrite(text: str):
    return run_passes(hlo_passes.parse(text), [PASS], platform="cpu")


def run_cpu(text: str, args, num_devices: int = 1) -> list[np.ndarray]:
    """``text`` with every ragged-dot lowered to the cpu-ffi kernel, compiled and run (as f32)."""
    module = hlo_passes.parse(text)
    records = lower_gmms(module, "cpu-ffi")
    lowered = module.to_text()
    assert "ragged_dot" not in lowered and "ragged-dot(" not in lowered, [str(r) for r in records]
    exe = runtime.compile_text(lowered, num_devices=num_devices)
    return [np.asarray(a).astype(np.float32) for a in jax.tree.leaves(exe.run(*args))]


def assert_same(want: list[np.ndarray], got: list[np.ndarray], dtype: str) -> None:
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.shape == g.shape
        np.testing.assert_allclose(g, w, **_tol(dtype))


@functools.lru_cache(maxsize=None)
def lowered(name: str, mode: str, dialect: str, dtype: str = "float32", experts: int = 8) -> str:
    return moe_ffn.lower(name, mode, dialect, dtype=DTYPES[dtype], experts=experts)


# ---- the kernel ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,experts", SIZES + [("float32", 64), ("bfloat16", 8)])
@pytest.mark.parametrize("form", moe_ffn.FORMS)
def test_kernel_matches_the_two_gmm_path_and_ragged_dot(form: str, dtype: str, experts: int) -> None:
    """One kernel against this project's two-GMM CPU path (the same GMM numerics: bf16 differs in
    at most a few last places) and against jax's ragged_dot, with an empty expert and padding
    rows past sum(group_sizes), which come out +0."""
    x, gs, *weights = moe_ffn.inputs(form, experts=experts, tokens=700, embed=96, mlp=160, dtype=DTYPES[dtype])
    up_first = form == "up_first"
    if form == "pair":
        wg, wu, wo = weights
        fused = jax.jit(lambda x, gs, wg, wu, wo: kernels.moe_ffn(x, wg, wo, gs, w_up=wu))
        two = jax.jit(lambda x, gs, wg, wu, wo: kernels.gmm(jax.nn.silu(kernels.gmm(x, wg, gs))
                                                             * kernels.gmm(x, wu, gs), wo, gs))
    else:
        fused = jax.jit(lambda x, gs, w, wo: kernels.moe_ffn(x, w, wo, gs, up_first=up_first))

        def two_gmm(x, gs, w, wo):
            h = kernels.gmm(x, w, gs)
            f = wo.shape[1]
            gate, up = (h[:, f:], h[:, :f]) if up_first else (h[:, :f], h[:, f:])
            return kernels.gmm(jax.nn.silu(gate) * up, wo, gs)
        two = jax.jit(two_gmm)
    reference = jax.jit(moe_ffn.function(form))
    got = np.asarray(fused(x, gs, *weights))
    assert got.dtype == np.dtype(DTYPES[dtype])
    got = got.astype(np.float32)
    for want in (two(x, gs, *weights), reference(x, gs, *weights)):
        np.testing.assert_allclose(got, np.asarray(want).astype(np.float32), **_tol(dtype))
    if dtype == "bfloat16":  # the same rounding op by op as the unfused program: nearly every element equal
        assert np.mean(got != np.asarray(two(x, gs, *weights)).astype(np.float32)) < 1e-3
    used = int(gs.sum())
    assert used < got.shape[0] and (got[used:] == 0).all() and not np.signbit(got[used:]).any()


@pytest.mark.parametrize("dtype,experts", SIZES)
@pytest.mark.parametrize("form", moe_ffn.FORMS)
def test_pallas_kernel_in_interpret_mode(form: str, dtype: str, experts: int) -> None:
    """The TPU kernel (``gmm.pallas_ffn``), run in Pallas's interpret mode, against the unfused
    program on jax's ragged_dot; rows past the groups +0."""
    from hlo_passes.gmm.pallas_ffn import moe_ffn as pallas_ffn

    x, gs, *weights = (jnp.asarray(a) for a in moe_ffn.inputs(form, experts=experts, tokens=300, embed=64,
                                                              mlp=96, dtype=DTYPES[dtype]))
    want = np.asarray(jax.jit(moe_ffn.function(form))(x, gs, *weights)).astype(np.float32)
    if form == "pair":
        got = pallas_ffn(x, weights[0], weights[2], gs, w_up=weights[1], interpret=True)
    else:
        got = pallas_ffn(x, weights[0], weights[1], gs, up_first=form == "up_first", interpret=True)
    assert got.dtype == x.dtype
    got = np.asarray(got).astype(np.float32)
    np.testing.assert_allclose(got, want, **_tol(dtype))
    used = int(gs.sum())
    assert (got[used:] == 0).all() and not np.signbit(got[used:]).any()


def test_kernel_rejects_bad_shapes() -> None:
    x, gs, w, wo = moe_ffn.inputs("gate_first", experts=4, tokens=16, embed=8, mlp=4)
    with pytest.raises(ValueError, match="moe_ffn: expected"):
        kernels.moe_ffn(x, w[..., :6], wo, gs)


# ---- the rule on single-device programs --------------------------------------------------

CASES = [(n, m, d, dt, e) for n in moe_ffn.FORMS for m in ("forward", "remat") for d in ("hlo", "stablehlo")
         for dt, e in SIZES]


@pytest.mark.parametrize("name,mode,dialect,dtype,experts", CASES)
def test_fused_and_executed_equal(name: str, mode: str, dialect: str, dtype: str, experts: int) -> None:
    text = lowered(name, mode, dialect, dtype, experts)
    result = rewrite(text)
    assert [(s.form, s.rewritten) for s in result.sites] == [(name, True)]
    assert result.near_misses == []
    site = result.sites[0]
    assert site.gmm_launches_saved == 1 and site.copies_removed == site.details.intermediate_bytes > 0
    new_text = result.module.to_text()
    after = hlo_passes.parse(new_text, validate=True)
    after.verify()
    assert FFN_TARGETS[name] in new_text
    if mode == "forward":  # the whole program is the FFN: no GMM left
        assert "ragged_dot" not in new_text and "ragged-dot(" not in new_text
    assert not any(s.rewritten for s in rewrite(new_text).sites)
    args = moe_ffn.inputs(name, dtype=DTYPES[dtype], experts=experts)
    assert_same(run_cpu(text, args), run_cpu(new_text, args), dtype)


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
def test_two_layers_calling_one_silu_function(dialect: str) -> None:
    """Two FFN layers, unrolled: jax lowers both silus as calls of one function, which stays until
    the second site is fused (StableHLO then drops it)."""
    ffn = moe_ffn.ffn("gate_first")
    x, gs, w, wo = moe_ffn.inputs("gate_first")
    args = (x, gs, w, wo, w * 0.5, wo * 2)
    text = jax.jit(lambda x, gs, w, wo, w2, wo2: ffn(x + ffn(x, gs, w, wo), gs, w2, wo2)).trace(*args).lower(
        lowering_platforms=("tpu",)).as_text(dialect=dialect)
    result = rewrite(text)
    assert [(s.form, s.rewritten) for s in result.sites] == [("gate_first", True)] * 2
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    if dialect == "stablehlo":
        assert "@silu" not in new_text
    assert_same(run_cpu(text, args), run_cpu(new_text, args), "float32")


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("name", moe_ffn.FORMS)
def test_training_step_that_saves_the_activations_is_refused(name: str, dialect: str) -> None:
    """Without remat the backward reads the forward's up-projection and activation: fusing the
    forward would compute them twice.  Refused at the backward's reader, once."""
    text = lowered(name, "grad", dialect)
    result = rewrite(text)
    assert result.sites == []
    assert [m.check for m in result.near_misses] == ["ffn-intermediate-users"]
    assert result.module.to_text() == text


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("name", list(moe_ffn.NEAR_MISSES))
def test_near_misses_refused(name: str, dialect: str) -> None:
    dtype = "bfloat16" if name == "mixed_precision" else "float32"
    text = lowered(name, "forward", dialect, dtype)
    result = rewrite(text)
    assert result.sites == []
    assert [m.check for m in result.near_misses] == [moe_ffn.NEAR_MISSES[name]]
    assert result.module.to_text() == text
    for platform in (None, "cpu"):
        assert [f for f in lint_module(hlo_passes.parse(text), platform=platform) if f.rule == CODE] == []


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("name", moe_ffn.NEGATIVE)
def test_negative_controls(name: str, dialect: str) -> None:
    text = lowered(name, "forward", dialect)
    result = rewrite(text)
    assert result.sites == [] and result.near_misses == []
    for platform in (None, "cpu"):
        findings = lint_module(hlo_passes.parse(text), platform=platform, explain=True)
        assert [f for f in findings if f.rule == CODE] == []


# ---- sharded programs: explicit and partitioner-inserted gathers -------------------------

SHARDED = [moe.ProgramSpec(variant=v, form=f, mode=m, cfg=moe.MoEConfig(experts=8, dtype=dt))
           for v, f, m, dt in [("fused", "explicit", "forward", "float32"), ("fused", "implicit", "forward", "float32"),
                               ("two_gmm", "explicit", "forward", "bfloat16"),
                               ("two_gmm", "implicit", "forward", "float32"),
                               ("concat", "explicit", "scan", "float32"), ("concat", "implicit", "forward", "bfloat16")]]


@pytest.mark.parametrize("spec", SHARDED, ids=lambda s: s.name)
def test_sharded_programs_fused_and_executed_equal(spec: moe.ProgramSpec) -> None:
    text = moe.lower(spec, platforms=("tpu",)).as_text()
    result = rewrite(text)
    layers = 1  # lax.scan's body holds one FFN
    want_form = "pair" if spec.variant == "two_gmm" else "gate_first"
    assert [(s.form, s.rewritten) for s in result.sites] == [(want_form, True)] * layers
    assert result.near_misses == []
    args = moe.host_inputs(spec)
    assert_same(run_cpu(text, args, spec.num_devices), run_cpu(result.module.to_text(), args, spec.num_devices),
                spec.cfg.dtype)


# (layout, gather form, dtype, experts): every layout and form in f32; bf16 at E 8 and 32.
REMAT_STEPS = [(la, f, "float32", 16) for la in moe_remat.LAYOUTS for f in moe_remat.FORMS] + [
    ("pair", "explicit", "bfloat16", 32), ("prefused", "implicit", "bfloat16", 8)]


@functools.lru_cache(maxsize=None)
def remat_step(layout: str, form: str, dtype: str = "float32", experts: int = 16, mlp: int = 32):
    """A rematerialized FSDP training step of ``examples/moe_remat.py``: (TPU text, host inputs)."""
    fn, args = moe_remat.build(layout, form, "mesh2", moe.MoEConfig(experts=experts, mlp=mlp, dtype=dtype))
    return fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text(), [np.asarray(a) for a in args]


@pytest.mark.parametrize("layout,form,dtype,experts", REMAT_STEPS)
def test_rematerialized_fsdp_training_steps(layout: str, form: str, dtype: str, experts: int) -> None:
    """Trainers' remat: the forward FFN is fused, the recomputed one feeding the backward is not
    (its products are read by the backward's GMMs); loss and gradients unchanged."""
    text, host = remat_step(layout, form, dtype, experts)
    result = rewrite(text)
    assert [s.rewritten for s in result.sites] == [True] and result.near_misses == []
    assert_same(run_cpu(text, host, 8), run_cpu(result.module.to_text(), host, 8), dtype)


# ---- platforms, entry points, listing ------------------------------------------------------

def test_each_platform_emits_its_kernel_or_holds_back() -> None:
    """CPU: the FFI call; GPU: the CUDA kernel's FFI call; TPU: the Pallas kernel where Mosaic can
    tile the shapes (the pair at any F, the prefused forms at F a multiple of 128), held back
    otherwise.  Held back, a site saves nothing there: the lint reports no finding."""
    prefused = lowered("gate_first", "forward", "stablehlo")  # F = 96
    pair = lowered("pair", "forward", "stablehlo")
    for platform, targets in (("cpu", FFN_TARGETS), ("gpu", GPU_FFN_TARGETS)):
        for form, text in (("gate_first", prefused), ("pair", pair)):
            result = run_passes(hlo_passes.parse(text), [PASS], platform=platform)
            assert [s.rewritten for s in result.sites] == [True]
            assert targets[form] in result.module.to_text()
            assert [f.rule for f in lint_module(hlo_passes.parse(text), platform=platform)] == [CODE]
    held = [("tpu", prefused, "F = 96 is no multiple of 128")]
    for platform, text, why in held:
        result = run_passes(hlo_passes.parse(text), [PASS], platform=platform)
        assert [s.rewritten for s in result.sites] == [False]
        assert why in result.sites[0].details.not_rewritten
        assert result.module.to_text() == text
        assert [f.rule for f in lint_module(hlo_passes.parse(text), platform=platform)] == []
    # At these tiny shapes (5 rows per expert) the kernel measured slower than XLA's chain.
    (site,) = run_passes(hlo_passes.parse(pair), [PASS], platform="tpu").sites
    assert not site.rewritten and "rows per expert" in site.details.not_rewritten
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        assert [s.rewritten for s in run_passes(hlo_passes.parse(pair), [PASS], platform="tpu").sites] == [True]
    # TPU (the default pricing): held back at this size, so no finding; found where the gate is off.
    assert [f.rule for f in lint_module(hlo_passes.parse(pair))] == []
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        assert [f.rule for f in lint_module(hlo_passes.parse(pair))] == [CODE]
    assert [f.rule for f in lint_module(hlo_passes.parse(prefused))] == []



@pytest.mark.parametrize(("e", "t", "d", "f", "held"), [
    (8, 16384, 2048, 1024, None),  # measured 1.14-1.16x XLA's chain on a v5e
    (8, 4096, 2048, 2048, "rows per expert"),  # measured 1.08-1.10x, the chain at half the chip's rate
    (32, 16384, 7168, 2048, None),  # DeepSeek-v3: 512 rows per expert, measured 1.42x
    (32, 4096, 7168, 2048, "rows per expert"),  # DeepSeek-v3: 128 rows per expert, 1.23x (< 1.25x)
    (16, 16384, 4096, 1536, "rows per expert"),  # Qwen3-MoE: 1.08x
    (8, 4096, 4096, 14336, None),  # Mixtral-8x7B: measured 1.45x
    (8, 16384, 4096, 14336, None),  # Mixtral-8x7B: measured 2.10x
    (64, 65536, 7168, 2048, "beyond the layers"),  # E 64 at D 7168: never timed on the chip
    (8, 16384, 4096, 28672, "beyond the layers"),  # F 28672: never timed
    (64, 4096, 2048, 1024, "rows per expert"),  # 64 rows per expert
    (8, 4096, 1024, 512, "rows per expert"),  # measured 0.76x
])
def test_tpu_speed_gate_emits_only_where_measured_faster(e: int, t: int, d: int, f: int, held: str | None) -> None:
    """On TPU the fused kernel is emitted only inside the measured range where it beat XLA's chain."""
    spec = ffn_kernel.FfnSpec("gate_first", (t, d), (e, d, 2 * f), (e, f, d), (e,), "bf16", "bf16", "s32")
    why = ffn_kernel.speed_refusal(spec)
    assert (why is None) if held is None else (why is not None and held in why)

# ---- GPU: the CUDA kernel's FFI call ------------------------------------------------------

def test_gpu_targets_are_the_cuda_kernels() -> None:
    """The rule's GPU targets are the handlers ``kernels.gpu`` builds and registers (importing it
    needs no CUDA); tests/test_lowering_gpu_ffi.py builds them with nvcc, and on a GPU runs them."""
    from hlo_passes.kernels import gpu

    assert GPU_FFN_TARGETS == gpu.GPU_MOE_FFN_TARGETS
    assert set(GPU_FFN_TARGETS.values()) <= set(gpu.TARGETS)
    # hlo_passes.jit registers the CUDA handlers when a rewritten program calls one of them.
    assert all(jax_hook._CUDA_KERNEL_CALL.search(f'"{target}"') for target in gpu.TARGETS)


@pytest.mark.parametrize("form,mode,dialect,dtype,experts", [("gate_first", "forward", "hlo", "float32", 8),
                                                              ("up_first", "remat", "stablehlo", "bfloat16", 64),
                                                              ("pair", "forward", "stablehlo", "bfloat16", 8)])
def test_gpu_emission_runs_as_the_cpu_kernel(form: str, mode: str, dialect: str, dtype: str, experts: int) -> None:
    """Priced for GPU the chain becomes one call of the CUDA kernel on the chain's operands.  Its
    contract is the CPU kernel's, so the same module with the CPU kernel's target names in place
    of the CUDA ones runs here, equal to the original: the operands, their order and layouts are
    what the kernel reads.  (On a GPU, tests/test_lowering_gpu_ffi.py runs the CUDA kernel.)"""
    text = lowered(form, mode, dialect, dtype, experts)
    result = run_passes(hlo_passes.parse(text), [PASS], platform="gpu")
    assert [(s.form, s.rewritten) for s in result.sites] == [(form, True)] and result.near_misses == []
    new_text = result.module.to_text()
    check_parsers(new_text, dialect)
    assert new_text.count(f'"{GPU_FFN_TARGETS[form]}"') == 1 and FFN_TARGETS[form] + '"' not in new_text
    served_by_cpu = new_text.replace(f'"{GPU_FFN_TARGETS[form]}"', f'"{FFN_TARGETS[form]}"')
    args = moe_ffn.inputs(form, dtype=DTYPES[dtype], experts=experts)
    assert_same(run_cpu(text, args), run_cpu(served_by_cpu, args), dtype)


def test_jit_prices_for_its_backend_and_fuses_on_cpu() -> None:
    """``hlo_passes.jit`` on CPU prices sites for CPU: MOE005 emits the CPU kernel (before, under
    the default TPU pricing, it reported the site and left it); the result equals jax's own."""
    fn = moe_ffn.function("up_first")
    args = moe_ffn.inputs("up_first", experts=4, tokens=64, embed=32, mlp=48)
    low = hlo_passes.jit(fn, passes=[CODE], kernel="auto").lower(*args)
    assert [(s.form, s.rewritten) for s in low.result.sites] == [("up_first", True)]
    assert FFN_TARGETS["up_first"] in low.as_text() and "ragged_dot" not in low.as_text()
    assert_same([np.asarray(jax.jit(fn)(*args))], [np.asarray(low.compile()(*args))], "float32")


def test_rewrite_cli_fuses_when_named_for_cpu(tmp_path: Path) -> None:
    src = tmp_path / "ffn.mlir"
    src.write_text(lowered("pair", "forward", "stablehlo"))
    # The console script where installed, else the same entry point through the module (a TPU
    # machine runs the checkout without pip install).
    tool = script("hlo-rewrite")
    named = subprocess.run([*tool, str(src), "--passes", CODE, "--platform", "cpu", "-o", str(tmp_path / "out")],
                           capture_output=True, text=True, check=False)
    assert named.returncode == 0, named.stderr
    out = (tmp_path / "out").read_text()
    assert FFN_TARGETS["pair"] in out
    args = moe_ffn.inputs("pair")
    assert_same(run_cpu(src.read_text(), args), run_cpu(out, args), "float32")
    default = subprocess.run([*tool, str(src), "--platform", "cpu", "-o", str(tmp_path / "default")],
                             capture_output=True, text=True, check=False)
    assert default.returncode == 0, default.stderr
    assert FFN_TARGETS["pair"] not in (tmp_path / "default").read_text()  # opt-in


def test_listed_found_and_one_module() -> None:
    assert [type(r) for r in builtin_rules() if r.meta.code == CODE] == [MoeFfnFusion]
    listing = subprocess.run([*script("hlo-lint"), "--list-rules"],
                             capture_output=True, text=True, check=True)
    assert re.search(rf"^{CODE}\s+{PASS}\s", listing.stdout, re.M), listing.stdout
    own = {ROOT / "hlo_passes" / "rewrites" / "moe_ffn_fusion.py", ROOT / "hlo_passes" / "checks.py"}
    for path in (ROOT / "hlo_passes").rglob("*.py"):
        if path not in own:
            body = path.read_text(encoding="utf-8")
            assert CODE not in body and PASS not in body and "moe_ffn_fusion" not in body, path
    for dialect in ("hlo", "stablehlo"):
        assert PASS in prescan.rules_that_may_fire(lowered("gate_first", "forward", dialect))


# ---- TPU: the Pallas kernel ------------------------------------------------------------
# Tiny shapes: interpret mode runs the kernel's grid as loops.  F = 128: Mosaic cuts the prefused
# weight's halves into [D, F] blocks.
TPU_SIZES = {"tokens": 40, "embed": 32, "mlp": 128}
# Each form in f32 (HLO) and bf16 (StableHLO), at E = 8; E = 64 for the up-first half order (the
# kernel alone runs every form at E = 64: test_pallas_kernel_in_interpret_mode).
TPU_CASES = [(form, dialect, dtype, 64 if (form, dtype) == ("up_first", "bfloat16") else 8)
             for form in moe_ffn.FORMS for dialect, dtype in (("hlo", "float32"), ("stablehlo", "bfloat16"))]
_TYPES = {"f32": "float32", "bf16": "bfloat16", "s32": "int32"}


def rewrite_for_tpu(text: str):
    """Priced for TPU, the measured-speed gate off: these tiny shapes test the splice itself."""
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        return run_passes(hlo_passes.parse(text), [PASS], platform="tpu")


def _dims_and_types(values) -> list[tuple[tuple[int, ...], str]]:
    return [(v.shape.dims, _TYPES[v.shape.element_type]) for v in values]


def check_tpu_kernel(module: hlo_passes.Module, form: str, args) -> None:
    """One call of the spliced kernel on the chain's operands, its result the chain's; in it the
    ``tpu_custom_call`` of ``pallas_ffn`` (its name in the Mosaic body, StableHLO also in
    ``kernel_name``) on the group offsets, the tokens padded to the tile, the weights."""
    (call,) = [i for i in module.instructions() if i.opcode in ("call", "func.call")
               and ffn_kernel.SPLICED_FFN.match(i.called_computations[0].name)]
    x, gs, *weights = (np.asarray(a) for a in args)
    assert _dims_and_types(call.operands) == [(a.shape, a.dtype.name) for a in (x, *weights, gs)]
    n = weights[-1].shape[2]
    assert (call.shape.dims, _TYPES[call.shape.element_type]) == ((x.shape[0], n), x.dtype.name)
    (kernel,) = tpu_kernels(module)
    spec = ffn_kernel.spliced_ffn_spec(call)
    assert spec is not None and spec.form == form
    tiles = -(-x.shape[0] // spec.tile_rows)
    rows = tiles * spec.tile_rows
    experts = (weights[0].shape[0],)
    steps = (tiles + experts[0] - 1,)  # the grid's (group, tile) steps: group, tile and kind of each
    w_in = weights[:2] if form == "pair" else weights[:1] * 2  # prefused: both halves' blocks read w_in
    assert _dims_and_types(kernel.operands) == [(steps, "int32")] * 3 + [(experts, "int32")] * 2 + [
        ((rows, x.shape[1]), x.dtype.name), *((w.shape, w.dtype.name) for w in (*w_in, weights[-1]))]
    # accumulated in f32 (scratch), rounded once into the result's type
    assert (kernel.shape.dims, _TYPES[kernel.shape.element_type]) == ((rows, n), x.dtype.name)
    if module.dialect == "stablehlo":
        assert kernel.attributes.raw("kernel_name") == f'"{pallas_ffn.KERNEL_NAME}"'
    config = json.loads(kernel.attributes.raw("backend_config").strip('"').replace("\\22", '"'))
    assert pallas_ffn.KERNEL_NAME.encode() in base64.b64decode(config["custom_call_config"]["body"])


@pytest.mark.parametrize("form,dialect,dtype,experts", TPU_CASES)
def test_pallas_kernel_emitted_for_tpu_and_run_in_interpret_mode(form: str, dialect: str, dtype: str,
                                                                  experts: int) -> None:
    text = moe_ffn.lower(form, "forward", dialect, dtype=DTYPES[dtype], experts=experts, **TPU_SIZES)
    result = rewrite_for_tpu(text)
    assert [(s.form, s.rewritten) for s in result.sites] == [(form, True)] and result.near_misses == []
    new_text = result.module.to_text()
    check_parsers(new_text, dialect)
    assert "ragged_dot" not in new_text and "ragged-dot(" not in new_text and "silu" not in new_text
    after = hlo_passes.parse(new_text)
    args = moe_ffn.inputs(form, dtype=DTYPES[dtype], experts=experts, **TPU_SIZES)
    check_tpu_kernel(after, form, args)
    assert rewrite_for_tpu(new_text).sites == []
    # On CPU: the same kernel in Pallas interpret mode in its place.
    assert pallas_tpu.to_interpret(after) == 1 and tpu_kernels(after) == []
    assert_same(run_cpu(text, args), run_cpu(after.to_text(), args), dtype)


@pytest.mark.parametrize("form,dialect,dtype,experts", [("pair", "stablehlo", "float32", 8),
                                                         ("gate_first", "hlo", "bfloat16", 64),
                                                         ("up_first", "stablehlo", "bfloat16", 8)])
def test_pallas_kernel_in_a_rematerialized_training_step(form: str, dialect: str, dtype: str, experts: int) -> None:
    """Under jax.checkpoint the forward FFN becomes the Pallas kernel, the recomputed one stays;
    loss and gradients unchanged (interpret mode on CPU)."""
    sizes = dict(TPU_SIZES, dtype=DTYPES[dtype], experts=experts)
    text = moe_ffn.lower(form, "remat", dialect, **sizes)
    result = rewrite_for_tpu(text)
    assert [(s.form, s.rewritten) for s in result.sites] == [(form, True)] and result.near_misses == []
    after = hlo_passes.parse(result.module.to_text())
    args = moe_ffn.inputs(form, **sizes)
    check_tpu_kernel(after, form, args)
    assert pallas_tpu.to_interpret(after) == 1
    assert_same(run_cpu(text, args), run_cpu(after.to_text(), args), dtype)


def test_pallas_kernel_in_a_sharded_program() -> None:
    """examples/moe.py's FSDP program (explicit all_gather in a shard_map, prefused weight): the
    kernel is lowered for the per-device shapes; run on 8 CPU devices in interpret mode."""
    spec = moe.ProgramSpec(variant="fused", form="explicit", mode="forward", cfg=moe.MoEConfig(experts=8, mlp=128))
    text = moe.lower(spec, platforms=("tpu",)).as_text()
    result = rewrite_for_tpu(text)
    assert [(s.form, s.rewritten) for s in result.sites] == [("gate_first", True)] and result.near_misses == []
    after = hlo_passes.parse(result.module.to_text())
    assert len(tpu_kernels(after)) == 1 and pallas_tpu.to_interpret(after) == 1
    args = moe.host_inputs(spec)
    assert_same(run_cpu(text, args, spec.num_devices), run_cpu(after.to_text(), args, spec.num_devices),
                spec.cfg.dtype)


@pytest.mark.parametrize("layout,form,dtype", [("pair", "implicit", "float32"), ("prefused", "explicit", "bfloat16")])
def test_pallas_kernel_in_a_rematerialized_fsdp_training_step(layout: str, form: str, dtype: str) -> None:
    """examples/moe_remat.py's training steps (gathers the partitioner inserts, or explicit ones in
    a shard_map; F = 128 so Mosaic can cut the prefused halves): the forward FFN becomes the
    Pallas kernel; on 8 CPU devices in interpret mode, loss and gradients unchanged."""
    text, host = remat_step(layout, form, dtype, 8, 128)
    result = rewrite_for_tpu(text)
    assert [s.rewritten for s in result.sites] == [True] and result.near_misses == []
    after = hlo_passes.parse(result.module.to_text())
    assert len(tpu_kernels(after)) == 1 and pallas_tpu.to_interpret(after) == 1
    assert_same(run_cpu(text, host, 8), run_cpu(after.to_text(), host, 8), dtype)


def test_tpu_refusals_of_the_pallas_kernel() -> None:
    """What the rule holds back on TPU, from the shapes alone (nothing lowered)."""
    ok = ffn_kernel.FfnSpec("gate_first", (256, 512), (8, 512, 256), (8, 128, 512), (8,), "bf16", "bf16", "s32")
    narrow = dataclasses.replace(ok, w_in=(8, 512, 192), w_out=(8, 96, 512))
    assert "F = 96 is no multiple of 128" in (ffn_kernel.tpu_refusal(narrow) or "")
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        assert ffn_kernel.tpu_refusal(dataclasses.replace(narrow, form="pair", w_in=(8, 512, 96))) is None
    assert "int32" in (ffn_kernel.tpu_refusal(dataclasses.replace(ok, groups_dtype="s64")) or "")
    assert "one type" in (ffn_kernel.tpu_refusal(dataclasses.replace(ok, weight_dtype="f32")) or "")
    with mock.patch.object(ffn_kernel, "SPEED_GATE", False):
        assert ffn_kernel.tpu_refusal(ok) is None
        # Model-sized layers fit (F streamed in blocks; the scoped VMEM limit raised to what they take).
        for d, f, e in ((7168, 2048, 32), (4096, 1536, 16), (4096, 14336, 8)):
            layer = dataclasses.replace(ok, x=(16384, d), w_in=(e, d, 2 * f), w_out=(e, f, d), groups=(e,))
            assert ffn_kernel.tpu_refusal(layer) is None
        big = dataclasses.replace(ok, x=(4096, 65536), w_in=(8, 65536, 4096), w_out=(8, 2048, 65536))
        assert "VMEM" in (ffn_kernel.tpu_refusal(big) or "")
    # Priced by measurement: slower than XLA's chain below 512 rows per expert (here 32).
    assert "rows per expert" in (ffn_kernel.tpu_refusal(ok) or "")
    fast = dataclasses.replace(ok, x=(16384, 2048), w_in=(8, 2048, 2048), w_out=(8, 1024, 2048))
    assert ffn_kernel.tpu_refusal(fast) is None
    assert "rows per expert" in (ffn_kernel.tpu_refusal(dataclasses.replace(
        fast, w_in=(64, 2048, 2048), w_out=(64, 1024, 2048), groups=(64,))) or "")
