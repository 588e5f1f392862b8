"""What hlo-lint reports on real dump folders, and what it costs, against an earlier commit.

    python benchmarks/lint_findings.py [--base 4ce19a3] [--rounds 5] [--quick]

Issue 27 asked that a finding point at the user's source line and come once per site.  Inputs,
made once per run in this jax version:

* the dump folders the tests and examples make: ``examples/dump_programs.py`` (6 programs) and
  ``examples/dump_pair_programs.py`` (3), each program's folder holding XLA's stages and the
  StableHLO jax lowered; a training step dumped the way a CI job dumps it
  (``tests/train_step_dump_worker.py``: ``XLA_FLAGS=--xla_dump_to`` and ``JAX_DUMP_IR_TO`` into
  one folder); the shared sample dump; lint_throughput's folder (100 modules of ~25 programs,
  ``benchmarks/_make_lint_dump.py``, one subfolder per program);
* for source lines also every text form the tests lower of their own programs
  (``tests/programs.py``: StableHLO with and without debug info, HLO, ``compiled.as_text()``,
  TPU and CUDA lowerings), one file each.

Measured, by this tree and by BASE (checked out into a temporary git worktree; each tree lints
in a fresh interpreter of its own):

* **findings per site per dump folder**: the findings ``hlo-lint FOLDER`` reports, over the
  sites the folder holds — each folder holds one program's modules: per rule, the most findings
  any one of its files has (``--no-fold`` counts, so both trees count the same sites);
* **findings with a source line** among those in texts that have stack frames (HLO with the
  ``StackFrames`` table) or file locations (MLIR), per file, unfolded;
* **lint time**: CPU time of ``lint_files(FOLDER, jobs=1)`` over lint_throughput's folder and the
  training step's, best of 3 per process, the two trees one after the other in interleaved
  rounds (the order flipping each round); the median of the per-round ratios this / BASE.
  Target ≤ 1.1×.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    IN_TREE, REPO, base_worktree, fmt, interleaved, machine_line, md_table, median, shared_dir, utc_now, write_fragment,
)

BASE = "4ce19a3"  # main before issue 27
TIME_TARGET = 1.1

# Run in the tree under test; what it reports is JSON on the last line.
_FINDINGS = IN_TREE + r'''
import json
from hlo_passes.lint import lint_files
out = {}
for folder in args:
    def rows(run):
        return [{"rule": f.rule, "path": f.path, "source": f.source, "copies": f.copies,
                 "stages": len(getattr(f, "stages", ())),
                 "pieces": [p.get("source") for p in f.details.get("pieces", ())]} for f in run.findings if not f.is_error]
    folded, unfolded = lint_files([folder], jobs=1), lint_files([folder], jobs=1, fold=False)
    out[folder] = {"folded": rows(folded), "unfolded": rows(unfolded), "errors": len(unfolded.errors)}
print(json.dumps(out))
'''
_TIME = IN_TREE + r'''
import gc, json, time
from hlo_passes.lint import lint_files
out = []
for folder in args:
    lint_files([folder], jobs=1)
    best = []
    for _ in range(3):
        gc.collect()
        t = time.process_time()
        lint_files([folder], jobs=1)
        best.append(time.process_time() - t)
    out.append(min(best))
print(json.dumps(out))
'''
# Writes every text form of the tests' own programs (tests/programs.py), one file each.
_OWN_TEXTS = r'''
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2] + "/tests")
import programs
out = Path(sys.argv[1])
for program in programs.OWN_PROGRAMS:
    for form, text in programs._texts_of(program).items():
        suffix = ".mlir" if programs.FORMS[form] == "stablehlo" else ".hlo"
        (out / f"{program}.{form}{suffix}").write_text(text)
print("[]")
'''


def _child(code: str, *args: str, timeout: float = 1800, devices: int | None = None) -> object:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTHONPATH")}
    if devices:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                       env=env, cwd=REPO)
    if r.returncode != 0:
        raise RuntimeError(f"child failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _script(path: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_DUMP_IR_TO")}
    r = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=1800,
                       env=env, cwd=REPO)
    if r.returncode != 0:
        raise RuntimeError(f"{path.name} failed ({r.returncode}):\n{r.stderr[-3000:]}")


def make_inputs(tmp: Path, quick: bool) -> tuple[dict[str, Path], Path | None, Path]:
    """(dump folders by name, the folder of own text forms, lint_throughput's folder)."""
    import lint_throughput

    folders: dict[str, Path] = {}
    own = tmp / "dump_programs"
    _script(REPO / "examples" / "dump_programs.py", str(own))
    folders.update({f"dump_programs/{p.name}": p for p in sorted(own.iterdir()) if p.is_dir()})
    train = tmp / "train_step"
    _script(REPO / "tests" / "train_step_dump_worker.py", str(train))
    folders["train_step (XLA_FLAGS + JAX_DUMP_IR_TO)"] = train
    texts = None
    if not quick:
        pair = tmp / "dump_pair_programs"
        _script(REPO / "examples" / "dump_pair_programs.py", str(pair))
        folders.update({f"dump_pair_programs/{p.name}": p for p in sorted(pair.iterdir()) if p.is_dir()})
        folders["shared samples/dump_mesh1_concat"] = shared_dir() / "samples" / "dump_mesh1_concat"
        texts = tmp / "own_texts"
        texts.mkdir()
        _child(_OWN_TEXTS, str(texts), str(REPO), devices=8)
    big = lint_throughput.dump_folder(8 if quick else 100)
    folders.update({f"lint_throughput/{p.name}": p for p in sorted(big.iterdir()) if p.is_dir()})
    return folders, texts, big


def sites(unfolded: list[dict]) -> int:
    """The sites of a folder holding one program's modules: per rule, the most findings one of
    its files has (each file holds the program at one stage, or one print of it)."""
    per_file: dict[str, Counter] = defaultdict(Counter)
    for f in unfolded:
        per_file[f["path"]][f["rule"]] += 1
    rules = {rule for counts in per_file.values() for rule in counts}
    return sum(max(counts[rule] for counts in per_file.values()) for rule in rules)


def _has_lines(path: str) -> bool:
    text = Path(path).read_text()
    if text.lstrip().startswith("HloModule") or "\nHloModule" in text[:4096]:
        return "\nStackFrames\n" in text
    return re.search(r'loc\("[^"]*":\d+:\d+', text) is not None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=BASE, help=f"the commit to compare with (default {BASE}, main before issue 27)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smoke run: fewer inputs, 1 round")
    args = ap.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    with tempfile.TemporaryDirectory(prefix="lint_findings.") as tmp_name:
        tmp = Path(tmp_name)
        folders, texts, big = make_inputs(tmp, args.quick)
        with base_worktree(args.base, tmp) as base:
            trees = {"base": base, "new": REPO}
            linted = list(map(str, folders.values())) + ([str(texts)] if texts else [])
            found = {name: _child(_FINDINGS, str(root), *linted) for name, root in trees.items()}
            timed = [str(big), str(folders["train_step (XLA_FLAGS + JAX_DUMP_IR_TO)"])]
            seconds = interleaved(trees, rounds, lambda tree: _child(_TIME, str(tree), *timed))
        lines = report(folders, texts, found, seconds, timed, args)
    path = write_fragment("lint_findings", lines)
    print("\n".join(lines))
    print(f"wrote {path}")
    return 0


def report(folders: dict[str, Path], texts: Path | None, found: dict, seconds: dict, timed: list[str],
           args: argparse.Namespace) -> list[str]:
    rows = []
    totals = Counter()
    for name, folder in folders.items():
        new, base = found["new"][str(folder)], found["base"][str(folder)]
        n_sites = sites(new["unfolded"])
        if not n_sites:
            continue
        assert sites(base["unfolded"]) == n_sites, name  # both trees see the same sites
        totals.update(sites=n_sites, base=len(base["folded"]), new=len(new["folded"]))
        rows.append([name, n_sites, fmt(len(base["folded"]) / n_sites, 2), fmt(len(new["folded"]) / n_sites, 2)])
    src = {}
    for tree in ("base", "new"):
        with_lines = [f for key in found[tree] for f in found[tree][key]["unfolded"] if _has_lines(f["path"])]
        hlo = [f for f in with_lines if not f["path"].endswith(".mlir")]
        src[tree] = {kind: (sum(bool(f["source"]) for f in fs), len(fs)) for kind, fs in
                     (("hlo", hlo), ("mlir", [f for f in with_lines if f["path"].endswith(".mlir")]))}
    ratios = {}
    for i, path in enumerate(timed):
        per_round = sorted(n[i] / b[i] for n, b in zip(seconds["new"], seconds["base"]))
        ratios[path] = (median(per_round), per_round[0], per_round[-1],
                        median([s[i] for s in seconds["new"]]), median([s[i] for s in seconds["base"]]))
    worst = max(r[0] for r in ratios.values())
    per_site = totals["new"] / totals["sites"]
    new_hlo, base_hlo = src["new"]["hlo"], src["base"]["hlo"]
    out = [
        "## Lint findings: one per site, at the user's source line (issue 27)",
        "",
        f"- {utc_now()}; {machine_line()}",
        f"- command: `python benchmarks/lint_findings.py --base {args.base}"
        f"{' --quick' if args.quick else f' --rounds {args.rounds}'}`; base = {args.base} (main before issue 27), "
        "checked out into a temporary worktree, each tree linting in fresh interpreters of its own",
        f"- {len(folders)} dump folders (the tests' and examples' dumps, a CI-style training-step dump, the shared "
        "sample, lint_throughput's 100 modules by program)" + (f" and {len(list(texts.iterdir()))} single-text forms "
                                                              "of the tests' own programs" if texts else ""),
        "",
        *md_table(["dump folder", "sites", f"findings per site, {args.base}", "findings per site, now"], rows),
        "",
        f"- findings per site over all {totals['sites']} sites: {fmt(totals['base'] / totals['sites'], 3)} → "
        f"{fmt(per_site, 3)}; target 1.0: **{'met' if totals['new'] == totals['sites'] else 'not met'}**",
        f"- findings with a source line in HLO texts with stack frames: {base_hlo[0]}/{base_hlo[1]} → "
        f"{new_hlo[0]}/{new_hlo[1]} = {fmt(100 * new_hlo[0] / max(new_hlo[1], 1), 4)} %; target 100 %: "
        f"**{'met' if new_hlo[0] == new_hlo[1] and new_hlo[1] else 'not met'}** (MLIR with file locations: "
        f"{src['base']['mlir'][0]}/{src['base']['mlir'][1]} → {src['new']['mlir'][0]}/{src['new']['mlir'][1]})",
    ]
    for path, (r, lo, hi, new_s, base_s) in ratios.items():
        label = (f"lint_throughput's folder ({len(list(Path(path).rglob('*.txt')))} modules)" if path == timed[0]
                 else "the training-step dump")
        out.append(f"- lint CPU time, {label}: {fmt(new_s)} s now, {fmt(base_s)} s at {args.base}; "
                   f"per-round ratio median {r:.3f} ({lo:.3f}–{hi:.3f}, {len(seconds['new'])} rounds)")
    out.append(f"- lint time now / {args.base} ≤ {TIME_TARGET}×: **{'met' if worst <= TIME_TARGET else 'not met'}** "
               f"(worst median {worst:.3f}×)")
    return out


if __name__ == "__main__":
    sys.exit(main())
