"""The verifier after each rewriting pass (XLA's invariant checker), on in the whole suite.

A rule that leaves a broken graph is named by ``InvariantError``; problems the input already
had are not the pass's; with the check off the same broken result comes back unchecked.
"""
from __future__ import annotations

import pytest

import hlo_passes
from hlo_passes import CollectiveCost, InvariantError, Rule, RuleMeta, Site, location_of
from hlo_passes.passes import CHECK_INVARIANTS_ENV, register, run_passes, unregister
from hlo_passes.ir.verify import verify_module

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

MODULE = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p)
  ROOT n = f32[4] negate(a)
}
"""


class RenamesToADuplicate(Rule):
    """Rewrites the root's name to its operand's: two instructions of one name."""

    meta = RuleMeta(code="XTS001", pass_name="xts-duplicate-name", name="DuplicateName",
                    summary="renames the root to its operand's name", help="A broken rule, for the tests.",
                    markers=("negate",), message="{summary}")

    def apply(self, module, *, rewrite):
        root = next(i for i in module.instructions() if i.opcode == "negate")
        if root.name == root.operands[0].name:
            return [], []  # already broken: a fixed point
        if rewrite:
            root.name = root.operands[0].name
            root.mark_changed()
        cost = CollectiveCost()
        return [Site(self.name, "rename", location_of(root), cost, cost, 0, rewritten=rewrite)], []


@pytest.fixture
def broken_rule():
    rule = register(RenamesToADuplicate())
    yield rule.name
    unregister(rule.name)


def test_the_suite_runs_with_the_check_on() -> None:
    import os

    assert os.environ.get(CHECK_INVARIANTS_ENV) == "1"


def test_a_pass_that_breaks_the_graph_is_named(broken_rule: str) -> None:
    module = hlo_passes.parse(MODULE)
    with pytest.raises(InvariantError) as info:
        run_passes(module, [broken_rule])
    assert info.value.pass_name == broken_rule
    assert any("duplicate instruction name" in p for p in info.value.problems), info.value.problems
    assert f"pass {broken_rule} left the module failing the verifier" in str(info.value)
    # Off, the broken module comes back (what the check exists to stop).
    result = run_passes(module, [broken_rule], check_invariants=False)
    assert result.changed and any("duplicate instruction name" in p for p in verify_module(result.module))
    # Report-only runs change nothing, so there is nothing to check.
    assert not run_passes(module, [broken_rule], rewrite=False).changed


def test_problems_the_input_had_are_not_the_passes(broken_rule: str) -> None:
    # The input's copy declares a wrong shape (accepted without validate=True): the verifier finds
    # it before any pass, so only the broken rule's new problem is reported.
    module = hlo_passes.parse(MODULE.replace("a = f32[4] add(p, p)", "a = f32[5] copy(p)"))
    before = verify_module(module)
    assert before and not any("duplicate" in p for p in before)
    assert run_passes(module, ["moe-gather-fusion"], check_invariants=True).sites == []
    with pytest.raises(InvariantError) as info:
        run_passes(module, [broken_rule], check_invariants=True)
    assert info.value.problems and all("duplicate instruction name" in p for p in info.value.problems)
