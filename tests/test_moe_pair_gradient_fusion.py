"""moe-pair-gradient-fusion (MOE004), executed: the gradients of two gate/up weights, reduced once.

The training programs of examples/moe_pair.py (gate and up stored as two weights, each
gradient reduced on its own) are rewritten, compiled and run on 8 CPU devices against
the original, in both dialects; the reductions of dW0/dW1 are counted in XLA's module
after SPMD partitioning; training steps run 5 optimizer updates rewritten and not; near
misses are refused and explained; MOE002's sites and programs whose gradients are
reduced once are left alone.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import hlo_passes
from examples import moe, moe_pair
from examples.moe import MoEConfig, ProgramSpec
from examples.moe_pair import PairSpec
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from moe_cases import DIALECTS
from programs import compiled_here_context

RULE = "moe-pair-gradient-fusion"
STEPS = 5
TESTS = Path(__file__).resolve().parent
BF16 = MoEConfig(dtype="bfloat16")


def _tolerance(cfg: MoEConfig) -> dict:
    """The compute dtype's rounding: the fused reduction may sum in another order."""
    if "bfloat16" in (cfg.dtype, cfg.param_dtype):
        return dict(rtol=2 ** -7, atol=2 ** -7)
    return dict(rtol=1e-6, atol=1e-6)


_LOWERED: dict = {}


def _text(spec: PairSpec, dialect: str) -> str:
    if (spec, dialect) not in _LOWERED:
        _LOWERED[spec, dialect] = moe_pair.lower(spec).as_text(dialect=dialect)
    return _LOWERED[spec, dialect]


def _run(text: str, spec: PairSpec) -> tuple[runtime.Executable, list[np.ndarray]]:
    exe = runtime.compile_text(text, num_devices=spec.num_devices)
    return exe, [np.asarray(a, dtype=np.float32) for a in exe.run(*moe_pair.host_inputs(spec))]


def _stages(spec: PairSpec) -> int:
    """Reductions per weight: a reduce-scatter per FSDP stage (explicit), one all-reduce (psum) else."""
    return len(moe.gather_stages(spec.mesh)) if spec.form == "explicit" else 1


def _created(module, opcode: str) -> int:
    return sum(1 for i in module.instructions()
               if i.opcode == opcode and i.attributes.get("frontend_attributes", {}).get("hlo_passes.rule") == RULE)


# ---- the training programs: value_and_grad w.r.t. wi_0, wi_1, wo ----------------------

GRAD_SPECS = [
    PairSpec(form="explicit", mesh="mesh1", mode="grad"),
    PairSpec(form="explicit", mesh="mesh2", mode="grad"),
    PairSpec(form="explicit", mesh="mesh2", mode="grad", cfg=BF16),
    PairSpec(form="explicit", mesh="mesh1", mode="grad", checkpoint=True, cfg=BF16),
    PairSpec(form="explicit", mesh="mesh2", mode="scan_grad", checkpoint=True),
    PairSpec(form="implicit", mesh="mesh1", mode="grad"),
    PairSpec(form="implicit", mesh="mesh2", mode="scan_grad", checkpoint=True, cfg=BF16),
    PairSpec(form="concat_inside", mesh="mesh1", mode="grad"),
    PairSpec(form="concat_inside", mesh="mesh2", mode="grad", checkpoint=True, cfg=BF16),
    PairSpec(form="concat_inside", mesh="mesh1", mode="scan_grad"),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", GRAD_SPECS, ids=lambda s: s.name)
def test_pair_gradients_reduced_once_and_equal(spec: PairSpec, dialect: str) -> None:
    text = _text(spec, dialect)
    before = hlo_passes.parse(text)
    result = run_passes(before, [RULE])
    (site,) = result.sites
    assert result.near_misses == []
    two_gmms = spec.form != "concat_inside"
    assert site.rule == RULE and site.rewritten and site.form == ("two_gmm_apart" if two_gmms else "split_apart")
    assert site.before.count == 2 * site.after.count == 2 * _stages(spec)
    assert site.details.split_dim == 2 and site.location.line > 0
    new_text = result.module.to_text()
    _, want = _run(text, spec)
    _, got = _run(new_text, spec)
    assert len(got) == len(want) == 4  # loss, dW0, dW1, dWo: the outputs are unchanged
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, **_tolerance(spec.cfg))
    after = hlo_passes.parse(new_text)
    # One reduction chain of the whole dW; two GMMs became one on the joined activation gradients.
    reductions = "reduce-scatter" if spec.form == "explicit" else "all-reduce"
    assert _created(after, reductions) == _stages(spec)
    if two_gmms:
        dots = lambda m: sum(1 for i in m.instructions() if i.opcode == "dot")  # noqa: E731
        assert dots(after) == dots(before) - 1 and _created(after, "dot") == 1
        assert _created(after, "concatenate") == 1
    assert _created(after, "slice") == 2  # dW0, dW1: local slices of the reduced dW
    again = run_passes(after, [RULE])
    assert again.sites == [] and again.near_misses == [] and again.module.to_text() == new_text


def test_site_report_and_lint() -> None:
    spec = PairSpec(form="explicit", mesh="mesh2", mode="grad")
    result = run_passes(hlo_passes.parse(_text(spec, "hlo")), [RULE], rewrite=False)
    (site,) = result.sites
    assert (site.before.count, site.after.count) == (4, 2) and not site.rewritten
    assert site.before.bytes_moved == site.after.bytes_moved > 0
    # The picture (``--graph``): each half's users read their slice of the one reduced dW.
    assert site.details.picture_error is None
    assert [n.label for n in site.picture.after.nodes if n.kind == "use"] == ["users of half 1", "users of half 2"]
    findings = hlo_passes.lint(hlo_passes.parse(_text(spec, "stablehlo")))
    (finding,) = [f for f in findings if f.rule == "MOE004"]
    assert finding.line > 0 and "2 weight gradients are reduced separately (4 collectives, 2 when fused" in finding.message
    # The program written the fused way (one GMM, one reduction) is no site.
    fused = spec.replace(variant="fused")
    assert [f for f in hlo_passes.lint(hlo_passes.parse(_text(fused, "stablehlo"))) if f.rule == "MOE004"] == []


def test_opt_in_not_run_by_default() -> None:
    spec = PairSpec(form="explicit", mode="grad")
    assert run_passes(hlo_passes.parse(_text(spec, "stablehlo"))).sites == []
    assert hlo_passes.passes.rule_meta(RULE).opt_in


# ---- counted after SPMD partitioning, before XLA:CPU's combiners ----------------------

# F = 16 (D = 64): no shape of a weight-gradient reduction, halves' or fused, is wo's [E, F, D].
NARROW = MoEConfig(mlp=16)
COUNT_SPECS = [
    PairSpec(form="explicit", mesh="mesh1", mode="grad", cfg=NARROW),
    PairSpec(form="explicit", mesh="mesh2", mode="grad", checkpoint=True, cfg=NARROW),
    PairSpec(form="implicit", mesh="mesh2", mode="grad", cfg=NARROW),
    PairSpec(form="concat_inside", mesh="mesh1", mode="grad", cfg=MoEConfig(mlp=16, dtype="bfloat16")),
]
COUNT_CASES = [(s, d) for s in COUNT_SPECS for d in DIALECTS]


@pytest.fixture(scope="module")
def spmd_counts(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("pair_spmd_counts")
    paths, sites = [], {}
    for spec, dialect in COUNT_CASES:
        text = _text(spec, dialect)
        result = run_passes(hlo_passes.parse(text), [RULE])
        sites[spec, dialect] = result.sites
        for which, t in (("before", text), ("after", result.module.to_text())):
            path = out / f"{spec.name}.{dialect}.{which}"
            path.write_text(t)
            paths.append(str(path))
    (out / "list").write_text("\n".join(paths))
    proc = subprocess.run([sys.executable, str(TESTS / "spmd_counts_worker.py"), str(out / "list"),
                           str(out / "counts.json")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    counts = json.loads((out / "counts.json").read_text())
    return {case: {"sites": sites[case],
                   **{w: counts[str(out / f"{case[0].name}.{case[1]}.{w}")] for w in ("before", "after")}}
            for case in COUNT_CASES}


@pytest.mark.parametrize("spec,dialect", COUNT_CASES, ids=[f"{s.name}-{d}" for s, d in COUNT_CASES])
def test_reductions_halved_after_spmd_partitioning(spmd_counts, spec: PairSpec, dialect: str) -> None:
    case = spmd_counts[spec, dialect]
    c = spec.cfg
    wo = [c.experts, c.mlp, c.embed]

    def of_weights(found: list) -> list:
        # The reductions of dW0/dW1 (and of the fused dW) are [E, D or its shard, F or 2F]; wo's
        # gradient, the activations' reductions and the forward's gathers are the program's others.
        # Each entry is [opcode, result dims, bytes each device receives] (spmd_counts_worker).
        return [entry for entry in found if entry[0] in ("reduce-scatter", "all-reduce")
                and len(entry[1]) == 3 and entry[1] != wo and entry[1][2] in (c.mlp, 2 * c.mlp)]

    before, after = of_weights(case["before"]), of_weights(case["after"])
    assert len(before) == 2 * len(after) == 2 * _stages(spec), (before, after)
    assert all(dims[2] == c.mlp for _, dims, _ in before) and all(dims[2] == 2 * c.mlp for _, dims, _ in after)
    # The fused reduction moves what the two moved.
    assert sum(b for *_, b in after) == sum(b for *_, b in before)
    (site,) = case["sites"]
    assert (site.before.count, site.after.count) == (len(before), len(after))
    assert sorted(op for op, *_ in after) == sorted(op for op, *_ in before)[::2]  # the same kind, once
    # Nothing else the program communicates changed.
    others = lambda found: sorted(map(str, (x for x in found if x not in of_weights(found))))  # noqa: E731
    assert others(case["before"]) == others(case["after"])


# ---- a training step: forward, backward, optax update, 5 times ---------------------------

def _train_step(spec: PairSpec):
    return moe_pair.train_program(spec, learning_rate=1e-2)


def _all_reduce_operands(compiled_text: str) -> int:
    """Operands of all all-reduces in an optimized module (XLA:CPU merges them into tuples)."""
    module = hlo_passes.parse(compiled_text)
    return sum(len(i.operands) for i in module.instructions() if i.opcode in ("all-reduce", "all-reduce-start"))


def _assert_same_after_steps(plain, fused, spec: PairSpec, params, opt_state, x, gs) -> None:
    """STEPS adam steps of both: the same losses and parameters at the compute dtype's rounding,
    with the same shardings and dtypes."""
    p0, s0, p1, s1 = params, opt_state, params, opt_state
    for _ in range(STEPS):
        p0, s0, l0 = plain(p0, s0, x, gs)
        p1, s1, l1 = fused(p1, s1, x, gs)
        np.testing.assert_allclose(np.float32(l1), np.float32(l0), **_tolerance(spec.cfg))
    for name in ("wi_0", "wi_1", "wo"):
        np.testing.assert_allclose(np.asarray(p1[name], np.float32), np.asarray(p0[name], np.float32),
                                   **_tolerance(spec.cfg))
        assert p1[name].sharding == p0[name].sharding and p1[name].dtype == p0[name].dtype


TRAIN_SPECS = [
    PairSpec(form="explicit", mesh="mesh1"),
    PairSpec(form="explicit", mesh="mesh2", checkpoint=True, cfg=BF16),
    PairSpec(form="implicit", mesh="mesh2"),
    PairSpec(form="concat_inside", mesh="mesh1", checkpoint=True),
    PairSpec(form="explicit", mesh="mesh2", mode="scan"),
]


@pytest.mark.parametrize("spec", TRAIN_SPECS, ids=lambda s: s.name)
def test_training_steps_equal(spec: PairSpec) -> None:
    step, params, opt_state, x, gs = _train_step(spec)
    plain = jax.jit(step)
    fused = hlo_passes.jit(step, passes=[RULE])
    lowered = fused.lower(params, opt_state, x, gs)
    assert [s.rule for s in lowered.report] == [RULE]
    text = lowered.compile().as_text()
    original_text = plain.lower(params, opt_state, x, gs).compile().as_text()
    counts, original = runtime.count_ops(text), runtime.count_ops(original_text)
    if spec.form == "explicit":
        stages = len(moe.gather_stages(spec.mesh))
        assert counts["reduce-scatter"] == stages and original["reduce-scatter"] == 2 * stages
        assert [s.rule for s in lowered.report] == [RULE] and lowered.near_misses == []
    else:
        # XLA:CPU reduces the partial sums in one tuple all-reduce: dW0 and dW1 now enter it as one operand,
        # and the all-reduces stay as many.
        assert _all_reduce_operands(text) == _all_reduce_operands(original_text) - 1
        assert counts["all-reduce"] == original["all-reduce"]
        if spec.form == "implicit":
            # The compile held the site's "2 -> 1" against XLA's compiled original, where both gradients
            # are operands of that one op: the xla-combined near miss (issue 47), no site.
            assert lowered.report == [] and [(m.rule, m.check) for m in lowered.near_misses] == [
                (RULE, "xla-combined")]
        else:
            # Not yet (issue 47, open): in the compiled original of concat_inside the halves are slices of
            # dW inside loop fusions (wrapped_slice), which MOE004 does not follow in optimized HLO
            # (groups_of_halves leaves fused cuts out), so it names nothing there and the lowered text's
            # claim "2 -> 1" stays although the compiled program's all-reduces stay as many.
            assert [s.rule for s in lowered.report] == [RULE] and lowered.near_misses == []
    _assert_same_after_steps(plain, fused, spec, params, opt_state, x, gs)


FORWARD_RULE = "moe-pair-gather-fusion"
BOTH_SPECS = [
    PairSpec(form="explicit", mesh="mesh1"),
    PairSpec(form="explicit", mesh="mesh2", checkpoint=True),
    PairSpec(form="explicit", mesh="mesh1", cfg=BF16),
    PairSpec(form="implicit", mesh="mesh1", checkpoint=True),
    PairSpec(form="implicit", mesh="mesh2", cfg=BF16),
    PairSpec(form="concat_inside", mesh="mesh2"),
    PairSpec(form="explicit", mesh="mesh2", mode="scan", checkpoint=True),
]


@pytest.mark.parametrize("spec", BOTH_SPECS, ids=lambda s: s.name)
def test_training_steps_with_both_pair_rules(spec: PairSpec) -> None:
    """Issue 18's whole training step: MOE003 on the forward's gathers (a checkpointed layer's
    recomputed ones too) and MOE004 on the gradients' reductions, through hlo_passes.jit; every
    weight gathered and reduced half as often, the parameters after 5 adam steps jax.jit's."""
    step, params, opt_state, x, gs = _train_step(spec)
    plain = jax.jit(step)
    fused = hlo_passes.jit(step, passes=[FORWARD_RULE, RULE])
    lowered = fused.lower(params, opt_state, x, gs)
    assert {s.rule for s in lowered.report} == {FORWARD_RULE, RULE} and all(s.rewritten for s in lowered.report)
    text = lowered.compile().as_text()
    original_text = plain.lower(params, opt_state, x, gs).compile().as_text()
    counts, original = runtime.count_ops(text), runtime.count_ops(original_text)
    assert original["all-gather"] == 2 * counts["all-gather"] > 0, (original["all-gather"], counts["all-gather"])
    if spec.form == "explicit":
        assert original["reduce-scatter"] == 2 * counts["reduce-scatter"] > 0
    else:
        assert _all_reduce_operands(text) == _all_reduce_operands(original_text) - 1
    _assert_same_after_steps(plain, fused, spec, params, opt_state, x, gs)


def test_scanned_implicit_training_step_gathers_refused_and_said_why() -> None:
    """Not yet: in a scanned implicit training step the stacked weights that enter the scan's
    shard_map are read outside it too (the backward's scan), so MOE003 refuses the forward's
    gathers — a near miss naming the value — while MOE004 still fuses the gradients."""
    spec = PairSpec(form="implicit", mesh="mesh1", mode="scan")
    step, params, opt_state, x, gs = _train_step(spec)
    text = jax.jit(step).lower(params, opt_state, x, gs).as_text()
    result = run_passes(hlo_passes.parse(text), [FORWARD_RULE, RULE])
    assert [s.rule for s in result.sites if s.rewritten] == [RULE]
    (miss,) = [m for m in result.near_misses if m.rule == FORWARD_RULE]
    assert miss.check == "extra-users" and "is used outside" in miss.reason


def _steps(step, params, opt_state, x, gs, n: int) -> tuple[list, list[tuple]]:
    """``n`` steps of a norm-reporting step from ``(params, opt_state)``: the final state and each
    step's (loss, norm)."""
    state, outputs = [params, opt_state], []
    for _ in range(n):
        *state, loss, norm = step(*state, x, gs)
        outputs.append((loss, norm))
    return state, outputs


def _norm_reporting_step(spec: PairSpec):
    """The training step of ``spec`` that also returns the gradients' global norm (MaxText's
    ``grad_norm`` metric): each weight's sum of squares is reduced over the mesh, and XLA:CPU's
    combiner puts those scalars, gate's and up's, into one tuple all-reduce."""
    import optax

    mesh = moe_pair.program_mesh(spec)
    forward = moe_pair.program_fn(spec.replace(mode="scan" if spec.stacked else "forward"), mesh)
    optimizer = optax.adam(1e-2)

    def step(params, opt_state, x, gs):
        def loss(p):
            return jnp.mean(jnp.square(forward(x, gs, p["wi_0"], p["wi_1"], p["wo"]).astype(jnp.float32)))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value, optax.tree.norm(grads)

    x, gs, wi_0, wi_1, wo = moe_pair.inputs(spec, mesh)
    params = {"wi_0": wi_0, "wi_1": wi_1, "wo": wo}
    return step, params, optimizer.init(params), x, gs


@pytest.mark.parametrize("form", ["explicit", "implicit"])
def test_installed_gradients_with_a_combined_norm_reduction_rewritten_once(form: str) -> None:
    """Issue 46 (MaxText's apart layout, fsdp x fsdp_transpose): inside XLA the two gradients'
    norms are reduced in one combined all-reduce.  Taken apart (``held``) the halves go their
    own ways and the site is rewritten; held again, the combined op read as the halves' meeting
    hid the site, so each round took the op apart and held it again and the rule never reached
    a fixed point (the module fell back; the explicit form's site went unfound).  A combined op
    is read as its plain collectives: no fallback, the explicit form's site (a reduce-scatter per
    weight and stage) rewritten once per module, the next round leaves it be, and 3 adam steps
    equal jax.jit's.  The implicit form's two gradients are themselves operands of one combined
    all-reduce (XLA:CPU's combiner): the xla-combined near miss (issue 47), nothing rewritten —
    fusing them left the compiled step's all-reduces at 2 (operands 5 -> 4), not the "2 -> 1" the
    site claimed."""
    spec = PairSpec(form=form, mesh="mesh2")
    step, params, opt_state, x, gs = _norm_reporting_step(spec)
    want, wanted = _steps(jax.jit(step), params, opt_state, x, gs, 3)
    jax.clear_caches()  # the step compiled again, with the pass installed
    hlo_passes.install("rewrite", platforms="cpu", passes=[RULE])
    try:
        got, outputs = _steps(jax.jit(step), params, opt_state, x, gs, 3)
        for (loss, norm), (loss0, norm0) in zip(outputs, wanted):
            np.testing.assert_allclose(np.float32(loss), np.float32(loss0), **_tolerance(spec.cfg))
            np.testing.assert_allclose(np.float32(norm), np.float32(norm0), **_tolerance(spec.cfg))
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    # (Compiled twice: the second step's arguments are the first's results, placed by it.)
    assert report.modules and not report.fallbacks, str(report)
    if form == "explicit":
        assert all(len(m.rewritten) == 1 for m in report.modules), str(report)
    else:
        assert all(not m.rewritten and [(n.rule, n.check) for n in m.near_misses] == [(RULE, "xla-combined")]
                   for m in report.modules), str(report)
    for name in ("wi_0", "wi_1", "wo"):
        np.testing.assert_allclose(np.asarray(got[0][name], np.float32), np.asarray(want[0][name], np.float32),
                                   **_tolerance(spec.cfg))


# ---- optimized HLO: rewritten through its fusions ----------------------------------------

@pytest.mark.parametrize("mesh", moe.MESHES)
def test_compiled_pair_rewritten(mesh: str) -> None:
    """``compile().as_text()`` (scheduled): the two reduce-scatters become one, the text stays
    valid.  (In the module XLA's pipeline hands a pass, ordered before scheduling, a reader of the
    first gradient comes before the second is computed: it moves after the fused reduction,
    tests/test_compiled_rewrite.py.)"""
    text = moe_pair.lower(PairSpec(form="explicit", mesh=mesh, mode="grad")).compile().as_text()
    result = run_passes(hlo_passes.parse(text), [RULE])
    (site,) = result.sites
    assert site.form == "two_gmm_apart" and site.rewritten and not site.details.not_rewritten
    assert site.before.count == 2 * site.after.count
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    scatters = [runtime.count_ops(t)["reduce-scatter"] for t in (text, new_text)]
    assert scatters[1] == scatters[0] - site.after.count
    assert "reduce-scatter" in text.splitlines()[site.location.line - 1]


# ---- no false positives -----------------------------------------------------------------

NOT_OURS = [
    # MOE002's sites: a prefused weight's gradient, halves that meet again (explicit and implicit).
    *(ProgramSpec(variant=v, mesh=m, form=f, mode="grad")
      for v in ("concat", "two_gmm") for m in moe.MESHES for f in ("explicit", "implicit")),
    ProgramSpec(variant="concat", mesh="mesh2", mode="scan_grad"),
    # A prefused weight gathered and reduced once.
    ProgramSpec(variant="fused", mesh="mesh2", mode="grad"),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", NOT_OURS, ids=lambda s: s.name)
def test_no_site_on_moe002_programs(spec: ProgramSpec, dialect: str) -> None:
    text = moe.lower(spec).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert result.sites == [] and result.near_misses == [] and result.module.to_text() == text
    if spec.variant != "fused":  # MOE002 still finds its site with MOE004 run first
        both = run_passes(hlo_passes.parse(text), [RULE, "moe-gradient-fusion"])
        assert [s.rule for s in both.sites] == ["moe-gradient-fusion"]


@pytest.mark.parametrize("form", moe_pair.PAIR_FORMS)
def test_no_site_where_the_gradient_is_reduced_once(form: str) -> None:
    """The hand-fused programs (one gather, one GMM, one reduction of both weights' gradient)."""
    for dialect in DIALECTS:
        spec = PairSpec(variant="fused", form=form, mesh="mesh2", mode="grad")
        result = run_passes(hlo_passes.parse(_text(spec, dialect)), [RULE])
        assert result.sites == [] and result.near_misses == []


# ---- near misses -----------------------------------------------------------------------

def _near_miss_program(kind: str, e: int, d: int, f: int, t: int):
    """Two weight gradients x^T a, x^T b in a shard_map, each reduced apart, in an illegal way."""
    mesh_kind = "mesh2" if kind == "groups_differ" else "mesh1"
    mesh = moe.make_mesh(mesh_kind, 8)
    axes = moe.gather_stages(mesh_kind)

    def reduce(h, stages=axes, dim=1):
        for a in stages:
            h = jax.lax.psum_scatter(h, a, scatter_dimension=dim, tiled=True)
        return h

    def body(x, a, b):
        ga = jnp.einsum("etd,etf->edf", x, a)
        precision = jax.lax.Precision.HIGHEST if kind == "gmm_differs" else None
        gb = jnp.einsum("etd,etf->edf", x, b, precision=precision)
        if kind == "scatter_on_split_dim":
            return reduce(ga, dim=2), reduce(gb, dim=2)
        if kind == "groups_differ":
            return reduce(ga), reduce(gb, stages=tuple(reversed(axes)))
        if kind == "extra_user":
            return reduce(ga), reduce(gb) + jnp.sum(ga)
        return reduce(ga), reduce(gb)

    w_spec = (P(None, None, moe.fsdp_axes(mesh_kind)) if kind == "scatter_on_split_dim"
              else P(None, moe.fsdp_axes(mesh_kind), None))
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), P()), out_specs=(w_spec, w_spec),
                               check_vma=False))
    # Scattered along F, weights of one size are joined in blocks (a site, scattered_f fixtures);
    # of two sizes their blocks would be of two widths: refused.
    f_b = 2 * f if kind == "scatter_on_split_dim" else f
    args = [jax.ShapeDtypeStruct(s, jnp.float32, sharding=NamedSharding(mesh, P()))
            for s in ((e, t, d), (e, t, f), (e, t, f_b))]
    return fn.lower(*args)


NEAR_MISSES = {
    "scatter_on_split_dim": "scatter-dim",
    "groups_differ": "same-collectives",
    "extra_user": "extra-users",
    "gmm_differs": "same-gmm",
}


@given(kind=st.sampled_from(sorted(NEAR_MISSES)), dialect=st.sampled_from(DIALECTS),
       e=st.integers(1, 3), d=st.sampled_from([8, 16]), f=st.sampled_from([8, 16]), t=st.integers(1, 6))
def test_near_misses_refused_and_explained(kind: str, dialect: str, e: int, d: int, f: int, t: int) -> None:
    text = _near_miss_program(kind, e, d, f, t).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert result.sites == [] and result.module.to_text() == text
    checks = [m.check for m in result.near_misses]
    assert NEAR_MISSES[kind] in checks, [str(m) for m in result.near_misses]
    miss = result.near_misses[checks.index(NEAR_MISSES[kind])]
    assert miss.location.line > 0 and miss.reason and miss.rule == RULE


def test_the_legal_form_of_the_near_miss_program_is_rewritten() -> None:
    """The same program with both gradients reduced alike: a site, and the same numbers."""
    lowered = _near_miss_program("legal", 2, 16, 8, 5)
    for dialect in DIALECTS:
        text = lowered.as_text(dialect=dialect)
        result = run_passes(hlo_passes.parse(text), [RULE])
        (site,) = result.sites
        assert site.rewritten and site.form == "two_gmm_apart"
        rng = np.random.default_rng(1)
        args = [rng.standard_normal(s).astype(np.float32) for s in ((2, 5, 16), (2, 5, 8), (2, 5, 8))]
        want = runtime.compile_text(text, num_devices=8).run(*args)
        got = runtime.compile_text(result.module.to_text(), num_devices=8).run(*args)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


# ---- properties: equivalence on drawn programs, rewriting twice changes nothing ------------

@st.composite
def pair_grad_programs(draw):
    devices = draw(st.sampled_from([2, 4, 8]))
    cfg = MoEConfig(
        experts=draw(st.integers(1, 4)),
        embed=8 * draw(st.integers(1, 2)),
        mlp=draw(st.sampled_from([4, 8])),
        tokens=draw(st.integers(1, 16)),
        empty_groups=draw(st.booleans()),
        dtype=draw(st.sampled_from(["float32", "bfloat16"])),
        seed=draw(st.integers(0, 3)),
    )
    spec = PairSpec(form=draw(st.sampled_from(moe_pair.PAIR_FORMS)), mesh=draw(st.sampled_from(moe.MESHES)),
                    num_devices=devices, mode="grad", checkpoint=draw(st.booleans()), cfg=cfg)
    return spec, draw(st.sampled_from(DIALECTS))


@given(pair_grad_programs())
def test_property_pair_gradients_preserved(case) -> None:
    spec, dialect = case
    text = moe_pair.lower(spec).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE])
    assert len(result.sites) == 1 and result.near_misses == []
    new_text = result.module.to_text()
    _, want = _run(text, spec)
    _, got = _run(new_text, spec)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **_tolerance(spec.cfg))
    assert run_passes(hlo_passes.parse(new_text), [RULE]).sites == []


# ---- XLA's dumps: before optimizations and after SPMD partitioning, rewritten and executed ---

DUMPED = {
    "pair_mesh2_explicit_grad": PairSpec(form="explicit", mesh="mesh2", mode="grad"),
    "pair_mesh1_implicit_grad_remat": PairSpec(form="implicit", mesh="mesh1", mode="grad", checkpoint=True),
    "pair_mesh1_concat_inside_grad": PairSpec(form="concat_inside", mesh="mesh1", mode="grad"),
}


@pytest.mark.parametrize("stage", ["before_optimizations", "after_spmd_partitioning"])
@pytest.mark.parametrize("program", sorted(DUMPED))
def test_pair_gradients_in_xla_dumps(pair_grad_dumps, program: str, stage: str) -> None:
    spec = DUMPED[program]
    text = Path(pair_grad_dumps[program][stage]).read_text()
    # Compiled on this XLA:CPU below: where its dots round by their shape, the GMMs are kept as written.
    result = run_passes(hlo_passes.parse(text), [RULE], context=compiled_here_context())
    (site,) = result.sites
    assert site.rewritten and result.near_misses == []
    assert site.before.count == 2 * site.after.count
    original = runtime.compile_text(text, num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    if stage == "before_optimizations":
        want, got = original.run(*moe_pair.host_inputs(spec)), rewritten.run(*moe_pair.host_inputs(spec))
        pairs = [(np.asarray(g, np.float32), np.asarray(w, np.float32)) for g, w in zip(got, want)]
    else:
        # A partitioned module takes each device's shard: the same drawn shards for both.
        rng = np.random.default_rng(0)
        args = [[(rng.integers(0, 4, p.shape) if np.issubdtype(p.dtype, np.integer)
                  else rng.standard_normal(p.shape)).astype(p.dtype) for _ in range(8)]
                for p in original.parameters]
        pairs = [(g, w) for gd, wd in zip(rewritten.run_per_device(*args), original.run_per_device(*args))
                 for g, w in zip(gd, wd)]
    assert pairs
    for g, w in pairs:
        np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(w, np.float32), **_tolerance(spec.cfg))


def _reductions(compiled_text: str) -> int:
    """The reduction collectives a compiled program launches (a combined op once)."""
    counts = runtime.count_ops(compiled_text)
    return counts["all-reduce"] + counts["reduce-scatter"]


@pytest.mark.parametrize("mesh", ["mesh1", "mesh2"])
def test_installed_kept_gmms_reductions_combined_as_claimed(mesh: str) -> None:
    """Issues 46/47: the two weights' gradients of an apart layer, each reduce-scattered over the FSDP
    axes in a shard_map (one stage per mesh axis), run inside XLA (``install(mode="rewrite")``) where
    XLA:CPU's dots round by their shape: the GMMs are kept as written and each stage's two
    reductions become one combined reduce-scatter of both results — no join, no copy (bytes 0) — so
    the step computes jax.jit's values bit for bit, and the compiled program launches as many
    reductions fewer as the site claims ("A -> B")."""
    spec = PairSpec(form="explicit", mesh=mesh)
    step, params, opt_state, x, gs = _norm_reporting_step(spec)
    plain = jax.jit(step)
    original = _reductions(plain.lower(params, opt_state, x, gs).compile().as_text())
    want, wanted = _steps(plain, params, opt_state, x, gs, 2)
    jax.clear_caches()  # the step compiled again, with the pass installed
    hlo_passes.install("rewrite", platforms="cpu", passes=[RULE])
    try:
        fused = jax.jit(step)
        compiled = fused.lower(params, opt_state, x, gs).compile().as_text()
        got, outputs = _steps(fused, params, opt_state, x, gs, 2)
        for (loss, norm), (loss0, norm0) in zip(outputs, wanted):
            np.testing.assert_array_equal(np.asarray(loss), np.asarray(loss0))
            np.testing.assert_array_equal(np.asarray(norm), np.asarray(norm0))
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
        jax.clear_caches()
    assert report.modules and not report.fallbacks, str(report)
    sites = report.modules[0].sites
    assert [s.form for s in sites] == ["two_gmm_apart"], str(report)
    (site,) = sites
    assert "combined reduce-scatter of both results" in (site.details.gmms_kept or ""), site.details.gmms_kept
    assert site.bytes_saved == 0 and site.copies_added == 0
    assert _reductions(compiled) == original - (site.before.count - site.after.count), (original, compiled)
    for name in ("wi_0", "wi_1", "wo"):
        np.testing.assert_array_equal(np.asarray(got[0][name]), np.asarray(want[0][name]))
