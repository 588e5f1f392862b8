"""The MLIR lexer: StableHLO / MLIR text → token kinds and positions.

One regular expression tokenizes the whole text in a linear scan; each token is
its kind (``ID``, ``VAL``, ``NUM``, ... or the punctuation character itself), its
start and its end, in three parallel lists (``k``, ``s``, ``e``), plus the
offsets of the newlines (``line_col``).  A parser builds on ``MlirLexer``: with
``line_ops`` a whole one-line op may stand as one token, made by the parser's
``line_op`` hook (the lexer alone makes none).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from ..errors import ParseError

# One alternative per token kind; trailing blanks ride along with each token
# so that whitespace never costs a match of its own.
# Possessive: the two alternatives start apart, so giving characters back never
# helps, and an unclosed string fails in one pass without a backtracking stack.
_STR = r'"(?:[^"\\\n]|\\.)*+"'
# A location with up to three levels of nested parentheses is one token
# (deeper ones fall back to 'loc' '(' ... ')'); the alternatives inside are
# disjoint, so matching stays linear (and possessive: no backtracking stack).
_L0 = rf'(?:[^()"\n]|{_STR})*+'
_L1 = rf'(?:[^()"\n]|{_STR}|\({_L0}\))*+'
_L2 = rf'(?:[^()"\n]|{_STR}|\({_L1}\))*+'
# A whole one-line op in the forms printers use (``%r = op ... : types
# loc(...)``), matched after a newline: such a line becomes one token instead
# of twenty (see ``_Parser.line_op``).  The op name and the last ' : ' are
# possessive or literal, and the text between them bounded, so that a line
# that is not one fails fast.
_TY = r'(?:tensor<[\w?]*>|!?[A-Za-z_][\w.]*+)'
_TYS = rf'{_TY}(?:, {_TY})*'
_SIG = rf'(?:\((?:{_TYS})?\) -> (?:{_TY}|\((?:{_TYS})?\))|{_TYS})'
_LINE = (rf'(?:(%[\w$.\-]++) = )?'                       # result
         r'([A-Za-z_][\w$]*+(?:\.[\w$.]++)?|"[\w$.]++")'  # op name, pretty or generic
         r'([^\n]{0,1000}?)'                                # operands and attributes
         rf' : ({_SIG})(?: (loc\({_L2}\)))?')                # signature, location
_TOKEN = re.compile(
    r'(//[^\n]*)'                            # 1 comment
    rf'|({_STR})'                             # 2 string
    r'|(%[\w$.\-]+(?:\#\d+)?)'                # 3 value
    r'|(\^[\w$.\-]+)'                         # 4 block
    rf'|(@(?:[\w$.\-]+|{_STR}))'              # 5 symbol
    r'|(\#[\w$.\-]+)'                         # 6 attribute alias / dialect attr
    r'|(![\w$.\-]+)'                          # 7 type alias / dialect type
    r'|(->)'                                  # 8 arrow
    r'|([-+]?\d[\w.]*(?:[+-]\d+)?)'           # 9 number
    r'|(tensor<[\w?]*>)'                      # 10 plain tensor type (no encoding)
    rf'|(loc\({_L2}\))'                       # 11 location
    r'|([A-Za-z_][\w$.]*)'                    # 12 identifier
    r'|(\S)[^\S\n]*'                          # 13 punctuation
    rf'|(\n)(?:[^\S\n]*+(?=[%A-Za-z_"])({_LINE})[^\S\n]*+(?=\n))?'  # 14 newline, 15 op line
)
COMMENT, STR, VAL, BLK, SYM, HASH, BANG, ARROW, NUM, TYPE, LOC, ID, PUNCT, NL, LINE = range(1, 16)
L_RES, L_OP, L_REST, L_SIG, L_LOC = range(16, 21)
EOF = 0
# A line after one of these tokens continues an op (or is inside brackets);
# after a blank or comment line the context is unknown: tokens, as before.
_NO_LINE_AFTER = frozenset((ARROW, ",", ":", "=", "(", "[", "<", NL))


def _continues(word: str) -> bool:
    """Does a line starting with ``word`` go on with the op of the line before (``is_continuation``)?"""
    return "." not in word and word not in ("return", "module", "func", "call")


class MlirLexer:
    """The token lists of one text (see the module docstring)."""

    def __init__(self, text: str, path: str | None, line_ops: bool = False) -> None:
        self.text = text
        self.path = path
        kinds: list[Any] = []
        starts: list[int] = []
        ends: list[int] = []
        newlines: list[int] = []
        self.k, self.s, self.e, self.newlines = kinds, starts, ends, newlines
        ka, sa, ea, na = kinds.append, starts.append, ends.append, newlines.append
        lines = line_ops
        # Every call per token shows (a 4 MB module without line ops has half
        # a million tokens), so the one-character kinds take their end from
        # the start.  A line op is kept back (``held``: the newlines after it) until the
        # next line shows that the op does not go on there (``reducer(...)``).
        pend: Any = None
        held: list[int] = []
        cont = False
        for m in _TOKEN.finditer(text):
            k = m.lastindex
            st = m.start()
            if pend is not None:
                if k == NL:
                    held.append(st)
                    continue
                if k == COMMENT:
                    continue
                if k == LINE:
                    cont = m.group(L_RES) is None and _continues(m.group(L_OP))
                elif k == ID:
                    cont = _continues(text[st:m.end(k)])
                else:
                    cont = k == ARROW or k == PUNCT and text[st] in ":{"
                self.put_line(pend, cont, held)
                pend = None
                held = []
            else:
                cont = False
            if k == PUNCT:
                if text[st] == '"':
                    # A quote the string pattern did not take never closes on its line.  Stop
                    # here: scanning on, every later quote would start a failing match to the
                    # end of the line again (quadratic on a run of \" ).
                    raise self.error_at("unterminated string (strings end on the line they start)", st)
                ka(text[st])
                sa(st)
                ea(st + 1)
            elif k == NL or k == LINE:
                # (A line that goes on with the op before it is no op of its own.)
                if k == LINE and lines and not cont and kinds and kinds[-1] not in _NO_LINE_AFTER:
                    pend = self.line_op(m, len(newlines) + 2)
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
                if k == LINE and pend is None:
                    self.line_tokens(m.start(LINE), m.end(LINE))
            elif k != COMMENT:
                ka(k)
                sa(st)
                ea(m.end(k))
        if pend is not None:
            self.put_line(pend, False, held)
        # Strings and comments never span lines, so these are all the newlines.
        self.n = len(kinds)
        for _ in range(2):
            ka(EOF)
            sa(len(text))
            ea(len(text))

    def line_op(self, m: re.Match, line: int) -> Any:
        """A token standing for the whole op line ``m`` (of ``_LINE``), or None for its tokens:
        the parser's hook."""
        return None

    def line_tokens(self, a: int, b: int) -> None:
        """Tokens of the text between ``a`` and ``b`` (within one line)."""
        text = self.text
        ka, sa, ea = self.k.append, self.s.append, self.e.append
        for m in _TOKEN.finditer(text, a, b):
            k = m.lastindex
            st = m.start()
            if k == PUNCT:
                if text[st] == '"':
                    raise self.error_at("unterminated string (strings end on the line they start)", st)
                ka(text[st])
                sa(st)
                ea(st + 1)
            elif k != COMMENT:
                ka(k)
                sa(st)
                ea(m.end(k))

    def put_line(self, op: Any, cont: bool, held: list[int]) -> None:
        """Emit a kept-back line op (its tokens if the op goes on), then the newlines after it."""
        if cont:
            self.line_tokens(*op.m.span(LINE))
        else:
            self.k.append(op)
            self.s.append(op.m.start(LINE))
            self.e.append(op.m.end(LINE))
        for st in held:
            self.k.append(NL)
            self.s.append(st)
            self.e.append(st + 1)
            self.newlines.append(st)

    def error_at(self, reason: str, pos: int) -> ParseError:
        return ParseError.at(reason, self.text, pos, self.path)

    def line_col(self, pos: int) -> tuple[int, int]:
        n = bisect_left(self.newlines, pos)
        return n + 1, pos - (self.newlines[n - 1] if n else -1)
