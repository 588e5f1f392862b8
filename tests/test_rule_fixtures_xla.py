"""The hand-written fixture modules, and what the rules make of them, as XLA and MLIR read them.

tests/test_rule_fixtures.py runs without jax; this file checks with jax's own
parsers that every fixture input and every rewritten output is a module XLA
(HLO text, in the crash-safe worker pool of tests/xla_reference.py) or MLIR
(StableHLO, parsed and verified with the sdy and chlo dialects) accepts, so
the fixtures cannot drift into a dialect of our own.
"""
from __future__ import annotations

import pytest

from fixture_harness import all_cases, run_case

CASES = all_cases()


def _texts(dialect_suffix: str) -> list[tuple[str, str]]:
    texts = []
    for case in CASES:
        if case.path.suffix != dialect_suffix:
            continue
        outcome = run_case(case)
        texts.append((f"{case.name} input", case.module_text))
        if outcome.output != case.module_text:
            texts.append((f"{case.name} output", outcome.output))
    return texts


def test_hlo_fixtures_parse_in_xla(xla_reference) -> None:
    texts = _texts(".hlo")
    assert texts
    results = list(xla_reference.parse_many(t for _, t in texts))
    failed = [f"{name}: {r.status}: {(r.error or '')[:300]}" for (name, _), r in zip(texts, results) if not r.ok]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("name,text", _texts(".mlir"), ids=lambda v: v if " " in str(v) else None)
def test_stablehlo_fixtures_parse_and_verify_in_mlir(name: str, text: str) -> None:
    from hlo_passes import _jax_compat as compat

    compat.parse_mlir(text)
