"""Does running the expert FFN as one kernel pay?  MOE005 on CPU.

    python benchmarks/ffn_fusion.py [--quick] [--rounds N]

Two tables, each from interleaved rounds (every round times one call of each path, in rotating
order; the table gives the median time of each path and the median of the per-round ratios):

* **kernel**: ``y = gmm(silu(h[:, :F]) * h[:, F:], w_out)`` with ``h = gmm(x, w_in)`` (prefused
  ``w_in[E, D, 2F]``, f32 unless the row says bf16) by tokens and experts, three ways, each a
  jitted jax function on XLA:CPU: hlo_passes's fused-FFN kernel (``kernels.moe_ffn``), the same
  FFN on this project's two-GMM CPU kernel (``kernels.gmm`` twice, XLA's slices and silu between),
  and jax's own ``jax.lax.ragged_dot`` (XLA:CPU's decomposition).  Ratios: fused / two-GMM and
  fused / ragged_dot (below 1 the fused kernel is faster).
* **program**: a small MoE training step as trainers write it (``examples/moe_ffn.py``, mode
  ``remat``: loss and gradients of the FFN under ``jax.checkpoint``) and its forward, each lowered
  for TPU, rewritten by ``moe-ffn-fusion`` (sites priced for CPU), every remaining GMM lowered to
  the cpu-ffi kernel, compiled and run; the original goes through the same lowering.  Outputs
  are compared at the compute type's rounding.  Ratio: rewritten / original.

The machine's core count bounds what any path can do; the numbers are for this machine only.
Writes ``results/ffn_fusion.md`` and ``results/ffn_fusion.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import RESULTS_DIR, machine_line, md_table, utc_now, versions, write_fragment  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402
import hlo_passes.kernels as kernels  # noqa: E402
from examples import moe_ffn  # noqa: E402
from hlo_passes import runtime  # noqa: E402
from hlo_passes.lowering import lower_gmms  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402

D, F = 512, 256
# (tokens, experts, dtype)
KERNEL_SHAPES = [(512, 8, "float32"), (2048, 8, "float32"), (2048, 32, "float32"), (8192, 8, "float32"),
                 (8192, 64, "float32"), (2048, 8, "bfloat16"), (8192, 64, "bfloat16")]
PROGRAM_SHAPES = [(2048, 16), (8192, 64)]  # (tokens, experts)
QUICK_KERNEL = [(512, 8, "float32")]
QUICK_PROGRAM = [(512, 8)]
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}


def _two_gmm(x, gs, w, wo):
    h = kernels.gmm(x, w, gs)
    return kernels.gmm(jax.nn.silu(h[:, :F]) * h[:, F:], wo, gs)


PATHS = {
    "fused": jax.jit(lambda x, gs, w, wo: kernels.moe_ffn(x, w, wo, gs)),
    "two_gmm": jax.jit(_two_gmm),
    "ragged_dot": jax.jit(moe_ffn.function("gate_first")),
}


def _time(fn, args) -> float:
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


def _rounds(fns: dict, args, rounds: int) -> dict[str, list[float]]:
    for fn in fns.values():  # compile and warm up
        _time(fn, args)
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            times[n].append(_time(fns[n], args))
    return times


def _ratio(times: dict[str, list[float]], num: str, den: str) -> float:
    return statistics.median(a / b for a, b in zip(times[num], times[den]))


def kernel_row(tokens: int, experts: int, dtype: str, rounds: int) -> dict:
    args = moe_ffn.inputs("gate_first", experts=experts, tokens=tokens, embed=D, mlp=F, dtype=DTYPES[dtype])
    want = np.asarray(PATHS["two_gmm"](*args)).astype(np.float32)
    got = np.asarray(PATHS["fused"](*args)).astype(np.float32)
    tol = 2e-2 if dtype == "bfloat16" else 1e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    times = _rounds(PATHS, args, rounds)
    return {"tokens": tokens, "experts": experts, "d": D, "f": F, "dtype": dtype, "rounds": rounds,
            **{f"{n}_ms": statistics.median(t) * 1e3 for n, t in times.items()},
            "fused_over_two_gmm": _ratio(times, "fused", "two_gmm"),
            "fused_over_ragged_dot": _ratio(times, "fused", "ragged_dot")}


def _executable(text: str) -> runtime.Executable:
    module = hlo_passes.parse(text)
    lower_gmms(module, "cpu-ffi", "cpu")
    out = module.to_text()
    assert "ragged_dot" not in out and "ragged-dot(" not in out
    return runtime.compile_text(out)


def program_row(mode: str, tokens: int, experts: int, rounds: int) -> dict:
    args = moe_ffn.inputs("gate_first", experts=experts, tokens=tokens, embed=D, mlp=F)
    text = moe_ffn.lower("gate_first", mode, experts=experts, tokens=tokens, embed=D, mlp=F)
    result = run_passes(hlo_passes.parse(text), ["moe-ffn-fusion"], platform="cpu")
    assert [s.rewritten for s in result.sites] == [True], result.sites
    exes = {"original": _executable(text), "rewritten": _executable(result.module.to_text())}
    outs = {n: [np.asarray(a) for a in jax.tree.leaves(e.run(*args))] for n, e in exes.items()}
    for w, g in zip(outs["original"], outs["rewritten"]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    times = _rounds({n: e.run for n, e in exes.items()}, args, rounds)
    return {"mode": mode, "tokens": tokens, "experts": experts, "d": D, "f": F, "rounds": rounds,
            "intermediate_bytes": result.sites[0].details.intermediate_bytes,
            **{f"{n}_ms": statistics.median(t) * 1e3 for n, t in times.items()},
            "ratio": _ratio(times, "rewritten", "original")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small shape each, 3 rounds")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    kshapes, pshapes, rounds = (QUICK_KERNEL, QUICK_PROGRAM, 3) if args.quick else (
        KERNEL_SHAPES, PROGRAM_SHAPES, args.rounds)
    krows = [kernel_row(t, e, dt, rounds) for t, e, dt in kshapes]
    prows = [program_row(m, t, e, rounds) for t, e in pshapes for m in ("forward", "remat")]
    ktable = md_table(
        ["tokens", "E", "D", "F", "dtype", "fused ms", "two-GMM ms", "ragged_dot ms", "fused / two-GMM",
         "fused / ragged_dot"],
        [[r["tokens"], r["experts"], r["d"], r["f"], r["dtype"], f"{r['fused_ms']:.2f}", f"{r['two_gmm_ms']:.2f}",
          f"{r['ragged_dot_ms']:.2f}", f"{r['fused_over_two_gmm']:.3f}", f"{r['fused_over_ragged_dot']:.3f}"]
         for r in krows])
    ptable = md_table(
        ["program", "tokens", "E", "D", "F", "intermediates not written", "original ms", "rewritten ms",
         "ratio (median of rounds)"],
        [[r["mode"], r["tokens"], r["experts"], r["d"], r["f"], f"{r['intermediate_bytes']:,}",
          f"{r['original_ms']:.2f}", f"{r['rewritten_ms']:.2f}", f"{r['ratio']:.3f}"] for r in prows])
    lines = ["## MOE005: the expert FFN as one kernel (XLA:CPU)", "",
             f"{machine_line()}; {utc_now()}; {rounds} interleaved rounds", "",
             "Kernel: hlo_passes's fused-FFN kernel against the two-GMM path on this project's CPU GMM kernel "
             "and against jax's ragged_dot (ratios below 1: the fused kernel is faster).", "", *ktable, "",
             "Program: a small MoE FFN forward and its training step under jax.checkpoint (remat), original "
             "against rewritten by moe-ffn-fusion, both on the cpu-ffi GMM kernel.", "", *ptable, ""]
    print("\n".join(lines))
    if not args.quick:
        write_fragment("ffn_fusion", lines)
        (RESULTS_DIR / "ffn_fusion.json").write_text(
            json.dumps({"versions": versions(), "kernel": krows, "program": prows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
