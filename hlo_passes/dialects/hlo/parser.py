"""HLO text → ``Module``.

A hand-written scanner reads the module header, stack-frame tables,
computation headers and one instruction at a time with precompiled regular
expressions and ``str`` searches; it never builds a syntax tree.  Attribute
values are cut out as text and decoded lazily by the lark grammar in
``attrs.lark`` (all of them, up front, with ``validate=True``).  Shapes go
through a memoised parser.  Every scan is linear: the patterns have no nested
quantifiers over overlapping characters, and brackets are counted with a loop
that jumps between delimiters, not recursion.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from sys import intern
from typing import Any, cast


from ...errors import ParseError, VerificationWarning
from ...ir import Attributes, Computation, Instruction, Module, Shape
from ...ir.verify import verify_module
from . import compact
from ._base import INFERRED_SHAPE, _Fail, _ParsedOp, _source_texts
from ..._gc import collector_paused
from .attrs import AttributeDecodeError, check_attribute, decode_attribute, parse_tree
from .checks import check_structure
from .infer import DERIVED, infer_shapes
from .opcodes import (CALL_ATTRS, KNOWN_ATTRIBUTES, NO_INFERENCE, OPCODES, SELECT_SCATTER_CALLS, async_sugar,
                          known_invalid)
from ..ints import INT64_MAX, NumberError, to_int
from .shapes import ARRAY_SHAPE_RE, STRICT_ARRAY_SHAPE_RE, ShapeError, parse_shape

# An operand as read, before names are resolved: a name, an instruction written inside its
# user's operands, or a tuple-element reference (``name#i``).
_Operand = str | Instruction | compact.TupleRef

_TRIVIA_RE = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/)*")
# It matches anywhere (maybe nothing): never None.
_trivia_at = cast("Callable[[str, int], re.Match[str]]", _TRIVIA_RE.match)
_NAME = r"[A-Za-z_][\w.\-]*"
_NAME_RE = re.compile(_NAME)
_OPERAND_NAME_RE = re.compile(r"%?(" + _NAME + r")")
_MODULE_RE = re.compile(r"HloModule[ \t]+(%?" + _NAME + r")(:?)")
# The common instruction line: name, array shape, opcode and '(' in one match.
_FAST_INSTR_RE = re.compile(
    r"(ROOT[ \t]+)?(%?)(" + _NAME + r")[ \t]*=[ \t]*"
    r"([a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?)[ \t]+([a-z][a-z0-9\-]*)\("
)
_INSTR_HEAD_RE = re.compile(r"(ROOT[ \t]+)?(%?)(" + _NAME + r")[ \t]*=\s*")
_OPCODE_RE = re.compile(r"\s*([a-z][a-z0-9\-]*)[ \t]*\(")
_ATTR_RE = re.compile(r"[ \t]*,\s*([A-Za-z_][\w.\-]*)[ \t]*=\s*")
_SIMPLE_VALUE_RE = re.compile(r"[^(){}\[\]\",\n/]*")
_simple_value_at = cast("Callable[[str, int], re.Match[str]]", _SIMPLE_VALUE_RE.match)  # never None, as above
_SIMPLE_OPERANDS_RE = re.compile(r"[^()\"{}\[\]/\n]*\)")
# Operand names only: ``%a, %b.1`` (the names never touch, so findall cuts them).
_NAME_LIST_RE = re.compile(r"\s*%?" + _NAME + r"\s*(?:,\s*%?" + _NAME + r"\s*)*")
# One operand written with its array shape: ``f32[2,3]{1,0} %name,`` or ``...)``.
_TYPED_OPERAND_RE = re.compile(
    r"\s*(?:([a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?)\s+)?%?(" + _NAME + r")\s*[,)]"
)
# A brace value without nested brackets; strings may hold anything.  One
# character or one whole string per repetition, and the two alternatives
# start with different characters, so a failing match backtracks linearly.
_FLAT_BRACES = r'\{(?:[^{}\[\]()"\n/]++|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+")*+\}'
_FLAT_BRACES_RE = re.compile(_FLAT_BRACES)
# An attribute as XLA's printer writes most of them: ``, name=value`` with a value of one
# word, a string, or a brace group nested at most four deep (metadata={...},
# slice={[0:8], [0:4]}, backend_config={"a":{"b":[]}}): what ``read_attributes`` makes of
# the same text, since every bracket in it is matched and no comment or newline is inside.
_STR_ON_LINE = r'"(?:[^"\\\n]++|\\.)*+"'
_NEST0 = r'(?:[^{}\[\]()"\n/]++|' + _STR_ON_LINE + r')*+'


def _nested(inner: str) -> str:
    return r'(?:[^{}\[\]()"\n/]++|' + _STR_ON_LINE + r"|\{" + inner + r"\}|\[" + inner + r"\]|\(" + inner + r"\))*+"


_ATTR_PAIR = (r', ([A-Za-z_][\w.\-]*)=([^(){}\[\]",\n/ \t\r]++|' + _STR_ON_LINE
              + r"|\{" + _nested(_nested(_nested(_NEST0))) + r"\})")
_ATTR_PAIR_RE = re.compile(_ATTR_PAIR)
# A whole instruction line in that form (an array shape, operands without brackets, every
# attribute such a pair, nothing after it on the line) in one match: most lines of a
# module from XLA.  Any other line, and a line whose pieces need a closer look, take the
# general path.
_WHOLE_INSTR_RE = re.compile(
    r"(ROOT[ \t]+)?(%?)(" + _NAME + r")[ \t]*=[ \t]*"
    r"([a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?)[ \t]+([a-z][a-z0-9\-]*)\("
    r"([^()\"{}\[\]/\n]*)\)"
    r"((?:" + _ATTR_PAIR + r")*)(?=\n|\Z)"
)
_DEVICE_IDS_RE = re.compile(r"[ \t]*,[ \t]*device_ids[ \t]*=")
_DELIM_RE = re.compile(r"[(){}\[\]\",\n]|/[*/]")
_STRING_REST_RE = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_COMP_HEAD_RE = re.compile(r"(ENTRY[ \t]+)?(%?)(" + _NAME + r")[ \t]*")
_LINE_END_RE = re.compile(r"[ \t\r]*(?://[^\n]*)?(?:\n|$)")
_TABLE_ENTRY_RE = re.compile(r"(\d+)[ \t]+")
_STACK_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
# Said when a failure looks like syntax of a newer XLA.
NEWER_XLA = "this may be HLO from a newer XLA than hlo_passes reads"

_MAX_NESTING = 100
_SEEN_VALUES_LIMIT = 4096
# Read-only stand-in for an instruction's dialect_data that was never created.
_EMPTY_DIALECT_DATA: dict[str, Any] = {}
# One string object per opcode: without this every instruction keeps its own
# copy of "add" (an interned attribute name costs nothing per instruction).
_OPCODE_STR = {op: op for op in OPCODES}


def read_hlo(text: str, path: str | None = None, validate: bool = False) -> Module:
    """Parse HLO text (the text layer, ``hlo_passes.text``, gives the module its printer); ``validate=True`` decodes every attribute and checks shapes too.

    Shape problems do not make the text invalid (XLA's parser accepts them):
    they land in ``Module.shape_problems`` with one ``VerificationWarning``.
    """
    if not isinstance(text, str):
        raise ParseError("HLO text must be a str", path=path, line=1, column=1)
    parser = _HloParser(text, path, strict=validate)
    # A parse allocates ~10 objects per instruction and frees none of them:
    # the cyclic collector would rescan the growing heap again and again
    # (half the parse time, and super-linear), so it waits until the end
    # (_gc: what happens to the module's objects then, and why that stays bounded).
    try:
        with collector_paused():
            module = parser.parse()
            check_structure(module, parser, strict=validate)
            if validate:
                validate_module(module, parser)
                module.shape_problems = verify_module(module)
    except _Fail as f:
        reason, pos = f.reason, f.pos
        if not reason.startswith("unexpected end of input") and _cut_short(text, pos):
            reason, pos = f"unexpected end of input: {reason} at {parser.where(pos)}", len(text)
        raise parser.error(reason, pos) from None
    except RecursionError:
        raise parser.error("input nested too deeply", parser.pos) from None
    if module.shape_problems:
        more = len(module.shape_problems) - 1
        warnings.warn(VerificationWarning(
            f"{path or '<string>'}: {module.shape_problems[0]}"
            + (f" (and {more} more; see Module.shape_problems)" if more else "")
            + "; XLA's parser accepts this, its verifier would not"), stacklevel=3)
    return module


class LazyDecoder:
    """Decodes one attribute when a pass first reads it.

    A value the grammar rejects becomes a ``ParseError`` pointing at the first
    place in the source where that attribute has that text (equal texts fail
    equally, so the first is as good as any).
    """

    __slots__ = ("text", "path")

    def __init__(self, text: str, path: str | None) -> None:
        self.text = text
        self.path = path

    def __call__(self, key: str, raw: str) -> Any:
        try:
            return decode_attribute(key, raw)
        except AttributeDecodeError as e:
            k = self.text.find(f"{key}={raw}")
            pos = k + len(key) + 1 + e.offset if k >= 0 else 0
            parser = _HloParser(self.text, self.path)
            raise parser.error(f"bad {key}: {_with_hint(e.reason)}", pos) from None


class _HloParser:
    def __init__(self, text: str, path: str | None, strict: bool = False) -> None:
        self.text = text
        # validate=True: an opcode the parser does not know is an error, as in
        # XLA; otherwise it is carried through (see unknown_constructs).
        self.strict = strict
        self.path = path
        self.pos = 0
        self._line_pos = 0
        self._line_no = 1
        self.call_refs_pending: list[str] = []
        self.nested_pending: list[_ParsedOp] = []
        self.inline_pending: list[Computation] = []
        self.depth = 0
        self.decoder = LazyDecoder(text, path)
        self.shape_kinds: set[str] = set()
        self.comp_names: set[str] = set()
        self.inline_for_attr: dict[str, Computation] = {}
        self.anon_names: set[str] = set()
        self.seen_values: dict[str, str] = {}
        # Matched brackets of the operand list being split (see operand_names).
        self.jumps: dict[int, int] | None = None
        # Whether some operand was written ``%tuple#index`` (see compact.py).
        self.compact_refs = False
        # The last attribute value that ran over lines (name, offset), for an error's hint.
        self.spanning: tuple[str, int] | None = None

    # ---- errors ----------------------------------------------------------
    def error(self, reason: str, pos: int) -> ParseError:
        return ParseError.at(reason, self.text, pos, self.path)

    def error_at_instruction(self, instr: Instruction, reason: str, needle: str | None = None,
                             offset: int = 0) -> ParseError:
        """The error at ``needle`` (plus ``offset`` into it) within the instruction, else at its start."""
        pos = instr.span[0] if instr.span else 0
        if needle and instr.span:
            k = self.text.find(needle, instr.span[0], instr.span[1])
            if k >= 0:
                pos = k + offset
        return self.error(reason, pos)

    def where(self, pos: int) -> str:
        """``line:column`` of text offset ``pos`` (for messages that name a second place)."""
        text = self.text
        return f"{text.count(chr(10), 0, pos) + 1}:{pos - text.rfind(chr(10), 0, pos)}"

    def line_end(self, pos: int) -> int:
        """Offset just after the last non-blank character of the line holding ``pos``."""
        text = self.text
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        while end > pos and text[end - 1] in " \t\r":
            end -= 1
        return end

    def _line_of(self, pos: int) -> int:
        # Instructions arrive in text order, so counting forward stays linear.
        if pos >= self._line_pos:
            self._line_no += self.text.count("\n", self._line_pos, pos)
        else:
            self._line_no = self.text.count("\n", 0, pos) + 1
        self._line_pos = pos
        return self._line_no

    # ---- scanning helpers ------------------------------------------------
    def skip_trivia(self, pos: int) -> int:
        return _trivia_at(self.text, pos).end()

    def scan_value(self, pos: int, in_parens: bool = False) -> int:
        """End of the value at ``pos``: the first top-level ',' or newline, or an
        unmatched closing bracket (with ``in_parens``, only the unmatched ')')."""
        text = self.text
        depth = 0
        # Where the brackets still open were opened (for the message if one never closes).
        opened: list[int] = []
        search = _DELIM_RE.search
        start = pos
        while True:
            m = search(text, pos)
            if m is None:
                if depth or in_parens:
                    at = opened[-1] if opened else start - 1
                    raise _Fail(f"unexpected end of input: the {text[at]!r} opened at {self.where(at)} is not "
                                "closed", len(text))
                return len(text)
            i = m.start()
            c = text[i]
            if c == '"':
                m2 = _STRING_REST_RE.match(text, i + 1)
                if m2 is None:
                    raise _Fail("unterminated string", i)
                pos = m2.end()
            elif c == "/":
                if text.startswith("//", i):
                    j = text.find("\n", i)
                    pos = len(text) if j < 0 else j
                    continue
                j = text.find("*/", i + 2)
                if j < 0:
                    raise _Fail("unterminated comment", i)
                pos = j + 2
            elif c in "({[":
                depth += 1
                opened.append(i)
                pos = i + 1
            elif c in ")}]":
                if depth == 0:
                    if in_parens and c != ")":
                        raise _Fail(f"unbalanced {c!r} (expected ')' to close the '(' opened at "
                                    f"{self.where(start - 1)})", i)
                    return i
                depth -= 1
                opened.pop()
                pos = i + 1
            else:  # ',' or newline
                if depth == 0 and not in_parens:
                    return i
                pos = i + 1

    def split_top_level(self, start: int, end: int) -> list[tuple[int, int]]:
        """(start, end) of each comma-separated piece of text[start:end]."""
        pieces = []
        text = self.text
        jumps = self.jumps
        pos = start
        piece_start = start
        depth = 0
        while True:
            m = _DELIM_RE.search(text, pos, end)
            if m is None:
                pieces.append((piece_start, end))
                return pieces
            i = m.start()
            c = text[i]
            if c == '"':
                m2 = _STRING_REST_RE.match(text, i + 1, end)
                if m2 is None:
                    raise _Fail("unterminated string", i)
                pos = m2.end()
            elif c == "/":
                if text.startswith("//", i):
                    j = text.find("\n", i, end)
                    pos = end if j < 0 else j
                    continue
                j = text.find("*/", i + 2, end)
                if j < 0:
                    raise _Fail("unterminated comment", i)
                pos = j + 2
            elif c in "({[":
                close = jumps.get(i) if jumps is not None else None
                if close is not None and close < end:
                    pos = close + 1  # the whole group: nothing in it splits this list
                else:
                    depth += 1
                    pos = i + 1
            elif c in ")}]":
                depth -= 1
                pos = i + 1
            elif c == "," and depth == 0:
                pieces.append((piece_start, i))
                piece_start = pos = i + 1
            else:
                pos = i + 1

    def read_attributes(self, pos: int, attrs: dict[str, str], where: str) -> int:
        """Read ``, name=value`` pairs into ``attrs``; returns the end position."""
        text = self.text
        n = len(text)
        attr_match = _ATTR_RE.match
        simple = _simple_value_at
        seen = self.seen_values
        while True:
            m = attr_match(text, pos)
            if m is None:
                return pos
            # Attribute names repeat on every line: share one string each.
            name = intern(m.group(1))
            vstart = m.end()
            e = simple(text, vstart).end()
            if e < n and text[e] not in ",\n":
                # {key="string" key=1 ...} (metadata and the like) in one match
                fm = _FLAT_BRACES_RE.match(text, vstart) if e == vstart else None
                if fm is not None and (fm.end() == n or text[fm.end()] in ",\n \t\r"):
                    e = fm.end()
                else:
                    e = self.scan_value(vstart)
            if name == "replica_groups" and text.startswith("mesh", vstart):
                # mesh[...], device_ids=(...) {...}: one value around a top-level comma.
                dm = _DEVICE_IDS_RE.match(text, e)
                if dm is not None:
                    e = self.scan_value(dm.end())
            value = text[vstart:e].rstrip(" \t\r")
            if not value:
                raise _Fail(f"attribute {name!r} has no value", vstart)
            if "\n" in value:
                self.spanning = (name, vstart)
            if name in CALL_ATTRS and value[0] == "{" and _COMP_LIST_RE.fullmatch(value) is None:
                self.read_inline_computation(name, vstart, e)
            if name in attrs:
                raise _Fail(f"duplicate attribute {name!r} in {where}", m.start(1))
            # Real modules repeat attribute texts (metadata of one source
            # line, dimensions={0}, to_apply=%add): one string per text.
            shared = seen.get(value)
            if shared is None:
                if len(seen) >= _SEEN_VALUES_LIMIT:
                    seen.clear()  # bounded: a module of unique texts gains nothing
                seen[value] = value
            else:
                value = shared
            attrs[name] = value
            pos = e

    # ---- module ------------------------------------------------------------
    def parse(self) -> Module:
        text = self.text
        pos = self.skip_trivia(0)
        m = _MODULE_RE.match(text, pos)
        if m is None:
            raise _Fail("expected 'HloModule <name>' at the start of the module", pos)
        module = Module(m.group(1), "hlo", source=text, path=self.path)
        module.dialect_data["header_colon"] = m.group(2)
        header_attrs: dict[str, str] = {}
        pos = self.read_attributes(m.end(), header_attrs, "the module header")
        pos = self.expect_line_end(pos, "after the module header")
        module.attributes.update(header_attrs)
        module.dialect_data["header_span"] = (m.start(), pos)
        tables: list[tuple[str, list[tuple[int, str]], tuple[int, int]]] = []
        module.dialect_data["stack_tables"] = tables
        comps: list[Computation] = []
        entry: Computation | None = None
        self.all_instructions: list[Instruction] = []
        # (instruction, attribute, the computations' names as written or the inline computation)
        self.call_refs: list[tuple[_ParsedOp, str, str | Computation]] = []
        self.percent: bool | None = None
        while True:
            pos = self.skip_trivia(pos)
            if pos >= len(text):
                break
            word = _NAME_RE.match(text, pos)
            if word is not None and word.group() in _STACK_TABLES:
                pos = self.read_stack_table(word.group(), word.end(), tables)
                continue
            comp, is_entry, pos = self.read_computation(pos, module)
            for inline in self.inline_pending:
                module.computations[inline.name] = inline
                inline.module = module
            self.inline_pending.clear()
            if comp.name in module.computations:
                raise _Fail(f"duplicate computation name {comp.name!r}", comp.dialect_data["span"][0])
            module.computations[comp.name] = comp
            comp.module = module
            self.comp_names.add(comp.name)
            comp.dialect_data["gap"] = (comps[-1].dialect_data["span"][1] if comps else comp.dialect_data["span"][0],
                                        comp.dialect_data["span"][0])
            comps.append(comp)
            if is_entry:
                if entry is not None:
                    raise _Fail("more than one ENTRY computation", comp.dialect_data["span"][0])
                entry = comp
        if not comps:
            raise _Fail("module has no computations", len(text))
        module.entry = entry if entry is not None else comps[-1]
        module.dialect_data["trailer"] = comps[-1].dialect_data["span"][1]
        module.dialect_data["head"] = comps[0].dialect_data["span"][0]  # where the header text ends
        module.dialect_data["percent"] = bool(self.percent)
        self.link_calls(module)
        if "inferred" in self.shape_kinds or "derived" in self.shape_kinds:
            infer_shapes(module)
        return module

    def expect_line_end(self, pos: int, where: str) -> int:
        m = _LINE_END_RE.match(self.text, pos)
        if m is None:
            raise _Fail(f"unexpected text {where}: {self.text[pos:pos + 20]!r}", pos)
        return m.end()

    def read_stack_table(self, name: str, pos: int, tables: list[Any]) -> int:
        text = self.text
        entries: list[tuple[int, str]] = []
        start = pos - len(name)
        pos = self.expect_line_end(pos, f"after {name}")
        while True:
            p = self.skip_trivia(pos)
            m = _TABLE_ENTRY_RE.match(text, p)
            if m is None:
                break
            vstart = m.end()
            if not text.startswith(("\"", "{"), vstart):
                raise _Fail(f"{name} entries are: <id> \"string\" or <id> {{...}}", vstart)
            e = self.scan_value(vstart)
            try:
                number = to_int(m.group(1), 0, INT64_MAX, f"{name} id")
            except NumberError as err:
                raise _Fail(err.reason, p) from None
            entries.append((number, text[vstart:e].rstrip()))
            pos = self.expect_line_end(e, f"in {name}")
        tables.append((name, entries, (start, pos)))
        return pos

    # ---- computations --------------------------------------------------------
    def read_computation(self, pos: int, module: Module) -> tuple[Computation, bool, int]:
        text = self.text
        m = _COMP_HEAD_RE.match(text, pos)
        if m is None or m.group(3) in ("ROOT",):
            raise _Fail("expected a computation: [ENTRY] name [(params) -> shape] {", pos)
        head_start = pos
        is_entry = bool(m.group(1))
        name = m.group(3)
        if self.percent is None:
            self.percent = bool(m.group(2))
        comp = Computation(name, line=self._line_of(pos), column=pos - text.rfind("\n", 0, pos))
        p = m.end()
        signature = None
        if text.startswith("(", p):
            e = self.scan_value(p + 1, in_parens=True)
            sig_params = text[p:e + 1]
            p = self.skip_trivia(e + 1)
            if not text.startswith("->", p):
                raise _Fail("expected '->' and the result shape after the parameter list", p)
            p = self.skip_trivia(p + 2)
            rs = p
            if text.startswith(("(", "b("), p):
                p = self.scan_value(text.index("(", p) + 1, in_parens=True) + 1
            else:
                sm = STRICT_ARRAY_SHAPE_RE.match(text, p)
                if sm is None:
                    raise _Fail("expected the computation's result shape", p)
                p = sm.end()
            self.shape_at(text[rs:p], rs)
            signature = (sig_params, text[rs:p])
            p = self.skip_trivia(p)
        if not text.startswith("{", p):
            raise _Fail(f"expected '{{' to open computation {name!r}", p)
        comp.dialect_data["signature"] = signature
        comp.dialect_data["entry"] = is_entry
        p = self.read_body(comp, p + 1, head_start)
        comp_attrs: dict[str, str] = {}
        p = self.read_attributes(p, comp_attrs, f"computation {name!r}")
        comp.dialect_data["attrs"] = comp_attrs
        comp.dialect_data["span"] = (head_start, p)
        return comp, is_entry, p

    def read_body(self, comp: Computation, p: int, head_start: int) -> int:
        """Instructions from just after '{' to the closing '}'; returns the end."""
        text = self.text
        name = comp.name
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise _Fail("computations or instructions nested too deeply", p)
        body_start = p
        by_name: dict[str, _ParsedOp] = {}
        operand_names: list[Sequence[_Operand]] = []
        instrs: list[_ParsedOp] = []
        root: Instruction | None = None
        saved_nested = self.nested_pending
        self.nested_pending = []
        trivia = _trivia_at
        n = len(text)
        while True:
            q = trivia(text, p).end()
            if q >= n:
                hint = ""
                if self.spanning is not None:
                    # An attribute value that ran over lines took the '}' along (a bracket of
                    # it not closed on its line): say where.
                    key, at = self.spanning
                    hint = f"; the value of {key} at {self.where(at)} runs over several lines"
                raise _Fail(f"unexpected end of input: computation {name!r} (opened at {self.where(head_start)}) "
                            f"is not closed with '}}'{hint}", len(text))
            if text[q] == "}":
                p = q + 1
                break
            instr, names, p, is_root = self.read_instruction(q, p)
            last_next = p
            if self.nested_pending:
                for nested in self.nested_pending:
                    if nested.name in by_name:
                        raise _Fail(f"duplicate instruction name {nested.name!r}", nested.span[0])
                    by_name[nested.name] = nested
                    nested.computation = comp
                    instrs.append(nested)
                    operand_names.append(nested.dialect_data.pop("operand_names"))
                self.nested_pending = []
            if instr.name in by_name:
                raise _Fail(f"duplicate instruction name {instr.name!r}", q)
            by_name[instr.name] = instr
            instr.computation = comp
            instrs.append(instr)
            operand_names.append(names)
            if is_root:
                if root is not None:
                    raise _Fail(f"computation {name!r} has more than one ROOT", q)
                root = instr
        self.nested_pending = saved_nested
        self.depth -= 1
        if not instrs:
            raise _Fail(f"computation {name!r} has no instructions", head_start)
        comp.instructions = cast("list[Instruction]", instrs)
        comp.root = root if root is not None else instrs[-1]
        comp.dialect_data["body_start"] = body_start
        comp.dialect_data["closing_start"] = q
        comp.dialect_data["root"] = comp.root
        comp.dialect_data["tail_start"] = last_next
        first = instrs[0].span[0]
        comp.dialect_data["indent"] = text[text.rfind("\n", 0, first) + 1:first]
        self.resolve_operands(instrs, operand_names, by_name)
        if self.compact_refs:
            comp.instructions = compact.expand(self, instrs, by_name)
        return p

    def resolve_operands(self, instrs: list[_ParsedOp], operand_names: list[Sequence[_Operand]],
                         by_name: dict[str, _ParsedOp]) -> None:
        for instr, names in zip(instrs, operand_names):
            if not names:
                continue
            try:
                # A comprehension leaves room for four operands on every one-
                # or two-operand list; the copy is sized exactly.
                # Names resolved; a TupleRef stays until compact.expand replaces it.
                ops: list[Any] = [n if n.__class__ is not str else by_name[n] for n in names].copy()
            except KeyError:
                missing = next(n for n in names if n.__class__ is str and n not in by_name)
                start, end = instr.span
                k = self.text.find(missing, self.text.find("(", start, end), end)
                raise _Fail(f"instruction does not exist: {missing!r} is not defined in this computation",
                            k if k >= 0 else start) from None
            start = instr.span[0]
            # A nested instruction is defined where the instruction it is written in starts:
            # a name it uses must come before that one (its own user, by name, is a cycle too).
            outer = (instr._dialect_data or _EMPTY_DIALECT_DATA).get("nested_in")
            defined = start if outer is None else outer.span[0]
            for n, op in zip(names, ops):
                # An operand is defined above its user (XLA's parser looks names up as it reads);
                # one used by itself or further up makes a cycle that no pass can walk.
                if n.__class__ is str and op.span[0] >= defined:
                    k = self.text.find(n, self.text.find("(", start, instr.span[1]), instr.span[1])
                    raise _Fail(f"instruction {n!r} is used before its definition"
                                + (" (by itself)" if op is instr else
                                   " (by an instruction nested in it)" if op is outer else f" (line {op.line})"),
                                k if k >= 0 else start)
            instr.operands = ops

    def note_missing_shape(self, opcode: str, pos: int) -> None:
        # XLA rejects a missing shape where it has no rule to build one, even
        # for ops (send, slice) whose shape follows from the operands.
        if opcode in NO_INFERENCE:
            raise _Fail(f"cannot infer shape for opcode: {opcode}", pos)
        self.shape_kinds.add("inferred")

    def shape_at(self, shape_text: str, pos: int) -> Shape:
        try:
            return parse_shape(shape_text)
        except ShapeError as e:
            raise _Fail(str(e), pos + e.offset) from None

    # ---- instructions --------------------------------------------------------
    def read_instruction(self, pos: int, lead: int) -> tuple[_ParsedOp, Sequence[_Operand], int, bool]:
        text = self.text
        w = _WHOLE_INSTR_RE.match(text, pos)
        if w is not None:
            whole = self.read_whole_line(w, pos, lead)
            if whole is not None:
                return whole
        m = _FAST_INSTR_RE.match(text, pos)
        if m is not None:
            is_root = m.group(1) is not None
            if self.percent is None:
                self.percent = bool(m.group(2))
            name = m.group(3)
            shape_text = m.group(4)
            shape_pos = m.start(4)
            opcode = m.group(5)
            p = m.end()
        else:
            is_root, name, shape_text, shape_pos, opcode, p = self.read_head(pos)
        if shape_text:
            shape = self.shape_at(shape_text, shape_pos)
        else:
            shape = INFERRED_SHAPE
        source_op = _OPCODE_STR.get(opcode) or intern(opcode)
        opcode = self.opcode_of(source_op, p)
        if not shape_text:
            self.note_missing_shape(opcode, p - 1)
        elif opcode in DERIVED:
            self.shape_kinds.add("derived")
        attrs: dict[str, Any] = {}
        close, names = self.read_operands(p, opcode, attrs)
        end = self.read_attributes(close + 1, attrs, f"instruction {name!r}")
        for key in attrs:
            if key in CALL_ATTRS or (key in SELECT_SCATTER_CALLS and opcode == "select-and-scatter"):
                self.call_refs_pending.append(key)
        line_end = _LINE_END_RE.match(text, end)
        # Several instructions may share a line; the next one starts right here.
        next_pos = end if line_end is None else line_end.end()
        attributes = Attributes.of_source(attrs, self.decoder)
        instr = _ParsedOp(
            name, opcode, shape, None, attributes, source_op=source_op,
            line=self._line_of(pos), column=pos - text.rfind("\n", 0, pos), span=(pos, end),
        )
        # The printer finds the end of the line again from span[1] (see
        # printer._line_end) rather than every instruction storing it.
        instr.lead = lead
        for nested in self.nested_pending:
            if nested.dialect_data.get("nested_in") is None:
                nested.dialect_data["nested_in"] = instr
        if self.call_refs_pending:
            self.link_pending_calls(instr)
        return instr, names, next_pos, is_root

    # The two steps of ``read_instruction`` between its head and its attributes, methods of
    # their own so that it reads as the steps it takes (two calls an instruction off the
    # whole-line path: measured with benchmarks/real_text.py).
    def opcode_of(self, source_op: str, p: int) -> str:
        """The opcode an instruction's written opcode (``source_op``, ending before ``p``'s
        '(') stands for: itself, or the op an async sugar (``all-gather-start``...) is."""
        if source_op in OPCODES:
            return source_op
        sugar = async_sugar(source_op)
        if sugar is None:
            if self.strict or known_invalid(source_op):
                raise _Fail(_unknown_opcode(source_op), p - len(source_op) - 1)
            return source_op
        return sugar[0]

    def read_operands(self, p: int, opcode: str, attrs: dict[str, Any]) -> tuple[int, Sequence[_Operand]]:
        """The operand list after the '(' before ``p``: its ')' and its names; a parameter's
        number and a constant's literal go into ``attrs`` instead."""
        text = self.text
        om2 = _SIMPLE_OPERANDS_RE.match(text, p)
        typed = None
        if om2 is not None:
            close = om2.end() - 1
        elif opcode != "constant" and opcode != "parameter" and (typed := self.typed_operands(p)) is not None:
            close = typed[1]
        else:
            try:
                close = self.scan_value(p, in_parens=True)
            except _Fail as f:
                raise self.unclosed_operands(p, opcode, f) from None
        names: Sequence[_Operand] = []
        if typed is not None:
            names = typed[0]
        elif opcode == "parameter":
            num = text[p:close].strip()
            if not num.isdigit():
                raise _Fail("parameter expects its number: parameter(N)", p)
            attrs["parameter_number"] = num
        elif opcode == "constant":
            lit = text[p:close].strip()
            if not lit:
                raise _Fail("constant expects a literal", p)
            attrs["literal"] = lit
        elif close > p:
            names = self.operand_names(p, close, om2 is not None)
        return close, names

    def read_whole_line(self, w: re.Match[str], pos: int, lead: int) -> tuple[_ParsedOp, list[str], int, bool] | None:
        """``read_instruction`` for a line ``_WHOLE_INSTR_RE`` took whole (``w``), or None where
        the line needs the general path (a constant's or parameter's contents, an opcode the
        parser does not know, a duplicate attribute, a called computation written inline):
        what the general path makes of the same line."""
        root, percent, name, shape_text, opcode, operands, tail = w.group(1, 2, 3, 4, 5, 6, 7)
        opcode = _OPCODE_STR.get(opcode)
        if opcode is None:
            return None
        attrs: dict[str, Any] = {}
        names: list[str] = []
        if opcode == "parameter":
            operands = operands.strip()
            if not operands.isdigit():
                return None
            attrs["parameter_number"] = operands
        elif opcode == "constant":
            operands = operands.strip()
            if not operands:
                return None
            attrs["literal"] = operands
        elif operands:
            if _NAME_LIST_RE.fullmatch(operands) is None:
                return None
            names = _NAME_RE.findall(operands)
        if tail:
            seen = self.seen_values
            for key, value in _ATTR_PAIR_RE.findall(tail):
                key = intern(key)
                if key in attrs or key in CALL_ATTRS and value[0] == "{":
                    return None
                shared = seen.get(value)
                if shared is None:
                    if len(seen) >= _SEEN_VALUES_LIMIT:
                        seen.clear()
                    seen[value] = value
                else:
                    value = shared
                attrs[key] = value
                if key in CALL_ATTRS or (key in SELECT_SCATTER_CALLS and opcode == "select-and-scatter"):
                    self.call_refs_pending.append(key)
        text = self.text
        if self.percent is None:
            self.percent = bool(percent)
        try:
            shape = parse_shape(shape_text)
        except ShapeError as e:
            raise _Fail(str(e), w.start(4) + e.offset) from None
        if opcode in DERIVED:
            self.shape_kinds.add("derived")
        end = w.end()
        instr = _ParsedOp.parsed(name, opcode, opcode, shape, [], Attributes.of_source(attrs, self.decoder),
                                 self._line_of(pos), pos - text.rfind("\n", 0, pos), (pos, end), 1, None)
        instr.lead = lead
        if self.call_refs_pending:
            self.link_pending_calls(instr)
        return instr, names, end + 1 if end < len(text) else end, root is not None

    def unclosed_operands(self, p: int, opcode: str, f: _Fail) -> _Fail:
        """The failure of an operand list (from just after its '(' at ``p``) that ran past its line
        without closing: said where the ')' is missing, at the end of that line, as XLA does."""
        end = self.line_end(p)
        if f.pos <= end:
            return f
        return _Fail(f"expected ')' at the end of the operands of {opcode} (the list opened at "
                     f"{self.where(p - 1)})", end)

    def read_head(self, pos: int) -> tuple[bool, str, str, int, str, int]:
        """``[ROOT] name = shape opcode(`` in the forms the fast pattern of
        ``read_instruction`` does not take (a tuple shape, no shape, odd spacing):
        (is_root, name, shape text, its offset, opcode, offset after the '(')."""
        text = self.text
        h = _INSTR_HEAD_RE.match(text, pos)
        if h is None:
            raise _Fail("expected an instruction: [ROOT] name = shape opcode(operands), attributes", pos)
        p = h.end()
        bare = None if text.startswith(("(", "b("), p) else _OPCODE_RE.match(text, p)
        if bare is not None:
            # No shape written: XLA infers it; we keep it unknown.
            e = p
        elif text.startswith("(", p) or text.startswith("b(", p):
            e = self.scan_value(text.index("(", p) + 1, in_parens=True) + 1
        else:
            sm = ARRAY_SHAPE_RE.match(text, p)
            if sm is None:
                nm = _NAME_RE.match(text, p)
                if nm and _OPCODE_RE.match(text, nm.end()) is None:
                    raise _Fail("expected a shape such as f32[2,3]{1,0}", p)
                raise _Fail("expected the instruction's shape before the opcode", p)
            e = sm.end()
        om = bare if e == p else _OPCODE_RE.match(text, e)
        if om is None:
            raise _Fail("expected an opcode followed by '('", self.skip_trivia(e))
        return h.group(1) is not None, h.group(3), text[p:e], p, om.group(1), om.end()

    def link_pending_calls(self, instr: _ParsedOp) -> None:
        """Record the computations ``instr``'s attributes call (linked once all are read);
        an inline ``to_apply={...}`` is the computation itself."""
        for key in self.call_refs_pending:
            inline = self.inline_for_attr.pop(key, None)
            if inline is not None:
                instr.dialect_data.setdefault("inline_calls", {})[key] = inline
                instr.attributes.set_decoded(key, inline.name)
                inline.parent = None
                self.call_refs.append((instr, key, inline))
            else:
                self.call_refs.append((instr, key, _source_texts(instr.attributes)[key]))
        self.call_refs_pending.clear()

    def typed_operands(self, pos: int) -> tuple[list[str], int] | None:
        """Names and closing ')' of ``f32[2]{0} %a, f32[2]{0} %b)``, or None.

        Some producers (torch-xla, older XLA) write every operand with its
        shape; the general path splits such lists with a bracket counter and
        costs a third of the parse there.  Anything else (tuple shapes,
        comments, nested instructions, a bad shape) returns None and takes the
        general path, which also reports the errors.
        """
        text = self.text
        match = _TYPED_OPERAND_RE.match
        names = []
        while True:
            m = match(text, pos)
            if m is None:
                return None
            shape_text = m.group(1)
            if shape_text is not None:
                try:
                    parse_shape(shape_text)
                except ShapeError:
                    return None
            names.append(m.group(2))
            pos = m.end()
            if text[pos - 1] == ")":
                return names, pos - 1

    def operand_names(self, start: int, end: int, simple: bool) -> list[_Operand]:
        text = self.text
        if simple:
            # One pattern checks the whole list; findall then cuts the names.
            if _NAME_LIST_RE.fullmatch(text, start, end) is not None:
                return _NAME_RE.findall(text, start, end)
            out: list[_Operand] = []
            at = start
            for raw in text[start:end].split(","):
                piece = raw.strip()
                if not piece:
                    # (Where the name is missing: the ',' or ')' that follows.)
                    nxt = at + len(raw)
                    raise _Fail(f"expected an operand name, found {text[nxt]!r}", nxt)
                at += len(raw) + 1
                if piece.startswith("%"):
                    piece = piece[1:]
                if _NAME_RE.fullmatch(piece) is None:
                    k = text.find(piece, start, end)
                    ref = compact.read_ref(piece, max(k, start)) if piece else None
                    if ref is None:
                        raise _Fail(f"cannot parse operand {piece!r} as an instruction name", max(k, start))
                    self.compact_refs = True
                    out.append(ref)
                    continue
                out.append(piece)
            return out
        out = []
        top = self.jumps is None
        if top:
            # Nested instructions split their own operands again, level by level:
            # with every bracket pair matched once up front, each level jumps over
            # the groups inside it instead of scanning them (linear, not depth x size).
            self.jumps = self.bracket_jumps(start, end)
        try:
            for s, e in self.split_top_level(start, end):
                piece = _strip_comments(text[s:e]).strip()
                if not piece:
                    raise _Fail("empty operand", s)
                if piece.endswith(")"):
                    out.append(self.read_nested(s, e))
                    continue
                last = piece.rsplit(None, 1)[-1]
                if len(last) != len(piece):
                    shape_part = piece[: len(piece) - len(last)].strip()
                    self.shape_at(shape_part, s)
                om = _OPERAND_NAME_RE.fullmatch(last)
                if om is None:
                    k = max(text.find(last, s, e), s)
                    ref = compact.read_ref(last, k)
                    if ref is None:
                        raise _Fail(f"cannot parse operand {last!r} as an instruction name", k)
                    self.compact_refs = True
                    out.append(ref)
                    continue
                out.append(om.group(1))
        finally:
            if top:
                self.jumps = None
        return out

    def bracket_jumps(self, start: int, end: int) -> dict[int, int]:
        """Position of each '(', '{', '[' in text[start:end] → position of its closing bracket."""
        text = self.text
        jumps: dict[int, int] = {}
        stack: list[int] = []
        closing = {")": "(", "}": "{", "]": "["}
        pos = start
        while True:
            m = _DELIM_RE.search(text, pos, end)
            if m is None:
                return jumps
            i = m.start()
            c = text[i]
            if c == '"':
                m2 = _STRING_REST_RE.match(text, i + 1, end)
                pos = m2.end() if m2 is not None else end
            elif c == "/":
                j = text.find("\n" if text.startswith("//", i) else "*/", i + 2, end)
                pos = end if j < 0 else j + (1 if text.startswith("//", i) else 2)
            elif c in "({[":
                stack.append(i)
                pos = i + 1
            elif c in ")}]":
                # Only pairs of one kind: a mismatch is left to the scanners, which report it.
                if stack and text[stack[-1]] == closing[c]:
                    jumps[stack.pop()] = i
                elif stack:
                    stack.pop()
                pos = i + 1
            else:
                pos = i + 1

    def read_inline_computation(self, key: str, start: int, end: int) -> None:
        """A computation written as the value of ``to_apply=`` etc.

        XLA names it ``_`` (made unique); it is placed before the computation
        that uses it, as XLA prints callees first.
        """
        name = "_"
        k = 0
        while name in self.comp_names:
            k += 1
            name = f"_.{k}"
        self.comp_names.add(name)
        comp = Computation(name, line=self._line_of(start), column=start - self.text.rfind("\n", 0, start))
        p = self.read_body(comp, start + 1, start)
        if self.skip_trivia(p) < end:
            raise _Fail("unexpected text after an inline computation", p)
        comp.dialect_data.update(signature=None, entry=False, attrs={}, inline=True, span=None)
        self.inline_pending.append(comp)
        self.inline_for_attr[key] = comp

    def read_nested(self, start: int, end: int) -> _ParsedOp:
        """An instruction written as an operand: ``[shape] opcode(operands)``.

        XLA names these ``<opcode>.anon`` (then ``.anon.1``, ...); so do we,
        so that XLA reads our regenerated text to the same module.
        """
        text = self.text
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise _Fail("instructions nested too deeply", start)
        p = self.skip_trivia(start)
        om = _OPCODE_RE.match(text, p)
        if om is not None and not text.startswith(("(", "b("), p):
            shape_text, shape_pos = "", p
        else:
            shape_pos = p
            if text.startswith(("(", "b("), p):
                e = self.scan_value(text.index("(", p) + 1, in_parens=True) + 1
            else:
                sm = ARRAY_SHAPE_RE.match(text, p)
                if sm is None:
                    raise _Fail("cannot parse as an instruction name or as a nested instruction", p)
                e = sm.end()
            shape_text = text[p:e]
            om = _OPCODE_RE.match(text, e)
            if om is None:
                raise _Fail("cannot parse as an instruction name or as a nested instruction", p)
        opcode = om.group(1)
        source_op = opcode
        if opcode not in OPCODES:
            sugar = async_sugar(opcode)
            if sugar is None:
                if self.strict or known_invalid(opcode):
                    raise _Fail(_unknown_opcode(opcode), om.start(1))
            else:
                opcode = sugar[0]
        q = om.end()
        close = self.jumps.get(q - 1) if self.jumps is not None else None
        if close is None or close >= end:
            close = self.scan_value(q, in_parens=True)
        if self.skip_trivia(close + 1) < end:
            raise _Fail("unexpected text after a nested instruction", close + 1)
        attrs: dict[str, Any] = {}
        names: list[Any] = []
        inside = text[q:close].strip()
        if opcode == "parameter":
            if not inside.isdigit():
                raise _Fail("parameter expects its number: parameter(N)", q)
            attrs["parameter_number"] = inside
        elif opcode == "constant":
            attrs["literal"] = inside
        elif inside:
            names = self.operand_names(q, close, False)
        base = f"{opcode}.anon"
        name = base
        k = 0
        while name in self.anon_names:
            k += 1
            name = f"{base}.{k}"
        self.anon_names.add(name)
        if shape_text:
            shape = self.shape_at(shape_text, shape_pos)
            if opcode in DERIVED:
                self.shape_kinds.add("derived")
        else:
            shape = INFERRED_SHAPE
            self.note_missing_shape(opcode, om.end() - 1)
        attributes = Attributes.of_source(attrs, self.decoder)
        instr = _ParsedOp(name, opcode, shape, None, attributes, source_op=source_op,
                          line=self._line_of(p), column=p - text.rfind("\n", 0, p), span=(p, close + 1))
        instr.dialect_data = {"nested": True, "operand_names": names}
        self.nested_pending.append(instr)
        self.depth -= 1
        return instr

    # ---- module-level linking ------------------------------------------------
    def link_calls(self, module: Module) -> None:
        comps = module.computations
        for instr, key, raw in self.call_refs:
            if isinstance(raw, Computation):
                instr.called_computations.append(raw)
                continue
            names = _computation_names(raw)
            if names is None:
                raise self_fail_at(self, instr, f"bad computation reference {raw!r} in {key}", raw)
            for n in names:
                callee = comps.get(n)
                if callee is None:
                    raise self_fail_at(self, instr, f"computation does not exist: {n!r} ({key})", n)
                instr.called_computations.append(callee)


def self_fail_at(parser: _HloParser, instr: _ParsedOp, reason: str, needle: str) -> _Fail:
    pos = instr.span[0]
    k = parser.text.find(needle, instr.span[0], instr.span[1])
    return _Fail(reason, k if k >= 0 else pos)


_COMP_LIST_RE = re.compile(r"\{\s*(%?" + _NAME + r"(?:\s*,\s*%?" + _NAME + r")*)?\s*\}")
_COMP_ONE_RE = re.compile(r"%?(" + _NAME + r")")


def _computation_names(raw: str) -> list[str] | None:
    m = _COMP_ONE_RE.fullmatch(raw)
    if m is not None:
        return [m.group(1)]
    m = _COMP_LIST_RE.fullmatch(raw)
    if m is None:
        return None
    if m.group(1) is None:
        return []
    return [p.strip().lstrip("%") for p in m.group(1).split(",")]


_COMMENT_RE = re.compile(r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/|//[^\n]*")


def _cut_short(text: str, pos: int) -> bool:
    """Whether a failure at ``pos`` looks like the text ending early: it is on the last line,
    which does not end the module (no newline after it, no closing '}' on or after it)."""
    return "\n" not in text[pos:] and "}" not in text[pos:] and not text.endswith("\n")


def _strip_comments(s: str) -> str:
    return _COMMENT_RE.sub(" ", s) if "/*" in s else s


def validate_module(module: Module, parser: _HloParser) -> None:
    """Decode every attribute, shape and header value with the grammar."""
    text = parser.text
    h0, h1 = module.dialect_data["header_span"]
    for key, raw in module.attributes.items():
        try:
            check_attribute(key, raw)
        except AttributeDecodeError as e:
            k = text.find(raw, h0, h1)
            raise _Fail(f"bad module attribute {key}: {e.reason}", (k if k >= 0 else h0) + e.offset) from None
    for name, entries, (s, t_end) in module.dialect_data["stack_tables"]:
        for _, value in entries:
            if value.startswith("{"):
                try:
                    parse_tree("metadata", value, verdict_only=True)
                except AttributeDecodeError as err:
                    k = text.find(value, s, t_end)
                    raise _Fail(f"bad {name} entry: {err.reason}", max(k, s) + err.offset) from None
    seen_shapes: set[str] = set()
    # Every instruction is still the parser's own.
    for instr in cast("Iterator[_ParsedOp]", module.instructions()):
        stext = instr.shape.text
        if stext and stext not in seen_shapes:
            seen_shapes.add(stext)
            try:
                parse_tree("shape", stext, verdict_only=True)
            except AttributeDecodeError as err:
                raise parser.error_at_instruction(instr, f"bad shape {stext}: {err.reason}", stext) from None
        attrs = instr.attributes
        for key, raw in list(attrs.source_texts().items()):
            if key not in KNOWN_ATTRIBUTES and key != "parameter_number":
                k = text.find(key + "=", *instr.span)
                raise _Fail(f'unexpected attribute "{key}" for {instr.source_op}: ' + NEWER_XLA,
                            k if k >= 0 else instr.span[0])
            if raw is None or key == "parameter_number" or key in (instr._dialect_data or _EMPTY_DIALECT_DATA).get("inline_calls", ()):
                continue
            try:
                value = check_attribute(key, raw)
            except AttributeDecodeError as err:
                start, end = instr.span
                k = text.find(raw, start, end)
                raise _Fail(f"bad {key}: {_with_hint(err.reason)}", (k if k >= 0 else start) + err.offset) from None
            if key == "replica_groups" and getattr(value, "form", None) == "explicit" and () in value.groups:
                # {{}}: a group of no devices (the verifier would divide by its size).
                start, end = instr.span
                k = text.find(raw, start, end)
                raise _Fail("bad replica_groups: a replica group is empty", k if k >= 0 else start)
            attrs.set_decoded(key, value)
    # Result-shape rules (ir/verify.py) run after this, as findings rather than
    # errors: XLA's parser does not apply them, and real test inputs break
    # them on purpose.


def _unknown_opcode(opcode: str) -> str:
    reason = f"expects opcode but sees: {opcode}, error: Unknown opcode: {opcode}"
    return reason if known_invalid(opcode) else f"{reason}: {NEWER_XLA}"


def _with_hint(reason: str) -> str:
    """A value the grammar cannot read at all may be a spelling of a newer XLA."""
    return f"{reason}: {NEWER_XLA}" if reason.startswith("unexpected") else reason


def unknown_constructs(module: Module) -> list[tuple[str, str, int, int]]:
    """(``opcode`` or ``attribute``, name, line, column) of what an HLO module holds
    that the parser does not know and carried through as text (``validate=False``)."""
    out = []
    for instr in module.instructions():
        if instr.opcode not in OPCODES and async_sugar(instr.source_op) is None:
            out.append(("opcode", instr.source_op, instr.line, instr.column))
        for key in instr.attributes.source_texts():
            if key not in KNOWN_ATTRIBUTES and key != "parameter_number":
                out.append(("attribute", key, instr.line, instr.column))
    return out
