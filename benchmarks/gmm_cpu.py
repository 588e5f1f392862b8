"""The CPU grouped-matmul FFI kernel against jax's CPU decomposition of ragged_dot.

    python benchmarks/gmm_cpu.py [--quick] [--repeats N] [--experts 8,32,64] [--out FILE.md]

MoE-like shapes: M = 4096 routed rows (tokens x top-k), K = 512, N = 1024,
E experts with uneven group sizes (a fixed-seed multinomial draw over
Dirichlet-weighted experts, so some groups are much larger than others and
some may be empty). For every E and dtype, three jit-compiled functions run
in interleaved rounds (one call each per round, ``block_until_ready``):

* ours: ``hlo_passes.kernels.gmm`` (the ``hlo_passes_gmm`` FFI target), or
  ``tgmm`` for the transposed rows (ragged_dot's rhs gradient, out[E,K,N]);
* jax: ``jax.lax.ragged_dot`` (for tgmm: ``ragged_dot_general`` with the
  ragged dimension contracted) as XLA:CPU runs it: jax lowers it to a masked
  dense dot over all E groups, E times the real work;
* static: the same real work as one XLA dot per group over static slices
  (the group sizes baked into the program, which a real program cannot do)
  — what XLA's own GEMMs reach on exactly this work.

Reported: medians over the rounds, the speed-up as the median of per-round
ratios (a round shares the machine's load of the moment), and GFLOP/s of the
real work (2·Σm_g·K·N). Results are checked against jax's before timing.
Writes ``benchmarks/results/gmm_cpu.md`` (or ``--out``) and prints it.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402

from hlo_passes import kernels  # noqa: E402

_TGMM_DIMS = jax.lax.RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([0], [0]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[]
)


@dataclass
class Row:
    op: str
    dtype: str
    experts: int
    sizes: np.ndarray
    ours_s: float
    jax_s: float
    static_s: float
    speedup: float  # median over rounds of jax / ours
    flops: float


def group_sizes(m: int, experts: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.full(experts, 2.0))
    return rng.multinomial(m, weights).astype(np.int32)


def _time(fn: Callable, args) -> float:
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


def measure(op: str, dtype, experts: int, m: int, k: int, n: int, repeats: int) -> Row:
    rng = np.random.default_rng(experts)
    sizes = group_sizes(m, experts, seed=experts)
    lhs = jnp.asarray(rng.standard_normal((m, k), dtype=np.float32), dtype)
    gs = jnp.asarray(sizes)
    if op == "gmm":
        rhs = jnp.asarray(rng.standard_normal((experts, k, n), dtype=np.float32), dtype)
        ours = jax.jit(kernels.gmm)
        ref = jax.jit(jax.lax.ragged_dot)
    else:
        rhs = jnp.asarray(rng.standard_normal((m, n), dtype=np.float32), dtype)
        ours = jax.jit(kernels.tgmm)
        ref = jax.jit(lambda a, b, g: jax.lax.ragged_dot_general(a, b, g, _TGMM_DIMS))
    # The same real work as dense XLA dots, one per group, with the group
    # sizes baked in as static slices (something a real program cannot do:
    # sizes are data there) — what XLA's own GEMMs reach on this exact work.
    bounds = np.minimum(np.concatenate([[0], np.cumsum(sizes)]), m)
    if op == "gmm":
        def static(a, b):
            parts = [a[s:e] @ b[g] for g, (s, e) in enumerate(zip(bounds[:-1], bounds[1:])) if e > s]
            parts.append(jnp.zeros((m - bounds[-1], n), parts[0].dtype))
            return jnp.concatenate(parts)
    else:
        def static(a, b):
            return jnp.stack([a[s:e].T @ b[s:e] for s, e in zip(bounds[:-1], bounds[1:])])
    static_fn = jax.jit(static)
    fns = {"ours": (ours, (lhs, rhs, gs)), "jax": (ref, (lhs, rhs, gs)), "static": (static_fn, (lhs, rhs))}
    got, want = np.asarray(ours(lhs, rhs, gs), np.float32), np.asarray(ref(lhs, rhs, gs), np.float32)
    tol = 2e-2 if dtype == jnp.bfloat16 else 1e-3
    scale = float(np.abs(want).max()) or 1.0
    if not np.allclose(got, want, rtol=tol, atol=tol * scale):
        raise AssertionError(f"{op} E={experts} {np.dtype(dtype).name}: kernel differs from jax by "
                             f"{np.abs(got - want).max()}")
    for fn, args in fns.values():  # compile and warm up
        jax.block_until_ready(fn(*args))
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, (fn, args) in fns.items():
            times[name].append(_time(fn, args))
    ratios = [j / o for j, o in zip(times["jax"], times["ours"])]
    used = min(int(sizes.sum()), m)
    return Row(op, np.dtype(dtype).name, experts, sizes, statistics.median(times["ours"]),
               statistics.median(times["jax"]), statistics.median(times["static"]), statistics.median(ratios),
               2.0 * used * k * n)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def markdown(rows: list[Row], shape: tuple[int, int, int], repeats: int, command: str) -> str:
    m, k, n = shape
    lines = [
        "# CPU grouped matmul: FFI kernel vs jax's ragged_dot decomposition",
        "",
        f"M = {m} routed rows, K = {k}, N = {n}; E experts with uneven group sizes (fixed seed). "
        f"Medians of {repeats} interleaved rounds; speed-up = median of per-round (jax / ours). "
        "GFLOP/s counts the real grouped work 2·Σm_g·K·N. *static* is that same work as one XLA dot per "
        "group over static slices (group sizes baked into the program, which a real program cannot do): "
        "what XLA's own GEMMs reach on it; *ours / static* > 1 means the kernel is slower than they are.",
        "",
        "gmm: `lhs[M,K] @ rhs[E,K,N]` per group (forward). tgmm: `lhs[M,K]^T @ dout[M,N]` per group "
        "→ `[E,K,N]` (ragged_dot's rhs gradient). bf16 rows: bf16 inputs and output, f32 accumulation.",
        "",
        "| op | dtype | E | group sizes (min/max) | ours ms | jax ragged_dot ms | speed-up | ours GFLOP/s "
        "| static dots ms | ours / static |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.op} | {r.dtype} | {r.experts} | {r.sizes.min()}/{r.sizes.max()} | {r.ours_s * 1e3:.1f} "
            f"| {r.jax_s * 1e3:.1f} | **{r.speedup:.1f}x** | {r.flops / r.ours_s / 1e9:.0f} "
            f"| {r.static_s * 1e3:.1f} | {r.ours_s / r.static_s:.2f} |"
        )
    threads = os.environ.get("HLO_PASSES_GMM_THREADS", f"{os.cpu_count()} (hardware)")
    lines += [
        "",
        f"Machine: {_cpu_model()}, {os.cpu_count()} cores ({platform.machine()}); kernel threads: {threads}; "
        f"Python {platform.python_version()}, jax {jax.__version__}, jaxlib {jaxlib.__version__}; "
        f"load average at the end {os.getloadavg()[0]:.1f} (shared machine: absolute times drift, "
        "ratios within a round hold better).",
        "",
        f"Command: `{command}`",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small shapes, E=8, 3 rounds")
    parser.add_argument("--repeats", type=int, default=9, help="interleaved rounds (default 9)")
    parser.add_argument("--experts", default="8,32,64", help="comma-separated E values")
    parser.add_argument("--ops", default="gmm,tgmm", help="gmm, tgmm or both")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "gmm_cpu.md")
    args = parser.parse_args(argv)
    shape = (4096, 512, 1024)
    experts = [int(e) for e in args.experts.split(",")]
    repeats = args.repeats
    if args.quick:
        shape, experts, repeats = (512, 128, 256), [8], 3
    ops = args.ops.split(",")
    rows = []
    for op in ops:
        for dtype in (jnp.float32, jnp.bfloat16):
            for e in experts if dtype == jnp.float32 else experts[:1]:
                row = measure(op, dtype, e, *shape, repeats)
                print(f"{op} {row.dtype} E={e}: ours {row.ours_s * 1e3:.1f} ms, jax {row.jax_s * 1e3:.1f} ms, "
                      f"{row.speedup:.1f}x", file=sys.stderr, flush=True)
                rows.append(row)
    command = "python " + shlex.join(["benchmarks/gmm_cpu.py", *(sys.argv[1:] if argv is None else argv)])
    text = markdown(rows, shape, repeats, command)
    if not args.quick or args.out != parser.get_default("out"):
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
