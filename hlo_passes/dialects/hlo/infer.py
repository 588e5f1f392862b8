"""Result shapes of instructions written without one (``ROOT t = tuple(a, b)``).

XLA infers them; we infer the common cases (tuples, get-tuple-element,
elementwise ops, compare, select, while, conditional, concatenate, pad,
transpose, dot, reduce, after-all) from operand shapes and attributes.  What
is not covered keeps the ``inferred`` placeholder shape.  The printer leaves
inferred shapes out, so XLA infers them again from our text.

send, recv, send-done and recv-done are different: XLA's parser builds them
from their operands whatever shape the text declares (recv keeps only the
data element of its declared tuple), and only its verifier, which the parser
does not run, would compare the two.  Users see the built shape, so a
``get-tuple-element`` of a recv-done without a shape of its own gets the data
shape of the recv, not the one the recv-done line declares.  We derive these
shapes the same way, in the same pass, because a send's data may itself be
an inferred shape.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...ir import Instruction, Module, Shape
from ...ir.op_table import Trait, with_trait
from .shapes import parse_shape

_SAME_SHAPE = frozenset(d.name for d in with_trait(Trait.SAME_SHAPE))
_COMPLEX_PART = {"c64": "f32", "c128": "f64"}
# Ops whose shape XLA's parser derives from the operands (see the docstring).
DERIVED = frozenset(("send", "recv", "send-done", "recv-done"))
_TOKEN = parse_shape("token[]")
_CONTEXT = parse_shape("u32[]")


def _is_unknown(s: Shape) -> bool:
    return s.element_type == "inferred"


def infer_shapes(module: Module) -> None:
    """Fill in what can be inferred; repeats while it makes progress."""
    todo = [i for i in module.instructions() if _is_unknown(i.shape) or i.opcode in DERIVED]
    # A derived op still to be done must not lend its declared shape to a user.
    pending = {i for i in todo if i.opcode in DERIVED}
    while todo:
        left = []
        for instr in todo:
            if pending and any(o in pending for o in instr.operands):
                left.append(instr)
                continue
            if instr.opcode in DERIVED:
                shape = _derive(instr)
                pending.discard(instr)
                # Keep the written shape object (its spelling) when XLA builds the same.
                if shape is not None and not (shape == instr.shape and _layouts(shape) == _layouts(instr.shape)):
                    instr.shape = shape
                continue
            shape = _infer(instr)
            if shape is None:
                left.append(instr)
            else:
                instr.shape = shape
                instr.dialect_data["inferred_shape"] = shape
        if len(left) == len(todo):
            return
        todo = left


def _layouts(s: Shape) -> tuple[Any, ...] | str | None:
    return tuple(_layouts(t) for t in s.tuple_shapes) if s.is_tuple else s.layout


def _derive(instr: Instruction) -> Shape | None:
    """The shape XLA's parser builds for a send/recv op, or None to keep what was written.

    None where XLA would have no shape to build from (an operand of unknown
    shape, a recv whose declared shape is not a tuple, a recv-done of a
    non-tuple); the structural checks report what XLA rejects.
    """
    op = instr.opcode
    if op == "send-done":
        return _TOKEN
    ops = instr.operands
    if op == "recv":
        declared = instr.shape
        if not declared.is_tuple or not declared.tuple_shapes:
            return None
        return Shape.tuple_of((declared.tuple_shapes[0], _CONTEXT, _TOKEN))
    if not ops or _is_unknown(ops[0].shape):
        return None
    if op == "send":
        return Shape.tuple_of((ops[0].shape, _CONTEXT, _TOKEN))
    source = ops[0].shape
    if not source.is_tuple or not source.tuple_shapes:
        return None
    return Shape.tuple_of((source.tuple_shapes[0], _TOKEN))


def _array(etype: str, dims: Iterable[int], dynamic: Iterable[bool] | None = None) -> Shape:
    d = tuple(dims)
    return Shape(etype, d, tuple(dynamic) if dynamic is not None else (False,) * len(d))


def _ints(instr: Instruction, key: str) -> tuple[int, ...] | None:
    if key not in instr.attributes:
        return ()
    try:
        v = instr.attributes[key]
    except ValueError:
        return None
    return tuple(v) if isinstance(v, tuple) and all(isinstance(x, int) for x in v) else None


def _infer(instr: Instruction) -> Shape | None:
    op = instr.opcode
    ops = [o.shape for o in instr.operands]
    if any(_is_unknown(s) for s in ops):
        return None
    if op == "tuple":
        return Shape.tuple_of(ops)
    if op == "after-all":
        return _TOKEN
    if op == "get-tuple-element":
        return _tuple_element(instr, ops)
    if not ops:
        return None
    first = ops[0]
    if op in _SAME_SHAPE:
        base = ops[1] if op == "clamp" and len(ops) > 1 else first
        return _array(base.element_type, base.dims, base.dynamic) if base.is_array else base
    rule = _BY_OPCODE.get(op)
    return None if rule is None else rule(instr, ops, first)


def _tuple_element(instr: Instruction, ops: list[Shape]) -> Shape | None:
    try:
        # (A pass's attribute has no text: None, as a bad text, is no index.)
        index = int(instr.attributes.raw("index") or "")
    except (KeyError, ValueError):
        return None
    if ops and ops[0].is_tuple and 0 <= index < len(ops[0].tuple_shapes):
        return ops[0].tuple_shapes[index]
    return None


def _conditional(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    for c in instr.called_computations:
        if c.root is not None and not _is_unknown(c.root.shape):
            return c.root.shape
    return None


def _concatenate(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    dims = _ints(instr, "dimensions")
    if not dims or len(dims) != 1 or not first.is_array:
        return None
    d = dims[0]
    if not 0 <= d < first.rank:
        return None
    out = list(first.dims)
    out[d] = sum(s.dims[d] for s in ops)
    return _array(first.element_type, out)


def _pad(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    try:
        spec = instr.attributes["padding"]
    except (KeyError, ValueError):
        return None
    if len(spec) != first.rank:
        return None
    return _array(first.element_type, [lo + hi + n + max(n - 1, 0) * it
                                       for n, (lo, hi, it) in zip(first.dims, spec)])


def _transpose(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    perm = _ints(instr, "dimensions")
    if perm is None or sorted(perm) != list(range(first.rank)):
        return None
    return _array(first.element_type, [first.dims[p] for p in perm])


def _dot(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    if len(ops) != 2:
        return None
    lc, rc = _ints(instr, "lhs_contracting_dims"), _ints(instr, "rhs_contracting_dims")
    lb, rb = _ints(instr, "lhs_batch_dims"), _ints(instr, "rhs_batch_dims")
    if lc is None or rc is None or lb is None or rb is None:
        return None
    lhs, rhs = ops
    try:
        dims = ([lhs.dims[i] for i in lb]
                + [d for i, d in enumerate(lhs.dims) if i not in lc and i not in lb]
                + [d for i, d in enumerate(rhs.dims) if i not in rc and i not in rb])
    except IndexError:
        return None
    return _array(lhs.element_type, dims)


def _reduce_window(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    if len(ops) != 2 or not first.is_array:
        return None
    dims = _windowed(instr, list(first.dims))
    return None if dims is None else _array(ops[1].element_type, dims)


def _reduce(instr: Instruction, ops: list[Shape], first: Shape) -> Shape | None:
    dims = _ints(instr, "dimensions")
    if len(ops) != 2 or dims is None or not first.is_array:
        return None
    return _array(ops[1].element_type, [d for i, d in enumerate(first.dims) if i not in dims])


# The result shape of each opcode the text may leave unwritten, from its operands' shapes
# (None: not inferable here).
_BY_OPCODE: dict[str, Callable[[Instruction, list[Shape], Shape], Shape | None]] = {
    "real": lambda i, ops, f: _array(_COMPLEX_PART.get(f.element_type, f.element_type), f.dims, f.dynamic),
    "imag": lambda i, ops, f: _array(_COMPLEX_PART.get(f.element_type, f.element_type), f.dims, f.dynamic),
    "compare": lambda i, ops, f: _array("pred", f.dims, f.dynamic),
    "select": lambda i, ops, f: ops[1] if len(ops) == 3 else None,
    "while": lambda i, ops, f: f,
    "conditional": _conditional,
    "concatenate": _concatenate,
    "pad": _pad,
    "transpose": _transpose,
    "dot": _dot,
    "reduce-window": _reduce_window,
    "convolution": lambda i, ops, f: _convolution(i, ops[0], ops[1]) if len(ops) == 2 else None,
    "reduce": _reduce,
}


def _windowed(instr: Instruction, sizes: list[int]) -> list[int] | None:
    """Output sizes of a window sliding over ``sizes`` (window= attribute)."""
    try:
        w = instr.attributes["window"] if "window" in instr.attributes else {}
    except ValueError:
        return None
    n = len(sizes)
    size = w.get("size", (1,) * n)
    if len(size) != n:
        return None
    stride = w.get("stride", (1,) * n)
    pad = w.get("pad", ((0, 0),) * n)
    lhs_dil = w.get("lhs_dilate", (1,) * n)
    rhs_dil = w.get("rhs_dilate", (1,) * n)
    out = []
    for i in range(n):
        base = (sizes[i] - 1) * lhs_dil[i] + 1 if sizes[i] > 0 else 0
        padded = base + pad[i][0] + pad[i][1]
        span = (size[i] - 1) * rhs_dil[i] + 1
        out.append(max(0, (padded - span) // stride[i] + 1) if padded >= span else 0)
    return out


def _convolution(instr: Instruction, lhs: Shape, rhs: Shape) -> Shape | None:
    try:
        labels = instr.attributes["dim_labels"]
    except (KeyError, ValueError):
        return None
    lhs_l, rest = labels.split("_", 1)
    rhs_l, out_l = rest.split("->", 1)
    if len(lhs_l) != lhs.rank or len(rhs_l) != rhs.rank or len(out_l) != lhs.rank:
        return None
    spatial = sorted(c for c in lhs_l if c.isdigit())
    in_spatial = [lhs.dims[lhs_l.index(c)] for c in spatial]
    win = _windowed(instr, in_spatial)
    if win is None:
        return None
    try:
        groups = int(instr.attributes.raw("batch_group_count") or "") if "batch_group_count" in instr.attributes else 1
    except ValueError:
        return None
    out = []
    for c in out_l:
        if c == "b":
            out.append(lhs.dims[lhs_l.index("b")] // max(groups, 1))
        elif c == "f":
            out.append(rhs.dims[rhs_l.index("o")])
        elif c.isdigit() and c in spatial:
            out.append(win[spatial.index(c)])
        else:
            return None
    return _array(lhs.element_type, out)
