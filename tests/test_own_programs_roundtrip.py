"""Every text jax and XLA write for the project's own programs parses and round-trips.

* ``parse(text).to_text() == text``, byte for byte, for both dialects;
* ``to_text(regenerate=True)`` means the same module: XLA's print of it
  equals XLA's print of the original (HLO), or jaxlib's MLIR print of it
  equals jaxlib's print of the original (StableHLO);
* the parsed graph sees the collectives the text has.

Texts come from ``tests/programs.py`` (lowerings, compiled HLO, cross-platform
lowerings, XLA dumps made in a subprocess).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

import hlo_passes
from hlo_passes import _jax_compat as compat
from hlo_passes.runtime import count_ops
from programs import DUMP_CASES, TEXT_CASES, OwnText, case_id


def first_difference(got: str, want: str) -> str:
    """Where two texts part, as ``line N`` with both versions of that line."""
    g, w = got.splitlines(keepends=True), want.splitlines(keepends=True)
    for i, (a, b) in enumerate(zip(g, w), 1):
        if a != b:
            return f"line {i} differs:\n  got:  {a!r}\n  want: {b!r}"
    return f"lengths differ: got {len(g)} lines / {len(got)} chars, want {len(w)} lines / {len(want)} chars"


@pytest.fixture(scope="module")
def xla_print(request: pytest.FixtureRequest) -> Iterator[Callable[[str], str]]:
    """XLA's print of HLO text, in crash-proof worker processes where available.

    XLA's HLO parser aborts the process on some malformed inputs, and a
    regenerated text is exactly what might be malformed; the session's
    ``xla_reference`` pool (tests/xla_reference.py) survives that.  Without
    it, XLA runs in this process.
    """
    try:
        ref = request.getfixturevalue("xla_reference")
    except (pytest.FixtureLookupError, ImportError):
        yield compat.print_hlo
        return

    def print_hlo(text: str) -> str:
        r = ref.to_string(text)
        if not r.ok:
            raise AssertionError(f"XLA's HLO parser {r.status}: {r.error}")
        return r.text

    yield print_hlo


def _mlir_print(text: str) -> str:
    # Compare locations too when the source has them: a printer that dropped
    # loc(...) would otherwise pass.
    return compat.mlir_print(compat.parse_mlir(text), debug_info="loc(" in text)


def _roundtrip(item: OwnText) -> None:
    module = hlo_passes.parse(item.text)
    assert module.dialect == item.dialect
    out = module.to_text()
    assert out == item.text, f"{item.id}: to_text() is not the input; {first_difference(out, item.text)}"


def _regenerated(item: OwnText, xla_print: Callable[[str], str]) -> None:
    module = hlo_passes.parse(item.text)
    regen = module.to_text(regenerate=True)
    if item.dialect == "hlo":
        got, want = xla_print(regen), xla_print(item.text)
        assert got == want, f"{item.id}: XLA reads the regenerated text differently; {first_difference(got, want)}"
    else:
        got, want = _mlir_print(regen), _mlir_print(item.text)
        assert got == want, f"{item.id}: MLIR reads the regenerated text differently; {first_difference(got, want)}"


_STABLEHLO_COLLECTIVES = {
    "all-gather": re.compile(r'(?:"stablehlo\.all_gather"|stablehlo\.all_gather\b)'),
    "all-reduce": re.compile(r'(?:"stablehlo\.all_reduce"|stablehlo\.all_reduce\b)'),
    "reduce-scatter": re.compile(r'(?:"stablehlo\.reduce_scatter"|stablehlo\.reduce_scatter\b)'),
}


def _graph_sees_collectives(item: OwnText) -> None:
    module = hlo_passes.parse(item.text)
    opcodes = [ins.opcode for ins in module.instructions()]
    for op, pattern in _STABLEHLO_COLLECTIVES.items():
        if item.dialect == "hlo":
            want = count_ops(item.text)[op] + count_ops(item.text)[f"{op}-start"]
            have = opcodes.count(op) + opcodes.count(f"{op}-start")
        else:
            want = len(pattern.findall(item.text))
            have = opcodes.count(op)
        assert have == want, f"{item.id}: {have} {op} instructions in the graph, {want} in the text"


# --- lowerings, compiled HLO, other platforms --------------------------------


@pytest.mark.parametrize("case", TEXT_CASES, ids=case_id)
def test_roundtrip_byte_identical(own_texts, case) -> None:
    _roundtrip(own_texts[case])


@pytest.mark.parametrize("case", TEXT_CASES, ids=case_id)
def test_regenerated_means_the_same(own_texts, case, xla_print) -> None:
    _regenerated(own_texts[case], xla_print)


@pytest.mark.parametrize("case", TEXT_CASES, ids=case_id)
def test_validate_accepts(own_texts, case) -> None:
    item = own_texts[case]
    assert hlo_passes.parse(item.text, validate=True).to_text() == item.text


@pytest.mark.parametrize("case", TEXT_CASES, ids=case_id)
def test_graph_sees_collectives(own_texts, case) -> None:
    _graph_sees_collectives(own_texts[case])


# --- XLA dumps ---------------------------------------------------------------


@pytest.mark.parametrize("case", DUMP_CASES, ids=case_id)
def test_dump_roundtrip_byte_identical(own_dumps, case) -> None:
    _roundtrip(own_dumps[case])


@pytest.mark.parametrize("case", DUMP_CASES, ids=case_id)
def test_dump_regenerated_means_the_same(own_dumps, case, xla_print) -> None:
    _regenerated(own_dumps[case], xla_print)


@pytest.mark.parametrize("case", DUMP_CASES, ids=case_id)
def test_dump_validate_accepts(own_dumps, case) -> None:
    item = own_dumps[case]
    assert hlo_passes.parse(item.text, validate=True).to_text() == item.text


@pytest.mark.parametrize("case", DUMP_CASES, ids=case_id)
def test_dump_graph_sees_collectives(own_dumps, case) -> None:
    _graph_sees_collectives(own_dumps[case])


def test_every_module_file_of_the_dump_folder_round_trips(own_dump_dir) -> None:
    """What hlo-lint reads in a dump folder: every ``*.mlir`` and every ``*.txt``
    that starts with ``HloModule``, not only the stages the manifest names."""
    files = [p for p in sorted(own_dump_dir.rglob("*")) if p.suffix == ".mlir" or (
        p.suffix == ".txt" and p.read_bytes()[:9] == b"HloModule")]
    assert len(files) >= len(DUMP_CASES)
    for path in files:
        text = path.read_text()
        module = hlo_passes.parse(text, path=str(path))
        assert module.to_text() == text, f"{path}: {first_difference(module.to_text(), text)}"


# --- the fixtures themselves (independent of the parsers) --------------------


def test_fixture_texts_are_what_they_claim(own_texts) -> None:
    assert set(own_texts) == set(TEXT_CASES)
    for (program, form), item in own_texts.items():
        assert hlo_passes.detect_dialect(item.text) == item.dialect, item.id
        if form == "stablehlo_generic":
            assert '"func.func"' in item.text
        if form == "stablehlo_debuginfo":
            assert "loc(" in item.text
        if form == "compiled":
            assert "is_scheduled=true" in item.text
        if form.startswith(("tpu_", "cuda_")):
            assert ("chlo.ragged_dot" if item.dialect == "stablehlo" else "ragged-dot(") in item.text
        if form in ("stablehlo", "hlo", "compiled"):
            # Lowered for CPU, ragged_dot is decomposed into dot_general.
            assert "chlo.ragged_dot" not in item.text and "ragged-dot(" not in item.text, item.id


def test_fixture_dumps_have_every_stage(own_dumps) -> None:
    assert set(own_dumps) == set(DUMP_CASES)
    for (program, stage), item in own_dumps.items():
        if item.dialect == "stablehlo":
            assert "jit_moe_body" in item.text and hlo_passes.detect_dialect(item.text) == "stablehlo", item.id
            assert ('"func.func"' in item.text) == (stage == "stablehlo_generic"), item.id
            assert ("loc(" in item.text) == (stage == "stablehlo_debuginfo"), item.id
            continue
        assert item.text.startswith("HloModule"), item.id
        if stage == "after_spmd_partitioning":
            assert count_ops(item.text)["all-gather"] >= 2, item.id
        if stage == "after_optimizations":
            assert "is_scheduled=true" in item.text


# --- the rules find every site in every form ----------------------------------


def _expected_sites(program: str, form: str) -> set[tuple[str, str]]:
    from programs import OWN_PROGRAMS

    spec = OWN_PROGRAMS[program]
    if spec.variant == "fused":
        return set()
    compiled = form == "compiled"
    found = {("moe-gather-fusion", ("concat" if spec.variant == "concat" else "split_gather") if compiled
              else spec.variant)}
    if spec.mode in ("grad", "scan_grad"):
        if not compiled:
            found.add(("moe-gradient-fusion", "pad_add"))
        else:  # the two-GMM form: its weight-gradient GMMs, reduced apart and joined in a fusion
            found.add(("moe-gradient-fusion", "split_reduction"))
    return found


@pytest.mark.parametrize("case", TEXT_CASES, ids=case_id)
def test_sites_in_every_text_form(own_texts, case) -> None:
    from hlo_passes.passes import run_passes

    item = own_texts[case]
    result = run_passes(hlo_passes.parse(item.text), ["moe-gather-fusion", "moe-gradient-fusion"])
    assert {(s.rule, s.form) for s in result.sites} == _expected_sites(*case), [str(m) for m in result.near_misses]
    assert not result.near_misses
    assert all(s.rewritten for s in result.sites)  # compiled text too, through its fusions
