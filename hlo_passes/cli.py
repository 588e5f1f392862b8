"""Console scripts: ``hlo-rewrite`` (run the rewrite passes on a file) and
``hlo-lint`` (report unfused MoE patterns in files and XLA dump folders).

Exit codes, both scripts:

* ``hlo-rewrite``: 0 success (sites rewritten, or none found); 2 bad usage or
  input (the parse error's ``path:line:col`` message on stderr: empty, binary,
  too large, not there) or an output that cannot be written (its path named); 3
  a bug (``internal error``, one line and a request to report it); 4 sites were
  found but none was rewritten (optimized HLO, which XLA cannot compile again,
  or fixes that do not pay by the cost model: each says why on stderr, and the
  output is the input).  When anything fails, nothing is written.
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
from typing import Any, TextIO

from .checks import legend
from .cost_model import DEFAULT_PLATFORM, PLATFORMS as COST_PLATFORMS, use_platform
from .files import (
    MAX_INPUT_BYTES,
    InputError,
    OutputError,
    Staged,
    atomic_write,
    commit,
    discard,
    parse_size,
    read_input,
    read_stream,
    stage,
    write_stdout,
)
from .errors import ParseError
from .diagnostics import (
    NEAR_MISS,
    format_error,
    format_note,
    from_near_miss,
    from_site,
    rewrite_line,
    rewrite_near_miss,
    rule_id,
)
from .graph import write_site_graphs
from .lint import FORMATS, check_codes, format_findings, lint_files
from .lowering import KERNELS, PLATFORMS, KernelUnavailableError, lower_gmms, resolve_kernel
from .passes import available_passes, builtin_names, load_plugin, rule_meta, run_passes
from .text import parse

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


def _common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-input-size", type=_size, default=MAX_INPUT_BYTES, metavar="SIZE",
                   help="refuse inputs larger than this (e.g. 500M; default 2G)")
    p.add_argument("--graph", metavar="DIR",
                   help="write a picture of each site, before and after (Graphviz: SVG, or .dot without dot)")


def _guarded(tool: str, main: Any, argv: Sequence[str] | None) -> int:
    """``main(argv)``, with no traceback ever reaching the user: out of memory and an
    interrupt are said in one line, anything else is exit 3 asking for a report."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print(f"{tool}: interrupted; nothing was written", file=sys.stderr)
        return 130
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
    found = ", ".join(f"{m.summary}s ({m.code})" for m in map(rule_meta, sorted(builtin_names())) if m)
    return (f"Report what the rules find ({found}) in HLO / StableHLO files and XLA dump folders "
            "(--xla_dump_to).")


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
        description="Run hlo_passes' rewrite passes over an HLO or StableHLO module.",
        epilog="Exit status: 0 success (sites rewritten, or none found), 2 bad usage or input, "
               "3 a pass (with --strict; without, it refuses: an internal-error near miss) or the printer failed, "
               "4 sites found but none rewritten (optimized HLO cannot be compiled again, or the fix does not pay "
               "by the cost model for --platform, default tpu; each site says why). "
               "Nothing is written when anything fails.",
    )
    p.add_argument("input", nargs="?", help="input module (.hlo, .txt, .mlir); '-' reads stdin")
    p.add_argument("-o", "--output", help="write the result here (default: stdout)")
    p.add_argument("--in-place", action="store_true", help="rewrite the input file itself")
    p.add_argument("--passes", action="append", metavar="A,B",
                   help="passes to run, in order (default: every rewrite pass)")
    p.add_argument("--list-passes", action="store_true", help="list the available passes and exit")
    p.add_argument("--dialect", choices=("auto", "hlo", "stablehlo"), default="auto")
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
                        "model, which rewrites a site only where the fix pays (default: priced for tpu)")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-site summary on stderr")
    p.add_argument("--strict", action="store_true",
                   help="a pass that raises is an error (exit 3), not an internal-error near miss")
    _common_options(p)
    return p


def _report(result: Any, *, input_name: str, dialect: str, passes: list[str],
            lowerings: list[Any], kernel: str) -> dict[str, Any]:
    sites = []
    for s in result.sites:
        d = s.to_json()
        d["rule_id"] = rule_id(s.rule)
        sites.append(d)
    # The totals are what the rewrite did: sites only detected are counted apart.
    done = [s for s in result.sites if s.rewritten]
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
        "totals": {
            "sites": len(done),
            "detected_not_rewritten": len(result.sites) - len(done),
            "collectives_before": sum(s.before.count for s in done),
            "collectives_after": sum(s.after.count for s in done),
            "bytes_moved_before": sum(s.before.bytes_moved for s in done),
            "bytes_moved_after": sum(s.after.bytes_moved for s in done),
            "bytes_saved": sum(s.bytes_saved for s in done),
        },
    }


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
    passes = _chosen_passes(parser, args, registry)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        text = _read_rewrite_input(args, name, stdin)
        module = parse(text, dialect=args.dialect, path=name)
    except (InputError, ParseError) as err:
        print(str(err), file=stderr)
        return EXIT_USAGE
    staged: list[Staged] = []
    try:
        rewritten = _rewrite(args, module, text, name, passes, registry, staged)
    except BaseException as err:
        discard(staged)
        status = _rewrite_failure(err, name, stderr)
        if status is None:
            raise
        return status
    try:
        commit(staged)
    except OutputError as err:
        print(f"hlo-rewrite: error: {err}", file=stderr)
        return EXIT_USAGE
    for s in staged:
        for note in s.notes:
            print(f"hlo-rewrite: note: {note}", file=stderr)
    _tell(args, rewritten, name, stderr)
    if rewritten.diff is not None:
        write_stdout(stdout, rewritten.diff)
    elif not args.dry_run and not (args.output or args.in_place):
        write_stdout(stdout, rewritten.text)
    sites = rewritten.result.sites
    if sites and not any(s.rewritten for s in sites):
        return EXIT_NOT_REWRITTEN
    return EXIT_OK


def _chosen_passes(parser: argparse.ArgumentParser, args: argparse.Namespace,
                   registry: dict[str, Any]) -> list[str] | None:
    """The passes ``--passes`` names (None: all), after the checks of the other arguments
    (``parser.error`` exits with the usage status)."""
    if args.input is None:
        parser.error("the input file is required ('-' for stdin)")
    if args.in_place and (args.output or args.input == "-"):
        parser.error("--in-place rewrites a named input file; it excludes -o and '-'")
    passes = _split_list(args.passes)
    if passes is not None:
        unknown = [p for p in passes if p not in registry]
        if unknown:
            parser.error(f"unknown pass(es) {', '.join(unknown)}; available: {', '.join(registry)}")
    return passes


def _read_rewrite_input(args: argparse.Namespace, name: str, stdin: TextIO) -> str:
    if args.input != "-":
        return read_input(args.input, limit=args.max_input_size)
    buffer = getattr(stdin, "buffer", None)
    return read_stream(buffer, name, limit=args.max_input_size) if buffer is not None else stdin.read()


class _Rewritten:
    """What ``hlo-rewrite`` made of its input, computed before anything is written."""

    def __init__(self, result: Any, lowerings: list[Any], text: str, diff: str | None) -> None:
        self.result, self.lowerings, self.text, self.diff = result, lowerings, text, diff


def _rewrite(args: argparse.Namespace, module: Any, text: str, name: str, passes: list[str] | None,
             registry: dict[str, Any], staged: list[Staged]) -> _Rewritten:
    """Run the passes and the GMM lowering on ``module``; the report and the output are
    staged (in ``staged``), not yet put in place."""
    with use_platform(args.platform):  # the cost model prices each site for it
        result = run_passes(module, passes, rewrite=True, copy=False,  # module is not reused: no copy
                            strict=args.strict)
    lowerings = lower_gmms(result.module, args.kernel, args.platform)
    new_text = result.module.to_text()
    diff = None
    if args.diff:
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            fromfile=name, tofile=f"{name} (rewritten)",
        ))
    if args.report:
        report = _report(result, input_name=name, dialect=module.dialect,
                         passes=passes if passes is not None else list(registry),
                         lowerings=lowerings, kernel=resolve_kernel(args.kernel, args.platform))
        staged.append(stage(args.report, json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"))
    target = args.input if args.in_place else args.output
    if target and not args.dry_run:
        staged.append(stage(target, new_text))
    return _Rewritten(result, lowerings, new_text, diff)


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


def _tell(args: argparse.Namespace, rewritten: _Rewritten, name: str, stderr: TextIO) -> None:
    """The sites, lowerings, near misses and pictures, on stderr (the module goes to stdout)."""
    result, lowerings = rewritten.result, rewritten.lowerings
    if not args.quiet:
        for site in result.sites:
            print(rewrite_line(from_site(site)), file=stderr)
        if resolve_kernel(args.kernel, args.platform) != "xla":
            for lowering in lowerings:
                print(lowering, file=stderr)
        if not result.sites and not any(g.lowered for g in lowerings):
            print(f"hlo-rewrite: {name}: nothing to rewrite", file=stderr)
    if args.explain:
        for miss in result.near_misses:
            print(rewrite_near_miss(from_near_miss(miss)), file=stderr)
        if not result.near_misses:
            print("hlo-rewrite: no near misses", file=stderr)
        _print_legend("hlo-rewrite", (m.check for m in result.near_misses), stderr)
    if args.graph:
        _write_graphs("hlo-rewrite", result.sites, args.graph, name, stderr)


def _print_legend(tool: str, checks: Any, stderr: TextIO) -> None:
    """What each check named by the near misses above requires (``hlo_passes.checks``)."""
    lines = legend(checks)
    if lines:
        print(f"{tool}: the checks named above:", file=stderr)
        for line in lines:
            print(f"  {line}", file=stderr)


def _write_graphs(tool: str, sites: Sequence[Any], directory: str, name: str, stderr: TextIO) -> None:
    if not sites:
        print(f"{tool}: {name}: no site, no picture", file=stderr)
    for line in write_site_graphs(sites, directory, name):
        print(f"{tool}: {line}", file=stderr)


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
    p.add_argument("paths", nargs="*", metavar="PATH", help="files, directories (recursive) or globs")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output", metavar="FILE", help="write the report here (default: stdout)")
    p.add_argument("--select", action="append", metavar="RULES",
                   help="only these rules (comma-separated ids or prefixes, e.g. MOE001)")
    p.add_argument("--ignore", action="append", metavar="RULES", help="skip these rules")
    p.add_argument("--dialect", choices=("auto", "hlo", "stablehlo"), default="auto")
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
    p.add_argument("--platform", choices=sorted(COST_PLATFORMS), default=None,
                   help=f"price each site's fix for this platform (default {DEFAULT_PLATFORM}); "
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


def lint_main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
              stderr: TextIO | None = None) -> int:
    """``hlo-lint``; returns the exit status."""
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

    progress = None
    if not args.no_progress and stderr.isatty():
        progress = _Progress(stderr)
    try:
        run = lint_files(args.paths, select=select, ignore=ignore, dialect=args.dialect, jobs=args.jobs,
                         progress=progress, explain=args.explain, max_bytes=args.max_input_size,
                         verbose=args.verbose, platform=args.platform, fold=not args.no_fold)
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
        for err in run.errors:
            print(format_error(err), file=stderr)
    for note in run.notes:
        print(format_note(note), file=stderr)
    if args.explain:
        misses = [n for n in run.notes if n.message.startswith(NEAR_MISS)]
        if not misses:
            print("hlo-lint: no near misses", file=stderr)
        _print_legend("hlo-lint", (n.details.get("check") for n in misses), stderr)
    if args.graph:
        taken: set[str] = set()
        for path in run.files:
            found = [f for f in run.findings if f.path == path and not f.is_error]
            if found:
                for line in write_site_graphs(found, args.graph, path, taken):
                    print(f"hlo-lint: {line}", file=stderr)
    return run.exit_code


def rewrite_entry() -> None:
    sys.exit(_guarded("hlo-rewrite", rewrite_main, None))


def lint_entry() -> None:
    sys.exit(_guarded("hlo-lint", lint_main, None))


if __name__ == "__main__":  # python -m hlo_passes.cli rewrite|lint ...
    if len(sys.argv) < 2 or sys.argv[1] not in ("rewrite", "lint"):
        print("usage: python -m hlo_passes.cli rewrite|lint ...", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    tool = sys.argv.pop(1)
    sys.exit(_guarded(f"hlo-{tool}", rewrite_main if tool == "rewrite" else lint_main, None))
