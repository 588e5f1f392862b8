"""moe-gather-fusion, executed: original and rewritten modules compile, run on
8 CPU devices and give the same numbers; near misses are refused and explained."""
from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax.sharding import PartitionSpec as P

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from gmm_cases import check_matches_jax, platform_text, to_cpu_ffi
from moe_cases import DIALECTS, check_one_site_preserves_results, check_parsers, count, lowered_text, run_text, tolerance

RULE = "moe-gather-fusion"


def _tolerance(spec: ProgramSpec) -> dict:
    return tolerance(spec.cfg)


def _gathers(exe: runtime.Executable) -> int:
    return count(exe, "all-gather")


def _concat_of_gathers(module: hlo_passes.Module) -> list[str]:
    return [
        i.name for i in module.instructions()
        if i.opcode == "concatenate" and i.operands and all(o.opcode == "all-gather" for o in i.operands)
    ]


def check_rewrite(spec: ProgramSpec, dialect: str, expected_form: str):
    text = lowered_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert [s.form for s in result.sites] == [expected_form], result.near_misses
    assert all(s.rewritten and s.before.count == 2 * s.after.count for s in result.sites)
    new_text = result.module.to_text()
    assert new_text != text
    assert _concat_of_gathers(hlo_passes.parse(new_text)) == []

    exe0, want = run_text(text, spec)
    exe1, got = run_text(new_text, spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **_tolerance(spec))
    # One gather per stage and half before, one per stage after.  Shardy may
    # gather both mesh axes in one collective (reshard, in_specs): 2 -> 1.
    stages = len(moe.gather_stages(spec.mesh))
    assert _gathers(exe0) in (2 * stages, 2)
    assert _gathers(exe1) * 2 == _gathers(exe0)

    again = run_passes(hlo_passes.parse(new_text), [RULE])
    assert again.sites == [] and again.module.to_text() == new_text
    return result


EXPLICIT = [
    ProgramSpec(variant=v, mesh=m, mode=mode)
    for v in ("concat", "two_gmm")
    for m in moe.MESHES
    for mode in ("forward", "grad", "scan")
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", EXPLICIT, ids=lambda s: s.name)
def test_explicit_gathers_fused_and_equal(spec: ProgramSpec, dialect: str) -> None:
    check_rewrite(spec, dialect, spec.variant)


IMPLICIT = [
    ProgramSpec(variant=v, mesh=m, mode=mode, form="implicit")
    for v in ("concat", "two_gmm")
    for m in moe.MESHES
    for mode in ("forward", "grad", "scan")
] + [
    ProgramSpec(variant=v, mesh="mesh2", form="implicit", constraint=c)
    for v in ("concat", "two_gmm")
    for c in ("reshard", "in_specs")
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", IMPLICIT, ids=lambda s: s.name)
def test_shardy_implicit_gathers_fused_and_equal(spec: ProgramSpec, dialect: str) -> None:
    """Halves resharded outside the shard_map and concatenated inside it."""
    result = check_rewrite(spec, dialect, spec.variant)
    assert result.sites[0].details.collectives == "implicit"

    def boundary_operands(module: hlo_passes.Module) -> int:
        return sum(
            len(i.operands) for i in module.instructions()
            if i.opcode == "sdy.manual_computation"
            or (i.opcode == "custom-call" and i.attributes["custom_call_target"] == "xla.sdy.GlobalToLocalShape")
        )

    # W enters the shard_map as one operand instead of two halves.
    before = boundary_operands(hlo_passes.parse(lowered_text(spec, dialect)))
    assert boundary_operands(result.module) == before - 1


BF16 = [
    ProgramSpec(variant="concat", mesh="mesh2", cfg=MoEConfig(dtype="bfloat16")),
    ProgramSpec(variant="concat", mesh="mesh1", form="implicit", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
    ProgramSpec(variant="two_gmm", mesh="mesh1", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
    ProgramSpec(variant="concat", mesh="mesh1", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", BF16, ids=lambda s: s.name)
def test_bf16_and_cast_weights(spec: ProgramSpec, dialect: str) -> None:
    check_rewrite(spec, dialect, spec.variant)


def test_site_report_counts_collectives_and_bytes() -> None:
    spec = ProgramSpec(variant="concat", mesh="mesh2")
    result = run_passes(hlo_passes.parse(lowered_text(spec, "hlo")), [RULE])
    (site,) = result.sites
    assert (site.before.count, site.after.count) == (4, 2)
    # The same data crosses the network either way.
    assert site.before.bytes_moved == site.after.bytes_moved > 0
    cfg = spec.cfg
    local_half = cfg.experts * (cfg.embed // 8) * cfg.mlp * 4
    concat_bytes = cfg.experts * cfg.embed * 2 * cfg.mlp * 4
    assert site.bytes_saved == 2 * local_half + concat_bytes
    assert site.location.line > 0 and site.location.path is None
    assert site.details.split_dim == 2


def test_fused_program_has_no_site() -> None:
    for dialect in DIALECTS:
        text = lowered_text(ProgramSpec(variant="fused", mesh="mesh2"), dialect)
        result = run_passes(hlo_passes.parse(text), [RULE])
        assert result.sites == [] and result.near_misses == []
        assert result.module.to_text() == text


def test_caller_module_is_not_modified() -> None:
    text = lowered_text(ProgramSpec(variant="concat"), "hlo")
    module = hlo_passes.parse(text)
    run_passes(module, [RULE])
    assert module.to_text() == text and not module.changed


# ---- near misses: programs that look like the pattern but are not it -------

F = 16


@functools.lru_cache(maxsize=None)
def _near_miss_program(kind: str, mesh_kind: str = "mesh1", e: int = 2, d: int = 16, F: int = F):
    """A shard_map body that splits, gathers and rejoins W in an illegal way."""
    mesh = moe.make_mesh(mesh_kind, 8)
    axes = moe.gather_stages(mesh_kind)

    def gather(h, stages=axes, axis=1):
        for a in stages:
            h = jax.lax.all_gather(h, a, axis=axis, tiled=True)
        return h

    def body(w):
        if kind == "gather_on_split_dim":
            a, b = w[..., : w.shape[2] // 2], w[..., w.shape[2] // 2:]
            return jnp.concatenate([gather(a, axis=2), gather(b, axis=2)], axis=2)
        if kind == "swapped":
            a, b = w[..., :F], w[..., F:]
            return jnp.concatenate([gather(b), gather(a)], axis=2)
        if kind == "overlap":
            a, b = w[..., :F], w[..., F // 2: F // 2 + F]
            return jnp.concatenate([gather(a), gather(b)], axis=2)
        if kind == "gap":
            a, b = w[..., :F], w[..., F + 4: 2 * F + 4]
            return jnp.concatenate([gather(a), gather(b)], axis=2)
        if kind == "groups_differ":
            a, b = w[..., :F], w[..., F:]
            return jnp.concatenate([gather(a), gather(b, stages=tuple(reversed(axes)))], axis=2)
        if kind == "extra_user":
            a, b = w[..., :F], w[..., F:]
            ga = gather(a)
            return jnp.concatenate([ga, gather(b)], axis=2) + jnp.concatenate([ga, ga], axis=2)
        raise ValueError(kind)

    width = 2 * F + 4 if kind == "gap" else 2 * F
    if kind == "gather_on_split_dim":
        width = 16 * F  # each device's piece of the split dimension still splits in two
    spec_axes = moe.fsdp_axes(mesh_kind)
    w_spec = P(None, spec_axes, None) if kind != "gather_on_split_dim" else P(None, None, spec_axes)
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(w_spec,), out_specs=P(), check_vma=False))
    w = jax.ShapeDtypeStruct((e, d, width), jnp.float32, sharding=jax.sharding.NamedSharding(mesh, w_spec))
    return fn.lower(w)


NEAR_MISSES = {
    "gather_on_split_dim": ("mesh1", "gather-dim"),
    "swapped": ("mesh1", "concat-order"),
    "overlap": ("mesh1", "slices-adjacent"),
    "gap": ("mesh1", "slices-adjacent"),
    "groups_differ": ("mesh2", "same-collectives"),
    "extra_user": ("mesh1", "extra-users"),
}


@given(
    kind=st.sampled_from(sorted(NEAR_MISSES)),
    dialect=st.sampled_from(DIALECTS),
    e=st.integers(1, 3),
    d=st.sampled_from([8, 16, 32]),
    f=st.sampled_from([4, 8, 16]),
)
def test_near_misses_refused_and_explained(kind: str, dialect: str, e: int, d: int, f: int) -> None:
    mesh_kind, check = NEAR_MISSES[kind]
    text = _near_miss_program(kind, mesh_kind, e, d, f).as_text(dialect=dialect)
    module = hlo_passes.parse(text)
    result = run_passes(module, [RULE])
    assert result.sites == []
    assert result.module.to_text() == text
    checks = [m.check for m in result.near_misses]
    assert check in checks, [str(m) for m in result.near_misses]
    miss = result.near_misses[checks.index(check)]
    assert miss.location.line > 0
    assert re.match(r"<string>:\d+:\d+", str(miss.location))
    assert miss.reason


# ---- properties ---------------------------------------------------------------

@st.composite
def programs(draw):
    devices = draw(st.sampled_from([1, 2, 4, 8]))
    mesh = draw(st.sampled_from(["mesh1", "mesh2"] if devices >= 2 else ["mesh1"]))
    cfg = MoEConfig(
        experts=draw(st.integers(1, 4)),
        embed=8 * draw(st.integers(1, 2)),
        mlp=draw(st.sampled_from([4, 8, 12])),
        tokens=draw(st.integers(1, 24)),
        empty_groups=draw(st.booleans()),
        dtype=draw(st.sampled_from(["float32", "bfloat16"])),
        seed=draw(st.integers(0, 3)),
    )
    return ProgramSpec(
        variant=draw(st.sampled_from(["concat", "two_gmm"])),
        form=draw(st.sampled_from(["explicit", "implicit"])),
        mesh=mesh,
        num_devices=devices,
        cfg=cfg,
    ), draw(st.sampled_from(DIALECTS))


@given(programs())
def test_property_rewrite_preserves_results(case) -> None:
    spec, dialect = case
    if spec.num_devices == 1:
        # Gathers over groups of one device move nothing: no collective, no site (issue 27);
        # each says why (the explicit ones group-of-one, the implicit ones no-collective).
        result = run_passes(hlo_passes.parse(lowered_text(spec, dialect)), [RULE])
        assert result.sites == []
        assert {m.check for m in result.near_misses} <= {"group-of-one", "no-collective"}, \
            [str(m) for m in result.near_misses]
        return
    check_one_site_preserves_results(spec, dialect, RULE)


# ---- GMMs that XLA:CPU cannot compile: checked by XLA's and MLIR's parsers, and run
# ---- here through the cpu-ffi grouped-matmul kernel ----------------------------------

def _ragged_dots(module: hlo_passes.Module) -> int:
    return sum(1 for i in module.instructions() if i.opcode == "ragged-dot")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("form", ["explicit", "implicit"])
@pytest.mark.parametrize("variant", ["concat", "two_gmm"])
@pytest.mark.parametrize("platform", ["tpu", "cuda"])
def test_ragged_dot_lowerings_rewritten_and_valid(platform: str, variant: str, form: str, dialect: str) -> None:
    """Lowered for TPU/GPU, the GMM is ``ragged-dot`` / ``chlo.ragged_dot``; it stays one.
    Original and rewritten, lowered to the cpu-ffi kernel, give jax's numbers (empty expert included)."""
    spec = ProgramSpec(variant=variant, mesh="mesh2", form=form)
    check_ragged_dot_lowering(spec, platform, dialect)


RAGGED_DOT_BF16 = [
    ProgramSpec(variant="two_gmm", mesh="mesh1", cfg=MoEConfig(dtype="bfloat16")),
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", RAGGED_DOT_BF16, ids=lambda s: s.name)
def test_ragged_dot_lowerings_bf16_executed(spec: ProgramSpec, dialect: str) -> None:
    """bf16 GMMs (f32 accumulation in the kernel) lowered for TPU, rewritten and run here."""
    check_ragged_dot_lowering(spec, "tpu", dialect)


def check_ragged_dot_lowering(spec: ProgramSpec, platform: str, dialect: str) -> None:
    variant = spec.variant
    text = platform_text(spec, platform, dialect)
    before = hlo_passes.parse(text)
    result = run_passes(before, [RULE])
    assert [s.form for s in result.sites] == [variant]
    new_text = result.module.to_text()
    check_parsers(new_text, dialect)
    after = hlo_passes.parse(new_text)
    # Up projection(s) plus the down projection: two GMMs become one.
    assert _ragged_dots(after) == _ragged_dots(before) - (1 if variant == "two_gmm" else 0)
    assert _concat_of_gathers(after) == []
    assert run_passes(after, [RULE]).sites == []
    # Executed on 8 CPU devices through the FFI kernel: the same numbers as jax.jit.
    check_matches_jax(to_cpu_ffi(text)[0], spec)
    check_matches_jax(to_cpu_ffi(new_text)[0], spec)


def test_pallas_gmm_kernel_is_a_near_miss() -> None:
    """Megablox's gmm lowered for TPU is a tpu_custom_call built for one shape.  It is emitted
    again for the fused weight (tests/test_lowering_pallas.py) unless its shapes hide whether
    its rhs is transposed (k = n, as here): then the site stays a near miss, with the reason."""
    from jax.experimental.pallas.ops.tpu.megablox import gmm

    mesh = moe.make_mesh("mesh1", 8)
    f = 128

    def body(x, gs, w):
        a, b = w[..., :f], w[..., f:]
        ga = jax.lax.all_gather(a, "fsdp", axis=1, tiled=True)
        gb = jax.lax.all_gather(b, "fsdp", axis=1, tiled=True)
        tiling = (128, 128, 128)
        return jax.nn.silu(gmm(x, ga, gs, tiling=tiling)) * gmm(x, gb, gs, tiling=tiling)

    specs = (P(), P(), P(None, "fsdp", None))
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=P(), check_vma=False))
    shapes = [((256, 128), jnp.float32), ((4,), jnp.int32), ((4, 128, 2 * f), jnp.float32)]
    args = [jax.ShapeDtypeStruct(s, d, sharding=jax.sharding.NamedSharding(mesh, p))
            for (s, d), p in zip(shapes, specs)]
    lowered = fn.trace(*args).lower(lowering_platforms=("tpu",))
    for dialect in DIALECTS:
        text = lowered.as_text(dialect=dialect)
        result = run_passes(hlo_passes.parse(text), [RULE])
        assert result.sites == [] and result.module.to_text() == text
        (miss,) = result.near_misses
        assert miss.check == "fixed-shape-kernel" and "gmm" in miss.reason and "transposed" in miss.reason


def test_new_ops_keep_attributes_and_carry_the_rule_name() -> None:
    """MaxText tags its GMMs (``ragged_dot_tiling``); the fused GMM keeps such tags."""
    spec = ProgramSpec(variant="two_gmm", mesh="mesh1")
    text = lowered_text(spec, "hlo")
    tagged = re.sub(
        r"(dot_general\.\d+ = f32\[64,32\]\{1,0\} dot\([^)]*\), lhs_contracting_dims=\{2,0\}, rhs_contracting_dims=\{1,0\})",
        r'\1, metadata={op_name="gmm/up"}, frontend_attributes={ragged_dot_tiling="128,128,128"}',
        text,
    )
    assert tagged.count("ragged_dot_tiling") == 2
    result = run_passes(hlo_passes.parse(tagged), [RULE])
    (site,) = result.sites
    created = [i for i in result.module.instructions()
               if i.attributes.get("frontend_attributes", {}).get("hlo_passes.rule") == RULE]
    assert sorted(i.opcode for i in created) == ["all-gather", "dot", "slice", "slice"]
    (fused,) = [i for i in created if i.opcode == "dot"]
    assert fused.attributes["frontend_attributes"]["ragged_dot_tiling"] == "128,128,128"
    assert fused.attributes["metadata"]["op_name"] == "gmm/up"
    assert site.location.op_name == "gmm/up"
    # Executed: the tags change nothing.
    _, want = run_text(text, spec)
    _, got = run_text(result.module.to_text(), spec)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **_tolerance(spec))


@pytest.mark.parametrize("form", ["explicit", "implicit"])
@pytest.mark.parametrize("mesh", moe.MESHES)
def test_compiled_hlo_sites_rewritten(mesh: str, form: str) -> None:
    """``compile().as_text()``: XLA fused the slices (and the concatenate); the split gathers
    are reported at a line of the optimized module and rewritten through the fusions
    (executed inside XLA's pipeline in tests/test_compiled_rewrite.py)."""
    expected = {"concat": ["concat"], "two_gmm": ["split_gather"], "fused": []}
    for variant, forms in expected.items():
        text = moe.lower(ProgramSpec(variant=variant, mesh=mesh, form=form)).compile().as_text()
        result = run_passes(hlo_passes.parse(text), [RULE])
        assert [s.form for s in result.sites] == forms, (variant, [str(m) for m in result.near_misses])
        new_text = result.module.to_text()
        hlo_passes.parse(new_text, validate=True).verify()
        gathers = [runtime.count_ops(t)["all-gather"] for t in (text, new_text)]
        assert gathers[1] == gathers[0] - sum(s.before.count - s.after.count for s in result.sites)
        assert (new_text == text) == (not forms)
        for site in result.sites:
            assert site.rewritten and site.bytes_saved > 0
            assert site.before.count == 2 * site.after.count
            assert 0 < site.location.line <= text.count("\n")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_halves_concatenated_in_a_called_computation(dialect: str) -> None:
    """Gathered in the shard_map body, concatenated inside a nested jit (HLO ``call``,
    StableHLO ``func.call``): W enters the called computation as one operand."""
    mesh = moe.make_mesh("mesh1", 8)
    f = 16

    @jax.jit
    def up(a, b, x, gs):
        return jax.lax.ragged_dot(x, jnp.concatenate([a, b], axis=2), gs)

    def body(x, gs, w):
        a, b = w[..., :f], w[..., f:]
        h = up(jax.lax.all_gather(a, "fsdp", axis=1, tiled=True),
               jax.lax.all_gather(b, "fsdp", axis=1, tiled=True), x, gs)
        return jax.nn.silu(h[:, :f]) * h[:, f:]

    specs = (P(), P(), P(None, "fsdp", None))
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=P(), check_vma=False))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 16)).astype(np.float32)
    gs = np.array([8, 0, 24], np.int32)
    w = rng.standard_normal((3, 16, 2 * f)).astype(np.float32)
    args = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=jax.sharding.NamedSharding(mesh, s))
            for a, s in zip((x, gs, w), specs)]
    text = fn.lower(*args).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert [s.form for s in result.sites] == ["concat"]
    new_text = result.module.to_text()
    call = next(i for i in result.module.instructions()
                if i.opcode in ("call", "func.call") and i.called_computations[0].name.startswith("up"))
    assert len(call.operands) == 3
    want = runtime.compile_text(text, num_devices=8).run(x, gs, w)
    exe = runtime.compile_text(new_text, num_devices=8)
    np.testing.assert_allclose(np.asarray(exe.run(x, gs, w)[0]), np.asarray(want[0]), rtol=1e-5, atol=1e-5)
    assert _gathers(exe) == 1
