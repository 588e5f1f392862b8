"""Every negative example of the corpus is a ParseError at the right line.

The table pins, per file, the line our parser reports (the instruction the
XLA test's expected message is about; for tests that only expect a failure,
a line inside the faulty instruction) and a piece of our reason, so a
regression in either place fails here.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError

INVALID = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "hlo" / "invalid"
if not INVALID.is_dir():
    INVALID = Path("/work/shared/corpus/hlo/invalid")

# file, expected line, substring of ParseError.reason
EXPECTED = [
    ('hlo_instruction_test__22.hlo', 5, 'bad result_accuracy: expects ResultAccur'),
    ('hlo_instruction_test__23.hlo', 5, 'unexpected attribute "result_accuracy" f'),
    ('hlo_parser_test__204.hlo', 4, 'GTE operand must be tuple, but has shape'),
    ('hlo_parser_test__205.hlo', 4, 'GTE index 2 out of bounds for shape: (f3'),
    ('hlo_parser_test__206.hlo', 4, 'expects integer (the index of a tuple el'),
    ('hlo_parser_test__207.hlo', 4, 'GTE index -1 out of bounds for shape: (f'),
    ('hlo_parser_test__208.hlo', 11, "bad replica_groups: 'bogus' is not a val"),
    ('hlo_parser_test__209.hlo', 11, 'bad replica_groups: axis index 5 is out '),
    # device_ids=(...) belongs after the ']' (jaxlib 0.10.2 and 0.12 reject it inside, as a syntax error)
    ('hlo_parser_test__210.hlo', 11, "bad replica_groups: unexpected 'device_i"),
    ('hlo_parser_test__211.hlo', 4, 'all-gather expects exactly one dimension'),
    ('hlo_parser_test__212.hlo', 9, 'reduce-scatter expects exactly one dimen'),
    ('hlo_parser_test__213.hlo', 4, 'get-dimension-size expects one dimension'),
    ('hlo_parser_test__214.hlo', 10, 'scan dimensions must be non-negative'),
    ('hlo_parser_test__215.hlo', 4, 'recv expects a (data, context, token) tu'),
    ('hlo_parser_test__216.hlo', 3, 'conditional expects at least one operand'),
    ('hlo_parser_test__217.hlo', 3, 'rng-bit-generator expects 1 operand(s), '),
    ('hlo_parser_test__218.hlo', 8, 'reduce-window expects at least one opera'),
    ('hlo_parser_test__220.hlo', 4, 'bad sharding: iota reshape dimensions pr'),
    ('hlo_parser_test__223.hlo', 6, 'bad dim_labels: dimension numbers: input'),
    ('hlo_parser_test__290.hlo', 3, 'DynamicReshape requires at least one ope'),
    ('hlo_parser_test__291.hlo', 4, 'expects the same number of elements in r'),
    ('hlo_parser_test__292.hlo', 5, 'expects the same number of elements in r'),
    ('hlo_parser_test__293.hlo', 5, 'expects one dim size operand per result '),
    ('hlo_parser_test__310.hlo', 16, 'The first operand must be a scalar'),
    ('hlo_parser_test__311.hlo', 16, 'The first operand must be a scalar of PR'),
    ('hlo_parser_test__312.hlo', 17, 'unexpected attribute "branch_computation'),
    ('hlo_parser_test__316.hlo', 4, "instruction does not exist: 'power' is n"),
    ('hlo_parser_test__328.hlo', 3, 'broadcast expects attribute dimensions='),
    ('hlo_parser_test__329.hlo', 4, 'expected a DimLevelType abbreviation (D,'),
    ('hlo_parser_test__330.hlo', 4, 'Layout has physical shape, but is not fo'),
    ('hlo_parser_test__332.hlo', 10, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_parser_test__333.hlo', 11, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_parser_test__334.hlo', 10, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_parser_test__335.hlo', 11, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_parser_test__339.hlo', 11, 'No operand found for AsyncUpdate and Asy'),
    ('hlo_parser_test__340.hlo', 11, 'No operand found for AsyncUpdate and Asy'),
    ('hlo_parser_test__341.hlo', 12, 'AsyncUpdate and AsyncDone cannot have As'),
    ('hlo_parser_test__342.hlo', 12, 'AsyncUpdate and AsyncDone cannot have As'),
    ('hlo_parser_test__344.hlo', 6, 'Expect async wrapped opcode to be custom'),
    ('hlo_parser_test__345.hlo', 7, 'Expect async wrapped opcode to be custom'),
    ('hlo_parser_test__347.hlo', 16, 'Expect async_wrapped_computation to be a'),
    ('hlo_parser_test__348.hlo', 17, 'Expect async_wrapped_computation to be a'),
    ('hlo_parser_test__349.hlo', 6, 'Expect async_execution_thread to be main'),
    ('hlo_parser_test__350.hlo', 7, 'Expect async_execution_thread to be main'),
    ('hlo_parser_test__357.hlo', 5, 'bad result_accuracy: expects ResultAccur'),
    ('hlo_parser_test__372.hlo', 12, 'expects opcode but sees: all-reduce-upda'),
    ('hlo_parser_test__373.hlo', 5, 'expects opcode but sees: all-gather-upda'),
    ('hlo_parser_test__375.hlo', 5, 'expects opcode but sees: copy-update, er'),
    ('hlo_parser_test__376.hlo', 5, 'expects opcode but sees: send-start, err'),
    ('hlo_parser_test__377.hlo', 6, 'expects opcode but sees: send-update, er'),
    ('hlo_parser_test__378.hlo', 4, 'expects opcode but sees: recv-start, err'),
    ('hlo_parser_test__379.hlo', 5, 'expects opcode but sees: recv-update, er'),
    ('hlo_verifier_test__136.hlo', 11, 'Cannot have use_global_device_ids=true w'),
    ('hlo_verifier_test__240.hlo', 19, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_verifier_test__241.hlo', 13, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_verifier_test__262.hlo', 23, 'Async done async_update does not trace b'),
    ('hlo_verifier_test__264.hlo', 22, 'Async done async-update does not trace b'),
    ('hlo_verifier_test__53.hlo', 9, 'async-start expects the operands of the '),
    ('hlo_verifier_test__57.hlo', 13, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_verifier_test__58.hlo', 13, 'AsyncStart and AsyncUpdate expect the sh'),
    ('hlo_verifier_test__67.hlo', 7, 'Async done async-done does not trace bac'),
    ('hlo_verifier_test__71.hlo', 12, 'async-start expects the operands of the '),
    ('hlo_verifier_test__72.hlo', 12, 'async-start expects the operands of the '),
    ('hlo_verifier_test__73.hlo', 12, 'async-start expects the operands of the '),
    ('hlo_verifier_test__75.hlo', 12, 'async-update has 1 new operands: AsyncUp'),
]


def test_table_covers_every_invalid_file() -> None:
    assert sorted(f.name for f in INVALID.glob("*.hlo")) == sorted(e[0] for e in EXPECTED)


@pytest.mark.parametrize("name,line,reason", EXPECTED, ids=[e[0] for e in EXPECTED])
def test_invalid_module_is_rejected_at_its_line(name: str, line: int, reason: str) -> None:
    path = INVALID / name
    with pytest.raises(ParseError) as info:
        hlo_passes.parse_file(path, validate=True)
    err = info.value
    assert (err.line, reason) == (line, err.reason[: len(reason)]), str(err)
    assert err.path == str(path)
    assert err.column >= 1
    # the message shows the offending line with a caret under the column
    text = str(err)
    assert text.startswith(f"{path}:{line}:{err.column}: error: ")
    assert text.rstrip().endswith("^")


# Without validate=True the async checks are those of jaxlib 0.12's parser,
# which binds operands late and leaves the chain's shapes to its verifier: it
# accepts exactly these of the older negative tests (jaxlib 0.10.2 refused them).
ACCEPTED_BY_NEWER_XLA = sorted(
    f"hlo_verifier_test__{n}.hlo" for n in (53, 57, 58, 67, 71, 72, 73, 75, 240, 241, 262, 264)
)


def _accepted_without_validate() -> list[str]:
    accepted = []
    for f in sorted(INVALID.glob("*.hlo")):
        try:
            hlo_passes.parse_file(f)
        except ParseError:
            continue
        accepted.append(f.name)
    return accepted


def test_without_validate_only_late_bound_async_chains_pass() -> None:
    assert _accepted_without_validate() == ACCEPTED_BY_NEWER_XLA


@pytest.mark.jax012
def test_jaxlib_012_accepts_the_same(xla_reference) -> None:
    files = sorted(INVALID.glob("*.hlo"))
    accepted = [f.name for f, r in zip(files, xla_reference.parse_many(f.read_text() for f in files)) if r.ok]
    assert accepted == ACCEPTED_BY_NEWER_XLA
