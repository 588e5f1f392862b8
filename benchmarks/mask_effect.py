"""Does removing a grouped matmul's redundant row mask pay?  MOE006 on one expert projection.

    python benchmarks/mask_effect.py [--quick] [--rounds N]

The program is an expert projection as TransformerEngine wrote it before its MoE optimization:
``y = where(live, ragged_dot(where(live, x, 0), w, gs), 0)`` with ``live = arange(T)[:, None] <
sum(gs)`` (a quarter of the rows past the groups: dropped tokens), lowered for TPU (the GMM stays
a ragged-dot), and the same program after ``gmm-redundant-mask`` (both selects removed).  Both are
lowered to the cpu-ffi grouped-matmul kernel, compiled with XLA:CPU and run on the same inputs
(the results are compared bit for bit); each round times one call of each, in alternating order,
and the table gives the median time of each and the median of the per-round ratios
(rewritten / original: below 1 the rewrite is faster).  F, the expert's hidden width, is 256: the
GMM's work grows with F, the masks' does not, so a wider F shrinks the gain.

Writes ``results/mask_effect.md`` and ``results/mask_effect.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, machine_line, md_table, utc_now, versions, write_fragment  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402
import hlo_passes.kernels  # noqa: E402,F401  (registers the cpu-ffi kernel)
from hlo_passes import runtime  # noqa: E402
from hlo_passes.lowering import lower_gmms  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402

F = 256
SHAPES = [(1024, 1024, 8), (2048, 1024, 16), (4096, 2048, 32), (8192, 2048, 64)]  # (tokens, D, E)
QUICK = [(1024, 1024, 8)]


def projection(x: jax.Array, w: jax.Array, gs: jax.Array) -> jax.Array:
    live = jnp.arange(x.shape[0])[:, None] < jnp.sum(gs)
    y = jax.lax.ragged_dot(jnp.where(live, x, 0), w, gs)
    return jnp.where(live, y, 0)


def executables(tokens: int, d: int, e: int) -> tuple[runtime.Executable, runtime.Executable, tuple, int]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((tokens, d)).astype(np.float32)
    w = (rng.standard_normal((e, d, F)) / np.sqrt(d)).astype(np.float32)
    live = tokens * 3 // 4
    gs = np.bincount(rng.integers(0, e, live), minlength=e).astype(np.int32)
    x[live:] = np.nan  # what the dropped rows hold does not matter to the rewritten program
    text = jax.jit(projection).trace(x, w, gs).lower(lowering_platforms=("tpu",)).as_text()
    result = run_passes(hlo_passes.parse(text), ["gmm-redundant-mask"])
    assert sorted(s.form for s in result.sites) == ["lhs", "result"] and all(s.rewritten for s in result.sites)
    exes = []
    for t in (text, result.module.to_text()):
        module = hlo_passes.parse(t)
        assert all(r.lowered for r in lower_gmms(module, "cpu-ffi", "cpu"))
        exes.append(runtime.compile_text(module.to_text()))
    return exes[0], exes[1], (x, w, gs), sum(s.bytes_saved for s in result.sites)


def timed(exe: runtime.Executable, args: tuple) -> float:
    start = time.perf_counter()
    jax.block_until_ready(exe.run(*args))
    return time.perf_counter() - start


def measure(tokens: int, d: int, e: int, rounds: int) -> dict:
    original, rewritten, args, saved = executables(tokens, d, e)
    want, got = (np.asarray(exe.run(*args)[0]) for exe in (original, rewritten))
    assert want.tobytes() == got.tobytes(), "the rewritten program computes something else"
    for exe in (original, rewritten):  # warm up
        timed(exe, args)
    before, after, ratios = [], [], []
    for r in range(rounds):
        pair = (original, rewritten) if r % 2 == 0 else (rewritten, original)
        t = {id(exe): timed(exe, args) for exe in pair}
        before.append(t[id(original)])
        after.append(t[id(rewritten)])
        ratios.append(t[id(rewritten)] / t[id(original)])
    return {"tokens": tokens, "d": d, "f": F, "e": e, "rounds": rounds, "bytes_saved": saved,
            "original_ms": statistics.median(before) * 1e3, "rewritten_ms": statistics.median(after) * 1e3,
            "ratio": statistics.median(ratios)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small shape, 3 rounds")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    shapes, rounds = (QUICK, 3) if args.quick else (SHAPES, args.rounds)
    rows = [measure(t, d, e, rounds) for t, d, e in shapes]
    table = md_table(
        ["tokens", "D", "F", "E", "select bytes removed", "original ms", "rewritten ms", "ratio (median of rounds)"],
        [[r["tokens"], r["d"], r["f"], r["e"], f"{r['bytes_saved']:,}", f"{r['original_ms']:.2f}",
          f"{r['rewritten_ms']:.2f}", f"{r['ratio']:.3f}"] for r in rows])
    lines = ["## MOE006: removing a GMM's redundant row masks (XLA:CPU, cpu-ffi kernel)", "",
             f"{machine_line()}; {utc_now()}; {rounds} interleaved rounds", "", *table, ""]
    print("\n".join(lines))
    if not args.quick:
        write_fragment("mask_effect", lines)
        (RESULTS_DIR / "mask_effect.json").write_text(json.dumps({"versions": versions(), "rows": rows}, indent=1),
                                                     encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
