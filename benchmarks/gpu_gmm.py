"""The CUDA grouped-matmul handlers against jax.lax.ragged_dot on one GPU.

For E = 8, 32, 64 experts and f32 / bf16 operands, times the forward GMM
(``hlo_passes_gmm_cuda`` vs ``jax.lax.ragged_dot``: XLA:GPU's native
ragged-dot) and the weight-gradient GMM (``hlo_passes_tgmm_cuda`` vs
``jax.lax.ragged_dot_general`` contracting the ragged rows), each the median
of interleaved timed calls after warm-up, and checks each result against the
reference (max relative error).  jax's f32 reference runs at its default
matmul precision (which may use TF32 on this GPU) and at ``highest``.

Writes ``gpu_gmm.md`` (the fragment for benchmarks/RESULTS.md) and
``gpu_gmm.json`` into ``--out`` (default: benchmarks/results).  Needs a CUDA
device and nvcc; says what is missing and exits 2 otherwise.

    python benchmarks/gpu_gmm.py [--out DIR] [--iters N] [--budget-s S]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

TOKENS, EMBED, MLP = 8192, 2048, 1024  # m, k, n of the forward GMM (MaxText-sized FFN slice)
EXPERTS = (8, 32, 64)
DTYPES = ("float32", "bfloat16")


def group_sizes(experts: int, tokens: int, seed: int) -> np.ndarray:
    """Skewed sizes summing to ``tokens`` with one empty expert, as routers produce."""
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.full(experts, 0.7))
    weights[1] = 0.0
    sizes = np.floor(weights / weights.sum() * tokens).astype(np.int32)
    sizes[0] += tokens - sizes.sum()
    return sizes


def timed(fn, args, iters: int) -> list[float]:
    import jax

    out = []
    for _ in range(iters):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        out.append(time.perf_counter() - t0)
    return out


def compare(ours, reference, args, iters: int) -> tuple[float, float]:
    """Medians (s) of ``ours`` and ``reference``, timed in alternating blocks after warm-up."""
    import jax

    for fn in (ours, reference):
        for _ in range(3):
            jax.block_until_ready(fn(*args))
    a, b = [], []
    for _ in range(5):
        a += timed(ours, args, max(1, iters // 5))
        b += timed(reference, args, max(1, iters // 5))
    return statistics.median(a), statistics.median(b)


def max_rel_error(got, want) -> float:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--budget-s", type=float, default=150.0,
                        help="start no new case after this many seconds (the GPU check's time is fixed)")
    args = parser.parse_args(argv)

    from hlo_passes.kernels import gpu

    why = gpu.unavailable_reason(need_device=True)
    if why is not None:
        print(f"gpu_gmm: cannot run: {why}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    gpu.register()
    build_s = time.perf_counter() - t0

    import jax
    import jax.numpy as jnp

    device = jax.devices("cuda")[0]
    started = time.perf_counter()
    rows: list[dict] = []
    for dtype in DTYPES:
        dt = jnp.dtype(dtype)
        rng = np.random.default_rng(0)
        x = jax.device_put(jnp.asarray(rng.standard_normal((TOKENS, EMBED), dtype=np.float32)).astype(dt), device)
        dy = jax.device_put(jnp.asarray(rng.standard_normal((TOKENS, MLP), dtype=np.float32)).astype(dt), device)
        for experts in EXPERTS:
            gs = jax.device_put(jnp.asarray(group_sizes(experts, TOKENS, experts)), device)
            w = jax.device_put(jnp.asarray(
                rng.standard_normal((experts, EMBED, MLP), dtype=np.float32) / np.sqrt(EMBED)).astype(dt), device)
            flops = 2.0 * TOKENS * EMBED * MLP
            ours_gmm = jax.jit(jax.ffi.ffi_call("hlo_passes_gmm_cuda", jax.ShapeDtypeStruct((TOKENS, MLP), dt)))
            ours_tgmm = jax.jit(jax.ffi.ffi_call("hlo_passes_tgmm_cuda",
                                                 jax.ShapeDtypeStruct((experts, EMBED, MLP), dt)))
            tgmm_dims = jax.lax.RaggedDotDimensionNumbers(
                dot_dimension_numbers=(([0], [0]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[])
            for precision in (("default", "highest") if dtype == "float32" else ("default",)):
                prec = None if precision == "default" else jax.lax.Precision.HIGHEST
                ref_gmm = jax.jit(lambda a, b, g, p=prec: jax.lax.ragged_dot(a, b, g, precision=p))
                ref_tgmm = jax.jit(lambda a, b, g, p=prec: jax.lax.ragged_dot_general(
                    a, b, g, tgmm_dims, precision=p))
                for kind, ours, ref, operands in (("gmm", ours_gmm, ref_gmm, (x, w, gs)),
                                                  ("tgmm", ours_tgmm, ref_tgmm, (x, dy, gs))):
                    row = dict(kind=kind, dtype=dtype, experts=experts, precision=precision)
                    rows.append(row)
                    if time.perf_counter() - started > args.budget_s:
                        row["error"] = f"not run: past the {args.budget_s:.0f} s budget"
                        continue
                    try:
                        err = max_rel_error(ours(*operands).astype(jnp.float32),
                                            ref(*operands).astype(jnp.float32))
                        t_ours, t_ref = compare(ours, ref, operands, args.iters)
                    except Exception as exc:  # one failing case must not lose the others' figures
                        row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                        print(f"{kind:4} {dtype:8} E={experts:2} ref precision {precision:7}: {row['error']}",
                              flush=True)
                        continue
                    row.update(ours_ms=t_ours * 1e3, xla_ms=t_ref * 1e3, speedup=t_ref / t_ours,
                               ours_tflops=flops / t_ours / 1e12, xla_tflops=flops / t_ref / 1e12,
                               max_rel_error=err)
                    print(f"{kind:4} {dtype:8} E={experts:2} ref precision {precision:7}: ours {row['ours_ms']:7.3f} ms "
                          f"({row['ours_tflops']:5.1f} TFLOP/s), ragged_dot {row['xla_ms']:7.3f} ms "
                          f"({row['xla_tflops']:5.1f} TFLOP/s), ragged_dot/ours {row['speedup']:5.2f}x, "
                          f"max rel err {err:.2e}", flush=True)

    env = dict(device=str(device.device_kind), jax=jax.__version__, build_or_load_s=round(build_s, 1),
               m=TOKENS, k=EMBED, n=MLP, iters=args.iters)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_gmm.json").write_text(json.dumps(dict(env=env, rows=rows), indent=1) + "\n")
    lines = [
        "## CUDA grouped matmul (gpu-ffi) vs jax.lax.ragged_dot on GPU",
        "",
        f"{env['device']}, jax {env['jax']}; m={TOKENS} tokens, k={EMBED}, n={MLP}; skewed group sizes with one "
        f"empty expert; median of {args.iters} calls each, interleaved. `ragged_dot/ours` > 1 means the hlo_passes "
        "kernel is faster. tgmm is the weight gradient (ragged rows contracted). Reproduce: "
        "`bash tools/gpu_check.sh` on a GPU machine.",
        "",
        "| kernel | dtype | E | ref precision | ours ms | ragged_dot ms | ragged_dot/ours | max rel err |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['kind']} | {r['dtype']} | {r['experts']} | {r['precision']} | {r['error']} | | | |")
            continue
        lines.append(f"| {r['kind']} | {r['dtype']} | {r['experts']} | {r['precision']} | {r['ours_ms']:.3f} | "
                     f"{r['xla_ms']:.3f} | {r['speedup']:.2f}x | {r['max_rel_error']:.1e} |")
    (args.out / "gpu_gmm.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out / 'gpu_gmm.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
