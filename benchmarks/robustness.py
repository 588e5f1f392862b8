"""Robustness in time (issue 21): run_passes on chains, parse on pathological text, both linear.

    python benchmarks/robustness.py [--quick] [--repeats N]

1. Chains of single-use ops (``a_i = add(p, a_{i-1})``, the shape of
   ../shared/robustness/18 and 19) of 1k, 4k and 16k ops, HLO and StableHLO:
   ``run_passes`` (both rules, ``copy=False`` as hlo-rewrite runs it) against
   the parse of the same text in the same round; linear means 16x the ops in
   at most 17x the time.  Before issue 21 the pad-meeting walk made this
   quadratic (3,000 adds: 21 s).  Also ``hlo-rewrite`` on reproducers 18 and
   19 as a fresh process, against ``hlo-rewrite`` on a one-op module (the
   start-up every run pays).
2. ``parse`` on the long-token, long-string and long-list families at 64 KB
   and 1 MB (16x), each against a valid generated module of the same size
   parsed in the same round; target: 16x the text in at most ~17x the time.

Every figure is a median of per-round values; rounds interleave the input
and its reference so both see the machine's load of the moment.
"""
from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, machine_line, md_table, median, shared_dir, utc_now, write_fragment  # noqa: E402
from _stablehlo_speed import generated_stablehlo  # noqa: E402
from parse_speed import generated_hlo  # noqa: E402

import hlo_passes  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402

TARGET_SCALING = 17.0


def hlo_chain(n: int) -> str:
    lines = ["HloModule m", "", "ENTRY e {", "  p = f32[4]{0} parameter(0)", "  a0 = f32[4]{0} negate(p)"]
    lines += [f"  a{i} = f32[4]{{0}} add(p, a{i - 1})" for i in range(1, n)]
    return "\n".join(lines + [f"  ROOT r = f32[4]{{0}} copy(a{n - 1})", "}", ""])


def mlir_chain(n: int) -> str:
    lines = ["func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {",
             "    %0 = stablehlo.negate %arg0 : tensor<4xf32>"]
    lines += [f"    %{i} = stablehlo.add %arg0, %{i - 1} : tensor<4xf32>" for i in range(1, n)]
    return "\n".join(lines + [f"    return %{n - 1} : tensor<4xf32>", "}", ""])


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def chain_rows(sizes: list[int], repeats: int) -> list[dict]:
    """Each round runs every size back to back, so the growth (largest ÷ smallest, ``scaling``
    on the largest row) is a median of per-round ratios: medians of sizes measured a minute
    apart drift with the load of a shared machine (17.0× for the same code that gives 16.2-16.5×
    interleaved)."""
    rows = []
    for dialect, make in (("hlo", hlo_chain), ("stablehlo", mlir_chain)):
        texts = {n: make(n) for n in sizes}
        for text in texts.values():
            run_passes(hlo_passes.parse(text), copy=False)  # warm-up
        parse_t: dict[int, list[float]] = {n: [] for n in sizes}
        passes_t: dict[int, list[float]] = {n: [] for n in sizes}
        for _ in range(repeats):
            for n, text in texts.items():
                parse_t[n].append(_cpu(lambda: hlo_passes.parse(text)))
                module = hlo_passes.parse(text)
                passes_t[n].append(_cpu(lambda: run_passes(module, copy=False)))
        for n in sizes:
            rows.append({"dialect": dialect, "ops": n, "parse_s": median(parse_t[n]), "passes_s": median(passes_t[n]),
                         "ratio": median(p / q for p, q in zip(passes_t[n], parse_t[n])),
                         "scaling": median(b / max(s, 1e-9) for b, s in zip(passes_t[n], passes_t[min(sizes)]))})
    return rows


def _rewrite_times(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``hlo-rewrite path`` as a fresh process (CPU: user + system of the child)."""
    exe = Path(sys.executable).with_name("hlo-rewrite")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([str(exe), str(path), "-q", "-o", "/dev/null"], check=True, capture_output=True, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_rows(repeats: int) -> list[dict]:
    """hlo-rewrite on reproducers 18/19 against hlo-rewrite on a one-op module (its start-up)."""
    try:
        folder = shared_dir() / "robustness"
    except FileNotFoundError:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp) / "tiny.hlo"
        tiny.write_text("HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
        rows = []
        for path in sorted(folder.glob("1[89]_*")):
            runs, refs = [], []
            for _ in range(repeats):
                runs.append(_rewrite_times(path))
                refs.append(_rewrite_times(tiny))
            rows.append({"input": path.name, "wall_s": median(r[0] for r in runs), "cpu_s": median(r[1] for r in runs),
                         "startup_cpu_s": median(r[1] for r in refs)})
    return rows


# ---- pathological parse families ----------------------------------------------------
HLO_HEAD = "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n"


def families(size: int) -> dict[str, tuple[str, str]]:
    """family → (dialect, text of about ``size`` characters)."""
    k = size
    return {
        "HLO long instruction name": ("hlo", HLO_HEAD + f"  ROOT {'n' * k} = f32[] negate(p)\n}}\n"),
        "HLO long metadata string": ("hlo", HLO_HEAD + f'  ROOT n = f32[] negate(p), metadata={{op_name="{"s" * k}"}}\n}}\n'),
        "HLO long literal list": ("hlo", HLO_HEAD.replace("f32[] parameter(0)", f"f32[{k // 2}] parameter(0)")
                                  + f"  ROOT c = f32[{k // 2}] constant({{{','.join(['1'] * (k // 2))}}})\n}}\n"),
        "HLO long result_accuracy (invalid, 10)": ("hlo", HLO_HEAD + "  ROOT x = f32[] exponential(p), result_accuracy="
                                                   "{tolerance={rtol=0.5, atol=1.0, f32[" + "1," * (k // 2) + "1]=2}}\n}\n"),
        "MLIR long SSA name": ("stablehlo", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                               f"  %{'v' * k} = stablehlo.negate %a : tensor<f32>\n  return %{'v' * k} : tensor<f32>\n}}\n"),
        "MLIR long location string": ("stablehlo", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                                      f'  %0 = stablehlo.negate %a : tensor<f32> loc("{"s" * k}")\n'
                                      "  return %0 : tensor<f32>\n}\n"),
        "MLIR unterminated string of \\\" (invalid, 04)": ("stablehlo", "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                                                          '  %0 = "' + '\\"' * (k // 2) + "\n}\n"),
        "MLIR long dense list": ("stablehlo", "func.func @f() -> tensor<" + str(k // 5) + "xf32> {\n"
                                 "  %0 = stablehlo.constant dense<[" + ", ".join(["1.0"] * (k // 5)) + "]> : tensor<"
                                 + str(k // 5) + "xf32>\n  return %0 : tensor<" + str(k // 5) + "xf32>\n}\n"),
        "MLIR long identifier in #stablehlo.dot (invalid, 09)": (
            "stablehlo", "func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
            '  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<'
            f"lhs_contracting_dimensions = [1]{'b' * k}, rhs_contracting_dimensions = [0]>}} : "
            "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n  return %0 : tensor<2x2xf32>\n}\n"),
    }


def _parse_time(text: str, dialect: str, validate: bool) -> float:
    def go() -> None:
        try:
            hlo_passes.parse(text, dialect=dialect, validate=validate)
        except hlo_passes.ParseError:
            pass
    return _cpu(go)


def family_rows(small: int, repeats: int) -> list[dict]:
    big = 16 * small
    refs = {(d, n): (generated_hlo if d == "hlo" else generated_stablehlo)(n / 1e6)
            for d in ("hlo", "stablehlo") for n in (small, big)}
    small_fam, big_fam = families(small), families(big)
    for d in ("hlo", "stablehlo"):  # warm-up: the grammars are built on first use
        _parse_time(refs[(d, small)], d, True)
    rows = []
    for name in small_fam:
        dialect = small_fam[name][0]
        for validate in (False, True):
            _parse_time(small_fam[name][1], dialect, validate)
            per: dict[int, list[float]] = {small: [], big: []}
            ratios: dict[int, list[float]] = {small: [], big: []}
            for _ in range(repeats):
                for n, fam in ((small, small_fam), (big, big_fam)):
                    t = _parse_time(fam[name][1], dialect, validate)
                    r = _parse_time(refs[(dialect, n)], dialect, False)
                    per[n].append(t)
                    ratios[n].append(t / r)
            rows.append({"family": name, "validate": validate, "small_s": median(per[small]),
                         "big_s": median(per[big]), "scaling": median(b / s for b, s in zip(per[big], per[small])),
                         "vs_valid_small": median(ratios[small]), "vs_valid_big": median(ratios[big]),
                         "bytes": (len(small_fam[name][1]), len(big_fam[name][1]))})
    return rows


def report(chains: list[dict], cli: list[dict], fams: list[dict], command: str, small: int) -> list[str]:
    lines = ["## Robustness in time: chains and pathological text (issue 21)", "",
             f"- {utc_now()}; {machine_line()}", f"- command: `{command}`",
             "- CPU time (process_time), medians of per-round values; each round runs the input and its "
             "reference back to back", "", "### run_passes on chains of single-use ops", ""]
    lines += md_table(["dialect", "ops", "parse s", "run_passes s", "run_passes ÷ parse"],
                      [[r["dialect"], fmt(r["ops"]), fmt(r["parse_s"]), fmt(r["passes_s"]), fmt(r["ratio"])]
                       for r in chains])
    lines.append("")
    for dialect in ("hlo", "stablehlo"):
        rs = sorted((r for r in chains if r["dialect"] == dialect), key=lambda r: r["ops"])
        if len(rs) >= 2:
            grow = rs[-1]["ops"] / rs[0]["ops"]
            took = rs[-1]["scaling"]
            ok = took <= grow * TARGET_SCALING / 16
            lines.append(f"- {dialect}: {grow:.0f}× the ops ({rs[0]['ops']:,} → {rs[-1]['ops']:,}) in {took:.1f}× the "
                         f"run_passes time; linear (≤ {grow * TARGET_SCALING / 16:.1f}×): **{'met' if ok else 'not met'}**")
    if cli:
        lines += ["", "### hlo-rewrite on the chain reproducers (a fresh process each)", ""]
        lines += md_table(["input", "wall s", "CPU s", "CPU s, one-op module (start-up)", "CPU s beyond start-up"],
                          [[r["input"], fmt(r["wall_s"]), fmt(r["cpu_s"]), fmt(r["startup_cpu_s"]),
                            fmt(r["cpu_s"] - r["startup_cpu_s"])] for r in cli])
        worst = max(r["cpu_s"] for r in cli)
        lines += ["", f"- slowest {worst:.2f} s of CPU, start-up included (22 s / 21 s before issue 21; wall time "
                  f"depends on the machine's load); well under a second: **{'met' if worst < 1.0 else 'not met'}**"]
    lines += ["", f"### parse on pathological text: {small // 1024} KB → {16 * small // 1024} KB", ""]
    lines += md_table(["family", "validate", f"{small // 1024} KB s", f"{16 * small // 1024} KB s", "16× text: time ×",
                       "÷ valid module, small", "÷ valid module, big"],
                      [[r["family"], "yes" if r["validate"] else "no", fmt(r["small_s"]), fmt(r["big_s"]),
                        fmt(r["scaling"]), fmt(r["vs_valid_small"]), fmt(r["vs_valid_big"])] for r in fams])
    worst = max(fams, key=lambda r: r["scaling"])
    ok = all(r["scaling"] <= TARGET_SCALING for r in fams)
    lines += ["", f"- every family: 16× the text in at most {worst['scaling']:.1f}× the time ({worst['family']}, "
              f"validate={'yes' if worst['validate'] else 'no'}); target ≤ {TARGET_SCALING:g}×: "
              f"**{'met' if ok else 'not met'}**; the valid reference is parse_speed's generated module of the same "
              "size (÷ valid: how much dearer per byte the pathological text is)"]
    return lines


def main(argv: list[str] | None = None) -> list[str]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smoke run: small inputs, one round")
    args = ap.parse_args(argv)
    sizes, small, repeats = ([1000, 4000, 16000], 64 * 1024, args.repeats)
    if args.quick:
        sizes, small, repeats = [100, 400], 4 * 1024, 1
    chains = chain_rows(sizes, repeats)
    cli = cli_rows(1 if args.quick else 3)
    fams = family_rows(small, repeats)
    command = "python benchmarks/robustness.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(chains, cli, fams, command.strip(), small)
    print("\n".join(lines))
    write_fragment("robustness", lines)
    return lines


if __name__ == "__main__":
    main()
