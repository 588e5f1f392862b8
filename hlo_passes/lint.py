"""The MoE lint: findings for every place a rewrite pass would fire, in CI formats.

A finding is a site a pass reports in detect-only mode (``run_passes(...,
rewrite=False)``): the program could be rewritten there and is not yet.  Near
misses are not findings: they are places the rewrite must not touch.

Each finding is a ``diagnostics.Diagnostic`` (``Finding`` here); the output formats are
the emitters of ``hlo_passes.diagnostics``: ``text`` (``path:line:col: RULE message``),
``json`` (a list of objects; the schema, generated from the rules' metadata, ships as
``hlo_passes/schemas/lint-findings.schema.json`` and is returned by ``json_schema()``),
``github`` (workflow annotation commands) and ``sarif`` (SARIF 2.1.0, what code scanning
uploads take).  What each rule is called and how its findings read come from its metadata.

Nothing here imports jax: linting is parsing plus graph matching.
"""
from __future__ import annotations

import glob
import json
import multiprocessing
import os
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from ._copies import dump_platforms, dump_stages, group_copies, group_stages
from .gmm.target import GmmTarget, dots_round_by_shape_here
from .lowering import target_for
from .diagnostics import (
    FORMATS,
    Diagnostic,
    format_github,
    format_json,
    format_note,
    format_sarif,
    format_text,
    from_near_miss,
    from_site,
    position,
    rule_id,
)
from .diagnostics.fold import fold as fold_findings
from .diagnostics.json_list import SCHEMA_FILE
from .diagnostics.model import ERROR_RULES, has_source
from .diagnostics.places import SourceRoot
from .errors import ParseError
from .files import MAX_INPUT_BYTES, InputError, file_kind, is_regular_file, read_input, read_stream, too_large
from .ir import Module
from .passes import available_passes, builtin_names, load_plugin, loaded_plugins, pipeline, rule_meta
from .passes.prescan import rules_that_may_fire_in
from .pass_interface import PassContext
from .report import AS_WRITTEN, NearMiss, Site, does_not_pay, source_hint, with_users_source
from .rewrites.builtin import builtin_rules
from .rule import RuleMeta
from .text import parse_file, parsed_for_one_call, unknown_constructs

__all__ = [
    "FORMATS",
    "RULES",
    "Finding",
    "LintRun",
    "RuleInfo",
    "STDIN",
    "STDIN_NAME",
    "collect_files",
    "collect_paths",
    "format_findings",
    "json_schema",
    "lint",
    "lint_files",
    "lint_module",
    "lint_text",
    "rule_id",
]


# What a rule says about itself (lint's name for ``rule.RuleMeta``; ``id`` is its code).
RuleInfo = RuleMeta
# A lint finding is a diagnostic (``diagnostics.Diagnostic``).
Finding = Diagnostic

# The built-in rules' metadata by pass name (read off the rules; plugins' are in the registry).
RULES: dict[str, RuleMeta] = {r.name: r.meta for r in builtin_rules()}

# Files that could not be linted are reported under these pseudo-rules.
PARSE_ERROR = "parse-error"
INTERNAL_ERROR = "internal-error"
NO_SUCH_FILE = "no-such-file"  # a PATH that does not exist
NO_MATCH = "no-match"  # a glob that matched no file
NO_MODULES = "no-modules"  # a folder without any module in it
NOT_READABLE = "not-readable"  # permission denied, an I/O error, a broken link
TOO_LARGE = "too-large"  # past --max-input-size

# The PATH that means standard input, and the name its findings carry (as hlo-rewrite names it).
STDIN = "-"
STDIN_NAME = "<stdin>"
assert ERROR_RULES == (PARSE_ERROR, INTERNAL_ERROR, NO_SUCH_FILE, NO_MATCH, NO_MODULES, NOT_READABLE, TOO_LARGE)


# ---------------------------------------------------------------------------
# Linting


def _selected(rule: str, select: Sequence[str] | None, ignore: Sequence[str] | None) -> bool:
    # Prefixes, as ruff and flake8 take them: "MOE" selects MOE001 and MOE002.
    if select and not any(rule.startswith(s) for s in select):
        return False
    return not (ignore and any(rule.startswith(s) for s in ignore))


def known_codes(passes: Sequence[str] | None = None) -> list[str]:
    """Every rule code ``select`` / ``ignore`` can name: the built-in ids and plugin passes."""
    names = list(passes) if passes is not None else list(available_passes())
    return sorted({rule_id(n) for n in builtin_names()} | {rule_id(n) for n in names})


def check_codes(select: Sequence[str] | None, ignore: Sequence[str] | None,
                passes: Sequence[str] | None = None, *, names: tuple[str, str] = ("select", "ignore")) -> None:
    """``ValueError`` naming the codes (or prefixes) no rule has: a typo must not silence the lint.
    ``names``: what the two options are called in the message."""
    codes = known_codes(passes)
    for option, given in zip(names, (select, ignore)):
        unknown = [c for c in given or () if not any(k.startswith(c) for k in codes)]
        if unknown:
            raise ValueError(f"unknown rule code{'s' * (len(unknown) > 1)} in {option}: {', '.join(unknown)}; "
                             f"known codes: {', '.join(codes)} (or a prefix such as MOE)")


def _passes_for(select: Sequence[str] | None, ignore: Sequence[str] | None,
                passes: Sequence[str] | None) -> list[str]:
    check_codes(select, ignore, passes)
    names = list(passes) if passes is not None else list(available_passes())
    return [n for n in names if _selected(rule_id(n), select, ignore)]


# How the "collectives A -> B" of a gradient site on a text before optimization is held against the
# compiled program (``claims_to_hold``): ``check(module, sites, near_misses, platform)`` edits the two
# lists (a site XLA's combiner already made one becomes its near miss ``xla-combined``) and marks the
# claims it could not hold (``mark_as_written``).  The faces that may compile give one
# (``hlo_passes.claims.hold_claims``: hlo-lint, hlo-rewrite); the lint itself compiles nothing.
ClaimCheck = Callable[[Module, list[Site], list[NearMiss], "str | None"], None]
# Why the lint's own claims are as written (``lint_module`` without a ``claims`` check).
NOT_COMPILED = "the lint compiles nothing (hlo-lint and hlo-rewrite compile a CPU text to check it)"


def is_compiled(module: Module) -> bool:
    """Whether ``module`` is a program XLA compiled (optimized HLO: ``is_scheduled=true``), whose
    collectives are what runs."""
    return module.scheduled


def claims_to_hold(module: Module, sites: Iterable[Site]) -> list[Site]:
    """The sites of ``module`` whose "collectives A -> B" XLA may make untrue in the compiled program:
    sites of a rule whose collectives it may run otherwise (``RuleMeta.combinable``: a gradient's
    reductions combined, a rematerialized gather run once) that fuse collectives, on a text before
    optimization (a compiled module's counts are what runs)."""
    if is_compiled(module):
        return []
    return [s for s in sites if getattr(rule_meta(s.rule), "combinable", False) and s.before.count > s.after.count]


def mark_as_written(sites: Iterable[Site], why: str) -> None:
    """Say on each of ``sites`` that its collectives are the text's (``AS_WRITTEN``), and ``why``
    they were not held against the compiled program."""
    for site in sites:
        site.details.collectives_as_written = f"{AS_WRITTEN} (not checked: {why})"


def compiled_program(module: Module, sites: list[Site], misses: list[NearMiss], platform: str | None) -> None:
    """The claim check of a module that is the compiled program (the pass inside XLA): nothing to
    hold, its collectives are what XLA runs."""


def lint_module(
    module: Module,
    *,
    path: str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
    explain: bool = False,
    platform: str | None = None,
    gmm_target: GmmTarget | None = None,
    dots_round_by_shape: bool | None = None,
    claims: ClaimCheck | None = None,
) -> list[Finding]:
    """Findings of one parsed module (no rewriting; ``module`` is left untouched).

    ``explain=True`` adds near misses as findings of severity ``"note"``: places
    that look like a pattern, with the legality check that failed.  A site whose fix
    does not pay on ``platform`` by the cost model (``cost_model``; default: a TPU) is
    such a near miss too (check ``does-not-pay``, with the numbers), unless ``select``
    names its rule: selecting a rule reports all its sites.  ``gmm_target``: the kernel the
    program's ragged-dots run on (``gmm.target``, for a rule resting on it); None: the one
    ``hlo-rewrite --kernel auto`` picks on ``platform`` (XLA's own where none is named).
    ``dots_round_by_shape``: whether the backend's dots round by their shape (the split rules then
    keep the GMMs as written, ``PassContext``); None: asked of this process's jax for ``cpu``
    (``gmm.target.dots_round_by_shape_here``), as ``hlo-rewrite`` and ``hlo_passes.jit`` do.
    ``claims``: how a gradient site's "collectives A -> B" on a text before optimization is held
    against the compiled program (``ClaimCheck``; ``compiled_program``: ``module`` is it); None: not
    held, each such site says its collectives are as written (``claims_to_hold``).
    """
    chosen = _passes_for(select, ignore, passes)
    # Rules whose communicating steps are not spelled anywhere in the module
    # cannot have a site: skip them (the module was parsed and checked already).
    chosen = rules_that_may_fire_in(module, chosen)
    if not chosen:
        return []
    where = path or module.path or "<string>"
    findings = []
    # A rule resting on the GMM kernel: the caller's target (the pass inside XLA: XLA's own), else
    # the kernel hlo-rewrite's --kernel auto means on ``platform`` (XLA's own ragged-dot where no
    # platform is named).
    target = gmm_target if gmm_target is not None else target_for("auto", platform)
    sites, misses = _detect(module, chosen, PassContext.for_platform(
        platform, gmm_target=target, dots_round_by_shape=dots_round_by_shape if dots_round_by_shape is not None
        else dots_round_by_shape_here(platform)))
    sites = _once_each(sites)
    # A site whose op XLA made (no line of its own) is placed at the line that uses what it makes.
    sites = [s if s.location.source else replace(s, location=with_users_source(module, s.location)) for s in sites]
    # A gradient site whose reductions XLA's combiner may merge: its claim held against the compiled
    # program where one can be had, else said to be the text's.
    if claims is not None:
        claims(module, sites, misses, platform)
    else:
        mark_as_written(claims_to_hold(module, sites), NOT_COMPILED)
    # How to get source lines, for a text that has none (read off the module once, if needed).
    hint = source_hint(module) if not all(has_source(s) for s in sites) else None
    for site in sites:
        code = rule_id(site.rule)
        if not _selected(code, select, ignore):
            continue
        if site.pays or select:  # a site of a rule --select names is reported whatever it pays
            findings.append(from_site(site, where, hint))
        else:
            misses.append(does_not_pay(site))
    if explain:
        findings.extend(d for d in (from_near_miss(m, where) for m in misses) if _selected(d.rule, select, ignore))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return findings


def _once_each(sites: list[Site]) -> list[Site]:
    """``sites`` without a later rule's site at the same op with the same pieces and collectives as an
    earlier one's: the same site, which a rewrite pipeline fixes once (the first rule rewrites it, the
    next no longer sees it), reported once.  In optimized HLO XLA's fusions can make a prefused
    weight's halves look like two weights (MOE003's) where MOE001 finds the same gathers."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for site in sites:
        key = (site.location.line, site.location.column, site.before.count, site.after.count,
               tuple((p.line, p.column) for p in site.pieces))
        if site.location.line > 0 and site.pieces and key in seen:
            continue
        seen.add(key)
        kept.append(site)
    return kept


def _detect(module: Module, chosen: Sequence[str], context: PassContext) -> tuple[list[Any], list[Any]]:
    """The sites and near misses of ``chosen`` in ``module``, by detect-only pipelines: the
    built-in rules on the module itself (their detection leaves it as it is; one that raises
    fails the file, an ``internal-error`` finding), a plugin's on a copy (its detection might
    edit) with the crash isolation ``run_passes`` gives it."""
    builtin = [n for n in chosen if n in builtin_names()]
    others = [n for n in chosen if n not in builtin_names()]
    sites: list[Any] = []
    misses: list[Any] = []
    for names, copy, strict in ((builtin, False, True), (others, True, False)):
        if names:
            result = pipeline(names, rewrite=False, strict=strict, context=context).run(module, copy=copy)
            sites.extend(result.sites)
            misses.extend(result.near_misses)
    return sites, misses


def lint_text(text: str, *, path: str | None = None, dialect: str = "auto", **options: Any) -> list[Finding]:
    """Findings of HLO or StableHLO text; ``ParseError`` if it is not a module."""
    with parsed_for_one_call(text, dialect, path) as module:
        return lint_module(module, path=path, **options)


def _error_finding(path: str, err: BaseException) -> Finding:
    if isinstance(err, ParseError):
        return Finding(rule=PARSE_ERROR, path=path, line=err.line, column=err.column,
                       message=err.reason, severity="error")
    if isinstance(err, InputError):
        kind = {"too-large": TOO_LARGE, "no-such-file": NO_SUCH_FILE}.get(err.kind, NOT_READABLE)
        return Finding(rule=kind, path=path, line=0, column=0, message=err.reason, severity="error")
    return Finding(rule=INTERNAL_ERROR, path=path, line=0, column=0,
                   message=f"{type(err).__name__}: {err}", severity="error")


def lint_file(path: str, options: dict[str, Any] | None = None, stdin: BinaryIO | None = None) -> list[Finding]:
    """Findings of one file (``-``: ``stdin``, default this process's); a file that cannot be read
    or parsed gives one error finding."""
    options = dict(options or {})
    known = options.pop("platforms", None) or {}
    if options.get("platform") is None and path in known:  # the dump says where it was compiled
        options["platform"] = known[path]
    dialect = options.pop("dialect", "auto")
    limit = options.pop("max_bytes", MAX_INPUT_BYTES)
    verbose = options.pop("verbose", False)
    if path == STDIN:
        path = STDIN_NAME
    try:
        if path == STDIN_NAME:
            text = read_stream(stdin if stdin is not None else sys.stdin.buffer, path, limit=limit)
        else:
            text = read_input(path, limit=limit)
        with parsed_for_one_call(text, dialect, path) as module:
            findings = lint_module(module, path=path, **options)
            if verbose:
                findings.extend(_unknown_notes(module, path))
        return findings
    except ParseError as err:
        return [_error_finding(path, err.with_path(path) if err.path is None else err)]
    except InputError as err:
        return [_error_finding(path, err)]
    except MemoryError:
        return [Finding(rule=TOO_LARGE, path=path, line=0, column=0, severity="error",
                        message="out of memory linting this file")]
    except Exception as err:  # a pass failing on one file must not stop the others
        return [_error_finding(path, err)]


UNKNOWN = "unknown-construct"


def _unknown_notes(module: Module, path: str) -> list[Finding]:
    """One note per opcode, attribute name or op (of a dialect it knows) the parser did not
    know and carried through as text (``hlo-lint -v``): no rule looks through it."""
    maybe = "it may be syntax of a newer XLA" if module.dialect == "hlo" else \
        "a misspelling, or an op newer than hlo_passes knows"
    notes, seen = [], set()
    for kind, name, line, column in unknown_constructs(module):
        if (kind, name) in seen:
            continue
        seen.add((kind, name))
        notes.append(Finding(rule=UNKNOWN, path=path, line=line, column=column, severity="note",
                             message=f"carried through unknown {kind} {name!r} (no rule looks through it; "
                                     f"{maybe})"))
    return notes


def _starts_with_hlo_module(path: Path) -> bool:
    """Whether a ``.txt`` file holds an HLO module; ``OSError`` if it cannot be read."""
    with open(path, "rb") as f:
        head = f.read(4096)
    # Comment lines may precede the header in hand-written files.
    for line in head.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(b"//"):
            continue
        return stripped.startswith(b"HloModule")
    return False


_MODULE_SUFFIXES = (".mlir", ".hlo", ".txt")


@dataclass
class _Collected:
    files: list[str] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def add(self, p: str) -> None:
        key = os.path.normpath(p)
        if key not in self.seen:
            self.seen.add(key)
            self.files.append(p)

    def error(self, rule: str, path: str, message: str) -> None:
        self.errors.append(Finding(rule=rule, path=path, line=0, column=0, message=message, severity="error"))

    def note(self, path: str, message: str) -> None:
        self.notes.append(Finding(rule="skipped", path=path, line=0, column=0, message=message, severity="note"))


def _walk(top: str, out: _Collected) -> None:
    """The modules in folder ``top``: regular ``*.mlir``, ``*.hlo`` and ``*.txt`` files that
    start with ``HloModule`` (in an ``--xla_dump_to`` folder that is the module dumps, not
    the buffer assignments); what cannot be read is an error, other file kinds a note."""
    def unreadable(err: OSError) -> None:
        out.error(NOT_READABLE, err.filename or top, f"cannot read folder: {_os_reason(err)}")

    protos: list[str] = []
    for root, dirs, names in os.walk(top, onerror=unreadable):
        dirs.sort()
        for name in sorted(names):
            p = os.path.join(root, name)
            if not name.endswith(_MODULE_SUFFIXES):
                if name.endswith(".pb"):
                    protos.append(p)
                continue
            try:
                st = os.stat(p)
            except FileNotFoundError:
                out.error(NOT_READABLE, p, "broken symbolic link (its target does not exist)")
                continue
            except OSError as err:
                out.error(NOT_READABLE, p, f"cannot read: {_os_reason(err)}")
                continue
            if not stat.S_ISREG(st.st_mode):
                # Reading a FIFO would wait forever, a device might never end.
                out.note(p, f"skipped: {file_kind(st.st_mode)}, not a regular file")
                continue
            if name.endswith(".txt"):
                try:
                    if not _starts_with_hlo_module(Path(p)):
                        continue
                except OSError as err:
                    out.error(NOT_READABLE, p, f"cannot read: {_os_reason(err)}")
                    continue
            out.add(p)
    if protos:
        # XLA's --xla_dump_hlo_as_proto writes binary HloModuleProtos: say why they are not read.
        many = f"{len(protos)} .pb files (binary HloModuleProto dumps, first {protos[0]})" if len(protos) > 1 \
            else "a .pb file (a binary HloModuleProto dump)"
        out.note(top, f"skipped {many}: hlo-lint reads text; dump it with "
                      "XLA_FLAGS=--xla_dump_hlo_as_text as well")


def _os_reason(err: OSError) -> str:
    return "permission denied" if isinstance(err, PermissionError) else (err.strerror or str(err))


def collect_files(paths: Iterable[str]) -> tuple[list[str], list[Finding]]:
    """``collect_paths`` without its notes: (files, errors)."""
    files, errors, _ = collect_paths(paths)
    return files, errors


def collect_paths(paths: Iterable[str]) -> tuple[list[str], list[Finding], list[Finding]]:
    """Expand files, directories (recursively) and globs into the files to lint.

    A file named explicitly is always linted; inside directories only HLO
    modules (``*.txt`` starting with ``HloModule``, ``*.hlo``) and ``*.mlir``
    are.  Returns (files, errors, notes): a PATH that does not exist, a glob
    that matches nothing, a folder without modules and whatever could not be
    read are errors; files of other kinds skipped in folders are notes.
    """
    out = _Collected()
    for arg in paths:
        if arg == STDIN:
            out.add(arg)
            continue
        matches = [arg]
        if not os.path.lexists(arg) and glob.has_magic(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                out.error(NO_MATCH, arg, "glob matched no file")
                continue
        elif not os.path.lexists(arg):
            out.error(NO_SUCH_FILE, arg, "no such file")
            continue
        for m in matches:
            if os.path.isdir(m):
                before = (len(out.files), len(out.errors))
                _walk(m, out)
                if (len(out.files), len(out.errors)) == before and not glob.has_magic(arg):
                    # A dump step that wrote nothing must not pass CI as "clean".
                    out.error(NO_MODULES, m, "no HLO or StableHLO modules in this directory")
            else:
                out.add(m)  # named: always read (a FIFO here is the user's choice), up to the limit
    return out.files, out.errors, out.notes


@dataclass
class LintRun:
    """What a lint of several files found."""

    files: list[str]
    findings: list[Finding]  # error findings (files that failed) included
    # Near misses (explain), files skipped, what was carried through unread (verbose).
    notes: list[Finding] = field(default_factory=list)
    modules: int | None = None  # distinct modules among the files (copies folded)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if not f.is_error]

    @property
    def exit_code(self) -> int:
        """2 if any file failed, else 1 if anything was found, else 0."""
        if self.errors:
            return 2
        return 1 if self.findings else 0


# Below this many files the pool's start-up costs more than it saves.
_POOL_MIN_FILES = 4
# Files go to the workers in chunks: one task per file costs a round trip
# each (dump folders hold many small modules), one chunk per worker leaves a
# worker idle when its files happen to be the small ones.
_CHUNKS_PER_WORKER = 4


def _chunks(files: list[str], n: int) -> list[list[str]]:
    """``files`` dealt into at most ``n`` chunks of about equal bytes, largest files first."""
    def size(p: str) -> int:
        try:
            return os.path.getsize(p)
        except OSError:
            return 0

    chunks: list[list[str]] = [[] for _ in range(min(n, len(files)))]
    loads = [0] * len(chunks)
    for p in sorted(files, key=size, reverse=True):
        i = loads.index(min(loads))
        chunks[i].append(p)
        loads[i] += size(p) + 1
    return [c for c in chunks if c]


def _lint_chunk(paths: list[str], options: dict[str, Any], plugins: tuple[str, ...] = ()) -> list[list[Finding]]:
    # A spawned worker starts with the built-in rules only: when it lacks a pass of the
    # parent's, the parent's plugins are loaded again (a forked worker has them all).
    if any(name not in available_passes() for name in options["passes"]):
        for spec in plugins:
            if spec not in loaded_plugins():
                load_plugin(spec)
    return [lint_file(p, options) for p in paths]


def _pool_context():
    # fork is cheapest, but forking a process that runs jax's threads can
    # deadlock the child; the API may be called from such a process.
    if "jax" in sys.modules:
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context("fork")


def _lint_in_pool(files: list[str], options: dict[str, Any], workers: int, per_file: dict[str, list[Finding]],
                  weight: dict[str, int], done: int, total: int,
                  progress: Callable[[int, int], None] | None) -> None:
    """``lint_files``'s many files, in chunks over ``workers`` processes, into ``per_file``;
    ``progress`` counts from ``done`` (each file weighs its copies) up to ``total``."""
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
        futures = {pool.submit(_lint_chunk, chunk, options, loaded_plugins()): chunk
                   for chunk in _chunks(files, workers * _CHUNKS_PER_WORKER)}
        for fut in as_completed(futures):
            chunk = futures[fut]
            try:
                per_file.update(zip(chunk, fut.result()))
            except Exception as err:  # a worker that died (e.g. out of memory)
                per_file.update((p, [_error_finding(p, err)]) for p in chunk)
            done += sum(weight[p] for p in chunk)
            if progress:
                progress(done, total)


def lint_files(
    paths: Iterable[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
    dialect: str = "auto",
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    explain: bool = False,
    max_bytes: int = MAX_INPUT_BYTES,
    verbose: bool = False,
    fold: bool = True,
    platform: str | None = None,
    stdin: BinaryIO | None = None,
    claims: ClaimCheck | None = None,
) -> LintRun:
    """Lint files, directories and globs; files in parallel when there are many.

    ``jobs``: worker processes (default: one per CPU; 1 = in this process).
    ``progress(done, total)`` is called as files finish.  ``explain``: near
    misses come back in ``LintRun.notes``, and with ``verbose`` what a file holds that
    was carried through unread.  Files over ``max_bytes`` are errors.  ``fold``: each
    site once (``diagnostics.fold``): copies of one module (equal without locations, e.g.
    the dumps of N hosts) are linted once, each finding reported once with ``copies`` and
    ``paths``; the same site in several stages of one module in a dump folder is reported
    at the earliest, the others in ``stages``.  ``fold=False``: every file on its own.
    ``platform``: what the cost model prices sites for (``lint_module``).  The PATH ``-``
    is ``stdin`` (default: this process's), read here.  ``claims``: how gradient sites' claims are
    held against the compiled program (``lint_module``; a module-level function: workers take it).
    """
    check_codes(select, ignore, passes)
    all_files, findings, notes = collect_paths(paths)
    # Refused before anything reads them (the copies' grouping would): a size is one stat away.
    findings.extend(_over_limit(all_files, max_bytes))
    readable = [p for p in all_files if p == STDIN or not _too_large(p, max_bytes)]
    # stdin, pipes (``<(cmd)``, ``/dev/stdin``), devices: read once, by this process, up to the limit,
    # never as a copy of another module (grouping would read them a first time) nor in a worker.
    read_here = [p for p in readable if p == STDIN or not is_regular_file(p)]
    others = [p for p in readable if p not in read_here]
    names: dict[str, str | None] = {}
    groups = [[p] for p in read_here] + (group_copies(others, names, limit=max_bytes) if fold
                                         else [[p] for p in others])
    files = [g[0] for g in groups]
    # Progress counts files: a module stands for each of its copies.
    weight = {g[0]: len(g) for g in groups}
    options: dict[str, Any] = {"select": select, "ignore": ignore, "passes": passes, "dialect": dialect,
                               "explain": explain, "max_bytes": max_bytes, "verbose": verbose,
                               "platform": platform, "claims": claims,
                               # Without --platform, each dump file is priced for the platform its
                               # dump names (``PLATFORM_after_optimizations``), else for an assumed one.
                               "platforms": dump_platforms(p for p in all_files if p != STDIN) if platform is None else {}}
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    per_file: dict[str, list[Finding]] = {p: lint_file(p, options, stdin) for p in read_here}
    files = [p for p in files if p not in per_file]
    if jobs > 1 and len(files) >= _POOL_MIN_FILES:
        # The workers run the parent's passes, by name: a worker's registry may differ.
        options["passes"] = list(passes) if passes is not None else list(available_passes())
        _lint_in_pool(files, options, min(jobs, len(files)), per_file, weight, len(read_here), len(all_files),
                      progress)
    else:
        done = len(read_here)
        for p in files:
            per_file[p] = lint_file(p, options)
            done += weight[p]
            if progress:
                progress(done, len(all_files))
    stages = group_stages(groups, dump_stages([p for g in groups for p in g], names)) if fold else None
    for f in fold_findings(per_file, groups, stages):
        (notes if f.is_note else findings).append(f)
    return LintRun(files=all_files, findings=findings, notes=notes, modules=len(groups))


def _size(path: str) -> int | None:
    """The size of a regular file (None: not one, or not there: ``lint_file`` says why)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _too_large(path: str, limit: int) -> bool:
    size = _size(path)
    return size is not None and size > limit


def _over_limit(paths: Sequence[str], limit: int) -> list[Finding]:
    """A ``too-large`` error for each regular file over ``limit`` bytes, from its size alone."""
    return [_error_finding(p, too_large(p, _size(p), limit)) for p in paths if p != STDIN and _too_large(p, limit)]


def lint(
    module_or_path: Module | str | os.PathLike[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
    platform: str | None = None,
) -> list[Finding]:
    """Findings of a parsed module, or of a file or directory of modules; ``platform``: what
    the cost model prices each fix for (``lint_module``).

    A file that fails to parse raises ``ParseError`` (from a directory, the
    failing files come back as ``parse-error`` findings instead, so one bad
    file does not hide the others).
    """
    if isinstance(module_or_path, Module):
        return lint_module(module_or_path, select=select, ignore=ignore, passes=passes, platform=platform)
    path = os.fspath(module_or_path)
    if os.path.isfile(path):
        return lint_module(parse_file(path), path=path, select=select, ignore=ignore, passes=passes,
                           platform=platform)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    return lint_files([path], jobs=1, select=select, ignore=ignore, passes=passes, platform=platform).findings


# ---------------------------------------------------------------------------
# Output formats


def json_schema() -> dict[str, Any]:
    """The JSON schema ``--format json`` output follows."""
    return json.loads(SCHEMA_FILE.read_text())


def format_findings(findings: Sequence[Finding], fmt: str = "text", *, files: int | None = None,
                    modules: int | None = None, source_root: str | os.PathLike[str] | None = None) -> str:
    """``findings`` in format ``fmt``; ``source_root``: the repository the GitHub and SARIF
    formats point into (default: the git top level of the working directory, else it)."""
    if fmt == "text":
        return format_text(findings, files, modules)
    if fmt == "json":
        return format_json(findings)
    if fmt == "github":
        return format_github(findings, SourceRoot(source_root))
    if fmt == "sarif":
        return format_sarif(findings, SourceRoot(source_root))
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")

