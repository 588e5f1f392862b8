"""moe-pair-gather-fusion (MOE003), executed: the two-weight programs of examples/moe_pair.py
lowered, rewritten, compiled and run on 8 CPU devices against the original; the compiled
program gathers the weights half as often and runs one GMM where it ran two."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import hlo_passes
from examples import moe_pair
from examples.moe import MoEConfig, gather_stages
from examples.moe_pair import PAIR_FORMS, PairSpec
from hlo_passes import runtime
from hlo_passes.passes import run_passes
from hlo_passes.rewrites.split.pairs import is_grouped
from moe_cases import DIALECTS

RULE = "moe-pair-gather-fusion"
BF16 = MoEConfig(dtype="bfloat16")


@functools.lru_cache(maxsize=None)
def lowered_text(spec: PairSpec, dialect: str) -> str:
    return moe_pair.lower(spec).as_text(dialect=dialect)


@functools.lru_cache(maxsize=None)
def _compiled(text: str) -> runtime.Executable:
    return runtime.compile_text(text, num_devices=8)


def _outputs(text: str, spec: PairSpec) -> list[np.ndarray]:
    return [np.asarray(a) for a in _compiled(text).run(*moe_pair.host_inputs(spec))]


def _gathers(text: str) -> int:
    return runtime.count_ops(_compiled(text).compiled_text)["all-gather"]


def _gmms(module: hlo_passes.Module) -> int:
    return sum(1 for i in module.instructions() if i.opcode in ("dot", "ragged-dot") and is_grouped(i))


def assert_equal_outputs(got: list, want: list, spec: PairSpec) -> None:
    """f32 forward: bit for bit (each output element is the same sum in the same order).
    Training steps: the weight-gradient reductions may run in another order, so at the
    compute dtype's rounding, as tests/test_moe_pair_examples.py compares the hand-fused one."""
    assert len(got) == len(want)
    exact = spec.mode in ("forward", "scan") and spec.cfg.dtype == "float32"
    bf16 = spec.cfg.dtype == "bfloat16"
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            tol = dict(rtol=2 ** -7, atol=2 ** -7) if bf16 else dict(rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(w, np.float32), **tol)


def check_rewrite(spec: PairSpec, dialect: str, form: str, missed: tuple[str, ...] = ()) -> hlo_passes.passes.Result:
    """Every site of ``form`` rewritten; equal outputs; half the gathers; one GMM fewer per
    site; a second run changes nothing.  ``missed``: the near misses expected (their checks)."""
    text = lowered_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), [RULE], strict=True)
    assert [m.check for m in result.near_misses] == list(missed), [str(m) for m in result.near_misses]
    assert result.sites and all(s.form == form and s.rewritten for s in result.sites), result.sites
    assert all(s.before.count == 2 * s.after.count for s in result.sites)
    new_text = result.module.to_text()
    assert_equal_outputs(_outputs(new_text, spec), _outputs(text, spec), spec)
    # Each stage gathers once instead of once per weight (Shardy may gather both mesh
    # axes of an implicit chain in one collective).
    stages = len(gather_stages(spec.mesh))
    before = _gathers(text)
    if missed:  # the sites refused keep their gathers
        assert _gathers(new_text) == before - sum(s.before.count - s.after.count for s in result.sites)
    else:
        assert before in (2 * stages * len(result.sites), 2 * len(result.sites)), before
        assert _gathers(new_text) * 2 == before
    original = hlo_passes.parse(text)
    if form == "two_gmm":
        assert _gmms(result.module) == _gmms(original) - len(result.sites)
    else:  # the concatenate inside is gone: the gathered weight is read directly
        assert _gmms(result.module) == _gmms(original)
    again = run_passes(hlo_passes.parse(new_text), [RULE])
    assert again.sites == [] and again.module.to_text() == new_text
    assert [m.check for m in again.near_misses] == list(missed)
    return result


def _form(spec: PairSpec) -> str:
    return "concat" if spec.form == "concat_inside" else "two_gmm"


FORWARD = [PairSpec(form=f, mesh=m) for f in PAIR_FORMS for m in ("mesh1", "mesh2")]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec", FORWARD, ids=lambda s: s.name)
def test_forward_fused_and_equal(spec: PairSpec, dialect: str) -> None:
    result = check_rewrite(spec, dialect, _form(spec))
    assert result.sites[0].details.collectives == ("explicit" if spec.form == "explicit" else "implicit")


# Training steps, scans, bf16 and the libraries' other spellings, each in one dialect
# (alternating) to keep the suite fast; both dialects are covered by each kind.
MORE = [
    (PairSpec(form="explicit", mode="grad"), "stablehlo"),
    (PairSpec(form="implicit", mesh="mesh2", mode="grad"), "hlo"),
    (PairSpec(form="concat_inside", mode="grad"), "stablehlo"),
    (PairSpec(form="explicit", mesh="mesh2", mode="scan"), "hlo"),
    (PairSpec(form="implicit", mode="scan"), "stablehlo"),
    (PairSpec(form="concat_inside", mesh="mesh2", mode="scan"), "hlo"),
    (PairSpec(form="explicit", cfg=BF16), "hlo"),
    (PairSpec(form="implicit", mesh="mesh2", cfg=BF16), "stablehlo"),
    (PairSpec(form="concat_inside", mode="grad", cfg=BF16), "hlo"),
    (PairSpec(form="explicit", mesh="mesh2", mode="scan_grad", checkpoint=True), "stablehlo"),
    (PairSpec(form="implicit", mode="grad", checkpoint=True), "hlo"),
    (PairSpec(form="implicit", lhs="padded_twice"), "stablehlo"),
    (PairSpec(form="implicit", mesh="mesh2", constraint="in_specs"), "hlo"),
]


@pytest.mark.parametrize(("spec", "dialect"), MORE, ids=lambda v: v.name if isinstance(v, PairSpec) else v)
def test_training_scan_and_bf16_fused_and_equal(spec: PairSpec, dialect: str) -> None:
    check_rewrite(spec, dialect, _form(spec), missed=MISSED.get((spec, dialect), ()))


# Near misses expected in these programs (none: under jax.checkpoint the recomputation hands
# each gathered weight to the backward too, and that use reads its slice of the fused gather).
MISSED: dict = {}


def test_rewritten_program_computes_what_jax_computes() -> None:
    """The rewritten explicit program gives jax.jit's own values, and the hand-fused
    program's (the target of examples/moe_pair.py), not only the original module's."""
    spec = PairSpec(form="explicit", mesh="mesh2")
    result = run_passes(hlo_passes.parse(lowered_text(spec, "stablehlo")), [RULE])
    got = _outputs(result.module.to_text(), spec)
    np.testing.assert_array_equal(got[0], moe_pair.run(spec))
    np.testing.assert_array_equal(got[0], moe_pair.run(spec.replace(variant="fused")))


# ---- opt-in, the APIs that select it, and MOE001's sites ---------------------------------

def test_opt_in_not_run_by_default_but_when_named() -> None:
    from hlo_passes.passes import rule_meta

    assert rule_meta(RULE).opt_in and rule_meta(RULE).code == "MOE003"
    spec = PairSpec(form="explicit")
    module = hlo_passes.parse(lowered_text(spec, "stablehlo"))
    assert [s.rule for s in run_passes(module).sites] == []  # not in the default passes
    assert [s.rule for s in run_passes(module, [RULE]).sites] == [RULE]


def test_jit_with_the_pass_named_runs_one_gather_and_jax_s_values() -> None:
    spec = PairSpec(form="implicit", mesh="mesh2")
    fn, args = moe_pair.build(spec)
    fast = hlo_passes.jit(moe_pair.program_fn(spec), passes=[RULE])
    lowered = fast.lower(*args)
    assert [s.rule for s in lowered.report] == [RULE] and lowered.rewritten and not lowered.fell_back
    np.testing.assert_array_equal(np.asarray(fast(*args)), np.asarray(fn(*args)))
    gathers = lambda c: runtime.count_ops(c.as_text())["all-gather"]  # noqa: E731
    assert gathers(lowered.compile()) * 2 == gathers(fn.lower(*args).compile())
    # Without the pass named, hlo_passes.jit leaves the program as jax wrote it.
    assert [s.rule for s in hlo_passes.jit(moe_pair.program_fn(spec)).lower(*args).report] == []


def test_cli_rewrite_with_passes_and_lint_reports_moe003(tmp_path) -> None:
    import io

    from hlo_passes import cli

    spec = PairSpec(form="concat_inside")
    src = tmp_path / "pair.mlir"
    src.write_text(lowered_text(spec, "stablehlo"))
    out = tmp_path / "out.mlir"
    assert cli.rewrite_main([str(src), "--passes", RULE, "-o", str(out)], stderr=io.StringIO()) == 0
    rewritten = out.read_text()
    assert rewritten != src.read_text()
    assert_equal_outputs(_outputs(rewritten, spec), _outputs(src.read_text(), spec), spec)
    default = tmp_path / "default.mlir"
    assert cli.rewrite_main([str(src), "-o", str(default)], stderr=io.StringIO()) == 0
    assert default.read_text() == src.read_text()  # opt-in: the default passes leave it
    report = io.StringIO()
    cli.lint_main([str(src), "-j", "1"], stdout=report)
    assert "MOE003" in report.getvalue()
    (finding,) = hlo_passes.lint(hlo_passes.parse(src.read_text()))
    assert finding.rule == "MOE003" and finding.bytes_saved > 0


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("variant", ["concat", "two_gmm"])
def test_prefused_weight_is_moe001_s_site_only(variant: str, dialect: str) -> None:
    """Slices of one prefused W gathered apart: MOE001 fires, MOE003 finds nothing there."""
    from examples.moe import ProgramSpec
    from moe_cases import lowered_text as moe_text

    module = hlo_passes.parse(moe_text(ProgramSpec(variant=variant), dialect))
    both = run_passes(module, ["moe-gather-fusion", RULE])
    assert [s.rule for s in both.sites] == ["moe-gather-fusion"] and both.near_misses == []
    alone = run_passes(module, [RULE])
    assert alone.sites == [] and alone.near_misses == []


def test_hand_fused_program_has_no_site() -> None:
    for form in PAIR_FORMS:
        spec = PairSpec(form=form, variant="fused")
        result = run_passes(hlo_passes.parse(lowered_text(spec, "hlo")), [RULE])
        assert result.sites == [] and result.near_misses == [], form


def test_lint_json_of_a_two_gmm_site_is_valid_with_its_honest_saving(tmp_path) -> None:
    """Two GMMs: the rewrite saves a collective and a GMM launch per stage but copies the local
    concatenation and the output slices: the finding says so (a negative byte saving)."""
    import io
    import json

    import jsonschema

    from hlo_passes import cli
    from hlo_passes.diagnostics import schema

    src = tmp_path / "pair.hlo"
    src.write_text(lowered_text(PairSpec(form="explicit", mesh="mesh2"), "hlo"))
    out = io.StringIO()
    cli.lint_main([str(src), "-j", "1", "--format", "json"], stdout=out)
    findings = json.loads(out.getvalue())
    jsonschema.validate(findings, schema.generate())
    (finding,) = findings
    assert finding["rule"] == "MOE003" and finding["bytes_saved"] < 0
    assert "4 collectives, 2 when concatenated first" in finding["message"]
    text = io.StringIO()
    cli.lint_main([str(src), "-j", "1"], stdout=text)
    assert f"fusing copies {-finding['bytes_saved']:,} more bytes per device" in text.getvalue()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_weights_read_elsewhere_too_stay_and_the_site_is_rewritten(dialect: str) -> None:
    """A training step reads the weights outside the shard_map as well (the optimizer's
    update): the two parameters stay, feeding their other uses, and one concatenate of
    them enters the shard_map."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    from examples.moe import gmm

    spec = PairSpec(form="concat_inside")
    mesh = moe_pair.program_mesh(spec)
    f = spec.cfg.mlp
    mapped = jax.shard_map(lambda x, gs, w0, w1: gmm(x, jnp.concatenate([w0, w1], axis=-1), gs)[:, :f],
                           mesh=mesh, in_specs=(P(), P(), P(), P()), out_specs=P(), check_vma=False)

    def step(x, gs, w0, w1):
        return mapped(x, gs, w0, w1), w0 * 0.5 + w1  # the weights' other use: an update

    x, gs, w0, w1, _ = moe_pair.inputs(spec, mesh)
    text = jax.jit(step).lower(x, gs, w0, w1).as_text(dialect=dialect)
    result = run_passes(hlo_passes.parse(text), [RULE], strict=True)
    assert [s.form for s in result.sites] == ["concat"] and result.near_misses == []
    new_text = result.module.to_text()
    args = [np.asarray(a) for a in (x, gs, w0, w1)]
    want = runtime.compile_text(text, num_devices=8).run(*args)
    got = runtime.compile_text(new_text, num_devices=8).run(*args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# ---- MaxText's sharding of the two weights -----------------------------------------------

def test_f_named_on_axes_of_size_one_is_not_sharded() -> None:
    """MaxText's RoutedMoE (``make check-maxtext``) shards ``wi_0``/``wi_1`` as
    ``P(expert, (fsdp, ...), (fsdp_transpose, tensor, ...))``: on an FSDP-only mesh the axes
    on F have size 1 and split nothing, so the weights may be concatenated along F (the rule
    refused this as ``concat-dim-sharded`` before).  An F really split (size 2) and gathered is
    rewritten too (issue 32): joined shard by shard, the GMM's output split by blocks."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def program(mesh: Mesh):
        def body(x, gs, w0, w1):
            return jax.lax.ragged_dot(x, w0, gs) * jax.lax.ragged_dot(x, w1, gs)

        inner = jax.shard_map(body, mesh=mesh, in_specs=(P(),) * 4, out_specs=P(), check_vma=False)

        def layer(x, gs, w0, w1):
            # The layer's own constraint drops every axis before the shard_map (MaxText's form).
            drop = lambda w: jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P()))  # noqa: E731
            return inner(x, gs, drop(w0), drop(w1))

        return jax.jit(layer)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32), dtype=np.float32)
    gs = np.array([5, 0, 6, 5], np.int32)
    w0, w1 = (rng.standard_normal((4, 32, 8), dtype=np.float32) for _ in range(2))
    for shape, blocked in (((8, 1), None), ((4, 2), "split by blocks of 4")):
        mesh = Mesh(np.array(jax.devices()[:8]).reshape(shape), ("fsdp", "tensor"))
        w_sharding = NamedSharding(mesh, P(None, "fsdp", "tensor"))
        args = (jnp.asarray(x), jnp.asarray(gs), jax.device_put(w0, w_sharding), jax.device_put(w1, w_sharding))
        text = program(mesh).lower(*args).as_text()
        result = run_passes(hlo_passes.parse(text), [RULE], strict=True)
        assert [(s.rewritten, s.details.blocked) for s in result.sites] == [(True, blocked)], \
            [str(m) for m in result.near_misses]
        new_text = result.module.to_text()
        host = (x, gs, w0, w1)
        want = [np.asarray(a) for a in _compiled(text).run(*host)]
        got = [np.asarray(a) for a in _compiled(new_text).run(*host)]
        np.testing.assert_array_equal(got[0], want[0])
        assert _gathers(new_text) * 2 == _gathers(text) > 0


@pytest.mark.parametrize("damage", ["no in_shardings", "one in_sharding short"])
def test_unreadable_shard_map_shardings_are_a_near_miss(damage: str) -> None:
    """Mutants of the fuzz campaign once all rules ran (seed 21: 1837, 5456, 17511): a shard_map
    whose in_shardings are missing or too short raised out of the rule's matching (a KeyError;
    a refusal outside the checks); now the site is refused, saying which shardings."""
    import re
    from pathlib import Path

    text = (Path(__file__).parent / "fixtures" / RULE / "implicit.mlir").read_text().split("// -----")[0]
    if damage == "no in_shardings":
        broken = re.sub(r"in_shardings=\[.*?\] out_shardings", "out_shardings", text, count=1)
        reason = "has no in_shardings"
    else:
        broken = text.replace("<@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings",
                              "<@mesh, [{}, {}, {}]>] out_shardings", 1)
        reason = "lists 3 value(s), none for number 3"
    assert broken != text
    result = run_passes(hlo_passes.parse(broken), [RULE], strict=True)
    assert not result.sites
    assert [(m.check, reason in m.reason) for m in result.near_misses] == [("unknown-sharding", True)]
