"""Compare an hlo_passes ``Module`` with XLA's parse of the same HLO text.

``structure_differences(module, result, source)`` lists, as one line each,
every way the module's computations and instructions differ from what XLA's
parser built (``xla_reference.Result``); an empty list means they agree.
Compared: computations (names, order, entry) and, per instruction in order,
name, opcode, operands (in order), result shape (element type, dimensions,
dynamic bounds, tuple structure, layout), parameter number, ROOT, called
computations and control predecessors.
Each line reads ``KIND: where: detail`` (``shape: main/add.1: ours f32[2],
XLA f32[3] (dimensions)``), so failures can be counted by kind.

Equality is exact except where XLA's parser itself changes what the text
says.  Each such exception is checked as narrowly as the cause allows:

* Names.  XLA makes every instruction name (and every computation name)
  unique within the module by giving a taken name a new numeric suffix:
  ``add.11`` defined in two computations becomes ``add.11`` and ``add.0``,
  which can in turn push out a later ``add.0``; ``param`` and ``param.0``
  count as the same name.  Accepted: the XLA name has the same stem (the
  name without a trailing ``.N``) and the source's name is taken (its stem
  and number are used twice in the source, or by a name XLA gave to another
  instruction).
* Hidden async computations.  For ``call-start(...)``-style short forms XLA
  creates the wrapped computation itself (``async_wrapped``) and its printer
  leaves it out.  Accepted: an XLA computation missing from ours if XLA does
  not print it and its name (or stem) does not occur in the source at all.
  Roots of computations XLA does not print are not compared (unknown).
* Async opcodes.  XLA prints an ``async-start`` around an all-reduce as
  ``all-reduce-start``.  Accepted: ours is either the generic
  ``async-start/-update/-done`` or the spelling XLA prints, and only when
  XLA's opcode is an async one.
* Called computations of async ops are not compared: XLA prints the
  wrapped op's (``to_apply=%add``), not the async computation.  Elsewhere
  they are compared as multisets (which computations, not attribute order).
* Layouts.  XLA gives every array shape without a layout the default one.
  Layouts are compared only where our shape kept a layout from the source;
  ``{}`` on a scalar is the layout XLA does not print.  A constant's shape
  in XLA is its literal's, which drops the element size (``E(4)`` on s4):
  accepted when the layouts agree once ``E(n)`` is removed, for constants.

Not exceptions: instructions nested in operand lists (``add(p, f32[]
constant(1))``) are named ``constant.anon``, ``.anon.1``... by XLA, and ours
must be named the same; send/recv shapes are those XLA derives from the
operands, whatever the text declares.
"""
from __future__ import annotations

import collections
import difflib
import re
from typing import Any

from xla_reference import Result, XlaComputation, XlaInstruction

_SUFFIX_RE = re.compile(r"\.\d+$")
_ASYNC = {"kAsyncStart": "async-start", "kAsyncUpdate": "async-update", "kAsyncDone": "async-done"}


def stem(name: str) -> str:
    return _SUFFIX_RE.sub("", name)


# ---------------------------------------------------------------- shapes
class _ShapeText:
    """A small reader for XLA's printed shapes, independent of our parser."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def parse(self) -> Any:
        v = self._shape()
        if self.i != len(self.s):
            raise ValueError(f"trailing text in shape {self.s!r}")
        return v

    def _shape(self) -> Any:
        s = self.s
        # Long tuples carry /*index=5*/ markers every fifth element.
        m = re.compile(r"/\*.*?\*/").match(s, self.i)
        if m:
            self.i = m.end()
        if s.startswith("b(", self.i):  # a buffer: b(f32[2,4]{1,0})
            self.i += 2
            inner = self._shape()
            if not s.startswith(")", self.i):
                raise ValueError(f"unclosed buffer shape {s!r}")
            self.i += 1
            return ("buffer", inner)
        if s.startswith("(", self.i):
            self.i += 1
            elems = []
            while not s.startswith(")", self.i):
                elems.append(self._shape())
                if s.startswith(", ", self.i):
                    self.i += 2
                elif s.startswith(",", self.i):
                    self.i += 1
            self.i += 1
            return ("tuple", tuple(elems))
        m = re.compile(r"([a-z][a-z0-9]*)(?:\[([^\]]*)\])?").match(s, self.i)
        if not m:
            raise ValueError(f"cannot read shape {s!r} at {self.i}")
        etype, dims_text = m.group(1), m.group(2) or ""
        self.i = m.end()
        dims, dyn = [], []
        for d in filter(None, dims_text.split(",")):
            if d == "?":
                dims.append(-1)
                dyn.append(True)
            elif d.startswith("<="):
                dims.append(int(d[2:]))
                dyn.append(True)
            else:
                dims.append(int(d))
                dyn.append(False)
        layout = None
        if s.startswith("{", self.i):
            depth, j = 0, self.i
            while True:
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
                if depth == 0:
                    break
            layout = s[self.i:j]
            self.i = j
        return ("array", etype, tuple(dims), tuple(dyn), layout)


def xla_shape(text: str) -> Any:
    return _ShapeText(text).parse()


def _norm_layout(layout: str | None, rank: int) -> str | None:
    if layout is None:
        return None
    layout = re.sub(r"\s+", "", layout)
    return None if layout == "{}" and rank == 0 else layout


def render(shape: Any) -> str:
    """Our shape from its fields (its ``text`` too when that says otherwise)."""
    def fmt(sh: Any) -> str:
        if sh.element_type == "tuple":
            return "(" + ", ".join(fmt(t) for t in sh.tuple_shapes) + ")"
        if sh.element_type == "buffer":
            return "b(" + ", ".join(fmt(t) for t in sh.tuple_shapes) + ")"
        dyn = sh.dynamic or (False,) * len(sh.dims)
        dims = ",".join("?" if d < 0 else f"<={d}" if y else str(d) for d, y in zip(sh.dims, dyn))
        return f"{sh.element_type}[{dims}]{sh.layout or ''}"

    out = fmt(shape)
    text = getattr(shape, "text", None)
    if text is not None and re.sub(r"\s+", "", text) != out:
        out += f" (text {text!r})"
    return out


def shape_difference(ours: Any, xla_text: str, opcode: str = "",
                     used: collections.Counter | None = None) -> str | None:
    """Why our ``Shape`` differs from XLA's printed shape, or None.

    ``used`` counts the exceptions that made a difference acceptable.
    """
    used = used if used is not None else collections.Counter()
    try:
        theirs = xla_shape(xla_text)
    except (ValueError, IndexError) as e:
        return f"cannot read XLA shape {xla_text!r}: {e}"
    d = _shape_diff(ours, theirs, xla_text)
    if d and opcode == "constant" and d.endswith("(layout)"):
        # A constant's shape in XLA is its literal's, and a literal does not
        # keep the element size in bits (E(4) on s4): XLA prints
        # s4[2,4]{1,0} for a constant the text declares s4[2,4]{1,0:E(4)}.
        # Same layout once the E(n) is dropped: accepted.
        if _shape_diff(_without_element_size(ours), theirs, xla_text) is None:
            used["constant without E(n)"] += 1
            return None
    return d


def _without_element_size(shape: Any) -> Any:
    from dataclasses import replace

    layout = re.sub(r"E\(\d+\)", "", shape.layout or "")
    layout = re.sub(r":}$", "}", layout)
    return replace(shape, layout=layout or None)


def _shape_diff(ours: Any, theirs: Any, xla_text: str) -> str | None:
    ours_text = render(ours)
    if theirs[0] == "tuple":
        if not getattr(ours, "is_tuple", False):
            return f"ours {ours_text}, XLA {xla_text} (tuple)"
        if len(ours.tuple_shapes) != len(theirs[1]):
            return f"ours {ours_text}, XLA {xla_text} (tuple arity)"
        for o, t in zip(ours.tuple_shapes, theirs[1]):
            d = _shape_diff(o, t, xla_text)
            if d:
                return d
        return None
    if theirs[0] == "buffer":
        # ir.Shape spells a buffer as element_type "buffer" around one shape.
        if ours.element_type != "buffer" or len(ours.tuple_shapes) != 1:
            return f"ours {ours_text}, XLA {xla_text} (buffer)"
        return _shape_diff(ours.tuple_shapes[0], theirs[1], xla_text)
    _, etype, dims, dyn, layout = theirs
    if ours.element_type != etype:
        return f"ours {ours_text}, XLA {xla_text} (element type)"
    if tuple(ours.dims) != dims:
        return f"ours {ours_text}, XLA {xla_text} (dimensions)"
    ours_dyn = tuple(ours.dynamic) if ours.dynamic else (False,) * len(ours.dims)
    if ours_dyn != dyn:
        return f"ours {ours_text}, XLA {xla_text} (dynamic dimensions)"
    ol = _norm_layout(ours.layout, len(dims))
    if ol is not None and ol != _norm_layout(layout, len(dims)):
        return f"ours {ours_text}, XLA {xla_text} (layout)"
    return None


# ---------------------------------------------------------------- module
def name_key(name: str) -> tuple[str, int]:
    """How XLA's uniquifier sees a name: stem and number (no suffix counts as 0)."""
    m = _SUFFIX_RE.search(name)
    return (name[:m.start()], int(m.group()[1:])) if m else (name, 0)


class _Taken:
    """Which source names collide, as XLA's uniquifier sees them.

    ``param`` and ``param.0`` are the same name to it, so a taken name is
    one whose (stem, number) is used twice in the source, or is used by a
    name XLA gave to another instruction.
    """

    def __init__(self, ours: list[str], xla: list[str]) -> None:
        self.ours = collections.Counter(map(name_key, ours))
        self.xla = collections.Counter(map(name_key, xla))

    def __call__(self, ours: str, xla: str) -> bool:
        k = name_key(ours)
        return self.ours[k] >= 2 or self.xla[k] - (name_key(xla) == k) >= 1


def _name_ok(ours: str, xla: str, taken: _Taken, opcode: str, used: collections.Counter) -> bool:
    if ours == xla:
        return True
    if stem(ours) == stem(xla) and taken(ours, xla):
        used["renamed by XLA's uniquifier" + ("" if opcode else " (computation)")] += 1
        return True
    return False


def _opcode_ok(ours: str, x: XlaInstruction, used: collections.Counter) -> bool:
    if ours == x.opcode:
        return True
    generic = _ASYNC.get(x.enum)
    if generic is not None and ours == generic:
        used["async op printed in short form"] += 1
        return True
    return False


def structure_differences(module: Any, ref: Result, source: str, limit: int = 8,
                          used: collections.Counter | None = None) -> list[str]:
    """Every difference between ``module`` and XLA's parse ``ref`` (first ``limit``).

    ``used`` (if given) counts how often each exception to exact equality
    was needed, so a report can show that they stay rare.
    """
    used = used if used is not None else collections.Counter()
    diffs: list[str] = []

    def add(msg: str) -> bool:
        diffs.append(msg)
        return len(diffs) >= limit

    assert ref.ok and ref.computations is not None
    ours_comps = list(module.computations.values())
    # Computations XLA made up and does not print: see the module docstring.
    xla_comps: list[XlaComputation] = [
        c for c in ref.computations
        if c.printed or any(c.name == o.name for o in ours_comps)
        or re.search(r"(?<![\w.-])%?" + re.escape(stem(c.name)) + r"(?![\w-])", source)
    ]
    used["hidden async computation"] += len(ref.computations) - len(xla_comps)
    comp_taken = _taken([c.name for c in ours_comps], [c.name for c in xla_comps])
    if len(ours_comps) != len(xla_comps):
        add(f"computations: ours {[c.name for c in ours_comps]}, XLA {[c.name for c in xla_comps]}")
        return diffs
    for o, x in zip(ours_comps, xla_comps):
        if not _name_ok(o.name, x.name, comp_taken, "", used):
            if add(f"computation name: ours {o.name!r}, XLA {x.name!r}"):
                return diffs
    entry = module.entry.name if module.entry is not None else None
    xla_entry_pos = [i for i, c in enumerate(xla_comps) if c.name == ref.entry]
    ours_entry_pos = [i for i, c in enumerate(ours_comps) if c is module.entry]
    if xla_entry_pos != ours_entry_pos:
        add(f"entry computation: ours {entry!r}, XLA {ref.entry!r}")

    # Pair instructions position by position; counts must agree first.
    pairs: list[tuple[Any, XlaInstruction, XlaComputation]] = []
    for o, x in zip(ours_comps, xla_comps):
        if len(o.instructions) != len(x.instructions):
            a = [f"{i.name} = {i.opcode}" for i in o.instructions]
            b = [f"{i.name} = {i.opcode}" for i in x.instructions]
            d = [ln for ln in difflib.unified_diff(a, b, "ours", "XLA", lineterm="", n=0)
                 if not ln.startswith(("---", "+++", "@@"))]
            if add(f"instruction count: {o.name}: ours {len(o.instructions)}, XLA "
                   f"{len(x.instructions)}: {' | '.join(d[:6])}"):
                return diffs
            continue
        pairs.extend((oi, xi, x) for oi, xi in zip(o.instructions, x.instructions))

    xla_comp_of = {id(o): x.name for o, x in zip(ours_comps, xla_comps)}
    our_names = [oi.name for oi, _, _ in pairs]
    taken = _taken(our_names, [xi.name for _, xi, _ in pairs])
    xla_name_of = {id(oi): xi.name for oi, xi, _ in pairs}
    # Control predecessors are kept by name (attribute "control-predecessors");
    # names are looked up in the instruction's own computation.
    xla_name_in = {(id(xc), oi.name): xi.name for oi, xi, xc in pairs}
    for oi, xi, xc in pairs:
        where = f"{xc.name}/{xi.name}"
        if not _name_ok(oi.name, xi.name, taken, xi.opcode, used):
            if add(f"name: {where}: ours {oi.name!r}, XLA {xi.name!r}"):
                break
        if not _opcode_ok(oi.opcode, xi, used):
            if add(f"opcode: {where}: ours {oi.opcode!r}, XLA {xi.opcode!r} ({xi.enum})"):
                break
        ops = [xla_name_of.get(id(op), f"?{op.name}") for op in oi.operands]
        if ops != list(xi.operands):
            if add(f"operands: {where}: ours {ops}, XLA {list(xi.operands)}"):
                break
        d = shape_difference(oi.shape, xi.shape, xi.opcode, used)
        if d and add(f"shape: {where}: {d}"):
            break
        if xi.enum not in _ASYNC:
            # As multisets: what matters is which computations are linked;
            # the order of ours follows the source's attribute order.
            called = sorted(xla_comp_of.get(id(c), f"?{c.name}") for c in oi.called_computations)
            if called != sorted(xi.called):
                if add(f"called computations: {where}: ours {called}, XLA {sorted(xi.called)}"):
                    break
        preds = oi.attributes.get("control-predecessors") if "control-predecessors" in oi.attributes else ()
        if isinstance(preds, str):
            preds = tuple(n.strip().lstrip("%") for n in preds.strip("{}").split(",") if n.strip())
        preds = sorted(xla_name_in.get((id(xc), getattr(p, "name", p)), f"?{getattr(p, 'name', p)}")
                       for p in preds or ())
        if preds != sorted(xi.control_predecessors):
            if add(f"control predecessors: {where}: ours {preds}, XLA {sorted(xi.control_predecessors)}"):
                break
        if xi.parameter_number is not None:
            pn = oi.attributes.get("parameter_number") if "parameter_number" in oi.attributes else None
            if pn is None or int(pn) != xi.parameter_number:
                if add(f"parameter number: {where}: ours {pn!r}, XLA {xi.parameter_number}"):
                    break
        if xc.printed:
            ours_root = oi.computation is not None and oi.computation.root is oi
            if ours_root != xi.is_root and add(
                f"ROOT: {where}: ours {'is' if ours_root else 'is not'} root, "
                f"XLA {'is' if xi.is_root else 'is not'}"
            ):
                break
    return diffs


def _taken(ours: list[str], xla: list[str]) -> _Taken:
    return _Taken(ours, xla)
