"""The MoE lint: findings for every place a rewrite pass would fire, in CI formats.

A finding is a site a pass reports in detect-only mode (``run_passes(...,
rewrite=False)``): the program could be rewritten there and is not yet.  Near
misses are not findings: they are places the rewrite must not touch.

Output formats: ``text`` (``path:line:col: RULE message``), ``json`` (a list
of objects; the schema ships as ``hlo_passes/schemas/lint-findings.schema.json``
and is returned by ``json_schema()``), ``github`` (workflow annotation
commands) and ``sarif`` (SARIF 2.1.0, what code scanning uploads take).

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
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ._copies import group_copies
from .errors import ParseError
from .files import MAX_INPUT_BYTES, InputError, file_kind, read_input
from .ir import Module
from ._version import __version__
from .parser.hlo import unknown_constructs
from .passes import available_passes, run_passes
from .prescan import BUILTIN_RULES, rules_that_may_fire_in
from .text import parse, parse_file

__all__ = [
    "FORMATS",
    "RULES",
    "Finding",
    "LintRun",
    "RuleInfo",
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


@dataclass(frozen=True)
class RuleInfo:
    id: str
    pass_name: str
    name: str  # CamelCase, what SARIF shows as the rule's name
    summary: str
    help: str


# The one mapping from pass names to rule ids.  A pass that is not listed here
# (a plugin's) reports under its own name.
RULES: dict[str, RuleInfo] = {
    info.pass_name: info
    for info in (
        RuleInfo(
            "MOE001", "moe-gather-fusion", "UnfusedMoeWeightGather",
            "unfused MoE weight gather",
            "A prefused MoE weight W[E, D, 2F] is sliced into gate and up halves and each half "
            "is all-gathered on its own. Gather W once and slice after the gather (or after the "
            "grouped matmul); `hlo-rewrite` does this: one collective instead of two per stage, "
            "and no slice or concatenate copies.",
        ),
        RuleInfo(
            "MOE002", "moe-gradient-fusion", "UnfusedMoeWeightGradientReduction",
            "unfused MoE weight-gradient reduction",
            "The gradient of a prefused MoE weight is reduced half by half and reassembled. "
            "Reduce the whole gradient at once.",
        ),
    )
}

# Files that could not be linted are reported under these pseudo-rules.
PARSE_ERROR = "parse-error"
INTERNAL_ERROR = "internal-error"
NO_SUCH_FILE = "no-such-file"  # a PATH that does not exist
NO_MATCH = "no-match"  # a glob that matched no file
NO_MODULES = "no-modules"  # a folder without any module in it
NOT_READABLE = "not-readable"  # permission denied, an I/O error, a broken link
TOO_LARGE = "too-large"  # past --max-input-size
ERROR_RULES = (PARSE_ERROR, INTERNAL_ERROR, NO_SUCH_FILE, NO_MATCH, NO_MODULES, NOT_READABLE, TOO_LARGE)

FORMATS = ("text", "json", "github", "sarif")
SCHEMA_FILE = Path(__file__).with_name("schemas") / "lint-findings.schema.json"


def rule_id(pass_name: str) -> str:
    info = RULES.get(pass_name)
    return info.id if info is not None else pass_name


@dataclass(frozen=True)
class Finding:
    """One unfused pattern (or one file that could not be linted).

    ``line``/``column`` are 1-based positions in ``path`` (0 when unknown);
    ``op_name`` and ``source`` (``file:line`` of the framework code) come from
    the op's metadata or MLIR location when the text carries them;
    ``bytes_saved`` is what the rewrite saves per device.
    """

    rule: str
    path: str
    line: int
    column: int
    message: str
    op_name: str | None = None
    source: str | None = None
    bytes_saved: int = 0
    # "warning" for findings, "error" for files that failed, "note" (near misses, files skipped, -v)
    severity: str = "warning"
    pass_name: str | None = None
    form: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    # Identical copies of the module (the dump folders of N hosts, compared
    # without locations): the finding is reported once, at the first path in
    # sorted order; ``paths`` lists every copy (empty: just ``path``).
    copies: int = 1
    paths: tuple[str, ...] = ()
    # Where the weight is cut into halves (source file:line when known), or how to get locations.
    notes: tuple[str, ...] = ()
    picture: Any = field(default=None, compare=False, repr=False)  # report.SitePicture

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def is_note(self) -> bool:
        return self.severity == "note"

    @property
    def all_paths(self) -> tuple[str, ...]:
        return self.paths or (self.path,)

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k != "picture"}
        d["notes"] = list(self.notes)
        d["paths"] = list(self.all_paths)
        return d

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.rule} {self.message}"
        extras = [x for x in (self.op_name, self.source) if x]
        return text + (f" [{' @ '.join(extras)}]" if extras else "")


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
    return sorted({info.id for info in RULES.values()} | {rule_id(n) for n in names})


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


def _site_message(site: Any) -> str:
    info = RULES.get(site.rule)
    what = info.summary if info is not None else site.rule
    halves = site.details.get("halves", 2)
    weight = site.details.get("weight")
    text = f"{what}: {halves} slices"
    if weight:
        text += f" of {weight}"
    # The gradient rule reduces its halves; the forward rule gathers them.
    verb = "reduced" if site.rule == "moe-gradient-fusion" else "gathered"
    text += (f" are {verb} separately ({site.before.count} collectives, "
             f"{site.after.count} when fused; form {site.form})")
    return text


# How to keep source locations, per dialect, for a module whose text has none.
_NO_LOCATIONS = {
    "stablehlo": "this text has no source locations: print it with `lowered.as_text(debug_info=True)` "
                 "(jax) to see the file:line of each op",
    "hlo": "this text has no op metadata: XLA's dumps keep it (`--xla_dump_to=DIR --xla_dump_hlo_as_text`), "
           "and so does `compiled.as_text()`",
}


def _site_notes(site: Any, where: str, dialect: str) -> tuple[str, ...]:
    """Where the weight is cut into halves (the user's fix is there, not at the meeting op)."""
    notes = []
    for k, piece in enumerate(site.pieces, 1):
        text = f"half {k} starts at {where}:{piece.line}:{piece.column}"
        if piece.op_name:
            text += f" ({piece.op_name})"
        if piece.source:
            text += f", from {piece.source}"
        notes.append(text)
    if not site.location.source and not any(p.source for p in site.pieces):
        notes.append(_NO_LOCATIONS.get(dialect, _NO_LOCATIONS["stablehlo"]))
    return tuple(notes)


def lint_module(
    module: Module,
    *,
    path: str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
    explain: bool = False,
) -> list[Finding]:
    """Findings of one parsed module (no rewriting; ``module`` is left untouched).

    ``explain=True`` adds near misses as findings of severity ``"note"``: places
    that look like a pattern, with the legality check that failed.
    """
    chosen = _passes_for(select, ignore, passes)
    # Rules whose communicating steps are not spelled anywhere in the module
    # cannot have a site: skip them (the module was parsed and checked already).
    chosen = rules_that_may_fire_in(module, chosen)
    if not chosen:
        return []
    where = path or module.path or "<string>"
    findings = []
    sites, misses = _detect(module, chosen)
    for site in sites:
        rid = rule_id(site.rule)
        if not _selected(rid, select, ignore):
            continue
        loc = site.location
        findings.append(Finding(
            rule=rid, path=where, line=loc.line, column=loc.column, message=_site_message(site),
            op_name=loc.op_name, source=loc.source, bytes_saved=int(site.bytes_saved),
            pass_name=site.rule, form=site.form,
            details={"collectives_before": site.before.count, "collectives_after": site.after.count,
                     "bytes_moved_before": site.before.bytes_moved,
                     "bytes_moved_after": site.after.bytes_moved, **site.details,
                     "pieces": [{"line": p.line, "column": p.column, "op_name": p.op_name, "source": p.source}
                                for p in site.pieces]},
            notes=_site_notes(site, where, module.dialect), picture=site.picture,
        ))
    if explain:
        for miss in misses:
            rid = rule_id(miss.rule)
            if _selected(rid, select, ignore):
                loc = miss.location
                findings.append(Finding(
                    rule=rid, path=where, line=loc.line, column=loc.column, severity="note",
                    message=f"near miss: refused ({miss.check}): {miss.reason}",
                    op_name=loc.op_name, source=loc.source, pass_name=miss.rule))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return findings


def _detect(module: Module, chosen: Sequence[str]) -> tuple[list[Any], list[Any]]:
    """The sites and near misses of ``chosen`` in ``module``: ``run_passes(..., rewrite=False)``
    without its working copy for the built-in rules, whose detection leaves the module as it is."""
    builtin = [n for n in chosen if n in BUILTIN_RULES]
    others = [n for n in chosen if n not in BUILTIN_RULES]
    registry = available_passes()
    sites: list[Any] = []
    misses: list[Any] = []
    for name in builtin:
        found, missed = registry[name].apply(module, rewrite=False)
        sites.extend(found)
        misses.extend(missed)
    if others:  # a plugin's detection might edit: it gets a copy, as run_passes gives it
        result = run_passes(module, others, rewrite=False)
        sites.extend(result.sites)
        misses.extend(result.near_misses)
    return sites, misses


def lint_text(text: str, *, path: str | None = None, dialect: str = "auto", **options: Any) -> list[Finding]:
    """Findings of HLO or StableHLO text; ``ParseError`` if it is not a module."""
    return lint_module(parse(text, dialect=dialect, path=path), path=path, **options)


def _error_finding(path: str, err: BaseException) -> Finding:
    if isinstance(err, ParseError):
        return Finding(rule=PARSE_ERROR, path=path, line=err.line, column=err.column,
                       message=err.reason, severity="error")
    if isinstance(err, InputError):
        kind = {"too-large": TOO_LARGE, "no-such-file": NO_SUCH_FILE}.get(err.kind, NOT_READABLE)
        return Finding(rule=kind, path=path, line=0, column=0, message=err.reason, severity="error")
    return Finding(rule=INTERNAL_ERROR, path=path, line=0, column=0,
                   message=f"{type(err).__name__}: {err}", severity="error")


def lint_file(path: str, options: dict[str, Any] | None = None) -> list[Finding]:
    """Findings of one file; a file that cannot be read or parsed gives one error finding."""
    options = dict(options or {})
    dialect = options.pop("dialect", "auto")
    limit = options.pop("max_bytes", MAX_INPUT_BYTES)
    verbose = options.pop("verbose", False)
    try:
        text = read_input(path, limit=limit)
        module = parse(text, dialect=dialect, path=path)
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
    """One note per opcode or attribute name the parser did not know and carried
    through as text (``hlo-lint -v``): no rule looks through it."""
    if module.dialect != "hlo":
        return []
    notes, seen = [], set()
    for kind, name, line, column in unknown_constructs(module):
        if (kind, name) in seen:
            continue
        seen.add((kind, name))
        notes.append(Finding(rule=UNKNOWN, path=path, line=line, column=column, severity="note",
                             message=f"carried through unknown {kind} {name!r} (no rule looks through it; "
                                     "it may be syntax of a newer XLA)"))
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

    for root, dirs, names in os.walk(top, onerror=unreadable):
        dirs.sort()
        for name in sorted(names):
            p = os.path.join(root, name)
            if not name.endswith(_MODULE_SUFFIXES):
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


def _lint_chunk(paths: list[str], options: dict[str, Any]) -> list[list[Finding]]:
    return [lint_file(p, options) for p in paths]


def _pool_context():
    # fork is cheapest, but forking a process that runs jax's threads can
    # deadlock the child; the API may be called from such a process.
    if "jax" in sys.modules:
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context("fork")


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
) -> LintRun:
    """Lint files, directories and globs; files in parallel when there are many.

    ``jobs``: worker processes (default: one per CPU; 1 = in this process).
    ``progress(done, total)`` is called as files finish.  ``explain``: near
    misses come back in ``LintRun.notes``, and with ``verbose`` what a file holds that
    was carried through unread.  Files over ``max_bytes`` are errors.  ``fold``: copies
    of one module (equal without locations, e.g. the dumps of N hosts) are linted
    once and each finding reported once, with ``copies`` and ``paths``.
    """
    check_codes(select, ignore, passes)
    all_files, findings, notes = collect_paths(paths)
    groups = group_copies(all_files) if fold else [[p] for p in all_files]
    files = [g[0] for g in groups]
    # Progress counts files: a module stands for each of its copies.
    weight = {g[0]: len(g) for g in groups}
    options: dict[str, Any] = {"select": select, "ignore": ignore, "passes": passes, "dialect": dialect,
                               "explain": explain, "max_bytes": max_bytes, "verbose": verbose}
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    per_file: dict[str, list[Finding]] = {}
    if jobs > 1 and len(files) >= _POOL_MIN_FILES:
        workers = min(jobs, len(files))
        with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
            futures = {pool.submit(_lint_chunk, chunk, options): chunk
                       for chunk in _chunks(files, workers * _CHUNKS_PER_WORKER)}
            done = 0
            for fut in as_completed(futures):
                chunk = futures[fut]
                try:
                    per_file.update(zip(chunk, fut.result()))
                except Exception as err:  # a worker that died (e.g. out of memory)
                    per_file.update((p, [_error_finding(p, err)]) for p in chunk)
                done += sum(weight[p] for p in chunk)
                if progress:
                    progress(done, len(all_files))
    else:
        done = 0
        for p in files:
            per_file[p] = lint_file(p, options)
            done += weight[p]
            if progress:
                progress(done, len(all_files))
    for group in groups:
        for f in per_file[group[0]]:
            (notes if f.is_note else findings).append(_as_copies(f, group))
    return LintRun(files=all_files, findings=findings, notes=notes, modules=len(groups))


def _as_copies(finding: Finding, group: list[str]) -> Finding:
    if len(group) == 1:
        return finding
    return replace(finding, copies=len(group), paths=tuple(group))


def lint(
    module_or_path: Module | str | os.PathLike[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
) -> list[Finding]:
    """Findings of a parsed module, or of a file or directory of modules.

    A file that fails to parse raises ``ParseError`` (from a directory, the
    failing files come back as ``parse-error`` findings instead, so one bad
    file does not hide the others).
    """
    if isinstance(module_or_path, Module):
        return lint_module(module_or_path, select=select, ignore=ignore, passes=passes)
    path = os.fspath(module_or_path)
    if os.path.isfile(path):
        return lint_module(parse_file(path), path=path, select=select, ignore=ignore, passes=passes)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    return lint_files([path], select=select, ignore=ignore, passes=passes, jobs=1).findings


# ---------------------------------------------------------------------------
# Output formats


def json_schema() -> dict[str, Any]:
    """The JSON schema ``--format json`` output follows."""
    return json.loads(SCHEMA_FILE.read_text())


def _copies_note(f: Finding) -> str:
    """``"; identical in 8 copies: a/m.txt, b/m.txt, ..."``: the folded copies, for one-line formats."""
    if f.copies <= 1:
        return ""
    shown = ", ".join(f.all_paths[:_COPIES_SHOWN]) + (", ..." if f.copies > _COPIES_SHOWN else "")
    return f"; identical in {f.copies} copies: {shown}"


_COPIES_SHOWN = 3


def position(f: Finding) -> str:
    """``path:line:col``, or just the path for what concerns a whole file."""
    return f"{f.path}:{f.line}:{f.column}" if f.line > 0 else f.path


def format_note(f: Finding) -> str:
    """One line for a note (a near miss, a file skipped), as ``hlo-lint`` prints them on stderr."""
    extras = [x for x in (f.op_name, f.source) if x]
    return f"{position(f)}: note: {f.message}" + (f" [{', '.join(extras)}]" if extras else "")


def format_text(findings: Sequence[Finding], files: int | None = None, modules: int | None = None) -> str:
    lines = []
    for f in findings:
        if f.is_error:
            lines.append(f"{position(f)}: error: {f.rule}: {f.message}{_copies_note(f)}")
            continue
        line = f"{f.path}:{f.line}:{f.column}: {f.rule} {f.message}"
        if f.op_name:
            line += f"\n    op_name: {f.op_name}"
        if f.source:
            line += f"\n    source: {f.source}"
        line += f"\n    fusing saves {f.bytes_saved:,} bytes per device"
        for note in f.notes:
            line += f"\n    note: {note}"
        if f.copies > 1:
            line += f"\n    {_copies_note(f)[2:]} (modules equal without locations)"
        lines.append(line)
    warnings = sum(not f.is_error for f in findings)
    errors = len(findings) - warnings
    summary = f"{warnings} finding{'s' * (warnings != 1)}"
    if errors:
        summary += f", {errors} error{'s' * (errors != 1)}"
    if files is not None:
        summary += f" in {files} file{'s' * (files != 1)}"
        if modules is not None and modules != files:
            summary += f" ({modules} distinct module{'s' * (modules != 1)})"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def format_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_json() for f in findings], indent=2, sort_keys=True, default=_json_default) + "\n"


def _json_default(value: Any) -> Any:
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    return str(value)


def _gh_escape(text: str, property_value: bool = False) -> str:
    # GitHub's workflow command escaping: data escapes % CR LF; property
    # values also : and ,.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        kind = "error" if f.is_error else "warning"
        props = [f"file={_gh_escape(f.path, True)}"]
        if f.line > 0:
            props.append(f"line={f.line}")
            if f.column > 0:
                props.append(f"col={f.column}")
        props.append(f"title={_gh_escape(f.rule, True)}")
        message = f.message
        if f.op_name:
            message += f" (op_name: {f.op_name})"
        if not f.is_error:
            message += f"; fusing saves {f.bytes_saved:,} bytes per device"
        message += _copies_note(f)
        lines.append(f"::{kind} {','.join(props)}::{_gh_escape(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _artifact_location(path: str) -> dict[str, Any]:
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    # Relative paths resolve against the checkout; code scanning maps
    # %SRCROOT% to the repository root.
    return {"uri": quote(p.as_posix()), "uriBaseId": "%SRCROOT%"}


def _sarif_region(f: Finding) -> dict[str, int] | None:
    if f.line < 1:
        return None
    region = {"startLine": f.line}
    if f.column >= 1:
        region["startColumn"] = f.column
    return region


def _sarif_location(f: Finding) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact_location(f.path)}
    region = _sarif_region(f)
    if region:
        physical["region"] = region
    loc: dict[str, Any] = {"physicalLocation": physical}
    if f.op_name:
        loc["logicalLocations"] = [{"fullyQualifiedName": f.op_name, "kind": "function"}]
    return loc


def _sarif_related(f: Finding) -> list[dict[str, Any]]:
    """Where the halves start (the slices): the place a user's fix usually goes."""
    related = []
    for k, piece in enumerate(f.details.get("pieces", ()), 1):
        if piece.get("line", 0) < 1:
            continue
        loc = _sarif_location(Finding(rule=f.rule, path=f.path, line=piece["line"], column=piece["column"],
                                      message="", op_name=piece.get("op_name")))
        loc["id"] = k
        loc["message"] = {"text": f"half {k} starts here" + (f" ({piece['source']})" if piece.get("source") else "")}
        related.append(loc)
    return related


def format_sarif(findings: Sequence[Finding]) -> str:
    rule_ids = sorted({f.rule for f in findings if not f.is_error} | {r.id for r in RULES.values()})
    by_id = {r.id: r for r in RULES.values()}
    rules = []
    for rid in rule_ids:
        info = by_id.get(rid)
        descriptor: dict[str, Any] = {"id": rid, "defaultConfiguration": {"level": "warning"}}
        if info is not None:
            descriptor.update({
                "name": info.name,
                "shortDescription": {"text": info.summary},
                "fullDescription": {"text": info.help},
                "help": {"text": info.help},
                "properties": {"pass": info.pass_name},
            })
        else:
            descriptor["shortDescription"] = {"text": rid}
        rules.append(descriptor)
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    notifications = []
    for f in findings:
        if f.is_error:
            note: dict[str, Any] = {"level": "error", "message": {"text": f"{f.rule}: {f.message}"},
                                    "descriptor": {"id": f.rule}}
            note["locations"] = [_sarif_location(f)]
            if f.copies > 1:
                note["properties"] = {"copies": f.copies, "paths": list(f.all_paths)}
            notifications.append(note)
            continue
        message = f.message + f"; fusing saves {f.bytes_saved:,} bytes per device" + _copies_note(f)
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": "warning",
            "message": {"text": message},
            "locations": [_sarif_location(f)],
            "partialFingerprints": {"opName/v1": f"{f.rule}:{f.op_name or f.line}"},
            "relatedLocations": _sarif_related(f),
            "properties": {"bytesSaved": f.bytes_saved, "opName": f.op_name, "source": f.source,
                           "form": f.form, "notes": list(f.notes), "copies": f.copies,
                           "paths": list(f.all_paths)},
        }
        if f.copies > 1:
            # The other copies: the same module at the same line (SARIF's place for "also here").
            first = len(result["relatedLocations"]) + 1
            result["relatedLocations"] += [
                {**_sarif_location(replace(f, path=p)), "id": first + i,
                 "message": {"text": f"identical copy {i + 2} of {f.copies}"}}
                for i, p in enumerate(f.all_paths[1:])]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hlo-lint",
                "version": __version__,
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": not notifications,
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def format_findings(findings: Sequence[Finding], fmt: str = "text", *, files: int | None = None,
                    modules: int | None = None) -> str:
    if fmt == "text":
        return format_text(findings, files, modules)
    if fmt == "json":
        return format_json(findings)
    if fmt == "github":
        return format_github(findings)
    if fmt == "sarif":
        return format_sarif(findings)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")

