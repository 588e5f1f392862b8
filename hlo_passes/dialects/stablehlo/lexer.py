"""The MLIR lexer: StableHLO / MLIR text → token kinds and positions.

One regular expression tokenizes the whole text in a linear scan; each token is
its kind (``ID``, ``VAL``, ``NUM``, ... or the punctuation character itself), its
start and its end, in three parallel lists (``k``, ``s``, ``e``), plus the
offsets of the newlines (``line_col``).  The reference scan takes one token per
word or punctuation character; the fast scans take what the scanners only ever
take whole as one token (a block argument, an op's function type, a one-line
attribute dictionary) and, on large texts, a whole one-line op (made by the
parser's ``line_op`` hook; the lexer alone makes none) and a location alias
definition on a line of its own.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING, Any, Protocol, cast

from ...errors import ParseError

# One alternative per token kind; trailing blanks ride along with each token
# so that whitespace never costs a match of its own.
# Possessive: the two alternatives start apart, so giving characters back never
# helps, and an unclosed string fails in one pass without a backtracking stack.
# Runs of plain characters are taken whole (a fifth of the lexer's regex time
# on a text with debug info went to taking them one by one).
_STR = r'"(?:[^"\\\n]++|\\.)*+"'


def _nested(plain: str, open_: str, close: str, depth: int) -> str:
    """What may stand inside ``open_`` ... ``close`` nested ``depth`` more levels deep: runs of
    ``plain`` characters, strings, bracket pairs.  The alternatives start apart, so matching
    stays linear (and possessive: no backtracking stack)."""
    inner = rf'(?:{plain}++|{_STR})*+'
    for _ in range(depth):
        inner = rf'(?:{plain}++|{_STR}|{open_}{inner}{close})*+'
    return inner


# A location with up to three levels of nested parentheses is one token
# (deeper ones fall back to 'loc' '(' ... ')').
_L2 = _nested(r'[^()"\n]', r'\(', r'\)', 2)
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


# Coarse tokens of the fast scans (``MlirLexer(..., mode="coarse" or "lines")``): what the token scanner
# only ever takes whole, one match instead of five to twenty-five.
# An attribute dictionary on one line, nested at most three deep, without SSA values or
# blocks (so that no scanner could take it for a region) or comments: ``{name = ..., name}``.
_D2 = _nested(r'[^{}"\n%^/]', r'\{', r'\}', 2)
_DICT = rf'\{{(?=(?:[A-Za-z_][\w$.]*|{_STR})[^\S\n]*[=,}}]){_D2}\}}'
# A block or function argument ``%x: type {attributes} loc(...)`` before its ',' or ')'.
_BARG = rf'%[\w$.\-]+: {_TY}(?: {_DICT})?(?: loc\({_L2}\))?(?=[,)])'
# A function type ending a line (or followed by its location): an op's signature.
_FN_SIG = rf'\((?<= : \()(?:{_TYS})?\) -> (?:{_TY}|\((?:{_TYS})?\))(?=[^\S\n]*+(?:\n|\Z)| loc\()'


# Each alternative starts with a character or a set of them and ends with an empty group
# whose number is the token's kind (``m.lastindex``): the regular expression engine skips
# an alternative whose first character cannot match without entering it (a capturing group
# around each, as before, had every alternative tried at every token: two fifths of the
# scan's time).  The newline and the punctuation that starts no other token (a third of a
# text's tokens) come first, so that they are not tried against every other alternative
# (an eighth of the scan's time); the rest in the order their overlaps need.
_NL = r'\n()'                                 # newline (the fast scans: an op or alias line may follow)
_PUNCT_FIRST = r'|[),:=<>}\[\]]()[^\S\n]*'   # punctuation that starts no other token
_COMMON = (
    r'|//[^\n]*()'                           # comment
    rf'|{_STR}()'                             # string
    r'|%[\w$.\-]+(?:\#\d+)?()'                # value
    r'|\^[\w$.\-]+()'                         # block
    rf'|@(?:[\w$.\-]+|{_STR})()'              # symbol
    r'|\#[\w$.\-]+()'                         # attribute alias / dialect attr
    r'|![\w$.\-]+()'                          # type alias / dialect type
    r'|->()'                                  # arrow
    r'|[-+]?\d[\w.]*(?:[+-]\d+)?()'           # number
    r'|tensor<[\w?]*>()'                      # plain tensor type (no encoding)
    rf'|loc\({_L2}\)()'                       # location
    r'|[A-Za-z_][\w$.]*()'                    # identifier
    r'|\S()[^\S\n]*'                          # other punctuation
)
COMMENT, STR, VAL, BLK, SYM, HASH, BANG, ARROW, NUM, TYPE, LOC, ID, PUNCT, NL = range(1, 15)
# Kinds of the fast scan's own tokens.
LINE, ALIAS, BARG, SIG, DICT = range(15, 20)
_COMMON_KINDS = (COMMENT, STR, VAL, BLK, SYM, HASH, BANG, ARROW, NUM, TYPE, LOC, ID, PUNCT)
# The reference scan, token by token (small texts, validate=True, a text read again).
# Group numbers: 1 the newline, 2 the first punctuation, 3-15 the others.
_TOKEN_PLAIN = re.compile(_NL + _PUNCT_FIRST + _COMMON)
# The fast scan: after a newline a whole op line or a location alias line, then the coarse
# tokens, then the reference's.  Group numbers: 1 the newline, 2 the op line with its parts
# 3-7, 8 and 9 the alias's name and value, 10 the first punctuation, 11-13 the coarse
# tokens, 14-26 the reference's others.
_COARSE = rf'|{_BARG}()|{_FN_SIG}()|{_DICT}()'
_ALIAS_LINE = rf'(\#[\w$.\-]+) = (loc\({_L2}\))[^\S\n]*+(?=\n)'
_TOKEN = re.compile(
    _NL + rf'(?:[^\S\n]*+(?=[%A-Za-z_"])({_LINE})[^\S\n]*+{_NEXT_STARTS_OP}|{_ALIAS_LINE})?'
    + _PUNCT_FIRST + _COARSE + _COMMON
)
# Coarse tokens and alias lines, no op lines (a small text: few lines of one shape).  Group
# numbers: 1 the newline, 2 and 3 the alias's name and value, 4 the first punctuation, 5-7
# the coarse tokens, 8-20 the reference's others.
_TOKEN_COARSE = re.compile(_NL + rf'(?:{_ALIAS_LINE})?' + _PUNCT_FIRST + _COARSE + _COMMON)
G_LINE, L_RES, L_OP, L_REST, L_SIG, L_LOC, A_NAME, A_VALUE = range(2, 10)
# Group numbers of an alias line's name and value in the coarse scan.
COARSE_A_NAME, COARSE_A_VALUE = 2, 3
# Token kind by group number (the numbers above).
_PLAIN_KINDS = (0, NL, PUNCT, *_COMMON_KINDS)
_FAST_KINDS = (0, NL, LINE, 0, 0, 0, 0, 0, 0, ALIAS, PUNCT, BARG, SIG, DICT, *_COMMON_KINDS)
_COARSE_KINDS = (0, NL, 0, ALIAS, PUNCT, BARG, SIG, DICT, *_COMMON_KINDS)
assert (len(_FAST_KINDS) == _TOKEN.groups + 1 and len(_COARSE_KINDS) == _TOKEN_COARSE.groups + 1
        and len(_PLAIN_KINDS) == _TOKEN_PLAIN.groups + 1)
if TYPE_CHECKING:
    class _Kinds(Protocol):
        """A kinds table as the scans index it: by ``Match.lastindex``, which is never None
        there, since every alternative of the token patterns is a group."""

        def __getitem__(self, group: int | None, /) -> int: ...
# The three tables as such (typed once here: line_tokens runs for many lines).
_PLAIN_BY_GROUP, _COARSE_BY_GROUP, _FAST_BY_GROUP = cast("tuple[_Kinds, _Kinds, _Kinds]",
                                                         (_PLAIN_KINDS, _COARSE_KINDS, _FAST_KINDS))
# The pieces of a block-argument token: name, type, attributes, location.
_BARG_PARTS = re.compile(rf'%([\w$.\-]+): ({_TY})(?: ({_DICT}))?(?: (loc\({_L2}\)))?')
# The places in a coarse token that the token scanner counts brackets at: brackets; strings,
# names with a '-' in them (#a-, !a-, @a-) and '->' passed over as its tokens are.
MARKS = re.compile(r'"(?:[^"\\\n]++|\\.)*+"|[#!@][\w$.\-]++|->|[(){}\[\]<>,]')
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
# How deep the scanners nest brackets (the parser's MAX_DEPTH of four kinds).
MAX_BRACKETS = 480


def balanced(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] closes every bracket it opens, in order and at most
    ``MAX_BRACKETS`` deep, as the token scanner counts them: a coarse token that stands for
    tokens the scanner would pass over whole (``skip_balanced``)."""
    stack: list[str] = []
    for m in MARKS.finditer(text, start, end):
        c = m.group()
        if c in "([{<":
            stack.append(c)
            if len(stack) > MAX_BRACKETS:
                return False
        elif c in ")]}>" and (not stack or stack.pop() != _PAIRS[c]):
            return False
    return not stack


EOF = 0
# Kinds the scan does more with than keep the token (a comment it drops).
_SPECIAL = frozenset((LINE, ALIAS, DICT, BARG, COMMENT))
# A line after one of these tokens continues an op (or is inside brackets);
# after a blank or comment line the context is unknown: tokens, as before.
_NO_LINE_AFTER = frozenset((ARROW, ",", ":", "=", "(", "[", "<", NL))


class MlirLexer:
    """The token lists of one text (see the module docstring)."""

    def __init__(self, text: str, path: str | None, mode: str = "plain") -> None:
        self.text = text
        self.path = path
        self.bargs_made = 0
        kinds: list[Any] = []
        starts: list[int] = []
        ends: list[int] = []
        newlines: list[int] = []
        self.k, self.s, self.e, self.newlines = kinds, starts, ends, newlines
        ka, sa, ea, na = kinds.append, starts.append, ends.append, newlines.append
        # "plain": the reference scan; "coarse": with the coarse tokens; "lines": with those
        # and whole op lines and location alias lines.
        self.fast = mode != "plain"
        lines = mode == "lines"
        # Line-op tokens made (the parser reads each as an op: ``_Parser.parse``).
        made = 0
        # Every call per token shows (a 4 MB module without line ops has half
        # a million tokens), so the one-character kinds take their end from
        # the start.
        self.sub_pattern = _TOKEN_COARSE if self.fast else _TOKEN_PLAIN
        kind_of = _FAST_BY_GROUP if lines else _COARSE_BY_GROUP if self.fast else _PLAIN_BY_GROUP
        # Group numbers of an alias line's name and value in this scan's pattern.
        a_name, a_value = (A_NAME, A_VALUE) if lines else (COARSE_A_NAME, COARSE_A_VALUE)
        for m in (_TOKEN if lines else self.sub_pattern).finditer(text):
            k = kind_of[m.lastindex]
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
            elif k == NL:
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
            elif k not in _SPECIAL:
                ka(k)
                sa(st)
                ea(m.end())
            elif k == LINE:
                # A whole op line (one a line: inline, a call each showed): its newline, then the
                # parser's one token for the op or the line's tokens.
                ka(NL)
                sa(st)
                ea(st + 1)
                na(st)
                # (A line that goes on with the op before it is no op of its own.)
                op = None
                if len(kinds) > 1 and kinds[-2] not in _NO_LINE_AFTER:
                    op = self.line_op(m, len(newlines) + 1)
                if op is None:
                    self.line_tokens(m.start(G_LINE), m.end(G_LINE))
                else:
                    made += 1
                    ka(op)
                    sa(m.start(G_LINE))
                    ea(m.end(G_LINE))
            elif k == ALIAS:
                self.alias_def_line(m, a_name, a_value)
            elif k == DICT or k == BARG:
                self.coarse_token(m, k)
        self.line_ops_made = made
        # Block-argument tokens made (each must be read as one: ``_Parser.parse``).
        if self.fast:
            self.bargs_made += kinds.count(BARG)
        # Strings and comments never span lines, so these are all the newlines.
        self.n = len(kinds)
        for _ in range(2):
            ka(EOF)
            sa(len(text))
            ea(len(text))

    # The scan's rarer special tokens (a location alias line, a one-line argument or attribute
    # dictionary): methods of their own, off the per-token branches.
    def alias_def_line(self, m: re.Match[str], a_name: int, a_value: int) -> None:
        """A location alias definition on its own line (groups ``a_name``, ``a_value``)."""
        kinds = self.k
        st = m.start()
        kinds.append(NL)
        self.s.append(st)
        self.e.append(st + 1)
        self.newlines.append(st)
        # Its tokens are balanced, so the token stands for them wherever the scanners
        # only count brackets; not where a line goes on with what came before.
        if len(kinds) > 1 and kinds[-2] not in _NO_LINE_AFTER:
            kinds.append(ALIAS)
            self.s.append(m.start(a_name))
            self.e.append(m.end(a_value))
        else:
            self.line_tokens(m.start(a_name), m.end(a_value))

    def coarse_token(self, m: re.Match[str], k: int) -> None:
        """A one-line attribute dictionary or block argument (``k``): one token where its
        brackets balance, else its reference tokens."""
        text, st, end = self.text, m.start(), m.end()
        # (An argument without attributes or location, ``%x: type``, has one blank and its
        # brackets balance: ``_TY`` holds no blank, and no bracket inside its '<>'.)
        if (k == BARG and text.count(" ", st, end) == 1) or balanced(text, st, end):
            self.k.append(k)
            self.s.append(st)
            self.e.append(end)
        else:
            # (Brackets out of order in it: the scanner reports them where they stand.)
            self.line_tokens(st, end, _TOKEN_PLAIN)

    def line_op(self, m: re.Match[str], line: int) -> Any:
        """A token standing for the whole op line ``m`` (of ``_LINE``), or None for its tokens:
        the parser's hook."""
        return None

    def line_tokens(self, a: int, b: int, pattern: re.Pattern[str] | None = None) -> None:
        """Tokens of the text between ``a`` and ``b`` (within one line), by ``pattern`` (else the
        scan's own: coarse tokens in a fast scan)."""
        text = self.text
        ka, sa, ea = self.k.append, self.s.append, self.e.append
        pattern = pattern or self.sub_pattern
        kind_of = _PLAIN_BY_GROUP if pattern is _TOKEN_PLAIN else _COARSE_BY_GROUP
        for m in pattern.finditer(text, a, b):
            k = kind_of[m.lastindex]
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
                ea(m.end())

    def error_at(self, reason: str, pos: int) -> ParseError:
        return ParseError.at(reason, self.text, pos, self.path)

    def line_col(self, pos: int) -> tuple[int, int]:
        n = bisect_left(self.newlines, pos)
        return n + 1, pos - (self.newlines[n - 1] if n else -1)
