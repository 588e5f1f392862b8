"""Decoding HLO attribute values with the lark grammar in ``attrs.lark``.

``decode_attribute(name, text)`` turns the source text of one attribute into
the value ``ir.ATTRIBUTE_VALUES`` promises; names without a specific rule are
checked against the generic balanced-value rule and stay text.  Errors are
``AttributeDecodeError`` with an offset into the value; the HLO parser turns
them into ``ParseError`` at the attribute's position.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any, cast

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput

from ...ir import Sharding
from ...ir import device_groups
from ..ints import NumberError, cut_long_lists, to_int

MAX_NESTING = 200

_GRAMMAR_PATH = os.path.join(os.path.dirname(__file__), "attrs.lark")
_STARTS = [
    "int_value", "int_list", "bool_value", "bool_list", "slice", "padding", "window",
    "dim_labels", "replica_groups", "pairs", "sharding", "metadata",
    "frontend_attributes", "nested_ints", "string", "backend_config", "computation",
    "computation_list", "ident", "ident_list", "literal", "layout", "shape",
    "shape_list", "computation_layout", "alias_map", "donor_list", "generic",
]
_parser: Lark | None = None


class AttributeDecodeError(ValueError):
    """A value the grammar rejects or whose meaning is invalid."""

    def __init__(self, reason: str, offset: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


AttributeError_ = AttributeDecodeError


def _get_parser() -> Lark:
    global _parser
    if _parser is None:
        with open(_GRAMMAR_PATH, encoding="utf-8") as f:
            grammar = f.read()
        _parser = Lark(
            grammar, parser="lalr", lexer="contextual", start=_STARTS,
            propagate_positions=True, maybe_placeholders=False,
        )
    return _parser


def _nesting_ok(text: str) -> None:
    # lark's tree walkers recurse; refuse pathological nesting before they do.
    depth = 0
    limit = MAX_NESTING
    if text.count("{") + text.count("(") + text.count("[") < limit:
        return
    in_str = False
    esc = False
    for i, c in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "{([":
            depth += 1
            if depth > limit:
                raise AttributeDecodeError(f"value nested more than {limit} levels deep", i)
        elif c in "})]":
            depth -= 1


def parse_tree(rule: str, text: str, *, verdict_only: bool = False) -> Tree[Any]:
    """The lark tree of ``text`` read as ``rule``; ``AttributeDecodeError`` if it is not one.

    ``verdict_only``: the caller uses no part of the tree, so long lists in the
    text are cut short first (``ints.cut_long_lists``; an error's offset is
    still into ``text``).
    """
    original = None
    if verdict_only and len(text) > LARGE_VALUE:
        text, original = cut_long_lists(text)
    try:
        return _parse_tree(rule, text)
    except AttributeDecodeError as e:
        if original is not None:
            e.offset = original(e.offset)
        raise


def _parse_tree(rule: str, text: str) -> Tree[Any]:
    _nesting_ok(text)
    try:
        return _get_parser().parse(text, start=rule)
    except UnexpectedInput as e:
        pos = getattr(e, "pos_in_stream", None) or 0
        token = getattr(e, "token", None)
        if token is not None and getattr(token, "start_pos", None) is not None:
            pos = token.start_pos
            what = f"unexpected {str(token)[:30]!r}" if str(token) else "unexpected end of value"
        else:
            what = f"unexpected character {text[pos:pos + 1]!r}" if pos < len(text) else "unexpected end of value"
        raise AttributeDecodeError(f"{what} in {rule.replace('_', ' ')}", pos) from None
    except (LarkError, RecursionError) as e:
        raise AttributeDecodeError(f"cannot decode {rule.replace('_', ' ')}: {type(e).__name__}") from None


def _int(tok: Token | Tree[Any]) -> int:
    """A SIGNED_INT token's value; one too long or too large fails at the token.  (Typed as
    lark types a tree's children: the grammar makes this child a token.)"""
    try:
        return to_int(str(tok))
    except NumberError as e:
        raise AttributeDecodeError(e.reason, getattr(tok, "start_pos", None) or 0) from None


def _ints(tokens: list[Any]) -> tuple[int, ...]:
    return tuple(_int(t) for t in tokens if isinstance(t, Token) and t.type == "SIGNED_INT")


# ---- converters: tree → value ------------------------------------------------
def _c_int(t: Tree[Any], text: str) -> int:
    return _int(t.children[0])


def _c_int_list(t: Tree[Any], text: str) -> tuple[int, ...]:
    return _ints(t.children)


def _c_bool(t: Tree[Any], text: str) -> bool:
    return cast(Token, t.children[0]).type == "TRUE"


def _c_bool_list(t: Tree[Any], text: str) -> tuple[bool, ...]:
    return tuple(c.type == "TRUE" for c in cast("list[Token]", t.children))


def _c_nested_ints(t: Tree[Any], text: str) -> Any:
    out = []
    for c in t.children:
        out.append(_int(c) if isinstance(c, Token) else _c_nested_ints(c, text))
    return tuple(out)


def _c_slice(t: Tree[Any], text: str) -> tuple[tuple[int, int, int], ...]:
    out = []
    for d in t.children:
        v = _ints(d.children)
        out.append((v[0], v[1], v[2] if len(v) > 2 else 1))
    return tuple(out)


def _pad_dims(t: Tree[Any]) -> tuple[tuple[int, int, int], ...]:
    out = []
    for d in t.children:
        v = _ints(d.children)
        out.append((v[0], v[1], v[2] if len(v) > 2 else 0))
    return tuple(out)


def _c_padding(t: Tree[Any], text: str) -> tuple[tuple[int, int, int], ...]:
    return _pad_dims(t)


def _c_window(t: Tree[Any], text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in t.children:
        if f.data == "window_pad":
            out["pad"] = tuple((lo, hi) for lo, hi, _ in _pad_dims(f.children[0]))
        else:
            out[str(f.children[0])] = _ints(f.children[1].children)
    return out


def _c_dim_labels(t: Tree[Any], text: str) -> str:
    labels = str(t.children[0])
    lhs, rest = labels.split("_", 1)
    rhs, out = rest.split("->", 1)

    def check(part: str, required: str, what: str) -> int:
        for r in required:
            if part.count(r) != 1:
                raise AttributeDecodeError(
                    f"dimension numbers: {what} {part!r} must contain exactly one {r!r}"
                )
        spatial = [c for c in part if c not in required]
        for c in spatial:
            if not (c.isdigit() or c == "?"):
                raise AttributeDecodeError(f"dimension numbers: unexpected label {c!r} in {what} {part!r}")
        return len(spatial)

    n_in = check(lhs, "bf", "input")
    n_k = check(rhs, "io", "kernel")
    n_out = check(out, "bf", "output")
    if not (n_in == n_k == n_out):
        raise AttributeDecodeError(
            "dimension numbers: input, kernel, and output must have the same number of "
            f"spatial dimensions, but got {n_in}, {n_k}, {n_out}"
        )
    return labels


def _iota_parts(text: str, t: Tree[Any]) -> tuple[list[int], list[int], list[int] | None]:
    """(reshape dims, iota dims, transpose or None) of ``[4,2]<=[2,4]T(1,0)``."""
    src = text[t.meta.start_pos:t.meta.end_pos]
    head, _, tail = src.partition("<=")
    shape = [int(x) for x in head.strip()[1:-1].split(",")]
    dims_text, _, perm_text = tail.strip().partition("T")
    dims = [int(x) for x in dims_text.strip()[1:-1].split(",")]
    perm = [int(x) for x in perm_text.strip()[1:-1].split(",")] if perm_text else None
    return shape, dims, perm


def _iota(text: str, t: Tree[Any]) -> tuple[tuple[int, ...], list[int]]:
    """A sharding's iota tile assignment: (tile shape, devices)."""
    shape, dims, perm = _iota_parts(text, t)
    try:
        total, devices = device_groups.iota_devices(dims, perm)
        n = 1
        for d in shape:
            if d < 0:
                raise AttributeDecodeError("negative dimension")
            n *= d
    except device_groups.DeviceGroupsError as e:
        raise AttributeDecodeError(e.reason) from None
    if n != total:
        raise AttributeDecodeError(
            f"iota reshape dimensions product {n} does not match the tile assignment dimensions product {total}"
        )
    return tuple(shape), devices()


def _c_replica_groups(t: Tree[Any], text: str) -> device_groups.DeviceGroups:
    try:
        if t.data == "explicit_groups":
            return device_groups.explicit([_ints(g.children) for g in t.children])
        if t.data == "iota_groups":
            return device_groups.iota(*_iota_parts(text, t.children[0]))
        return _mesh_groups(t)
    except device_groups.DeviceGroupsError as e:
        raise AttributeDecodeError(e.reason) from None


def _mesh_groups(t: Tree[Any]) -> device_groups.DeviceGroups:
    axes: list[tuple[str, int]] = []
    device_ids: Any = None
    refs: list[device_groups.AxisRef] = []
    for c in t.children:
        if isinstance(c, Tree) and c.data == "mesh_axis":
            axes.append((str(c.children[0])[1:-1], _int(c.children[1])))
        elif isinstance(c, Tree) and c.data == "axis_ref":
            sub = _ints(c.children[1:])
            refs.append((str(c.children[0])[1:-1], sub[0], sub[1]) if sub else (str(c.children[0])[1:-1], None, None))
        elif isinstance(c, Tree) and c.data == "device_id_list":
            device_ids = _ints(c.children)
        elif isinstance(c, Tree) and c.data == "device_id_iota":
            dims = _ints(c.children[0].children)
            perm = _ints(c.children[1:])
            device_ids = (dims, perm or None)
    return device_groups.mesh(axes, refs, device_ids)


def _c_pairs(t: Tree[Any], text: str) -> tuple[tuple[int, ...], ...]:
    out = []
    for g in t.children:
        v = _ints(g.children)
        if len(v) != 2:
            raise AttributeDecodeError("source_target_pairs entries must be {source,target}")
        out.append(v)
    return tuple(out)


def _c_sharding(t: Tree[Any], text: str) -> Sharding:
    if t.data == "tuple_sharding":
        return Sharding("tuple", tuple_shardings=tuple(_c_sharding(c, text) for c in t.children))
    if t.data == "named_sharding":
        return _named_sharding(t, text)
    kind = "replicated"
    tile_shape: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    last_replicate = False
    last_dims: tuple[str, ...] = ()
    metadata = None
    group = None
    iota_text = None
    seen_kind = False
    for f in t.children:
        d = f.data
        if d in ("sh_replicated", "sh_manual", "sh_unknown"):
            kind = d[3:]
            seen_kind = True
        elif d == "sh_maximal":
            kind = "maximal"
            devices = (_int(f.children[0]),)
            seen_kind = True
        elif d == "sh_devices":
            kind = "tiled"
            seen_kind = True
            ta = f.children[0]
            if ta.data == "iota_tiles":
                tile_shape, flat = _iota(text, ta.children[0])
                devices = tuple(flat)
                iota_text = text[ta.meta.start_pos:ta.meta.end_pos]
            else:
                ints = [_int(c) for c in ta.children]
                src = text[ta.meta.start_pos:ta.meta.end_pos]
                n_dims = src[:src.index("]")].count(",") + 1
                tile_shape, devices = tuple(ints[:n_dims]), tuple(ints[n_dims:])
        elif d == "sh_last_replicate":
            last_replicate = True
        elif d == "sh_last_dims":
            last_dims = tuple(str(c) for c in f.children)
        elif d == "sh_metadata":
            metadata = text[f.children[0].meta.start_pos:f.children[0].meta.end_pos]
        elif d == "sh_group":
            group = (str(f.children[0]), _int(f.children[1]))
    if not seen_kind and group is None:
        raise AttributeDecodeError("empty sharding")
    if not seen_kind:
        kind = "unknown"
    if kind != "tiled" and (last_replicate or last_dims):
        raise AttributeDecodeError("last_tile_dim_replicate/last_tile_dims need devices=")
    return Sharding(
        kind, tile_shape=tile_shape, devices=devices, last_tile_dim_replicate=last_replicate,
        last_tile_dims=last_dims, metadata=metadata, shard_group=group, iota=iota_text,
    )


def _named_sharding(t: Tree[Any], text: str) -> Sharding:
    """``{mesh[...], part, ...}``: the kind, and the text to print it back by."""
    parts = [text[c.meta.start_pos:c.meta.end_pos].strip() for c in t.children[1:]]
    inner = text[t.meta.start_pos:t.meta.end_pos].strip()[1:-1].strip()
    if "manual" in parts:
        kind = "manual"
    elif "replicated" in parts or (parts and parts[0].startswith("[") and "'" not in parts[0]):
        kind = "replicated"
    elif any(p.startswith("maximal") for p in parts):
        kind = "maximal"
    else:
        kind = "tiled"
    return Sharding(kind, named=inner)


def unquote(s: str) -> str:
    """The value of an HLO string literal (C-style escapes)."""
    body = s[1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    n = len(body)
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n:
            e = body[i + 1]
            if e in simple:
                out.append(simple[e])
                i += 2
                continue
            if e == "x" and i + 3 < n + 1:
                try:
                    out.append(chr(int(body[i + 2:i + 4], 16)))
                    i += 4
                    continue
                except ValueError:
                    pass
            out.append(e)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _c_metadata(t: Tree[Any], text: str) -> dict[str, str | int]:
    out: dict[str, str | int] = {}
    for f in t.children:
        key, value = f.children
        if isinstance(value, Tree):
            out[str(key)] = text[value.meta.start_pos:value.meta.end_pos]
        elif value.type == "STRING":
            out[str(key)] = unquote(str(value))
        elif value.type == "SIGNED_INT":
            out[str(key)] = _int(value)
        else:
            out[str(key)] = str(value)
    return out


def _c_frontend(t: Tree[Any], text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in t.children:
        key, value = item.children
        src = text[value.meta.start_pos:value.meta.end_pos]
        if len(value.children) == 1 and src.startswith('"') and src.endswith('"') and len(src) > 1:
            out[str(key)] = unquote(src)
        else:
            out[str(key)] = src
    return out


def _c_string(t: Tree[Any], text: str) -> str:
    return unquote(str(t.children[0]))


def _c_backend_config(t: Tree[Any], text: str) -> str:
    src = text.strip()
    if src.startswith('"'):
        return unquote(src)
    return src


def _c_computation(t: Tree[Any], text: str) -> str:
    return str(t.children[0]).lstrip("%")


def _c_computation_list(t: Tree[Any], text: str) -> tuple[str, ...]:
    return tuple(str(c).lstrip("%") for c in t.children)


def _c_ident(t: Tree[Any], text: str) -> str:
    return str(t.children[0])


def _c_ident_list(t: Tree[Any], text: str) -> tuple[str, ...]:
    return tuple(str(c) for c in t.children)


def _scalar(tok: Token) -> Any:
    s = str(tok)
    if tok.type == "TRUE":
        return True
    if tok.type == "FALSE":
        return False
    if tok.type == "SPECIAL_FLOAT":
        return float("-inf") if s == "-inf" else float("inf") if s == "inf" else float("nan")
    if "." in s or "e" in s or "E" in s:
        return float(s)
    return _int(tok)


def _c_literal(t: Tree[Any], text: str) -> Any:
    # An explicit stack: literals can be large, and lark trees are only as deep
    # as the nesting, which _nesting_ok bounds.
    def build(node: Any) -> Any:
        stack: list[tuple[Any, list[Any]]] = [(node, [])]
        result = None
        while stack:
            cur, acc = stack[-1]
            kids = cur.children if isinstance(cur, Tree) else []
            if isinstance(cur, Tree) and cur.data == "lit_scalar":
                stack.pop()
                value = _scalar(cast(Token, cur.children[0]))
            elif isinstance(cur, Tree) and len(acc) < len(kids):
                child = kids[len(acc)]
                if isinstance(child, Tree):
                    stack.append((child, []))
                    continue
                acc.append(None)  # a shape token
                continue
            else:
                stack.pop()
                if cur.data == "lit_typed":
                    value = acc[-1]
                elif cur.data == "lit_elided":
                    value = ...
                elif cur.data == "lit_paren" and len(acc) == 2 and all(
                    isinstance(a, (int, float)) and not isinstance(a, bool) for a in acc
                ):
                    value = complex(acc[0], acc[1])
                elif cur.data in ("lit_array", "lit_paren"):
                    value = tuple(acc)
                else:
                    value = acc[0] if acc else None
            if stack:
                stack[-1][1].append(value)
            else:
                result = value
        return result

    return build(t.children[0])


def decode_layout(text: str) -> tuple[list[int], bool, bool]:
    """(minor_to_major, has sparse dim levels, has a physical shape) of a layout."""
    t = parse_tree("layout", text)
    minor = [_int(c) for c in t.children if isinstance(c, Token)]
    sparse = False
    physical = False
    for item in t.children:
        if isinstance(item, Tree) and item.data == "dim_level":
            for lvl in item.children:
                if str(lvl).rstrip("+~") not in ("D", "C", "S", "H"):
                    raise AttributeDecodeError(
                        f"expected a DimLevelType abbreviation (D, C, or S), got {str(lvl)!r}"
                    )
                if str(lvl).rstrip("+~") != "D":
                    sparse = True
        elif isinstance(item, Tree) and item.data == "physical_shape":
            physical = True
    return minor, sparse, physical


def _c_text(t: Tree[Any], text: str) -> str:
    return text


_ACCURACY_MODE_RE = re.compile(r"\{\s*mode\s*=\s*([^{}\s]*)\s*\}")
_TOLERANCE_RE = re.compile(r"\{\s*tolerance\s*=\s*\{")
_TOLERANCE_FIELD_RE = re.compile(
    r"\s*(atol|rtol|ulps)\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(,|(?=\}))")


def _c_result_accuracy(text: str) -> str:
    """``{mode=highest}`` or ``{tolerance={atol=..., rtol=..., ulps=...}}``, checked without lark.

    XLA decodes this one eagerly, so every parse pays for it: a token loop of
    the grammar cost ~16 µs a character on a long (invalid) value; these
    patterns read it once, and name the first place where it goes wrong.
    """
    inner = text.strip()
    lead = len(text) - len(text.lstrip())
    m = _ACCURACY_MODE_RE.fullmatch(inner)
    if m is not None:
        mode = m.group(1)
        if mode not in ("default", "highest", "DEFAULT", "HIGHEST"):
            raise AttributeDecodeError(f"expects ResultAccuracy type but sees: {mode}, error: Unknown accuracy mode",
                                       lead + m.start(1))
        return text
    m = _TOLERANCE_RE.match(inner)
    if m is None:
        raise AttributeDecodeError("result_accuracy expects {mode=...} or {tolerance={...}}", lead)
    pos = m.end()
    seen: set[str] = set()
    while True:
        f = _TOLERANCE_FIELD_RE.match(inner, pos)
        if f is None:
            break
        if f.group(1) in seen:
            raise AttributeDecodeError(f"duplicate tolerance field {f.group(1)!r}", lead + f.start(1))
        seen.add(f.group(1))
        pos = f.end()
    close = re.compile(r"\s*\}\s*\}").fullmatch(inner, pos)
    if close is None:
        p = len(inner) - len(inner[pos:].lstrip()) if inner[pos:].strip() else len(inner)
        raise AttributeDecodeError("expected atol=, rtol= or ulps= with a number in result_accuracy tolerance",
                                   lead + p)
    return text


_RULES: dict[str, tuple[str, Callable[[Tree[Any], str], Any]]] = {}


def _register(names: str, rule: str, conv: Callable[[Tree[Any], str], Any]) -> None:
    for n in names.split():
        _RULES[n] = (rule, conv)


_register(
    "channel_id index feature_group_count batch_group_count iota_dimension exponent_bits "
    "mantissa_bits index_vector_dim split_dimension split_count k num_partitions "
    "replica_count scan_dimension num_carries concat_dimension parameter_number",
    "int_value", _c_int,
)
_register(
    "dimensions lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims "
    "lhs_ragged_dims rhs_group_dims offset_dims collapsed_slice_dims start_index_map "
    "operand_batching_dims start_indices_batching_dims update_window_dims "
    "inserted_window_dims scatter_dims_to_operand_dims input_batching_dims "
    "scatter_indices_batching_dims dynamic_slice_sizes fft_length "
    "lhs_non_contracting_dims rhs_non_contracting_dims",
    "int_list", _c_int_list,
)
_register(
    "use_global_device_ids constrain_layout is_cross_program_prefetch indices_are_sorted "
    "unique_indices is_stable is_host_transfer custom_call_has_side_effect largest "
    "is_scheduled left_padding",
    "bool_value", _c_bool,
)
_register(
    "parameter_replication allow_spmd_sharding_propagation_to_parameters "
    "allow_spmd_sharding_propagation_to_output",
    "bool_list", _c_bool_list,
)
_register("slice_sizes", "nested_ints", _c_nested_ints)
_register("slice", "slice", _c_slice)
_register("padding", "padding", _c_padding)
_register("window", "window", _c_window)
_register("dim_labels", "dim_labels", _c_dim_labels)
_register("replica_groups", "replica_groups", _c_replica_groups)
_register("source_target_pairs", "pairs", _c_pairs)
_register("sharding", "sharding", _c_sharding)
_register("metadata", "metadata", _c_metadata)
_register("frontend_attributes", "frontend_attributes", _c_frontend)
_register(
    "custom_call_target async_execution_thread execution_thread op_name infeed_config "
    "outfeed_config",
    "string", _c_string,
)
_register("backend_config", "backend_config", _c_backend_config)
_register(
    "to_apply condition body true_computation false_computation select scatter "
    "async_wrapped_computation",
    "computation", _c_computation,
)
_register("branch_computations called_computations control-predecessors", "computation_list", _c_computation_list)
_register(
    "direction comparison_type type kind algorithm distribution fft_type custom_call_schedule "
    "api_version rng_algorithm padding_type mode",
    "ident", _c_ident,
)
_register("operand_precision", "ident_list", _c_ident_list)
_register("literal", "literal", _c_literal)
_register("operand_layout_constraints", "shape_list", _c_text)
_register("entry_computation_layout", "computation_layout", _c_text)
_register("input_output_alias output_to_operand_aliasing", "alias_map", _c_text)
_register("buffer_donor", "donor_list", _c_text)
_register("result_accuracy", "generic", lambda t, text: _c_result_accuracy(text))

# Decoded values that are immutable can be shared between equal texts.
_IMMUTABLE_RULES = frozenset(
    {"int_value", "int_list", "bool_value", "bool_list", "slice", "padding", "dim_labels",
     "replica_groups", "pairs", "sharding", "nested_ints", "string", "computation", "computation_list",
     "ident", "ident_list"}
)
_memo: dict[tuple[str, str], Any] = {}


_LIT_TOKEN_RE = re.compile(
    r"\s*(?:([{}(),])|(-?(?:nan(?:\(0x[0-9a-fA-F]+\))?|inf))|"
    r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(true|false)|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/)"
)
# Above this size a literal is checked by a token loop that accepts the same
# language as the grammar's literal rule (minus typed tuple elements): lark
# needs ~40 µs a token, too slow for multi-megabyte constants.
LARGE_LITERAL = 64_000


def _decode_large_literal(text: str) -> Any:
    stack: list[tuple[str, list[Any]]] = [("", [])]
    expect_value = True
    pos = 0
    n = len(text.rstrip())
    match = _LIT_TOKEN_RE.match
    closers = {"}": "{", ")": "("}
    while pos < n:
        m = match(text, pos)
        if m is None or m.end() == pos:
            raise AttributeDecodeError(f"unexpected character {text[pos:pos + 1]!r} in literal", pos)
        punct, special, number, boolean = m.group(1), m.group(2), m.group(3), m.group(4)
        at = m.start(1) if punct else pos
        pos = m.end()
        if punct is None and special is None and number is None and boolean is None:
            continue  # a comment
        if punct in ("{", "("):
            if not expect_value:
                raise AttributeDecodeError("expected ',' in literal", at)
            if len(stack) > MAX_NESTING:
                raise AttributeDecodeError(f"value nested more than {MAX_NESTING} levels deep", at)
            stack.append((punct, []))
            continue
        if punct in ("}", ")"):
            opener, items = stack.pop() if len(stack) > 1 else ("", [])
            if opener != closers[punct] or (expect_value and items):
                raise AttributeDecodeError(f"unexpected {punct!r} in literal", at)
            value: Any = tuple(items)
            if opener == "(" and len(items) == 2 and all(type(x) in (int, float) for x in items):
                value = complex(items[0], items[1])
            stack[-1][1].append(value)
            expect_value = False
            continue
        if punct == ",":
            if expect_value or len(stack) == 1:
                raise AttributeDecodeError("unexpected ',' in literal", at)
            expect_value = True
            continue
        if not expect_value:
            raise AttributeDecodeError("expected ',' in literal", at)
        if boolean is not None:
            value = boolean == "true"
        elif special is not None:
            value = float("-inf") if special == "-inf" else float("inf") if special == "inf" else float("nan")
        elif "." in number or "e" in number or "E" in number:
            value = float(number)
        else:
            try:
                value = to_int(number)
            except NumberError as e:
                raise AttributeDecodeError(e.reason, at) from None
        stack[-1][1].append(value)
        expect_value = False
    if len(stack) != 1 or len(stack[0][1]) != 1:
        raise AttributeDecodeError("unbalanced or empty literal", n)
    return stack[0][1][0]


# Rules whose converters keep the source text: the tree only says it is valid.
_TEXT_RULES = frozenset({"generic", "backend_config", "shape_list", "computation_layout", "alias_map", "donor_list"})
# Above this size a value takes the ways that do not grow with lark's cost per token.
LARGE_VALUE = 2048


def _large_ints(name: str, text: str, flat: bool) -> tuple[Any, ...]:
    """A long {1, 2, ...} list of integers (nested unless ``flat``) through the literal token loop."""
    value = _decode_large_literal(text)
    if not isinstance(value, tuple):
        raise AttributeDecodeError(f"{name} expects {{...}}")
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, tuple) and (v is value or not flat):
            stack.extend(v)
        elif type(v) is not int:
            raise AttributeDecodeError(f"{name} expects integers, got {v!r:.30}")
    return value


# ``metadata={op_name="..." source_file="..." source_line=42 stack_frame_id=3}``: a field whose
# value is a string, a plain decimal or a name, then a separator (the grammar's meta_field).
_META_FIELD = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*=\s*'
                         r'(?:("[^"\\]*(?:\\.[^"\\]*)*")|(\d{1,18})|([A-Za-z_][A-Za-z0-9_.\-]*))'
                         r'(?=[\s,}])\s*,?')
_meta_memo: dict[str, tuple[tuple[str, str | int], ...]] = {}


def _fast_metadata(text: str) -> dict[str, str | int] | None:
    """The common metadata value decoded without lark (the rules ask each site's ops for their
    source line: hundreds of decodes per module), or None for lark to decode (an int list, a
    sign, anything unusual).  Returns what ``_c_metadata`` returns for the same text."""
    hit = _meta_memo.get(text)
    if hit is not None:
        return dict(hit)
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    end, at, fields = len(body) - 1, 1, []
    while True:
        while at < end and body[at].isspace():
            at += 1
        if at == end:
            break
        m = _META_FIELD.match(body, at, end + 1)
        if m is None or m.end() > end:
            return None
        key, string, number, name = m.groups()
        fields.append((key, unquote(string) if string is not None else int(number) if number is not None else name))
        at = m.end()
    if len(_meta_memo) > 100_000:
        _meta_memo.clear()
    _meta_memo[text] = tuple(fields)
    return dict(fields)


def decode_attribute(name: str, text: str) -> Any:
    """The decoded value of attribute ``name`` whose source text is ``text``."""
    spec = _RULES.get(name)
    if spec is None:
        return text
    if name == "metadata":
        fast = _fast_metadata(text)
        if fast is not None:
            return fast
    if name == "literal" and len(text) > LARGE_LITERAL and "[" not in text:
        return _decode_large_literal(text)
    if name == "result_accuracy":
        return _c_result_accuracy(text)
    rule, conv = spec
    if name == "calls" or name == "called_computations":
        rule, conv = ("computation_list", _c_computation_list) if text.lstrip().startswith("{") else ("computation", _c_computation)
    key = (name, text)
    if rule in _IMMUTABLE_RULES:
        hit = _memo.get(key)
        if hit is not None:
            return hit
    if len(text) > LARGE_VALUE and rule in ("int_list", "nested_ints") and text.lstrip().startswith("{"):
        return _large_ints(name, text, flat=rule == "int_list")
    try:
        value = conv(parse_tree(rule, text, verdict_only=rule in _TEXT_RULES), text)
    except AttributeDecodeError:
        raise
    except (ValueError, IndexError, TypeError, OverflowError, RecursionError) as e:
        raise AttributeDecodeError(f"bad {name} value: {e}") from None
    if rule in _IMMUTABLE_RULES:
        if len(_memo) > 100_000:
            _memo.clear()
        _memo[key] = value
    return value


def check_attribute(name: str, text: str) -> Any:
    """Decode ``name`` (validate=True): unknown names must still be a balanced value."""
    if name in _RULES or name == "calls":
        return decode_attribute(name, text)
    parse_tree("generic", text, verdict_only=True)
    return text


_RULES["calls"] = ("computation", _c_computation)
