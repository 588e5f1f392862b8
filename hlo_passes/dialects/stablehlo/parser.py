"""StableHLO / MLIR text → the module graph (``ir.Module``).

Speed comes from never building a parse tree on the fast path: one regular
expression tokenizes the whole text (a linear scan), and a bracket-counting
scanner walks the tokens op by op.  It understands the *structure* every MLIR
op shares (results, operands, regions, blocks, attribute dictionaries, type
signature, location), in both the generic form and the pretty forms JAX and
the StableHLO tools print, without knowing each op's custom syntax.  Values
are cut out as source text; ``attrs`` decodes them with the lark grammar
(``attrs.lark``) when a pass asks, or all of them up front with
``validate=True``.

Most lines of a large module are whole ops of a few shapes (the same op and
attributes; other names, types and locations).  The tokenizer takes such a
line as one match (a line-op token); the parser scans the first line of a
shape by tokens where it stands and makes the shape's template of the result,
and builds every later one from the template plus its own names, types and
positions (``parse_line_op``), which is what makes large modules fast.  A
line-op token that turns out not to be a whole op (or a bad text) sends the
parse back to the start, on tokens only: the token scanner is the reference,
and tests/test_stablehlo_line_ops.py holds both ways to the same result.

What each op keeps for the printer (``Instruction.dialect_data``):
``results`` (SSA names and counts), ``generic`` (source form), ``entries``
(MLIR attribute entries: name, value text, place), ``opnd_pos`` / region
spans (to re-print a pretty op with new operands), ``loc``, ``pre`` (the text
between the previous op and this one: indentation, comments, block labels).
"""
from __future__ import annotations

import re
import sys
from bisect import bisect_left
from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast


from ...errors import ParseError
from ...ir import Attributes, Computation, Instruction, Module, Shape
from . import attrs as A
from .lexer import (_BARG_PARTS, MARKS, ALIAS, ARROW, BANG, BARG, BLK, DICT, EOF, G_LINE, HASH, ID, L_LOC,
                         L_OP, L_RES, L_REST, L_SIG, LINE, LOC, NL, NUM, SIG, STR, SYM, TYPE, VAL, MlirLexer)
from .dialect_ops import is_unknown_op
from .types import hlo_element_type
from ..split import split_top_level
from ..ints import INT64_MAX, INT64_MIN, NumberError, to_int
from ..._gc import collector_paused

if TYPE_CHECKING:
    class _ParsedOp(Instruction):
        """An op as this parser makes it (``Instruction.parsed``): its span and dialect data
        are always set, which ``Instruction``'s Optional fields do not tell the type checker.
        A name for the checker only (no checks, no cost): at run time it is ``Instruction``."""
        span: tuple[int, int]
        _dialect_data: dict[str, Any]
else:
    _ParsedOp = Instruction
# A block-argument token is a match of the pattern: matched again, never None.
_barg_parts = cast("Callable[[str, int, int], re.Match[str]]", _BARG_PARTS.match)

# Operand names inside a one-line op; what lies between them is the op's shape.
_VAL_SPLIT = re.compile(r'(%[\w$.\-]+(?:\#\d+)?)')
# What a one-line op's dialect_data may hold for its template to stand for
# every line of the same shape.
_LINE_KEYS = frozenset(("results", "generic", "entries", "strs", "sym", "colon", "loc", "region_spans",
                        "words", "simple", "body_start", "sig", "result_types", "opnd_pos"))
MAX_DEPTH = 120
# What cannot follow a ',' among an op's operands (``%a, : type``): an operand is missing there.
_NO_OPERAND_AFTER_COMMA = frozenset((":", ")", "]", "}", ">", EOF))
_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = {")": "(", "]": "[", "}": "{", ">": "<"}


# ---- types → Shape ------------------------------------------------------------
_SHAPES: dict[str, Shape] = {}
_DIMS_RE = re.compile(r"((?:(?:\d+|\?)x)*)(.*)$", re.S)


def shape_of(t: str) -> Shape:
    """Shape of an MLIR type text; cached, since programs repeat few types."""
    s = _SHAPES.get(t)
    if s is not None:
        return s
    if t.startswith("tensor<") and t.endswith(">"):
        parts = split_top_level(t[7:-1]) or [""]  # tensor<> has an empty body
        body = parts[0]
        if body.startswith("*x"):
            s = Shape(hlo_element_type(body[2:]), (), (), text=t)
        else:
            m = _DIMS_RE.match(body)
            assert m is not None, "(.*)$ matches every text"
            dims_txt = m.group(1)[:-1].split("x") if m.group(1) else []
            bounds: list[str] = []
            if len(parts) > 1 and "bounds<" in parts[1]:
                b = parts[1]
                bounds = [x.strip() for x in b[b.index("<") + 1:b.rindex(">")].split(",")]
            dims, dyn = [], []
            for k, d in enumerate(dims_txt):
                if d == "?":
                    bd = bounds[k] if k < len(bounds) else "?"
                    dims.append(to_int(bd, INT64_MIN, INT64_MAX, "bound") if bd.lstrip("-").isdigit() else -1)
                    dyn.append(True)
                else:
                    dims.append(to_int(d, 0, INT64_MAX, "dimension"))
                    dyn.append(False)
            s = Shape(hlo_element_type(m.group(2).strip()), tuple(dims), tuple(dyn), text=t)
    elif t.startswith("tuple<") and t.endswith(">"):
        inner = t[6:-1].strip()
        members = [shape_of(x) for x in split_top_level(inner)] if inner else []
        s = Shape("tuple", tuple_shapes=tuple(members), text=t)
    else:
        s = Shape(hlo_element_type(t), (), (), text=t)
    if len(_SHAPES) < 100_000:
        _SHAPES[t] = s
    return s


# ---- the scanner ---------------------------------------------------------------
# The shape of an op without results, and every op's until its types are
# read: Shape is frozen, so one instance serves them all.
_NO_RESULTS = Shape("tuple")


# What an SSA name denotes: (defining instruction, its first result index, result count).
# A tuple is made and read faster than an object; the type checker sees its parts.
if TYPE_CHECKING:
    _Value = tuple[Instruction, int, int]
else:
    _Value = tuple


class _LineTemplate:
    """What every one-line op of one shape shares: the dialect_data and
    attributes the token scanner made of one such line, with the places that
    differ from line to line (names, positions, types, location) left to fill in."""

    __slots__ = ("proto", "raw", "opcode", "src_op", "nres", "body_off", "short", "fill", "sym_entry")
    proto: dict[str, Any]
    raw: dict[str, str | None] | None
    opcode: str
    src_op: str
    nres: int
    # Where the op's body starts, from the start of its line's rest (None: it has none).
    body_off: int | None
    short: str
    # Whether a line fills in its colon, its location and its signature's span.
    fill: tuple[bool, bool, bool]
    # The entry of the line's leading @symbol (None: it has none).
    sym_entry: int | None


class _Sig:
    """A one-line op's type signature (the text after its last ' : '), read once per text:
    its form (what the token scanner's checks depend on) and, for an op with or without a
    result, the result types and shape it gives."""

    __slots__ = ("form", "res_types", "shape")

    def __init__(self, form: tuple[Any, ...], res_types: list[str], shape: Shape) -> None:
        self.form, self.res_types, self.shape = form, res_types, shape


def split_function_type(text: str) -> tuple[list[str], list[str], bool]:
    """``(a, b) -> (c, d)`` → operand types, result types, whether the results are
    parenthesised.  The types are ``_TY``s, which hold no comma or blank, so ', ' splits
    the lists."""
    close = text.index(") -> ")
    ops = text[1:close].split(", ") if close > 1 else []
    rest = text[close + 5:]
    paren = rest[0] == "("
    res = (rest[1:-1].split(", ") if len(rest) > 2 else []) if paren else [rest]
    return ops, res, paren


def _read_sig(sig: str, nres: int) -> _Sig | None:
    """The ``_Sig`` of a signature ``_SIG`` matched (None: the token scanner reports what is
    wrong with it).  ``_TY`` holds no comma, so ', ' splits type lists; the form keeps what
    the scanner decides on (function type or list, how many types, parenthesised results,
    token kinds), so that one template stands for every signature of its form."""
    if sig[0] == "(":
        ops, res, paren = split_function_type(sig)
        is_fn = True
    else:
        ops, res, is_fn, paren = [], sig.split(", "), False, False
    if is_fn or nres > 1:
        if len(res) != nres:
            return None
        res_types = res
    else:
        res_types = res[-1:] if nres == 1 else []
    try:
        shape = shape_of(res_types[0]) if nres == 1 and res_types else _NO_RESULTS
    except (ValueError, IndexError):
        return None
    kinds = tuple(t.startswith("tensor<") for t in ops + res)
    return _Sig((is_fn, len(ops), len(res), paren, kinds), res_types, shape)


# Not looked up yet (``_Parser.sigs``, ``_Parser.templates``).
# (Typed Any so that a lookup's result keeps its value type once told apart from it.)
_NOT_READ: Any = object()
# A leading symbol of a one-line op (``func.call @f(``), and a scalar constant's value:
# no part of the line's shape (``_Parser.parse_line_op``).
_SYM_HEAD = re.compile(r" @([\w$.\-]+)\(")
_SCALAR_DENSE = re.compile(r" dense<[-+\w.]+>\Z")
# A line shape whose first line the parser has not read yet (``_Parser.templates``).
_PENDING = object()


class _LineOp(tuple[Any, ...]):
    """The token standing for a whole one-line op: the lexer's match of its line and what
    ``_Parser.line_op`` read from it: ``(m, sig, parts, sym, key, line, res, loc, tmpl)``, the
    template when the lexer saw one (else the parser looks it up: _PENDING then).  A tuple:
    made without a Python-level ``__init__`` (one per line of a large text) and unpacked in
    one step by ``_Parser.parse_line_op``."""

    __slots__ = ()
    # A token kind: hashed and compared as itself, as the object it was (its parts hold lists).
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    m = property(itemgetter(0))
    sig = property(itemgetter(1))
    parts = property(itemgetter(2))
    sym = property(itemgetter(3))
    key = property(itemgetter(4))


# Below this size a text takes no line ops (but coarse tokens): a small text repeats few
# line shapes, and looking for them cost a tenth more than it saved on the StableHLO lit
# tests of the corpus (tests set it to 0 to hold both ways to the same result) ...
LINE_OPS_MIN_CHARS = 100_000
# ... unless its ops name their locations by alias: what MLIR prints for a lowered program
# with debug info, line after line in one printer's forms (line ops were a tenth faster
# on the 10 KB samples of a MoE layer).
_ALIASED_LOC = "loc(#loc"
# A one-line op whose token scan needs more than its line (a line the pattern
# took for a whole op that is not one): the parse starts again on tokens only.
_AGAIN = (ParseError, ValueError, IndexError, KeyError, TypeError, AttributeError, RecursionError)


class _TokensOnly(ValueError):
    """A parse with line ops met a line that must be read in context after all."""


def scan_mode(text: str) -> str:
    """The lexer's scan for a text parsed without ``validate``: "lines" (line ops and coarse
    tokens) or "coarse" (see ``lexer``; tests hold both to the reference, "plain")."""
    return "lines" if len(text) >= LINE_OPS_MIN_CHARS or _ALIASED_LOC in text else "coarse"


class _Parser(MlirLexer):
    """The scanner of ops, regions and functions over the lexer's tokens."""

    def __init__(self, text: str, path: str | None, validate: bool, fast: bool = True) -> None:
        self.validate = validate
        # Templates of one-line ops by shape (None: that shape takes tokens).
        self.templates: dict[tuple[Any, ...], Any] = {}
        # The first line of each shape, by the index of its first token (``line_op``).
        self.first_sight: dict[int, _LineOp] = {}
        # One-line ops' signatures by (text, no result): many lines share one.
        self.sigs: dict[bool, dict[str, _Sig | None]] = {False: {}, True: {}}
        super().__init__(text, path, scan_mode(text) if fast and not validate else "plain")
        self.comps: list[Computation] = []
        self.region_counter = 0
        self.pending: list[tuple[_ParsedOp, int, str, int, list[dict[str, _Value]]]] = []
        self.depth = 0
        self._bind_pos = 0
        self.op_start = 0
        self.func_names: set[str] = set()
        self.line_ops_read = 0
        self.bargs_read = 0
        # Function-type tokens read (``sig_types``): few texts, many ops.
        self.fn_sigs: dict[str, tuple[list[str], list[str]]] = {}

    # -- one-line ops --
    def line_op(self, m: re.Match[str], line: int) -> _LineOp | None:
        """The token for the op line of match ``m`` (of ``_LINE``), or None for its tokens.

        Lines of one shape (same op, same text between the operand names, a signature of
        the same form; a scalar constant's value and a leading ``@symbol`` are no part of
        the shape) parse alike.  The first line of a shape takes tokens where it stands and
        the parser makes the shape's template of what it reads from them (``first_sight``,
        ``parse_op``); every later one is a token the parser fills the template in with
        (``parse_line_op``): its names, types, places and location.
        """
        res, op, rest, sig_text, loc = m.group(L_RES, L_OP, L_REST, L_SIG, L_LOC)
        no_res = res is None
        sigs = self.sigs[no_res]
        sig = sigs.get(sig_text, _NOT_READ)
        if sig is _NOT_READ:
            sig = sigs[sig_text] = _read_sig(sig_text, 0 if no_res else 1)
        if sig is None:
            return None
        parts = _VAL_SPLIT.split(rest)
        head = parts[0]
        sym = None
        if head.startswith(" @"):
            hm = _SYM_HEAD.match(head)
            if hm is not None:
                sym = hm.group(1)
                head = " @(" + head[hm.end():]
        elif op == "stablehlo.constant" and len(parts) == 1 and _SCALAR_DENSE.match(head):
            head = " dense<>"
        key = (no_res, op, sig.form, loc is None, head, *parts[2::2])
        t = self.templates.get(key, _NOT_READ)
        if t is _NOT_READ:
            # Tokens; the op read from them (starting at the next token) makes the template.
            self.templates[key] = _PENDING
            self.first_sight[len(self.k)] = _LineOp((m, sig, parts, sym, key, line, res, loc, None))
            return None
        if t is None:
            return None  # this shape takes tokens
        return _LineOp((m, sig, parts, sym, key, line, res, loc, t))

    def parse_line_op(self, lo: _LineOp, i: int, comp: Computation | None,
                      scope: list[dict[str, _Value]], top: bool) -> tuple[_ParsedOp, int]:
        """``parse_op`` for a one-line op token (token ``i``): its shape's template filled in
        with this line's names, types, places and location, or its own tokens where the shape
        has no template (yet).  The parser's hottest function on a large text."""
        # The token is done with after this; held to the end of the parse, matches were a
        # fifth of its peak memory.
        self.k[i] = LINE
        self.line_ops_read += 1
        m, sig, parts, sym, key, line, res, loc, t = lo
        if t.__class__ is not _LineTemplate:
            t = self.templates[key]
        if t.__class__ is not _LineTemplate:
            instr, j = self.line_by_tokens(m, i, comp, scope, top)
            if t is _PENDING:
                # The shape's first line was read as part of something else (no op there).
                self.templates[key] = _line_template(instr, lo)
            return instr, j
        start, end = self.s[i], self.e[i]
        if res is not None:
            name = res[1:]
            results = [(name, 1)]
        else:
            name = f"{t.short}.L{line}"
            results = []
        dd, raw = self.line_dialect_data(t, m, sig, sym, loc, results)
        rest = m.start(L_REST)
        attributes = Attributes.of_source(raw, None)
        ops: list[Any] = [None] * (len(parts) >> 1)
        instr = _ParsedOp.parsed(name, t.opcode, t.src_op, sig.shape, ops, attributes, line,
                                 start - self.newlines[line - 2], (start, end), t.nres, dd)
        if raw:
            attributes._decode = _Decoder(instr)
        # Operands: names at the offsets of the template's shape, from the line's rest.
        pos = []
        p = rest
        idx = 0
        for n in range(1, len(parts), 2):
            p += len(parts[n - 1])
            ref = parts[n]
            q = p + len(ref)
            pos.append((p, q))
            if "#" not in ref:
                vname = ref[1:]
                for sc in reversed(scope):
                    v = sc.get(vname)
                    if v is not None:
                        ops[idx] = v[0]
                        if v[1]:
                            instr.operand_results[idx] = v[1]
                        break
                else:
                    self.pending.append((instr, idx, ref, p, scope))
            else:
                self._bind_pos = p
                if not self.bind(instr, idx, ref, scope):
                    self.pending.append((instr, idx, ref, p, scope))
            p = q
            idx += 1
        dd["opnd_pos"] = pos
        if res is not None and not top:
            for sc in scope:
                if name in sc:
                    raise self.error_at(f"redefinition of SSA value %{name}", m.start(L_OP))
            scope[-1][name] = (instr, 0, 1)
        if comp is not None:
            instr.computation = comp
            comp.instructions.append(instr)
        return instr, i + 1

    # ``parse_line_op``'s first half, a method of its own so that it reads as the steps it
    # takes: one call a line (the operand loop stays inline; with it a method too, the trainer
    # texts' parse + print measured ~3% slower than before the split).
    def line_dialect_data(self, t: _LineTemplate, m: re.Match[str], sig: Any, sym: str | None, loc: str | None,
                          results: list[tuple[str, int]]) -> tuple[dict[str, Any], dict[str, Any]]:
        """A one-line op's dialect data and raw attributes: its template's, with this line's
        results, signature, location and symbol."""
        # The template's entries, words, strs and result types are shared by
        # every line of its shape (like a clone's, they are never edited in
        # place): a copy each was a twentieth of a large module's memory.
        dd = t.proto.copy()
        dd["results"] = results
        dd["result_types"] = sig.res_types
        has_colon, has_loc, has_sig = t.fill
        if has_colon or has_sig:
            sig_start = m.start(L_SIG)
            if has_colon:
                dd["colon"] = sig_start - 2
            if has_sig:
                dd["sig"] = (sig_start, m.end(L_SIG))
        if has_loc:
            dd["loc"] = loc
        if t.body_off is not None:
            dd["body_start"] = m.start(L_REST) + t.body_off
        raw = t.raw
        if sym is not None:
            # The template's symbol is this line's.
            at = "@" + sym
            dd["sym"] = sym
            entries = dd["entries"] = list(dd["entries"])
            # The template's line had its symbol (the shape says so): its entry and raw
            # attributes are set, which the type checker cannot see.
            hk = entries[t.sym_entry][3]  # type: ignore[index]
            entries[t.sym_entry] = ["@", at, "pretty", hk]  # type: ignore[index]
            raw = raw.copy()  # type: ignore[union-attr]
            raw[hk] = at
        elif raw:
            raw = raw.copy()
        else:
            raw = {}
        return dd, raw

    def line_by_tokens(self, m: re.Match[str], i: int, comp: Computation | None,
                       scope: list[dict[str, _Value]], top: bool) -> tuple[_ParsedOp, int]:
        """The op line of match ``m`` scanned by tokens where it stands (its own token list,
        positions in the text).  A scan that fails or does not end with the line would have
        gone on over the next lines in a parse by tokens: raises ``_TokensOnly``."""
        a, b = m.span(G_LINE)
        (instr, j), own = self.in_own_tokens(a, b, self.sub_pattern, lambda: self.parse_op(0, comp, scope, top))
        if own[j] != NL:
            raise _TokensOnly("a line-op token was not a whole op")
        self.bargs_made += own.count(BARG)
        return instr, i + 1

    def in_own_tokens(self, a: int, b: int, pattern: re.Pattern[str], read: Callable[[], Any]) -> tuple[Any, list[Any]]:
        """``read()`` over the tokens of text[a:b] alone (a newline and the end after them, every
        position in the text), and those token kinds; the parser's own tokens are back after."""
        k, s, e = self.k, self.s, self.e
        lk: list[Any] = []
        ls: list[int] = []
        le: list[int] = []
        self.k, self.s, self.e = lk, ls, le
        try:
            self.line_tokens(a, b, pattern)
            n = len(self.text)
            lk += (NL, EOF, EOF)
            ls += (b, n, n)
            le += (b + 1, n, n)
            return read(), lk
        finally:
            self.k, self.s, self.e = k, s, e

    def shape_in(self, typ: str, lo: int, hi: int) -> Shape:
        """``shape_of(typ)``; a number in it out of range is an error where it is written (in lo..hi)."""
        try:
            return shape_of(typ)
        except NumberError as err:
            k = self.text.find(typ, lo, hi)
            k = self.text.find(err.text, k, hi) if k >= 0 else self.text.find(err.text, lo, hi)
            raise self.error_at(err.reason, k if k >= 0 else lo) from None

    # -- token helpers --
    def tok(self, i: int) -> str:
        return self.text[self.s[i]:self.e[i]]

    def loc_end(self, j: int) -> int:
        """Index after a location starting at ``j``, or -1 if there is none."""
        k = self.k
        if k[j] == LOC:
            return j + 1
        if k[j] == ID and k[j + 1] == "(" and self.tok(j) == "loc":
            return self.skip_balanced(j + 1)
        return -1

    def error(self, reason: str, i: int) -> ParseError:
        pos = self.s[min(i, len(self.s) - 1)]
        return self.error_at(reason, pos)

    def skip_nl(self, i: int) -> int:
        k = self.k
        while k[i] == NL:
            i += 1
        return i

    def opened_at(self, i: int, lo: int = 0) -> str:
        """``line:column`` of the innermost bracket opened before token ``i`` (from token ``lo``)
        and not closed: the place an error about it names (found when it is raised)."""
        k = self.k
        depth = 0
        j = i - 1
        while j > lo:
            kk = k[j]
            if kk.__class__ is str:
                if kk in _CLOSE:
                    depth += 1
                elif kk in _OPEN:
                    if depth == 0:
                        break
                    depth -= 1
            j -= 1
        line, col = self.line_col(self.s[j])
        return f"{line}:{col}"

    def skip_balanced(self, i: int) -> int:
        """Index after the bracket group opened at ``i`` (or the attribute dictionary token there)."""
        k = self.k
        if k[i] == DICT:
            return i + 1
        stack = [k[i]]
        lo = i
        i += 1
        while stack:
            kk = k[i]
            if kk.__class__ is str:
                if kk in _OPEN:
                    stack.append(kk)
                    if len(stack) > 4 * MAX_DEPTH:
                        raise self.error("nesting too deep", i)
                elif kk in _CLOSE:
                    if stack[-1] != _CLOSE[kk]:
                        raise self.error(self.unbalanced(kk, stack[-1], i, lo), i)
                    stack.pop()
            elif kk == EOF:
                raise self.error(self.unclosed(stack[-1], i, lo), i)
            i += 1
        return i

    def unbalanced(self, close: str, open_: str, i: int, lo: int) -> str:
        return (f"unbalanced '{close}' (expected '{_OPEN[open_]}' to close the '{open_}' opened at "
                f"{self.opened_at(i, lo - 1)})")

    def unclosed(self, open_: str, i: int, lo: int) -> str:
        return f"unexpected end of input: the '{open_}' opened at {self.opened_at(i, lo - 1)} is not closed"

    def expect(self, i: int, what: str) -> int:
        if self.k[i] != what:
            raise self.error(f"expected '{what}'", i)
        return i + 1

    def parse_type_at(self, i: int) -> int:
        """Index after one type starting at ``i``."""
        k = self.k
        kk = k[i]
        if kk == SIG:
            return i + 1
        if kk == "(":
            j = self.skip_balanced(i)
            if k[j] == ARROW:
                j += 1
                if k[j] == "(":
                    return self.skip_balanced(j)
                return self.parse_type_at(j)
            return j
        if kk == TYPE:
            return i + 1
        if kk not in (ID, BANG, HASH):
            raise self.error("expected a type", i)
        j = i + 1
        if k[j] == "<" and self.s[j] == self.e[i]:
            j = self.skip_balanced(j)
        return j

    def type_list(self, i: int) -> tuple[list[str], int]:
        """Comma-separated types from ``i``; returns their texts and the index after."""
        out = []
        while True:
            j = self.parse_type_at(i)
            out.append(self.text[self.s[i]:self.e[j - 1]])
            if self.k[j] == "," and self.k[j + 1] in (TYPE, ID, BANG, "("):
                i = j + 1
                continue
            return out, j

    # -- module --
    def parse(self) -> Module:
        k = self.k
        # Made here, not in __init__: a line template's scan needs no module.
        mod = self.module = Module("", "stablehlo", self.text, self.path)
        body: list[Any] = []
        mod.dialect_data["body"] = body
        mod.dialect_data["aliases"] = {}
        i = self.skip_nl(0)
        seen_module = False
        while k[i] != EOF:
            kk = k[i]
            if kk == ALIAS:
                i = self.alias_line(i)
            elif kk in (HASH, BANG) and k[i + 1] == "=":
                i = self.parse_alias(i)
            elif kk == ID and self.tok(i) == "module" and not seen_module:
                seen_module = True
                i = self.parse_module_op(i, body)
            elif kk == STR and self.tok(i) == '"builtin.module"' and not seen_module:
                seen_module = True
                i = self.parse_module_op(i, body)
            elif kk == ID or kk == STR or kk == VAL or kk.__class__ is _LineOp:
                if seen_module:
                    raise self.error("unexpected operation after the module", i)
                mod.dialect_data.setdefault("implicit", True)
                i = self.parse_top_op(i, body)
            else:
                raise self.error("expected an operation, a module or an alias definition", i)
            if k[i] == NL:
                i = self.skip_nl(i)
        if self.line_ops_read != self.line_ops_made or self.bargs_read != self.bargs_made:
            # A line-op token was taken for part of something else (an attribute, a type):
            # that line is no op of its own.
            raise _TokensOnly("a line-op or block-argument token read as something else")
        self.resolve_pending(final=True)
        # The tokens are done with; the graph that finish() builds would
        # otherwise sit on top of them at the parse's peak.
        del self.k, self.s, self.e, self.newlines
        self.templates = {}
        self.sigs = {False: {}, True: {}}
        self.finish()
        return mod

    def parse_alias(self, i: int) -> int:
        name = self.tok(i)
        j = i + 2
        start = self.s[j]
        depth = 0
        k = self.k
        while True:
            kk = k[j]
            if kk == EOF or (kk == NL and depth == 0):
                break
            if kk.__class__ is str:
                if kk in _OPEN:
                    depth += 1
                elif kk in _CLOSE:
                    depth -= 1
                    if depth < 0:
                        raise self.error(f"unbalanced '{kk}'", j)
            j += 1
        if j == i + 2:
            raise self.error("expected a value after '='", j)
        aliases = self.module.dialect_data["aliases"]
        if name in aliases:
            raise self.error(f"redefinition of {name}", i)
        aliases[name] = self.text[start:self.e[j - 1]]
        return j

    def alias_line(self, i: int) -> int:
        """ALIAS tokens from ``i`` (``#name = loc(...)``, the lexer's; the block MLIR prints after
        the module, a third to a half of a text with debug info): their definitions; the index
        after the last."""
        k, s, e, text = self.k, self.s, self.e, self.text
        aliases = self.module.dialect_data["aliases"]
        while True:
            name, _, value = text[s[i]:e[i]].partition(" = ")
            if name in aliases:
                raise self.error(f"redefinition of {name}", i)
            aliases[name] = value
            i += 1
            while k[i] == NL:
                i += 1
            if k[i] != ALIAS:
                return i

    def parse_module_op(self, i: int, body: list[Any]) -> int:
        """``module @name attributes {...} {`` ops ``}`` (or the generic builtin.module)."""
        k = self.k
        mod = self.module
        start = self.s[i]
        if k[i] == STR:
            j = i + 1
            j = self.expect(j, "(")
            j = self.expect(j, ")")
            if k[j] == "<":
                pj = self.skip_balanced(j)
                props = self.text[self.s[j]:self.e[pj - 1]]
                m = re.search(r'sym_name\s*=\s*"([^"]*)"', props)
                if m:
                    mod.name = m.group(1)
                j = pj
            j = self.expect(j, "(")
            region_open = j
        else:
            j = i + 1
            if k[j] == SYM:
                mod.name = self.tok(j)[1:].strip('"')
                j += 1
            if k[j] == ID and self.tok(j) == "attributes":
                j += 1
                if k[j] != "{" and k[j] != DICT:
                    raise self.error("expected '{' after 'attributes'", j)
                dj = self.skip_balanced(j)
                mod.dialect_data["attr_text"] = self.text[self.s[j]:self.e[dj - 1]]
                self._module_attrs(self.text[self.s[j] + 1:self.e[dj - 1] - 1])
                j = dj
            region_open = j
        if k[region_open] != "{":
            raise self.error("expected '{' to open the module body", region_open)
        mod.dialect_data["head"] = (start, self.s[region_open] + 1)
        j = region_open + 1
        prev_end = self.s[region_open] + 1
        while True:
            if k[j] == NL:
                j = self.skip_nl(j)
            kk = k[j]
            if kk == "}":
                break
            if kk == EOF:
                line, col = self.line_col(self.s[region_open])
                raise self.error(f"unexpected end of input: the module opened at {line}:{col} is not closed", j)
            if kk in (HASH, BANG) and k[j + 1] == "=" or kk == ALIAS:
                raise self.error("alias definitions must precede the module", j)
            before = len(body)
            j = self.parse_top_op(j, body)
            item = body[before]
            item["pre"] = (prev_end, item["span"][0])
            prev_end = item["span"][1]
        close = j
        mod.dialect_data["body_tail"] = (prev_end, self.s[close])
        j += 1
        if k[i] == STR:
            j = self.expect(j, ")")
            if k[j] == NL:
                j = self.skip_nl(j)
            if k[j] == "{" or k[j] == DICT:
                dj = self.skip_balanced(j)
                mod.dialect_data["attr_text"] = self.text[self.s[j]:self.e[dj - 1]]
                self._module_attrs(self.text[self.s[j] + 1:self.e[dj - 1] - 1])
                j = self.skip_nl(dj)
            j = self.skip_nl(self.expect(j, ":"))
            j = self.parse_type_at(j)
        le = self.loc_end(j)
        if le > 0:
            j = le
        mod.dialect_data["foot"] = (self.s[close], self.e[j - 1])
        if k[self.skip_nl(j)] not in (EOF, HASH, ALIAS):
            nxt = self.skip_nl(j)
            if not (k[nxt] == HASH and k[nxt + 1] == "="):
                raise self.error("unexpected text after the module", nxt)
        return j

    def _module_attrs(self, inner: str) -> None:
        for part in split_top_level(inner):
            if not part:
                continue
            key, _, val = part.partition("=")
            self.module.attributes[key.strip()] = val.strip() if val else "unit"

    def check_func_header(self, i: int) -> None:
        """``func.func [visibility] @name(args) [-> results] [attributes {...}]``: one argument
        list right after the name, then the results, the attributes or the body.  The op scanner
        is lenient here; without this check junk between them was dropped and the printed text
        no longer parsed (fuzz: ``@f(((...)))g(%a: ...)``, ``@f(unknown)(%a: ...)``)."""
        k = self.k
        j = i
        while k[j] not in (SYM, EOF, NL, "{"):
            j += 1
        if k[j] != SYM:
            return  # no symbol: parse_top_op says so
        name = self.tok(j)
        if k[j + 1] != "(":
            raise self.error(f"expected '(' and the argument list after func.func {name}", j + 1)
        after = self.skip_balanced(j + 1)
        if k[after] in (ARROW, "{", LOC, NL, EOF) or (k[after] == ID and self.tok(after) in ("attributes", "loc")):
            return
        raise self.error(f"expected '->', 'attributes' or the body after the argument list of func.func {name}",
                         after)

    def parse_top_op(self, i: int, body: list[Any]) -> int:
        """A module-level op: func.func becomes a Computation, others stay printable items."""
        scope: list[dict[str, _Value]] = [{}]
        instr, j = self.parse_op(i, None, scope, top=True)
        item: dict[str, Any] = {"span": instr.span, "pre": None}
        if instr.source_op == "func.func":
            if len(instr.called_computations) > 1:
                raise self.error("func.func has more than one region", i)
            if not instr._dialect_data.get("generic"):
                self.check_func_header(i)
            if not instr.called_computations:
                # A declaration (external function): a computation without body.
                comp = Computation("")
                comp.dialect_data["declaration"] = True
                self.comps.append(comp)
                instr.called_computations = [comp]
            comp = instr.called_computations[0]
            name = instr._dialect_data.get("sym")
            if not name:
                for e in instr._dialect_data["entries"]:
                    if e[0] == "sym_name" and e[1] and e[1].startswith('"'):
                        name = e[1][1:-1]
            if not name:
                raise self.error("func.func without a symbol name", i)
            if name in self.func_names:
                raise self.error(f"redefinition of symbol @{name}", i)
            self.func_names.add(name)
            comp.name = name
            comp.parent = None
            comp.dialect_data["func"] = instr
            comp.line, comp.column = instr.line, instr.column
            item["func"] = comp
            self.resolve_pending(final=False)
        else:
            item["op"] = instr
            if instr.source_op == "sdy.mesh" and instr._dialect_data.get("sym"):
                self.module.attributes.setdefault("sdy.meshes", {})[instr._dialect_data["sym"]] = \
                    self.text[instr.span[0]:instr.span[1]]
        body.append(item)
        return j

    # -- regions --
    def parse_region(self, i: int, owner: Instruction, scope: list[dict[str, _Value]],
                     args: list[tuple[Any, ...]]) -> tuple[Computation, int]:
        """Region opened by '{' at ``i``; ``args`` are entry-block arguments declared before it."""
        k = self.k
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error("regions nested too deeply", i)
        self.region_counter += 1
        comp = Computation(f"{owner.name or owner.source_op}.region{self.region_counter}")
        comp.parent = owner
        line, col = self.line_col(self.s[i])
        comp.line, comp.column = line, col
        comp.dialect_data["open"] = self.s[i]
        self.comps.append(comp)
        inner: list[dict[str, _Value]] = [{}]
        new_scope = scope + inner
        params: list[Instruction] = []
        for a in args:
            params.append(self.make_param(comp, inner[0], a, len(params)))
        comp.dialect_data["entry_args"] = list(params)
        j = i + 1
        prev_end = self.s[i] + 1
        # Blocks: index 0 is the entry block (its label may be implicit).
        # Each op records its block index; a block's label text is kept on the
        # computation, so removing the block's first op keeps the label.
        blocks: list[dict[str, Any]] = [{"label": None, "args": list(params), "lead": None}]
        blk = 0
        last: _ParsedOp | None = None
        s = self.s
        while True:
            kk = k[j]
            if kk == NL:
                j = self.skip_nl(j)
                kk = k[j]
            # (A one-line op first: most ops of a large text.)
            if kk.__class__ is _LineOp:
                self.op_start = s[j]
                instr, j = self.parse_line_op(kk, j, comp, new_scope, False)
            elif kk == "}":
                break
            elif kk == EOF:
                raise self.error(f"unexpected end of input: the region opened at {line}:{col} is not closed", j)
            elif kk == BLK:
                if last is not None:
                    last._dialect_data["terminator"] = True
                block, j = self.block_label(j, comp, inner[0], prev_end)
                prev_end = block["lead"][1]
                if blk == 0 and last is None and not args and blocks[0]["lead"] is None:
                    blocks[0] = block
                    comp.dialect_data["entry_args"] = block["args"]
                else:
                    blocks.append(block)
                    blk = len(blocks) - 1
                continue
            else:
                instr, j = self.parse_op(j, comp, new_scope)
            span = instr.span
            dd = instr._dialect_data
            dd["pre"] = (prev_end, span[0])
            if blk:  # (0, the first block, is the printer's default)
                dd["blk"] = blk
            prev_end = span[1]
            last = instr
        comp.dialect_data["blocks"] = blocks
        if last is not None:
            last._dialect_data["terminator"] = True
            comp.root = last
            comp.dialect_data["term"] = last
        comp.dialect_data["tail"] = (prev_end, self.s[j])
        comp.dialect_data["close"] = self.e[j]
        self.depth -= 1
        return comp, j + 1

    def block_label(self, j: int, comp: Computation, scope: dict[str, _Value],
                    prev_end: int) -> tuple[dict[str, Any], int]:
        """``^bb1(%a: type, ...):`` at ``j`` → the block (label, arguments, the text that leads
        to it from ``prev_end``) and the index after its ':'."""
        k = self.k
        label = self.tok(j)
        j += 1
        bargs: list[Instruction] = []
        if k[j] == "(":
            j = self.skip_nl(j + 1)
            while k[j] != ")":
                if k[j] != VAL and k[j] != BARG:
                    raise self.error("expected a block argument", j)
                j, a = self.block_arg(j)
                bargs.append(self.make_param(comp, scope, a, len(bargs)))
                if k[j] == NL:
                    j = self.skip_nl(j)
                if k[j] == ",":
                    j = self.skip_nl(j + 1)
                elif k[j] != ")":
                    raise self.error("expected ',' or ')' in block arguments", j)
            j += 1
        j = self.expect(j, ":")
        return {"label": label, "args": bargs, "lead": (prev_end, self.e[j - 1])}, j

    def block_arg(self, j: int) -> tuple[int, tuple[Any, ...]]:
        """``%name: type {attrs} loc(...)`` → (index after, (name, type, attrs, loc, start))."""
        k = self.k
        if k[j] == BARG:
            # One token of the fast scan: its pieces are what the tokens below would give.
            self.bargs_read += 1
            start = self.s[j]
            name, typ, attrs, loc = _barg_parts(self.text, start, self.e[j]).groups()
            return j + 1, (name, typ, attrs, loc, start)
        name = self.tok(j)[1:]
        start = self.s[j]
        j += 1
        j = self.expect(j, ":")
        tj = self.parse_type_at(j)
        typ = self.text[self.s[j]:self.e[tj - 1]]
        j = tj
        attrs = None
        loc = None
        if k[j] == "{" or k[j] == DICT:
            dj = self.skip_balanced(j)
            attrs = self.text[self.s[j]:self.e[dj - 1]]
            j = dj
        lj = self.loc_end(j)
        if lj > 0:
            loc = self.text[self.s[j]:self.e[lj - 1]]
            j = lj
        return j, (name, typ, attrs, loc, start)

    def make_param(self, comp: Computation, scope: dict[str, _Value], a: tuple[Any, ...], number: int) -> _ParsedOp:
        name, typ, attrs, loc, start = a
        shape = self.shape_in(typ, start, len(self.text)) if typ is not None else Shape("opaque")
        if self.validate and typ is not None:
            try:
                A.check(typ, "type")
            except A.AttrDecodeError as err:
                raise self.error_at(f"type of %{name}: {err.reason}", start) from None
        line, col = self.line_col(start)
        attributes = Attributes.of_source({"parameter_number": None}, None)
        attributes._decoded = {"parameter_number": number}
        p = _ParsedOp.parsed(name, "parameter", "parameter", shape, [], attributes, line, col, (start, start), 1,
                             {"arg_attrs": attrs, "loc": loc, "type": typ, "results": [(name, 1)]})
        if name in scope:
            raise self.error_at(f"redefinition of SSA value %{name}", start)
        scope[name] = (p, 0, 1)
        comp.instructions.append(p)
        p.computation = comp
        return p

    # -- ops --
    def parse_op(self, i: int, comp: Computation | None, scope: list[dict[str, _Value]],
                 top: bool = False) -> tuple[_ParsedOp, int]:
        k, s, e, text = self.k, self.s, self.e, self.text
        # Where a broken scanner invariant is reported (see read_stablehlo).
        self.op_start = s[i]
        if k[i].__class__ is _LineOp:
            return self.parse_line_op(k[i], i, comp, scope, top)
        first = self.first_sight.pop(i, None) if self.first_sight else None
        start = s[i]
        results: list[tuple[str, int]] = []
        if k[i] == VAL:
            i = self.read_results(i, results)
        if not results:
            nres = 0
        elif len(results) == 1:
            nres = results[0][1]
        else:
            nres = sum(c for _, c in results)
        generic, src_op = self.op_name(i)
        name_tok = i
        newlines = self.newlines
        nl = bisect_left(newlines, start)
        line = nl + 1
        col = start - (newlines[nl - 1] if nl else -1)
        iname = results[0][0] if results else f"{src_op.rsplit('.', 1)[-1]}.L{line}"
        uses: list[tuple[str, int]] = []  # (name, token index)
        entries: list[list[Any]] = []
        regions: list[Computation] = []
        # Keys with their default value (False, empty) are left out: readers
        # use .get, and a dict of more than ten keys takes twice the memory.
        dd = {"results": results, "entries": entries}
        # The Attributes object is filled in below.
        attributes = Attributes.of_source({}, None)
        instr = _ParsedOp.parsed(iname, A.OPCODES.get(src_op, src_op), src_op, _NO_RESULTS, [], attributes, line,
                                 col, (start, start), nres, dd)
        if generic:
            dd["generic"] = True
        if generic:
            j, sig_types = self.scan_generic(i + 1, instr, scope, uses, entries, regions)
        else:
            j, sig_types = self.scan_pretty(i + 1, instr, scope, uses, entries, regions, top)
        instr.span = (start, e[j - 1])
        if regions:
            instr.called_computations = regions
        res_types = self.result_types(instr, sig_types, name_tok)
        dd["result_types"] = res_types
        self.bind_operands(instr, uses, scope)
        if results and not top:
            self.define_results(instr, results, scope, name_tok)
        if entries:
            raw = _normalised_attributes(src_op, entries)
            if raw:
                attributes.adopt_source(raw, _Decoder(instr))
        if comp is not None:
            instr.computation = comp
            comp.instructions.append(instr)
        if self.validate:
            self.validate_op(instr, entries, res_types)
        if first is not None:
            # The first line of a shape, read by tokens: the shape's template, if it ends
            # with its line (the next token the newline right after the line's match).
            self.templates[first.key] = (_line_template(instr, first) if k[j] == NL and s[j] == first.m.end()
                                         else None)
        return instr, j

    def op_name(self, i: int) -> tuple[bool, str]:
        """Whether the op at token ``i`` is in generic form (a quoted name), and its dialect
        name (``func.func`` for ``func``).  Once per op read by tokens: out of ``parse_op``,
        which stays one screen."""
        k, s, e, text = self.k, self.s, self.e, self.text
        kk = k[i]
        if kk == STR:
            generic = True
            op_name = text[s[i] + 1:e[i] - 1]
        elif kk == ID:
            generic = False
            op_name = text[s[i]:e[i]]
        else:
            raise self.error("expected an operation name", i)
        # Ops of the default dialect (func) print without their prefix.
        src_op = op_name if generic else A.ALIASES.get(op_name, op_name)
        if "." not in src_op:
            # MLIR names every op by its dialect; a bare word is no operation
            # (this is what stops prose from parsing as a module).
            raise self.error(f"unknown operation '{op_name}': expected a dialect-qualified name "
                             "such as stablehlo.add", i)
        if self.validate and is_unknown_op(src_op):
            raise self.error(_unknown_op(src_op), i)
        return generic, src_op

    def result_types(self, instr: _ParsedOp, sig_types: tuple[Any, ...] | None, name_tok: int) -> list[str]:
        """The op's result types, its shape set from them.  A function type names them all; a
        plain type list (pretty forms) ends with the result type, or lists one per result."""
        nres, src_op = instr.num_results, instr.source_op
        res_types: list[str] = []
        if sig_types is not None:
            if self.validate:
                instr._dialect_data["operand_types"] = sig_types[0]
            _, listed, is_fn = sig_types
            if is_fn or nres > 1:
                if len(listed) != nres:
                    raise self.error(f"{src_op} defines {nres} result(s) but its type lists "
                                     f"{len(listed)}", name_tok)
                res_types = listed
            elif nres == 1:
                res_types = listed[-1:]
        start, end = instr.span
        if nres == 1 and res_types:
            instr.shape = self.shape_in(res_types[0], start, end)
        elif nres > 1 and res_types:
            instr.shape = Shape.tuple_of(self.shape_in(t, start, end) for t in res_types)
        return res_types

    def read_results(self, i: int, results: list[tuple[str, int]]) -> int:
        """``%a, %b:2 =``: the result names and counts, into ``results``; the index after '='."""
        k, s, e, text = self.k, self.s, self.e, self.text
        while True:
            name = text[s[i]:e[i]]
            if "#" in name:
                raise self.error("result names cannot carry '#'", i)
            i += 1
            count = 1
            if k[i] == ":" and k[i + 1] == NUM:
                ct = text[s[i + 1]:e[i + 1]]
                count = to_int(ct, 1, 1 << 31, "result count") if ct.isdigit() and len(ct) < 12 else -1
                if count < 1:
                    raise self.error("invalid result count", i + 1)
                i += 2
            results.append((name[1:], count))
            if k[i] == ",":
                i += 1
                if k[i] != VAL:
                    raise self.error("expected a result name", i)
                continue
            return self.expect(i, "=")

    def bind_operands(self, instr: _ParsedOp, uses: list[tuple[str, int]],
                      scope: list[dict[str, _Value]]) -> None:
        """Point ``instr``'s operands at the values ``uses`` name (token indices); a name not
        defined yet waits in ``pending``."""
        s, e = self.s, self.e
        if len(uses) != 1 and instr.opcode == "get-tuple-element":
            # The rules read a tuple element's tuple; MLIR's parser requires it too.
            raise self.error_at(f"'{instr.source_op}' takes one operand, the tuple; it has {len(uses)}",
                                instr.span[0])
        ops: list[Any] = [None] * len(uses)
        # operand_results stays unmade (all zeros, made on first access) unless one is not 0.
        instr.operands = ops
        instr._dialect_data["opnd_pos"] = [(s[ti], e[ti]) for _, ti in uses]
        for idx, (ref, ti) in enumerate(uses):
            if "#" not in ref:
                # The common case of bind(), inline: a plain name (result 0
                # always exists) found in some enclosing scope.
                name = ref[1:]
                for sc in reversed(scope):
                    v = sc.get(name)
                    if v is not None:
                        ops[idx] = v[0]
                        if v[1]:
                            instr.operand_results[idx] = v[1]
                        break
                else:
                    self.pending.append((instr, idx, ref, s[ti], scope))
                continue
            self._bind_pos = s[ti]
            if not self.bind(instr, idx, ref, scope):
                self.pending.append((instr, idx, ref, s[ti], scope))

    def define_results(self, instr: Instruction, results: list[tuple[str, int]],
                       scope: list[dict[str, _Value]], name_tok: int) -> None:
        cur = scope[-1]
        base = 0
        for name, count in results:
            for sc in scope:
                if name in sc:
                    raise self.error(f"redefinition of SSA value %{name}", name_tok)
            cur[name] = (instr, base, count)
            base += count

    def bind(self, instr: Instruction, idx: int, ref: str, scope: list[dict[str, _Value]]) -> bool:
        name, _, num = ref[1:].partition("#")
        for sc in reversed(scope):
            v = sc.get(name)
            if v is not None:
                try:
                    r = to_int(num, 0, INT64_MAX, "result number") if num else 0
                except NumberError as err:
                    raise self.error_at(err.reason, self._bind_pos + len(name) + 2) from None
                if r >= v[2]:
                    raise self.error_at(f"result #{r} of %{name} does not exist ({v[2]} results)",
                                        self._bind_pos)
                instr.operands[idx] = v[0]
                instr.operand_results[idx] = v[1] + r
                return True
        return False

    def resolve_pending(self, final: bool) -> None:
        left = []
        for instr, idx, ref, pos, scope in self.pending:
            self._bind_pos = pos
            ok = self.bind(instr, idx, ref, scope)
            if not ok:
                left.append((instr, idx, ref, pos, scope))
            elif _later_in_block(instr, instr.operands[idx]):
                # Within a block a value is defined before its uses (it would not
                # dominate them); a use of itself makes a cycle no pass can walk.
                by_itself = " (by itself)" if instr.operands[idx] is instr else ""
                raise self.error_at(f"use of {ref} before its definition{by_itself}", pos)
        self.pending = []
        if left:
            instr, idx, ref, pos, scope = left[0]
            raise self.error_at(f"use of undefined value {ref}", pos)

    def scan_generic(self, i: int, instr: _ParsedOp, scope: list[dict[str, _Value]], uses: list[tuple[str, int]],
                     entries: list[list[Any]], regions: list[Computation]) -> tuple[int, tuple[Any, ...] | None]:
        """``("ops") [succ] <{props}> ({regions}) {attrs} : (types) -> types loc(...)``."""
        k = self.k
        dd = instr._dialect_data
        i = self.expect(self.skip_nl(i), "(")
        open_ = i - 1
        if k[i] == NL:
            i = self.skip_nl(i)
        while k[i] != ")":
            if k[i] != VAL:
                raise self.error(f"expected an SSA operand, found '{self.tok(i)}'", i)
            uses.append((self.tok(i), i))
            i = self.skip_nl(i + 1)
            if k[i] == ",":
                i = self.skip_nl(i + 1)
                if k[i] != VAL:
                    raise self.error(f"expected an SSA operand after ',', found '{self.tok(i)}'", i)
            elif k[i] != ")":
                line, col = self.line_col(self.s[open_])
                what = "the end of input" if k[i] == EOF else f"'{self.tok(i)}'"
                raise self.error(f"expected ',' or ')' after an operand, found {what} (the operand list "
                                 f"opened at {line}:{col})", i)
        i = self.skip_nl(i + 1)
        if k[i] == "[":
            j = self.skip_balanced(i)
            dd["successors"] = self.text[self.s[i]:self.e[j - 1]]
            for t in range(i, j):
                if k[t] == VAL:
                    uses.append((self.tok(t), t))
            dd["n_succ_operands"] = sum(1 for t in range(i, j) if k[t] == VAL)
            i = self.skip_nl(j)
        if k[i] == "<" and (k[i + 1] == "{" or k[i + 1] == DICT):
            i = self.parse_dict(i + 1, entries, "props")
            i = self.skip_nl(self.expect(i, ">"))
        if k[i] == "(" and k[self.skip_nl(i + 1)] == "{":
            i += 1
            while True:
                if k[i] == NL:
                    i = self.skip_nl(i)
                comp, i = self.parse_region(i, instr, scope, [])
                regions.append(comp)
                if k[i] == NL:
                    i = self.skip_nl(i)
                if k[i] == ",":
                    i += 1
                    continue
                break
            i = self.expect(i, ")")
        if k[i] == NL:
            i = self.skip_nl(i)
        if k[i] == "{" or k[i] == DICT:
            i = self.parse_dict(i, entries, "attrs")
            if k[i] == NL:
                i = self.skip_nl(i)
        i = self.expect(i, ":")
        if k[i] == NL:
            i = self.skip_nl(i)
        if k[i] == SIG:
            operand_types, res_types = self.sig_types(i)
            return self.generic_tail(i, i + 1, instr, uses, operand_types, res_types)
        if k[i] != "(":
            raise self.error("expected a function type '(...) -> ...'", i)
        j = self.skip_balanced(i)
        inner_start = i + 1
        operand_types = self.types_between(inner_start, j - 1)
        if k[j] == NL:
            j = self.skip_nl(j)
        if k[j] != ARROW:
            raise self.error("expected '->' in the function type", j)
        j = self.skip_nl(j + 1)
        if k[j] == "(":
            r = self.skip_balanced(j)
            res_types = self.types_between(j + 1, r - 1)
            j = r
        else:
            r = self.parse_type_at(j)
            res_types = [self.text[self.s[j]:self.e[r - 1]]]
            j = r
        return self.generic_tail(i, j, instr, uses, operand_types, res_types)

    def generic_tail(self, i: int, j: int, instr: _ParsedOp, uses: list[Any], operand_types: list[str],
                     res_types: list[str]) -> tuple[int, tuple[Any, ...]]:
        """A generic op after its function type (tokens ``i`` to ``j``): location, operand count."""
        dd = instr._dialect_data
        dd["sig"] = (self.s[i], self.e[j - 1])
        jn = self.skip_nl(j)
        lj = self.loc_end(jn)
        if lj > 0:
            dd["loc"] = self.text[self.s[jn]:self.e[lj - 1]]
            j = lj
        if len(operand_types) != len(uses) - dd.get("n_succ_operands", 0):
            raise self.error(f"'{instr.source_op}' has {len(uses)} operands but its type lists "
                             f"{len(operand_types)}", i)
        return j, (operand_types, res_types, True)

    def sig_types(self, i: int) -> tuple[list[str], list[str]]:
        """Operand and result types of a function-type token; read once per text of a
        signature."""
        text = self.text[self.s[i]:self.e[i]]
        got = self.fn_sigs.get(text)
        if got is None:
            ops, res, _ = split_function_type(text)
            got = self.fn_sigs[text] = (ops, res)
        return got

    def types_between(self, a: int, b: int) -> list[str]:
        if a >= b:
            return []
        out, j = self.type_list(self.skip_nl(a))
        if j != b:
            raise self.error("malformed type list", j)
        return out

    def parse_dict(self, i: int, entries: list[Any], place: str) -> int:
        """Attribute dictionary at '{' (or a dictionary token) → entries [name, value text or None,
        place]; the index after it."""
        k = self.k
        if k[i] == DICT:
            got = _dict_entries(self.text, self.s[i], self.e[i], place)
            if got is None:
                raise _TokensOnly("an attribute dictionary the token scanner reads otherwise")
            entries += got
            return i + 1
        i += 1
        while True:
            if k[i] == NL:
                i = self.skip_nl(i)
            if k[i] == "}":
                return i + 1
            kk = k[i]
            if kk not in (ID, STR):
                raise self.error("expected an attribute name", i)
            key = self.tok(i)
            if kk == STR:
                key = key[1:-1]
            i += 1
            if k[i] == NL:
                i = self.skip_nl(i)
            val = None
            if k[i] == "=":
                i = self.skip_nl(i + 1)
                vs = i
                while True:
                    kk = k[i]
                    if kk.__class__ is str:
                        if kk in _OPEN:
                            i = self.skip_balanced(i)
                            continue
                        if kk in _CLOSE or kk == ",":
                            break
                    elif kk == EOF:
                        raise self.error("unexpected end of input in an attribute dictionary", i)
                    i += 1
                if i == vs or k[i - 1] == NL and i - 1 == vs:
                    raise self.error(f"expected a value for attribute '{key}'", i)
                ve = i - 1
                while k[ve] == NL:
                    ve -= 1
                val = self.text[self.s[vs]:self.e[ve]]
            entries.append([key, val, place])
            if k[i] == NL:
                i = self.skip_nl(i)
            if k[i] == ",":
                i += 1
                continue
            if k[i] != "}":
                raise self.error("expected ',' or '}' in an attribute dictionary", i)

    def is_region(self, i: int) -> bool:
        """Does the '{' at ``i`` open a region (rather than an attribute dictionary)?"""
        k = self.k
        j = i + 1
        saw_nl: bool = k[j] == NL
        if k[j] == NL:
            j = self.skip_nl(j)
        kk = k[j]
        if kk == "}":
            return saw_nl
        if kk in (VAL, BLK) or kk.__class__ is _LineOp:
            return True
        if kk == STR:
            called: bool = k[j + 1] == "("
            return called
        if kk == ID:
            return k[j + 1] not in ("=", ",", "}") and saw_nl
        return False

    def scan_pretty(self, i: int, instr: _ParsedOp, scope: list[dict[str, _Value]], uses: list[tuple[str, int]],
                    entries: list[list[Any]], regions: list[Computation], top: bool) -> tuple[int, tuple[Any, ...] | None]:
        """Ops in custom syntax: structure from brackets, uses, regions and the last ':'.  The hot
        path for every op that is not a one-line op: one token loop, its state in locals; what
        happens once or a few times an op is a ``pretty_*`` method (benchmarks/real_text.py)."""
        if (simple_line := self.scan_simple(i, instr, uses)) is not None:
            return simple_line
        k, text, s, e = self.k, self.text, self.s, self.e
        stack: list[str] = []
        pending_args: list[tuple[Any, ...]] = []
        iter_args: list[tuple[Any, ...]] = []
        words: list[str] = []
        colon, first, last, simple = -1, i, i - 1, True
        while True:
            kk = k[i]
            if kk == NL:
                if stack:
                    i += 1
                    continue
                j = self.skip_nl(i)
                if not self.is_continuation(j):
                    break
                i = j
                continue
            if kk == EOF:
                if stack:
                    raise self.error(self.unclosed(stack[-1], i, first), i)
                break
            if kk == VAL or kk == BARG:
                if stack and stack[-1] == "(" and (kk == BARG or k[i + 1] == ":" or k[i + 1] == "="):
                    i = self.pretty_arg(i, pending_args, iter_args)
                    last = i - 1
                    continue
                if kk == VAL:
                    uses.append((text[s[i]:e[i]], i))
            elif kk.__class__ is str:
                if kk == "{":
                    region = self.is_region(i)
                    if region or not stack:
                        i = self.pretty_brace(i, region, instr, scope, pending_args, iter_args, colon, regions,
                                              entries)
                        last = i - 1
                        continue
                    stack.append(kk)
                elif kk in "([<":
                    if not stack and colon < 0:
                        j = self.pretty_bracket(i, kk, instr.source_op, entries)
                        if j:
                            last = j - 1
                            i = j
                            continue
                        # A top-level '(' (not a symbol's) or '<' before the ':': printed from its text.
                        simple = simple and (kk == "[" or kk == "(" and k[i - 1] == SYM)
                    stack.append(kk)
                    if len(stack) > 4 * MAX_DEPTH:
                        raise self.error("nesting too deep", i)
                elif kk in _CLOSE:
                    if stack and stack[-1] == _CLOSE[kk]:
                        stack.pop()
                    elif not stack and kk == "}":
                        break
                    else:
                        raise self.error(self.unbalanced(kk, stack[-1], i, first) if stack else
                                         f"unbalanced '{kk}'", i)
                elif kk == "," and not stack and k[i + 1] in _NO_OPERAND_AFTER_COMMA:
                    raise self.error(f"expected an SSA operand after ',', found '{self.tok(i + 1)}'", i + 1)
                elif kk == ":" and not stack:
                    colon = i
                    instr._dialect_data["colon"] = s[i]
                elif kk == "=" and not stack and k[i - 1] == ID:
                    i = self.pretty_entry(i, entries, uses, words)
                    last = i - 1
                    continue
            elif not stack and (kk == ID or kk == LOC or kk == SYM or kk == STR or kk == DICT):
                i = self.pretty_word(i, kk, instr, entries, words, colon)
                last = i - 1
                continue
            last = i
            i += 1
        return last + 1, self.pretty_done(instr, words, simple, first, last, colon, regions, pending_args, iter_args)

    # The pieces of ``scan_pretty`` that run once or a few times an op (out of its loop, which
    # reads in one screen): each takes the loop's token and returns the token after what it read.
    def pretty_arg(self, i: int, pending_args: list[tuple[Any, ...]], iter_args: list[tuple[Any, ...]]) -> int:
        """Inside '(': a block argument (``%x: type``, or its one BARG token) joins
        ``pending_args``; a loop-carried value (``%x = %init``) joins ``iter_args``.  (A BARG is
        read only here: anywhere else the count check of ``parse`` sends the text back to the
        token scanner.)"""
        if self.k[i] == BARG or self.k[i + 1] == ":":
            j, a = self.block_arg(i)
            pending_args.append(a)
            return j
        iter_args.append((self.text[self.s[i]:self.e[i]][1:], None, None, None, self.s[i]))
        return i + 2

    def pretty_brace(self, i: int, region: bool, instr: _ParsedOp, scope: list[dict[str, _Value]],
                     pending_args: list[tuple[Any, ...]], iter_args: list[tuple[Any, ...]], colon: int, regions: list[Computation],
                     entries: list[list[Any]]) -> int:
        """A '{' that opens a region (``region``; or a one-line function's body), else a
        top-level attribute dictionary."""
        k = self.k
        if region or (instr.source_op == "func.func" and k[i - 1] != ID):
            i = self.pretty_region(i, instr, scope, pending_args, iter_args, colon, regions)
            # The region took them (a copy): the next region has its own.
            pending_args.clear()
            return i
        dj = self.skip_balanced(i)
        self.parse_dict(i, entries, "attrs")
        return dj

    def pretty_bracket(self, i: int, kk: str, src: str, entries: list[list[Any]]) -> int:
        """A top-level '[...]' (not a value's after '=') or a sharding constraint's '<...>'
        before the ':' is an entry of its own: the token after it (0: not one)."""
        k, text, s, e = self.k, self.text, self.s, self.e
        if kk == "[" and k[i - 1] != "=":
            key = "[]"
        elif kk == "<" and src == "sdy.sharding_constraint":
            key = "<>"
        else:
            return 0
        j = self.skip_balanced(i)
        entries.append([key, text[s[i]:e[j - 1]], "pretty"])
        return j

    def pretty_word(self, i: int, kk: int, instr: _ParsedOp, entries: list[list[Any]], words: list[str],
                    colon: int) -> int:
        """A top-level attribute dictionary, string, symbol, location or word (before the ':')."""
        k, text, s, e = self.k, self.text, self.s, self.e
        dd = instr._dialect_data
        if kk == DICT:
            if instr.source_op == "func.func" and k[i - 1] != ID:
                raise _TokensOnly("a one-line function body")
            self.parse_dict(i, entries, "attrs")
        elif kk == STR:
            if colon < 0:
                dd.setdefault("strs", []).append(text[s[i]:e[i]])
        elif kk == SYM:
            if "sym" not in dd:
                dd["sym"] = text[s[i]:e[i]][1:].strip('"')
                entries.append(["@", text[s[i]:e[i]], "pretty"])
        elif kk == LOC:
            dd["loc"] = text[s[i]:e[i]]
        else:
            w = text[s[i]:e[i]]
            if w == "loc" and k[i + 1] == "(":
                j = self.skip_balanced(i + 1)
                dd["loc"] = text[s[i]:e[j - 1]]
                return j
            if colon < 0:
                words.append(w)
        return i + 1

    def pretty_done(self, instr: _ParsedOp, words: list[str], simple: bool, first: int, last: int, colon: int,
                    regions: list[Computation], pending_args: list[tuple[Any, ...]], iter_args: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
        """What ``scan_pretty`` found (every way out of its loop leaves the brackets closed: at a
        newline or '}' outside them, or with an error), in the op's dialect data; its type signature."""
        dd = instr._dialect_data
        if words:
            dd["words"] = words
        # Printed from the text: an op with regions or arguments, or a string before the ':'
        # (``pretty_word`` keeps those in "strs").
        dd["simple"] = simple and not (regions or pending_args or iter_args) and "strs" not in dd
        dd["body_start"] = self.s[first] if first <= last else None
        sig = self.pretty_signature(colon) if colon >= 0 else None
        if instr.source_op == "func.func":
            dd["args"] = pending_args
        return sig

    def scan_simple(self, i: int, instr: _ParsedOp, uses: list[tuple[str, int]]) -> tuple[Any, ...] | None:
        """Most lines JAX prints are ``name %a, %b : tensor<..> loc(..)``: taken without the
        general loop of ``scan_pretty`` (None: not one of them)."""
        k, text, s, e = self.k, self.text, self.s, self.e
        j = i
        while k[j] == VAL:
            if k[j + 1] == ",":
                j += 2
            else:
                j += 1
                break
        if j > i and k[j - 1] == "," and k[j] in _NO_OPERAND_AFTER_COMMA:
            raise self.error(f"expected an SSA operand after ',', found '{self.tok(j)}'", j)
        if not (k[j] == ":" and k[j + 1] == TYPE and (k[j + 2] == NL or k[j + 2] == LOC and k[j + 3] == NL)):
            return None
        dd = instr._dialect_data
        for t in range(i, j, 2):
            uses.append((text[s[t]:e[t]], t))
        dd["colon"] = s[j]
        if k[j + 2] == LOC:
            dd["loc"] = text[s[j + 2]:e[j + 2]]
            end = j + 3
        else:
            end = j + 2
        dd.update(simple=True, body_start=s[i] if j > i else s[j])
        return end, ([], [text[s[j + 1]:e[j + 1]]], False)

    def pretty_region(self, i: int, instr: _ParsedOp, scope: list[dict[str, _Value]], pending_args: list[Any],
                      iter_args: list[Any], colon: int, regions: list[Computation]) -> int:
        """A region of a pretty op at its '{': its arguments are the block arguments read
        before it, else the loop-carried values (typed from the signature); returns the
        token after its '}'."""
        args = pending_args or iter_args
        if args is iter_args and iter_args and iter_args[0][1] is None:
            tys = self.iter_types(colon)
            if len(tys) != len(iter_args):
                raise self.error("loop-carried values and their types differ in number", i)
            iter_args[:] = [(a[0], t, None, None, a[4]) for a, t in zip(iter_args, tys)]
        comp, i = self.parse_region(i, instr, scope, list(args))
        regions.append(comp)
        return i

    def pretty_signature(self, colon: int) -> tuple[list[str], list[str], bool] | None:
        """The type signature of a pretty op: the text after its last top-level ':' (before
        regions that follow it, as in stablehlo.while and reduce), as (operand types, result
        types, whether it was a function type)."""
        k, text, s, e = self.k, self.text, self.s, self.e
        sig = None
        j = self.skip_nl(colon + 1)
        if k[j] == SIG:
            ops, res = self.sig_types(j)
            return ops, res, True
        if k[j] == "(":
            pj = self.skip_balanced(j)
            if k[pj] == ARROW:
                ops = self.types_between(j + 1, pj - 1)
                q = pj + 1
                if k[q] == "(":
                    r = self.skip_balanced(q)
                    res = self.types_between(q + 1, r - 1)
                else:
                    r = self.parse_type_at(q)
                    res = [text[s[q]:e[r - 1]]]
                sig = (ops, res, True)
            else:
                tys, _ = self.type_list(j)
                sig = ([], tys, False)
        elif k[j] in (TYPE, ID, BANG):
            tys, q = self.type_list(j)
            if k[q] == ARROW:
                q = self.skip_nl(q + 1)
                if k[q] == "(":
                    r = self.skip_balanced(q)
                    sig = (tys, self.types_between(q + 1, r - 1), True)
                else:
                    r = self.parse_type_at(q)
                    sig = (tys, [text[s[q]:e[r - 1]]], True)
            elif k[q] == ID and text[s[q]:e[q]] == "to":
                r = self.parse_type_at(q + 1)
                sig = (tys, [text[s[q + 1]:e[r - 1]]], True)
            else:
                sig = ([], tys, False)
        return sig

    def pretty_entry(self, i: int, entries: list[list[Any]], uses: list[tuple[str, int]],
                     words: list[str]) -> int:
        """A pretty ``key = value`` piece at the '=' (token ``i``): the value runs to the next
        top-level ',', ':', keyword or region; returns the token after it."""
        k, text, s, e = self.k, self.text, self.s, self.e
        key = text[s[i - 1]:e[i - 1]]
        if words and words[-1] == key:
            words.pop()
        j = i + 1
        vs = j
        while True:
            t = k[j]
            if t.__class__ is str:
                if t in "({" and j > vs:
                    break
                if t in "([<" or (t == "{" and not self.is_region(j)):
                    j = self.skip_balanced(j)
                    continue
                if t in ",:)]}>{":
                    break
            elif t in (NL, EOF):
                break
            elif t == DICT:
                if j > vs:
                    break  # a '{' after the value starts ends it
            elif t == ID and k[j + 1] == "=":
                break
            elif t == ID and text[s[j]:e[j]] == "x" and j > vs:
                j += 1
                continue
            elif t == ID and j > vs and k[j - 1] in ("]",):
                break
            j += 1
        if j == vs:
            raise self.error(f"expected a value after '{key} ='", j)
        entries.append([key, text[s[vs]:e[j - 1]], "pretty"])
        for t in range(vs, j):
            if k[t] == VAL:
                uses.append((text[s[t]:e[t]], t))
        return j

    def iter_types(self, colon: int) -> list[str]:
        """Types of loop-carried values: the type list after the op's ':' (stablehlo.while)."""
        if colon < 0:
            return []
        tys, _ = self.type_list(self.skip_nl(colon + 1))
        return tys

    def is_continuation(self, j: int) -> bool:
        """After a newline at depth 0 of a pretty op: does the op go on (``cond {``, ``reducer(``)?"""
        p = j - 1
        while p > 0 and self.k[p] == NL:
            p -= 1
        if self.k[p] in (ARROW, ",", ":", "="):
            return True
        kk = self.k[j]
        if kk == ID:
            t = self.tok(j)
            return "." not in t and t not in ("return", "module", "func", "call")
        return kk in (":", ARROW, "{", DICT)

    # -- validation --
    def validate_op(self, instr: _ParsedOp, entries: list[Any], res_types: list[str]) -> None:
        for e in entries:
            val = e[1]
            if val is None or e[2] not in ("props", "attrs"):
                continue
            try:
                A.check(val, "attr")
            except A.AttrDecodeError as err:
                raise self.error_at(f"attribute '{e[0]}': {err.reason}", instr.span[0]) from None
        for t in res_types + list(instr.dialect_data.get("operand_types") or ()):
            try:
                A.check(t, "type")
            except A.AttrDecodeError as err:
                raise self.error_at(f"type {t[:40]}: {err.reason}", instr.span[0]) from None
        try:
            instr.attributes.decode_all()
        except ParseError as err:
            raise self.error_at(err.reason, instr.span[0]) from None
        if instr.opcode == "get-tuple-element":
            self.check_tuple_index(instr)

    def check_tuple_index(self, instr: _ParsedOp) -> None:
        """validate=True: a get_tuple_element index names an element of its operand's tuple type."""
        index = instr.attributes.get("index")
        types = instr.dialect_data.get("operand_types") or ()
        if not isinstance(index, int) or not types or not types[0].startswith("tuple<"):
            return
        try:
            n = len(shape_of(types[0]).tuple_shapes)
        except ValueError:
            return  # the type check above reports a bad type
        if not 0 <= index < n:
            start, end = instr.span
            k = self.text.find(str(index), start, end)
            raise self.error_at(f"get_tuple_element index {index} is beyond its {n}-element tuple",
                                k if k >= 0 else start)

    def implicit_reducer(self, ins: _ParsedOp) -> Computation | None:
        """The body of ``stablehlo.reduce(%x init: %i) applies OP across ...`` as a computation.

        The short form leaves the reducer implicit; the graph gets it
        explicitly (HLO's to_apply), built from the init value's type.
        """
        words = ins._dialect_data.get("words") or []
        if "applies" not in words or len(ins.operands) != 2:
            return None
        k = words.index("applies")
        if k + 1 >= len(words):
            return None
        body_op = words[k + 1]
        if self.validate and is_unknown_op(body_op):
            raise self.error_at(_unknown_op(body_op), ins.span[0])
        ins._dialect_data["applies"] = body_op
        init = ins.operands[1]
        shape = init.shape if init.num_results == 1 else init.shape.tuple_shapes[ins.operand_results[1]]
        comp = Computation(f"{ins.name}.reducer")
        comp.parent = ins
        comp.line, comp.column = ins.line, ins.column
        span = (ins.span[0], ins.span[0])
        line, col = ins.line, ins.column
        # Made as the parser makes what it reads (Instruction.parsed: unchanged, the dicts
        # adopted), a reduce or two in every layer of a trainer's step.
        params: list[Instruction] = []
        for n, suffix in enumerate(("lhs", "rhs")):
            name = f"_{ins.name}_{suffix}"
            attributes = Attributes.of_source({"parameter_number": None}, None)
            attributes._decoded = {"parameter_number": n}
            p = _ParsedOp.parsed(name, "parameter", "parameter", shape, [], attributes, line, col, span, 1,
                                 {"results": [(name, 1)], "type": shape.text, "arg_attrs": None, "loc": None})
            p.computation = comp
            params.append(p)
        name = f"_{ins.name}_res"
        res = _ParsedOp.parsed(name, A.OPCODES.get(body_op, body_op), body_op, shape, list(params),
                               Attributes.of_source({}, None), line, col, span, 1,
                               {"results": [(name, 1)], "generic": True, "entries": [],
                                "result_types": [shape.text], "implicit": True})
        ret = _ParsedOp.parsed(f"_{ins.name}_ret", "stablehlo.return", "stablehlo.return", Shape("tuple"), [res],
                               Attributes.of_source({}, None), line, col, span, 0,
                               {"results": [], "generic": True, "entries": [], "result_types": [],
                                "terminator": True, "implicit": True})
        for x in (res, ret):
            x.attributes._decode = _Decoder(x)
            x.operand_results = [0] * len(x.operands)
            x.computation = comp
        comp.instructions = params + [res, ret]
        comp.root = res
        comp.dialect_data.update(entry_args=params, term=ret, implicit=True,
                                 blocks=[{"label": None, "args": params, "lead": None}])
        ins.called_computations = [comp]
        return comp

    # -- finishing --
    def finish(self) -> None:
        mod = self.module
        funcs = [it["func"] for it in mod.dialect_data["body"] if "func" in it]
        order: list[Computation] = []
        for comp in self.comps:
            if comp.parent is None:
                order.append(comp)
        # Regions after the functions, in text order.
        for comp in self.comps:
            if comp.parent is not None:
                order.append(comp)
        by_name = {f.name: f for f in funcs}
        compact_groups: list[_ParsedOp] = []
        # One pass over the instructions (each pass over every one of them was a twentieth
        # of a parse): implicit reducers (their bodies go after the text's regions, and are
        # passed over in turn), calls, mesh-axes replica groups, the computations' roots.
        n_text = len(order)
        for c, comp in enumerate(order):
            # Every instruction is still the parser's own.
            for ins in cast("list[_ParsedOp]", comp.instructions):
                op = ins.source_op
                if op == "stablehlo.reduce" and not ins._called_computations and c < n_text:
                    body = self.implicit_reducer(ins)
                    if body is not None:
                        order.append(body)
                elif op == "func.call":
                    # The callee, like HLO's call to_apply=, for the call graph.
                    callee = by_name.get(ins._dialect_data.get("sym") or _callee(ins))
                    if callee is not None:
                        ins.called_computations = ins.called_computations + [callee]
                rg = ins.attributes.source_texts().get("replica_groups")
                if rg is not None and "mesh_axes" in rg:
                    compact_groups.append(ins)
            term = comp.dialect_data.get("term")
            if term is not None and len(term.operands) == 1 and term.operands[0].computation is comp:
                # The shared vocabulary's ROOT: what the terminator returns.
                comp.root = term.operands[0]
        names: set[str] = set()
        for comp in order:
            if comp.name in names:
                comp.name = f"{comp.name}.{len(names)}"
            names.add(comp.name)
        _add_computations(mod, order)
        for ins in compact_groups:
            # Mesh-axes groups are checked (and capped) now, with the module's
            # meshes at hand (validate=True decoded them before it was); expanded
            # when read.
            if ins.attributes._decoded:
                ins.attributes._decoded.pop("replica_groups", None)
            ins.attributes["replica_groups"]  # noqa: B018 - decoding is the check
        entry = None
        for f in funcs:
            if f.name == "main":
                entry = f
                break
        if entry is None:
            for f in funcs:
                if f.dialect_data["func"].dialect_data.get("visibility") != "private":
                    entry = f
                    break
        mod.entry = entry or (funcs[0] if funcs else None)
        if not mod.name:
            mod.name = "module"
        # Instructions are born unchanged (they have a source span), so only
        # the computations are reset: a pass over every instruction of a large
        # module is not free.
        for comp in order:
            comp.changed = False
        mod.structure_changed = False
        if self.validate:
            for f in funcs:
                for p in f.instructions:
                    if p.opcode != "parameter":
                        break
                    try:
                        A.check(p.dialect_data["type"], "type")
                    except A.AttrDecodeError as err:
                        raise self.error_at(f"type: {err.reason}", p.span[0]) from None


_DICT_KEY = re.compile(r'\s*+(?:([A-Za-z_][\w$.]*+)|"((?:[^"\\\n]++|\\.)*+)")?\s*+')
# Every part of it is optional: it matches anywhere, never None.
_dict_key_at = cast("Callable[[str, int, int], re.Match[str]]", _DICT_KEY.match)


def _dict_entries(text: str, start: int, end: int, place: str) -> list[list[Any]] | None:
    """The entries ``parse_dict`` makes of the dictionary token text[start:end] (one line,
    braces balanced), read without tokens: names, then values up to a ',' or closing bracket
    outside brackets and strings.  None where that scan would fail or read otherwise (a
    bracket out of order, a missing name or value): the token scanner then says what."""
    out: list[list[Any]] = []
    pos = start + 1
    last = end - 1  # the closing '}'
    key_at = _dict_key_at
    marks = MARKS.search
    while True:
        km = key_at(text, pos, last + 1)
        name, quoted = km.group(1), km.group(2)
        pos = km.end()
        if name is None and quoted is None:
            # No name: the end (an empty dictionary, or a ',' before the '}').
            return out if pos == last else None
        val = None
        if text[pos] == "=":
            vs = pos = pos + 1
            stack: list[str] = []
            while True:
                m = marks(text, pos, end)
                if m is None:
                    return None
                c = m.group()
                pos = m.end()
                if c in "([{<":
                    stack.append(c)
                elif c in ")]}>":
                    if not stack:
                        pos = m.start()
                        break
                    if _CLOSE[c] != stack.pop():
                        return None
                elif c == "," and not stack:
                    pos = m.start()
                    break
            val = text[vs:pos].strip()
            if not val:
                return None
        out.append([name if name is not None else quoted, val, place])
        if pos == last:
            return out
        if text[pos] != ",":
            return None
        pos += 1


def _unknown_op(name: str) -> str:
    return (f"unknown operation '{name}': the {name.partition('.')[0]} dialect has no op of that name "
            "(a misspelling, or an op newer than hlo_passes knows)")


def unknown_ops(module: Module) -> list[tuple[str, str, int, int]]:
    """(``op``, name, line, column) of each op a StableHLO module names in the namespace of a
    dialect hlo_passes knows (stablehlo, mhlo, chlo, sdy, func) that the dialect has no op of
    (``dialect_ops``): carried through as text with ``validate=False``, like an unknown HLO
    opcode (``hlo-lint -v`` names them)."""
    out = []
    for item in module.dialect_data.get("body", ()):
        op = item.get("op") or (item["func"].dialect_data["func"] if "func" in item else None)
        if op is not None and is_unknown_op(op.source_op):
            out.append(("op", op.source_op, op.line, op.column))
    for instr in module.instructions():
        if is_unknown_op(instr.source_op):
            out.append(("op", instr.source_op, instr.line, instr.column))
    return out


def _later_in_block(user: Instruction, value: Instruction) -> bool:
    """Whether ``value``, found only after ``user`` was read, sits in the block that holds
    ``user`` (or the op whose region holds it): a use before the definition."""
    if value.opcode == "parameter":
        return False  # a block argument: defined at its block's start
    comp = value.computation
    at: Instruction | None = user
    while at is not None and at.computation is not comp:
        outer = at.computation
        at = outer.parent if outer is not None else None
    if at is None:
        return False
    same_block: bool = at.dialect_data.get("blk", 0) == value.dialect_data.get("blk", 0)
    return same_block


def _line_template(instr: _ParsedOp, lo: _LineOp) -> _LineTemplate | None:
    """The template of the line shape of ``lo``, made of ``instr``, the token scan of that
    line (``lo.parts``: the text between and the operand names; ``lo.sig``: what
    ``_read_sig`` made of its signature); None when the shape needs the token scanner
    (a name inside an attribute value, a region, a part of the op's data the template
    cannot fill in).  With a leading symbol (``lo.sym``) it must be the op's one symbol
    entry; a scalar constant's value must be kept nowhere."""
    m, parts, sig, sym = lo.m, lo.parts, lo.sig, lo.sym
    const_value = lo.key[4] == " dense<>"
    dd = instr.dialect_data
    if instr._called_computations or not _LINE_KEYS.issuperset(dd):
        return None
    res = m.group(L_RES)
    if dd["results"] != ([(res[1:], 1)] if res is not None else []):
        return None
    # Every operand name of the line is a use, in order, and nothing else is.
    offs = []
    p = m.start(L_REST)
    for n, part in enumerate(parts):
        if n % 2:
            offs.append((p, p + len(part)))
        p += len(part)
    if dd["opnd_pos"] != offs or len(instr.operands) != len(offs):
        return None
    entries = dd["entries"]
    for e in entries:
        if e[1] is not None and "%" in e[1]:
            return None
    if any("%" in x for x in dd.get("strs", ())) or "%" in dd.get("sym", ""):
        return None
    sig_at = m.start(L_SIG)
    if "colon" in dd and dd["colon"] != sig_at - 2:
        return None
    if dd.get("loc") != m.group(L_LOC):
        return None
    if "sig" in dd and dd["sig"] != (sig_at, m.end(L_SIG)):
        return None
    if dd["result_types"] != sig.res_types or instr.shape != sig.shape:
        return None
    raw = instr.attributes.source_texts()
    t = _LineTemplate()
    t.sym_entry = None
    if sym is not None:
        at = "@" + sym
        where = [n for n, e in enumerate(entries) if e[1] is not None and sym in e[1]]
        if (dd.get("sym") != sym or len(where) != 1 or entries[where[0]][:3] != ["@", at, "pretty"]
                or not isinstance(entries[where[0]][3], str) or raw.get(entries[where[0]][3]) != at
                or sum(1 for v in raw.values() if v is not None and sym in v) != 1
                or any(sym in x for x in [*dd.get("strs", ()), *dd.get("words", ())])):
            return None
        t.sym_entry = where[0]
    if const_value and (entries or raw or "strs" in dd or dd.get("words") != ["dense"]):
        return None
    t.proto = dict(dd)
    t.raw = raw or None
    t.opcode, t.src_op, t.nres = instr.opcode, instr.source_op, instr.num_results
    rest = m.start(L_REST)
    t.body_off = None if dd.get("body_start") is None else dd["body_start"] - rest
    t.short = instr.source_op.rsplit(".", 1)[-1]
    # Which of the line's own values its dialect_data holds.
    t.fill = ("colon" in dd, "loc" in dd, "sig" in dd)
    return t


def _add_computations(mod: Module, order: list[Computation]) -> None:
    """``mod.add_computation`` for each of ``order``; the graph is built on its first use."""
    comps = mod.computations
    for comp in order:
        comp.module = mod
        comps[comp.name] = comp


def _callee(ins: Instruction) -> str | None:
    for e in ins.dialect_data.get("entries", ()):
        if e[0] == "callee" and e[1] and e[1].startswith("@"):
            callee: str = e[1][1:].strip('"')
            return callee
    return None


def _normalised_attributes(src_op: str, entries: list[list[Any]]) -> dict[str, str | None]:
    """The attributes of an op under HLO's names, as text, from its MLIR entries (each entry
    gets its HLO key appended, for the printer)."""
    raw: dict[str, str | None] = {}
    for ent in entries:
        key, val = ent[0], ent[1]
        hk = A.hlo_key(src_op, key)
        ent.append(hk)
        positional = key in ("[]", "@", "<>")
        if positional and hk == key:
            continue
        for h in (hk if isinstance(hk, tuple) else (hk,)):
            if h in A.DECODED_KEYS or isinstance(hk, tuple):
                piece = val if positional else (key if val is None else f"{key} = {val}")
            else:
                piece = val if val is not None else "unit"
            raw[h] = f"{raw[h]}, {piece}" if h in raw and h in ("slice", "padding") else piece
    return raw


class _Decoder:
    """Decodes one instruction's attributes on demand; failures become ParseErrors at the op."""

    __slots__ = ("instr",)

    def __init__(self, instr: Instruction) -> None:
        self.instr = instr

    def rebind(self, instr: Instruction) -> "_Decoder":
        """The decoder of ``instr``'s attributes (``Module.clone``)."""
        return _Decoder(instr)

    def __call__(self, key: str, raw: str) -> Any:
        instr = self.instr
        try:
            if key == "replica_groups":
                module = instr.module
                meshes = module.attributes.get("sdy.meshes") if module is not None else None
                return A.decode_attribute(instr.source_op, key, raw, meshes)
            return A.decode_attribute(instr.source_op, key, raw)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError, RecursionError) as e:
            reason = e.reason if isinstance(e, A.AttrDecodeError) else f"{type(e).__name__}: {e}"
            module = instr.module
            source_line = None
            path = None
            if module is not None:
                path = module.path
                lines = module.source.split("\n", instr.line)
                if 0 < instr.line <= len(lines):
                    source_line = lines[instr.line - 1]
            column = instr.column
            if source_line is not None:
                # Point at the attribute when it is on the op's first line.
                at = source_line.find(raw[:200], max(instr.column - 1, 0))
                column = at + 1 if at >= 0 else column
            raise ParseError(f"attribute '{key}' of {instr.source_op}: {reason}", path=path,
                             line=instr.line, column=column, source_line=source_line) from None


def read_stablehlo(text: str, path: str | None = None, validate: bool = False) -> Module:
    """Parse StableHLO/MLIR text into a ``Module``; bad input raises ``ParseError``.

    The text layer (``hlo_passes.text``) gives the module its printer.

    ``validate=True`` also runs the lark grammar over every attribute value
    and type and decodes every normalised attribute.
    """
    if not isinstance(text, str):
        raise TypeError("parse_stablehlo expects str")
    limit = sys.getrecursionlimit()
    # The parser allocates many small objects and no reference cycles that
    # need collecting meanwhile; pausing the cyclic GC saves a third of the time
    # (_gc says why what it built is then promoted, and how that stays bounded).
    p: _Parser | None = None
    try:
        with collector_paused():
            p = _Parser(text, path, validate)
            try:
                mod = p.parse()
            except _AGAIN:
                if not p.fast:
                    raise
                # A line-op token stood where no op starts, or the text is bad: read by
                # tokens only, which say what is wrong where the scanner meets it.
                p = _Parser(text, path, validate, fast=False)
                mod = p.parse()
            for comp in mod.computations.values():
                if comp.parent is None:
                    f = comp.dialect_data.get("func")
                    if f is not None:
                        _func_info(p, f, comp)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError.at("input nested too deeply", text, p.op_start if p else 0, path) from None
    except (ValueError, IndexError, KeyError, TypeError, AttributeError) as e:
        # A scanner invariant broke on malformed input: still a ParseError, at the op being read.
        raise ParseError.at(f"malformed input ({type(e).__name__}: {e})", text, p.op_start if p else 0,
                            path) from None
    finally:
        sys.setrecursionlimit(limit)
    return mod


_VISIBILITY = re.compile(r"\s*func\.func\s+(public|private|nested)?")


def _func_info(p: _Parser, f: _ParsedOp, comp: Computation) -> None:
    """Visibility, result types and attributes of a func.func, for the printer."""
    dd = f.dialect_data
    comp.dialect_data["visibility"] = None
    if not dd.get("generic"):
        m = _VISIBILITY.match(p.text, f.span[0], comp.dialect_data.get("open", f.span[1]))
        if m and m.group(1):
            comp.dialect_data["visibility"] = m.group(1)
            dd["visibility"] = m.group(1)
