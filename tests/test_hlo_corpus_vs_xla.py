"""Every valid corpus HLO module, parsed by hlo_passes, against XLA's own parser.

Two checks per module (corpus/hlo/valid, 1,453 files):

1. structure: the same computations and instructions as XLA builds (name,
   opcode, operands in order, result shape with layout, parameter number,
   ROOT, entry, called computations, control predecessors);
   the exceptions XLA's parser forces are listed in ``hlo_xla_compare``.
2. printing: XLA's print of ``module.to_text(regenerate=True)`` equals XLA's
   print of the original text.  Comparing XLA's prints (not our text with
   the source) ignores spelling that does not matter (``%``, optional
   shapes of operands, attribute order, spacing) and still catches anything
   XLA reads differently.

Both tests report every failing file in a file (path in the message;
``.pytest_cache/d/hlo_corpus_vs_xla/``, with ``exceptions.txt`` counting
the accepted XLA-side differences) and show the first 20 with their
differences, so a parser bug shows up as a list of concrete cases.  XLA runs
in separate restartable processes (see ``xla_reference``), with answers
cached under ``.pytest_cache``: ~30 s cold on two busy cores, seconds when
cached.  ``HLO_CORPUS_GLOB=hlo_parser_test__*`` narrows a local run.
"""
from __future__ import annotations

import collections
import csv
import difflib
import os
import warnings
from pathlib import Path

import pytest

import hlo_passes
from hlo_xla_compare import structure_differences

pytestmark = pytest.mark.corpus

SHOW = 20

# Modules on which XLA's parser writes past the end of a buffer: whether it
# then crashes depends on the address-space layout of the process, so its
# answers are chance (see xla_reference).  They are compared whenever XLA
# answers; a crash on them is a warning, not a failure.
UNRELIABLE_REFERENCE = {
    "hlo_parser_test__219.hlo": "sharding devices=[2,2] lists 10 devices for 4 tiles",
}


class CorpusRun:
    """One pass over the corpus, shared by the tests of this module."""

    def __init__(self, corpus_dir: Path, ref, report_dir: Path | None) -> None:
        self.report_dir = report_dir
        valid = corpus_dir / "hlo" / "valid"
        self.files = sorted(valid.glob("*.hlo"))
        pattern = os.environ.get("HLO_CORPUS_GLOB")
        if pattern:  # narrow a local run to some files; CI runs all
            self.files = [f for f in self.files if f.match(pattern)]
        assert self.files, f"no HLO files in {valid}"
        self.unstable = _unstable(corpus_dir)
        self.texts = {f.name: f.read_text(encoding="utf-8") for f in self.files}
        self.xla = dict(zip(self.texts, ref.parse_many(self.texts.values())))
        self.modules: dict[str, object] = {}
        self.parse_errors: dict[str, str] = {}
        for name, text in self.texts.items():
            try:
                self.modules[name] = hlo_passes.parse(text, dialect="hlo", path=name)
            except Exception as e:  # noqa: BLE001 - any exception is a finding
                self.parse_errors[name] = f"{type(e).__name__}: {e}"
        self.ref = ref


def _unstable(corpus_dir: Path) -> set[str]:
    """Files whose XLA print is not a fixed point of XLA's parse-and-print."""
    out = set()
    with open(corpus_dir / "MANIFEST.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["file"].startswith("corpus/hlo/valid/") and row["reprint_stable"] == "false":
                out.add(row["file"].rsplit("/", 1)[1])
    return out


@pytest.fixture(scope="module")
def corpus_run(corpus_dir: Path, xla_reference, request) -> CorpusRun:
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    report_dir = cache.mkdir("hlo_corpus_vs_xla") if cache is not None else None
    for old in Path(report_dir).glob("*.txt") if report_dir is not None else ():
        old.unlink()  # a report left by an earlier run would read as this run's
    return CorpusRun(corpus_dir, xla_reference, report_dir)


def _fail_with(run: CorpusRun, what: str, problems: dict[str, list[str]]) -> None:
    """Fail listing the first files and a count per kind of difference."""
    kinds = collections.Counter()
    for diffs in problems.values():
        kinds.update({d.split(":", 1)[0] for d in diffs})
    lines = [f"{len(problems)} of {len(run.files)} corpus files: {what}",
             "files per kind of difference: "
             + ", ".join(f"{k} {n}" for k, n in kinds.most_common())]
    for name in list(problems)[:SHOW]:
        lines.append(f"- {name}")
        lines.extend(f"    {d}" for d in problems[name])
    if run.report_dir is not None:
        path = Path(run.report_dir) / f"{what.split()[0]}.txt"
        with open(path, "w") as f:
            for name, diffs in problems.items():
                f.write(f"{name}\n" + "".join(f"    {d}\n" for d in diffs))
        lines.append(f"all {len(problems)} files: {path}")
    pytest.fail("\n".join(lines), pytrace=False)


# What jaxlib 0.12's parser refuses of the corpus jaxlib 0.10.2 accepts: it
# checks these now.  hlo_passes reads them as 0.10.2 does.
TIGHTENED_IN_012 = {
    "hlo_parser_test__219.hlo": "sharding device count 10 does not match the tile assignment size 4",
    "hlo_parser_test__221.hlo": "collective device list iota size 16 does not match",
    "hlo_parser_test__222.hlo": "expects 'rhs_reversal=' has the same size as 'size='",
}
# jaxlib 0.12.1's parser no longer knows the ``domain`` op (sharding domains), which these use.
DOMAIN_GONE_IN_0121 = {
    name: "Unknown opcode: domain"
    for name in ("hlo_parser_test__23.hlo", "import__1.hlo", "import_emit_stablehlo__114.hlo")
}


def _refused_by_this_jaxlib() -> dict[str, str]:
    import jaxlib

    release = tuple(int(p) for p in jaxlib.__version__.split(".")[:3] if p.isdigit())
    return {**TIGHTENED_IN_012, **(DOMAIN_GONE_IN_0121 if release >= (0, 12, 1) else {})}


@pytest.mark.jax012
def test_xla012_refuses_only_what_it_tightened(corpus_run: CorpusRun) -> None:
    expected = _refused_by_this_jaxlib()
    refused = {n: r.error for n, r in corpus_run.xla.items() if not r.ok}
    assert sorted(refused) == sorted(n for n in expected if n in corpus_run.texts)
    for name, error in refused.items():
        assert corpus_run.xla[name].status == "error" and expected[name] in error, (name, error)
        assert name in corpus_run.modules, f"{name}: hlo_passes reads it as jaxlib 0.10.2 does"


@pytest.mark.jax010
def test_xla_accepts_the_whole_valid_corpus(corpus_run: CorpusRun) -> None:
    # The oracle itself: if XLA rejects or crashes on a "valid" file, the
    # comparisons below would silently skip it.
    bad = {n: [f"{r.status}: {_one_line(r.error)}"] for n, r in corpus_run.xla.items()
           if not r.ok and not (r.status == "crashed" and n in UNRELIABLE_REFERENCE)}
    lost = [n for n, r in corpus_run.xla.items() if not r.ok and n not in bad]
    if lost:
        warnings.warn(f"XLA crashed on {lost} ({UNRELIABLE_REFERENCE}); not compared")
    if bad:
        _fail_with(corpus_run, "reference failures (XLA did not parse)", bad)


def test_structure_matches_xla(corpus_run: CorpusRun) -> None:
    problems: dict[str, list[str]] = {}
    used: collections.Counter = collections.Counter()
    for name, text in corpus_run.texts.items():
        if name in corpus_run.parse_errors:
            problems[name] = [f"parse error: {_one_line(corpus_run.parse_errors[name])}"]
            continue
        ref = corpus_run.xla[name]
        if not ref.ok:
            continue  # reported by test_xla_accepts_the_whole_valid_corpus
        try:
            diffs = structure_differences(corpus_run.modules[name], ref, text, used=used)
        except Exception as e:  # noqa: BLE001 - a module the comparison cannot walk
            diffs = [f"comparison error: {type(e).__name__}: {e}"]
        if diffs:
            problems[name] = diffs
    if corpus_run.report_dir is not None:
        # How often each accepted XLA-side difference occurred (for review:
        # they should stay few and explainable).
        with open(Path(corpus_run.report_dir) / "exceptions.txt", "w") as f:
            f.writelines(f"{n}\t{k}\n" for k, n in used.most_common())
    if problems:
        _fail_with(corpus_run, "structure differs from XLA's parse", problems)


def test_regenerated_text_prints_like_original(corpus_run: CorpusRun) -> None:
    # Exact for every module, the 11 whose XLA print is not a fixed point
    # (MANIFEST reprint_stable=false) included.  Their instability is in
    # print(parse(print(parse(x)))) against print(parse(x)): XLA prints
    # computations in an order of its own, and a reparse of that print starts
    # from another module order (or XLA cannot read its print back at all,
    # or a constant does not survive printing).  Here each side goes through
    # one XLA parse only, from texts whose computations and instructions are
    # in the same order, so no second round trip enters; a regenerated text
    # in another order would be a real difference (XLA's print depends on
    # it), for stable modules as much as for these.
    names, regenerated, problems, unjudged = [], [], {}, []
    for name, module in corpus_run.modules.items():
        if not corpus_run.xla[name].ok:
            continue
        try:
            regenerated.append(module.to_text(regenerate=True))
            names.append(name)
        except Exception as e:  # noqa: BLE001
            problems[name] = [f"to_text error: {type(e).__name__}: {e}"]
    for name in corpus_run.parse_errors:
        problems[name] = [f"parse error: {_one_line(corpus_run.parse_errors[name])}"]
    ref = corpus_run.ref
    for name, ours in zip(names, ref.to_string_many(regenerated)):
        original = corpus_run.xla[name]
        if ours.ok and ours.text == original.text:
            continue
        if ours.status == "crashed" and name in UNRELIABLE_REFERENCE:
            unjudged.append(name)
            continue
        if not ours.ok:
            problems[name] = [f"print: XLA {ours.status} on our text: {_one_line(ours.error)}"]
            continue
        problems[name] = ["print: XLA's print of our regenerated text differs: "
                          + _first_diff(original.text, ours.text)]
    if unjudged:
        warnings.warn(f"XLA crashed on our text of {unjudged} ({UNRELIABLE_REFERENCE}); "
                      "print not compared")
    if problems:
        _fail_with(corpus_run, "regenerated text prints differently", problems)


def _reprint_stable(corpus_run: CorpusRun) -> tuple[list[str], list[str]]:
    """(MANIFEST's unstable modules, those whose XLA print is a fixed point here)."""
    names = sorted(n for n in corpus_run.unstable if n in corpus_run.xla and corpus_run.xla[n].ok)
    firsts = [corpus_run.xla[n].text for n in names]
    seconds = list(corpus_run.ref.to_string_many(firsts))
    return names, [n for n, a, b in zip(names, firsts, seconds) if b.ok and b.text == a]


@pytest.mark.jax010
def test_manifest_unstable_modules_are_unstable_here(corpus_run: CorpusRun) -> None:
    # The premise of the comment above, checked with this jaxlib: XLA's
    # print of these modules does change (or fails) on a second round trip.
    names, stable = _reprint_stable(corpus_run)
    assert len(names) == (11 if not os.environ.get("HLO_CORPUS_GLOB") else len(names))
    assert not stable, f"reprint-stable under this jaxlib after all: {stable}"


@pytest.mark.jax012
def test_manifest_unstable_modules_under_jaxlib_012(corpus_run: CorpusRun) -> None:
    # jaxlib 0.12 prints one of them as a fixed point (MANIFEST records 0.10.2).
    names, stable = _reprint_stable(corpus_run)
    assert len(names) == (11 if not os.environ.get("HLO_CORPUS_GLOB") else len(names))
    assert stable == (["hlo_parser_test__110.hlo"] if "hlo_parser_test__110.hlo" in names else [])


def _one_line(message: str | None, limit: int = 600) -> str:
    """A multi-line error (message, source line, caret) as one report line."""
    lines = [ln.rstrip() for ln in (message or "").splitlines() if ln.strip()]
    return " | ".join(lines)[:limit]


def _first_diff(a: str, b: str, context: int = 6) -> str:
    d = [ln for ln in difflib.unified_diff(a.splitlines(), b.splitlines(), "original", "ours",
                                          lineterm="", n=0)
         if not ln.startswith(("---", "+++", "@@"))]
    return " | ".join(ln[:300] for ln in d[:context])
