"""``Module`` → HLO text.

Two modes.  By default the source is reused: unchanged computations and
instructions are copied byte for byte (with the comments and blank lines
around them), and only changed, inserted or removed instruction lines differ.
``regenerate=True`` prints every computation and instruction from its parsed
fields (name, shape, opcode, operands, attribute values), which is what XLA
must read back to the same module.
"""
from __future__ import annotations

import re
from typing import Any

from ...ir import Computation, Instruction, Module, Sharding
from ...ir.device_groups import DeviceGroups
from .opcodes import CALL_ATTRS, SELECT_SCATTER_CALLS
from .shapes import parse_shape
from ..split import split_top_level

# What the parser keeps as an attribute but HLO writes inside the parentheses.
_PAREN_ATTRS = {"parameter": "parameter_number", "constant": "literal"}
_CALL_ATTRS = CALL_ATTRS | SELECT_SCATTER_CALLS
_STRING_ATTRS = frozenset(
    "custom_call_target async_execution_thread execution_thread op_name infeed_config "
    "outfeed_config".split()
)


def print_hlo(module: Module, regenerate: bool = False) -> str:
    """The module as HLO text (see the module docstring for the two modes)."""
    if regenerate:
        return _regenerate(module)
    return _incremental(module)


# ---- values ---------------------------------------------------------------
def _quote(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def _ints(v: Any) -> str:
    return "{" + ",".join(str(int(x)) for x in v) + "}"


def _comp_name(v: Any, pct: str) -> str:
    name = v.name if isinstance(v, Computation) else str(v).lstrip("%")
    return pct + name


def format_attribute(key: str, value: Any, percent: bool = True) -> str:
    """HLO spelling of a decoded attribute value (for attributes set by passes)."""
    pct = "%" if percent else ""
    if key in _CALL_ATTRS:
        if isinstance(value, (list, tuple)):
            return "{" + ", ".join(_comp_name(v, pct) for v in value) + "}"
        return _comp_name(value, pct)
    if key == "control-predecessors":
        return "{" + ", ".join(pct + (v.name if isinstance(v, Instruction) else str(v).lstrip("%")) for v in value) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Sharding):
        return str(value)
    if isinstance(value, str):
        if key in _STRING_ATTRS:
            return _quote(value)
        if key == "backend_config":
            return value if value.startswith("{") else _quote(value)
        return value
    if isinstance(value, dict):
        if key == "window":
            parts = []
            for k, v in value.items():
                if k == "pad":
                    parts.append("pad=" + "x".join(f"{lo}_{hi}" for lo, hi in v))
                else:
                    parts.append(f"{k}=" + "x".join(str(x) for x in v))
            return "{" + " ".join(parts) + "}"
        if key == "metadata":
            return "{" + " ".join(
                f"{k}={v}" if isinstance(v, int) else f"{k}={_quote(str(v))}" for k, v in value.items()
            ) + "}"
        return "{" + ", ".join(f"{k}={_quote(str(v))}" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list, DeviceGroups)):  # decoded replica groups: written out as groups
        if key == "slice":
            return "{" + ", ".join(
                f"[{a}:{b}]" if c == 1 else f"[{a}:{b}:{c}]" for a, b, c in value
            ) + "}"
        if key == "padding":
            return "x".join(f"{lo}_{hi}" if not it else f"{lo}_{hi}_{it}" for lo, hi, it in value)
        if key in ("replica_groups", "source_target_pairs"):
            return "{" + ",".join(_ints(g) for g in value) + "}"
        if value and all(isinstance(x, bool) for x in value):
            return "{" + ",".join("true" if x else "false" for x in value) + "}"
        if all(isinstance(x, int) for x in value):
            return _ints(value)
        return "{" + ",".join(str(x) for x in value) + "}"
    return str(value)


def _literal_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, complex):
        return f"({_literal_text(value.real)}, {_literal_text(value.imag)})"
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "{ " + ", ".join(_literal_text(v) for v in value) + " }"
    return str(value)


def is_compact(instr: Instruction) -> bool:
    """A get-tuple-element the source wrote as an operand ``%tuple#index`` (see
    compact.py): printed at its uses, not on a line of its own."""
    d = instr._dialect_data
    return d is not None and d.get("compact", False) and instr.opcode == "get-tuple-element" and bool(instr.operands)


def _own_line(instr: Instruction) -> bool:
    # A compact get-tuple-element a pass made a root needs a line to be ROOT on.
    return not is_compact(instr) or instr.is_root


def operand_text(op: Instruction, pct: str) -> str:
    """How a use of ``op`` is written: ``%name``, or ``%tuple#i#j`` for compact ones."""
    suffix = ""
    while is_compact(op) and not op.is_root:
        suffix = f"#{op.attributes['index']}" + suffix
        op = op.operands[0]
    return pct + op.name + suffix


def _reads_changed_compact(instr: Instruction) -> bool:
    """Whether a use of a compact get-tuple-element a pass changed is written in this
    line: the ``%tuple#index`` text there is then stale."""
    for op in instr.operands:
        while is_compact(op):
            if op.changed:
                return True
            op = op.operands[0]
    return False


def print_instruction(instr: Instruction, is_root: bool, percent: bool = True, regenerate: bool = True) -> str:
    """One instruction line (without indentation or newline), from its fields."""
    pct = "%" if percent else ""
    attrs = instr.attributes
    raw = attrs.source_texts()
    if instr.opcode == "parameter":
        inside = raw.get("parameter_number")
        if inside is None:
            inside = str(attrs.get("parameter_number", 0))
    elif instr.opcode == "constant":
        inside = raw.get("literal")
        if inside is None:
            inside = _literal_text(attrs.get("literal", ""))
    else:
        inside = ", ".join(operand_text(op, pct) for op in instr.operands)
    # A shape we inferred was not written; leave it to XLA to infer again.
    data = _data(instr)
    shape = "" if data.get("inferred_shape") is instr.shape else str(instr.shape)
    shape = shape + " " if shape else ""
    parts = [f"{'ROOT ' if is_root else ''}{pct}{instr.name} = {shape}{instr.source_op}({inside})"]
    paren_key = _PAREN_ATTRS.get(instr.opcode)
    inline = data.get("inline_calls") if regenerate else None
    for key, text in raw.items():
        if key == paren_key:
            continue
        if inline and key in inline:
            text = pct + inline[key].name
        elif text is None:
            text = format_attribute(key, attrs[key], percent)
        parts.append(f"{key}={text}")
    return ", ".join(parts)


# ---- regenerate -------------------------------------------------------------
def _regenerate(module: Module) -> str:
    pct = "%" if module.dialect_data.get("percent", True) else ""
    head = f"HloModule {module.name}{module.dialect_data.get('header_colon', '')}"
    for key, value in module.attributes.items():
        head += f", {key}={value}"
    out = [head, "\n\n"]
    for name, entries, _ in module.dialect_data.get("stack_tables", ()):
        out.append(name + "\n")
        for ident, value in entries:
            out.append(f"{ident} {value}\n")
        out.append("\n")
    for comp in module.computations.values():
        out.append(print_computation(comp, module, pct != ""))
        out.append("\n\n")
    return "".join(out)


def print_computation(comp: Computation, module: Module, percent: bool = True) -> str:
    pct = "%" if percent else ""
    params = ", ".join(f"{p.name}: {p.shape}" for p in comp.parameters)
    result = comp.root.shape if comp.root is not None else "()"
    entry = "ENTRY " if comp is module.entry else ""
    # XLA checks a written signature against the root; write one only where
    # the source did (XLA may infer a different root shape than was written).
    known = (comp.dialect_data.get("signature") is not None and comp.root is not None
             and str(result) and all(str(p.shape) for p in comp.parameters))
    signature = f" ({params}) -> {result}" if known else ""
    lines = [f"{entry}{pct}{comp.name}{signature} {{"]
    for instr in comp.instructions:
        if _own_line(instr):
            lines.append("  " + print_instruction(instr, instr is comp.root, percent))
    if comp.dialect_data.get("inline"):
        thread = _inline_thread(comp, module)
        if thread is not None:
            lines.append("}, execution_thread=" + thread)
            return "\n".join(lines)
    tail = "}"
    for key, value in comp.dialect_data.get("attrs", {}).items():
        tail += f", {key}={value}"
    lines.append(tail)
    return "\n".join(lines)


def _inline_thread(comp: Computation, module: Module) -> str | None:
    # An inline async computation runs on its caller's thread; a named one
    # says so with execution_thread, which XLA prints.
    for instr in module.instructions():
        if comp in instr.called_computations:
            return instr.attributes.source_texts().get("async_execution_thread")
    return None


# ---- incremental ----------------------------------------------------------
_NO_DATA: dict[str, Any] = {}
# Blanks and a // comment up to and including the newline: what the parser
# counts as the rest of an instruction's line.
_LINE_REST_RE = re.compile(r"[ \t\r]*(?://[^\n]*)?(?:\n|$)")


def _data(instr: Instruction) -> dict[str, Any]:
    # Reading must not create the dict that Instruction creates on demand.
    d = instr._dialect_data
    return _NO_DATA if d is None else d


def _line_end(src: str, end: int) -> int:
    """Where the source line of an instruction that ends at ``end`` ends."""
    m = _LINE_REST_RE.match(src, end)
    return end if m is None else m.end()


def _incremental(module: Module) -> str:
    src = module.source
    percent = module.dialect_data.get("percent", True)
    out: list[str] = []
    comps = list(module.computations.values())
    spans = [c.dialect_data.get("span") for c in comps]
    first = next((s for s in spans if s is not None), None)
    # The header ends where the first computation of the text began (it may have been removed).
    head = module.dialect_data.get("head", first[0] if first is not None else len(src))
    out.append(src[:head] if first is not None else src)
    last_end = head if first is not None else len(src)
    pending_new: list[Computation] = []
    for comp, span in zip(comps, spans):
        if comp.dialect_data.get("inline"):
            continue  # printed inside the instruction that calls it
        if span is None or comp.module is not module:
            pending_new.append(comp)
            continue
        gap = comp.dialect_data.get("gap")
        if gap is not None and gap[0] >= last_end:
            out.append(src[gap[0]:gap[1]])
        for new in pending_new:
            out.append(print_computation(new, module, percent) + "\n\n")
        pending_new.clear()
        if not comp.changed and comp.root is comp.dialect_data.get("root"):
            out.append(src[span[0]:span[1]])
        else:
            out.append(_changed_computation(comp, src, percent))
        last_end = span[1]
    for new in pending_new:
        out.append("\n\n" + print_computation(new, module, percent))
    out.append(src[module.dialect_data.get("trailer", len(src)):])
    return "".join(out)


def _header(comp: Computation, header: str, old_root: Instruction | None) -> str:
    """The computation's header, its written signature re-printed when a pass changed
    what it says (XLA checks the signature against the parameters and the root)."""
    signature = comp.dialect_data.get("signature")
    if signature is None or comp.root is None:
        return header
    params = comp.parameters
    if _signature_holds(signature, params, comp.root):
        return header
    name_at = header.find(comp.name)
    brace = header.rfind("{")
    if name_at < 0 or brace < name_at:
        return header
    written = ", ".join(f"{p.name}: {p.shape}" for p in params)
    return f"{header[:name_at + len(comp.name)]} ({written}) -> {comp.root.shape} {header[brace:]}"


def _signature_holds(signature: tuple[str, str], params: list[Instruction], root: Instruction) -> bool:
    params_text, result_text = signature
    try:
        if parse_shape(result_text) != root.shape:
            return False
        written = split_top_level(params_text.strip()[1:-1])
        if len(written) != len(params):
            return False
        for text, p in zip(written, params):
            name, _, shape = text.partition(":")
            if name.strip().lstrip("%") != p.name or parse_shape(shape.strip()) != p.shape:
                return False
    except ValueError:
        return False
    return True


def _changed_computation(comp: Computation, src: str, percent: bool) -> str:
    dd = comp.dialect_data
    head_start, comp_end = dd["span"]
    old_root = dd.get("root")
    out = [_header(comp, src[head_start:dd["body_start"]], old_root)]
    indent = dd.get("indent", "  ")
    def line_kept(instr: Instruction) -> bool:
        if instr.changed or (instr is comp.root) != (instr is old_root) or _reads_changed_compact(instr):
            return False
        parent = _data(instr).get("nested_in")
        return parent is None or (parent.computation is comp and line_kept(parent))

    for instr in comp.instructions:
        if _data(instr).get("nested") and line_kept(instr):
            continue  # written inside its user's line, which is kept
        if not _own_line(instr):
            continue  # written as %tuple#index in its users' lines
        span = instr.span
        lead = instr.lead if span is not None else None
        at_line_start = out[-1].endswith("\n")
        if lead is None or span is None:
            line = indent + print_instruction(instr, instr is comp.root, percent, False)
            out.append(line + "\n" if at_line_start else "\n" + line)
            continue
        start, end = span
        root_moved = (instr is comp.root) != (instr is old_root)
        if not instr.changed and not root_moved and not _reads_changed_compact(instr):
            piece = src[lead:_line_end(src, end)]
        else:
            piece = (src[lead:start] + print_instruction(instr, instr is comp.root, percent, False)
                     + src[end:_line_end(src, end)])
        if not at_line_start and not piece.startswith(("\n", "\r\n")) and not piece.lstrip(" \t").startswith("\n"):
            piece = "\n" + piece
        out.append(piece)
    tail = src[dd["tail_start"]:comp_end]
    if not out[-1].endswith("\n") and not tail.lstrip(" \t").startswith("\n"):
        tail = "\n" + tail.lstrip(" \t")
    out.append(tail)
    return "".join(out)
