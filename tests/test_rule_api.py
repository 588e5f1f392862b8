"""The rule API (``hlo_passes.PatternRule``), on the rule the README shows: a rule written as match → named checks → site →
rewrite is run by one driver — refusals become near misses under their check ids (a plugin's own
ids with the meanings it declares), a check refusing under an id it did not declare is a bug, a
dry run (the lint) changes nothing, the pipeline learns what changed from the rewriter and
verifies only the computations it touched; and such a rule is a plugin of one file, written
against the public API alone, that both tools run.

The rule of these tests removes a double negation, ``negate(negate(x))`` → ``x``, where the inner
negate has no other user.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.checks import meaning
from hlo_passes.ir.verify import verify_module
from hlo_passes.passes import unregister
from hlo_passes.pass_interface import PassContext
from hlo_passes.pipeline_driver import Pipeline, ScopedCheck
from test_cli import run

ROOT = Path(__file__).resolve().parent.parent
# The rule the README shows under "Writing a rule", as it is there: what these tests run.
RULE = re.search(r"(?s)\n## Writing a rule\n.*?```python\n(.*?)```", (ROOT / "README.md").read_text()).group(1)

MODULE = """HloModule m

inner {
  q = f32[4] parameter(0)
  a = f32[4] negate(q)
  ROOT b = f32[4] negate(a)
}

ENTRY main {
  p = f32[4] parameter(0)
  c = f32[4] call(p), to_apply=inner
  n1 = f32[4] negate(c)
  n2 = f32[4] negate(n1)
  ROOT t = (f32[4], f32[4]) tuple(n2, n1)
}
"""


@pytest.fixture
def plugin(tmp_path: Path):
    path = tmp_path / "xpn_rule.py"
    path.write_text(RULE)
    (name,) = hlo_passes.load_plugin(str(path))
    yield path, hlo_passes.available_passes()[name]
    unregister(name)


def test_the_plugin_uses_only_the_public_api() -> None:
    for node in ast.walk(ast.parse(RULE)):
        if isinstance(node, ast.ImportFrom) and node.module != "dataclasses":
            assert node.module == "hlo_passes" and not node.level
            assert {a.name for a in node.names} <= set(hlo_passes.__all__)


def test_the_driver_runs_checks_reports_and_rewrites(plugin) -> None:
    _, rule = plugin
    assert [(c.name, c.ids) for c in rule.checks] == [("single_use", ("xpn-single-use",))]
    assert meaning("xpn-single-use") == "the inner negate has no other user"
    result = hlo_passes.run_passes(hlo_passes.parse(MODULE), [rule.name], check_invariants=True)
    (site,) = result.sites
    assert (site.form, site.rewritten, site.details.operand, site.details.pays) == ("negate_negate", True, "q", True)
    (miss,) = result.near_misses
    assert (miss.check, miss.reason) == ("xpn-single-use", "n1 has 2 users")
    inner = result.module.computations["inner"]
    assert [i.name for i in inner.instructions] == ["q"] and inner.root.name == "q"
    # The lint: the same site and near miss, through a dry-run rewriter; the module as it was.
    module = hlo_passes.parse(MODULE)
    report = hlo_passes.run_passes(module, [rule.name], rewrite=False, copy=False)
    assert [s.rewritten for s in report.sites] == [False] and not module.changed


def test_the_pipeline_verifies_what_the_rewriter_touched(plugin) -> None:
    _, rule = plugin
    seen: list[list[str] | None] = []

    def spy(module, computations=None) -> list[str]:
        seen.append(None if computations is None else [c.name for c in computations])
        return verify_module(module, computations)

    # A check that can look at some computations says so by its type (the pipeline reads no signature).
    Pipeline([rule], check_invariants=True, invariant_checks=(ScopedCheck(spy),)).run(hlo_passes.parse(MODULE))
    # Once on the input (all of it), once after the round that rewrote (the body it touched only).
    assert seen == [None, ["inner"]]


def test_a_check_that_refuses_under_an_id_it_did_not_declare_is_a_bug(plugin) -> None:
    _, rule = plugin

    def wrong(self, outer):
        return hlo_passes.Refusal("same-lhs", "not this check's", outer)

    rule.checks = (type(rule.checks[0])("single_use", ("xpn-single-use",), wrong),)
    try:
        (miss,) = [m for m in hlo_passes.run_passes(hlo_passes.parse(MODULE), [rule.name]).near_misses]
    finally:
        del rule.checks  # the class's again
    assert miss.check == "internal-error"
    assert "refused as 'same-lhs', which it does not declare" in miss.reason


def test_a_check_declared_to_take_the_context_is_handed_the_pipelines(plugin) -> None:
    """``check(..., takes_context=True)``: the check is called ``(self, candidate, context)`` with
    the context of the pipeline that runs it (its declaration says so; no signature is read)."""
    _, rule = plugin
    seen: list[str] = []

    class OnCpuOnly(type(rule)):
        @hlo_passes.check("xpn-single-use", takes_context=True)
        def on_cpu(self, outer, context: PassContext):
            seen.append(context.platform.name)
            return None if context.platform.name == "cpu" else hlo_passes.Refusal("xpn-single-use", "not on cpu", outer)

    assert [(c.name, c.takes_context) for c in OnCpuOnly.checks] == [("single_use", False), ("on_cpu", True)]
    on_cpu = Pipeline([OnCpuOnly()], context=PassContext.for_platform("cpu")).run(hlo_passes.parse(MODULE))
    on_tpu = Pipeline([OnCpuOnly()], context=PassContext.for_platform("tpu")).run(hlo_passes.parse(MODULE))
    assert [s.rewritten for s in on_cpu.sites] == [True] and on_tpu.sites == []
    assert sorted(m.reason for m in on_tpu.near_misses) == ["n1 has 2 users", "not on cpu"]
    assert set(seen) == {"cpu", "tpu"}


def test_check_ids_must_mean_something() -> None:
    with pytest.raises(TypeError, match="ids the check table does not hold: \\['no-such-check'\\]"):
        class Unknown(hlo_passes.PatternRule):  # noqa: F841
            @hlo_passes.check("no-such-check")
            def nothing(self, candidate):
                return None
    with pytest.raises(ValueError, match="already means"):
        hlo_passes.check("same-lhs", meaning="something else")


def test_both_tools_run_the_plugin(plugin, tmp_path: Path) -> None:
    path, _ = plugin
    source = tmp_path / "m.hlo"
    source.write_text(MODULE)
    lint = run("hlo-lint", "--plugin", path, "--select", "XPN001", "--explain", "--format", "json", source)
    assert lint.returncode == 1, lint.stderr
    (finding,) = json.loads(lint.stdout)
    assert finding["rule"] == "XPN001" and finding["message"].startswith("double negation of q")
    assert "XPN001 near miss: refused (xpn-single-use): n1 has 2 users" in lint.stderr
    out = tmp_path / "out.hlo"
    rewrite = run("hlo-rewrite", "--plugin", path, "--passes", "xpn-double-negation", source, "-o", out)
    assert rewrite.returncode == 0, rewrite.stderr
    text = out.read_text()
    assert "ROOT q = f32[4] parameter(0)" in text and "negate(a)" not in text and "n2 = f32[4] negate(n1)" in text
