"""One-line ops parsed from a template build exactly what the token scanner builds.

The StableHLO parser turns a whole ``%r = op ... : types loc(...)`` line into
one token and fills in a template made from the first line of the same shape
(``_Parser.line_op``).  Here every text we have is parsed twice, with the
templates and with them switched off, and every field of every instruction
(dialect data in key order, attributes' source text, positions, operands,
called computations) must be the same; then edits must print the same.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from hlo_passes.errors import ParseError
from hlo_passes.ir import Module
from hlo_passes.dialects.stablehlo import parser as stablehlo
from hlo_passes.text import parse_stablehlo

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

# Lines of the shapes JAX prints, with names and locations that differ from
# line to line, shapes repeated (template hits) and a few that must not take
# a template (a name inside an attribute value, a result count, a comment).
_LAYER = """\
  func.func private @layer_{k}(%arg0: tensor<8x16xf32> loc("x"), %arg1: tensor<16x16xf32>) -> tensor<8x16xf32> {{
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x16xf32> loc("jit(f)/layer_{k}/add"("/m.py":1:{k}))
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc("d")
    %g2 = "stablehlo.all_gather"(%1) <{{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = {h}, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}}> : (tensor<8x16xf32>) -> tensor<8x128xf32> loc("g")
    %2 = stablehlo.slice %g2 [0:8, 16:32] : (tensor<8x128xf32>) -> tensor<8x16xf32>
    %c3 = stablehlo.constant dense<{k}.000000e+00> : tensor<f32>
    %r3 = stablehlo.reduce(%2 init: %c3) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %r3, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<8x16xf32>
    %5:2 = stablehlo.optimization_barrier %4, %4 : tensor<8x16xf32>, tensor<8x16xf32>
    %6 = stablehlo.add %5#0, %5#1 : tensor<8x16xf32> // a comment
    %7 = stablehlo.dynamic_slice %6, %c3, %c3, sizes = [8, 16] : (tensor<8x16xf32>, tensor<f32>, tensor<f32>) -> tensor<8x16xf32>
    %8 = stablehlo.custom_call @foo(%7) {{backend_config = "%7"}} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %9 = stablehlo.convert %8 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %10 = stablehlo.convert %9 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %11 = stablehlo.reduce(%10 init: %c3) across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {{
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}
    return %10 : tensor<8x16xf32> loc("r")
  }}
"""


def _generated(n: int) -> str:
    main = ["  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<8x16xf32> {\n"]
    prev = "%arg0"
    for k in range(n):
        main.append(f"    %{k} = func.call @layer_{k}({prev}, %arg1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> "
                    "tensor<8x16xf32>\n")
        prev = f"%{k}"
    main.append(f"    return {prev} : tensor<8x16xf32>\n  }}\n")
    layers = "".join(_LAYER.format(k=k, h=k % 3 + 1) for k in range(n))
    return "module @gen {\n" + "".join(main) + layers + "}\n"


@pytest.fixture(autouse=True)
def _line_ops_on_small_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Line ops for texts of any size (normally only large ones, or ones with location
    aliases, take them)."""
    monkeypatch.setattr(stablehlo, "scan_mode", lambda text: "lines")


def _in_mode(text: str, mode: str, monkeypatch: pytest.MonkeyPatch) -> Module:
    """``parse_stablehlo`` with the lexer's scan ``mode``: "lines", "coarse" or "plain"
    (the reference: the token scanner alone, no line ops, no coarse tokens)."""
    with monkeypatch.context() as m:
        m.setattr(stablehlo, "scan_mode", lambda text: mode)
        return parse_stablehlo(text)


def _slow(text: str, monkeypatch: pytest.MonkeyPatch) -> Module:
    return _in_mode(text, "plain", monkeypatch)


def _fields(module: Module) -> list[tuple]:
    index = {id(ins): n for n, ins in enumerate(module.instructions())}
    out = []
    for comp in module.computations.values():
        for ins in comp.instructions:
            attrs = ins.attributes
            out.append((
                comp.name, ins.name, ins.opcode, ins.source_op, ins.shape, ins.shape.text, ins.num_results,
                ins.line, ins.column, ins.span, ins.changed,
                [index[id(o)] for o in ins.operands], list(ins.operand_results),
                [c.name for c in ins.called_computations],
                list(attrs._raw.items()), attrs._decode is None,
                list(ins.dialect_data.items()),
            ))
    return out


def _texts(shared: Path) -> list[Path]:
    files = sorted((shared / "corpus" / "stablehlo").glob("*.mlir"))
    return files + sorted((shared / "samples").rglob("*.mlir"))


def _count_paths(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str], list[str]]:
    """Line-op tokens the parser read, first lines of a shape (their templates made of the
    ops read from their tokens, None where the shape takes tokens) and line-op tokens read by
    their own tokens (the others are filled in from a template)."""
    read: list[str] = []
    first: list[str] = []
    own: list[str] = []
    parse_line, make, scan = (stablehlo._Parser.parse_line_op, stablehlo._line_template,
                              stablehlo._Parser.line_by_tokens)

    def counted_read(self, lo, *args):
        read.append(lo.m.group(stablehlo.G_LINE).strip())
        return parse_line(self, lo, *args)

    def counted_make(instr, lo):
        first.append(lo.m.group(stablehlo.G_LINE).strip())
        return make(instr, lo)

    def counted_scan(self, m, *args):
        own.append(m.group(stablehlo.G_LINE).strip())
        return scan(self, m, *args)

    monkeypatch.setattr(stablehlo._Parser, "parse_line_op", counted_read)
    monkeypatch.setattr(stablehlo, "_line_template", counted_make)
    monkeypatch.setattr(stablehlo._Parser, "line_by_tokens", counted_scan)
    return read, first, own


def test_generated_module_uses_line_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _generated(6)
    read, first, own = _count_paths(monkeypatch)
    p = stablehlo._Parser(text, None, False)
    line_ops = sum(1 for k in p.k if k.__class__ is stablehlo._LineOp)
    # A layer has 18 op lines; 15 may be one-line op tokens.  Not: the result count, the
    # comment and the reduce whose region follows on the next lines (the lexer leaves them
    # to the token scanner).  main has 6 calls and a return.  Shapes: the first line of each
    # takes tokens (layer 0's, but for the second convert: a signature is no part of a
    # shape; main's first call and its return: nor is the callee of a call), and so do the
    # all_gathers of layers 1 and 2 (the channel handle cycles through 3 values) and every
    # custom_call (a name inside an attribute value: that shape has no template).
    first.clear()
    fast = parse_stablehlo(text)
    assert len(first) == 14 + 2 + 2
    assert line_ops == 6 * 15 + 7 - len(first)
    # The later custom_calls were tokens of a shape not read yet when the lexer met them:
    # the parser reads each from its own tokens.
    assert len(own) == 5 and all("custom_call" in line for line in own)
    assert len(read) == line_ops
    filled = [line for line in read if line not in own]
    # Constants of other values and calls of other functions are filled in.
    assert sum(1 for line in filled if "stablehlo.constant" in line) == 5
    assert sum(1 for line in filled if "func.call" in line) == 5
    monkeypatch.undo()
    slow = _slow(text, monkeypatch)
    assert _fields(fast) == _fields(slow)
    assert fast.to_text() == text
    assert fast.to_text(regenerate=True) == slow.to_text(regenerate=True)


def test_small_texts_take_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    small, large = _generated(6), _generated(120)
    aliased = small.replace('loc("r")', "loc(#loc3)") + '#loc3 = loc("r")\n'
    assert len(small) < len(aliased) < stablehlo.LINE_OPS_MIN_CHARS <= len(large)
    for text, expect in ((small, False), (large, True), (aliased, True)):
        p = stablehlo._Parser(text, None, False)
        assert any(k.__class__ is stablehlo._LineOp for k in p.k) is expect
        assert p.fast


@pytest.mark.parametrize("mode", ["lines", "coarse"])
def test_every_text_parses_alike_with_and_without_line_templates(
        mode: str, shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    differ = []
    for f in _texts(shared_dir):
        text = f.read_text()
        try:
            slow = _slow(text, monkeypatch)
        except Exception as e:  # noqa: BLE001 - the fast parse must fail alike
            with pytest.raises(type(e)) as fast_error:
                _in_mode(text, mode, monkeypatch)
            assert str(fast_error.value) == str(e)
            continue
        if _fields(_in_mode(text, mode, monkeypatch)) != _fields(slow):
            differ.append(f.name)
    assert not differ, differ


def test_edited_line_ops_print_as_scanned_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass's edits re-print a template-built op like a token-scanned one."""
    text = _generated(3)
    outs = []
    for module in (parse_stablehlo(text), _slow(text, monkeypatch)):
        comp = module.computations["layer_1"]
        by_name = {i.name: i for i in comp.instructions}
        mul, add = by_name["4"], by_name["0"]
        mul.set_operand(1, add)
        by_name["1"].attributes["lhs_contracting_dims"] = (1,)
        by_name["9"].set_shape(by_name["9"].shape.with_element_type("f16"))
        outs.append(module.to_text())
    assert outs[0] == outs[1] != text


def test_errors_name_the_same_place(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlo_passes.errors import ParseError

    good = _generated(2)
    bad = [
        good.replace("%4 = stablehlo.multiply %3, %3", "%4 = stablehlo.multiply %3, %nope"),
        good.replace("%4 = stablehlo.multiply %3, %3", "%3 = stablehlo.multiply %3, %3"),
        good.replace("%6 = stablehlo.add %5#0, %5#1", "%6 = stablehlo.add %5#0, %5#2"),
    ]
    for text in bad:
        assert text != good
        with pytest.raises(ParseError) as slow:
            _slow(text, monkeypatch)
        with pytest.raises(ParseError) as fast:
            parse_stablehlo(text)
        assert str(fast.value) == str(slow.value)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["lines", "coarse"])
def test_mutants_parse_alike_in_every_scan(mode: str, shared_dir: Path, repo_root: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken texts (the fuzz campaign's mutants of every StableHLO module we have): the fast
    scans read each as the token scanner does, or fail with its error."""
    from fuzzing.mutators import load_seeds, make_mutant

    seeds = load_seeds(shared_dir, repo_root)
    differ = []
    for index in range(1, 2 * 250, 2):  # odd indices: StableHLO seeds
        text = make_mutant(seeds, index, 29).text
        try:
            slow = ("ok", _fields(_slow(text, monkeypatch)))
        except ParseError as err:
            slow = ("error", str(err))
        try:
            fast = ("ok", _fields(_in_mode(text, mode, monkeypatch)))
        except ParseError as err:
            fast = ("error", str(err))
        if fast != slow:
            differ.append(index)
    assert not differ, differ
