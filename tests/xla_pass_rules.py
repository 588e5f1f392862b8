"""Rules for the tests of the pass inside XLA (tests/test_xla_pass.py), written against the public
rule API only: small rewrites that XLA's optimizations leave in place and that execute bit-equal,
so the whole path (XLA → hook → engine → XLA) runs before the MoE rules rewrite optimized HLO.

* ``XPA001`` puts the operands of each ``add`` in descending order of name (IEEE addition is
  commutative: the results are the same bits); its rewrite always "pays".
* ``XPA002`` raises in ``match`` (a rule's bug): the hook must fall back, warn, and compile XLA's module.
"""
from __future__ import annotations

from hlo_passes import (CollectiveCost, Instruction, Module, PatternRule, Rewriter, RuleMeta, Site,
                        location_of)


class AddOperandsDescending(PatternRule[Instruction]):
    meta = RuleMeta(code="XPA001", pass_name="xpa-add-descending", name="AddOperandsDescending",
                    summary="add operands in ascending order", markers=("add(",), verb="reordered",
                    message="{summary} ({form})")

    def match(self, module: Module) -> list[Instruction]:
        return [i for i in module.instructions()
                if i.opcode == "add" and len(i.operands) == 2 and i.operands[0].name < i.operands[1].name]

    def anchor(self, add: Instruction) -> Instruction:
        return add

    def site(self, add: Instruction) -> Site:
        nothing = CollectiveCost()
        return Site(self.name, "add", location_of(add), nothing, nothing, 0)

    def held_back(self, add: Instruction, site: Site) -> str | None:
        return None  # a test rule: always rewritten

    def rewrite(self, rw: Rewriter, add: Instruction) -> None:
        first, second = add.operand_values
        rw.set_operand(add, 0, second)
        rw.set_operand(add, 1, first)


class Raises(PatternRule[Instruction]):
    meta = RuleMeta(code="XPA002", pass_name="xpa-raises", name="Raises",
                    summary="a rule with a bug", markers=("add(",), message="{summary}")

    def match(self, module: Module) -> list[Instruction]:
        raise RuntimeError("xpa-raises: injected failure")

    def anchor(self, add: Instruction) -> Instruction:
        return add

    def site(self, add: Instruction) -> Site:
        raise AssertionError("never reached")

    def rewrite(self, rw: Rewriter, add: Instruction) -> None:
        raise AssertionError("never reached")
