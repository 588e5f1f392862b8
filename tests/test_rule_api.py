"""The rule API (``hlo_passes.PatternRule``): a rule written as match → named checks → site →
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
import textwrap
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.checks import meaning
from hlo_passes.verify import verify_module
from hlo_passes.passes import unregister
from hlo_passes.pipeline import Pipeline
from test_cli import run

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

RULE = '''
"""XPN001: a double negation (a plugin of one file, for the tests)."""
from dataclasses import dataclass

from hlo_passes import (CollectiveCost, Instruction, Module, PatternRule, Refusal, Rewriter, RuleMeta, Site,
                        SiteDetails, check, location_of)


@dataclass(kw_only=True)
class Negations(SiteDetails):
    operand: str


class DoubleNegation(PatternRule[Instruction]):
    meta = RuleMeta(code="XPN001", pass_name="xpn-double-negation", name="DoubleNegation",
                    summary="double negation", markers=("negate",), verb="removed",
                    message="{summary} of {operand} ({form})", details=Negations)

    def match(self, module: Module):
        return [i for i in module.instructions() if i.opcode == "negate" and i.operands[0].opcode == "negate"]

    def anchor(self, outer: Instruction) -> Instruction:
        return outer

    @check("xpn-single-use", meaning="the inner negate has no other user")
    def single_use(self, outer: Instruction):
        inner = outer.operands[0]
        if len(inner.users) != 1:
            return Refusal("xpn-single-use", f"{inner.name} has {len(inner.users)} users", inner)
        return None

    def site(self, outer: Instruction) -> Site:
        inner = outer.operands[0]
        nothing = CollectiveCost()
        # Two elementwise passes over the array go.
        removed = 2 * 2 * outer.shape.byte_size
        return Site(self.name, "negate_negate", location_of(outer), nothing, nothing, removed,
                    copies_removed=removed, details=Negations(operand=inner.operands[0].name))

    def rewrite(self, rw: Rewriter, outer: Instruction) -> None:
        inner = outer.operands[0]
        rw.replace_all_uses(outer, inner.operands[0], inner.operand_results[0])
        rw.erase(outer)
        rw.erase(inner)
'''

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
    path.write_text(textwrap.dedent(RULE))
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

    Pipeline([rule], check_invariants=True, invariant_checks=(spy,)).run(hlo_passes.parse(MODULE))
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
