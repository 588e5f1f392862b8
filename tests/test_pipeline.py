"""The pipeline (``hlo_passes.Pipeline``): passes in order, each to its fixed point within a
limit, the verifier after each pass that changed the module, a pass that raises refused on the
module; and every face (``run_passes``, the lint, ``hlo-rewrite``, the jit hook) runs through it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import CollectiveCost, InvariantError, Rule, RuleMeta, Site, location_of
from hlo_passes.ir import Module
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.pass_interface import Changes, PassContext, Stage
from hlo_passes.pipeline_driver import Pipeline, Result
from hlo_passes.report import INTERNAL_ERROR, NearMiss

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"

MODULE = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p)
  ROOT n = f32[4] negate(a)
}
"""


def _meta(code: str, name: str) -> RuleMeta:
    return RuleMeta(code=code, pass_name=name, name="TestRule", summary="a rule of the pipeline's tests",
                    markers=None, message="{summary}")


class Renames(Rule):
    """Renames the negate ``times`` times (one per round), then finds nothing: a fixed point."""

    meta = _meta("XPP001", "xpp-renames")

    def __init__(self, times: int = 2, log: list[str] | None = None) -> None:
        self.times, self.log = times, log if log is not None else []

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        self.log.append(self.name)
        root = next(i for i in module.instructions() if i.opcode == "negate")
        done = root.name.count("x")
        if done >= self.times:
            return [], [NearMiss(self.name, "test-check", "nothing more to rename", location_of(root))]
        if rewrite:
            root.name = root.name + "x"
            root.mark_changed()
        cost = CollectiveCost()
        return [Site(self.name, "rename", location_of(root), cost, cost, 0, rewritten=rewrite)], []


class Counts(Rule):
    """Reports how many x the root's name has; rewrites nothing."""

    meta = _meta("XPP002", "xpp-counts")

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        self.log.append(self.name)
        root = next(i for i in module.instructions() if i.opcode == "negate")
        cost = CollectiveCost()
        return [Site(self.name, f"x{root.name.count('x')}", location_of(root), cost, cost, 0, rewritten=False)], []


class Raises(Rule):
    """Rewrites half-way, then raises (a bug)."""

    meta = _meta("XPP003", "xpp-raises")

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        root = next(i for i in module.instructions() if i.opcode == "negate")
        if rewrite:
            root.name = "half_done"
            root.mark_changed()
        raise ValueError("a bug half-way through")


class Breaks(Renames):
    """Renames the root to its operand's name: a module the verifier refuses."""

    meta = _meta("XPP004", "xpp-breaks")

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        root = next(i for i in module.instructions() if i.opcode == "negate")
        if root.name == root.operands[0].name:
            return [], []
        root.name = root.operands[0].name
        root.mark_changed()
        cost = CollectiveCost()
        return [Site(self.name, "rename", location_of(root), cost, cost, 0)], []


def _root_name(result: Result) -> str:
    return next(i.name for i in result.module.instructions() if i.opcode == "negate")


def test_passes_run_in_order_each_to_its_fixed_point() -> None:
    log: list[str] = []
    module = hlo_passes.parse(MODULE)
    result = Pipeline([Renames(2, log), Counts(log)]).run(module)
    # Two rounds that rewrote, one that found nothing (the fixed point), then the next pass once.
    assert log == ["xpp-renames"] * 3 + ["xpp-counts"]
    assert [(s.rule, s.form) for s in result.sites] == [("xpp-renames", "rename")] * 2 + [("xpp-counts", "x2")]
    assert result.changed and _root_name(result) == "nxx"
    # The near misses are those of the round that reached the fixed point; the input is untouched.
    assert [m.check for m in result.near_misses] == ["test-check"]
    assert next(i.name for i in module.instructions() if i.opcode == "negate") == "n"


def test_report_only_runs_each_pass_once_and_changes_nothing() -> None:
    log: list[str] = []
    module = hlo_passes.parse(MODULE)
    result = Pipeline([Renames(2, log), Counts(log)], rewrite=False).run(module, copy=False)
    assert log == ["xpp-renames", "xpp-counts"]
    assert not result.changed and result.module is module and not module.changed


def test_a_pass_that_does_not_reach_a_fixed_point_is_refused() -> None:
    module = hlo_passes.parse(MODULE)
    result = Pipeline([Renames(5), Counts([])], max_rounds=3).run(module)
    # Refused on this module (its half-done rounds undone); the next pass runs on the input.
    assert [m.check for m in result.near_misses] == [INTERNAL_ERROR]
    assert "did not reach a fixed point in 3 rounds" in result.near_misses[0].reason
    assert [(s.rule, s.form) for s in result.sites] == [("xpp-counts", "x0")]
    with pytest.raises(RuntimeError, match="did not reach a fixed point in 3 rounds"):
        Pipeline([Renames(5)], max_rounds=3, strict=True).run(module)


def test_a_pass_that_raises_leaves_the_module_as_the_others_made_it() -> None:
    module = hlo_passes.parse(MODULE)
    for copy in (True, False):
        work = hlo_passes.parse(MODULE) if not copy else module
        result = Pipeline([Renames(1), Raises(), Counts([])]).run(work, copy=copy)
        assert [m.rule for m in result.near_misses if m.check == INTERNAL_ERROR] == ["xpp-raises"]
        assert "ValueError: a bug half-way through" in result.near_misses[0].reason
        # Run again without the pass that raised: the first pass's rewrite, not the half-done one.
        assert _root_name(result) == "nx"
        assert [s.form for s in result.sites if s.rule == "xpp-counts"] == ["x1"]
    with pytest.raises(ValueError, match="a bug half-way through"):
        Pipeline([Raises()], strict=True).run(module)


def test_the_verifier_runs_after_each_pass_that_changed_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    module = hlo_passes.parse(MODULE)
    with pytest.raises(InvariantError) as info:
        Pipeline([Renames(1), Breaks()], check_invariants=True).run(module)
    assert info.value.pass_name == "xpp-breaks"
    # Off (explicitly, or by the environment when not told), the broken module comes back.
    assert Pipeline([Breaks()], check_invariants=False).run(module).changed
    monkeypatch.delenv("HLO_PASSES_CHECK_INVARIANTS")
    assert Pipeline([Breaks()]).run(module).changed
    monkeypatch.setenv("HLO_PASSES_CHECK_INVARIANTS", "1")
    with pytest.raises(InvariantError):
        Pipeline([Breaks()]).run(module)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[str, ...], bool]]:
    """Every pipeline run in this test: (its passes, whether it rewrote)."""
    seen: list[tuple[tuple[str, ...], bool]] = []
    original = Pipeline.run

    def spy(self: Pipeline, module: Module, *, copy: bool = True) -> Result:
        seen.append((tuple(p.name for p in self.passes), self.rewrite))
        return original(self, module, copy=copy)

    monkeypatch.setattr(Pipeline, "run", spy)
    return seen


def test_run_passes_the_lint_and_hlo_rewrite_run_through_the_pipeline(runs, tmp_path: Path) -> None:
    from hlo_passes.cli import rewrite_main

    path = DATA / "moe_mesh2_concat.mlir"
    result = hlo_passes.run_passes(hlo_passes.parse_file(path), ["MOE001"])
    assert runs == [(("moe-gather-fusion",), True)] and result.changed
    runs.clear()
    assert [f.rule for f in hlo_passes.lint(path)] == ["MOE001"]
    assert runs and all(not rewrite for _, rewrite in runs)
    assert any("moe-gather-fusion" in names for names, _ in runs)
    runs.clear()
    assert rewrite_main([str(path), "-o", str(tmp_path / "out.mlir"), "--quiet"]) == 0
    assert runs[0] == (tuple(hlo_passes.passes.default_passes()), True)


@pytest.mark.jax_facing
def test_the_jit_hook_runs_through_the_pipeline(runs) -> None:
    from examples import moe
    from examples.moe import ProgramSpec

    spec = ProgramSpec(variant="concat", mesh="mesh2")
    mesh = moe.program_mesh(spec)
    lowered = hlo_passes.jit(moe.program_fn(spec, mesh), passes=["MOE001"]).lower(*moe.inputs(spec, mesh))
    assert lowered.rewritten
    assert runs == [(("moe-gather-fusion",), True)]


def test_a_caller_adds_invariant_checks_of_its_own() -> None:
    # As XLA's pipelines take invariant checkers: a check of the caller's, after each changed pass,
    # blaming the pass for what the input did not already have.
    def root_keeps_its_name(module: Module) -> list[str]:
        return ["the root was renamed" for i in module.instructions() if i.opcode == "negate" and i.name != "n"]

    module = hlo_passes.parse(MODULE)
    checks = (root_keeps_its_name,)
    with pytest.raises(InvariantError) as info:
        Pipeline([Counts([]), Renames(1)], check_invariants=True, invariant_checks=checks).run(module)
    assert info.value.pass_name == "xpp-renames" and info.value.problems == ["the root was renamed"]
    # Report-only, or with the checks off, nothing is checked; a problem the input had is not the pass's.
    assert not Pipeline([Renames(1)], rewrite=False, check_invariants=True, invariant_checks=checks).run(module).changed
    renamed = Pipeline([Renames(1)], check_invariants=False).run(module).module
    assert Pipeline([Renames(2)], check_invariants=True, invariant_checks=checks).run(renamed).changed


def test_the_pipeline_reads_no_signature_and_no_context_variable() -> None:
    """A pass is called one way (``Pass.run(module, rewriter, context)``), and what it runs for
    travels on the pipeline (``PassContext``): nothing in the driver or the passes' interface
    inspects a signature, and neither the pricing platform, site pictures nor the GMM kernel
    are context variables any more (issue 48)."""
    root = Path(hlo_passes.__file__).resolve().parent
    for rel in ("pipeline_driver.py", "pass_interface.py", "cost_model.py", "rewrites/split/picture.py", "rule.py"):
        assert "signature(" not in (root / rel).read_text(encoding="utf-8"), rel
    # Nor the GMM kernel a rule's legality rests on (gmm.target, on PassContext.gmm_target): no
    # module of the package holds a context variable.
    held = [str(p.relative_to(root)) for p in root.rglob("*.py")
            if "ContextVar" in (text := p.read_text(encoding="utf-8")) or "contextvars" in text]
    assert held == []


def test_the_context_reaches_the_passes() -> None:
    # Priced for the platform the pipeline names, assumed only when none is named.
    module = hlo_passes.parse_file(DATA / "moe_mesh2_concat.mlir")
    for platform, assumed in ((None, True), ("cpu", False), ("cuda", False)):
        (site,) = hlo_passes.run_passes(module, ["MOE001"], platform=platform).sites
        assert (site.details.priced_for, site.details.platform_assumed) == (
            {None: "tpu", "cuda": "gpu"}.get(platform, platform), assumed)
        assert site.picture is not None
    no_pictures = PassContext.for_platform("cpu", pictures=False)
    (site,) = hlo_passes.run_passes(module, ["MOE001"], context=no_pictures).sites
    assert site.picture is None and site.details.priced_for == "cpu"
    with pytest.raises(ValueError, match="unknown platform 'metal'"):
        hlo_passes.run_passes(module, ["MOE001"], platform="metal")


class _Stage(Stage):
    """A stage that is no rule: negates the root's operand once (through its rewriter), then
    finds it done."""

    name = "xpp-stage"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        root = module.entry.root
        if root.operands[0].opcode == "negate":
            return Changes(changed=False)
        rewriter.set_operand(root, 0, rewriter.create("negate", root.operands[0].shape, [root.operands[0]],
                                                      before=root))
        return Changes(changed=True)


def test_a_stage_is_journaled_verified_and_held_to_its_claim() -> None:
    module = hlo_passes.parse(MODULE)
    result = Pipeline([_Stage()], check_invariants=True).run(module)
    assert [type(c).__name__ for c in result.journal][:1] == ["Created"] and result.changed
    # A stage's ops carry no rule's tag.
    assert "hlo_passes.rule" not in result.module.to_text()

    class Lies(_Stage):
        def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
            super().run(module, rewriter, context)
            return Changes(changed=False)

    with pytest.raises(InvariantError, match="no rewrite, the rewriter's journal has"):
        Pipeline([Lies()], check_invariants=True).run(module)
