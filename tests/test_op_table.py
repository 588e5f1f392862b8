"""The op table (``hlo_passes/ir/op_table.py``) is the one source of op facts (issue 30).

It is compared with XLA's own opcode list (``tests/data/xla_hlo_opcodes.txt``, copied from
``xla/hlo/ir/hlo_opcode.h``: every XLA opcode is in the table with XLA's arity, and every
table op is XLA's, differences named below with their reasons) and with the StableHLO ops
of the shared corpus (each is in the table or carried as raw text for a named reason).
The package keeps no list of collectives or of opcodes of its own beside it, and the
facts the parsers read come from it (with the one bug it fixed: ``count-leading-zeros``).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import ParseError
from hlo_passes.ir.op_table import (BY_MLIR, CALL_ATTRS, COLLECTIVES, OPCODES, OPS, Arity, Trait, collective_kind,
                                 is_collective, with_trait)
from hlo_passes.dialects.hlo import opcodes as hlo_opcodes
from hlo_passes.dialects.stablehlo import attrs as mlir_attrs
from hlo_passes.dialects.stablehlo.dialect_ops import DIALECT_OPS
from hlo_passes.rule import collective_markers
from hlo_passes.runtime import count_collectives
from hlo_passes.text import parse_hlo, parse_stablehlo
from hlo_passes.ir.verify import verify_module

ROOT = Path(__file__).resolve().parents[1]
XLA_LIST = ROOT / "tests" / "data" / "xla_hlo_opcodes.txt"

# Table ops XLA's list (at the stored commit) lacks.
NOT_IN_XLA_LIST = {
    "exp2": "jaxlib 0.12.0.1's HLO parser reads it; the stored XLA commit's list has no such opcode",
    "log2": "jaxlib 0.12.0.1's HLO parser reads it; the stored XLA commit's list has no such opcode",
}

# XLA opcodes of a fixed arity whose operand count the parser does not check (XLA's
# verifier does, a separate step; the parser carries what it reads).
_VERIFIER_CHECKS = "left to XLA's verifier, as XLA's parser leaves it"
_NEWER_OPERAND = "newer XLA gives it an optional extra operand"
ARITY_NOT_CHECKED = {
    "all-gather-done": _VERIFIER_CHECKS, "all-reduce-done": _VERIFIER_CHECKS, "async-done": _VERIFIER_CHECKS,
    "collective-permute-done": _VERIFIER_CHECKS, "domain": _VERIFIER_CHECKS, "gather": _VERIFIER_CHECKS,
    "infeed": _VERIFIER_CHECKS, "outfeed": _VERIFIER_CHECKS, "ragged-all-to-all": _VERIFIER_CHECKS,
    "ragged-dot": _VERIFIER_CHECKS, "recv": _VERIFIER_CHECKS, "scaled-dot": _VERIFIER_CHECKS,
    "select-and-scatter": _VERIFIER_CHECKS, "send": _VERIFIER_CHECKS, "topk": _VERIFIER_CHECKS,
    "while": _VERIFIER_CHECKS,
    "cholesky": _NEWER_OPERAND, "copy-start": _NEWER_OPERAND, "fft": _NEWER_OPERAND,
    "stochastic-convert": _NEWER_OPERAND, "triangular-solve": _NEWER_OPERAND,
}

# StableHLO ops of the corpus that are no op of the table: the parser carries each as
# text under its own name (its opcode is the MLIR name) and prints it back byte-identical.
CARRIED_RAW = {
    "stablehlo.return": "a region's terminator: the computation's result, no HLO instruction",
    "stablehlo.broadcast": "prepends dimensions (sizes=), unlike HLO's broadcast, which is broadcast_in_dim",
    "stablehlo.cross-replica-sum": "a deprecated all-reduce with an implied add; no HLO opcode of that name",
    "stablehlo.dynamic_conv": "shape-polymorphic (its padding is an operand); XLA has it only after refinement",
    "stablehlo.dynamic_iota": "shape-polymorphic (its shape is an operand); XLA has it only after refinement",
    "stablehlo.real_dynamic_slice": "shape-polymorphic (its bounds are operands); no HLO opcode",
    "stablehlo.einsum": "deprecated; no HLO opcode (XLA lowers it to dot_general first)",
    "stablehlo.unary_einsum": "deprecated; no HLO opcode (XLA lowers it first)",
}

# XLA's collective communication ops (hlo_query::IsCollectiveCommunicationOp and the ops
# added beside them since), with their async halves.
XLA_COLLECTIVES = {
    "all-gather", "all-reduce", "all-to-all", "collective-broadcast", "collective-permute", "collective-reduce",
    "ragged-all-to-all", "reduce-scatter",
}


def _xla_list() -> dict[str, int]:
    out = {}
    for line in XLA_LIST.read_text().splitlines():
        if line and not line.startswith("#"):
            name, arity = line.split()
            out[name] = int(arity)
    return out


def test_stored_xla_list_says_where_it_came_from() -> None:
    head = XLA_LIST.read_text().splitlines()[:3]
    assert any("xla/hlo/ir/hlo_opcode.h" in line and "openxla/xla" in line for line in head)
    assert any(re.search(r"commit [0-9a-f]{40}", line) for line in head)
    assert len(_xla_list()) == 136


def test_every_xla_opcode_is_in_the_table_and_back() -> None:
    xla = _xla_list()
    assert sorted(set(xla) - set(OPS)) == []
    assert sorted(set(OPS) - set(xla)) == sorted(NOT_IN_XLA_LIST)


def test_arities_agree_with_xla() -> None:
    problems = []
    for name, n in _xla_list().items():
        arity = OPS[name].arity
        if n == -1:  # variadic in XLA: the table checks no fixed count
            if arity is not None and arity.fixed is not None:
                problems.append(f"{name}: XLA says variadic, the table {arity}")
        elif arity is None:
            if name not in ARITY_NOT_CHECKED:
                problems.append(f"{name}: XLA says {n}, the table checks nothing (say why in ARITY_NOT_CHECKED)")
        elif arity.fixed != n:
            problems.append(f"{name}: XLA says {n}, the table {arity}")
        if arity is not None and name in ARITY_NOT_CHECKED:
            problems.append(f"{name}: the table checks {arity}; ARITY_NOT_CHECKED is stale")
    assert problems == []


def test_collectives_are_xlas() -> None:
    assert set(COLLECTIVES) == XLA_COLLECTIVES
    halves = {d.name for d in with_trait(Trait.COLLECTIVE)} - set(COLLECTIVES)
    assert halves == {f"{c}-{s}" for c in ("all-gather", "all-reduce", "collective-permute") for s in ("start", "done")}
    assert all(collective_kind(h) == h.rsplit("-", 1)[0] for h in halves)
    assert not is_collective("add") and not is_collective("no-such-op") and not is_collective("copy-start")


def test_async_halves_name_what_they_wrap() -> None:
    for d in OPS.values():
        if d.wraps is not None:
            assert d.wraps in OPS and d.name.startswith(d.wraps + "-"), d.name
            assert d.traits & {Trait.ASYNC_START, Trait.ASYNC_UPDATE, Trait.ASYNC_DONE}, d.name
    assert hlo_opcodes.NATIVE_ASYNC == {n for n in OPS if n.endswith(("-start", "-update", "-done"))}


def test_rows_are_well_formed() -> None:
    for d in OPS.values():
        assert d.arity is None or (d.arity.min >= 0 and (d.arity.max is None or d.arity.max >= d.arity.min))
        for m in d.mlir:
            dialect = m.partition(".")[0]
            assert m in DIALECT_OPS[dialect], f"{d.name}: {m} is no op of jaxlib's {dialect} dialect"
    assert Arity(1, None).allows(7) and not Arity(1, None).allows(0) and str(Arity(1, None)) == "1+"
    assert CALL_ATTRS | {"select", "scatter"} == {a for d in OPS.values() for a in d.calls}


def _stablehlo_op_names(text: str) -> set[str]:
    """The ``stablehlo.X`` op names a text uses (comments and attributes not counted)."""
    text = re.sub(r"//[^\n]*", "", text)
    op = re.compile(r'(?:^|=)\s*(?:"(stablehlo\.[\w.-]+)"\s*\(|(stablehlo\.[\w.-]+)(?![\w."-])(?!\s*=))', re.M)
    return {m.group(1) or m.group(2) for m in op.finditer(text)}


@pytest.mark.corpus
def test_corpus_stablehlo_ops_are_in_the_table_or_carried_raw(corpus_dir: Path) -> None:
    used: dict[str, str] = {}
    parsed: set[str] = set()
    files = sorted((corpus_dir / "stablehlo").glob("*.mlir"))
    assert len(files) == 342
    for f in files:
        text = f.read_text()
        for name in _stablehlo_op_names(text):
            used.setdefault(name, f.name)
        for instr in parse_stablehlo(text, path=str(f)).instructions():
            if instr.source_op.startswith("stablehlo."):
                parsed.add(instr.source_op)
                if instr.source_op in CARRIED_RAW:
                    assert instr.opcode == instr.source_op  # carried under its own name
                else:
                    assert instr.opcode == BY_MLIR[instr.source_op].name
    assert parsed == set(used)  # the parser sees every op the text names, and no other
    unknown = {n: f for n, f in used.items() if n not in BY_MLIR and n not in CARRIED_RAW}
    assert unknown == {}, "in neither the table nor CARRIED_RAW"
    assert sorted(set(CARRIED_RAW) - set(used)) == []  # no stale reasons
    assert not set(CARRIED_RAW) & set(BY_MLIR)


# ---- the table is the one source ---------------------------------------------------------
_OWNERS = {"op_table.py", "dialect_ops.py"}  # the table; the generated list of jaxlib's MLIR ops


def _listed_names(node: ast.AST) -> list[str]:
    """The strings a set, list or tuple literal (or ``"a b".split()``) lists; dicts map ops to
    behaviour (one entry per op) and are not lists of ops."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
        return node.func.value.value.split()
    return []


def test_no_other_list_of_collectives_or_opcodes() -> None:
    """Three or more collectives in one literal is a list of collectives (two, named for what
    they mean to a rule, like REDUCTIONS, are the rule's own choice); eight or more opcodes is
    a list of ops.  Either belongs in the table."""
    spellings = {}
    for d in with_trait(Trait.COLLECTIVE):
        kind = collective_kind(d.name)
        spellings[d.name] = kind
        spellings.update({m: kind for m in d.mlir})
        spellings.update({m.partition(".")[2]: kind for m in d.mlir})
    found = []
    for path in sorted((ROOT / "hlo_passes").rglob("*.py")):
        if path.name in _OWNERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = _listed_names(node)
            kinds = {spellings[n] for n in names if n in spellings}
            opcodes = {n for n in names if n in OPCODES}
            if len(kinds) >= 3 or len(opcodes) >= 8:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(kinds or opcodes)}")
    assert found == []


def test_collective_markers_come_from_the_table() -> None:
    assert collective_markers("all-gather") == ("all-gather", "all_gather")
    assert collective_markers("all-reduce", "reduce-scatter") == ("all-reduce", "all_reduce", "reduce-scatter",
                                                                  "reduce_scatter")
    with pytest.raises(ValueError, match="no collective"):
        collective_markers("add")


def test_count_collectives_counts_every_collective() -> None:
    text = """HloModule m, replica_count=2

ENTRY e {
  p = f32[4] parameter(0)
  b = f32[4] collective-broadcast(p), replica_groups={{0,1}}
  s = f32[4] all-gather-start(b), replica_groups={{0,1}}, dimensions={0}
  d = f32[8] all-gather-done(s)
  ROOT r = f32[8] all-gather(b), replica_groups={{0,1}}, dimensions={0}
}
"""
    assert count_collectives(text) == {"collective-broadcast": 1, "all-gather": 2}


# ---- what the parsers read from it ---------------------------------------------------------
def _module(body: str) -> str:
    return f"HloModule m\n\nENTRY e {{\n  p = s32[4] parameter(0)\n  {body}\n}}\n"


def test_count_leading_zeros_is_its_xla_spelling() -> None:
    """Bug fixed by the table: the opcode set and the MLIR mapping spelled XLA's
    count-leading-zeros ``clz``, which is no HLO opcode (XLA refuses it)."""
    m = hlo_passes.parse(_module("ROOT r = count-leading-zeros(p)"), validate=True)
    assert m.entry.root.opcode == "count-leading-zeros"
    assert str(m.entry.root.shape) == "s32[4]"  # inferred: the result has its operand's shape
    with pytest.raises(ParseError, match="clz"):
        hlo_passes.parse(_module("ROOT r = s32[4] clz(p)"), validate=True)
    mlir = parse_stablehlo("""func.func @main(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.count_leading_zeros %arg0 : tensor<4xi32>
  return %0 : tensor<4xi32>
}
""")
    (clz,) = [i for i in mlir.instructions() if i.source_op == "stablehlo.count_leading_zeros"]
    assert clz.opcode == "count-leading-zeros"
    assert mlir_attrs.MLIR_OF["count-leading-zeros"] == "stablehlo.count_leading_zeros"


@pytest.mark.parametrize("body, message", [
    ("ROOT r = s32[4] add(p)", "add expects 2 operand(s), but got 1"),
    ("ROOT r = s32[4] sort()", "sort expects at least one operand"),
    ("ROOT r = s32[4] reverse(p)", "reverse expects attribute dimensions="),
    ("ROOT r = s32[4] abs(p), result_accuracy={mode=highest}", 'unexpected attribute "result_accuracy" for abs'),
])
def test_parser_checks_read_the_table(body: str, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_hlo(_module(body))


def test_unknown_ops_are_still_carried() -> None:
    text = _module("ROOT r = s32[4] some-newer-op(p), some_newer_attribute={1,2}")
    assert parse_hlo(text).to_text() == text


def test_verifier_checks_the_tables_arity_of_what_a_pass_creates() -> None:
    m = parse_hlo(_module("ROOT r = s32[4] negate(p)"))
    p = m.entry.instructions[0]
    lonely = m.entry.add("add", p.shape, [p], name_hint="lonely")
    assert verify_module(m) == [f"new: e/{lonely.name}: add takes 2 operand(s), not 1"]
    # A parsed MLIR op keeps its own operand rules (optimization_barrier takes any number).
    mlir = parse_stablehlo("""func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {
  %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4xi32>, tensor<4xi32>
  return %0#0 : tensor<4xi32>
}
""")
    assert verify_module(mlir) == []


def test_dead_code_removal_keeps_what_the_table_says_has_effects() -> None:
    from hlo_passes.ir.rewriter import Rewriter
    from hlo_passes.ir.analysis import remove_dead

    m = parse_hlo(_module("s = u64[2] rng-get-and-update-state(), delta=1\n"
                          "  a = s32[4] add(p, p)\n  ROOT r = s32[4] negate(p)"))
    s, a = (i for i in m.entry.instructions if i.name in ("s", "a"))
    assert remove_dead(Rewriter(m, "test"), [s, a]) == [a]
    assert s in m.entry.instructions
