"""The project's TPU kernels against XLA:TPU's own, on the chip (issue 45).

* GMM (the up projection ``[m, D] x [E, D, 2F]``) and tgmm (its weight gradient
  ``[m, D]^T x [m, 2F] -> [E, D, 2F]``): ``jax.lax.ragged_dot`` / ``ragged_dot_general``
  (XLA:TPU) against the project's megablox program (``hlo_passes.gmm.megablox``: at the
  project's fixed tiling, and at the tiling of the tile table ``hlo_passes.gmm.tpu_tiling``)
  and what the TPU default (``tpu_tiling.choice``) splices.
* The expert FFN: XLA's unfused chain (ragged_dot -> silu * up -> ragged_dot) against the fused
  Pallas kernel (``hlo_passes.gmm.pallas_ffn``), at the benchmark shapes and model-sized ones.

bf16 operands, f32 accumulation, bf16 results; top-2 routing with uneven (router-skewed) group
sizes summing to m; time = median over loops of back-to-back calls of one compiled executable
(compile excluded).  Roofline columns: achieved TF/s and HBM GB/s (the least bytes the problem
must move: operands once, result once) against v5e's 197 TF/s bf16 / 819 GB/s.  Numerics: each
kernel against an f32 reference (``precision=HIGHEST`` on the bf16 inputs) on the rows inside the
groups (max error over the reference's RMS, beside XLA's own), and its rows past the groups
(a problem whose groups end before m).

``--search`` also tries candidate tilings for megablox (and block sizes for the fused FFN) per
problem, compiled in parallel, and writes ``tpu_search.json`` (the input of the tile table).

    python benchmarks/tpu_kernels.py [--out DIR] [--search] [--quick] [--budget-s S]

Writes ``tpu_kernels.md`` and ``tpu_kernels.json`` into ``--out`` (default benchmarks/results).
Needs a TPU; says so and exits 2 otherwise.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PEAK_TFLOPS = 197.0  # v5e bf16
PEAK_GBS = 819.0  # v5e HBM
# (E, m, D, F): E 8/64, m 4096/16384, D 1024-4096, F 512-2048.
SHAPES = [(e, m, d, f) for e in (8, 64) for m in (4096, 16384)
          for d, f in ((1024, 512), (2048, 1024), (2048, 2048), (4096, 2048))]
# Model-sized expert FFNs on one chip (the experts one device holds): DeepSeek-v3 (D 7168,
# F 2048; 32 of its 256 experts), Qwen3-235B-A22B (D 4096, F 1536, 16 of 128), Mixtral 8x7B
# (D 4096, F 14336, all 8).
MODEL_FFN = [("DeepSeek-v3", 32, 4096, 7168, 2048), ("DeepSeek-v3", 32, 16384, 7168, 2048),
             ("Qwen3-235B", 16, 4096, 4096, 1536), ("Qwen3-235B", 16, 16384, 4096, 1536),
             ("Mixtral-8x7B", 8, 4096, 4096, 14336), ("Mixtral-8x7B", 8, 16384, 4096, 14336)]
# megablox tilings tried by --search: (tm, tk, tn) within v5e's 16 MiB scoped VMEM.
GMM_TILINGS = [(128, 512, 512), (256, 512, 1024), (512, 512, 1024), (512, 1024, 1024), (256, 1024, 2048),
               (512, 512, 2048), (1024, 512, 1024), (256, 2048, 1024)]
FFN_BLOCKS = [None, (128, 512), (256, 256), (256, 512), (512, 256), (512, 512)]


def group_sizes(experts: int, m: int, seed: int = 0) -> np.ndarray:
    """Top-2 routing of m/2 tokens over skewed router probabilities: group sizes summing to m."""
    rng = np.random.default_rng(seed + experts)
    logits = rng.standard_normal(experts) * 0.8
    p = np.exp(logits) / np.exp(logits).sum()
    tokens = m // 2
    first = rng.choice(experts, size=tokens, p=p)
    q = np.tile(p, (tokens, 1))
    q[np.arange(tokens), first] = 0
    q /= q.sum(1, keepdims=True)
    second = (q.cumsum(1) > rng.random((tokens, 1))).argmax(1)
    sizes = np.bincount(np.concatenate([first, second]), minlength=experts).astype(np.int32)
    sizes[0] += m - sizes.sum()
    return sizes


CALLS, LOOPS = 10, 5


def timed(compiled, args, calls: int | None = None, loops: int | None = None) -> float:
    """Median seconds per call over ``loops`` loops of ``calls`` back-to-back calls."""
    import jax

    calls, loops = calls or CALLS, loops or LOOPS
    jax.block_until_ready(compiled(*args))
    times = []
    for _ in range(loops):
        t0 = time.perf_counter()
        for _ in range(calls):
            out = compiled(*args)
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def compile_all(fns: dict, args) -> dict:
    """``{name: compiled or error text}``, compiled in parallel threads."""
    import jax

    def one(fn):
        try:
            return jax.jit(fn).lower(*args).compile()
        except Exception as err:  # noqa: BLE001 - a tiling Mosaic refuses is a result
            return f"{type(err).__name__}: {str(err).splitlines()[0][:160] if str(err) else ''}"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = {name: pool.submit(one, fn) for name, fn in fns.items()}
        return {name: f.result() for name, f in futures.items()}


def versions() -> dict:
    import jax

    def ver(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    dev = jax.devices()[0]
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "jax": jax.__version__, "jaxlib": ver("jaxlib"),
            "libtpu": ver("libtpu") or ver("libtpu-nightly"), "device": getattr(dev, "device_kind", str(dev)),
            "platform": dev.platform}


def matmul_peak() -> float:
    import jax
    import jax.numpy as jnp

    a = jnp.ones((8192, 8192), jnp.bfloat16)
    f = jax.jit(lambda x, y: x @ y).lower(a, a).compile()
    return 2 * 8192**3 / timed(f, (a, a), calls=10, loops=3) / 1e12


def _normal(rng, shape: tuple[int, ...], scale: float):
    """bf16 normal values drawn on the device (host draws of GB-sized weights take seconds)."""
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(int(rng.integers(2**31)))
    return (jax.random.normal(key, shape, jnp.float32) * scale).astype(jnp.bfloat16)


# ---- GMM -------------------------------------------------------------------------------------
def _spec(mode: str, e: int, m: int, k: int, n: int):
    from hlo_passes.gmm.megablox import GmmSpec

    if mode == "gmm":
        return GmmSpec("gmm", (m, k), "bf16", (e, k, n), "bf16", (e,), "s32", "bf16", (0, 1), (0, 1, 2))
    return GmmSpec("tgmm", (m, k), "bf16", (m, n), "bf16", (e,), "s32", "bf16", (0, 1), (0, 1))


def _xla(mode: str):
    import jax
    import jax.numpy as jnp

    if mode == "gmm":
        return lambda a, b, g: jax.lax.ragged_dot(a, b, g)
    dims = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([0], [0]), ([], [])),
                                             lhs_ragged_dimensions=[0], rhs_group_dimensions=[])
    return lambda a, b, g: jax.lax.ragged_dot_general(a, b, g, dims, preferred_element_type=jnp.bfloat16)


def _reference(mode: str, a, b, g):
    import jax
    import jax.numpy as jnp

    a, b = a.astype(jnp.float32), b.astype(jnp.float32)
    with jax.default_matmul_precision("highest"):
        if mode == "gmm":
            return jax.jit(lambda a, b, g: jax.lax.ragged_dot(a, b, g, precision=jax.lax.Precision.HIGHEST))(a, b, g)
        dims = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([0], [0]), ([], [])),
                                                 lhs_ragged_dimensions=[0], rhs_group_dimensions=[])
        return jax.jit(lambda a, b, g: jax.lax.ragged_dot_general(
            a, b, g, dims, precision=jax.lax.Precision.HIGHEST))(a, b, g)


def _error(got, ref, rows: int | None) -> float:
    """max |got - ref| / RMS(ref) over the rows inside the groups (gmm) or everything (tgmm)."""
    got = np.asarray(got, np.float32)
    ref = np.asarray(ref, np.float32)
    if rows is not None:
        got, ref = got[:rows], ref[:rows]
    rms = float(np.sqrt(np.mean(ref * ref))) or 1.0
    return float(np.abs(got - ref).max() / rms)


def gmm_problem(mode: str, e: int, m: int, d: int, f: int, search: bool, rng) -> dict:
    import jax.numpy as jnp

    from hlo_passes.gmm import megablox, tpu_tiling

    k, n = d, 2 * f
    gs = jnp.asarray(group_sizes(e, m))
    a = _normal(rng, (m, k), 1.0)
    b = _normal(rng, (e, k, n), 1 / np.sqrt(k)) if mode == "gmm" else _normal(rng, (m, n), 1.0)
    spec = _spec(mode, e, m, k, n)
    fns = {"xla": _xla(mode), "project": megablox._program(spec, False)}
    choice = tpu_tiling.choice(spec)
    if choice.tiling is not None:
        fns["table"] = megablox._program(spec, False, choice.tiling)
    if search:
        for t in GMM_TILINGS:
            if t[1] <= max(k, 128) * 2 and t[2] <= max(n, 128) * 2:
                fns[f"{t[0]}x{t[1]}x{t[2]}"] = megablox._program(spec, False, t)
    compiled = compile_all(fns, (a, b, gs))
    ref = _reference(mode, a, b, gs) if m <= 4096 or search else None
    flops = 2 * m * k * n
    hbm = 2 * (m * k + (e * k * n if mode == "gmm" else m * n) + (m * n if mode == "gmm" else e * k * n))
    row = {"mode": mode, "E": e, "m": m, "K": k, "N": n, "flops": flops, "hbm_bytes": hbm,
           "default": choice.kernel, "default_tiling": choice.tiling, "results": {}}
    for name, c in compiled.items():
        if isinstance(c, str):
            row["results"][name] = {"error": c}
            continue
        out = c(a, b, gs)
        t = timed(c, (a, b, gs))
        row["results"][name] = {"s": t, "tflops": flops / t / 1e12, "gbs": hbm / t / 1e9,
                                "err": _error(out, ref, m if mode == "gmm" else None) if ref is not None else 0.0}
    xla = row["results"]["xla"]["s"]
    for r in row["results"].values():
        if "s" in r:
            r["vs_xla"] = xla / r["s"]
    best = min((r["s"], name) for name, r in row["results"].items() if "s" in r and name != "xla" and
               r["err"] <= 2 * row["results"]["xla"]["err"] + 1e-2)
    row["best"] = best[1]
    row["default_vs_xla"] = _default_vs_xla(row, choice.kernel)
    return row


def _default_vs_xla(row: dict, kernel: str) -> float:
    """The TPU default's speed-up over XLA's ragged-dot in a measured row (1.0 where XLA's own op is
    the default, or where the run did not time the default's kernel)."""
    timed = row["results"].get("table" if kernel == "megablox" else "xla", {})
    return timed.get("vs_xla", 1.0)


def gmm_outside_rows() -> dict:
    """Rows past the groups: what each kernel writes there (groups ending at m - 100)."""
    import jax.numpy as jnp

    from hlo_passes.gmm import megablox

    rng = np.random.default_rng(7)
    e, m, k, n = 8, 1024, 512, 1024
    gs = group_sizes(e, m - 100)
    a = jnp.asarray(rng.standard_normal((m, k), np.float32), jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal((e, k, n), np.float32) / np.sqrt(k), jnp.bfloat16)
    spec = _spec("gmm", e, m, k, n)
    out = {}
    for name, fn in (("xla", _xla("gmm")), ("project", megablox._program(spec, False)),
                     ("megablox 512x512x1024", megablox._program(spec, False, (512, 512, 1024)))):
        import jax

        got = np.asarray(jax.jit(fn)(a, b, jnp.asarray(gs)), np.float32)
        ref = np.asarray(_reference("gmm", a, b, jnp.asarray(gs)), np.float32)
        out[name] = {"err_inside": _error(got, ref, m - 100), "outside_all_zero": bool((got[m - 100:] == 0).all())}
    return out


# ---- expert FFN ------------------------------------------------------------------------------
def _chain(x, w, wo, g):
    import jax

    h = jax.lax.ragged_dot(x, w, g)
    f = wo.shape[1]
    return jax.lax.ragged_dot(jax.nn.silu(h[:, :f]) * h[:, f:], wo, g)


def _chain_f32(x, w, wo, g):
    import jax
    import jax.numpy as jnp

    x, w, wo = (v.astype(jnp.float32) for v in (x, w, wo))
    hp = jax.lax.Precision.HIGHEST
    h = jax.lax.ragged_dot(x, w, g, precision=hp)
    f = wo.shape[1]
    return jax.lax.ragged_dot(jax.nn.silu(h[:, :f]) * h[:, f:], wo, g, precision=hp)


def ffn_problem(label: str, e: int, m: int, d: int, f: int, search: bool, rng, used: int | None = None) -> dict:
    import jax
    import jax.numpy as jnp

    from hlo_passes.gmm import ffn_kernel, pallas_ffn

    used = m if used is None else used
    gs = jnp.asarray(group_sizes(e, used))
    x = _normal(rng, (m, d), 1.0)
    w = _normal(rng, (e, d, 2 * f), 1 / np.sqrt(d))
    wo = _normal(rng, (e, f, d), 1 / np.sqrt(f))
    fspec = ffn_kernel.FfnSpec("gate_first", (m, d), (e, d, 2 * f), (e, f, d), (e,), "bf16", "bf16", "s32")
    fns = {"xla chain": _chain}
    blocks = [None] + (FFN_BLOCKS[1:] if search else [])
    for bl in blocks:
        tm, bf = bl or (None, None)
        if bf is not None and f % bf:
            continue
        name = "fused" if bl is None else f"fused {tm}x{bf}"
        fns[name] = (lambda tm, bf: lambda x, w, wo, g: pallas_ffn.moe_ffn(x, w, wo, g, tm=tm, bf=bf))(tm, bf)
    compiled = compile_all(fns, (x, w, wo, gs))
    ref = jax.jit(_chain_f32)(x, w, wo, gs)
    flops = 6 * m * d * f
    hbm = 2 * (2 * m * d + 3 * e * d * f)
    auto = pallas_ffn.block_sizes(m, d, f, d, e, "bf16")
    row = {"label": label, "E": e, "m": m, "D": d, "F": f, "groups_end": used, "flops": flops, "hbm_bytes": hbm,
           "blocks": list(auto), "vmem_MiB": pallas_ffn.vmem_bytes(*auto[:1], d, auto[1], d, "bf16") / 2**20,
           "rule": ffn_kernel.tpu_refusal(fspec) or "emits the fused kernel", "results": {}}
    for name, c in compiled.items():
        if isinstance(c, str):
            row["results"][name] = {"error": c}
            continue
        out = np.asarray(c(x, w, wo, gs), np.float32)
        t = timed(c, (x, w, wo, gs), calls=max(CALLS // 2, 3))
        row["results"][name] = {"s": t, "tflops": flops / t / 1e12, "gbs": hbm / t / 1e9,
                                "err": _error(out, ref, used),
                                "outside_all_zero": bool((out[used:] == 0).all()) if used < m else None}
    base = row["results"]["xla chain"].get("s")
    for r in row["results"].values():
        if "s" in r and base:
            r["vs_xla"] = base / r["s"]
    return row


def reapply_verdicts(data: dict) -> dict:
    """``data`` (a saved run) with its verdict columns decided again by the rules as they stand:
    the TPU default GMM (``tpu_tiling.choice``) and the fused FFN's rule (``ffn_kernel.tpu_refusal``).
    The times are the run's own; a default whose kernel the run did not time counts as not measured."""
    from hlo_passes.gmm import ffn_kernel, tpu_tiling

    for row in data["gmm"]:
        choice = tpu_tiling.choice_for(row["mode"], row["E"], row["m"], row["K"], row["N"], "bf16")
        row["default"], row["default_tiling"] = choice.kernel, choice.tiling
        row["default_vs_xla"] = _default_vs_xla(row, choice.kernel)
    for row in data["ffn"]:
        e, m, d, f = row["E"], row["m"], row["D"], row["F"]
        fspec = ffn_kernel.FfnSpec("gate_first", (m, d), (e, d, 2 * f), (e, f, d), (e,), "bf16", "bf16", "s32")
        row["rule"] = ffn_kernel.tpu_refusal(fspec) or "emits the fused kernel"
    data["verdicts_reapplied"] = True
    return data


# ---- report ----------------------------------------------------------------------------------
def _fmt(r: dict) -> str:
    if "error" in r:
        return "refused: " + r["error"][:60]
    return f"{r['s'] * 1e3:.3f} ms, {r['tflops']:.1f} TF/s, {r['gbs']:.0f} GB/s"


def summary(data: dict) -> list[str]:
    """The verdicts: the TPU default GMM against XLA's ragged-dot, the fused FFN where the rule emits it."""
    out = []
    if data["gmm"]:
        worst = min(data["gmm"], key=lambda r: r["default_vs_xla"])
        chosen = [r for r in data["gmm"] if r["default"] == "megablox"]
        where = ", ".join(f"{r['mode']} E{r['E']} m{r['m']} K{r['K']} N{r['N']}: {r['default_vs_xla']:.2f}×"
                          for r in chosen) or "none"
        out.append(f"TPU default GMM against XLA's ragged-dot: worst {worst['default_vs_xla']:.2f}× over "
                   f"{len(data['gmm'])} problems; megablox is the default at {len(chosen)} of them ({where}), "
                   "XLA's ragged-dot stays at the others.")
    emitted = [r for r in data["ffn"] if r["rule"] == "emits the fused kernel" and "vs_xla" in r["results"].get("fused", {})]
    if data["ffn"]:
        slow = [r["label"] for r in emitted if r["results"]["fused"]["vs_xla"] < 1.0]
        out.append(f"Fused FFN: the rule emits it at {len(emitted)} of {len(data['ffn'])} shapes"
                   + (f", fused/chain {min(r['results']['fused']['vs_xla'] for r in emitted):.2f}×–"
                      f"{max(r['results']['fused']['vs_xla'] for r in emitted):.2f}× there" if emitted else "")
                   + (f"; slower than the chain at {', '.join(slow)}" if slow else "")
                   + "; elsewhere it holds back (the reason in the last column) and XLA's chain stays.")
    return out


def markdown(data: dict) -> str:
    env = data["env"]
    lines = ["## TPU kernels (benchmarks/tpu_kernels.py)", "",
             f"Measured {env['date']} on {env['device']} (one chip), jax {env['jax']}, jaxlib {env['jaxlib']}, "
             f"libtpu {env['libtpu']}; an 8192³ bf16 matmul ran at {data['matmul_tflops']:.1f} TF/s (v5e's peak "
             f"{PEAK_TFLOPS:.0f} TF/s bf16, HBM {PEAK_GBS:.0f} GB/s). bf16 operands, f32 accumulation, top-2 uneven "
             "groups summing to m; median of loops of back-to-back calls, compile excluded. GB/s: the least bytes "
             "the problem moves (operands and result once) per second. err: max |error| / RMS of an f32 reference "
             "on the rows inside the groups."
             + (" The columns TPU default, default vs XLA and rule on TPU are the rules' verdicts as they "
                "stand now, re-applied to this run's times (`--verdicts`)." if data.get("verdicts_reapplied") else ""),
             "",
             "### Grouped matmul (up projection [m, D] x [E, D, 2F]; tgmm: its weight gradient)", "",
             "| mode | E | m | K | N | XLA ragged-dot | megablox, project's tiling | megablox, table's tiling | "
             "TPU default | default vs XLA | fastest kernel here |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in data["gmm"]:
        res = row["results"]
        table = res.get("table")
        proj = res["project"]
        lines.append(
            f"| {row['mode']} | {row['E']} | {row['m']} | {row['K']} | {row['N']} | {_fmt(res['xla'])} | "
            f"{_fmt(proj)} ({proj.get('vs_xla', 0):.2f}×) | "
            + (f"{_fmt(table)} ({table.get('vs_xla', 0):.2f}×) {tuple(row['default_tiling'])}" if table else "—")
            + f" | {row['default']} | {row['default_vs_xla']:.2f}× | {row['best']} "
              f"({res[row['best']].get('vs_xla', 0):.2f}×) |")
    if data.get("gmm_outside"):
        lines += ["", "Rows past the groups (E 8, m 1024, groups ending at 924): "
                  + "; ".join(f"{k}: err {v['err_inside']:.4f}, rows past all zero: {v['outside_all_zero']}"
                              for k, v in data["gmm_outside"].items()) + "."]
    lines += ["", "### Expert FFN (GMM1 -> silu·up -> GMM2)", "",
              "| shape | E | m | D | F | XLA chain | fused kernel (blocks tm×bf, VMEM) | fused vs chain | "
              f"chain % of {data['matmul_tflops']:.0f} TF/s | err chain / fused | rule on TPU |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in data["ffn"]:
        res = row["results"]
        chain, fused = res["xla chain"], res.get("fused", {"error": "not run"})
        vs = f"{fused['vs_xla']:.2f}×" if "vs_xla" in fused else "—"
        pct = f"{chain['tflops'] / data['matmul_tflops'] * 100:.0f} %" if "tflops" in chain else "—"
        errs = f"{chain.get('err', float('nan')):.4f} / {fused.get('err', float('nan')):.4f}"
        extra = "".join(f"; {k}: {v['vs_xla']:.2f}×" for k, v in res.items()
                        if k.startswith("fused ") and "vs_xla" in v)
        lines.append(f"| {row['label']} | {row['E']} | {row['m']} | {row['D']} | {row['F']} | {_fmt(chain)} | "
                     f"{_fmt(fused)} ({row['blocks'][0]}×{row['blocks'][1]}, {row['vmem_MiB']:.0f} MiB){extra} | {vs} | "
                     f"{pct} | {errs} | {row['rule']} |")
    lines += ["", *summary(data)]
    if data.get("skipped"):
        lines += ["", "Not measured in this run (the time budget ran out, or the problem failed): "
                  + "; ".join(" ".join(str(v) for v in s) for s in data["skipped"]) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    ap.add_argument("--search", action="store_true", help="try candidate tilings / block sizes")
    ap.add_argument("--quick", action="store_true", help="a few shapes only")
    ap.add_argument("--budget-s", type=float, default=240.0, help="stop starting new problems after this")
    ap.add_argument("--skip-gmm", action="store_true")
    ap.add_argument("--skip-ffn", action="store_true")
    ap.add_argument("--gmm-first", action="store_true", help="the GMMs before the fused FFN (default: FFN first)")
    ap.add_argument("--calls", type=int, default=10, help="back-to-back calls per timed loop")
    ap.add_argument("--loops", type=int, default=5, help="timed loops (the median is taken)")
    ap.add_argument("--verdicts", type=Path, default=None, metavar="JSON",
                    help="no chip: re-apply the rules as they stand now (the TPU default GMM, the fused FFN's "
                         "gate) to a saved run's tpu_kernels.json, and write its table again to --out")
    args = ap.parse_args(argv)
    if args.verdicts is not None:
        data = reapply_verdicts(json.loads(args.verdicts.read_text()))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "tpu_kernels.json").write_text(json.dumps(data, indent=1))
        (args.out / "tpu_kernels.md").write_text(markdown(data))
        print("\n".join(summary(data)))
        return 0
    import jax

    global CALLS, LOOPS
    CALLS, LOOPS = (5, 3) if args.search else (args.calls, args.loops)

    if jax.devices()[0].platform != "tpu":
        print("tpu_kernels: needs a TPU (jax.devices() has none)", file=sys.stderr)
        return 2
    start = time.monotonic()
    rng = np.random.default_rng(0)
    data: dict = {"env": versions(), "matmul_tflops": matmul_peak(), "gmm": [], "ffn": [], "skipped": []}
    print(json.dumps(data["env"]), f"matmul {data['matmul_tflops']:.1f} TF/s", flush=True)
    shapes = SHAPES[::5] if args.quick else SHAPES
    args.out.mkdir(parents=True, exist_ok=True)

    def over() -> bool:
        return time.monotonic() - start > args.budget_s

    def save() -> None:
        (args.out / "tpu_kernels.json").write_text(json.dumps(data, indent=1))
        (args.out / "tpu_kernels.md").write_text(markdown(data))

    def measure(kind: str, key: list, label: str, problem: Callable[[], dict]) -> None:
        """One problem measured into ``data[kind]``, or its failure recorded under ``key``."""
        try:
            row = problem()
        except Exception as err:  # noqa: BLE001 - recorded, the next problem runs
            data["skipped"].append([*key, f"{type(err).__name__}: {err}"[:300]])
            print("FAILED", data["skipped"][-1], flush=True)
            return
        data[kind].append(row)
        print(f"{label}: " + ", ".join(f"{k} {v['vs_xla']:.2f}x" if "vs_xla" in v else f"{k} {v.get('error', '')[:60]}"
                                       for k, v in row["results"].items()), flush=True)
        save()

    def run_gmm() -> None:
        if not args.skip_gmm:
            for e, m, d, f in shapes:
                for mode in ("gmm", "tgmm"):
                    if over():
                        data["skipped"].append(["gmm", mode, e, m, d, f])
                        continue
                    measure("gmm", ["gmm", mode, e, m, d, f], f"{mode} E{e} m{m} D{d} F{f}",
                            lambda: gmm_problem(mode, e, m, d, f, args.search, rng))
            if not over():
                try:
                    data["gmm_outside"] = gmm_outside_rows()
                except Exception as err:  # noqa: BLE001 - recorded
                    data["skipped"].append(["gmm_outside", f"{type(err).__name__}: {err}"[:300]])

    def run_ffn() -> None:
        if not args.skip_ffn:
            # The model-sized layers first (the targets), then the benchmark shapes.
            ffn_shapes = ([] if args.quick else [(f"{name}", e, m, d, f) for name, e, m, d, f in MODEL_FFN]) + \
                [(f"E{e} m{m} D{d} F{f}", e, m, d, f) for e, m, d, f in shapes]
            for i, (label, e, m, d, f) in enumerate(ffn_shapes):
                if over():
                    data["skipped"].append(["ffn", label, e, m, d, f])
                    continue
                # One shape's groups end before m: the rows past them are checked.
                measure("ffn", ["ffn", label], f"ffn {label}",
                        lambda: ffn_problem(label, e, m, d, f, args.search, rng,
                                            used=m - 100 if (e, m, d, f) == (8, 4096, 1024, 512) else None))

    for section in ((run_gmm, run_ffn) if args.gmm_first else (run_ffn, run_gmm)):
        section()
    save()
    print(markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
