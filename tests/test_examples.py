"""examples/moe.py: the three variants compute the same numbers, in every form and mode,
and lower to the shapes hlo_passes expects to find."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes.runtime import count_collectives, count_ops


@pytest.mark.parametrize("mode", ["forward", "grad", "scan"])
@pytest.mark.parametrize("form", moe.FORMS)
@pytest.mark.parametrize("mesh", moe.MESHES)
def test_variants_agree(mesh: str, form: str, mode: str) -> None:
    # f32 forward and scan must be bit-identical (check_variants_agree asserts
    # exact equality there); grads within 1e-5.
    results = moe.check_variants_agree(mesh=mesh, form=form, mode=mode)
    leaves = jax.tree.leaves(results["fused"])
    assert all(np.isfinite(np.asarray(a, np.float32)).all() for a in leaves)
    assert any(np.abs(np.asarray(a, np.float32)).max() > 0 for a in leaves)


@pytest.mark.parametrize("constraint", ["reshard", "in_specs"])
@pytest.mark.parametrize("mesh", moe.MESHES)
def test_implicit_constraint_styles_agree(mesh: str, constraint: str) -> None:
    base = moe.run(ProgramSpec(variant="fused", mesh=mesh, form="implicit"))
    for variant in moe.VARIANTS:
        got = moe.run(ProgramSpec(variant=variant, mesh=mesh, form="implicit", constraint=constraint))
        np.testing.assert_array_equal(got, base)


@pytest.mark.parametrize(
    "spec",
    [
        ProgramSpec(variant="concat"),
        ProgramSpec(variant="two_gmm", mesh="mesh2", form="implicit"),
        ProgramSpec(variant="concat", layer="router"),
        ProgramSpec(variant="fused", mode="scan", mesh="mesh2"),
        ProgramSpec(variant="concat", mode="grad", form="implicit"),
    ],
    ids=lambda s: s.name,
)
def test_matches_single_device_reference(spec: ProgramSpec) -> None:
    got = moe.run(spec)
    value = got[0] if spec.mode.endswith("grad") else got
    np.testing.assert_allclose(np.asarray(value), moe.reference(spec), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("mesh", "n"), [("mesh1", 1), ("mesh1", 4), ("mesh2", 2)])
def test_fewer_devices(mesh: str, n: int) -> None:
    results = moe.check_variants_agree(mesh=mesh, num_devices=n)
    full = moe.run(ProgramSpec(variant="fused", mesh=mesh))
    np.testing.assert_allclose(results["fused"], full, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("param_dtype", [None, "float32"])
def test_bf16_variants_agree(param_dtype: str | None) -> None:
    cfg = MoEConfig(dtype="bfloat16", param_dtype=param_dtype)
    results = moe.check_variants_agree(cfg=cfg, form="implicit", mesh="mesh2")
    assert results["fused"].dtype == jax.numpy.bfloat16
    ref = moe.reference(ProgramSpec(cfg=cfg))
    np.testing.assert_allclose(
        np.asarray(results["fused"], np.float32), np.asarray(ref, np.float32), rtol=5e-2, atol=5e-2
    )


def test_group_sizes_deterministic_with_empty_expert() -> None:
    cfg = MoEConfig()
    gs = moe.make_group_sizes(cfg)
    assert gs.dtype == np.int32 and gs.shape == (cfg.experts,)
    assert gs.sum() == cfg.tokens and (gs == 0).any() and (gs >= 0).all()
    np.testing.assert_array_equal(gs, moe.make_group_sizes(cfg))
    full = moe.make_group_sizes(MoEConfig(empty_groups=False, seed=3))
    assert full.sum() == cfg.tokens
    a, b = moe.host_inputs(ProgramSpec()), moe.host_inputs(ProgramSpec())
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(moe.host_inputs(ProgramSpec(cfg=MoEConfig(seed=1)))[0], a[0])


def test_shapes_follow_the_design() -> None:
    cfg = MoEConfig()
    x, gs, w, wo = moe.host_inputs(ProgramSpec())
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    assert (x.shape, gs.shape, w.shape, wo.shape) == ((t, d), (e,), (e, d, 2 * f), (e, f, d))
    _, _, ws, wos = moe.host_inputs(ProgramSpec(mode="scan"))
    assert ws.shape == (cfg.layers, e, d, 2 * f) and wos.shape == (cfg.layers, e, f, d)
    args = moe.inputs(ProgramSpec(mesh="mesh2"))
    assert args[2].sharding.spec == jax.sharding.PartitionSpec(None, ("fsdp", "fsdp_transpose"), None)


def test_invalid_specs_are_refused() -> None:
    with pytest.raises(ValueError, match="variant"):
        ProgramSpec(variant="nope")
    with pytest.raises(ValueError, match="even"):
        ProgramSpec(mesh="mesh2", num_devices=3)
    with pytest.raises(ValueError, match="divisible"):
        ProgramSpec(num_devices=7)


# --- what the lowered programs look like -------------------------------------


@pytest.mark.parametrize(("mesh", "stages"), [("mesh1", 1), ("mesh2", 2)])
@pytest.mark.parametrize("variant", moe.VARIANTS)
def test_explicit_lowering_has_the_gathers(variant: str, mesh: str, stages: int) -> None:
    lowered = moe.lower(variant, mesh=mesh)
    text = lowered.as_text()
    halves = 1 if variant == "fused" else 2
    assert text.count('"stablehlo.all_gather"') == halves * stages
    assert ("stablehlo.concatenate %" in text and "dim = 2" in text) == (variant == "concat")
    gathers = count_collectives(lowered.compile().as_text())["all-gather"]
    assert gathers == halves * stages


@pytest.mark.parametrize("mesh", moe.MESHES)
def test_implicit_lowering_has_constraints_not_gathers(mesh: str) -> None:
    text = moe.lower("concat", mesh=mesh, form="implicit").as_text()
    assert "all_gather" not in text
    assert text.count("sdy.sharding_constraint") >= 2
    assert ("stablehlo.optimization_barrier" in text) == (mesh == "mesh2")
    assert "sdy.manual_computation" in text and "stablehlo.concatenate %arg" in text
    hlo = moe.lower("concat", mesh=mesh, form="implicit").compile().as_text()
    assert count_ops(hlo)["all-gather"] >= 2


def test_other_platform_lowering_keeps_ragged_dot() -> None:
    text = moe.lower("concat", platforms=("tpu",)).as_text()
    assert text.count('"chlo.ragged_dot"') == 2
    hlo = moe.lower("concat", platforms=("cuda",)).as_text(dialect="hlo")
    assert count_ops(hlo)["ragged-dot"] == 2


# The shared samples are jax 0.10.2's lowerings (jax 0.12 writes the mesh as a
# sdy.mesh symbol its all_gathers name, and lowers ragged_dot's cumsum anew).
@pytest.mark.jax010
@pytest.mark.parametrize("name", [f"{m}_{v}" for m in moe.MESHES for v in moe.VARIANTS])
def test_lowering_reproduces_shared_samples(samples_dir: Path, name: str) -> None:
    mesh, variant = name.split("_", 1)
    sample = samples_dir / f"{name}.stablehlo.mlir"
    if not sample.exists():
        pytest.skip(f"{sample} missing")
    assert moe.lower(variant, mesh=mesh).as_text() == sample.read_text()


def test_runs_as_a_script(repo_root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(repo_root / "examples" / "moe.py"), "--print", "mesh1_fused_explicit_forward"],
        capture_output=True, text=True, timeout=300, cwd=repo_root / "examples",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("module @jit_moe_body") and '"stablehlo.all_gather"' in proc.stdout


def test_moe_layer_reports_the_gathers(capsys: pytest.CaptureFixture[str]) -> None:
    from examples import moe_layer

    assert moe_layer.main(["--mesh", "mesh2"]) == 0
    out = capsys.readouterr().out
    assert "variants agree" in out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "all-gather 4" in lines["concat"] and "all-gather 4" in lines["two_gmm"]
    assert "all-gather 2" in lines["fused"]


def test_moe_layer_runs_as_a_script(repo_root: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(repo_root / "examples" / "moe_layer.py"), "--show"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "sdy.manual_computation" in proc.stdout and "tensor<64x4xf32>" in proc.stdout


@pytest.mark.parametrize("mesh", moe.MESHES)
def test_permuted_device_order(mesh: str) -> None:
    """A mesh whose devices are not in id order (and, on mesh2, w sharded over the
    FSDP axes minor first): the same values as the reference."""
    spec = ProgramSpec(variant="concat", mesh=mesh, form="implicit", mode="forward", device_order="permuted")
    ids = [d.id for d in moe.program_mesh(spec).devices.flat]
    assert ids != sorted(ids) and sorted(ids) == list(range(8))
    assert spec.name.endswith("_permuted")
    assert moe.in_specs(spec)[2] == jax.sharding.PartitionSpec(None, moe.fsdp_axes(mesh, "permuted"), None)
    np.testing.assert_allclose(np.asarray(moe.run(spec)), moe.reference(spec), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="device_order"):
        ProgramSpec(device_order="random")
