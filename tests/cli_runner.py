"""Running ``hlo-rewrite`` and ``hlo-lint`` for the CLI tests: in this process where that is the
same as a run of the console script, in a subprocess where it is not.

A subprocess costs an interpreter and hlo_passes' imports (half a second on CI's machine, some
250 runs per session); in this process a run is ``_guarded(tool, main, argv)``, the function the
console script calls, with the process's streams, warnings and exit made what a subprocess would
give: stdout and stderr captured, stdin the text given (or empty), a Python warning printed on
stderr, ``SystemExit`` (argparse's usage errors, ``--help``, ``--version``) an exit status.

A run stays a subprocess when it cannot be the same in-process: another working directory or
environment, ``--plugin`` (a loaded rule stays in the registry), a lint with worker processes
(as many files as start a pool, without ``-j 1``), and any test that asks for the
script itself (``console_script=True``: the console scripts' own test).
"""
from __future__ import annotations

import glob
import io
import os
import shutil
import subprocess
import sys
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hlo_passes import cli
from hlo_passes.lint import _POOL_MIN_FILES

_MAINS = {"hlo-rewrite": cli.rewrite_main, "hlo-lint": cli.lint_main}


def script(name: str) -> list[str]:
    """The command that runs the console script ``name``."""
    # The script installed beside this interpreter first: a virtual environment
    # run as venv/bin/python without being activated has its bin/ off PATH, and
    # a script found on PATH may belong to another environment.
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found:
        return [found]
    # Not installed as a script (e.g. run from a source tree without pip
    # install -e .): the same entry point through the module.
    return [sys.executable, "-m", "hlo_passes.cli", name.split("-", 1)[1]]


def run(tool: str, *args: str | os.PathLike, stdin: str | None = None, cwd: Path | None = None,
        env: dict | None = None, console_script: bool = False) -> subprocess.CompletedProcess:
    argv = [str(a) for a in args]
    if console_script or cwd is not None or env is not None or not _same_in_process(tool, argv):
        return subprocess.run([*script(tool), *argv], input=stdin, capture_output=True, text=True,
                              cwd=cwd, env=env, timeout=120)
    return _in_process(tool, argv, stdin)


def _same_in_process(tool: str, argv: list[str]) -> bool:
    if tool not in _MAINS or any(a == "--plugin" or a.startswith("--plugin=") for a in argv):
        return False
    if tool == "hlo-lint":
        # Worker processes lint when there are enough files (``lint._POOL_MIN_FILES``), unless -j 1.
        jobs = next((argv[k + 1] for k, a in enumerate(argv[:-1]) if a in ("-j", "--jobs")), None)
        if jobs != "1" and _files_named(argv) >= _POOL_MIN_FILES:
            return False
    return True


def _files_named(argv: list[str]) -> int:
    """How many files the arguments that are paths, folders or globs name (at most)."""
    count = 0
    for arg in argv:
        if arg.startswith("-"):
            continue
        if any(c in arg for c in "*?["):
            count += len(glob.glob(arg, recursive=True))
        elif Path(arg).is_dir():
            count += sum(len(files) for _, _, files in os.walk(arg))
        else:
            count += 1
    return count


def _in_process(tool: str, argv: list[str], stdin: str | None) -> subprocess.CompletedProcess:
    out, err = io.StringIO(), io.StringIO()
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        err.write(warnings.formatwarning(message, category, filename, lineno, line))

    saved_stdin = sys.stdin
    sys.stdin = given
    try:
        with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("default")
            warnings.showwarning = show
            try:
                status = cli._guarded(tool, _MAINS[tool], argv)
            except SystemExit as exit_:
                code = exit_.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
                if code is not None and not isinstance(code, int):
                    err.write(f"{code}\n")
    finally:
        sys.stdin = saved_stdin
    return subprocess.CompletedProcess([tool, *argv], status, out.getvalue(), err.getvalue())
