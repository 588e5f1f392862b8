"""The MLIR lexer: StableHLO / MLIR text → token kinds and positions.

One regular expression tokenizes the whole text in a linear scan; each token is
its kind (``ID``, ``VAL``, ``NUM``, ... or the punctuation character itself), its
start and its end, in three parallel lists (``k``, ``s``, ``e``), plus the
offsets of the newlines (``line_col``).  A parser builds on ``MlirLexer``: with
``line_ops`` a whole one-line op may stand as one token, made by the parser's
``line_op`` hook (the lexer alone makes none), and a location alias definition
on a line of its own is always one ``ALIAS`` token.
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
# Runs of plain characters are taken whole (a fifth of the lexer's regex time
# on a text with debug info went to taking them one by one).
_STR = r'"(?:[^"\\\n]++|\\.)*+"'
# A location with up to three levels of nested parentheses is one token
# (deeper ones fall back to 'loc' '(' ... ')'); the alternatives inside are
# disjoint, so matching stays linear (and possessive: no backtracking stack).
_L0 = rf'(?:[^()"\n]++|{_STR})*+'
_L1 = rf'(?:[^()"\n]++|{_STR}|\({_L0}\))*+'
_L2 = rf'(?:[^()"\n]++|{_STR}|\({_L1}\))*+'
# A whole one-line op in the forms printers use (``%r = op ... : types
# loc(...)``), matched after a newline: such a line becomes one token instead
# of twenty (see ``_Parser.line_op``).  The op name and the last ' : ' are
# possessive or literal, and the text between them bounded, so that a line
# that is not one fails fast.
_TY = r'(?:tensor<[\w?]*>|!?[A-Za-z_][\w.]*+)'
_TYS = rf'{_TY}(?:, {_TY})*'
_SIG = rf'(?:\((?:{_TYS})?\) -> (?:{_TY}|\((?:{_TYS})?\))|{_TYS})'
_LINE = (rf'(?:(%[\w$.\-]++) = )?'                       # result
         r'([A-Za-z_][\w$]*+\.[\w$.]++|(?:return|call)(?![\w$.])|"[\w$.]++")'  # op name
         r'([^\n]{0,1000}?)'                                # operands and attributes
         rf' : ({_SIG})(?: (loc\({_L2}\)))?')                # signature, location
# After a one-line op, the next line must start what cannot go on with it (an op, a
# result, a block, a '}', an alias, return) or the text must end.  Otherwise
# (``reducer(...)``, ``cond {``, ``-> type``, a blank or comment line) the line takes
# tokens and the scanner decides: the rule of ``is_continuation``, made stricter.
_NEXT_STARTS_OP = r'(?=\n(?:[^\S\n]*+(?:[%"^}#]|[A-Za-z_][\w$]*+\.|(?:return|module|func|call)(?![\w$.]))|\Z))'


def _token_pattern(line_ops: bool) -> re.Pattern[str]:
    """The token regular expression, with whole op lines (``line_ops``) or without: then the
    op-line branch fails at once, its groups kept for the numbering below."""
    op_line = '(?=[%A-Za-z_"])' if line_ops else "(?!)"
    return re.compile(
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
        rf'|(\n)(?:[^\S\n]*+{op_line}({_LINE})[^\S\n]*+{_NEXT_STARTS_OP}'  # 14 newline, 15 op line
        rf'|(\#[\w$.\-]+) = (loc\({_L2}\))[^\S\n]*+(?=\n))?'          # 21, 22 location alias line
    )


_TOKEN = _token_pattern(True)
# Without op lines (a small text, validate=True, a text read again by tokens): a line the
# op-line branch took would only be taken apart again.
_TOKEN_NO_LINES = _token_pattern(False)
COMMENT, STR, VAL, BLK, SYM, HASH, BANG, ARROW, NUM, TYPE, LOC, ID, PUNCT, NL, LINE = range(1, 16)
L_RES, L_OP, L_REST, L_SIG, L_LOC = range(16, 21)
# ``#loc12 = loc(...)`` on a line of its own after a newline (what MLIR prints after the
# module, a third to a half of the lines of a text with debug info): one ALIAS token
# from the name to the end of the location, where an alias may stand (see ``MlirLexer``).
A_NAME, ALIAS = 21, 22
EOF = 0
# A line after one of these tokens continues an op (or is inside brackets);
# after a blank or comment line the context is unknown: tokens, as before.
_NO_LINE_AFTER = frozenset((ARROW, ",", ":", "=", "(", "[", "<", NL))


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
        self.line_ops = lines = line_ops
        # Line-op tokens made (the parser reads each as an op: ``_Parser.parse``).
        made = 0
        # Every call per token shows (a 4 MB module without line ops has half
        # a million tokens), so the one-character kinds take their end from
        # the start.
        for m in (_TOKEN if lines else _TOKEN_NO_LINES).finditer(text):
            k = m.lastindex
            st = m.start()
            if k == PUNCT:
                if text[st] == '"':
                    # A quote the string pattern did not take never closes on its line.  Stop
                    # here: scanning on, every later quote would start a failing match to the
                    # end of the line again (quadratic on a run of \" ).
                    raise self.error_at("unterminated string (strings end on the line they start)", st)
                ka(text[st])
                sa(st)
                ea(st + 1)
            elif k == LINE:
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
                # (A line that goes on with the op before it is no op of its own.)
                op = None
                if lines and len(kinds) > 1 and kinds[-2] not in _NO_LINE_AFTER:
                    op = self.line_op(m, len(newlines) + 1)
                if op is None:
                    self.line_tokens(m.start(LINE), m.end(LINE))
                else:
                    made += 1
                    ka(op)
                    sa(m.start(LINE))
                    ea(m.end(LINE))
            elif k == ALIAS:
                # Its tokens are balanced, so the token stands for them wherever the scanners
                # only count brackets; not where a line goes on with what came before.
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
                if len(kinds) > 1 and kinds[-2] not in _NO_LINE_AFTER:
                    ka(ALIAS)
                    sa(m.start(A_NAME))
                    ea(m.end(ALIAS))
                else:
                    self.line_tokens(m.start(A_NAME), m.end(ALIAS))
            elif k == NL:
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
            elif k != COMMENT:
                ka(k)
                sa(st)
                ea(m.end(k))
        self.line_ops_made = made
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
        for m in _TOKEN_NO_LINES.finditer(text, a, b):
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

    def error_at(self, reason: str, pos: int) -> ParseError:
        return ParseError.at(reason, self.text, pos, self.path)

    def line_col(self, pos: int) -> tuple[int, int]:
        n = bisect_left(self.newlines, pos)
        return n + 1, pos - (self.newlines[n - 1] if n else -1)
