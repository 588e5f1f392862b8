"""A MaxText-style MoE layer through hlo_passes' three entry points.

    python examples/moe_fsdp.py [--form implicit|explicit] [--mesh mesh2|mesh1] [--mode forward|grad] [--runs 10]

The layer (examples/moe.py, ``layer="router"``): router logits, top-k, tokens
sorted by expert, the FFN with a prefused gate/up weight ``W[E, D, 2F]``
sharded on ``D`` over the FSDP mesh axes (8 fake CPU devices), unsort and
combine.  Its ``concat`` variant slices ``W`` into halves before the FSDP
gather, the pattern hlo_passes fuses.  Shown, before/after:

1. ``hlo-rewrite`` on the lowered StableHLO file, then ``hlo-lint`` on both
   files (the console scripts, as a CI job would run them);
2. ``hlo_passes.jit`` in place of ``jax.jit``;
3. ``hlo_passes.install()``: plain ``jax.jit`` with the compile-time lint.

For each: the all-gathers XLA kept in the compiled program, the bytes the
rewrite saves per device, and the median run time.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - flags must precede the jax import
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()
    if not __package__:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import statistics
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import jax
import numpy as np

import hlo_passes
from examples.moe import FORMS, MESHES, MoEConfig, ProgramSpec, inputs, program_fn, program_mesh
from hlo_passes import jax_hook, runtime


def _median_time(f, args, runs: int) -> float:
    jax.block_until_ready(f(*args))  # compile and warm up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _script(name: str) -> list[str]:
    # The console script of this interpreter's environment, not whichever one PATH finds first
    # (it may belong to another Python that lacks hlo_passes); else the same entry point as a module.
    beside = Path(sys.executable).parent / name
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "hlo_passes.cli", name.split("-", 1)[1]]


def _max_diff(a, b) -> float:
    return max(float(np.max(np.abs(np.asarray(x, np.float32) - np.asarray(y, np.float32))))
               for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--form", choices=FORMS, default="implicit",
                        help="implicit: Shardy inserts the gathers (MaxText); explicit: shard_map + all_gather")
    parser.add_argument("--mesh", choices=MESHES, default="mesh2")
    parser.add_argument("--mode", choices=("forward", "grad"), default="forward")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)

    cfg = MoEConfig(experts=8, embed=128, mlp=256, tokens=256)
    spec = ProgramSpec(variant="concat", mesh=args.mesh, form=args.form, mode=args.mode, layer="router", cfg=cfg)
    mesh = program_mesh(spec)
    fn = program_fn(spec, mesh)
    arrays = inputs(spec, mesh)
    print(f"MoE router layer: E={cfg.experts} D={cfg.embed} 2F={2 * cfg.mlp} T={cfg.tokens} top-{cfg.top_k}, "
          f"{args.form} FSDP on {args.mesh} ({len(jax.devices())} CPU devices), {args.mode}")

    baseline = jax.jit(fn)
    lowered = baseline.lower(*arrays)
    base_gathers = runtime.count_ops(lowered.compile().as_text())["all-gather"]
    want = baseline(*arrays)

    # 1. The console scripts on files.
    print("\n1. hlo-rewrite / hlo-lint on the lowered StableHLO")
    with tempfile.TemporaryDirectory() as tmp:
        src, out, report = Path(tmp, "layer.mlir"), Path(tmp, "layer.fused.mlir"), Path(tmp, "report.json")
        src.write_text(lowered.as_text())
        lint = subprocess.run([*_script("hlo-lint"), str(src)], capture_output=True, text=True)
        print(f"   hlo-lint {src.name}: exit {lint.returncode}")
        for line in lint.stdout.splitlines():
            print(f"     {line}")
        rw = subprocess.run([*_script("hlo-rewrite"), str(src), "-o", str(out), "--report", str(report)],
                            capture_output=True, text=True)
        print(f"   hlo-rewrite {src.name} -o {out.name}: exit {rw.returncode}")
        for line in rw.stderr.splitlines():
            print(f"     {line}")
        if rw.returncode != 0:
            return rw.returncode
        relint = subprocess.run([*_script("hlo-lint"), str(out)], capture_output=True, text=True)
        print(f"   hlo-lint {out.name}: exit {relint.returncode} ({relint.stdout.strip().splitlines()[-1]})")
        exe0 = runtime.compile_text(src.read_text())
        exe1 = runtime.compile_text(out.read_text())
        host = [np.asarray(a) for a in arrays]
        got0, got1 = exe0.run(*host), exe1.run(*host)
        g0 = runtime.count_ops(exe0.compiled_text)["all-gather"]
        g1 = runtime.count_ops(exe1.compiled_text)["all-gather"]
        print(f"   compiled all-gathers {g0} -> {g1}; max |difference| of results {_max_diff(got0, got1):.3g}")

    # 2. hlo_passes.jit.
    print("\n2. hlo_passes.jit")
    fast = hlo_passes.jit(fn)
    low = fast.lower(*arrays)
    got = fast(*arrays)
    saved = sum(s.bytes_saved for s in low.report)
    fast_gathers = runtime.count_ops(low.compile().as_text())["all-gather"]
    t_base = _median_time(baseline, arrays, args.runs)
    t_fast = _median_time(fast, arrays, args.runs)
    print(f"   sites: {[f'{s.form} @ line {s.location.line}' for s in low.report]}")
    print(f"   all-gathers {base_gathers} -> {fast_gathers}; saves {saved:,} bytes per device")
    print(f"   max |jax.jit - hlo_passes.jit| = {_max_diff(want, got):.3g}; "
          f"shardings equal: {all(a.sharding == b.sharding for a, b in zip(jax.tree.leaves(want), jax.tree.leaves(got)))}")
    print(f"   median run time: jax.jit {t_base * 1e3:.2f} ms, hlo_passes.jit {t_fast * 1e3:.2f} ms "
          f"(ratio {t_base / t_fast:.2f})")
    print(f"   cache: {fast.cache_info()}")

    # 3. install(): plain jax.jit, linted as XLA compiles it.
    print("\n3. hlo_passes.install() with plain jax.jit")
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            again = jax.jit(program_fn(spec, mesh))(*arrays)
    finally:
        hlo_passes.uninstall()
    found = [w for w in record if issubclass(w.category, jax_hook.MoELintWarning)]
    for w in found:
        print(f"   warning: {w.message}")
    if not found:
        print("   no warning: the rule did not see the pattern in the optimized module")
    print(f"   results unchanged: {_max_diff(want, again) == 0.0}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
