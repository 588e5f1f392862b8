"""Mutated corpus text gives a Module or a ParseError, never another exception or a hang."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlo_passes
from hlo_passes import Module, ParseError

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

VALID = Path("/work/shared/corpus/hlo/valid")
SEEDS = [(VALID / n).read_text() for n in (
    "hlo_parser_test__22.hlo", "hlo_parser_test__111.hlo", "hlo_parser_test__101.hlo",
    "hlo_parser_test__380.hlo", "alias_info_test__8.hlo", "custom_call__1.hlo",
)]
TOKEN = re.compile(r"\s+|[A-Za-z_%][\w.\-%]*|\d+|\"[^\"\n]*\"|.")


def _parse(text: str) -> None:
    try:
        result = hlo_passes.parse(text, dialect="hlo", validate=True)
    except ParseError as e:
        assert e.line >= 0 and e.reason
        return
    assert isinstance(result, Module)
    result.to_text(regenerate=True)


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(SEEDS))
    toks = TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(toks) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "truncate", "bytes"]))
        if kind == "delete":
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "truncate":
            toks = toks[:i]
        else:
            toks.insert(i, draw(st.text(min_size=1, max_size=6)))
        if not toks:
            toks = ["HloModule"]
    return "".join(toks)


@settings(max_examples=300, deadline=None)
@given(mutated())
def test_mutations_give_module_or_parse_error(text: str) -> None:
    _parse(text)


def test_pathological_inputs_stay_fast() -> None:
    head = "HloModule m\nENTRY e {\n  ROOT c = f32[3] constant("
    cases = [
        head + "{" * 100_000 + "1" + "}" * 100_000 + ")\n}\n",
        head + "{" * 50_000 + "\n}\n",
        "HloModule m\nENTRY e {\n  ROOT p = " + "(" * 100_000 + "f32[] parameter(0)\n}\n",
        head + "{" + ", ".join(["1.5"] * 400_000) + "})\n}\n",
        "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"" + "\\\\" * 200_000 + "\n}\n",
        "HloModule m, x=\"" + "a" * 500_000,
    ]
    for text in cases:
        t0 = time.perf_counter()
        _parse(text)
        assert time.perf_counter() - t0 < 10
