"""XLA's own newer test modules (../shared/corpus/hlo/newer): syntax jaxlib 0.12 reads.

* ``valid/`` (51 modules): every module parses and prints back byte-identical,
  in both environments, and its regenerated text parses again.  Under jax
  0.12 (marker ``jax012``) each has the computations and instructions
  (name, opcode, operands, shape, ...) jaxlib 0.12's live parser builds, and
  jaxlib 0.12's print of our ``to_text(regenerate=True)`` equals its print of
  the original.  Under jax 0.10.2 (marker ``jax010``, whose parser rejects 26
  of them and crashes on three) the instruction counts per opcode equal
  ``xla012_opcodes.json``, jaxlib 0.12's own count.
* ``invalid/`` (12): a ``ParseError`` at XLA's line, with ``validate=True`` and
  without (they are malformed, not newer).

Compact forms XLA desugars are accounted for, not hidden: ``%p0#0`` is a
get-tuple-element in our graph too (named ``p0_0``, as XLA names it), and the
computation XLA wraps around the op of a short async form (``dot-start()``,
``call-start``) holds that op and one parameter per operand bound along the
chain, which XLA counts and we add to our count here.
"""
from __future__ import annotations

import collections
import csv
import json
import re
import warnings
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError
from hlo_passes.ir.op_table import OPS
from hlo_passes.dialects.hlo.opcodes import async_sugar

pytestmark = pytest.mark.corpus


def _newer(corpus_dir: Path) -> Path:
    return corpus_dir / "hlo" / "newer"


def _valid(corpus_dir: Path) -> dict[str, str]:
    files = sorted((_newer(corpus_dir) / "valid").glob("*.hlo"))
    assert len(files) == 51, f"expected 51 newer valid modules, found {len(files)}"
    return {f.name: f.read_text() for f in files}


def _parse(text: str, **kw) -> hlo_passes.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # shape findings of XLA's test modules
        return hlo_passes.parse(text, dialect="hlo", **kw)


def test_every_newer_module_round_trips(corpus_dir: Path) -> None:
    failures = []
    for name, text in _valid(corpus_dir).items():
        module = _parse(text)
        if module.to_text() != text:
            failures.append(f"{name}: to_text() differs from the source")
        regen = module.to_text(regenerate=True)
        again = _parse(regen)
        if [i.opcode for i in again.instructions()] != [i.opcode for i in module.instructions()]:
            failures.append(f"{name}: the regenerated text reads back with other instructions")
    assert not failures, "\n".join(failures)


# The newer modules validate=True refuses, and why: XLA parses them, but the
# shapes along their async chains do not fit the wrapped computation (its
# verifier refuses such chains; XLA's test of 28 says "could be parsed, but
# not verified").
NOT_VERIFIABLE = {
    "hlo_parser_test__17.hlo": "async-update has 1 new operands",
    "hlo_parser_test__28.hlo": "AsyncStart and AsyncUpdate expect the shape",
    "hlo_parser_test__31.hlo": "AsyncStart and AsyncUpdate expect the shape",
}


def test_validate_refuses_only_unverifiable_async_chains(corpus_dir: Path) -> None:
    refused = {}
    for name, text in _valid(corpus_dir).items():
        try:
            _parse(text, validate=True)
        except ParseError as e:
            refused[name] = e.reason
    assert sorted(refused) == sorted(NOT_VERIFIABLE)
    for name, reason in refused.items():
        assert reason.startswith(NOT_VERIFIABLE[name]), (name, reason)


def test_constructs_reach_the_graph(corpus_dir: Path) -> None:
    """The constructs the manifest lists are in the graph, not only in the text."""
    texts = _valid(corpus_dir)
    nested = _parse(texts["hlo_parser_test__5.hlo"])  # add(%p0#1#0, %p0#1#0)
    add = nested.entry.root
    gte = add.operands[0]
    assert add.operands == [gte, gte] and gte.opcode == "get-tuple-element" and gte.name == "p0_1_0"
    assert gte.attributes["index"] == 0 and gte.operands[0].name == "p0_1"
    assert gte.operands[0].operands[0].name == "p0" and str(gte.shape) == "f32[20]"
    late = _parse(texts["hlo_parser_test__13.hlo"])  # dot-start() with operands bound by updates
    start = next(i for i in late.instructions() if i.source_op == "dot-start")
    assert start.opcode == "async-start" and start.operands == []
    updates = [i for i in late.instructions() if i.source_op == "dot-update"]
    assert [[o.name for o in u.operands[1:]] for u in updates] == [["lhs"], ["rhs"], []]
    topk = _parse(texts["hlo_parser_test__1.hlo"]).entry.root
    assert topk.opcode == "topk" and topk.attributes["is_stable"] in ("true", True)
    mesh = _parse(texts["hlo_parser_test__3.hlo"])
    ar = next(i for i in mesh.instructions() if i.opcode == "all-reduce")
    groups = ar.attributes["replica_groups"]
    assert groups == ((0, 1), (2, 3)) or groups == ((0, 2), (1, 3)), groups
    # ... and the mesh form equals its explicit spelling (the rules compare values).
    explicit = ar.attributes.raw("replica_groups")
    axis = re.search(r"\{'(\w+)'\}", explicit).group(1)
    assert groups == (((0, 1), (2, 3)) if axis == "axis_1" else ((0, 2), (1, 3)))


def _hidden_async_counts(module: hlo_passes.Module) -> collections.Counter:
    """What XLA builds for short async forms and we do not: per ``X-start``, the
    wrapped op X and a parameter per operand it takes: the operands the chain
    binds, or as many as X has (its called computation's parameters for
    ``call``/``fusion``) when fewer are bound yet."""
    extra: collections.Counter = collections.Counter()
    for start in module.instructions():
        sugar = async_sugar(start.source_op)
        if start.opcode != "async-start" or sugar is None:
            continue
        bound = len(start.operands)
        cur = start
        while True:
            nxt = [u for u in cur.users if u.opcode == "async-update" and u.operands[0] is cur]
            if len(nxt) != 1:
                break
            cur = nxt[0]
            bound += len(cur.operands) - 1
        wrapped = sugar[1]
        fixed = OPS[wrapped].arity
        arity = fixed.fixed or 0 if fixed is not None else 0
        if start.called_computations:
            arity = len(start.called_computations[0].parameters)
        extra[wrapped] += 1
        extra["parameter"] += max(bound, arity)
    return extra


_ENUM_SPELLING = {"OptimizationBarrier": "opt-barrier", "Cos": "cosine", "Sin": "sine", "Exp": "exponential",
                  "Expm1": "exponential-minus-one", "Log1p": "log-plus-one", "PopulationCount": "popcnt",
                  "TopK": "topk"}


def _hlo_spelling(enum: str) -> str:
    """C++ enum name (``GetTupleElement``) → HLO opcode (``get-tuple-element``)."""
    return _ENUM_SPELLING.get(enum) or re.sub(r"(?<!^)(?=[A-Z])", "-", enum).lower()


@pytest.mark.jax010
def test_instruction_counts_match_jaxlib_012(corpus_dir: Path) -> None:
    reference = json.loads((_newer(corpus_dir) / "xla012_opcodes.json").read_text())
    texts = _valid(corpus_dir)
    assert len(reference) == len(texts)
    failures = []
    for key, want in sorted(reference.items()):
        name = key.rsplit("/", 1)[1]
        module = _parse(texts[name])
        ours = collections.Counter(i.opcode for i in module.instructions()) + _hidden_async_counts(module)
        expected = collections.Counter({_hlo_spelling(k): n for k, n in want["opcodes"].items()})
        if ours != expected or sum(ours.values()) != want["instruction_count"]:
            failures.append(f"{name}: ours {dict(ours)}, jaxlib 0.12 {dict(expected)}")
    assert not failures, "\n".join(failures)


@pytest.mark.jax012
def test_structure_and_print_match_jaxlib_012(corpus_dir: Path, xla_reference) -> None:
    from hlo_xla_compare import structure_differences

    from xla_reference import jaxlib_version

    assert jaxlib_version() >= "0.12", jaxlib_version()
    texts = _valid(corpus_dir)
    names = list(texts)
    parsed = list(xla_reference.parse_many(texts.values()))
    modules = {n: _parse(t) for n, t in texts.items()}
    prints = list(xla_reference.to_string_many(modules[n].to_text(regenerate=True) for n in names))
    failures = []
    for name, ref, printed in zip(names, parsed, prints):
        if not ref.ok:
            failures.append(f"{name}: jaxlib 0.12 {ref.status}: {ref.error}")
            continue
        diffs = structure_differences(modules[name], ref, texts[name])
        failures.extend(f"{name}: {d}" for d in diffs)
        if not printed.ok or printed.text != ref.text:
            failures.append(f"{name}: jaxlib 0.12 prints our regenerated text differently "
                            f"({printed.status})")
    assert not failures, "\n".join(failures[:30])


# invalid/: the line XLA's error names (its first "was parsing L:C").
INVALID_LINES = {
    "hlo_parser_test__1.hlo": 4, "hlo_parser_test__2.hlo": 4, "hlo_parser_test__3.hlo": 4,
    "hlo_parser_test__4.hlo": 4, "hlo_parser_test__5.hlo": 13, "hlo_parser_test__6.hlo": 6,
    "hlo_parser_test__7.hlo": 6, "hlo_parser_test__8.hlo": 6, "hlo_parser_test__9.hlo": 6,
    "hlo_parser_test__10.hlo": 7, "hlo_parser_test__11.hlo": 5, "hlo_parser_test__12.hlo": 6,
}


def _expected_errors(corpus_dir: Path) -> dict[str, str]:
    with open(_newer(corpus_dir) / "MANIFEST.tsv", newline="") as f:
        return {row["file"].rsplit("/", 1)[1]: row["expected_error"]
                for row in csv.DictReader(f, delimiter="\t") if row["file"].startswith("hlo/invalid/")}


@pytest.mark.parametrize("validate", [True, False], ids=["validate", "default"])
def test_invalid_modules_fail_at_xla_line(corpus_dir: Path, validate: bool) -> None:
    files = sorted((_newer(corpus_dir) / "invalid").glob("*.hlo"))
    assert sorted(f.name for f in files) == sorted(INVALID_LINES)
    expected = _expected_errors(corpus_dir)
    for f in files:
        with pytest.raises(ParseError) as info:
            hlo_passes.parse_file(f, validate=validate)
        err = info.value
        assert err.line == INVALID_LINES[f.name], (f.name, str(err))
        # XLA's expected message, in its words (the compact-reference index
        # errors add the shape, as jaxlib 0.12 does).
        assert expected[f.name] in err.reason, (f.name, expected[f.name], err.reason)
        assert "newer XLA" not in err.reason, f"{f.name}: invalid, not newer: {err.reason}"


@pytest.mark.jax012
def test_invalid_lines_are_jaxlib_012s(corpus_dir: Path, xla_reference) -> None:
    files = sorted((_newer(corpus_dir) / "invalid").glob("*.hlo"))
    for f, ref in zip(files, xla_reference.parse_many(f.read_text() for f in files)):
        assert ref.status == "error", f.name
        line = int(re.search(r"was parsing (\d+):", ref.error).group(1))
        assert line == INVALID_LINES[f.name], f.name
