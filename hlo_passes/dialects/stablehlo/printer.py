"""Module graph → StableHLO / MLIR text.

Two modes (``Module.to_text``):

* splice (default): the source is copied and only what changed is re-printed.
  An op whose operands changed keeps its own spelling with the new operand
  names substituted; an op whose attributes or type changed, and every op a
  pass added, is printed in MLIR's generic form, which MLIR accepts for any
  op.  Everything else, comments included, stays byte-identical.
* regenerate: every op is printed from the graph (name, operands, decoded or
  source attribute entries, regions, types, location).  Ops whose custom
  syntax the parser captured completely are printed in generic form; the
  remaining pretty forms are printed from their source template with
  operands and regions re-printed from the graph.
"""
from __future__ import annotations

import re

from ...errors import ParseError
from ...ir import Computation, Instruction, Module
from . import attrs as A
from .types import mlir_type

_NAME_OK = re.compile(r"[^\w$.\-]")
# chlo.top_k(%x, k=8): the one attribute its custom syntax holds.
_TOPK_K = re.compile(r"\bk\s*=\s*(\d+)")
_INHERENT_PRETTY = {"precision"}
# HLO attributes that come from (and go back to) one MLIR attribute.
_GROUP = {k: tuple(A._DIM_FIELDS) for k in A._DIM_FIELDS}


def print_module(module: Module, regenerate: bool = False) -> str:
    """The module as MLIR text (see the module docstring for the two modes)."""
    return _Printer(module, regenerate).module()


_PRECISION_LIST = re.compile(r"\[\s*(?:[A-Za-z_]\w*\s*(?:,\s*[A-Za-z_]\w*\s*)*)?\]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET_OR_COMMA = re.compile(r"[()\[\]{}<>,]")


def _one_value(text: str) -> bool:
    """Whether ``text`` reads as one attribute value in a dictionary: something, not
    opened by a closing bracket or a comma, with no comma outside brackets."""
    if not text or text[0] in ",)]}>":
        return False
    bare = _STRING.sub('""', text) if '"' in text else text
    if "," not in bare:
        return True  # scalars and hex dense constants: no scan
    depth = 0
    for m in _BRACKET_OR_COMMA.finditer(bare):
        c = m.group()
        if c == ",":
            if depth == 0:
                return False
        elif c in "([{<":
            depth += 1
        else:
            depth -= 1
    return True


def _ssa(name: str) -> str:
    name = _NAME_OK.sub("_", name) or "v"
    return "%" + name


class _Printer:
    def __init__(self, module: Module, regenerate: bool, source: str | None = None) -> None:
        self.m = module
        self.src = module.source if source is None else source
        self.regen = regenerate
        self.memo: dict[int, bool] = {}

    # ---- change tracking -----------------------------------------------------
    def comp_dirty(self, comp: Computation) -> bool:
        key = id(comp)
        r = self.memo.get(key)
        if r is None:
            r = comp.changed or any(self.op_dirty(i) for i in comp.instructions)
            self.memo[key] = r
        return r

    def op_dirty(self, op: Instruction) -> bool:
        return op.changed or op.span is None or any(self.comp_dirty(c) for c in _regions(op))

    # ---- module ----------------------------------------------------------------
    def module(self) -> str:
        m = self.m
        dd = m.dialect_data
        body = dd.get("body", [])
        src = self.src
        if not self.regen:
            out: list[str] = []
            pos = 0
            added: list[str] = []
            for item in body:
                target = item.get("func") or item.get("op")
                if "func" in item and target.module is not m:
                    # A function a pass removed: its text goes, with the blank before it.
                    if item.get("span") is not None:
                        a, b = item.get("pre") or item["span"]
                        out.append(src[pos:a])
                        pos = item["span"][1]
                    continue
                if item.get("span") is None:
                    added.append(self.func(target, 2 if dd.get("head") is not None else 0))
                    continue
                dirty = self.comp_dirty(target) if "func" in item else self.op_dirty(target)
                if not dirty:
                    continue
                a, b = item["span"]
                out.append(src[pos:a])
                out.append(self.func(target, 0) if "func" in item else self.op(target, 0))
                pos = b
            if added:
                # Functions a pass added go after the last of the source's.
                end = max((item["span"][1] for item in body if item.get("span") is not None), default=len(src))
                pad = " " * (2 if dd.get("head") is not None else 0)
                out.append(src[pos:end])
                out.extend("\n" + pad + text for text in added)
                pos = end
            out.append(src[pos:])
            return "".join(out)
        lines: list[str] = []
        head = dd.get("head")
        for name, value in dd.get("aliases", {}).items():
            lines.append(f"{name} = {value}")
        indent = 0
        if head is not None:
            name = f" @{m.name}" if re.match(r"\s*module\s+@", src[head[0]:head[1]]) or \
                re.search(r'sym_name', src[head[0]:head[1]]) else ""
            attrs = dd.get("attr_text")
            lines.append(f"module{name}" + (f" attributes {attrs}" if attrs else "") + " {")
            indent = 2
        for item in body:
            if "func" in item:
                if item["func"].module is not m:
                    continue  # removed by a pass
                lines.append(" " * indent + self.func(item["func"], indent))
            else:
                lines.append(" " * indent + self.op(item["op"], indent))
        if head is not None:
            foot = src[dd["foot"][0]:dd["foot"][1]]
            loc = re.search(r"\bloc\(.*\)\s*$", foot, re.S)
            lines.append("}" + (" " + loc.group(0).strip() if loc else ""))
        return "\n".join(lines) + "\n"

    # ---- functions -------------------------------------------------------------
    def func(self, comp: Computation, indent: int) -> str:
        own = comp.dialect_data.get("source")
        if own is not None and own is not self.src:
            # A function a pass brought in from another module's text.
            return _Printer(self.m, self.regen, own).func(comp, indent)
        f: Instruction = comp.dialect_data["func"]
        src = self.src
        f_span = f.span
        if comp.dialect_data.get("declaration"):
            assert f_span is not None, "a declaration is printed as its text holds it"
            return src[f_span[0]:f_span[1]]
        if f.dialect_data.get("generic"):
            return self.generic(f, indent, regions_override=[comp])
        assert f_span is not None, "a pretty function is printed from its text"
        head = src[f_span[0]:comp.dialect_data["open"]]
        tail = src[comp.dialect_data["close"]:f_span[1]]
        entry_args = comp.dialect_data.get("entry_args", ())
        if self.regen or any(p.changed or p.computation is not comp for p in entry_args):
            close = _args_close(head)
            args = []
            # Parameters a pass removed are no longer the function's.
            for p in (p for p in entry_args if p.computation is comp):
                a = f"{_ssa(p.name)}: {mlir_type(p.shape)}"
                if p.dialect_data.get("arg_attrs"):
                    a += " " + p.dialect_data["arg_attrs"]
                if p.dialect_data.get("loc"):
                    a += " " + p.dialect_data["loc"]
                args.append(a)
            vis = comp.dialect_data.get("visibility")
            rest = head[close + 1:] if close >= 0 else " "
            head = "func.func " + (vis + " " if vis else "") + "@" + _sym(comp.name) + \
                "(" + ", ".join(args) + ")" + rest
        return head + self.region(comp, indent, labels=False) + tail

    # ---- regions ---------------------------------------------------------------
    def region(self, comp: Computation, indent: int, labels: bool) -> str:
        """A region: ``{`` blocks ``}``; ``labels`` forces the entry block's label (generic form)."""
        src = self.src
        ops = [i for i in comp.instructions if not _is_param(i)]
        blocks = comp.dialect_data.get("blocks") or [{"label": None, "args": [], "lead": None}]
        pad = " " * (indent + 2)
        splice = not self.regen and "open" in comp.dialect_data
        out = ["{"]
        shown = -1
        last_indent = "\n" + pad
        if splice:
            # An op a pass put first takes the indentation of the source's ops.
            for op in ops:
                pre = op.dialect_data.get("pre") if op.span is not None else None
                if pre is not None and "\n" in src[pre[0]:pre[1]]:
                    text = src[pre[0]:pre[1]]
                    last_indent = text[text.rfind("\n"):]
                    break
        # Parameters a pass removed are no longer the computation's.
        entry_args = [p for p in comp.dialect_data.get("entry_args", []) if p.computation is comp]

        def open_blocks(upto: int) -> None:
            nonlocal shown
            while shown < upto:
                shown += 1
                b = blocks[shown]
                stale = any(a.changed for a in (b.get("args") or ()))
                if splice and b.get("lead") is not None and not stale \
                        and not (shown == 0 and labels and b["label"] is None):
                    out.append(src[b["lead"][0]:b["lead"][1]])
                elif b.get("label") or (shown == 0 and labels and entry_args):
                    args = b.get("args") if b.get("label") else entry_args
                    out.append("\n" + " " * indent + "  " + (b.get("label") or "^bb0") + self.block_args(args) + ":")

        blk = 0
        for op in ops:
            blk = max(blk, op.dialect_data.get("blk", blk))
            open_blocks(min(blk, len(blocks) - 1))
            pre = op.dialect_data.get("pre")
            if splice and pre is not None and op.span is not None:
                text = src[pre[0]:pre[1]]
                if shown >= 0 and blocks[shown].get("lead") is not None and pre[0] < blocks[shown]["lead"][1]:
                    text = src[blocks[shown]["lead"][1]:pre[1]]
                out.append(text)
                nl = text.rfind("\n")
                if nl >= 0:
                    last_indent = text[nl:]
            else:
                out.append(last_indent if splice else "\n" + pad)
            out.append(self.op(op, indent + 2))
        open_blocks(len(blocks) - 1)
        tail = comp.dialect_data.get("tail")
        if splice and tail:
            out.append(src[tail[0]:tail[1]])
        else:
            out.append("\n" + " " * indent)
        out.append("}")
        return "".join(out)

    def block_args(self, args: list[Instruction]) -> str:
        if not args:
            return ""
        parts = []
        for p in args:
            a = f"{_ssa(p.name)}: {mlir_type(p.shape)}"
            if p.dialect_data.get("loc"):
                a += " " + p.dialect_data["loc"]
            parts.append(a)
        return "(" + ", ".join(parts) + ")"

    # ---- ops -------------------------------------------------------------------
    def op(self, op: Instruction, indent: int) -> str:
        if op.span is None or op.dialect_data.get("implicit"):
            return self.generic(op, indent)
        if not self.regen and not self.op_dirty(op):
            return self.src[op.span[0]:op.span[1]]
        dd = op.dialect_data
        implicit_changed = any("open" not in c.dialect_data and self.comp_dirty(c) for c in _regions(op))
        # An operand added or dropped leaves the source spelling with the wrong count.
        arity_changed = op.changed and "opnd_pos" in dd and len(dd["opnd_pos"]) != len(op.operands)
        must_rebuild = implicit_changed or arity_changed or op.changed and (
            self.attrs_changed(op) or self.type_changed(op))
        if self.regen or must_rebuild:
            if dd.get("generic") or self.can_generic(op):
                return self.generic(op, indent)
            if must_rebuild:
                # Its custom syntax holds attributes we cannot re-encode:
                # refuse rather than print the old values.
                raise ValueError(f"cannot print {op.source_op} ({op.name}, line {op.line}) after its "
                                 "attributes or type changed: its custom syntax is not re-encodable")
        return self.template(op, indent)

    def attrs_changed(self, op: Instruction) -> bool:
        attrs = op.attributes
        for k in attrs:
            if attrs.raw(k) is None and k != "parameter_number":
                return True
        orig: set[str] = set()
        for e in op.dialect_data.get("entries", ()):
            hk = e[3] if len(e) > 3 else e[0]
            if e[0] in ("[]", "@", "<>") and hk == e[0]:
                continue
            orig.update(hk if isinstance(hk, tuple) else (hk,))
        return orig != set(attrs)

    def type_changed(self, op: Instruction) -> bool:
        rt = op.dialect_data.get("result_types") or []
        if op.num_results == 1 and rt:
            changed: bool = mlir_type(op.shape) != rt[0]
            return changed
        if op.num_results > 1 and len(rt) == op.num_results and op.shape.is_tuple:
            return [mlir_type(s) for s in op.shape.tuple_shapes] != rt
        return False

    def can_generic(self, op: Instruction) -> bool:
        dd = op.dialect_data
        if dd.get("generic") or op.span is None:
            return True
        src_op = op.source_op
        if src_op in ("stablehlo.constant", "arith.constant"):
            return dd.get("colon") is not None and dd.get("body_start") is not None and \
                not self.src[dd["body_start"]:dd["colon"]].lstrip().startswith(("{", "("))
        if src_op == "sdy.manual_computation":
            return len(_regions(op)) == 1
        if src_op == "func.call":
            return True  # callee, operands and types are all it has
        if src_op == "stablehlo.convolution":
            pretty = [e for e in dd.get("entries", ()) if e[2] == "pretty"]
            if _regions(op) or dd.get("words") or not {e[0] for e in pretty} <= {"dim_numbers", "window"}:
                return False
            try:
                for e in pretty:
                    _conv_entries(e[0], e[1] or "")
            except (ValueError, TypeError, IndexError):
                return False  # not a window we can re-encode: keep the op's own spelling
            return True
        if src_op == "stablehlo.composite":
            return len(dd.get("strs") or ()) == 1 and not dd.get("words") and not _regions(op)
        if src_op == "chlo.top_k":
            return not _regions(op) and _TOPK_K.search(self.src, op.span[0], dd.get("colon", op.span[1])) is not None
        if src_op == "stablehlo.reduce" and _regions(op) and _regions(op)[0].dialect_data.get("implicit"):
            return set(dd.get("words") or ()) <= {"applies", "across", dd.get("applies")}
        if src_op == "stablehlo.while":
            return len(_regions(op)) == 2 and set(dd.get("words") or ()) <= {"cond", "do"}
        if not dd.get("simple") or _regions(op):
            return False
        words = dd.get("words") or []
        if words and not (src_op == "stablehlo.compare" and len(words) <= 2):
            return False
        for e in dd.get("entries", ()):
            if e[2] != "pretty":
                continue
            hk = e[3]
            if e[0] in _INHERENT_PRETTY:
                continue
            keys = hk if isinstance(hk, tuple) else (hk,)
            if not all(k in A.DECODED_KEYS or k == "sharding" for k in keys):
                return False
        return True

    def ref(self, op: Instruction, idx: int) -> str:
        d = op.operands[idx]
        r = op.operand_results[idx]
        groups = d.dialect_data.get("results")
        if groups:
            for name, count in groups:
                if r < count:
                    return _ssa(name) + (f"#{r}" if count > 1 else "")
                r -= count
        return _ssa(d.name) + (f"#{r}" if d.num_results > 1 else "")

    def operand_type(self, op: Instruction, idx: int) -> str:
        d = op.operands[idx]
        r = op.operand_results[idx]
        if d.num_results > 1 and d.shape.is_tuple and r < len(d.shape.tuple_shapes):
            return mlir_type(d.shape.tuple_shapes[r])
        return mlir_type(d.shape)

    def results_prefix(self, op: Instruction) -> str:
        groups = op.dialect_data.get("results")
        if groups is None:
            if op.num_results == 0:
                return ""
            groups = [(op.name, op.num_results)]
        if not groups:
            return ""
        return ", ".join(_ssa(n) + (f":{c}" if c > 1 else "") for n, c in groups) + " = "

    def template(self, op: Instruction, indent: int) -> str:
        """The op's own spelling with operands and regions re-printed from the graph."""
        dd = op.dialect_data
        src = self.src
        reps: list[tuple[int, int, str]] = []
        pos = dd.get("opnd_pos") or []
        for idx in range(min(len(pos), len(op.operands))):
            reps.append((pos[idx][0], pos[idx][1], self.ref(op, idx)))
        for comp in _regions(op):
            if "open" in comp.dialect_data:
                reps.append((comp.dialect_data["open"], comp.dialect_data["close"],
                             self.region(comp, indent, labels=False)))
        reps.sort()
        out = []
        span = op.span
        assert span is not None, "op() sends only ops with their source text here"
        cur = span[0]
        for a, b, text in reps:
            out.append(src[cur:a])
            out.append(text)
            cur = b
        out.append(src[cur:span[1]])
        return "".join(out)

    def generic(self, op: Instruction, indent: int, regions_override: list[Computation] | None = None) -> str:
        dd = op.dialect_data
        src_op = op.source_op
        if "." not in src_op:
            src_op = A.MLIR_OF.get(op.opcode, op.opcode)
        props, dicts = self._generic_attributes(op, src_op)
        self._implied_attributes(op, props, dicts)
        n_succ = dd.get("n_succ_operands", 0)
        n_ops = len(op.operands) - n_succ
        operands = ", ".join(self.ref(op, i) for i in range(n_ops))
        text = self.results_prefix(op) + '"' + src_op + '"(' + operands + ")"
        if dd.get("successors"):
            text += " " + self._successors(op, n_ops)
        if props:
            text += " <{" + ", ".join(props) + "}>"
        regions = regions_override if regions_override is not None else _regions(op)
        if regions:
            text += " (" + ", ".join(self.region(c, indent, labels=True) if self.regen or op.span is None
                                     or self.comp_dirty(c) or "open" not in c.dialect_data
                                     else self.src[c.dialect_data["open"]:c.dialect_data["close"]]
                                     for c in regions) + ")"
        if dicts:
            text += " {" + ", ".join(dicts) + "}"
        text += " : " + self._generic_signature(op, n_ops)
        if dd.get("loc"):
            text += " " + dd["loc"]
        return text

    def _generic_attributes(self, op: Instruction, src_op: str) -> tuple[list[str], list[str]]:
        """The op's properties (``<{...}>``) and attributes (``{...}``) in the generic form: the
        source's entries as written where unchanged, changed and pretty-form values encoded."""
        dd = op.dialect_data
        attrs = op.attributes
        changed = {k for k in attrs if attrs.raw(k) is None and k != "parameter_number"}
        props: list[str] = []
        dicts: list[str] = []
        done: set[str] = set()
        uses_props = any(e[2] == "props" for e in dd.get("entries", ()))

        def put(key: str, val: str | None, place: str) -> None:
            text = _attr_name(key) if val is None else f"{_attr_name(key)} = {val}"
            if place == "props" or (place == "new" and uses_props and "." not in key):
                props.append(text)
            else:
                dicts.append(text)

        def encode(k: str) -> None:
            done.update(_GROUP.get(k, (k,)))
            for mk, mv in A.encode(src_op, k, attrs[k], attrs):
                put(mk, mv, "new")

        for e in dd.get("entries", ()):
            key, val, place = e[0], e[1], e[2]
            hk = e[3] if len(e) > 3 else key
            keys = hk if isinstance(hk, tuple) else (hk,)
            if key in ("[]", "@", "<>") and hk == key:
                continue
            if any(k in changed or k not in attrs for k in keys):
                continue
            if place != "pretty":
                put(key, val, place)
            elif src_op == "stablehlo.convolution" and key in ("dim_numbers", "window"):
                for mk, mv in _conv_entries(key, val or ""):
                    put(mk, mv, "new")
            elif key == "precision":
                put("precision_config", self._precision_config(op, val or ""), "new")
            else:
                for k in keys:
                    if k not in done:
                        encode(k)
        for k in attrs:
            if k in changed and k not in done:
                encode(k)
        return props, dicts

    def _precision_config(self, op: Instruction, val: str) -> str:
        if _PRECISION_LIST.fullmatch(val) is None:
            # Lazily parsed, never checked: printed generic it would not parse again.
            raise ParseError.at(f"precision expects [NAME, ...], got {val[:40]!r}",
                                self.src, op.span[0] if op.span else 0, self.m.path)
        vals = [v.strip() for v in val.strip("[]").split(",") if v.strip()]
        return "[" + ", ".join(f"#stablehlo<precision {v}>" for v in vals) + "]"

    def _implied_attributes(self, op: Instruction, props: list[str], dicts: list[str]) -> None:
        """Attributes the pretty form writes as syntax, not entries (a constant's value, a
        composite's name, top_k's k, compare's direction and type)."""
        dd = op.dialect_data
        if dd.get("generic"):
            return
        if op.source_op in ("stablehlo.constant", "arith.constant") and op.span:
            value = self.src[dd["body_start"]:dd["colon"]].strip()
            if not _one_value(value):
                # Kept as written in the pretty form; generic, it must be one value (fuzz).
                raise ParseError.at(f"a constant's value must be one attribute, got {value[:40]!r}",
                                    self.src, dd["body_start"], self.m.path)
            rt = mlir_type(op.shape)
            props.append(f"value = {value}" + ("" if " : " in value and not value.startswith("dense") else f" : {rt}"))
        if op.source_op == "stablehlo.composite" and dd.get("strs"):
            dicts.append(f"name = {dd['strs'][0]}")
        if op.source_op == "chlo.top_k" and op.span:
            m = _TOPK_K.search(self.src, op.span[0], dd.get("colon", op.span[1]))
            if m:
                dicts.append(f"k = {m.group(1)} : i64")
        if op.source_op == "stablehlo.compare":  # a clone (no span) keeps its words too
            words = dd.get("words") or []
            if words:
                dicts.append(f"comparison_direction = #stablehlo<comparison_direction {words[0]}>")
            if len(words) > 1:
                dicts.append(f"compare_type = #stablehlo<comparison_type {words[1]}>")

    def _generic_signature(self, op: Instruction, n_ops: int) -> str:
        """``(operand types) -> result types`` of the generic form."""
        if op.source_op == "func.func" and op.dialect_data.get("generic"):
            # function_type and the region carry the signature; the op has none.
            return "() -> ()"
        in_types = ", ".join(self.operand_type(op, i) for i in range(n_ops))
        if op.num_results == 0:
            out_types = "()"
        elif op.num_results == 1:
            out_types = mlir_type(op.shape)
            if out_types.startswith("("):
                out_types = "(" + out_types + ")"
        else:
            out_types = "(" + ", ".join(mlir_type(s) for s in op.shape.tuple_shapes) + ")"
        return f"({in_types}) -> {out_types}"

    def _successors(self, op: Instruction, n_ops: int) -> str:
        text = op.dialect_data["successors"]
        # Successor operands were parsed as operands after the regular ones:
        # re-print them from the graph in the same order.
        idx = [n_ops]

        def sub(m: re.Match[str]) -> str:
            i = idx[0]
            idx[0] += 1
            return self.ref(op, i) if i < len(op.operands) else m.group(0)

        return re.sub(r'%[\w$.\-]+(?:#\d+)?', sub, text)


def _conv_entries(key: str, val: str) -> list[tuple[str, str]]:
    """stablehlo.convolution's pretty ``dim_numbers = ...`` / ``window = {...}`` as its attributes."""
    if key == "dim_numbers":
        return [("dimension_numbers", f"#stablehlo.conv<{val}>")]
    fields = A.parse_entries(val.strip()[1:-1]) if val.strip()[1:-1].strip() else {}
    out = []
    names = {"stride": "window_strides", "lhs_dilate": "lhs_dilation", "rhs_dilate": "rhs_dilation"}
    for k, v in fields.items():
        if k in names:
            out.append((names[k], A._arr(v)))
        elif k == "pad":
            rows = ", ".join("[" + ", ".join(str(int(x)) for x in r) + "]" for r in v)
            out.append(("padding", (f"dense<[{rows}]>" if v else "dense<>") + f" : tensor<{len(v)}x2xi64>"))
        elif k == "reverse":
            out.append(("window_reversal", "array<i1" + (": " if v else "")
                        + ", ".join("true" if x else "false" for x in v) + ">"))
        else:
            raise ValueError(f"unknown convolution window field {k!r}")
    return out


def _attr_name(key: str) -> str:
    if re.fullmatch(r"[A-Za-z_][\w$.]*", key):
        return key
    return A.mlir_string(key)


def _sym(name: str) -> str:
    if re.fullmatch(r"[\w$.\-]+", name):
        return name
    return A.mlir_string(name)


def _regions(op: Instruction) -> list[Computation]:
    """The op's own regions (``called_computations`` also lists a func.call's callee)."""
    return [c for c in op.called_computations if c.parent is op]


def _is_param(i: Instruction) -> bool:
    return i.opcode == "parameter" and i.source_op == "parameter"


def _args_close(head: str) -> int:
    """Offset of the ')' closing a func.func's argument list in its header text."""
    start = head.find("(")
    if start < 0:
        return -1
    depth = 0
    i = start
    n = len(head)
    while i < n:
        c = head[i]
        if c == '"':
            i += 1
            while i < n and head[i] != '"':
                i += 2 if head[i] == "\\" else 1
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            if c == ">" and head[i - 1] == "-":
                i += 1
                continue
            depth -= 1
            if depth == 0 and c == ")":
                return i
        i += 1
    return -1
