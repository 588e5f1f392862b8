"""hlo-lint over an XLA dump folder against XLA's C++ parser on the same files.

    python benchmarks/lint_throughput.py [--repeats 5] [--modules 100] [--quick]

The folder: XLA dumps (``--xla_dump_to``) of the project's MoE programs, every
stage XLA writes as HLO text (before optimizations, after Shardy import, after
SPMD partitioning, after optimizations), ``--modules`` of them.  It is made
once by ``_make_lint_dump.py`` in a process of its own and cached in the
temp directory (keyed by jax version, module count and that script's text).

Timed, in interleaved rounds (median over rounds; every run lints or parses
all files):

* XLA: ``hlo_module_from_text`` over every file, in a warm process (the parse
  alone, no printing), median of 3 passes per round — the reference;
* ``lint_files`` in this process, one process (``jobs=1``) and one worker per
  CPU, after a warm-up — the lint's own work;
* ``hlo-lint DIR`` as a user runs it (default jobs) and ``hlo-lint -j 1 DIR``:
  a fresh interpreter each, imports included;
* XLA as a process: a fresh interpreter that imports jaxlib and parses every
  file once — what a C++-parser-based CLI would cost.

Every lint run must report every file (no parse errors, the expected
findings): a fast run that skipped files would not count.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    BENCH_DIR, REPO, fmt, machine_line, md_table, median, ratio, run_json, utc_now, versions, write_fragment,
)

TARGET = 1.5

_XLA_PARSE = r"""
import glob, json, sys, time
from hlo_passes import _jax_compat as compat
files = sorted(glob.glob(sys.argv[1] + "/**/*.txt", recursive=True))
texts = [open(f).read() for f in files]
parse = compat.hlo_module_from_text
for t in texts:
    parse(t)
walls, cpus = [], []
for _ in range(int(sys.argv[2])):
    t0, c0 = time.perf_counter(), time.process_time()
    for t in texts:
        parse(t)
    walls.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
walls.sort(); cpus.sort()
print(json.dumps([walls[len(walls) // 2], cpus[len(cpus) // 2], len(files)]))
"""

_XLA_PROCESS = r"""
import glob, sys
from hlo_passes import _jax_compat as compat
for f in sorted(glob.glob(sys.argv[1] + "/**/*.txt", recursive=True)):
    compat.hlo_module_from_text(open(f).read())
"""


def dump_folder(modules: int, refresh: bool = False) -> Path:
    """The cached dump folder with exactly ``modules`` HLO modules (made on first use)."""
    maker = BENCH_DIR / "_make_lint_dump.py"
    key = hashlib.sha256(f"{versions()['jax']} {versions()['jaxlib']} {modules}".encode()
                         + maker.read_bytes()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"hlo_passes_lint_dump_{key}"
    done = folder / ".complete"
    if done.exists() and not refresh:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    tmp = Path(tempfile.mkdtemp(prefix="hlo_passes_lint_dump_"))
    r = subprocess.run([sys.executable, str(maker), str(tmp), str(modules)], capture_output=True, text=True,
                       env=env, cwd=REPO, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError(f"making the dump folder failed:\n{r.stderr[-3000:]}")
    tmp.rename(folder)
    done.write_text(r.stdout)
    return folder


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _cli(folder: Path, *extra: str) -> float:
    """Wall time of ``hlo-lint`` as a user runs it; checks it linted every file."""
    # This interpreter's console script (one found on PATH may belong to another environment).
    exe = Path(sys.executable).parent / "hlo-lint"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-c", "from hlo_passes.cli import lint_entry; lint_entry()"]
    t0 = time.perf_counter()
    r = subprocess.run([*cmd, "--no-progress", *extra, str(folder)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode not in (0, 1) or " error" in r.stdout.splitlines()[-1]:
        raise RuntimeError(f"hlo-lint failed ({r.returncode}): {r.stdout[-2000:]}{r.stderr[-2000:]}")
    return wall, r.stdout.splitlines()[-1]


def measure(folder: Path, repeats: int) -> dict:
    from hlo_passes.lint import lint_files

    files = sorted(str(p) for p in folder.rglob("*.txt"))
    nbytes = sum(os.path.getsize(p) for p in files)
    jobs = os.cpu_count() or 1
    warm = lint_files([str(folder)], jobs=1)
    if len(warm.files) != len(files) or warm.errors:
        raise RuntimeError(f"lint saw {len(warm.files)} of {len(files)} files, {len(warm.errors)} errors")
    runs: dict[str, list[float]] = {k: [] for k in
                                    ("xla", "xla_cpu", "lint_j1", "lint_j1_cpu", "lint_jN", "cli", "cli_j1",
                                             "xla_process")}
    summaries = set()
    for _ in range(repeats):
        wall, cpu, n = run_json(_XLA_PARSE, str(folder), "3")
        if n != len(files):
            raise RuntimeError(f"XLA parsed {n} files, lint {len(files)}")
        runs["xla"].append(wall)
        runs["xla_cpu"].append(cpu)
        r1 = []
        c0 = time.process_time()
        runs["lint_j1"].append(_timed(lambda: r1.append(lint_files([str(folder)], jobs=1))))
        runs["lint_j1_cpu"].append(time.process_time() - c0)
        rn = []
        runs["lint_jN"].append(_timed(lambda: rn.append(lint_files([str(folder)], jobs=jobs))))
        for run in (*r1, *rn):
            if run.findings != warm.findings or len(run.files) != len(files):
                raise RuntimeError("a lint run found something else than the warm-up run")
        t, s = _cli(folder)
        runs["cli"].append(t)
        summaries.add(s)
        t, s = _cli(folder, "-j", "1")
        runs["cli_j1"].append(t)
        summaries.add(s)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", _XLA_PROCESS, str(folder)], check=True, cwd=REPO)
        runs["xla_process"].append(time.perf_counter() - t0)
    med = {k: median(v) for k, v in runs.items()}
    return {"files": len(files), "MB": nbytes / 1e6, "jobs": jobs, "findings": len(warm.findings),
            "summary": " / ".join(sorted(summaries)), "median": med, "runs": runs, "repeats": repeats}


def report(res: dict, folder: Path, command: str) -> list[str]:
    m = res["median"]
    xla = m["xla"]
    rows = [
        ["XLA C++ parser, in a warm process (reference)", fmt(xla), "1", fmt(res["MB"] / xla)],
        [f"lint_files, in process, {res['jobs']} workers", fmt(m["lint_jN"]), fmt(ratio(m["lint_jN"], xla)),
         fmt(res["MB"] / m["lint_jN"])],
        ["lint_files, in process, 1 process", fmt(m["lint_j1"]), fmt(ratio(m["lint_j1"], xla)),
         fmt(res["MB"] / m["lint_j1"])],
        ["`hlo-lint DIR` (fresh interpreter, default -j)", fmt(m["cli"]), fmt(ratio(m["cli"], xla)),
         fmt(res["MB"] / m["cli"])],
        ["`hlo-lint -j 1 DIR` (fresh interpreter)", fmt(m["cli_j1"]), fmt(ratio(m["cli_j1"], xla)),
         fmt(res["MB"] / m["cli_j1"])],
        ["XLA C++ parser as a fresh interpreter (import jaxlib + parse)", fmt(m["xla_process"]),
         fmt(ratio(m["xla_process"], xla)), fmt(res["MB"] / m["xla_process"])],
    ]
    best = min(m["lint_jN"], m["lint_j1"])
    met = best <= TARGET * xla
    lines = [
        "## Lint throughput: hlo-lint over an XLA dump folder vs XLA's C++ parser",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `{command}`; medians of {res['repeats']} interleaved rounds (XLA: median of 3 passes "
        "per round)",
        f"- input: {res['files']} HLO modules, {res['MB']:.2f} MB, XLA dumps (`--xla_dump_to`) of the project's "
        f"MoE programs at every stage (`benchmarks/_make_lint_dump.py`, cached in `{folder.parent}`); "
        f"every run lints every file: {res['summary']}",
        "",
        *md_table(["run", "seconds", "÷ XLA parse", "MB/s"], rows),
        "",
        f"- target: lint ≤ {TARGET}× XLA's parse time: **{'met' if met else 'not met'}** — in process "
        f"{ratio(best, xla):.2f}× (best of 1 process / {res['jobs']} workers); as a fresh `hlo-lint` "
        f"process {ratio(m['cli'], xla):.2f}× XLA's parse, {ratio(m['cli'], m['xla_process']):.2f}× XLA's "
        "parser run as a fresh process",
        f"- CPU time, steadier than wall time when other jobs share the machine: XLA's parse "
        f"{fmt(m['xla_cpu'])} s, lint in 1 process {fmt(m['lint_j1_cpu'])} s = "
        f"{ratio(m['lint_j1_cpu'], m['xla_cpu']):.2f}× (one core's work; {res['jobs']} workers share it out)",
    ]
    return lines


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--modules", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="smoke run: 8 modules, 1 round")
    ap.add_argument("--refresh", action="store_true", help="make the dump folder again")
    args = ap.parse_args(argv)
    if args.quick:
        args.modules, args.repeats = 8, 1
    folder = dump_folder(args.modules, args.refresh)
    res = measure(folder, args.repeats)
    command = "python benchmarks/lint_throughput.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(res, folder, command.strip())
    print("\n".join(lines))
    write_fragment("lint_throughput", lines)
    return res


if __name__ == "__main__":
    main()
