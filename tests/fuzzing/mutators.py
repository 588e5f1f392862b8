"""Seeded mutants of real HLO and StableHLO modules, one mutation class per function.

A mutant is fully determined by (campaign seed, index): ``make_mutant`` seeds
one ``random.Random`` from both, picks a seed module (even indices HLO, odd
StableHLO; half of them from the MoE samples and example programs, where the
rewrite rules have something to look at) and applies one to three mutations.
Every class below is a way real inputs go wrong or a way the outside campaign
of issue 21 broke the tool; a class that finds nothing on a fixed tool is
still worth its place, since the pre-fix commit is what shows the mutator is
not weak.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from random import Random

# Tokens of either dialect: blanks, strings, names (%x, @f, #attr, ^bb, !type),
# numbers, one punctuation character.  Only used to pick places to mutate.
TOKEN_RE = re.compile(
    r'\s+|"(?:[^"\\\n]|\\.)*"|[%@#^!$]?[A-Za-z_][\w.\-$]*|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|.', re.S
)
_NUMBER_RE = re.compile(r"(?<![\w.%#])-?\d+(?![\w.])")
# Numbers the pattern above leaves out: MLIR dimensions (tensor<4x8xf32>), result
# numbers (%0#1), and the ids that start the lines of HLO stack-frame tables.
_DIM_OR_INDEX_RE = re.compile(r"(?<=[<x#])\d+(?=[x>:,\s)\]])|^\d+(?=[ \t])", re.M)
_IDENT_RE = re.compile(r"[A-Za-z_][\w.\-]*")
_HLO_DEF_RE = re.compile(r"^([ \t]*(?:ROOT[ \t]+)?%?)([A-Za-z_][\w.\-]*)([ \t]*=[ \t]*)(.*)$", re.M)
_MLIR_DEF_RE = re.compile(r"^([ \t]*)(%[\w.\-]+)( = )(.*)$", re.M)
_HLO_OPERANDS_RE = re.compile(r"[a-z][a-z0-9\-]*\(([^()\n]*)\)")
_MLIR_VALUE_RE = re.compile(r"%[\w.\-]+")
# A bracketed list of short items with a comma (dims, ids, groups, layouts).
_LIST_RE = re.compile(r"[\[{(<]([^\[\]{}()<>\n\"]{1,200},[^\[\]{}()<>\n\"]{0,200})[\]})>]")
_HLO_SHAPE_RE = re.compile(r"\b[a-z][a-z0-9]*\[([0-9,]*)\]")
_MLIR_TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)([a-z][a-z0-9]*)>")
_SLICE_SPEC_RE = re.compile(r"\[(\d+:\d+(?::\d+)?(?:, \d+:\d+(?::\d+)?)*)\]")
_MLIR_SINGLE_RESULT_RE = re.compile(r"^([ \t]*)(%[\w.\-]+) = (.*) : (?:\([^\n]*\) -> )?(tensor<[^<>\n]*>)(?: loc\(.*\))?$",
                                    re.M)
_HLO_ARRAY_DEF_RE = re.compile(
    r"^([ \t]*)(ROOT[ \t]+)?(%?)([A-Za-z_][\w.\-]*)[ \t]*=[ \t]*([a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*\})?)[ \t]+"
    r"(?!parameter|constant|get-tuple-element)[a-z][a-z0-9\-]*\(", re.M)

HUGE_NUMBERS = (
    "9" * 4400, "-" + "9" * 4400, "1" * 25, str(2**63), str(2**64), str(-(2**63) - 1), "-1", "0",
    "4611686018427387904", "100000000", "1e400", "0x" + "F" * 40, "-0", "0" * 5000 + "1",
)
OPENERS = "({[<"
ODD_CHARS = ("\x00", "\x0b", "\x0c", "\u2028", "\u00a0", "\ufeff", "\udcff", "\u00e9", "\U0001F600", "\\", '"',
             "\r", "\t", "'", "`", "\x7f", "#", "%", "@", "^", "$")
DICTIONARY = {
    "hlo": ("{{}}", "{}", "{{0,inf}}", "{{0,1},{}}", "[4611686018427387904,2]<=[2]", "[2,2]<=[4]T(1,0)",
            "[0,2]<=[0]", "mesh['x'=100000000]{'x'}", "inf", "nan", "-inf", "-1", "%undefined", "()", "f32[]",
            "(f32[], f32[])", "token[]", "ROOT", "ENTRY", "{maximal device=-1}", "{devices=[2,1]<=[2]}",
            "index=99", "dimensions={9}", "slice={[0:1:0]}", "f32[0]", "s32[-1]", "f32[2]{0,0}", "u2[4]",
            "to_apply=%undefined", "calls=%e", "body=%e", "get-tuple-element", "tuple", "parameter(9)"),
    "stablehlo": ("dense<[[0, inf]]>", "dense<[[]]>", "dense<>", "dense<[[0, 1], []]>", "dense<0x7F800000>",
                  "tensor<f32>", "tensor<?x4xf32>", "tensor<0xf32>", "tensor<4x4x4x4xf32>", "%arg0", "%0", "%1#7",
                  "^bb0", "{", "}", "(", ")", "i1", "inf", "nan", "-1", "0x7F800000", "func.return", "return",
                  "stablehlo.add", "sdy.return", "@undefined", "#undefined", "!undefined", "array<i64: 9>",
                  "array<i64>", "<{", "}>", "loc(unknown)", 'loc("x":1:2)', "#loc9", "-> ()", ": ()"),
}


@dataclass(frozen=True)
class Seed:
    name: str
    dialect: str  # "hlo" or "stablehlo"
    text: str
    moe: bool  # a sample or example program (the rules' patterns are in it)


@dataclass(frozen=True)
class Mutant:
    index: int
    seed: str
    dialect: str
    classes: tuple[str, ...]
    text: str


def _dialect_of(text: str) -> str:
    return "hlo" if text.lstrip().startswith("HloModule") else "stablehlo"


def load_seeds(shared: Path, repo: Path, max_bytes: int = 120_000) -> list[Seed]:
    """Every module under the corpus, the samples and examples/data up to ``max_bytes``, in a fixed order."""
    seeds: list[Seed] = []
    places = [(shared / "samples", True), (repo / "examples" / "data", True),
              (shared / "corpus" / "hlo" / "valid", False), (shared / "corpus" / "stablehlo", False)]
    for folder, moe in places:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix not in (".hlo", ".mlir", ".txt") or path.stat().st_size > max_bytes:
                continue
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            if path.suffix == ".txt" and not text.lstrip().startswith(("HloModule", "module", "func", "#")):
                continue
            seeds.append(Seed(str(path.relative_to(folder.parent)), _dialect_of(text), text, moe))
    return seeds


# ---- the mutation classes --------------------------------------------------
Mutation = Callable[[Random, str, str, list[Seed]], str]


def _tokens(text: str) -> list[str]:
    return TOKEN_RE.findall(text)


def _solid(toks: list[str]) -> list[int]:
    return [i for i, t in enumerate(toks) if not t.isspace()] or [0]


def byte_flip(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    data = bytearray(text.encode("utf-8", "surrogateescape"))
    if not data:
        return text
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", "surrogateescape")


def token_delete(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    toks = _tokens(text)
    i = rng.choice(_solid(toks))
    if toks:  # an earlier mutation of the same mutant may have left nothing
        del toks[i]
    return "".join(toks)


def token_duplicate(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    toks = _tokens(text)
    i = rng.choice(_solid(toks))
    toks.insert(i, toks[i] if toks else "")
    return "".join(toks)


def token_swap(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    toks = _tokens(text)
    solid = _solid(toks)
    i, j = rng.choice(solid), rng.choice(solid)
    if toks:
        toks[i], toks[j] = toks[j], toks[i]
    return "".join(toks)


def truncate(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    return text[:rng.randrange(len(text) + 1)]


def splice_line(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    same = [d for d in donors if d.dialect == dialect] or donors
    donor = rng.choice(same).text.splitlines(keepends=True) or ["\n"]
    lines = text.splitlines(keepends=True)
    piece = donor[rng.randrange(len(donor)):][:rng.choice((1, 1, 1, 3, 10))]
    at = rng.randrange(len(lines) + 1)
    if rng.random() < 0.5 and at < len(lines):
        lines[at:at + 1] = piece
    else:
        lines[at:at] = piece
    return "".join(lines)


def line_delete_or_duplicate(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(i, lines[i])
    return "".join(lines)


def huge_number(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    spots = list((_NUMBER_RE if rng.random() < 0.7 else _DIM_OR_INDEX_RE).finditer(text)) or \
        list(_NUMBER_RE.finditer(text))
    if not spots:
        return text + rng.choice(HUGE_NUMBERS)
    m = rng.choice(spots)
    return text[:m.start()] + rng.choice(HUGE_NUMBERS) + text[m.end():]


def deep_nesting(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    n = rng.choice((150, 300, 1000, 20_000, 100_000))
    opener = rng.choice(OPENERS)
    closer = {"(": ")", "{": "}", "[": "]", "<": ">"}[opener]
    at = rng.randrange(len(text) + 1)
    inner = rng.choice(("", "1", "f32[]", "%x", "tensor<f32>"))
    middle = opener * n + inner + (closer * n if rng.random() < 0.5 else "")
    return text[:at] + middle + text[at:]


def long_token(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    spots = list(_IDENT_RE.finditer(text))
    n = rng.choice((1000, 10_000, 60_000))
    filler = rng.choice("abxZ_9.") * n
    if not spots:
        return text + filler
    m = rng.choice(spots)
    return text[:m.end()] + filler + text[m.end():]


def odd_chars(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(ODD_CHARS) * rng.choice((1, 1, 2, 50)) + text[at:]
    return text


def crlf(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    if rng.random() < 0.8:
        return text.replace("\r\n", "\n").replace("\n", "\r\n")
    lines = text.splitlines(keepends=True)
    return "".join(ln.replace("\n", "\r\n") if rng.random() < 0.5 else ln for ln in lines)


def self_reference(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """An operand replaced by the instruction's own name, or by a name defined further down."""
    defs = list((_HLO_DEF_RE if dialect == "hlo" else _MLIR_DEF_RE).finditer(text))
    if len(defs) < 2:
        return text
    k = rng.randrange(len(defs))
    m = defs[k]
    later = defs[rng.randrange(k, len(defs))]
    target = later.group(2)
    rest = m.group(4)
    if dialect == "hlo":
        ops = _HLO_OPERANDS_RE.search(rest)
        if ops is None or not ops.group(1).strip():
            return text
        names = list(re.finditer(r"%?[A-Za-z_][\w.\-]*", ops.group(1)))
        if not names:
            return text
        n = rng.choice(names)
        s = m.start(4) + ops.start(1) + n.start()
        replacement = ("%" if n.group().startswith("%") else "") + target.lstrip("%")
        return text[:s] + replacement + text[s + len(n.group()):]
    uses = list(_MLIR_VALUE_RE.finditer(rest))
    if not uses:
        return text
    u = rng.choice(uses)
    s = m.start(4) + u.start()
    return text[:s] + target + text[s + len(u.group()):]


def long_string(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    n = rng.choice((1000, 10_000, 50_000))
    piece = rng.choice(('"' + '\\"' * n, '"' + "a" * n + '"', '"' + "\\\\" * n, '"' + "x" * n))
    toks = _tokens(text)
    toks.insert(rng.randrange(len(toks) + 1), piece)
    return "".join(toks)


def long_list(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    spots = list(_LIST_RE.finditer(text))
    if not spots:
        return text
    m = rng.choice(spots)
    items = m.group(1)
    n = rng.choice((100, 2000, 20_000, 60_000))
    sep = "," if "," in items and ", " not in items else ", "
    return text[:m.start(1)] + sep.join([items] * n) + text[m.end(1):]


def rank_edit(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """One dimension more or less in a shape, a tensor type or a slice spec."""
    choices = []
    if dialect == "hlo":
        choices += [("hlo", m) for m in _HLO_SHAPE_RE.finditer(text) if m.group(1)]
    else:
        choices += [("tensor", m) for m in _MLIR_TENSOR_RE.finditer(text) if m.group(1)]
    choices += [("slice", m) for m in _SLICE_SPEC_RE.finditer(text)]
    if not choices:
        return text
    kind, m = rng.choice(choices)
    grow = rng.random() < 0.5
    if kind == "hlo":
        dims = m.group(1).split(",")
        dims = dims + [rng.choice(("1", "2", dims[0]))] if grow else dims[1:] if rng.random() < 0.5 else dims[:-1]
        return text[:m.start(1)] + ",".join(dims) + text[m.end(1):]
    if kind == "tensor":
        dims = m.group(1)[:-1].split("x")
        dims = dims + [rng.choice(("1", "2", dims[0]))] if grow else dims[1:] if rng.random() < 0.5 else dims[:-1]
        body = "".join(d + "x" for d in dims)
        return text[:m.start(1)] + body + text[m.end(1):]
    parts = m.group(1).split(", ")
    parts = parts + ["0:1"] if grow else parts[1:] if rng.random() < 0.5 else parts[:-1]
    return text[:m.start(1)] + ", ".join(parts) + text[m.end(1):]


def interesting_value(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """A token replaced by (or a place given) a value from the dialect's dictionary."""
    toks = _tokens(text)
    i = rng.choice(_solid(toks))
    word = rng.choice(DICTIONARY[dialect])
    if rng.random() < 0.7 and toks:
        # Replace a whole bracketed value when the token opens one (replica groups, dense<...>).
        toks[i] = word
    else:
        toks.insert(i, word)
    return "".join(toks)


# Values that break an attribute of a known kind in a known way (the outside
# campaign's device groups, empty groups, infinities, huge counts, long lists).
ATTRIBUTE_VALUES = {
    "hlo": {
        "replica_groups": ("{{}}", "{{}}", "{}", "{{0,1},{}}", "[4611686018427387904,2]<=[2]", "[2,2]<=[4]T(1,0)",
                           "[0,2]<=[0]", "mesh['x'=100000000]{'x'}", "{{0,-1}}", "{{0," + "9" * 30 + "}}"),
        "dimensions": ("{}", "{9}", "{0,0}", "{-1}", "{" + "9" * 4400 + "}"),
        "slice": ("{[0:1:0]}", "{}", "{[0:99999999999]}", "{[0:1], [0:1], [0:1], [0:1]}"),
        "index": ("99", "-1", "4611686018427387904"),
        "sharding": ("{devices=[2,1]<=[2]}", "{maximal device=-1}", "{devices=[4611686018427387904]<=[2]}",
                     "{replicated"),
        "result_accuracy": ("{tolerance={rtol=0.5, atol=1.0, " + "1," * 20_000 + "}}", "{mode=x}"),
        "metadata": ('{op_name="' + "x" * 20_000 + '"}', "{op_name=}"),
        "channel_id": ("-1", "9" * 4400),
        "padding": ("0_0x1_1x2_2", "-1_-1"),
    },
    "stablehlo": {
        "replica_groups": ("dense<[[0, inf]]> : tensor<1x2xi64>", "dense<[[]]> : tensor<1x0xi64>",
                           "dense<0x7F800000> : tensor<1x1xf32>", "dense<[[0, 1], []]> : tensor<2x2xi64>",
                           "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis"
                           "<name = \"x\", size = 100000000>]>, axes = [#stablehlo.axis_ref<name = \"x\">]>"),
        "all_gather_dim": ("9 : i64", "-1 : i64", "9223372036854775808 : i64"),
        "dimension": ("9 : i64", "-1 : i64"),
        "dot_dimension_numbers": ("#stablehlo.dot<lhs_contracting_dimensions = [9]>",
                                  "#stablehlo.dot<lhs_contracting_dimensions = [1]" + "b" * 20_000 + ">"),
        "channel_handle": ("#stablehlo.channel_handle<handle = " + "9" * 4400 + ", type = 1>",),
        "start_indices": ("array<i64: 0, 0, 0, 0>", "array<i64>"),
        "limit_indices": ("array<i64: 9, 9>", "array<i64: " + "9" * 30 + ">"),
    },
}
_HLO_ATTR_RE = re.compile(r"(?<=, )([a-z_]+)=")
_MLIR_ATTR_RE = re.compile(r"(?<=[{<, ])([a-z_]+) = ")


def _value_end(text: str, start: int) -> int:
    """Where the attribute value starting at ``start`` ends: a top-level ',' or closer, or a newline."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            i = n if j < 0 else j + 1
            continue
        if c in "({[<":
            depth += 1
        elif c in ")}]>":
            if depth == 0:
                return i
            depth -= 1
        elif (c == "," and depth == 0) or c == "\n":
            return i
        i += 1
    return n


def attribute_value(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """The value of an attribute of a kind in ATTRIBUTE_VALUES replaced by one that breaks it."""
    table = ATTRIBUTE_VALUES[dialect]
    spots = [m for m in (_HLO_ATTR_RE if dialect == "hlo" else _MLIR_ATTR_RE).finditer(text) if m.group(1) in table]
    if not spots:
        return text
    m = rng.choice(spots)
    end = _value_end(text, m.end())
    return text[:m.end()] + rng.choice(table[m.group(1)]) + text[end:]


# Device groups that are legal to write and degenerate to compute with: every group empty,
# one empty, groups of unequal size, a device twice, an id beyond the devices.
DEGENERATE_GROUPS = {
    "hlo": ("{{}}", "{{},{}}", "{{0,1},{2}}", "{{0,0}}", "{{0,99}}", "{{0}}"),
    "stablehlo": ("dense<> : tensor<1x0xi64>", "dense<> : tensor<2x0xi64>", "dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>",
                  "dense<[[0, 0]]> : tensor<1x2xi64>", "dense<[[0, 99]]> : tensor<1x2xi64>", "dense<0> : tensor<1x1xi64>"),
}
_GROUPS_RE = {"hlo": re.compile(r"replica_groups="), "stablehlo": re.compile(r"replica_groups = ")}


def degenerate_groups(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """A collective's replica groups replaced by degenerate ones (``DEGENERATE_GROUPS``), in HLO
    half the time on a reduce-scatter made of an all-gather: what the arithmetic on group sizes
    (scatter sizes, ranks, device counts) must survive."""
    spots = list(_GROUPS_RE[dialect].finditer(text))
    if not spots:
        return text
    m = rng.choice(spots)
    head = text[:m.end()]
    if dialect == "hlo" and rng.random() < 0.5:
        # The same groups on the collective whose arithmetic divides by the group size (HLO
        # writes both alike; the corpus has few reduce-scatters and the samples none).
        line = head.rfind("\n") + 1
        head = head[:line] + head[line:].replace(" all-gather(", " reduce-scatter(", 1)
    return head + rng.choice(DEGENERATE_GROUPS[dialect]) + text[_value_end(text, m.end()):]


def chain(rng: Random, text: str, dialect: str, donors: list[Seed]) -> str:
    """An op's result passed through a long chain of single-use ops before its users see it."""
    n = rng.choice((500, 1500, 3000, 6000))
    if dialect == "hlo":
        defs = list(_HLO_ARRAY_DEF_RE.finditer(text))
        if not defs:
            return text
        m = rng.choice(defs)
        indent, root, pct, name, shape = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        if root:
            return text
        eol = text.find("\n", m.end())
        eol = len(text) if eol < 0 else eol
        op = rng.choice(("copy", "negate", "add"))
        lines = []
        prev = f"{pct}{name}"
        for k in range(1, n + 1):
            cur = f"{pct}{name}.ch{k}"
            args = f"{prev}, {prev}" if op == "add" else prev
            lines.append(f"\n{indent}{cur} = {shape} {op}({args})")
            prev = cur
        rest = re.sub(rf"(?<![\w.\-%]){re.escape(pct + name)}(?![\w.\-])", prev, text[eol:])
        return text[:eol] + "".join(lines) + rest
    defs = list(_MLIR_SINGLE_RESULT_RE.finditer(text))
    if not defs:
        return text
    m = rng.choice(defs)
    indent, name, ty = m.group(1), m.group(2), m.group(4)
    lines = []
    prev = name
    for k in range(1, n + 1):
        cur = f"{name}_ch{k}"
        lines.append(f"\n{indent}{cur} = stablehlo.add {prev}, {prev} : {ty}")
        prev = cur
    rest = re.sub(rf"{re.escape(name)}(?![\w.\-#])", prev, text[m.end():])
    return text[:m.end()] + "".join(lines) + rest


MUTATIONS: dict[str, Mutation] = {
    "byte_flip": byte_flip,
    "token_delete": token_delete,
    "token_duplicate": token_duplicate,
    "token_swap": token_swap,
    "truncate": truncate,
    "splice_line": splice_line,
    "line_delete_or_duplicate": line_delete_or_duplicate,
    "huge_number": huge_number,
    "deep_nesting": deep_nesting,
    "long_token": long_token,
    "odd_chars": odd_chars,
    "crlf": crlf,
    "self_reference": self_reference,
    "long_string": long_string,
    "long_list": long_list,
    "rank_edit": rank_edit,
    "interesting_value": interesting_value,
    "attribute_value": attribute_value,
    "degenerate_groups": degenerate_groups,
    "chain": chain,
}
# How often each class is drawn: the structural classes that need a module
# that still parses (rank edits, self references, chains, dictionary values)
# are where the rules are reached, so they are drawn as often as byte noise.
WEIGHTS: dict[str, int] = {name: 2 for name in MUTATIONS}
WEIGHTS.update(truncate=1, crlf=1, chain=1, deep_nesting=1, long_string=1, long_token=1, long_list=1)


def make_mutant(seeds: list[Seed], index: int, campaign_seed: int) -> Mutant:
    rng = Random(f"{campaign_seed}:{index}")
    dialect = "hlo" if index % 2 == 0 else "stablehlo"
    pool = [s for s in seeds if s.dialect == dialect] or seeds
    moe = [s for s in pool if s.moe]
    seed = rng.choice(moe if moe and rng.random() < 0.5 else pool)
    names = list(WEIGHTS)
    weights = [WEIGHTS[n] for n in names]
    classes = tuple(rng.choices(names, weights, k=rng.choice((1, 1, 1, 2, 2, 3))))
    text = seed.text
    for name in classes:
        text = MUTATIONS[name](rng, text, dialect, seeds)
    return Mutant(index, seed.name, dialect, classes, text)
