"""The pass inside XLA names the setting when an opt-in rule would act (issue 46).

``passes.compiled.rewrite_compiled_text`` with the default passes: a module they leave unchanged
where MOE003 would rewrite a site that pays gets one line naming ``HLO_PASSES_PASSES`` (what
``xla_pass`` logs once per module); a module the default passes rewrite, or a run that names its
passes, gets none.  On the fixtures' optimized modules, without jax.
"""
from __future__ import annotations

import pytest

from fixture_harness import FIXTURES, cases_of
from hlo_passes.passes.compiled import rewrite_compiled_text

pytestmark = pytest.mark.jax_free


def _first_case(path: str) -> str:
    return cases_of(FIXTURES / path)[0].module_text


def test_two_weights_name_the_setting() -> None:
    hints: list[str] = []
    new, sites, _ = rewrite_compiled_text(_first_case("moe-pair-gather-fusion/compiled_rounds.hlo"), "jit_step",
                                          None, hints)
    assert new is None and not any(s.rewritten for s in sites)
    assert hints == ["hlo_passes: in jit_step, MOE003 moe-pair-gather-fusion (opt-in) would rewrite 2 sites: "
                     "set HLO_PASSES_PASSES=MOE001,MOE002,MOE003 (or install(passes=[...]) with them) to run it"]


def test_no_hint_where_the_default_passes_act_or_passes_are_named() -> None:
    hints: list[str] = []
    new, _, _ = rewrite_compiled_text(_first_case("moe-gather-fusion/compiled.hlo"), "jit_step", None, hints)
    assert new is not None and hints == []
    new, _, _ = rewrite_compiled_text(_first_case("moe-pair-gather-fusion/compiled_rounds.hlo"), "jit_step",
                                      ["MOE001"], hints)
    assert new is None and hints == []
