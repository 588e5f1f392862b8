"""moe-gradient-fusion, executed: the weight gradient is reduced once.

Training steps (forward, backward, optax update) run N times rewritten and
not, on 8 CPU devices; gradient programs in both dialects are compared
output for output; near misses are refused and explained.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from moe_cases import DIALECTS, check_one_site_preserves_results, count, lowered_text, run_text, tolerance

RULE = "moe-gradient-fusion"
STEPS = 5


# ---- gradient programs: value_and_grad of the MoE FFN --------------------------

GRAD_SPECS = [
    ProgramSpec(variant=v, mesh=m, mode=mode)
    for v in ("concat", "two_gmm")
    for m in moe.MESHES
    for mode in ("grad", "scan_grad")
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", GRAD_SPECS, ids=lambda s: s.name)
def test_gradient_reduced_once_and_equal(spec: ProgramSpec, dialect: str) -> None:
    text = lowered_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    (site,) = result.sites
    assert site.rule == RULE and site.form == "pad_add" and site.rewritten
    assert site.before.count == 2 * site.after.count
    new_text = result.module.to_text()
    exe0, want = run_text(text, spec)
    exe1, got = run_text(new_text, spec)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))
    stages = len(moe.gather_stages(spec.mesh))
    assert count(exe0, "reduce-scatter") == 2 * stages
    assert count(exe1, "reduce-scatter") == stages
    # No pads put dW back together any more.
    after = hlo_passes.parse(new_text)
    assert not any(i.opcode == "pad" and i.shape.rank == 3 for i in after.instructions())
    again = run_passes(after, [RULE])
    assert again.sites == [] and again.module.to_text() == new_text


def test_two_gmm_gradients_become_one_gmm() -> None:
    """dW_gate and dW_up from two weight-gradient GMMs: one GMM on the joined activation gradients."""
    spec = ProgramSpec(variant="two_gmm", mesh="mesh2", mode="grad")
    before = hlo_passes.parse(lowered_text(spec, "hlo"))
    result = run_passes(before, [RULE])
    created = [i for i in result.module.instructions()
               if i.attributes.get("frontend_attributes", {}).get("hlo_passes.rule") == RULE]
    opcodes = sorted(i.opcode for i in created)
    assert opcodes.count("concatenate") == 1 and opcodes.count("dot") == 1
    assert opcodes.count("reduce-scatter") == 2  # one per stage, for the whole dW

    def dots(m):
        return sum(1 for i in m.instructions() if i.opcode == "dot")

    assert dots(result.module) == dots(before) - 1


def test_gradient_site_report() -> None:
    spec = ProgramSpec(variant="concat", mesh="mesh2", mode="grad")
    result = run_passes(hlo_passes.parse(lowered_text(spec, "hlo")), [RULE])
    (site,) = result.sites
    assert (site.before.count, site.after.count) == (4, 2)
    assert site.before.bytes_moved == site.after.bytes_moved > 0
    assert site.bytes_saved > 0 and site.details.split_dim == 2
    assert site.location.line > 0


# ---- a training step: forward, backward, optax update ---------------------------

def _train_step(spec: ProgramSpec):
    mesh = moe.program_mesh(spec)
    forward = moe.program_fn(spec.replace(mode="forward"), mesh)
    optimizer = optax.adam(1e-2)

    def step(params, opt_state, x, gs):
        def loss(p):
            out = forward(x, gs, p["w"], p["wo"])
            return jnp.mean(jnp.square(out.astype(jnp.float32)))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    x, gs, w, wo = moe.host_inputs(spec)
    wspec = P(None, moe.fsdp_axes(spec.mesh), None)
    params = {
        "w": jax.device_put(w, NamedSharding(mesh, wspec)),
        "wo": jax.device_put(wo, NamedSharding(mesh, P())),
    }
    x = jax.device_put(x, NamedSharding(mesh, P()))
    gs = jax.device_put(gs, NamedSharding(mesh, P()))
    return step, params, optimizer.init(params), x, gs


TRAIN_SPECS = [
    ProgramSpec(variant="concat", mesh=m, cfg=MoEConfig(dtype=d))
    for m in moe.MESHES
    for d in ("float32", "bfloat16")
] + [
    ProgramSpec(variant="two_gmm", mesh="mesh2"),
    # Shardy-implicit gathers and reductions, and the MaxText-like router layer.
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit"),
    ProgramSpec(variant="two_gmm", mesh="mesh1", form="implicit", cfg=MoEConfig(dtype="bfloat16")),
    ProgramSpec(variant="concat", mesh="mesh2", layer="router"),
]


@pytest.mark.parametrize("spec", TRAIN_SPECS, ids=lambda s: s.name)
def test_training_step_both_rules(spec: ProgramSpec) -> None:
    step, params, opt_state, x, gs = _train_step(spec)
    plain = jax.jit(step)
    fused = hlo_passes.jit(step)

    lowered = fused.lower(params, opt_state, x, gs)
    assert {s.rule for s in lowered.report} == {"moe-gather-fusion", RULE}
    text = lowered.compile().as_text()
    original_text = plain.lower(params, opt_state, x, gs).compile().as_text()
    counts, original = runtime.count_ops(text), runtime.count_ops(original_text)
    if spec.form == "explicit":
        stages = len(moe.gather_stages(spec.mesh))
        assert counts["all-gather"] == stages and counts["reduce-scatter"] == stages
        assert original["all-gather"] == 2 * stages and original["reduce-scatter"] == 2 * stages
    else:
        # The partitioner picks the collectives: half the gathers, and dW
        # reduced as one operand of XLA:CPU's tuple all-reduce, not two halves.
        assert counts["all-gather"] * 2 == original["all-gather"]
        assert _all_reduce_operands(text) == _all_reduce_operands(original_text) - 1

    p0, s0, p1, s1 = params, opt_state, params, opt_state
    for _ in range(STEPS):
        p0, s0, l0 = plain(p0, s0, x, gs)
        p1, s1, l1 = fused(p1, s1, x, gs)
        np.testing.assert_allclose(np.float32(l1), np.float32(l0), **tolerance(spec.cfg))
    for name in ("w", "wo"):
        np.testing.assert_allclose(np.asarray(p1[name], np.float32), np.asarray(p0[name], np.float32),
                                   **tolerance(spec.cfg))
        assert p1[name].sharding == p0[name].sharding
    # Compiled as often as jax.jit compiles the same step (the first outputs may
    # carry other shardings or weak types than the initial inputs); the compile()
    # above is the executable the first call runs, so it counts as that signature's miss.
    info = fused.cache_info()
    assert info.misses == plain._cache_size() and info.hits + info.misses == STEPS + 1


# ---- properties -----------------------------------------------------------------

@st.composite
def grad_programs(draw):
    devices = draw(st.sampled_from([2, 4, 8]))
    cfg = MoEConfig(
        experts=draw(st.integers(1, 4)),
        embed=8 * draw(st.integers(1, 2)),
        mlp=draw(st.sampled_from([4, 8])),
        tokens=draw(st.integers(1, 16)),
        empty_groups=draw(st.booleans()),
        seed=draw(st.integers(0, 3)),
    )
    spec = ProgramSpec(
        variant=draw(st.sampled_from(["concat", "two_gmm"])),
        mesh=draw(st.sampled_from(moe.MESHES)),
        form=draw(st.sampled_from(["explicit", "implicit"])),
        num_devices=devices,
        mode="grad",
        cfg=cfg,
    )
    return spec, draw(st.sampled_from(DIALECTS))


@given(grad_programs())
def test_property_gradients_preserved(case) -> None:
    check_one_site_preserves_results(*case, RULE)


F = 8


@functools.lru_cache(maxsize=None)
def _near_miss_grad_program(kind: str, e: int, d: int):
    """Slices of a gradient reduced apart and put back together in an illegal way."""
    mesh_kind = "mesh2" if kind == "groups_differ" else "mesh1"
    mesh = moe.make_mesh(mesh_kind, 8)
    axes = moe.gather_stages(mesh_kind)

    def reduce(h, stages=axes, dim=1):
        for a in stages:
            h = jax.lax.psum_scatter(h, a, scatter_dimension=dim, tiled=True)
        return h

    def _place(x, low, high):
        # lax.pad, as jax's transpose of a slice emits it (jnp.pad would be a call).
        return jax.lax.pad(x, jnp.zeros((), x.dtype), ((0, 0, 0), (0, 0, 0), (low, high, 0)))

    def body(g):
        a, b = g[..., :F], g[..., F:]
        if kind == "scatter_on_split_dim":
            a, b = g[..., : g.shape[2] // 2], g[..., g.shape[2] // 2:]
            ra, rb = reduce(a, dim=2), reduce(b, dim=2)
            w = ra.shape[2]
            return _place(ra, 0, w) + _place(rb, w, 0)
        if kind == "swapped":
            ra, rb = reduce(a), reduce(b)
            return _place(rb, 0, F) + _place(ra, F, 0)
        if kind == "groups_differ":
            ra, rb = reduce(a), reduce(b, stages=tuple(reversed(axes)))
            return _place(ra, 0, F) + _place(rb, F, 0)
        if kind == "extra_user":
            ra, rb = reduce(a), reduce(b)
            return _place(ra, 0, F) + _place(rb, F, 0) + \
                jnp.concatenate([ra, ra], axis=2)
        raise ValueError(kind)

    width = 16 * F if kind == "scatter_on_split_dim" else 2 * F
    out_spec = P(None, moe.fsdp_axes(mesh_kind), None)
    in_spec = P()
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(in_spec,), out_specs=out_spec, check_vma=False))
    if kind == "scatter_on_split_dim":
        fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(in_spec,),
                                   out_specs=P(None, None, moe.fsdp_axes(mesh_kind)), check_vma=False))
    g = jax.ShapeDtypeStruct((e, d, width), jnp.float32, sharding=NamedSharding(mesh, in_spec))
    return fn.lower(g)


GRAD_NEAR_MISSES = {
    "scatter_on_split_dim": "scatter-dim",
    "swapped": "concat-order",
    "groups_differ": "same-collectives",
    "extra_user": "extra-users",
}


@given(
    kind=st.sampled_from(sorted(GRAD_NEAR_MISSES)),
    dialect=st.sampled_from(DIALECTS),
    e=st.integers(1, 3),
    d=st.sampled_from([8, 16, 32]),
)
def test_gradient_near_misses_refused_and_explained(kind: str, dialect: str, e: int, d: int) -> None:
    text = _near_miss_grad_program(kind, e, d).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert result.sites == [] and result.module.to_text() == text
    checks = [m.check for m in result.near_misses]
    assert GRAD_NEAR_MISSES[kind] in checks, [str(m) for m in result.near_misses]
    miss = result.near_misses[checks.index(GRAD_NEAR_MISSES[kind])]
    assert miss.location.line > 0 and miss.reason and miss.rule == RULE


# ---- Shardy-implicit forms: dW halves leave the shard_map as separate results -----

def _all_reduce_operands(compiled_text: str) -> int:
    """Operands of all all-reduces in an optimized module (XLA:CPU merges them into tuples)."""
    module = hlo_passes.parse(compiled_text)
    return sum(len(i.operands) for i in module.instructions() if i.opcode in ("all-reduce", "all-reduce-start"))


IMPLICIT_GRAD = [
    ProgramSpec(variant=v, mesh=m, form="implicit", mode="grad")
    for v in ("concat", "two_gmm")
    for m in moe.MESHES
] + [ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan_grad")]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", IMPLICIT_GRAD, ids=lambda s: s.name)
def test_implicit_gradient_reduced_once_and_equal(spec: ProgramSpec, dialect: str) -> None:
    text = lowered_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    (site,) = result.sites
    assert site.form == "pad_add" and site.rewritten
    new_text = result.module.to_text()
    exe0, want = run_text(text, spec)
    exe1, got = run_text(new_text, spec)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))
    # XLA:CPU reduces every per-device partial sum in one tuple all-reduce:
    # dW now enters it as one operand instead of two halves, and the pads
    # that put the halves back together are gone from the optimized program.
    assert _all_reduce_operands(exe1.compiled_text) == _all_reduce_operands(exe0.compiled_text) - 1
    assert runtime.count_ops(exe1.compiled_text)["pad"] < runtime.count_ops(exe0.compiled_text)["pad"]
    assert run_passes(hlo_passes.parse(new_text), [RULE]).sites == []


@pytest.mark.parametrize("stage", ["before_optimizations", "after_shardy", "after_spmd_partitioning"])
def test_implicit_gradient_in_xla_dumps(own_dumps, stage: str) -> None:
    from examples.dump_programs import DUMP_PROGRAMS

    program = "mesh1_concat_implicit_grad"
    spec = DUMP_PROGRAMS[program]
    text = own_dumps[program, stage].text
    result = run_passes(hlo_passes.parse(text), ["moe-gather-fusion", RULE])
    assert sorted(s.rule for s in result.sites) == ["moe-gather-fusion", RULE]
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    if stage != "after_spmd_partitioning":
        want, got = original.run(*moe.host_inputs(spec)), rewritten.run(*moe.host_inputs(spec))
        pairs = [(np.asarray(g, np.float32), np.asarray(w, np.float32)) for g, w in zip(got, want)]
    else:
        rng = np.random.default_rng(0)
        args = [[(rng.integers(0, 4, p.shape) if np.issubdtype(p.dtype, np.integer)
                  else rng.standard_normal(p.shape)).astype(p.dtype) for _ in range(8)]
                for p in original.parameters]
        pairs = [(g, w) for gd, wd in zip(rewritten.run_per_device(*args), original.run_per_device(*args))
                 for g, w in zip(gd, wd)]
    for g, w in pairs:
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))


def test_lint_reports_moe002() -> None:
    spec = ProgramSpec(variant="concat", mesh="mesh2", mode="grad")
    findings = hlo_passes.lint(hlo_passes.parse(lowered_text(spec, "stablehlo")))
    rules = sorted(f.rule for f in findings)
    assert rules == ["MOE001", "MOE002"]
    (grad,) = [f for f in findings if f.rule == "MOE002"]
    assert grad.bytes_saved > 0 and grad.line > 0
    fused = ProgramSpec(variant="fused", mesh="mesh2", mode="grad")
    assert hlo_passes.lint(hlo_passes.parse(lowered_text(fused, "stablehlo"))) == []


@pytest.mark.parametrize("mesh", moe.MESHES)
def test_compiled_gradient_split_rewritten(mesh: str) -> None:
    """In ``compile().as_text()`` the dW slices sit in fusions: reported (MOE002) and rewritten
    through them, one reduce-scatter where there were two."""
    text = moe.lower(ProgramSpec(variant="concat", mesh=mesh, mode="grad")).compile().as_text()
    result = run_passes(hlo_passes.parse(text), [RULE])
    (site,) = result.sites
    assert site.form == "split_reduction" and site.rewritten
    assert site.before.count == 2 * site.after.count and site.bytes_saved > 0
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    scatters = [runtime.count_ops(t)["reduce-scatter"] for t in (text, new_text)]
    assert scatters[1] == scatters[0] - site.after.count
    assert "reduce-scatter" in text.splitlines()[site.location.line - 1]
