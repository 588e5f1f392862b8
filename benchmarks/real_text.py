"""Parse + print of real text against jaxlib's C++ parse + print, per text family, in one run.

    python benchmarks/real_text.py [--rounds 7] [--processes 2] [--baseline REV ...] [--also-under PY ...] [--quick]
    python benchmarks/real_text.py --regenerate [--python PY ...]

Families (both dialects): the trainer's training step as each jax version
lowers it (``_make_trainer_texts.py``: scan over layers, remat, optax adamw,
FSDP shardings through Shardy, bf16 compute from f32 weights; StableHLO with
and without debug info, HLO before optimizations and the compiled module
with its metadata and stack-frame tables), the samples of a MoE layer with
and without debug locations, and the corpus's largest modules (HLO; the
StableHLO lit tests; JAX's export back-compat modules).  The trainer texts
are committed gzipped in ``benchmarks/data/`` (``--regenerate`` writes them
again with every interpreter named by ``--python``, the running one if none).

A worker process per source tree (this checkout; ``--baseline REV``: that
commit, exported with ``git archive``) parses every file in interleaved
rounds: ours (``hlo_passes.parse(text).to_text()``) then jaxlib's (HLO:
``hlo_module_from_text`` + ``to_string()``; StableHLO: ``ir.Module.parse``
+ ``get_asm(enable_debug_info=True)``), each after ``gc.collect()``, CPU time
(``process_time``).  The trees' workers alternate (``--processes`` each), so
every tree meets the same machine; a file's ratio is the median of its
per-round ratios (ours ÷ jaxlib of the same round), a family's is Σ ours ÷
Σ jaxlib over its files' medians.  A text this jaxlib does not read (HLO of a
newer XLA) has no ratio; ``--also-under PY`` measures this checkout again with
another interpreter (its jax and jaxlib, e.g. Python 3.12 with jax 0.12) in
the same run, a column of its own, and the verdicts take every interpreter's
ratios.  The generated modules of ``parse_speed.py`` are the
second table, measured the same way; the pre-scan (``prescan.rules_that_may_fire``)
is timed against one ``str.find`` over the same text.
"""
from __future__ import annotations

import argparse
import gc
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BENCH_DIR, REPO, fmt, machine_line, md_table, shared_dir, utc_now, write_fragment  # noqa: E402

DATA = BENCH_DIR / "data"
TARGET = 2.0  # parse + print of real text at most this many times jaxlib's


# ---- the texts ------------------------------------------------------------------------
def families(shared: Path, quick: bool) -> list[tuple[str, str, list[Path]]]:
    """(family, dialect, files) in report order."""
    samples = shared / "samples"
    corpus = shared / "corpus"
    largest = 1 if quick else 3
    out: list[tuple[str, str, list[Path]]] = []
    trainer = sorted(DATA.glob("trainer_jax*.gz"))
    versions = sorted({p.name.split(".stablehlo")[0].split(".hlo")[0].split(".compiled")[0] for p in trainer})
    for v in versions:
        jax_version = v.removeprefix("trainer_jax")
        out += [
            (f"trainer, jax {jax_version}, debug info", "stablehlo", [DATA / f"{v}.stablehlo.debuginfo.mlir.gz"]),
            (f"trainer, jax {jax_version}, no locations", "stablehlo", [DATA / f"{v}.stablehlo.mlir.gz"]),
            (f"trainer, jax {jax_version}, before optimizations", "hlo", [DATA / f"{v}.hlo.txt.gz"]),
            (f"trainer, jax {jax_version}, compiled", "hlo", [DATA / f"{v}.compiled.hlo.txt.gz"]),
        ]
    debuginfo = sorted(samples.glob("*.debuginfo.mlir"))
    plain = sorted(p for p in samples.glob("*.stablehlo.mlir") if "REWRITTEN" not in p.name)
    hlo = sorted(samples.glob("*.hlo_dialect.txt")) + sorted(samples.glob("mesh*.compiled.hlo.txt"))
    if quick:
        debuginfo, plain, hlo = debuginfo[:1], plain[:1], hlo[:1]
    out += [
        ("samples, debug info", "stablehlo", debuginfo),
        ("samples, no locations", "stablehlo", plain),
        ("samples, HLO", "hlo", hlo),
    ]

    def biggest(paths: list[Path]) -> list[Path]:
        return sorted(paths, key=lambda p: p.stat().st_size, reverse=True)[:largest]

    out += [
        ("corpus, StableHLO lit tests (largest)", "stablehlo",
         biggest(list((corpus / "stablehlo").glob("stablehlo_tests__*.mlir")))),
        ("corpus, JAX export back-compat (largest)", "stablehlo",
         biggest(list((corpus / "stablehlo").glob("jax_bc__*.mlir")))),
        ("corpus, HLO (largest)", "hlo", biggest(list((corpus / "hlo" / "valid").glob("*.hlo")))),
    ]
    return [f for f in out if f[2] and all(p.exists() for p in f[2])]


def unpacked(paths: list[Path], tmp: Path) -> list[Path]:
    """The files as plain text (the committed trainer texts are gzipped)."""
    out = []
    for p in paths:
        if p.suffix == ".gz":
            q = tmp / p.name[:-3]
            if not q.exists():
                q.write_bytes(gzip.decompress(p.read_bytes()))
            p = q
        out.append(p)
    return out


def regenerate(pythons: list[str]) -> None:
    """The trainer texts of every interpreter in ``pythons``, gzipped into benchmarks/data/."""
    DATA.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for py in pythons:
            r = subprocess.run([py, str(BENCH_DIR / "_make_trainer_texts.py"), tmp], cwd=REPO,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{py}: {r.stderr[-2000:]}")
        for p in sorted(Path(tmp).iterdir()):
            # mtime 0: the same text gives the same bytes
            (DATA / f"{p.name}.gz").write_bytes(gzip.compress(p.read_bytes(), 9, mtime=0))
            print(f"{DATA / p.name}.gz: {p.stat().st_size:,} characters")


# ---- the worker: one source tree, every file, interleaved rounds ---------------------------
def _compat(repo: Path):
    """This checkout's _jax_compat, loaded on its own (the tree measured may be another one)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_jax_compat_ref", repo / "hlo_passes" / "_jax_compat.py")
    compat = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = compat  # (dataclasses look their module up)
    spec.loader.exec_module(compat)
    return compat


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def worker(tree: Path, rounds: int, jobs: list[tuple[str, str]]) -> dict[str, dict]:
    """{file: {"ours": [s...], "ref": [s...] or None, "error": ...}} of ``rounds`` interleaved rounds."""
    sys.path.insert(0, str(tree))
    import hlo_passes

    compat = _compat(REPO)
    ref = {
        "hlo": lambda text: compat.hlo_module_from_text(text).to_string(),
        "stablehlo": lambda text: compat.ir.Module.parse(text).operation.get_asm(enable_debug_info=True),
    }
    with compat.make_ir_context():
        return _rounds(hlo_passes, ref, rounds, jobs)


def _rounds(hlo_passes, ref: dict[str, Callable[[str], object]], rounds: int,
            jobs: list[tuple[str, str]]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path, dialect in jobs:
        text = Path(path).read_text()
        ours = lambda: hlo_passes.parse(text, dialect=dialect).to_text()  # noqa: E731
        theirs = lambda: ref[dialect](text)  # noqa: E731
        row: dict = {"ours": [], "ref": []}
        try:
            ours()
        except Exception as e:  # noqa: BLE001 - reported, not fatal (an old tree may not read a new form)
            out[path] = {"error": f"ours: {type(e).__name__}: {str(e)[:200]}"}
            continue
        try:
            theirs()
        except Exception as e:  # noqa: BLE001 - jaxlib of this version does not read the text
            row["ref"] = None
            row["ref_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        for _ in range(rounds):
            row["ours"].append(_cpu(ours))
            if row["ref"] is not None:
                row["ref"].append(_cpu(theirs))
        out[path] = row
    return out


def run_workers(trees: dict[str, tuple[str, Path]], jobs: list[tuple[str, str]], rounds: int,
                processes: int) -> dict[str, dict]:
    """label → file → {"ours": [...], "ref": [...]} for each (interpreter, tree) of ``trees``,
    the workers alternating."""
    merged: dict[str, dict] = {label: {} for label in trees}
    per = max(1, rounds // processes)
    for n in range(processes):
        for label, (python, tree) in trees.items():
            r = subprocess.run([python, __file__, "--worker", str(tree), "--rounds", str(per),
                                "--jobs", json.dumps(jobs)], capture_output=True, text=True, cwd=REPO)
            if r.returncode != 0:
                raise RuntimeError(f"worker for {label} failed:\n{r.stderr[-3000:]}")
            got = json.loads(r.stdout.strip().splitlines()[-1])
            print(f"  {label}: process {n + 1}/{processes} done", flush=True)
            for path, row in got.items():
                acc = merged[label].setdefault(path, {"ours": [], "ref": [] if row.get("ref") is not None else None})
                for key in ("error", "ref_error"):
                    if key in row:
                        acc[key] = row[key]
                if "error" in row:
                    continue
                acc["ours"] += row["ours"]
                if acc["ref"] is not None and row.get("ref") is not None:
                    acc["ref"] += row["ref"]
    return merged


def _ask(python: str, code: str) -> str:
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def _jax_version(python: str) -> str:
    return _ask(python, "import jax; print(jax.__version__)")


def _python_version(python: str) -> str:
    return "Python " + _ask(python, "import platform; print(platform.python_version())")


def summary(row: dict) -> dict:
    """Medians of a file's rounds and the median of its per-round ratios."""
    if "error" in row:
        return {"error": row["error"]}
    out = {"ours": statistics.median(row["ours"])}
    if row.get("ref"):
        out["ref"] = statistics.median(row["ref"])
        out["ratio"] = statistics.median(o / max(r, 1e-9) for o, r in zip(row["ours"], row["ref"]))
    return out


# ---- generated modules and the pre-scan ------------------------------------------------------
def generated(tmp: Path, sizes: list[float]) -> list[tuple[str, str, list[Path]]]:
    from _stablehlo_speed import generated_stablehlo
    from parse_speed import generated_hlo

    out = []
    for mb in sizes:
        for dialect, make, ext in (("hlo", generated_hlo, "hlo"), ("stablehlo", generated_stablehlo, "mlir")):
            p = tmp / f"generated_{mb:g}MB.{ext}"
            p.write_text(make(mb))
            out.append((f"generated {mb:g} MB", dialect, [p]))
    return out


def prescan_rows(files: list[tuple[str, Path]], repeats: int) -> list[list[object]]:
    """The pre-scan's time over each text against one ``str.find`` of a string it does not hold:
    the skip decision (``may_have_sites``, what the jit hook asks) and the rules that may fire
    (``rules_that_may_fire``, what hlo-lint asks)."""
    sys.path.insert(0, str(REPO))
    from hlo_passes.passes import prescan

    def per_call(fn: Callable[[], object]) -> list[float]:
        return [_cpu(lambda: [fn() for _ in range(20)]) / 20 for _ in range(repeats)]

    rows = []
    for label, path in files:
        text = path.read_text()
        find = per_call(lambda: text.find("\x00no such text"))
        skip = per_call(lambda: prescan.may_have_sites(text))
        rules = per_call(lambda: prescan.rules_that_may_fire(text))
        fired = prescan.rules_that_may_fire(text)
        rows.append([label, f"{len(text) / 1e3:,.0f}", fmt(statistics.median(find) * 1e3),
                     f"{statistics.median(s / f for s, f in zip(skip, find)):.2f}",
                     f"{statistics.median(r / f for r, f in zip(rules, find)):.2f}",
                     ", ".join(fired) if fired else "none (skipped)"])
    return rows


# ---- the report ----------------------------------------------------------------------------------
def report(fams: list[tuple[str, str, list[Path]]], results: dict[str, dict], trees: list[str],
           gen: list[tuple[str, str, list[Path]]], pre: list[list[object]], args: argparse.Namespace,
           ours: list[str], described: list[str]) -> list[str]:
    """``trees``: every label measured, this checkout under the running interpreter first;
    ``ours``: the labels that are this checkout (under any interpreter), judged by the target."""
    main = trees[0]
    base_cols = [f"÷ jaxlib, {t}" for t in trees[1:]]
    lines = [
        "## Real text: parse + print against jaxlib's C++, per text family (issue 29)",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `python benchmarks/real_text.py {' '.join(sys.argv[1:])}`",
        f"- CPU time; {args.rounds} rounds per file in {args.processes} worker processes per tree, ours and "
        "jaxlib interleaved in each (HLO `hlo_module_from_text` + `to_string()`, StableHLO `ir.Module.parse` + "
        "`get_asm(enable_debug_info=True)`); a file's ratio is the median of per-round ratios, a family's "
        "Σ ours ÷ Σ jaxlib of the files' medians; trees alternate, so each ratio meets the same machine",
        f"- {main} = this checkout" + "".join(f"; {d}" for d in described),
        "",
    ]
    fam_rows, verdicts = [], {"hlo": [], "stablehlo": []}
    for fam, dialect, paths in fams:
        cells = []
        for tree in trees:
            rows = [summary(results[tree].get(str(p), {"error": "not measured"})) for p in paths]
            if any("ratio" not in r for r in rows):
                cells.append(None)
                continue
            cells.append(sum(r["ours"] for r in rows) / sum(r["ref"] for r in rows))
        mine = [summary(results[main][str(p)]) for p in paths]
        worst = max((r.get("ratio", 0) for r in mine), default=0)
        kb = sum(p.stat().st_size for p in paths) / 1e3
        ours_ms = sum(r.get("ours", 0) for r in mine) * 1e3
        ref_ms = sum(r.get("ref", 0) for r in mine) * 1e3 if all("ref" in r for r in mine) else None
        fam_rows.append([fam, dialect, len(paths), f"{kb:,.0f}", fmt(ours_ms), fmt(ref_ms),
                         "–" if cells[0] is None else f"**{cells[0]:.2f}**",
                         "–" if not worst else f"{worst:.2f}",
                         *("–" if c is None else f"{c:.2f}" for c in cells[1:])])
        for label, c in zip(trees, cells):
            if label in ours and c is not None:
                verdicts[dialect].append((c, f"{fam} ({label})"))
    lines += md_table(["family", "dialect", "files", "KB", "ours ms", "jaxlib ms", f"÷ jaxlib, {main}",
                       "worst file", *base_cols], fam_rows)
    lines.append("")
    for dialect, got in verdicts.items():
        if got:
            worst, fam = max(got)
            ok = "**met**" if worst <= TARGET else "**not met**"
            lines.append(f"- {dialect}: parse+print of real text ≤ {TARGET:g}× jaxlib: {ok} (families "
                         f"{min(g for g, _ in got):.2f}–{worst:.2f}×, worst: {fam})")
    for label in ours:
        unread = sorted({Path(p).name for p, row in results[label].items()
                         if row.get("ref") is None and "error" not in row})
        if unread:
            lines.append(f"- not read by the jaxlib of {label} (no ratio there): {', '.join(unread)}")
    errors = {t: sorted(Path(p).name for p, row in results[t].items() if "error" in row) for t in trees}
    for t, names in errors.items():
        if names:
            lines.append(f"- {t} could not parse: {', '.join(names)}")
    lines += ["", "### Per file", ""]
    file_rows = []
    for fam, dialect, paths in fams:
        for p in paths:
            s = summary(results[main][str(p)])
            others = []
            for tree in trees[1:]:
                o = summary(results[tree].get(str(p), {"error": "–"}))
                others.append(f"{o['ratio']:.2f}" if "ratio" in o else "–")
            file_rows.append([p.name.removesuffix(".gz"), fam, f"{p.stat().st_size / 1e3:,.1f}",
                              fmt(s.get("ours", 0) * 1e3), fmt(s["ref"] * 1e3) if "ref" in s else "–",
                              f"{s['ratio']:.2f}" if "ratio" in s else "–", *others])
    lines += md_table(["file", "family", "KB", "ours ms", "jaxlib ms", f"÷ jaxlib, {main}", *base_cols],
                      file_rows)
    if gen:
        lines += ["", "### Generated modules (parse_speed.py's, the figures before this table's real text)", ""]
        gen_rows = []
        for label, dialect, paths in gen:
            cells = [summary(results[t].get(str(paths[0]), {"error": "–"})) for t in trees]
            gen_rows.append([label, dialect, f"{paths[0].stat().st_size / 1e6:.2f}", fmt(cells[0].get("ours", 0) * 1e3),
                             fmt(cells[0].get("ref", 0) * 1e3), *(f"{c['ratio']:.2f}" if "ratio" in c else "–"
                                                                  for c in cells)])
        lines += md_table(["input", "dialect", "MB", "ours ms", "jaxlib ms", *[f"÷ jaxlib, {t}" for t in trees]],
                          gen_rows)
    if pre:
        lines += ["", "### Pre-scan against one substring search", "",
                  "`prescan.may_have_sites(text)` (the jit hook's skip decision) and "
                  "`prescan.rules_that_may_fire(text)` (hlo-lint's, every built-in rule) against `text.find(s)` "
                  "of a string the text does not hold (a search that reads it all); medians of CPU time.  Each "
                  "distinct marker is one substring search: a text without any costs one per marker (12 for "
                  "the built-in rules), a text with one stops at it.", ""]
        lines += md_table(["text", "KB", "str.find ms", "may_have_sites ÷ find", "rules_that_may_fire ÷ find",
                           "rules that may fire"], pre)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--baseline", action="append", default=[], metavar="REV",
                    help="also measure this commit (git archive), e.g. 4ce19a3")
    ap.add_argument("--also-under", action="append", default=[], metavar="PY",
                    help="also measure this checkout with this interpreter (its jax), e.g. .venv/py312/bin/python")
    ap.add_argument("--sizes", default="1,4", help="generated modules, MB ('' for none)")
    ap.add_argument("--quick", action="store_true", help="one small file per family, one round (CI smoke)")
    ap.add_argument("--regenerate", action="store_true", help="write benchmarks/data/trainer_* again")
    ap.add_argument("--python", action="append", default=[], help="interpreters for --regenerate")
    ap.add_argument("--worker", metavar="TREE", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(Path(args.worker), args.rounds, json.loads(args.jobs))))
        return
    if args.regenerate:
        regenerate(args.python or [sys.executable])
        return
    if args.quick:
        args.rounds, args.processes, args.sizes, args.baseline, args.also_under = 1, 1, "", [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        fams = [(f, d, unpacked(ps, tmp)) for f, d, ps in families(shared_dir(), args.quick)]
        gen = generated(tmp, [float(s) for s in args.sizes.split(",") if s])
        trees = {"branch": (sys.executable, REPO)}
        described = []
        for rev in args.baseline:
            out = tmp / f"tree-{rev}"
            out.mkdir()
            archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
            trees[rev] = (sys.executable, out)
            described.append(f"{rev} = `git archive {rev}`")
        ours = ["branch"]
        for py in args.also_under:
            label = f"branch, jax {_jax_version(py)}"
            trees[label] = (py, REPO)
            ours.append(label)
            described.append(f"{label} = this checkout under `{py}` ({_python_version(py)})")
        jobs = [(str(p), d) for _, d, ps in fams + gen for p in ps]
        results = run_workers(trees, jobs, args.rounds, args.processes)
        pre_files = [(p.name, p) for f, d, ps in fams if f.startswith(("trainer", "corpus, HLO")) for p in ps]
        pre = prescan_rows(pre_files, 1 if args.quick else 5)
        lines = report(fams, results, list(trees), gen, pre, args, ours, described)
    path = write_fragment("real_text", lines)
    print("\n".join(lines))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
