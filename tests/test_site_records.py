"""One site record, computed once, shown everywhere (issue 47).

* the records of ``hlo_passes.jit``, ``hlo-lint`` and ``hlo-rewrite --report`` for the same program
  are equal: rule code, form, collectives before -> after, bytes, the platform the verdict was
  priced for (and whether it was assumed), the verdict, the place;
* every "A -> B" claim of ``hlo_passes.jit`` equals the change XLA's compiled program shows;
* a summary never contradicts its details (``rewritten: N sites`` counts only what was rewritten;
  ``installed_report()`` counts the modules the lint modes looked at);
* a dump's file names say the platform its sites are priced for; a text that does not say is
  priced for an assumed platform, and the lint says so;
* a frame of a jit wrapper library (equinox) is never the place shown;
* the pass inside XLA (``install()``: the optimized module, where XLA fused away the op the halves
  meet at) shows the same record as the other three: form and place as the program has them; a
  gradient whose GMMs are kept as written is fused there by one combined reduce-scatter (no copy),
  which the lowered text cannot hold: its bytes and verdict are that form's (``COMBINED``);
* ``hlo_passes.jit``'s compile runs the same rules on its optimized module (its optimized-HLO stage):
  a site the lowered text cannot fuse that way (the kept GMMs' reductions) is recorded as the pass
  inside XLA records it, one record per site;
* where XLA's combiner already reduces a gradient's halves in one op, the site is a near miss
  (``xla-combined``) in the jit (checked against the compiled original) and inside XLA, not a saving.
"""
from __future__ import annotations

import functools
import json
import os
import types
from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import pytest

import hlo_passes
from cli_runner import run
from examples import moe, moe_pair, moe_pair_fsdp_transpose, moe_quantized, moe_remat, moe_split_sharded, moe_trainer, \
    moe_weight_forms, remat_scan_train
from hlo_passes._copies import dump_platforms
from hlo_passes.diagnostics import SiteRecord, from_site, record_of, rule_id
from hlo_passes.jax_hook import RewrittenLowered
from hlo_passes.claims import COMPUTED_ONCE, hold_claims
from hlo_passes.lint import compiled_program, lint_text
from hlo_passes.runtime import count_collectives
from hlo_passes.passes import default_passes, resolve_passes
from hlo_passes.source_frames import Frame, user_frame
from programs import REPO_ROOT

SAMPLES = Path(os.environ.get("HLO_PASSES_SHARED", REPO_ROOT.parent / "shared")) / "samples"
PROGRAMS = [("concat", "mesh2", "grad"), ("two_gmm", "mesh1", "grad")]


def _moe_program(variant: str, mesh: str, mode: str) -> tuple:
    spec = moe.ProgramSpec(variant=variant, mesh=mesh, mode=mode)
    m = moe.program_mesh(spec)
    return moe.program_fn(spec, m), moe.inputs(spec, m)


def _form_program(form: str) -> tuple:
    spec = moe_weight_forms.FormSpec(form=form, variant="split", mode="grad")
    m = moe_weight_forms.program_mesh(spec)
    return moe_weight_forms.program_fn(spec, m), moe_weight_forms.inputs(spec, m)


def _remat_scan_program() -> tuple:
    m = remat_scan_train.make_mesh()
    init, step = remat_scan_train.make_train_step(m)
    params, x, gs = remat_scan_train.inputs(m)
    return step, (init(params), x, gs)


def _built(build: Any, *a: Any, **kw: Any) -> tuple:
    """An example's ``build()`` (a jitted function and its arguments) as the plain function."""
    fn, args = build(*a, **kw)
    return getattr(fn, "__wrapped__", fn), tuple(args)


# The examples' programs with sites, compared across the four entry points: tests/test_drop_in.py's
# (examples/moe.py), two weight forms' training steps (examples/moe_weight_forms.py: gate and up the
# other way round, and interleaved) and the user's own remat + scan + optax loop
# (examples/remat_scan_train.py); the last three once per CI run (slow).
def _four_way(name: str, build: Any, *marks: Any, passes: tuple[str, ...] | None = None) -> Any:
    """A program of the four-way comparison; ``passes``: the rules each entry point runs (None: the
    default set; the lint reports every rule, so a program whose sites are the opt-in rules' names them)."""
    return pytest.param((name, build, passes), id=name, marks=marks)


def _pair_program(**kw: Any) -> tuple:
    spec = moe_pair.PairSpec(**kw)
    m = moe_pair.program_mesh(spec)
    return moe_pair.program_fn(spec, m), moe_pair.inputs(spec, m)


# The rules of the two-weight programs (examples/moe_pair.py): MOE003 and MOE004 are opt-in before
# optimization (named for the jit, hlo-lint's fix and hlo-rewrite), the default set inside XLA.
PAIR_RULES = ("MOE001", "MOE002", "MOE003", "MOE004")


FOUR_WAY = [_four_way("-".join(p), functools.partial(_moe_program, *p))
            for p in [*PROGRAMS, ("concat", "mesh1", "scan_grad")]] + [
    _four_way("forms-up_first-grad", functools.partial(_form_program, "up_first"), pytest.mark.slow),
    _four_way("forms-interleaved-grad", functools.partial(_form_program, "interleaved"), pytest.mark.slow),
    _four_way("remat_scan_train", _remat_scan_program, pytest.mark.slow),
    # The test trainer (examples/moe_trainer.py): XLA:CPU's combiner reduces both halves of the
    # weight gradient in one all-reduce, so MOE002's "2 -> 1" on the lowered text is held against
    # the compiled program in every entry point and is a near miss there (xla-combined).
    _four_way("trainer-prefused", functools.partial(_built, moe_trainer.build, "prefused", "one")),
    # Two weights (examples/moe_pair.py: the opt-in rules named), once per CI run.
    _four_way("pair-explicit-grad", functools.partial(_pair_program, form="explicit", mode="grad"),
              pytest.mark.slow, passes=PAIR_RULES),
    _four_way("pair-implicit-grad", functools.partial(_pair_program, form="implicit", mode="grad"),
              pytest.mark.slow, passes=PAIR_RULES),
    # (examples/mixtral_fsdp.py and moe_public.py have no site, near misses only.)
    _four_way("remat-prefused-explicit", functools.partial(_built, moe_remat.build, "prefused", "explicit"),
              pytest.mark.slow, passes=PAIR_RULES),
    _four_way("remat-pair-implicit", functools.partial(_built, moe_remat.build, "pair", "implicit"),
              pytest.mark.slow, passes=PAIR_RULES),
    _four_way("pair_fsdp_transpose-grad", functools.partial(_built, moe_pair_fsdp_transpose.build, "implicit", "pair",
                                                            "grad"), pytest.mark.slow, passes=PAIR_RULES),
    _four_way("quantized-maxtext", functools.partial(_built, moe_quantized.build, moe_quantized.QuantSpec()),
              pytest.mark.slow, passes=PAIR_RULES),
    _four_way("split_sharded-grad", functools.partial(_built, moe_split_sharded.build, "prefused", 2, "grad"),
              pytest.mark.slow, passes=PAIR_RULES),
    _four_way("split_sharded-pair-grad", functools.partial(_built, moe_split_sharded.build, "pair", 2, "grad"),
              pytest.mark.slow, passes=PAIR_RULES),
]
# Where the four differ by design (the interleaved form's MOE002 site, the two-GMM programs' and
# remat_scan_train's): a weight gradient whose two GMMs are kept as written (this XLA:CPU's
# dots round by their shape) is fused before optimization by joining the GMMs' results (a copy, the
# bytes the jit, hlo-lint and hlo-rewrite price on the lowered text; on remat_scan_train it does not pay)
# and inside XLA by one combined reduce-scatter of both results, which StableHLO cannot write (its
# reduce_scatter takes one operand): no copy, bytes 0, and it pays.  Those install records are held to
# exactly that (the site's other fields equal to the jit's), below.
COMBINED = "combined reduce-scatter"
JAX = tuple(int(x) for x in jax.__version__.split(".")[:2])


def _record(d) -> tuple:
    x = d.details
    return (d.rule, d.form, x["collectives_before"], x["collectives_after"], d.bytes_saved, x.get("priced_for"),
            x.get("price"), x.get("pays"), d.source, d.line, d.column)


def _report_record(s: dict) -> tuple:
    """hlo-rewrite --report's site: its price names the platform (``... per device on cpu``)."""
    x, loc = s["details"], s["location"]
    platform = x["price"].split(" per device on ", 1)[1].split()[0]
    return (s["rule_id"], s["form"], s["before"]["count"], s["after"]["count"], s["bytes_saved"], platform,
            x.get("price"), x.get("pays"), loc.get("source"), loc["line"], loc["column"])


@pytest.fixture(scope="module", params=PROGRAMS, ids=["-".join(p) for p in PROGRAMS])
def program(request, tmp_path_factory) -> dict:
    """examples/moe.py's program, as the four-way comparison built and compiled it (``_four_ways``)."""
    (param,) = [p for p in FOUR_WAY if p.id == "-".join(request.param)]
    name, build, passes = param.values[0]
    return _four_ways(name, build, passes, tmp_path_factory.getbasetemp())


def test_jit_lint_and_rewrite_show_one_record_per_site(program, tmp_path: Path) -> None:
    low = program["low"]
    platform = jax.default_backend()
    jit_sites = [from_site(s) for s in low.report]
    jit_records = [_record(d) for d in jit_sites]
    assert jit_records and all(r[5] == platform for r in jit_records), jit_records
    assert all(d.details["platform_assumed"] is False for d in jit_sites)  # the jit knows its device
    # The text the jit rewrote, linted and rewritten for the platform it was lowered for.
    text = low.original.as_text(debug_info=True)
    lint_records = [_record(d) for d in lint_text(text, dialect="stablehlo", platform=platform)]
    src = tmp_path / "program.mlir"
    src.write_text(text)
    report = tmp_path / "report.json"
    proc = run("hlo-rewrite", src, "--platform", platform, "--kernel", "xla", "--dry-run", "--report", report)
    assert proc.returncode == 0, proc.stderr
    rewrite_records = [_report_record(s) for s in json.loads(report.read_text())["sites"]]
    assert jit_records == lint_records == rewrite_records


def test_the_jit_summary_counts_only_what_was_rewritten(program) -> None:
    low = program["low"]
    first, *rest = low.report
    held = replace(first, rewritten=False, details=replace(first.details, not_rewritten="a reason"))
    shown = RewrittenLowered(low.original, low._lowered, types.SimpleNamespace(sites=[held, *rest], near_misses=[]),
                             None, name="step")
    lines = shown.summary_lines()
    n = len(rest)
    assert lines[0] == f"hlo_passes.jit(step): rewritten: {n} site{'s' * (n != 1)}, 1 detected, not rewritten"
    assert any("detected, not rewritten: a reason" in line for line in lines[1:])


def test_installed_report_counts_what_the_lint_modes_looked_at(program) -> None:
    report, findings = program["installed-log"]
    assert findings and report.findings == len(findings)
    assert len(report.modules) >= 1 and all(m.findings is not None for m in report.modules)
    head = str(report).splitlines()[0]
    assert f"{len(report.modules)} module(s) looked at, {len(findings)} finding(s)" in head, head


# ---- the pricing platform -----------------------------------------------------------------------


def test_a_dumps_file_names_say_its_platform() -> None:
    files = ["d/module_0001.jit_f.before_optimizations.txt", "d/module_0001.jit_f.cpu_after_optimizations.txt",
             "d/module_0002.jit_g.before_optimizations.txt", "d/module_0002.jit_g.sm_9.0_gpu_after_optimizations.txt",
             "d/module_0001.jit_f/module.mlir", "e/module_0003.jit_h.before_optimizations.txt",
             "f/module_0004.jit_k.tpu_after_optimizations.txt", "f/jax_ir0001_jit_k_before.mlir"]
    got = dump_platforms(files)
    assert got == {
        "d/module_0001.jit_f.before_optimizations.txt": "cpu", "d/module_0001.jit_f.cpu_after_optimizations.txt": "cpu",
        "d/module_0002.jit_g.before_optimizations.txt": "gpu",
        "d/module_0002.jit_g.sm_9.0_gpu_after_optimizations.txt": "gpu",
        "d/module_0001.jit_f/module.mlir": "cpu",
        "f/module_0004.jit_k.tpu_after_optimizations.txt": "tpu", "f/jax_ir0001_jit_k_before.mlir": "tpu",
    }  # e/: nothing says; d/'s jax files would be ambiguous (two platforms), so none is guessed


@pytest.mark.skipif(not (SAMPLES / "dump_mesh1_concat").is_dir(), reason="needs ../shared/samples")
def test_the_lint_prices_a_cpu_dump_for_cpu_and_says_when_it_assumes() -> None:
    proc = run("hlo-lint", SAMPLES / "dump_mesh1_concat", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    (finding,) = json.loads(proc.stdout)
    assert finding["details"]["priced_for"] == "cpu" and finding["details"]["platform_assumed"] is False
    assert "assumed" not in proc.stderr
    plain = run("hlo-lint", REPO_ROOT / "examples" / "data" / "moe_mesh2_concat.mlir")
    assert plain.returncode == 1
    assert plain.stderr.endswith("hlo-lint: note: findings priced for tpu, assumed: the text does not say which "
                                 "platform it was compiled for (--platform names it)\n"), plain.stderr
    named = run("hlo-lint", REPO_ROOT / "examples" / "data" / "moe_mesh2_concat.mlir", "--platform", "cpu")
    assert "assumed" not in named.stderr


@pytest.mark.skipif(not (SAMPLES / "dump_mesh1_concat").is_dir(), reason="needs ../shared/samples")
def test_rewrite_prices_a_dump_file_for_the_platform_its_folder_names(tmp_path: Path) -> None:
    src = SAMPLES / "dump_mesh1_concat" / "module_0024.jit_moe_body.before_optimizations.txt"
    report = tmp_path / "report.json"
    proc = run("hlo-rewrite", src, "--dry-run", "--report", report)
    assert proc.returncode == 0, proc.stderr
    (site,) = json.loads(report.read_text())["sites"]
    assert site["details"]["price"].split(" per device on ", 1)[1].startswith("cpu"), site["details"]["price"]


# ---- the place shown ---------------------------------------------------------------------------------------


def test_a_jit_wrapper_librarys_frame_is_never_the_place() -> None:
    # The op made in a library (flax), called through equinox's filter_jit from the user's script.
    frames = [Frame("/venv/lib/python3.12/site-packages/flax/linen/module.py", 700, 0, "_call_wrapped_method"),
              Frame("/venv/lib/python3.12/site-packages/equinox/_jit.py", 263, 0, "__call__"),
              Frame("/home/me/train.py", 41, 0, "main")]
    assert user_frame(frames) == frames[2]


# ---- one record in the four entry points --------------------------------------------------------------------


def _rewrite_json_record(s: dict) -> SiteRecord:
    """hlo-rewrite --report's site as a record (its price names the platform: ``... per device on cpu``)."""
    x = s["details"]
    platform = x["price"].split(" per device on ", 1)[1].split()[0]
    return SiteRecord(s["rule_id"], s["form"], (s["before"]["count"], s["after"]["count"]), s["bytes_saved"],
                      platform, x.get("pays") is not False, s["location"].get("source"),
                      "collectives_as_written" in x)


def _lint_json_record(f: dict) -> SiteRecord:
    """hlo-lint --format json's finding as a record."""
    x = f["details"]
    return SiteRecord(f["rule"], f["form"], (x["collectives_before"], x["collectives_after"]), f["bytes_saved"],
                      x["priced_for"], x.get("pays") is not False, f["source"], "collectives_as_written" in x)


def _compiled_with_the_pass(fn, args, mode: str, passes: tuple[str, ...] | None = None) -> tuple:
    """``installed_report()`` and ``installed_findings()`` of one compile of ``fn`` by jax.jit with
    ``install(mode)``: compiled by XLA again (the other tests compiled these programs), the pass in it."""
    jax.clear_caches()
    hlo_passes.install(mode, passes=passes)
    try:
        jax.jit(fn)(*args)
        return hlo_passes.installed_report(), hlo_passes.xla_pass.installed_findings()
    finally:
        hlo_passes.uninstall()
        jax.clear_caches()


def _inside_xla(passes: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """What the pass inside XLA is installed with: nothing named where ``passes`` are its default set
    (MOE001-MOE004: the two weights' rules, opt-in before optimization, run by default there), so
    that the two-weight programs compare the default set inside XLA with the rules named elsewhere."""
    if passes and set(resolve_passes(passes)) == set(default_passes(compiled=True)):
        return None
    return passes


def _installed(fn, args, passes: tuple[str, ...] | None = None) -> tuple[list[SiteRecord], list, list[SiteRecord]]:
    """The records of the pass inside XLA rewriting (``install("rewrite")``: the sites rewritten), its
    near misses, and the records of the sites whose kept GMMs' reductions it combined (``COMBINED``),
    for one compile of ``fn`` by jax.jit."""
    report, _ = _compiled_with_the_pass(fn, args, "rewrite", passes)
    sites = [s for m in report.modules for s in m.sites]
    return ([record_of(s) for s in sites], [n for m in report.modules for n in m.near_misses],
            [record_of(s) for s in sites if COMBINED in (s.details.to_json().get("gmms_kept") or "")])


@functools.cache
def _four_ways(name: str, build: Any, passes: tuple[str, ...] | None, tmp: Path) -> dict:
    """One program's records from hlo_passes.jit (compiled: its claims held against XLA's program),
    hlo-lint and hlo-rewrite (on the text the jit rewrote, for the platform it was lowered for: a CPU
    text, compiled by them to hold their claims) and the pass inside XLA (lint, rewrite); the
    collectives of XLA's compiled original and of the compiled rewrite."""
    fn, args = build()
    low = hlo_passes.jit(fn, passes=passes).lower(*args)
    compiled = low.compile()
    platform = jax.default_backend()
    text = low.original.as_text(debug_info=True)
    src = tmp / f"{name}.mlir"
    src.write_text(text)
    report = src.with_suffix(".json")
    named = ["--passes", ",".join(passes)] if passes else []
    proc = run("hlo-rewrite", src, "--platform", platform, "--kernel", "xla", "--dry-run", "--report", report, *named)
    assert proc.returncode == 0, proc.stderr
    lint = run("hlo-lint", src, "--platform", platform, "--format", "json")
    assert lint.returncode in (0, 1), lint.stderr
    # XLA's compiled original: the one the jit held its claims against, else compiled here.
    original = low.compiled_original_text or jax.jit(fn).lower(*args).compile().as_text()
    staged = {id(s) for s in low.stage.sites} if low.stage is not None and low.stage.rewritten else set()
    installed, misses, combined = _installed(fn, args, _inside_xla(passes))
    log_report, log_findings = _compiled_with_the_pass(fn, args, "log", _inside_xla(passes))
    assert all(f.record is not None for f in log_findings)
    return {
        "id": name, "low": low,
        # The jit's records of the lowered text's sites, and of those its optimized-HLO stage rewrote
        # (``hlo_passes.xla_stage``: the pass inside XLA's rules on the jit's compiled module).
        "jit": [record_of(s) for s in low.report if id(s) not in staged],
        "jit-staged": [record_of(s) for s in low.report if id(s) in staged],
        "lint": [_lint_json_record(f) for f in json.loads(lint.stdout)],
        "rewrite": [_rewrite_json_record(s) for s in json.loads(report.read_text())["sites"]],
        "install-log": [f.record for f in log_findings], "installed-log": (log_report, log_findings),
        "install-rewrite": installed, "installed_misses": misses, "combined": combined,
        "claimed": sum(s.before.count - s.after.count for s in low.report if s.rewritten),
        "compiled": (sum(count_collectives(original).values()), sum(count_collectives(compiled.as_text()).values())),
    }


@pytest.fixture(scope="module", params=FOUR_WAY)
def four_ways(request, tmp_path_factory) -> dict:
    name, build, passes = request.param
    return _four_ways(name, build, passes, tmp_path_factory.getbasetemp())


def test_the_four_entry_points_show_one_record_per_site(four_ways: dict) -> None:
    """rule code, form, collectives before -> after, bytes, pricing platform, verdict, source place: the
    same in hlo_passes.jit, hlo-lint, hlo-rewrite and the pass inside XLA (which sees the optimized
    module: its split_gather/split_reduction sites are recorded as the program has them)."""
    # (What pays: the lint and the pass inside XLA report no site whose fix does not pay; the jit's
    # and hlo-rewrite's reports list it, detected and not rewritten.)
    # A site the jit's optimized-HLO stage rewrote (kept GMMs' reductions combined, a rematerialized
    # copy's gathers) is recorded as the pass inside XLA records it: one of install()'s records.
    staged = four_ways["jit-staged"]
    inside = list(four_ways["install-rewrite"])
    for r in staged:
        assert r in inside, (r, four_ways["install-rewrite"])
        inside.remove(r)
    jit = sorted((r for r in four_ways["jit"] if r.pays), key=repr)
    assert jit and all(r.priced_for == jax.default_backend() and r.source for r in jit), jit
    # Every claim held against a compiled program (a CPU text, this process's devices): none as written.
    assert not any(r.as_written for way in ("jit", "lint", "rewrite", "install-log", "install-rewrite")
                   for r in four_ways[way]), four_ways
    for way in ("lint", "rewrite", "install-log", "install-rewrite"):
        records = [r for r in four_ways[way] if r.pays]
        if four_ways["combined"] and way.startswith("install"):
            # The kept GMMs' reductions combined inside XLA: no copy (bytes 0), paying; every other
            # field the lowered text's record of the site, paying there or not.
            # (MOE002's halves, and MOE004's two weights' gradients, issue 46: their GMMs kept.)
            rules = {r.rule for r in four_ways["combined"]}
            assert rules <= {"MOE002", "MOE004"}, rules
            assert all(r.bytes_saved == 0 and r.pays for r in four_ways["combined"])
            lowered = sorted((r for r in four_ways["rewrite"] if r.rule in rules), key=repr)
            inside = sorted((r for r in records if r.rule in rules), key=repr)
            assert len(inside) == len(four_ways["combined"]) == len(lowered), (way, inside, lowered)
            assert [replace(r, bytes_saved=j.bytes_saved, pays=j.pays) for r, j in zip(inside, lowered)] == lowered
            records = [r for r in records if r.rule not in rules] + [j for j in lowered if j.pays]
        assert sorted(records, key=repr) == jit, (way, four_ways[way], jit)
    before, after = four_ways["compiled"]
    assert four_ways["claimed"] == before - after > 0, (four_ways["claimed"], before, after)


def test_a_jit_site_of_a_form_xla_fused_away_reads_as_the_program_has_it(four_ways: dict) -> None:
    forms = {r.form for way in ("install-log", "install-rewrite") for r in four_ways[way]}
    assert forms and not forms & {"split_gather", "split_reduction"}, forms


# ---- claims against the compiled program: XLA's combiner --------------------------------------------------


@pytest.fixture(scope="module")
def trainer(tmp_path_factory) -> dict:
    """The test trainer's step (prefused weight, D over 8 devices): XLA:CPU's all-reduce combiner puts
    both halves of each layer's weight gradient into one all-reduce (with the other gradients).  The
    four entry points' records of it (``_four_ways``: shared with the four-way test)."""
    (param,) = [p for p in FOUR_WAY if p.id == "trainer-prefused"]
    name, build, passes = param.values[0]
    return _four_ways(name, build, passes, tmp_path_factory.getbasetemp())


def test_a_gradient_xla_already_combined_is_a_near_miss_not_a_saving(trainer: dict) -> None:
    low = trainer["low"]
    # The lowered text shows two reductions (the partitioner's, one per half): the rule finds the site,
    # and a lint that compiles nothing says that its counts are the text's (the gather's too: XLA may
    # run a recomputed copy's gathers once)...
    text = low.original.as_text(debug_info=True)
    unchecked = [d.record for d in lint_text(text, dialect="stablehlo", platform="cpu")]
    assert [(r.rule, r.as_written) for r in unchecked] == [("MOE001", True)] * 2 + [("MOE002", True)], unchecked
    # ... which XLA's compiled original already runs as one: held against it, no longer a site.
    # (The lowered text's two gather sites: the forward's, and the rematerialized layer's, whose halves
    # enter both the recomputed forward's shard_map and the backward's: each takes the whole weight.)
    stage = low.stage.sites if low.stage is not None else []
    assert not stage, str(low)
    assert [s.rule for s in low.report] == ["moe-gather-fusion"] * 2, str(low)
    (miss,) = [m for m in low.near_misses if m.check == "xla-combined"]
    assert miss.rule == "moe-gradient-fusion" and "XLA's combiner already reduces" in miss.reason
    assert "moe-gradient-fusion refused (xla-combined)" in str(low)
    # The same in the lint that holds it (hlo-lint, hlo-rewrite: the same records) ...
    held = lint_text(text, dialect="stablehlo", platform="cpu", claims=hold_claims, explain=True)
    assert [(d.rule, d.details.get("check")) for d in held if d.rule == "MOE002"] == [("MOE002", "xla-combined")]
    assert [r.rule for r in trainer["lint"]] == [r.rule for r in trainer["rewrite"]] == ["MOE001"] * 2
    # Every claim left equals the compiled program's change.
    before, after = trainer["compiled"]
    assert trainer["claimed"] == before - after > 0, (trainer["claimed"], before, after)
    # Inside XLA the same near miss, at the same place.
    inside = [m for m in trainer["installed_misses"] if m.check == "xla-combined"]
    assert inside and all(m.rule == miss.rule and m.location.source == miss.location.source for m in inside), inside


def test_a_claim_not_held_says_so_and_why(trainer: dict) -> None:
    """Where no compiled program can be had (a platform not compiled here, none named), the claim is
    the text's, and every entry point's record and line say so."""
    text = trainer["low"].original.as_text(debug_info=True)
    for platform, why in (("tpu", "a tpu program is not compiled here"),
                          (None, "the text does not say it runs on cpu")):
        (d,) = [d for d in lint_text(text, dialect="stablehlo", platform=platform, claims=hold_claims,
                                     select=["MOE002"])]
        assert d.record.as_written and why in d.details["collectives_as_written"], d.details
        assert d.fix.endswith("(as written; XLA may combine)"), d.fix
        assert any(n.startswith("collectives 2 -> 1 as written; XLA may combine (not checked: ") for n in d.notes), d.notes


@pytest.mark.slow
def test_a_gather_xla_runs_once_is_a_near_miss_not_a_saving(tmp_path_factory) -> None:
    """examples/moe_remat.py's prefused explicit step: the lowered text gathers the weight's halves twice at
    one line (the forward and its rematerialized copy), two MOE001 sites; jax 0.10.2's XLA:CPU runs the
    copy's gathers once (common-subexpression elimination), 0.12.1's both.  Held against the compiled
    original, the jit keeps as many sites as it runs and names the others ``xla-computed-once``; its
    claim is the compiled change (the four-way test), and hlo-lint, compiling the text, says the same."""
    (param,) = [p for p in FOUR_WAY if p.id == "remat-prefused-explicit"]
    name, build, passes = param.values[0]
    ways = _four_ways(name, build, passes, tmp_path_factory.getbasetemp())
    low = ways["low"]
    text = low.original.as_text(debug_info=True)
    written = [d.record for d in lint_text(text, dialect="stablehlo", platform="cpu", select=["MOE001"])]
    assert len(written) == 2 and all(r.as_written for r in written), written
    ran = [d for d in lint_text(low.compiled_original_text, dialect="hlo", platform="cpu", select=["MOE001"],
                                claims=compiled_program) if not d.is_note]
    gathers = [record_of(s) for s in low.report if s.rule == "moe-gather-fusion"]
    once = [m for m in low.near_misses if m.check == COMPUTED_ONCE]
    assert len(gathers) == len(ran) and len(gathers) + len(once) == 2, (gathers, once, str(low))
    assert all(m.rule == "moe-gather-fusion" and "common-subexpression" in m.reason for m in once), once
    assert JAX != (0, 10) or len(once) == 1, str(low)
    assert not any(r.as_written for r in gathers)
    assert sorted((r for r in ways["lint"] if r.rule == "MOE001"), key=repr) == sorted(gathers, key=repr)


def test_a_gradient_xla_leaves_apart_stays_a_site(program) -> None:
    """The examples' explicit reduce-scatters: XLA keeps one per half, and the jit's claim stands
    (held against XLA's compiled original: not as written)."""
    low = program["low"]
    assert any(s.rule == "moe-gradient-fusion" and s.rewritten and not record_of(s).as_written
               for s in low.report), str(low)
    assert not any(m.check == "xla-combined" for m in low.near_misses)
