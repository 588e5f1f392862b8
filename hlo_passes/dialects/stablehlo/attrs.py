"""MLIR attribute values and types: decoding with ``attrs.lark``, HLO naming.

The StableHLO scanner (``parser.py``) cuts attribute entries and type
texts out of the source and never builds a parse tree on the fast path.  This
module owns everything that needs to understand a value:

* ``check(text, start)`` runs the lark grammar (``validate=True`` and lazy
  decoding both go through it),
* ``decode_attribute(op, key, raw)`` turns the source text behind one of an
  instruction's HLO-named attributes into the value ``ir.ATTRIBUTE_VALUES``
  promises,
* the tables that map MLIR op and attribute names to HLO's, and
* ``encode_entries(op, key, value)`` for the way back when a pass assigned a
  decoded value.
"""
from __future__ import annotations

import os
import re
from typing import Any, NoReturn

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput

from ...ir import device_groups
from ...ir.op_table import BY_MLIR, OPS, AttrKind
from ..ints import NumberError, cut_long_lists, to_int
from ..split import split_top_level

MAX_NESTING = 150

_GRAMMAR_PATH = os.path.join(os.path.dirname(__file__), "attrs.lark")
_STARTS = ["attr", "type", "type_list", "ranges", "entries", "sharding_body", "pretty_value"]
_lark: Lark | None = None


class AttrDecodeError(ValueError):
    """A fragment the grammar rejects, with the offset of the problem in it."""

    def __init__(self, reason: str, offset: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


def _parser() -> Lark:
    global _lark
    if _lark is None:
        with open(_GRAMMAR_PATH, encoding="utf-8") as f:
            _lark = Lark(f.read(), parser="lalr", lexer="contextual", start=_STARTS,
                         maybe_placeholders=False, propagate_positions=True)
    return _lark


def _nesting_ok(text: str) -> None:
    # lark's LALR stack is iterative but tree walking recurses: refuse
    # pathological nesting before building the tree.
    if sum(text.count(c) for c in "([{<") <= MAX_NESTING:
        return  # cannot nest that deep (counted in C: dense<"0x..."> replica groups of 256 devices are long)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                raise AttrDecodeError(f"nesting deeper than {MAX_NESTING}", i)
        elif ch in ")]}>":
            depth -= 1


# Long lists -- dense<[...]> and array<T: ...> literals, [1, 0, ...] arrays,
# slice ranges, `key = [...]` entries of pretty forms -- are read by a token
# loop of their own: lark costs ~20 µs a token, seconds for 10^5 numbers, and
# a module may be decoded more than once.  The loop takes only numbers,
# booleans and brackets; anything else goes to the grammar as before.
FAST_MIN = 2048
_FAST_TOKEN = re.compile(
    r"\s*(?:(\[)|(\])|(,)|(>)"
    r"|([-+]?(?:0x[0-9a-fA-F]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+|inf|nan))|(true|false))")
_FAST_OPEN = re.compile(r"\s*(?:(dense<)|array<\s*([a-z][a-z0-9]*)\s*(:|(?=>))|(?=\[))")
_FAST_KEY = re.compile(r"\s*([A-Za-z_][\w.$-]*)\s*=")
_FAST_TYPE = re.compile(r"\s*:\s*(?:tensor<(?:(?:\d+|\?)x)*([a-z][a-z0-9]*)>|([a-z][a-z0-9]*))(?![\w<])")
_ELEMENT = re.compile(r"[iuf]\d+|bf16|index|[su]?i\d+|f8E\w+|complex")
_FAST_SEP = re.compile(r"\s*(,|x\s*(?=\[))")
_NOT_FAST = object()


class _NotFast(Exception):
    pass


def _scalar_of(tok: str, offset: int) -> Any:
    if tok in ("true", "false"):
        return tok == "true"
    if tok.isdigit() or tok.lstrip("+-")[:2] == "0x" or not any(c in tok for c in ".eEin"):
        try:
            return to_int(tok)
        except NumberError as e:
            raise AttrDecodeError(e.reason, offset) from None
    return float(tok)


def _fast_items(text: str, pos: int, closer: str, convert: bool) -> tuple[list[Any], int]:
    """Values up to ``closer`` (']' or '>') from ``pos``, lists nested; (values, position after the closer)."""
    stack: list[list[Any]] = [[]]
    expect_value = True
    while True:
        m = _FAST_TOKEN.match(text, pos)
        if m is None:
            raise _NotFast
        # Every alternative of _FAST_TOKEN is a group: a match's lastindex is an int, which
        # its type (int | None) cannot say.
        k: int = m.lastindex  # type: ignore[assignment]
        at = m.start(k)
        pos = m.end()
        if k == 1:  # [
            if not expect_value or len(stack) > MAX_NESTING:
                raise _NotFast
            stack.append([])
        elif k in (2, 4):  # ] or >
            if expect_value and stack[-1]:
                raise AttrDecodeError("expected a value after ','", at)
            done = stack.pop()
            if not stack:
                if text[at] != closer:
                    raise AttrDecodeError(f"expected {closer!r}", at)
                return done, pos
            if text[at] != "]":
                raise AttrDecodeError("unclosed '['", at)
            stack[-1].append(done)
            expect_value = False
        elif k == 3:  # ,
            if expect_value:
                raise AttrDecodeError("unexpected ','", at)
            expect_value = True
        else:
            if not expect_value:
                raise AttrDecodeError("expected ',' between values", at)
            stack[-1].append(_scalar_of(m.group(k), at) if convert else m.group(k))
            expect_value = False


# A range of the grammar's ``ranges`` (INT as attrs.lark writes it, hex included), then ',' or ']'.
_RANGE_INT = r"[-+]?(?:0x[0-9a-fA-F]+|\d+)"
_RANGE = re.compile(rf"\s*({_RANGE_INT})\s*:\s*({_RANGE_INT})(?:\s*:\s*({_RANGE_INT}))?\s*([,\]])")
_NEXT_TOKEN = re.compile(r"\s*(\w+|\S)")
_RANGE_PREFIX = re.compile(rf"\s*{_RANGE_INT}(?:\s*:\s*{_RANGE_INT}(?:\s*:\s*{_RANGE_INT})?)?")


def _fast_ranges(text: str, convert: bool) -> Any:
    """``[0:4, 2:8:2]`` → ((0, 4, 1), (2, 8, 2)).  The reader takes exactly the grammar's
    ``ranges`` (``[`` ranges ``,``-separated ``]``, blanks anywhere), so what it refuses the
    grammar refuses too: an ``AttrDecodeError`` where it stopped (the grammar would spend
    ~20 µs a token on a long bad list to say so: fuzz, a 1 MB slice range took 10 s)."""
    m = re.compile(r"\s*\[\s*").match(text)
    if m is None:
        _no_range(text, 0)
    pos = m.end()
    out = []
    if text.startswith("]", pos):
        if text[pos + 1:].strip():
            _no_range(text, pos + 1)
        return ()
    while True:
        r = _RANGE.match(text, pos)
        if r is None:
            _no_range(text, pos)
        if convert:
            out.append((_scalar_of(r.group(1), r.start(1)), _scalar_of(r.group(2), r.start(2)),
                        _scalar_of(r.group(3), r.start(3)) if r.group(3) else 1))
        pos = r.end()
        if r.group(4) == "]":
            if text[pos:].strip():
                _no_range(text, pos)
            return tuple(out)


def _no_range(text: str, pos: int) -> NoReturn:
    # Past what still reads as (the start of) a range: the grammar stops at the token after it.
    head = _RANGE_PREFIX.match(text, pos)
    tok = _NEXT_TOKEN.match(text, head.end() if head is not None else pos)
    what = f"unexpected {tok.group(1):.30}" if tok is not None else "unexpected end of input"
    raise AttrDecodeError(f"invalid ranges: {what}", tok.start(1) if tok is not None else len(text))


def _fast_value(text: str, pos: int, convert: bool) -> tuple[Any, int]:
    """One value from ``pos``: dense<...>, array<T: ...> or a [...] list (with an optional ': type')."""
    m = _FAST_OPEN.match(text, pos)
    if m is None:
        raise _NotFast
    if m.group(1):
        items, pos = _fast_items(text, m.end(), ">", convert)
        if len(items) > 1:
            raise AttrDecodeError("a dense literal holds one value or one nested list", pos - 1)
        value: Any = items[0] if items else []
    elif m.group(2):
        items, pos = _fast_items(text, m.end(), ">", convert)
        if any(isinstance(v, list) for v in items):
            raise _NotFast
        value = tuple(items)
    else:
        value, pos = _fast_items(text, m.end() + 1, "]", convert)
    t = _FAST_TYPE.match(text, pos)
    if t is not None and not _ELEMENT.fullmatch(t.group(1) or t.group(2)):
        raise _NotFast  # some other type: the grammar says whether it is one
    return value, (t.end() if t else pos)


def _fast_literal(text: str, start: str, convert: bool = True) -> Any:
    """What decode_text(text, start) gives for a text of long plain lists, or _NOT_FAST.

    ``convert=False`` (check): the syntax only, numbers stay text, as the grammar leaves them.
    """
    try:
        if start == "ranges":
            return _fast_ranges(text, convert)
        if start != "entries":
            value, pos = _fast_value(text, 0, convert)
            return value if not text[pos:].strip() else _NOT_FAST
        out: dict[str, Any] = {}
        pos = 0
        while True:
            k = _FAST_KEY.match(text, pos)
            if k is None:
                return _NOT_FAST
            value, pos = _fast_value(text, k.end(), convert)
            sep = _FAST_SEP.match(text, pos)
            if sep is not None and sep.group(1) != ",":
                second, pos = _fast_value(text, sep.end(), convert)
                value = (value, second)  # contracting_dims = [..] x [..]
                sep = _FAST_SEP.match(text, pos)
            out[k.group(1)] = value
            if sep is None:
                return out if not text[pos:].strip() else _NOT_FAST
            pos = sep.end()
    except _NotFast:
        return _NOT_FAST


def check(text: str, start: str, *, tree: bool = False) -> Tree[Any]:
    """Parse ``text`` with start symbol ``start``; ``AttrDecodeError`` if it is not one.

    Only ``tree=True`` callers use the tree; the others get the verdict, which
    for a long text comes from the token loop or from the text with its long
    lists cut short (the error's offset is then into that text).
    """
    if len(text) > FAST_MIN and not tree:
        if start in ("attr", "entries", "pretty_value", "ranges") \
                and _fast_literal(text, "attr" if start == "pretty_value" else start, False) is not _NOT_FAST:
            return Tree("fast", [])
        text = cut_long_lists(text)[0]
    _nesting_ok(text)
    try:
        return _parser().parse(text, start=start)
    except UnexpectedInput as e:
        pos = getattr(e, "pos_in_stream", None) or 0
        tok = getattr(e, "token", None)
        what = f"unexpected {tok!s:.30}" if tok is not None else "unexpected character"
        raise AttrDecodeError(f"invalid {start.replace('_', ' ')}: {what}", pos) from None
    except (LarkError, RecursionError) as e:
        raise AttrDecodeError(f"invalid {start}: {type(e).__name__}", 0) from None


# ---- tree → Python ------------------------------------------------------------
class DialectAttr(str):
    """A dialect attribute (``#stablehlo.dot<...>``) kept as its text; ``.name`` and ``.body``."""

    @property
    def name(self) -> str:
        i = self.find("<")
        return self if i < 0 else self[:i]

    @property
    def body(self) -> str:
        i = self.find("<")
        return "" if i < 0 else self[i + 1:-1]


def _unescape(s: str) -> str:
    body = s[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n:
            nxt = body[i + 1]
            if nxt in "\\\"":
                out.append(nxt)
                i += 2
                continue
            if nxt == "n":
                out.append("\n")
                i += 2
                continue
            if nxt == "t":
                out.append("\t")
                i += 2
                continue
            hx = body[i + 1:i + 3]
            if len(hx) == 2 and all(h in "0123456789abcdefABCDEF" for h in hx):
                out.append(chr(int(hx, 16)))
                i += 3
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _int(tok: str) -> int:
    """An integer token's value (decimal or 0x...); one out of 64-bit range fails at the token."""
    try:
        return to_int(tok)
    except NumberError as e:
        raise AttrDecodeError(e.reason, getattr(tok, "start_pos", None) or 0) from None


def _flat(node: Any) -> str:
    """Source-like text of a subtree (dialect bodies, types): tokens joined."""
    if isinstance(node, Token):
        return str(node)
    parts: list[str] = []
    stack: list[Any] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Token):
            parts.append(str(n))
        else:
            stack.extend(reversed(n.children))
    return " ".join(parts)


_SOURCE: list[str] = [""]


def decode_text(text: str, start: str) -> Any:
    """Parse ``text`` and convert it to Python values (dialect attributes keep their source text)."""
    if len(text) > FAST_MIN and start in ("attr", "entries", "ranges"):
        value = _fast_literal(text, start)
        if value is not _NOT_FAST:
            return value
        check(text, start)  # a bad long text fails fast; a good one still needs its tree
    tree = check(text, start, tree=True)
    _SOURCE[0] = text
    return to_python(tree)


def to_python(node: Any, depth: int = 0) -> Any:
    """A decoded value: int/float/str/bool/list/dict; dense → nested lists; dialect attrs → DialectAttr."""
    if depth > MAX_NESTING:
        raise AttrDecodeError("nesting too deep")
    if isinstance(node, Token):
        if node.type == "INT":
            return _int(node)
        if node.type == "FLOAT":
            return float(node)
        if node.type == "STRING":
            return _unescape(str(node))
        if node.type == "SYMBOL":
            return str(node)[1:].strip('"')
        return str(node)
    d = node.data
    ch = node.children
    if d == "attr":
        return to_python(ch[0], depth + 1)
    if d == "int_value":
        return _int(ch[0])
    if d == "float_value":
        return float(ch[0])
    if d == "string_value":
        return _unescape(str(ch[0]))
    if d == "true_value":
        return True
    if d == "false_value":
        return False
    if d == "unit_value":
        return True
    if d in ("array", "dense_list"):
        return [to_python(c, depth + 1) for c in ch]
    if d == "dict":
        out: dict[str, Any] = {}
        for e in ch:
            key = to_python(e.children[0], depth + 1)
            out[key] = to_python(e.children[1], depth + 1) if len(e.children) > 1 else True
        return out
    if d == "dense":
        return to_python(ch[0], depth + 1) if ch else []
    if d == "complex_pair":
        return complex(to_python(ch[0], depth + 1), to_python(ch[1], depth + 1))
    if d == "dense_array":
        return tuple(to_python(c, depth + 1) for c in ch[1:])
    if d == "symbol_ref":
        return "::".join(str(t)[1:].strip('"') for t in ch)
    if d == "dialect_attr":
        meta = getattr(node, "meta", None)
        if meta is not None and not meta.empty:
            return DialectAttr(_SOURCE[0][meta.start_pos:meta.end_pos])
        name = str(ch[0])
        if len(ch) > 1:
            return DialectAttr(name + "<" + _flat(ch[1])[1:-1].strip() + ">")
        return DialectAttr(name)
    if d == "dims_pair":
        return (to_python(ch[0], depth + 1), to_python(ch[1], depth + 1))
    if d == "entries":
        out2: dict[str, Any] = {}
        for e in ch:
            key = to_python(e.children[0], depth + 1)
            out2[key] = to_python(e.children[1], depth + 1) if len(e.children) > 1 else True
        return out2
    if d == "ranges":
        res = []
        for r in ch:
            v = [_int(t) for t in r.children]
            res.append((v[0], v[1], v[2] if len(v) > 2 else 1))
        return tuple(res)
    return _flat(node)


# ---- names -----------------------------------------------------------------
# MLIR op → HLO opcode, where HLO has the same operation (the op table's MLIR names), and a
# function call, which HLO writes ``call``: past this boundary a call is ``call`` in both dialects
# (its ``source_op`` keeps the spelling, and the printer prints it back so).
OPCODES: dict[str, str] = {m: d.name for m, d in BY_MLIR.items()} | {"func.call": "call"}
# Ops that print as `return` inside func.func.
ALIASES = {"return": "func.return", "module": "builtin.module", "call": "func.call"}
# HLO opcode → the MLIR op an instruction spelled with its opcode (one a rewriter created: the IR
# and the rewriter speak opcodes) is printed as: the op table's first MLIR name, except a call,
# which this dialect writes as a function call (a composite also reads as call, but needs a name
# and a decomposition a new call does not have).
MLIR_OF: dict[str, str] = {d.name: d.mlir[0] for d in OPS.values() if d.mlir} | {"call": "func.call"}

# MLIR attribute name → HLO attribute name, per op (and for every op).
_COMMON = {
    "channel_handle": "channel_id",
    "mhlo.sharding": "sharding",
    "mhlo.frontend_attributes": "frontend_attributes",
    "replica_groups": "replica_groups",
    "use_global_device_ids": "use_global_device_ids",
}
_DOT = {"dot_dimension_numbers": ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims"),
        "batching_dims": ("lhs_batch_dims", "rhs_batch_dims"),
        "contracting_dims": ("lhs_contracting_dims", "rhs_contracting_dims"),
        "precision_config": "precision_config", "precision": "precision_config"}
ATTR_NAMES: dict[str, dict[str, Any]] = {
    "stablehlo.all_gather": {"all_gather_dim": "dimensions"},
    "stablehlo.reduce_scatter": {"scatter_dimension": "dimensions"},
    "stablehlo.all_to_all": {"split_dimension": "dimensions"},
    "stablehlo.concatenate": {"dimension": "dimensions", "dim": "dimensions"},
    "stablehlo.broadcast_in_dim": {"broadcast_dimensions": "dimensions", "dims": "dimensions"},
    "stablehlo.transpose": {"permutation": "dimensions", "dims": "dimensions"},
    "stablehlo.reverse": {"dimensions": "dimensions", "dims": "dimensions"},
    "stablehlo.reduce": {"dimensions": "dimensions"},
    "stablehlo.iota": {"iota_dimension": "iota_dimension", "dim": "iota_dimension"},
    "stablehlo.slice": {"start_indices": "slice", "limit_indices": "slice", "strides": "slice", "[]": "slice"},
    "stablehlo.pad": {"edge_padding_low": "padding", "edge_padding_high": "padding",
                      "interior_padding": "padding", "low": "padding", "high": "padding",
                      "interior": "padding"},
    "stablehlo.dot_general": _DOT,
    "chlo.ragged_dot": {"ragged_dot_dimension_numbers": ("lhs_batch_dims", "rhs_batch_dims",
                                                         "lhs_contracting_dims", "rhs_contracting_dims",
                                                         "lhs_ragged_dims", "rhs_group_dims"),
                        "precision_config": "precision_config"},
    "stablehlo.get_tuple_element": {"index": "index", "[]": "index"},
    "stablehlo.custom_call": {"call_target_name": "custom_call_target", "@": "custom_call_target"},
    "func.call": {"callee": "to_apply", "@": "to_apply"},
    "stablehlo.compare": {"comparison_direction": "direction", "compare_type": "type"},
    "stablehlo.dynamic_slice": {"slice_sizes": "dynamic_slice_sizes", "sizes": "dynamic_slice_sizes"},
    "sdy.sharding_constraint": {"sharding": "sharding", "<>": "sharding"},
    "stablehlo.get_dimension_size": {"dimension": "dimensions", "dim": "dimensions"},
    "stablehlo.set_dimension_size": {"dimension": "dimensions", "dim": "dimensions"},
}
DECODED_KEYS = {"dimensions", "slice", "padding", "replica_groups", "channel_id",
                "use_global_device_ids", "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                "rhs_contracting_dims", "lhs_ragged_dims", "rhs_group_dims", "index",
                "custom_call_target", "to_apply", "frontend_attributes", "iota_dimension",
                "dynamic_slice_sizes", "in_shardings", "out_shardings", "manual_axes"}


def hlo_key(op: str, key: str) -> Any:
    """The HLO attribute name(s) for MLIR attribute ``key`` of ``op`` (str or tuple), or ``key``."""
    per = ATTR_NAMES.get(op)
    if per is not None and key in per:
        return per[key]
    return _COMMON.get(key, key)


# ---- decoding --------------------------------------------------------------
_DIM_FIELDS = {
    "lhs_batch_dims": ("lhs_batching_dimensions", "batching_dims", 0),
    "rhs_batch_dims": ("rhs_batching_dimensions", "batching_dims", 1),
    "lhs_contracting_dims": ("lhs_contracting_dimensions", "contracting_dims", 0),
    "rhs_contracting_dims": ("rhs_contracting_dimensions", "contracting_dims", 1),
    "lhs_ragged_dims": ("lhs_ragged_dimensions", None, 0),
    "rhs_group_dims": ("rhs_group_dimensions", None, 0),
}
# One ``key = value`` field of a dialect attribute's body; values are a list,
# a nested dialect attribute without deeper nesting, a string or one word.
_GAP = r"(?:\s|//[^\n]*)*"  # blanks and line comments
_DIALECT_FIELD = re.compile(rf'([A-Za-z_]\w*){_GAP}={_GAP}(\[[^\]]*\]|#[\w.]+<[^<>]*>|"[^"]*"|[^,<>\s\[\]"/]+)'
                            rf'{_GAP}(?:,{_GAP}|$)')


def _dialect_fields(attr: str) -> dict[str, Any]:
    """``#x.y<a = [1], b = 2>`` → {"a": (1,), "b": 2} (flat bodies only).

    The fields are matched one after the other from the start, so a body that
    is not a list of fields (``[1]bbbb...``) is an error at its first bad
    character, found in one pass over the text.
    """
    body = DialectAttr(attr).body
    out: dict[str, Any] = {}
    gap = re.compile(_GAP).match(body)
    assert gap is not None, "the gap pattern matches the empty text"
    pos = gap.end()
    while pos < len(body):
        m = _DIALECT_FIELD.match(body, pos)
        if m is None:
            raise AttrDecodeError(f"expected 'name = value' fields in {DialectAttr(attr).name}<...>, "
                                  f"got {body[pos:pos + 20]!r}", pos)
        pos = m.end()
        v = m.group(2)
        if v.startswith("["):
            out[m.group(1)] = tuple(_int(x) for x in v[1:-1].replace(" ", "").split(",") if x)
        else:
            try:
                out[m.group(1)] = to_int(v)
            except NumberError:
                out[m.group(1)] = v
    return out


def _ints(v: Any) -> tuple[int, ...]:
    if isinstance(v, (list, tuple)):
        out: list[int] = []
        for x in v:
            out.extend(_ints(x))
        return tuple(out)
    if isinstance(v, bool):
        return (int(v),)
    if isinstance(v, int):
        return (v,)
    raise AttrDecodeError(f"expected integers, got {v!r:.40}")


_MESH_AXIS_RE = re.compile(r'mesh_axis<\s*name\s*=\s*"([^"]*)"\s*,\s*size\s*=\s*(-?\d+)\s*>')
_AXIS_REF_RE = re.compile(r'axis_ref<\s*name\s*=\s*"([^"]*)"\s*(?:,\s*sub_axis_info\s*=\s*\((\d+)\)\s*(\d+)\s*)?>')
_SDY_AXIS_RE = re.compile(r'"([^"]*)"\s*=\s*(-?\d+)')
_DEVICE_IDS_RE = re.compile(r"device_ids\s*=\s*(?:\[([^\]]*)\]|array<i64(?::([^>]*))?>)")
_MESH_REF_RE = re.compile(r"mesh\s*=\s*@([\w.$\-]+|\"[^\"]*\")")


def mesh_of_sdy_op(text: str) -> tuple[list[tuple[str, int]], list[int] | None]:
    """(axes, device ids) of ``sdy.mesh @m = <["a"=2, "b"=4], device_ids=[...]>``."""
    body = text[text.find("<") + 1:]
    close = body.find("]")
    axes = [(n, int(z)) for n, z in _SDY_AXIS_RE.findall(body[:close + 1])]
    dm = _DEVICE_IDS_RE.search(body, close)
    ids = None
    if dm is not None:
        listed = dm.group(1) if dm.group(1) is not None else (dm.group(2) or "")
        ids = [int(x) for x in listed.replace(" ", "").split(",") if x]
    return axes, ids


def _mesh_axes_groups(attr: str, meshes: dict[str, str] | None) -> Any:
    """``#stablehlo.replica_group_mesh_axes<mesh = ..., axes = [...]>`` as ``DeviceGroups``.

    The mesh is inline (``#stablehlo.mesh<axes = [...]>``) or a symbol
    (``@mesh_0``) defined by a ``sdy.mesh`` op of the module (jax 0.12); a
    group holds the devices that differ only along the listed axes or
    sub-axes (``sub_axis_info = (pre)size``), in their listed order.  A
    symbol the module does not define leaves the text.
    """
    ref = _MESH_REF_RE.search(attr)
    if ref is not None:
        name = ref.group(1).strip('"')
        op_text = (meshes or {}).get(name) or (meshes or {}).get("@" + name)
        if op_text is None:
            return str(attr)
        axes, ids = mesh_of_sdy_op(op_text)
    else:
        axes = [(n, int(z)) for n, z in _MESH_AXIS_RE.findall(attr)]
        dm = _DEVICE_IDS_RE.search(attr)
        ids = None
        if dm is not None:
            listed = dm.group(1) if dm.group(1) is not None else (dm.group(2) or "")
            ids = [int(x) for x in listed.replace(" ", "").split(",") if x]
    refs_at = attr.find("axes = [", attr.find("mesh"))
    refs = [(n, int(pre), int(size)) if pre else (n, None, None)
            for n, pre, size in _AXIS_REF_RE.findall(attr[max(refs_at, 0):] if ref is None else attr)]
    if attr.count("axis_ref<") != len(refs):
        raise AttrDecodeError(f"cannot read the axes of {attr[:80]}")
    try:
        return device_groups.mesh(axes, refs, ids)
    except device_groups.DeviceGroupsError as e:
        raise AttrDecodeError(f"bad replica groups: {e.reason}") from None


def _group_entry(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or x in (float("inf"), float("-inf")) \
            or int(x) != x:
        raise AttrDecodeError(f"replica group entries must be integers, got {x!r:.40}")
    return int(x)


def _groups(v: Any, meshes: dict[str, str] | None = None) -> Any:
    if isinstance(v, DialectAttr):
        if v.name == "#stablehlo.replica_group_mesh_axes":
            return _mesh_axes_groups(v, meshes)
        raise AttrDecodeError(f"unknown replica group form {v.name}")
    if not isinstance(v, list):
        v = [v]
    if v and not isinstance(v[0], list):
        v = [v]
    return device_groups.explicit([[e for e in map(_group_entry, g) if e >= 0] for g in v])


def _sdy_list(key: str, raw: str) -> tuple[str, ...]:
    """sdy.manual_computation's per-operand shardings / manual axes, in either form."""
    value = raw.partition("=")[2].strip()
    if key == "manual_axes":
        if value.startswith("#sdy<manual_axes"):
            value = value[len("#sdy<manual_axes"):-1]
        if not (value.startswith("{") and value.endswith("}")):
            raise AttrDecodeError("expected {\"axis\", ...} for manual_axes")
        return tuple(decode_text(a, "attr") for a in split_top_level(value[1:-1]))
    if value.startswith("#sdy.sharding_per_value<"):
        value = value[len("#sdy.sharding_per_value<"):-1]
    if not (value.startswith("[") and value.endswith("]")):
        raise AttrDecodeError(f"expected [<@mesh, ...>, ...] for {key}")
    items = split_top_level(value[1:-1])
    for it in items:
        check(it, "sharding_body")
    return tuple(items)


def parse_entries(raw: str) -> dict[str, Any]:
    """``a = 1 : i64, b`` (attribute-dictionary entries or pretty ``key = value`` pieces)."""
    if len(raw) <= FAST_MIN:
        entries: dict[str, Any] = decode_text(raw, "entries")
        return entries
    # Each attribute of an op with a pretty form (a dot's dimension numbers, a
    # pad's edges) is decoded from the same text: a long one -- a list of 10^5
    # numbers the token loop cannot take -- would go through the grammar once per
    # key (fuzz: 4 s and 14 s on 0.4 and 1 MB).  Its verdict is kept, failures too.
    hit = _LONG_ENTRIES.get(raw)
    if hit is None:
        try:
            hit = decode_text(raw, "entries")
        except AttrDecodeError as err:
            hit = err
        if len(_LONG_ENTRIES) >= _LONG_ENTRIES_MAX:
            _LONG_ENTRIES.clear()
        _LONG_ENTRIES[raw] = hit
    if isinstance(hit, AttrDecodeError):
        raise AttrDecodeError(hit.reason, hit.offset)
    return dict(hit)


_LONG_ENTRIES: dict[str, Any] = {}
_LONG_ENTRIES_MAX = 8


_DECODE_CACHE: dict[tuple[str, str, str], Any] = {}
# Bounded by the characters of the texts it keeps, not by their count: the
# replica groups of hundreds of devices are kilobytes of dense<"0x..."> each,
# repeated by every collective over the same axes.
_DECODE_CACHE_CHARS = [0]
_DECODE_CACHE_MAX_CHARS = 32 << 20


def decode_attribute(op: str, key: str, raw: str, meshes: dict[str, str] | None = None) -> Any:
    """The decoded value of HLO-named attribute ``key`` of MLIR op ``op`` from its raw text.

    ``meshes`` (symbol → ``sdy.mesh`` op text) resolves replica groups that
    name their mesh by symbol.  Programs repeat the same few attribute texts
    thousands of times, so results are cached (dict values are handed out
    as copies).
    """
    if key == "replica_groups" and "@" in raw:
        # The meaning depends on the module's mesh, which is not in the key.
        e = parse_entries(raw)
        return _groups(list(e.values())[0] if e else None, meshes)
    ck = (op, key, raw)
    hit = _DECODE_CACHE.get(ck)
    if hit is not None:
        if isinstance(hit, AttrDecodeError):
            raise AttrDecodeError(hit.reason, hit.offset)
        return dict(hit) if isinstance(hit, dict) else hit
    try:
        value = _decode_attribute(op, key, raw)
    except AttrDecodeError as err:
        # A long bad text is as dear to reject as to read (the grammar, ~20 µs a token),
        # and the verifier asks again for each check: its verdict is kept too.
        if len(raw) > FAST_MIN:
            _remember(ck, AttrDecodeError(err.reason, err.offset))
        raise
    _remember(ck, dict(value) if isinstance(value, dict) else value)
    return value


def _remember(ck: tuple[str, str, str], value: Any) -> None:
    if _DECODE_CACHE_CHARS[0] + len(ck[2]) <= _DECODE_CACHE_MAX_CHARS and len(_DECODE_CACHE) < 50_000:
        _DECODE_CACHE[ck] = value
        _DECODE_CACHE_CHARS[0] += len(ck[2])


# replica_groups = dense<...> : tensor<GxSxi64>, as jax writes them: a literal
# list, or (MLIR's print of large constants, e.g. 16 x 16 devices) the raw
# little-endian int64 data in hex.  Read directly: hundreds of device ids
# through the grammar cost a millisecond a collective.
_DENSE_I64_GROUPS = re.compile(
    r'\s*(?:replica_groups\s*=\s*)?dense<(?:"0x(?P<hex>[0-9A-Fa-f]*)"|(?P<list>\[[\[\]0-9,\s-]*\]))>'
    r'\s*:\s*tensor<(?P<rows>\d+)x(?P<cols>\d+)xi64>\s*')


def _dense_i64_groups(raw: str) -> device_groups.DeviceGroups | None:
    """Replica groups from ``dense<[[...]]>`` or ``dense<"0x...">`` of ``tensor<GxSxi64>``; None otherwise."""
    m = _DENSE_I64_GROUPS.fullmatch(raw)
    if m is None:
        return None
    rows, cols = int(m["rows"]), int(m["cols"])
    if rows * cols > device_groups.MAX_DEVICES:
        raise AttrDecodeError(f"replica groups tensor<{rows}x{cols}xi64> hold more than 2**20 device ids")
    if m["hex"] is not None:
        data = bytes.fromhex(m["hex"])
        if len(data) == 8 and rows * cols != 1:  # a splat: one value for every element
            data *= rows * cols
        if len(data) != 8 * rows * cols:
            raise AttrDecodeError(f"dense hex data of {len(data)} bytes for tensor<{rows}x{cols}xi64>")
        flat = [int.from_bytes(data[i:i + 8], "little", signed=True) for i in range(0, len(data), 8)]
    else:
        flat = [int(x) for x in re.findall(r"-?\d+", m["list"])]
        if len(flat) != rows * cols:
            return None  # not the plain nested list of that shape: the grammar decides
    # -1 pads shorter groups to the row width.
    return device_groups.explicit([[x for x in flat[r * cols:(r + 1) * cols] if x >= 0] for r in range(rows)])


# Ops whose one dimension MLIR writes as an integer (``all_gather_dim = 1``), HLO as {1}.
_ONE_DIMENSION = frozenset(m for d in OPS.values() if any(a.kind is AttrKind.ONE_DIM for a in d.attributes)
                           for m in d.mlir)


def _decode_attribute(op: str, key: str, raw: str) -> Any:
    if key == "replica_groups":
        groups = _dense_i64_groups(raw)
        if groups is not None:
            return groups
    if key not in DECODED_KEYS:
        if key == "sharding" and op == "sdy.sharding_constraint":
            check(raw, "sharding_body" if raw.startswith("<") else "attr")
        elif raw and key != "parameter_number":
            try:
                check(raw, "attr")
            except AttrDecodeError:
                # Pieces of an op's custom syntax (`dim_numbers = [b, 0, f]x[...]->[...]`)
                # are not attributes; they must at least be balanced tokens.
                check(raw, "pretty_value")
        return raw
    if key in ("in_shardings", "out_shardings", "manual_axes"):
        return _sdy_list(key, raw)
    if key == "slice" and raw.startswith("["):
        return decode_text(raw, "ranges")
    if key == "index" and raw.startswith("["):
        return _int(raw.strip("[] "))
    if key in ("custom_call_target", "to_apply") and raw.startswith("@"):
        return decode_text(raw, "attr")
    e = parse_entries(raw)
    if key == "slice":
        start, limit = _ints(e.get("start_indices", ())), _ints(e.get("limit_indices", ()))
        strides = _ints(e.get("strides", (1,) * len(start)))
        return tuple(zip(start, limit, strides))
    if key == "padding":
        lo = _ints(e.get("edge_padding_low", e.get("low", ())))
        hi = _ints(e.get("edge_padding_high", e.get("high", ())))
        it = _ints(e.get("interior_padding", e.get("interior", (0,) * len(lo))))
        return tuple(zip(lo, hi, it))
    if key in _DIM_FIELDS:
        long_name, pretty, side = _DIM_FIELDS[key]
        for v in e.values():
            if isinstance(v, DialectAttr):
                return _dialect_fields(v).get(long_name, ())
        if pretty is not None and pretty in e:
            return _ints(e[pretty][side])
        return ()
    (value,) = e.values() if len(e) == 1 else (list(e.values())[0],)
    if key in ("dimensions", "dynamic_slice_sizes"):
        dims = _ints(value)
        if key == "dimensions" and op in _ONE_DIMENSION and len(dims) != 1:
            # Printed back it must be one `dimension = d : i64` (fuzz: `dim = dense<[[]]>`).
            raise AttrDecodeError(f"{op} takes one dimension, got {len(dims)}")
        return dims
    if key in ("iota_dimension", "index"):
        return _ints(value)[0]
    if key == "replica_groups":
        return _groups(value)
    if key == "channel_id":
        return int(_dialect_fields(value).get("handle", 0)) if isinstance(value, DialectAttr) else int(value)
    if key == "use_global_device_ids":
        return bool(value)
    if key in ("custom_call_target", "to_apply"):
        return str(value)
    if key == "frontend_attributes":
        return {str(k): (v if isinstance(v, str) else str(v)) for k, v in dict(value).items()}
    return value


# ---- encoding (decoded HLO value → MLIR attribute entries) ---------------------
def _arr(v: Any) -> str:
    return "array<i64" + (": " + ", ".join(str(int(x)) for x in v) if len(v) else "") + ">"


def _list(v: Any) -> str:
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def _dense_groups(groups: Any) -> str:
    groups = [tuple(g) for g in groups]
    width = max((len(g) for g in groups), default=0)
    rows = ["[" + ", ".join(str(x) for x in (g + (-1,) * (width - len(g)))) + "]" for g in groups]
    return f"dense<[{', '.join(rows)}]> : tensor<{len(groups)}x{width}xi64>"


def mlir_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\0A")
        elif ord(ch) < 32:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def encode(op: str, key: str, value: Any, attrs: Any) -> list[tuple[str, str | None]]:
    """MLIR ``(name, value text)`` entries for HLO attribute ``key`` = ``value`` of ``op``.

    ``attrs`` is the instruction's ``Attributes`` (dot dimension numbers are one
    MLIR attribute built from four HLO ones).
    """
    if key == "dimensions":
        v = _ints(value)
        if op in ("stablehlo.all_gather",):
            return [("all_gather_dim", f"{v[0]} : i64")]
        if op == "stablehlo.reduce_scatter":
            return [("scatter_dimension", f"{v[0]} : i64")]
        if op == "stablehlo.all_to_all":
            return [("split_dimension", f"{v[0]} : i64")]
        if op == "stablehlo.concatenate":
            return [("dimension", f"{v[0]} : i64")]
        if op == "stablehlo.broadcast_in_dim":
            return [("broadcast_dimensions", _arr(v))]
        if op == "stablehlo.transpose":
            return [("permutation", _arr(v))]
        if op in ("stablehlo.get_dimension_size", "stablehlo.set_dimension_size"):
            return [("dimension", f"{v[0]} : i64")]
        return [("dimensions", _arr(v))]
    if key == "iota_dimension":
        return [("iota_dimension", f"{int(value)} : i64")]
    if key == "slice":
        s = tuple(tuple(x) for x in value)
        return [("start_indices", _arr([x[0] for x in s])), ("limit_indices", _arr([x[1] for x in s])),
                ("strides", _arr([x[2] if len(x) > 2 else 1 for x in s]))]
    if key == "padding":
        p = tuple(tuple(x) for x in value)
        return [("edge_padding_low", _arr([x[0] for x in p])), ("edge_padding_high", _arr([x[1] for x in p])),
                ("interior_padding", _arr([x[2] if len(x) > 2 else 0 for x in p]))]
    if key == "replica_groups":
        return [("replica_groups", _dense_groups(value))]
    if key == "channel_id":
        kind = 1
        return [("channel_handle", f"#stablehlo.channel_handle<handle = {int(value)}, type = {kind}>")]
    if key == "use_global_device_ids":
        return [("use_global_device_ids", None)] if value else []
    if key in _DIM_FIELDS:
        if op == "chlo.ragged_dot":
            fields = ["lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims",
                      "lhs_ragged_dims", "rhs_group_dims"]
            body = ", ".join(f"{_DIM_FIELDS[f][0]} = {_list(attrs.get(f, ()))}" for f in fields)
            return [("ragged_dot_dimension_numbers", f"#chlo.ragged_dot<{body}>")]
        fields = ["lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims"]
        body = ", ".join(f"{_DIM_FIELDS[f][0]} = {_list(attrs.get(f, ()))}" for f in fields
                         if attrs.get(f, ()) or "contracting" in f)
        return [("dot_dimension_numbers", f"#stablehlo.dot<{body}>")]
    if key == "index":
        return [("index", f"{int(value)} : i32")]
    if key in ("in_shardings", "out_shardings"):
        items = [str(x) if str(x).startswith("<") else "<" + str(x) + ">" for x in value]
        return [(key, "#sdy.sharding_per_value<[" + ", ".join(items) + "]>")]
    if key == "manual_axes":
        return [(key, "#sdy<manual_axes{" + ", ".join(mlir_string(str(a)) for a in value) + "}>")]
    if key == "custom_call_target":
        return [("call_target_name", mlir_string(str(value)))]
    if key == "to_apply":
        return [("callee", "@" + str(value))]
    if key == "frontend_attributes":
        body = ", ".join(f"{k} = {mlir_string(str(v))}" for k, v in dict(value).items())
        return [("mhlo.frontend_attributes", "{" + body + "}")]
    if key == "dynamic_slice_sizes":
        return [("slice_sizes", _arr(_ints(value)))]
    mlir_key = {"sharding": "mhlo.sharding", "direction": "comparison_direction",
                "type": "compare_type", "precision_config": "precision_config"}.get(key, key)
    if op == "sdy.sharding_constraint" and key == "sharding":
        text = str(value)
        return [("sharding", text if text.startswith("#") else "#sdy.sharding" + text)]
    if isinstance(value, bool):
        return [(mlir_key, "true" if value else "false")]
    if isinstance(value, int):
        return [(mlir_key, f"{value} : i64")]
    if isinstance(value, str):
        return [(mlir_key, value)]
    if isinstance(value, (list, tuple)) and all(isinstance(x, int) for x in value):
        return [(mlir_key, _arr(value))]
    return [(mlir_key, mlir_string(str(value)))]
