"""Console scripts: ``hlo-rewrite`` (run the rewrite passes on a file) and
``hlo-lint`` (report unfused MoE patterns in files and XLA dump folders).

Exit codes, both scripts:

* ``hlo-rewrite``: 0 success (sites rewritten, or none found); 2 bad usage or
  input (the parse error's ``path:line:col`` message on stderr: empty, binary,
  too large, not there) or an output that cannot be written (its path named,
  ``-o`` naming the input, a ``--graph`` folder that cannot be made); 3 a bug
  (``internal error``, one line and a request to report it); 4 sites were found
  but none was rewritten (optimized HLO, which XLA cannot compile again, or
  fixes that do not pay by the cost model: each says why on stderr, and the
  output is the input).  When anything fails, nothing is written: with several
  inputs (files, folders), no output is put in place until every input was
  rewritten.
* ``hlo-lint``: 0 clean; 1 findings; 2 a file or folder could not be linted,
  or bad usage (an unknown rule code too); 3 a bug.

No traceback reaches the user (``HLO_PASSES_TRACEBACK=1`` shows it for exit 3).
Reading and writing are in ``files``.  Neither tool imports jax: parsing,
rewriting and linting are pure Python.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .._copies import dump_platforms
from .._version import __version__
from ..checks import legend
from ..claims import hold_claims, host_devices_flag
from ..cost_model import DEFAULT_PLATFORM
from ..pass_interface import PassContext
from ..files import (
    MAX_INPUT_BYTES,
    InputError,
    OutputError,
    Staged,
    atomic_write,
    check_directory,
    commit,
    discard,
    is_regular_file,
    parse_size,
    read_any,
    read_input,
    stage,
    write_stdout,
)
from ..errors import ParseError
from ..diagnostics import (
    NEAR_MISS,
    assumed_pricing,
    format_error,
    format_note,
    from_near_miss,
    from_site,
    rewrite_line,
    rule_id,
)
from ..graph import write_site_graphs
from ..lint import FORMATS, STDIN, STDIN_NAME, check_codes, collect_paths, format_findings, lint_files
from ..gmm.target import dots_round_by_shape_here
from ..lowering import KERNELS, PLATFORMS, KernelUnavailableError, lower_gmms, resolve_kernel, target_for
from ..passes import (
    available_passes,
    builtin_names,
    default_passes,
    load_plugin,
    opt_in_passes,
    pipeline,
    resolve_passes,
    rule_meta,
)
from ..text import parse

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
# hlo-rewrite: it found sites but rewrote none (each says why: "detected, not rewritten: ...").
EXIT_NOT_REWRITTEN = 4


class _Parser(argparse.ArgumentParser):
    # argparse already exits 2 on bad usage; keep that, but say which tool.
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


_DIALECT_HELP = ("how to read the input: auto (the default) tells HLO text (it starts with HloModule) "
                 "from MLIR / StableHLO text, else goes by the extension (.hlo, .mlir)")


def _common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-input-size", type=_size, default=MAX_INPUT_BYTES, metavar="SIZE",
                   help="refuse inputs larger than this, before reading them (e.g. 500M; default 2G)")
    p.add_argument("--graph", metavar="DIR",
                   help="write a picture of each site, before and after (Graphviz: SVG, or .dot without dot)")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")


def _graph_directory_ok(tool: str, directory: str | None, stderr: TextIO) -> bool:
    """Whether ``--graph DIR`` can be written (checked before any work, so that a typo costs
    nothing); False, having said why, when it cannot."""
    if directory is None:
        return True
    try:
        check_directory(directory)
    except OutputError as err:
        print(f"{tool}: error: {err}", file=stderr)
        return False
    return True


def _guarded(tool: str, main: Any, argv: Sequence[str] | None) -> int:
    """``main(argv)``, with no traceback ever reaching the user: out of memory and an
    interrupt are said in one line, anything else is exit 3 asking for a report."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print(f"{tool}: interrupted; nothing was written", file=sys.stderr)
        return 130
    except OutputError as err:  # stdout that cannot be written (/dev/full): the user's, not a bug
        print(f"{tool}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print(f"{tool}: error: out of memory (is the input larger than this machine can hold?); "
              "nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except Exception as err:
        print(f"{tool}: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        print(f"{tool}: this is a bug in hlo_passes; please report it with the command and its input "
              f"(HLO_PASSES_TRACEBACK=1 shows where it happened)", file=sys.stderr)
        if os.environ.get("HLO_PASSES_TRACEBACK"):
            traceback.print_exc()
        return EXIT_INTERNAL


def _load_plugins(tool: str, specs: Sequence[str], stderr: TextIO) -> bool:
    """Import plugin modules (dotted names or ``.py`` files) and register their rules; False
    (having said why, naming the plugin) when one cannot be loaded."""
    for spec in specs:
        try:
            load_plugin(spec)
        except Exception as err:  # anything a plugin's import raises is the plugin's fault: usage
            print(f"{tool}: error: cannot load plugin {spec}: {type(err).__name__}: {err}", file=stderr)
            return False
    return True


def _rule_lines(registry: dict[str, Any]) -> list[str]:
    """``hlo-lint --list-rules``: each rule's code, pass and summary, from its metadata."""
    lines = []
    for name in registry:
        meta = rule_meta(name)
        if meta is not None:
            origin = "" if name in builtin_names() else "  (plugin)"
            lines.append(f"{meta.code}  {name:24} {meta.summary}{origin}")
        else:
            lines.append(f"{name}  {name:24} (plugin)")
    return lines


def _lint_description() -> str:
    found = "; ".join(f"{m.code} {m.summary}" for m in map(rule_meta, sorted(builtin_names())) if m)
    return (f"Report what the rules find in HLO / StableHLO files and XLA dump folders (--xla_dump_to): "
            f"{found}.")


def _passes_help() -> str:
    """``--passes``'s help: what runs when none is named, and what runs only when named."""
    def named(names: list[str]) -> str:
        return ", ".join(f"{rule_id(n)} {n}" for n in names) or "none"
    compiled = [n for n in default_passes(compiled=True) if n in opt_in_passes()]
    also = (f"; on an optimized dump (is_scheduled=true), as inside XLA, also "
            f"{' and '.join(rule_id(n) for n in compiled)}" if compiled else "")
    return (f"passes to run, in order, by rule code or pass name (default: {named(default_passes())}; "
            f"opt-in, run only when named: {named(opt_in_passes())}{also})")


def _split_list(values: Sequence[str] | None) -> list[str] | None:
    if not values:
        return None
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out or None


# ---------------------------------------------------------------------------
# hlo-rewrite


def _rewrite_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hlo-rewrite",
        description="Run hlo_passes' rewrite passes over HLO or StableHLO modules: one file, several, "
                    "or folders (their *.hlo, *.mlir and HloModule *.txt files, as hlo-lint reads them).",
        epilog="Exit status: 0 success (sites rewritten, or none found), 2 bad usage or input, "
               "3 a pass (with --strict; without, it refuses: an internal-error near miss) or the printer failed, "
               "4 sites found but none rewritten (optimized HLO cannot be compiled again, or the fix does not pay "
               "by the cost model for --platform, default tpu; each site says why). "
               "Nothing is written when anything fails, and an input is never modified unless --in-place.",
    )
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="input modules (.hlo, .txt, .mlir) or folders of them; '-' reads stdin")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the result here (default: stdout); with several inputs or a folder, "
                        "a folder: each module goes to OUT/ under its name (its path inside a folder input)")
    p.add_argument("--in-place", action="store_true", help="rewrite each input file itself")
    p.add_argument("--passes", action="append", metavar="A,B", help=_passes_help())
    p.add_argument("--list-passes", action="store_true", help="list the available passes and exit")
    p.add_argument("--dialect", choices=("auto", "hlo", "stablehlo"), default="auto", help=_DIALECT_HELP)
    p.add_argument("--dry-run", action="store_true", help="report what would change; write no module")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff of the rewrite on stdout instead of the module "
                        "(with -o or --in-place the module is still written there)")
    p.add_argument("--report", metavar="FILE",
                   help="write a JSON report: each site, form, location, collectives and bytes before/after")
    p.add_argument("--explain", action="store_true",
                   help="also print near misses: places that look like a pattern, with the check that failed")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                   help="import a module (dotted name or .py file) and register the rules it defines")
    p.add_argument("--kernel", choices=KERNELS, default="auto",
                   help="after the passes, lower grouped matmuls (ragged-dot) to this kernel "
                        "(auto: cpu-ffi for --platform cpu, else XLA's own ragged-dot)")
    p.add_argument("--platform", choices=PLATFORMS, default=None,
                   help="where the module will run: for --kernel auto (default: not known) and for the cost "
                        "model, which rewrites a site only where the fix pays (default: the platform an XLA dump's "
                        "file names say, else priced for tpu)")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-site summary on stderr")
    p.add_argument("--strict", action="store_true",
                   help="a pass that raises is an error (exit 3), not an internal-error near miss")
    _common_options(p)
    return p


def _totals(sites: Sequence[Any]) -> dict[str, int]:
    """What was rewritten; a site detected but not rewritten is counted apart, never in the savings."""
    done = [s for s in sites if s.rewritten]
    return {
        "sites": len(done),
        "detected_not_rewritten": len(sites) - len(done),
        "collectives_before": sum(s.before.count for s in done),
        "collectives_after": sum(s.after.count for s in done),
        "bytes_moved_before": sum(s.before.bytes_moved for s in done),
        "bytes_moved_after": sum(s.after.bytes_moved for s in done),
        "bytes_saved": sum(s.bytes_saved for s in done),
    }


def _report(result: Any, *, input_name: str, dialect: str, passes: list[str],
            lowerings: list[Any], kernel: str) -> dict[str, Any]:
    sites = []
    for s in result.sites:
        d = s.to_json()
        d["rule_id"] = rule_id(s.rule)
        sites.append(d)
    return {
        "tool": "hlo-rewrite",
        "input": input_name,
        "dialect": dialect,
        "passes": passes,
        "changed": result.changed or any(g.lowered for g in lowerings),
        "kernel": kernel,
        "gmm_lowerings": [g.to_json() for g in lowerings],
        "sites": sites,
        "near_misses": [m.to_json() for m in result.near_misses],
        "totals": _totals(result.sites),
    }


def _several_report(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``--report`` of a run over several inputs: each input's report, and the totals of all."""
    keys = _totals([]).keys()
    return {"tool": "hlo-rewrite", "files": reports,
            "totals": {k: sum(r["totals"][k] for r in reports) for k in keys}}


class _Usage(Exception):
    """A usage error found while working out the inputs and outputs (exit 2, with the usage line)."""


@dataclass
class _Job:
    """One input of ``hlo-rewrite`` and where its module goes."""

    name: str  # as messages name it: the user's path, or <stdin>
    path: str | None  # the file to read; None: stdin
    target: str | None  # the file the module is written to; None: stdout, or nowhere (--dry-run, --diff)
    make_folders: bool = False  # -o DIR for a folder's modules: the folders under DIR are made


def rewrite_main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None,
                 stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """``hlo-rewrite``; returns the exit status."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _rewrite_parser()
    args = parser.parse_args(argv)
    if not _load_plugins("hlo-rewrite", args.plugin, stderr):
        return EXIT_USAGE
    registry = available_passes()
    if args.list_passes:
        for name, rule in registry.items():
            meta = rule_meta(name)
            listing = meta.listing if meta is not None else getattr(rule, "description", "")
            print(f"{name:24} {rule_id(name):8} {listing}", file=stdout)
        return EXIT_OK
    passes = _chosen_passes(parser, args)
    if not _graph_directory_ok("hlo-rewrite", args.graph, stderr):
        return EXIT_USAGE
    try:
        jobs = _jobs(args, stderr)
    except _Usage as err:
        parser.error(str(err))
    except OutputError as err:
        print(f"hlo-rewrite: error: {err}", file=stderr)
        return EXIT_USAGE
    if jobs is None:
        return EXIT_USAGE
    return _rewrite_all(args, jobs, passes, stdin, stdout, stderr)


def _rewrite_all(args: argparse.Namespace, jobs: list[_Job], passes: list[str] | None, stdin: TextIO,
                 stdout: TextIO, stderr: TextIO) -> int:
    """Rewrite every input, then put every output in place (or none, if any input failed)."""
    staged: list[Staged] = []
    made: list[str] = []  # folders made under -o DIR, removed again when nothing is written
    done: list[_Rewritten] = []
    failed = False
    current = ""
    try:
        for job in jobs:
            current = job.name
            try:
                text = _read_rewrite_input(args, job, stdin)
                module = parse(text, dialect=args.dialect, path=job.name)
            except (InputError, ParseError) as err:
                print(str(err), file=stderr)
                failed = True  # the other inputs are still read: every bad one is named at once
                continue
            done.append(_rewrite(args, job, module, text, passes, staged, made))
        if failed:
            _undo(staged, made)
            if len(jobs) > 1:
                print("hlo-rewrite: nothing was written", file=stderr)
            return EXIT_USAGE
        if args.report:
            reports = [r.report for r in done if r.report is not None]
            report = _several_report(reports) if _several(args.inputs) else reports[0]
            staged.append(stage(args.report, json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"))
    except BaseException as err:
        _undo(staged, made)
        status = _rewrite_failure(err, current, stderr)
        if status is None:
            raise
        return status
    try:
        commit(staged)
    except OutputError as err:
        _undo([], made)
        print(f"hlo-rewrite: error: {err}", file=stderr)
        return EXIT_USAGE
    for s in staged:
        for note in s.notes:
            print(f"hlo-rewrite: note: {note}", file=stderr)
    status = EXIT_OK
    taken: set[str] = set()
    for rewritten in done:
        if not _tell(args, rewritten, stderr, taken):
            status = EXIT_USAGE
    for rewritten in done:
        if rewritten.diff is not None:
            write_stdout(stdout, rewritten.diff)
        elif rewritten.text is not None:
            write_stdout(stdout, rewritten.text)
    found = [s for r in done for s in r.sites]
    if status == EXIT_OK and found and not any(s.rewritten for s in found):
        return EXIT_NOT_REWRITTEN  # detected, not rewritten: each site said why
    return status


def _chosen_passes(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str] | None:
    """The pass names ``--passes`` names by name or rule code (None: the default set), after the
    checks of the other arguments (``parser.error`` exits with the usage status)."""
    if not args.inputs:
        parser.error("the input file is required ('-' for stdin)")
    if args.in_place and (args.output or "-" in args.inputs):
        parser.error("--in-place rewrites named input files; it excludes -o and '-'")
    passes = _split_list(args.passes)
    if passes is None:
        return None
    try:
        return resolve_passes(passes)
    except ValueError as err:
        parser.error(str(err))
    return None  # not reached: parser.error exits


def _jobs(args: argparse.Namespace, stderr: TextIO) -> list[_Job] | None:
    """Each input and where its module goes; None when a folder could not be read (said on
    ``stderr``).  ``_Usage`` for outputs that do not fit the inputs, ``OutputError`` for -o
    naming an input or a folder that cannot be written."""
    inputs = list(args.inputs)
    if "-" in inputs:
        if len(inputs) > 1:
            raise _Usage("'-' (stdin) must be the only input")
        return [_Job(STDIN_NAME, None, _single_target(args.output, STDIN_NAME))]
    if not _several(inputs):
        (only,) = inputs
        jobs = [_Job(only, only, only if args.in_place else _single_target(args.output, only))]
    else:
        several = _several_jobs(args, inputs, stderr)
        if several is None:
            return None
        jobs = several
    for job in jobs:
        if job.target is not None and job.path is not None and not args.in_place and _same_file(job.target, job.path):
            raise _Usage(f"-o would write {job.target}, which is the input {job.name}: an input is only "
                         "rewritten with --in-place")
    return jobs


def _several(inputs: Sequence[str]) -> bool:
    """Whether the inputs are several modules (more than one, or a folder): -o is then a folder."""
    return len(inputs) > 1 or any(i != "-" and os.path.isdir(i) for i in inputs)


def _single_target(output: str | None, name: str) -> str | None:
    """``-o`` for one input: a file, or an existing folder to write the input's name into."""
    if output is not None and os.path.isdir(output) and name != STDIN_NAME:
        return os.path.join(output, os.path.basename(name))
    return output


def _several_jobs(args: argparse.Namespace, inputs: list[str], stderr: TextIO) -> list[_Job] | None:
    if args.output is None and not args.in_place and not (args.dry_run or args.diff):
        raise _Usage("several inputs: give -o DIR, --in-place, --dry-run or --diff "
                     "(their modules cannot all go to stdout)")
    if args.output is not None:
        if os.path.exists(args.output) and not os.path.isdir(args.output):
            raise _Usage(f"-o {args.output}: with several inputs or a folder, -o names a folder, and this is a file")
        check_directory(args.output)

    def target(relative: str) -> str | None:
        if args.in_place:
            return None  # set below: the input itself
        return os.path.join(args.output, relative) if args.output is not None else None

    jobs: list[_Job] = []
    seen: set[str] = set()
    for arg in inputs:
        if os.path.isdir(arg):
            files, errors, notes = collect_paths([arg])
            for note in notes:
                print(format_note(note), file=stderr)
            if errors:
                for err in errors:
                    print(format_error(err), file=stderr)
                return None
            found = [(f, os.path.relpath(f, arg)) for f in files]
        else:
            found = [(arg, os.path.basename(arg))]
        for path, relative in found:
            real = os.path.realpath(path)
            if real in seen:  # the same file twice (named, and inside a folder): rewritten once
                continue
            seen.add(real)
            jobs.append(_Job(path, path, path if args.in_place else target(relative), make_folders=True))
    targets: dict[str, str] = {}
    for job in jobs:
        if job.target is None:
            continue
        other = targets.setdefault(os.path.realpath(job.target), job.name)
        if other != job.name:
            raise _Usage(f"{other} and {job.name} would both be written to {job.target}; "
                         "rewrite them in separate runs or into separate folders")
    return jobs


def _same_file(target: str, path: str) -> bool:
    try:
        return os.path.samefile(target, path)
    except OSError:
        return os.path.realpath(target) == os.path.realpath(path)


def _read_rewrite_input(args: argparse.Namespace, job: _Job, stdin: TextIO) -> str:
    if job.path is not None:
        return read_input(job.path, limit=args.max_input_size)
    return read_any(stdin, job.name, limit=args.max_input_size)


@dataclass
class _Rewritten:
    """What ``hlo-rewrite`` made of one input, computed before anything is written (the module
    itself is not kept: a folder of dumps would hold every graph at once)."""

    name: str
    sites: list[Any]
    near_misses: list[Any]
    lowerings: list[Any]
    text: str | None  # the module, for stdout (None: it goes to a file, or nowhere)
    diff: str | None
    hint: str | None  # the opt-in passes that would rewrite what the default ones left
    report: dict[str, Any] | None


def _rewrite(args: argparse.Namespace, job: _Job, module: Any, text: str, passes: list[str] | None,
             staged: list[Staged], made: list[str]) -> _Rewritten:
    """Run the passes and the GMM lowering on ``module``; its output is staged (in ``staged``),
    not yet put in place."""
    # The cost model prices each site for --platform, else for the platform the dump's file names say;
    # a rule resting on the GMM kernel knows the kernel --kernel and --platform name.
    # And where that platform is CPU and jax is installed, whether its XLA's dots round by their shape
    # (YNNPACK): the split rules then keep the GMMs as written, so that the output compiled by it
    # computes what the input does, bit for bit (docs/optimized-hlo.md).
    platform = args.platform or _dump_platform(job.path)
    context = PassContext.for_platform(platform, gmm_target=target_for(args.kernel, args.platform),
                                       dots_round_by_shape=dots_round_by_shape_here(platform))
    # The default set of an optimized dump is the pass inside XLA's (RuleMeta.compiled_default).
    compiled = module.scheduled
    chosen = passes if passes is not None else default_passes(compiled=compiled)
    # The module is not reused: no copy.
    result = pipeline(chosen, rewrite=True, strict=args.strict, context=context).run(module, copy=False)
    # A gradient site's "collectives A -> B" held against the input's compiled program (a CPU text:
    # compiled here, once), as every entry point holds it: XLA's combiner may have made one of the
    # halves' reductions already (the rewrite stays; the report says so).
    hold_claims(module, result.sites, result.near_misses, platform)
    hint = (_opt_in_hint(result.module, context, compiled) if passes is None and not result.sites and not args.quiet
            else None)
    lowerings = lower_gmms(result.module, args.kernel, args.platform)
    new_text = result.module.to_text()
    diff = None
    if args.diff:
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            fromfile=job.name, tofile=f"{job.name} (rewritten)",
        ))
    report = None
    if args.report:
        report = _report(result, input_name=job.name, dialect=module.dialect,
                         passes=chosen,
                         lowerings=lowerings, kernel=resolve_kernel(args.kernel, args.platform))
    if job.target and not args.dry_run:
        if job.make_folders:
            _make_folders(os.path.dirname(job.target), made)
        staged.append(stage(job.target, new_text))
    to_stdout = job.target is None and not args.dry_run and not args.diff
    return _Rewritten(job.name, list(result.sites), list(result.near_misses), lowerings,
                      new_text if to_stdout else None, diff, hint, report)


def _dump_platform(path: str | None) -> str | None:
    """The platform an XLA dump file was compiled for, when the names in its folder say it
    (``_copies.dump_platforms``); None: not said (the sites are priced for an assumed one)."""
    if path is None or not is_regular_file(path):
        return None
    folder = os.path.dirname(path) or "."
    try:
        names = [os.path.join(folder, n) for n in os.listdir(folder)]
    except OSError:
        return None
    return dump_platforms([path, *names]).get(path)


def _opt_in_hint(module: Any, context: PassContext, compiled: bool) -> str | None:
    """When the default passes found nothing: which opt-in passes would rewrite this module
    (``compiled``: an optimized one, whose default set is larger).
    They are run, rewriting a copy, so that the hint counts what ``--passes`` would rewrite: not a
    site they would only detect (one whose fix does not pay by the cost model, issue 44)."""
    opt_in = opt_in_passes(compiled=compiled)
    if not opt_in:
        return None
    found: dict[str, int] = {}
    for site in pipeline(opt_in, context=context).run(module).sites:
        if site.rewritten:
            found[site.rule] = found.get(site.rule, 0) + 1
    if not found:
        return None
    would = ", ".join(f"{rule_id(n)} {n} (opt-in) would rewrite {k} site{'s' * (k != 1)}" for n, k in found.items())
    codes = ",".join(rule_id(n) for n in [*default_passes(compiled=compiled), *found])
    return f"{would}: run with --passes {codes}"


def _make_folders(directory: str, made: list[str]) -> None:
    """Make ``directory`` and the folders above it that are missing, noting each one made."""
    missing = []
    while directory and not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except OSError as err:
            raise OutputError(d, err.strerror or str(err)) from None
        made.append(d)


def _undo(staged: list[Staged], made: list[str]) -> None:
    """Nothing written: the staged outputs discarded, the folders made for them removed."""
    discard(staged)
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            pass
    made.clear()


def _rewrite_failure(err: BaseException, name: str, stderr: TextIO) -> int | None:
    """Say why the rewrite stopped (nothing was written); its exit status, or None for what
    is not ours to catch (KeyboardInterrupt, SystemExit)."""
    if isinstance(err, (OutputError, KernelUnavailableError)):
        print(f"hlo-rewrite: error: {err}", file=stderr)
        return EXIT_USAGE
    if isinstance(err, MemoryError):
        print(f"hlo-rewrite: error: {name}: out of memory rewriting it; nothing was written", file=stderr)
        return EXIT_USAGE
    if isinstance(err, ParseError):  # bad input found late: an attribute decoded when a pass read it
        print(str(err), file=stderr)
        return EXIT_USAGE
    if isinstance(err, Exception):  # a bug in a pass or the printer, not in the input
        print(f"hlo-rewrite: internal error: {type(err).__name__}: {err}", file=stderr)
        print("hlo-rewrite: nothing was written", file=stderr)
        return EXIT_INTERNAL
    return None


def _tell(args: argparse.Namespace, rewritten: _Rewritten, stderr: TextIO, taken: set[str]) -> bool:
    """The sites, lowerings, near misses and pictures of one input, on stderr (the module goes to
    stdout); False when a picture could not be written."""
    name, lowerings = rewritten.name, rewritten.lowerings
    if not args.quiet:
        for site in rewritten.sites:
            print(rewrite_line(from_site(site)), file=stderr)
        if resolve_kernel(args.kernel, args.platform) != "xla":
            for lowering in lowerings:
                print(lowering, file=stderr)
        if not rewritten.sites and not any(g.lowered for g in lowerings):
            hint = f" by the default passes; {rewritten.hint}" if rewritten.hint else ""
            print(f"hlo-rewrite: {name}: nothing to rewrite{hint}", file=stderr)
    if args.explain:
        # One format for near misses, hlo-lint's: path:line:col: note: CODE near miss: refused (check): why
        for miss in rewritten.near_misses:
            print(format_note(from_near_miss(miss)), file=stderr)
        if not rewritten.near_misses:
            print(f"hlo-rewrite: {name}: no near misses", file=stderr)
        _print_legend("hlo-rewrite", (m.check for m in rewritten.near_misses), stderr)
    if args.graph:
        return _write_graphs("hlo-rewrite", rewritten.sites, args.graph, name, stderr, taken)
    return True


def _print_legend(tool: str, checks: Any, stderr: TextIO) -> None:
    """What each check named by the near misses above requires (``hlo_passes.checks``)."""
    lines = legend(checks)
    if lines:
        print(f"{tool}: the checks named above:", file=stderr)
        for line in lines:
            print(f"  {line}", file=stderr)


def _write_graphs(tool: str, sites: Sequence[Any], directory: str, name: str, stderr: TextIO,
                  taken: set[str]) -> bool:
    """The pictures of ``sites``; False (said as ``cannot write DIR: why``) when the folder fails."""
    if not sites:
        print(f"{tool}: {name}: no site, no picture", file=stderr)
        return True
    try:
        lines = write_site_graphs(sites, directory, name, taken)
    except OSError as err:
        print(f"{tool}: error: {OutputError(directory, err.strerror or str(err))}", file=stderr)
        return False
    for line in lines:
        print(f"{tool}: {line}", file=stderr)
    return not any(line.startswith("error: ") for line in lines)


# ---------------------------------------------------------------------------
# hlo-lint


def _lint_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hlo-lint",
        description=_lint_description(),
        epilog="Findings by default: the sites of every rule (the opt-in rewrite passes too) where the "
               "fix pays by the cost model (per device: copies, collective bytes and launches, GMM launches; "
               f"docs/cost-model.md) for --platform, default {DEFAULT_PLATFORM}. A site whose fix does not pay is a "
               "near miss (does-not-pay, shown by --explain with its numbers); --select CODE reports every site of "
               "the rules it names. Exit status: 0 clean, 1 findings, 2 a file could not be linted or bad usage.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files, directories (recursive) or globs; '-' reads stdin")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text: path:line:col lines (the default); json: a list of objects "
                        "(hlo_passes/schemas/lint-findings.schema.json); github: workflow annotations on the "
                        "pull request; sarif: SARIF 2.1.0 for code scanning")
    p.add_argument("--output", metavar="FILE", help="write the report here (default: stdout)")
    p.add_argument("--select", action="append", metavar="RULES",
                   help="only these rules (comma-separated ids or prefixes, e.g. MOE001)")
    p.add_argument("--ignore", action="append", metavar="RULES", help="skip these rules")
    p.add_argument("--dialect", choices=("auto", "hlo", "stablehlo"), default="auto", help=_DIALECT_HELP)
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="worker processes (default: one per CPU; 1 = no pool)")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                   help="import a module (dotted name or .py file) and register the rules it defines")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also name, on stderr, each opcode or attribute a file holds that hlo_passes "
                        "does not know and carried through as text")
    p.add_argument("--explain", action="store_true",
                   help="also print near misses on stderr: places that look like a pattern, "
                        "with the check that failed")
    p.add_argument("--platform", choices=PLATFORMS, default=None,
                   help=f"price each site's fix for this platform (cuda, rocm: gpu; default {DEFAULT_PLATFORM}); "
                        "a fix that does not pay is a near miss")
    p.add_argument("--no-fold", action="store_true",
                   help="report every file's findings: no folding of identical copies (the dumps of N hosts) "
                        "or of the same site in several stages of one module")
    p.add_argument("--source-root", metavar="DIR",
                   help="the repository being checked: github and sarif findings whose source line is a file "
                        "in it point there, the dump position becoming a related location (default: the git "
                        "top level of the working directory, else the working directory)")
    _common_options(p)
    return p


class _Progress:
    """A one-line progress bar on a terminal's stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        self.stream.write(f"\rhlo-lint [{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def lint_main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
              stderr: TextIO | None = None) -> int:
    """``hlo-lint``; returns the exit status."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _lint_parser()
    args = parser.parse_args(argv)

    if not _load_plugins("hlo-lint", args.plugin, stderr):
        return EXIT_USAGE
    if args.list_rules:
        for line in _rule_lines(available_passes()):
            print(line, file=stdout)
        return EXIT_OK
    if not args.paths:
        parser.error("give at least one PATH")
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.source_root is not None and not os.path.isdir(args.source_root):
        parser.error(f"--source-root {args.source_root}: not a directory")
    select, ignore = _split_list(args.select), _split_list(args.ignore)
    try:
        check_codes(select, ignore, names=("--select", "--ignore"))  # a typo in a code must not silence the lint
    except ValueError as err:
        parser.error(str(err))
    if not _graph_directory_ok("hlo-lint", args.graph, stderr):
        return EXIT_USAGE

    progress = None
    if not args.no_progress and stderr.isatty():
        progress = _Progress(stderr)
    try:
        run = lint_files(args.paths, select=select, ignore=ignore, dialect=args.dialect, jobs=args.jobs,
                         progress=progress, explain=args.explain, max_bytes=args.max_input_size,
                         verbose=args.verbose, platform=args.platform, fold=not args.no_fold,
                         stdin=getattr(stdin, "buffer", None), claims=hold_claims)
    finally:
        if progress is not None:
            progress.close()
    report = format_findings(run.findings, args.format, files=len(run.files), modules=run.modules,
                             source_root=args.source_root)
    if args.output:
        try:
            for note in atomic_write(args.output, report):
                print(f"hlo-lint: note: {note}", file=stderr)
        except OutputError as err:
            print(f"hlo-lint: error: {err}", file=stderr)
            return EXIT_USAGE
    else:
        write_stdout(stdout, report)
    if args.format != "text" or args.output:
        # A machine-readable report hides errors from whoever reads the log.
        for failed in run.errors:
            print(format_error(failed), file=stderr)
    for skipped in run.notes:
        print(format_note(skipped), file=stderr)
    assumed = assumed_pricing(run.findings)
    if assumed:  # the verdicts rest on a platform nobody named: say which (JSON/SARIF: details.priced_for)
        print(f"hlo-lint: note: {assumed}", file=stderr)
    if args.explain:
        misses = [n for n in run.notes if n.message.startswith(NEAR_MISS)]
        if not misses:
            print("hlo-lint: no near misses", file=stderr)
        _print_legend("hlo-lint", (n.details.get("check") for n in misses), stderr)
    status = run.exit_code
    if args.graph:
        taken: set[str] = set()
        for path in run.files:
            name = STDIN_NAME if path == STDIN else path
            found = [f for f in run.findings if f.path == name and not f.is_error]
            if found and not _write_graphs("hlo-lint", found, args.graph, name, stderr, taken):
                status = EXIT_USAGE
    return status


def rewrite_entry() -> None:
    host_devices_flag()  # before jax makes its CPU backend (if it is asked at all)
    sys.exit(_guarded("hlo-rewrite", rewrite_main, None))


def lint_entry() -> None:
    host_devices_flag()
    sys.exit(_guarded("hlo-lint", lint_main, None))

