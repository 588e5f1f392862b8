"""MLIR types and HLO shapes: element-type spellings both ways and the MLIR type of a ``Shape``.

Shared by the StableHLO parser (types → Shape) and printer (Shape → type), below both.
"""
from __future__ import annotations

import re

from ...ir import Shape

_ELEM_CACHE: dict[str, str] = {}
_INT_RE = re.compile(r"(u|s)?i(\d+)$")


def hlo_element_type(t: str) -> str:
    """HLO spelling of an MLIR element type (``i32`` → ``s32``, ``i1`` → ``pred``)."""
    r = _ELEM_CACHE.get(t)
    if r is not None:
        return r
    m = _INT_RE.match(t)
    if t == "i1":
        r = "pred"
    elif m:
        r = ("u" if m.group(1) == "u" else "s") + m.group(2)
    elif t == "complex<f32>":
        r = "c64"
    elif t == "complex<f64>":
        r = "c128"
    elif t == "!stablehlo.token":
        r = "token"
    elif re.match(r"f\d|bf16|tf32", t):
        r = t.lower()
    else:
        r = t
    _ELEM_CACHE[t] = r
    return r


def mlir_element_type(t: str) -> str:
    """MLIR spelling of an HLO element type (for shapes a pass built)."""
    if t == "pred":
        return "i1"
    if t[0] == "s" and t[1:].isdigit():
        return "i" + t[1:]
    if t[0] == "u" and t[1:].isdigit():
        return "ui" + t[1:]
    if t == "c64":
        return "complex<f32>"
    if t == "c128":
        return "complex<f64>"
    if t.startswith("f8") or t.startswith("f4") or t.startswith("f6"):
        m = re.match(r"(f\d)(e\d+m\d+)(.*)", t)
        if m:
            return m.group(1) + m.group(2).upper() + m.group(3).upper()
    return t


def mlir_type(shape: Shape) -> str:
    """The MLIR type text of a Shape (its source text when it came from MLIR)."""
    t = shape.text
    if t is not None:
        if t.startswith(("tensor<", "tuple<", "!", "complex<", "vector<", "memref<")):
            return t
        if t[:1].isalpha() and "[" not in t and "(" not in t:
            return t
    if shape.is_tuple:
        return "tuple<" + ", ".join(mlir_type(s) for s in shape.tuple_shapes) + ">"
    if shape.element_type == "token":
        return "!stablehlo.token"
    dims = []
    bounds = []
    dyn = shape.dynamic or (False,) * len(shape.dims)
    for d, dy in zip(shape.dims, dyn):
        if dy or d < 0:
            dims.append("?")
            bounds.append(str(d) if d >= 0 else "?")
        else:
            dims.append(str(d))
            bounds.append("?")
    body = "".join(d + "x" for d in dims) + mlir_element_type(shape.element_type)
    if any(b != "?" for b in bounds):
        body += ", #stablehlo.bounds<" + ", ".join(bounds) + ">"
    return f"tensor<{body}>"
