"""The pass inside XLA's default set, and the line naming the setting when an opt-in rule would act
(issue 46).

``passes.compiled.rewrite_compiled_text`` with the default passes runs the optimized module's
default set: the built-in rules, MOE003 and MOE004 included (``RuleMeta.compiled_default``: opt-in
before optimization only, docs/rules.md "Defaults").  A module that set leaves unchanged where an
opt-in rule would rewrite a site that pays gets one line naming ``HLO_PASSES_PASSES`` (what
``xla_pass`` logs once per module); a module the default passes rewrite, or a run that names its
passes, gets none.  No built-in rule is opt-in there and acts on these fixtures, so a plugin's
opt-in rule (MOE003's engine under another code) stands for one.  On the fixtures' optimized
modules, without jax.
"""
from __future__ import annotations

import dataclasses

import pytest

from fixture_harness import FIXTURES, cases_of
import hlo_passes
from hlo_passes.passes import default_passes, opt_in_passes, register, registry, run_passes
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.rewrites.moe_pair_gather_fusion import MoePairGatherFusion

pytestmark = pytest.mark.jax_free

PAIR = "moe-pair-gather-fusion/compiled_rounds.hlo"


def _first_case(path: str) -> str:
    return cases_of(FIXTURES / path)[0].module_text


def test_the_two_weight_rules_are_opt_in_before_optimization_and_default_inside_xla() -> None:
    pair = {"moe-pair-gather-fusion", "moe-pair-gradient-fusion"}
    assert pair <= set(opt_in_passes()) and not pair & set(default_passes())
    assert pair <= set(default_passes(compiled=True)) and not pair & set(opt_in_passes(compiled=True))
    # The other opt-in rules stay opt-in everywhere (their forms change what is computed or need a kernel).
    assert {"moe-ffn-fusion", "gmm-redundant-mask"} <= set(opt_in_passes(compiled=True))


def test_two_weights_rewritten_by_the_default_passes() -> None:
    hints: list[str] = []
    new, sites, _ = rewrite_compiled_text(_first_case(PAIR), "jit_step", None, hints)
    assert new is not None and hints == []
    assert [(s.rule, s.rewritten) for s in sites] == [("moe-pair-gather-fusion", True)] * 2


def test_run_passes_runs_the_default_set_of_what_the_module_is() -> None:
    """``run_passes(module)`` on an optimized module (``is_scheduled=true``) runs the pass inside XLA's
    default set, as ``hlo-rewrite`` on the dump does; on the same module before optimization, the
    opt-in rules stay out."""
    text = _first_case(PAIR)
    scheduled = hlo_passes.parse(text.replace("HloModule pair_rounds", "HloModule pair_rounds, is_scheduled=true", 1))
    assert scheduled.scheduled
    assert [s.rule for s in run_passes(scheduled).sites if s.rewritten] == ["moe-pair-gather-fusion"] * 2
    before = hlo_passes.parse(text)
    assert not before.scheduled and run_passes(before).sites == []


class _OptInPair(MoePairGatherFusion):
    """A plugin's rule that runs only when named, inside XLA too."""

    meta = dataclasses.replace(MoePairGatherFusion.meta, code="XPA003", pass_name="xpa-pair-gather",
                               name="XpaPairGather", compiled_default=False)
    name = meta.pass_name


@pytest.fixture
def opt_in_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry without the built-in MOE003, with ``_OptInPair`` registered (restored after)."""
    passes = {n: r for n, r in registry.available_passes().items() if n != "moe-pair-gather-fusion"}
    monkeypatch.setattr(registry, "_REGISTRY", passes)
    register(_OptInPair())


def test_an_opt_in_rule_that_would_act_names_the_setting(opt_in_plugin: None) -> None:
    hints: list[str] = []
    new, sites, _ = rewrite_compiled_text(_first_case(PAIR), "jit_step", None, hints)
    assert new is None and not any(s.rewritten for s in sites)
    defaults = ",".join(m.code for m in map(registry.rule_meta, default_passes(compiled=True)) if m)
    assert hints == ["hlo_passes: in jit_step, XPA003 xpa-pair-gather (opt-in) would rewrite 2 sites: "
                     f"set HLO_PASSES_PASSES={defaults},XPA003 (or install(passes=[...]) with them) to run it"]
    assert defaults == "MOE001,MOE002,MOE004"


def test_no_hint_where_the_default_passes_act_or_passes_are_named(opt_in_plugin: None) -> None:
    hints: list[str] = []
    new, _, _ = rewrite_compiled_text(_first_case("moe-gather-fusion/compiled.hlo"), "jit_step", None, hints)
    assert new is not None and hints == []
    new, _, _ = rewrite_compiled_text(_first_case(PAIR), "jit_step", ["MOE001"], hints)
    assert new is None and hints == []
