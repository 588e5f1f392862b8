"""The rewrite's effect on whole MoE programs: collectives, copies, memory and step time.

    python benchmarks/program_effect.py [--quick] [--runs N] [--out DIR]

Issue 8, part 3.  On 8 CPU devices, MoE layers shaped like DeepSeek-v3 and
Qwen3-MoE (scaled down to fit a small machine; the table says how), with
one- and two-stage FSDP (``examples/moe.py`` ``mesh1`` / ``mesh2``), as a
forward pass and as a full training step (forward, backward, optax adam
update).  For each program:

1. lower with ``lowering_platforms=("tpu",)`` so that the grouped matmuls stay
   ``chlo.ragged_dot``;
2. rewrite a copy with both rules (``moe-gather-fusion``, ``moe-gradient-fusion``);
3. lower the ragged dots of *both* texts to the CPU grouped-matmul kernel
   (``hlo_passes.lowering.lower_gmms(module, "cpu-ffi")``), so the two programs
   differ only by the rewrite;
4. compile both for the 8 devices, check that they compute the same numbers,
   and measure from the optimized HLO and XLA's memory analysis;
5. time both, interleaved (original, rewritten, then the other order), after a
   warm-up; medians.

Where the CPU kernel or its lowering is missing (``--gmm dense`` forces it),
the programs are lowered for CPU instead, where jax decomposes ``ragged_dot``
into a masked dense dot (E times the work); the fragment says which was used.

Writes ``DIR/program_effect.md`` (the fragment ``benchmarks/run_all.py``
assembles), ``DIR/program_effect.json`` (every figure) and, with matplotlib,
``DIR/program_effect.png``.  DIR defaults to ``benchmarks/results``.
"""
from __future__ import annotations

import os
import sys

# The device count is fixed when jax initialises its backend: it must be set
# before the first jax import, here and in every process that runs this.
_flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in _flags:
    os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import hlo_passes  # noqa: E402
from examples import moe  # noqa: E402
from examples.moe import MoEConfig, ProgramSpec  # noqa: E402
from hlo_passes import runtime  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402

from benchmarks import _program_measures as measures  # noqa: E402

RULES = ("moe-gather-fusion", "moe-gradient-fusion")
DEVICES = 8
MESHES = ("mesh1", "mesh2")
MODES = ("forward", "train")
DEFAULT_OUT = REPO / "benchmarks" / "results"


@dataclass(frozen=True)
class Shape:
    """One model's MoE layer: the real sizes and the ones measured here."""

    key: str
    model: str
    real: dict[str, int]  # experts, top_k, embed, mlp
    cfg: MoEConfig  # what runs here
    note: str = ""

    @property
    def real_ratio(self) -> float:
        return self.real["mlp"] / self.real["embed"]

    @property
    def ratio(self) -> float:
        return self.cfg.mlp / self.cfg.embed


# DeepSeek-v3: 256 routed experts, top-8, embed 7168, moe mlp 2048 (+ 1
# shared expert, which examples/moe.py does not model).  Qwen3-MoE 30B-A3B:
# 128 experts, top-8, embed 2048, mlp 768 (235B-A22B: 4096 / 1536, the same
# ratio).  Expert counts and top-k are kept; embed and mlp are scaled down by
# the same factor as far as divisibility allows (embed must split over 8
# devices); tokens give every expert 8 rows on average.  That is far fewer
# than a real training batch gives (hundreds), so moving the weights weighs
# more in a step here than at scale: the time ratios lean towards the
# rewrite's side; the fragment says so.  Larger sizes do not fit the ~10
# minutes a run may take on 2 shared cores.
FULL_SHAPES: tuple[Shape, ...] = (
    Shape(
        "deepseek_v3", "DeepSeek-v3",
        dict(experts=256, top_k=8, embed=7168, mlp=2048),
        MoEConfig(experts=256, top_k=8, embed=128, mlp=36, tokens=256, empty_groups=False),
        note="no shared expert",
    ),
    Shape(
        "qwen3_moe", "Qwen3-MoE (30B-A3B)",
        dict(experts=128, top_k=8, embed=2048, mlp=768),
        MoEConfig(experts=128, top_k=8, embed=128, mlp=48, tokens=128, empty_groups=False),
        note="235B-A22B (4096, 1536) has the same ratio",
    ),
)

# --quick: the smallest programs with every feature (router, top-k, both
# meshes, both modes), for a smoke run and the test.
QUICK_SHAPES: tuple[Shape, ...] = (
    Shape(
        "tiny", "tiny (smoke run)",
        dict(experts=8, top_k=2, embed=64, mlp=16),
        MoEConfig(experts=8, top_k=2, embed=64, mlp=16, tokens=32, empty_groups=False),
    ),
)

# Where jax's dense decomposition stands in for the kernel it does E times
# the grouped work; these keep expert count ratio 2:1, top-8 and the
# embed:mlp ratios with E cut to 32 / 16 so a run still fits in minutes.
DENSE_SHAPES: tuple[Shape, ...] = (
    Shape(
        "deepseek_v3", "DeepSeek-v3",
        dict(experts=256, top_k=8, embed=7168, mlp=2048),
        MoEConfig(experts=32, top_k=8, embed=128, mlp=36, tokens=32, empty_groups=False),
        note="no shared expert; experts 256→32 (dense GMM fallback)",
    ),
    Shape(
        "qwen3_moe", "Qwen3-MoE (30B-A3B)",
        dict(experts=128, top_k=8, embed=2048, mlp=768),
        MoEConfig(experts=16, top_k=8, embed=128, mlp=48, tokens=16, empty_groups=False),
        note="235B-A22B (4096, 1536) has the same ratio; experts 128→16 (dense GMM fallback)",
    ),
)


# ---------------------------------------------------------------------------
# Programs


def forward_program(spec: ProgramSpec) -> tuple[Callable, tuple[Any, ...]]:
    """The MaxText-like router layer's forward pass, jitted, with its device arguments."""
    return moe.build(spec)


def train_program(spec: ProgramSpec) -> tuple[Callable, tuple[Any, ...]]:
    """One training step: loss, gradients of every weight, optax adam update."""
    import optax

    mesh = moe.program_mesh(spec)
    forward = moe.program_fn(spec.replace(mode="forward"), mesh)
    optimizer = optax.adam(1e-3)

    def train_step(params, opt_state, x):
        def loss(p):
            out = forward(x, p["router"], p["w"], p["wo"])
            return jnp.mean(jnp.square(out.astype(jnp.float32)))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    x, w_router, w, wo = moe.host_inputs(spec)

    def put(a: np.ndarray, pspec: P) -> jax.Array:
        return jax.device_put(a, NamedSharding(mesh, pspec))

    params = {
        "router": put(w_router, P()),
        "w": put(w, P(None, moe.fsdp_axes(spec.mesh), None)),
        "wo": put(wo, P()),
    }
    return jax.jit(train_step), (params, optimizer.init(params), put(x, P()))


def program_spec(shape: Shape, mesh: str) -> ProgramSpec:
    # concat: the halves are gathered apart and put back together, as models
    # lower today; the router layer routes top-k, sorts and combines.
    return ProgramSpec(variant="concat", mesh=mesh, layer="router", num_devices=DEVICES, cfg=shape.cfg)


# ---------------------------------------------------------------------------
# GMM backends


class GmmPath:
    """How ragged dots become something XLA:CPU runs: the kernel, or jax's CPU decomposition."""

    def __init__(self, requested: str) -> None:
        self.name, self.reason = _choose_gmm(requested)
        self.lower_gmms: Callable[..., Any] | None = None
        if self.name == "cpu-ffi":
            from hlo_passes.lowering import lower_gmms

            self.lower_gmms = lower_gmms

    def lowered_text(self, fn: Callable, args: tuple[Any, ...]) -> str:
        if self.name == "cpu-ffi":
            return fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text()
        return fn.lower(*args).as_text()

    def to_cpu(self, module: hlo_passes.Module) -> tuple[str, int]:
        """Text XLA:CPU compiles, and how many grouped matmuls went to the kernel."""
        if self.lower_gmms is None:
            return module.to_text(), 0
        records = self.lower_gmms(module, "cpu-ffi")
        kept = [str(r) for r in records if not r.lowered]
        if kept:
            # XLA:CPU cannot compile a ragged-dot: a kept one would fail later, less clearly.
            raise RuntimeError(f"lower_gmms(cpu-ffi) kept {len(kept)} ragged-dot(s): {kept}")
        return module.to_text(), _count_replaced(records)

    def describe(self) -> str:
        if self.name == "cpu-ffi":
            return ("lowered for TPU (`chlo.ragged_dot`), ragged dots of both programs lowered to "
                    "the CPU grouped-matmul FFI kernel (`hlo_passes_gmm` / `hlo_passes_tgmm`, "
                    "`lower_gmms(module, \"cpu-ffi\")`)")
        return ("**fallback**: lowered for CPU, where jax decomposes `ragged_dot` into a masked dense "
                f"dot over all experts (E× the grouped work); {self.reason}")


def _choose_gmm(requested: str) -> tuple[str, str]:
    if requested == "dense":
        return "dense", "asked for with --gmm dense"
    try:
        _probe_kernel()
    except Exception as err:  # any failure means: not usable here, say why
        why = f"the CPU kernel path does not work here ({type(err).__name__}: {str(err).splitlines()[0]})"
        if requested == "cpu-ffi":
            raise SystemExit(f"--gmm cpu-ffi: {why}") from err
        return "dense", why
    return "cpu-ffi", ""


def _probe_kernel() -> None:
    """Lower one small ragged dot to the kernel, run it, compare with numpy: the
    benchmark's figures are only worth as much as this path works."""
    import hlo_passes.kernels  # noqa: F401  (registers the FFI targets)
    from hlo_passes.lowering import lower_gmms

    rng = np.random.default_rng(0)
    x = rng.standard_normal((12, 8), dtype=np.float32)
    w = rng.standard_normal((3, 8, 5), dtype=np.float32)
    gs = np.array([5, 0, 7], np.int32)
    fn = jax.jit(jax.lax.ragged_dot)
    module = hlo_passes.parse(fn.trace(x, w, gs).lower(lowering_platforms=("tpu",)).as_text())
    records = lower_gmms(module, "cpu-ffi")
    if sum(r.lowered for r in records) != 1:
        raise RuntimeError(f"lower_gmms did not lower the probe's ragged dot: {[str(r) for r in records]}")
    (got,) = runtime.compile_text(module.to_text(), num_devices=1, cache=False).run(x, w, gs)
    want = np.concatenate([x[:5] @ w[0], x[5:5] @ w[1], x[5:] @ w[2]])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def _count_replaced(records: Sequence[Any]) -> int:
    return sum(1 for r in records if r.lowered)


# ---------------------------------------------------------------------------
# One program, measured


@dataclass
class Measured:
    key: str
    shape: str
    mesh: str
    mode: str
    sites: list[str]
    gmms_to_kernel: tuple[int, int]
    original: dict[str, Any]
    rewritten: dict[str, Any]
    times_ms: tuple[list[float], list[float]]
    max_abs_diff: float

    @property
    def median_ms(self) -> tuple[float, float]:
        return statistics.median(self.times_ms[0]), statistics.median(self.times_ms[1])

    def ratio(self, field: str) -> float | None:
        a, b = self.original[field], self.rewritten[field]
        return b / a if a else None

    @property
    def time_ratio(self) -> float:
        a, b = self.median_ms
        return b / a

    @property
    def pair_ratios(self) -> list[float]:
        """Rewritten / original within each round: both ran under the load of that moment."""
        return [b / a for a, b in zip(*self.times_ms)]

    @property
    def pair_ratio_quartiles(self) -> tuple[float, float, float]:
        q1, q2, q3 = statistics.quantiles(self.pair_ratios, n=4) if len(self.pair_ratios) > 1 \
            else (self.pair_ratios * 3)
        return q1, q2, q3

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["median_ms"] = self.median_ms
        d["time_ratio"] = self.time_ratio
        d["pair_ratio_quartiles"] = self.pair_ratio_quartiles
        return d


def measure(shape: Shape, mesh: str, mode: str, gmm: GmmPath, runs: int, warmup: int) -> Measured:
    spec = program_spec(shape, mesh)
    fn, args = (forward_program if mode == "forward" else train_program)(spec)
    text = gmm.lowered_text(fn, args)
    original = hlo_passes.parse(text, dialect="stablehlo")
    result = run_passes(original, RULES)
    wanted = {"moe-gather-fusion"} | ({"moe-gradient-fusion"} if mode == "train" else set())
    found = {s.rule for s in result.sites if s.rewritten}
    if found != wanted:
        raise RuntimeError(
            f"{shape.key} {mesh} {mode}: expected sites of {sorted(wanted)}, got {sorted(found)}; "
            f"near misses: {[str(m) for m in result.near_misses]}"
        )
    text0, n0 = gmm.to_cpu(original)
    text1, n1 = gmm.to_cpu(result.module)
    exe0 = runtime.compile_text(text0, num_devices=DEVICES, cache=False)
    exe1 = runtime.compile_text(text1, num_devices=DEVICES, cache=False)

    flat = jax.tree.leaves(args)
    placed0, placed1 = exe0.place(*flat), exe1.place(*flat)
    diff = _max_abs_diff(exe0.run(*placed0), exe1.run(*placed1))
    times = _interleaved([lambda: exe0.run(*placed0), lambda: exe1.run(*placed1)], runs, warmup)
    return Measured(
        key=f"{shape.key}/{mesh}/{mode}",
        shape=shape.key,
        mesh=mesh,
        mode=mode,
        sites=[f"{s.rule}:{s.form}" for s in result.sites],
        gmms_to_kernel=(n0, n1),
        original=measures.program_figures(exe0),
        rewritten=measures.program_figures(exe1),
        times_ms=(times[0], times[1]),
        max_abs_diff=diff,
    )


def _max_abs_diff(a: Sequence[jax.Array], b: Sequence[jax.Array]) -> float:
    """Largest difference between the two programs' results; refuses to go on if they disagree."""
    worst = 0.0
    for x, y in zip(a, b):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        if x.shape != y.shape:
            raise RuntimeError(f"results differ in shape: {x.shape} vs {y.shape}")
        if not np.allclose(y, x, rtol=1e-4, atol=1e-4):
            raise RuntimeError(f"the rewritten program's results differ: max |diff| {np.max(np.abs(x - y))}")
        if x.size:
            worst = max(worst, float(np.max(np.abs(x - y))))
    return worst


def _interleaved(calls: Sequence[Callable[[], Any]], runs: int, warmup: int) -> list[list[float]]:
    """Milliseconds per call, the calls alternating (and their order flipping) each round,
    so that both programs see the machine's load of the moment alike."""
    for _ in range(warmup):
        for call in calls:
            jax.block_until_ready(call())
    times: list[list[float]] = [[] for _ in calls]
    for r in range(runs):
        order = range(len(calls)) if r % 2 == 0 else reversed(range(len(calls)))
        for i in order:
            gc.collect()
            t0 = time.perf_counter()
            jax.block_until_ready(calls[i]())
            times[i].append((time.perf_counter() - t0) * 1e3)
    return times


# ---------------------------------------------------------------------------
# Report


def machine_info() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": model or platform.processor() or platform.machine(),
        "cores": cores,
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "devices": f"{jax.device_count()} × {jax.devices()[0].platform} (XLA_FLAGS={os.environ.get('XLA_FLAGS', '')})",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_at_start": _load(),
    }


def _load() -> float | None:
    """1-minute load average: on a shared machine it says how much to trust the times."""
    return round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None


def _mib(n: float) -> str:
    return f"{n / 2**20:.2f}"


def _ratio(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _pair(a: Any, b: Any) -> str:
    return f"{a} → {b}"


def markdown(rows: list[Measured], shapes: Sequence[Shape], gmm: GmmPath, info: dict[str, Any],
             command: str, runs: int, png: str | None) -> str:
    out = [
        "## Program effect: both rules on whole MoE programs (8 CPU devices)",
        "",
        f"`{command}` — {info['date']}. Original and rewritten programs are compiled from the same "
        "lowering; the only difference is `moe-gather-fusion` + `moe-gradient-fusion`. "
        f"GMM: {gmm.describe()}.",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"Python {info['python']}, jax {info['jax']}, jaxlib {info['jaxlib']}; {info['devices']}; "
        f"load average (1 min) {info['load_at_start']} at the start, {info.get('load_at_end')} at the end "
        f"for {info['cores']} cores.",
        "",
        "### Configurations",
        "",
        "| shape | real: experts, top-k, embed, mlp (mlp/embed) | here: experts, top-k, embed, mlp (mlp/embed) "
        "| tokens (rows per expert) | kept / changed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in shapes:
        r, c = s.real, s.cfg
        changes = ["experts and top-k kept" if (c.experts, c.top_k) == (r["experts"], r["top_k"])
                   else "experts/top-k scaled", f"mlp/embed {s.ratio:.3f} vs {s.real_ratio:.3f}"]
        if s.note:
            changes.append(s.note)
        out.append(
            f"| {s.model} | {r['experts']}, {r['top_k']}, {r['embed']}, {r['mlp']} ({s.real_ratio:.3f}) "
            f"| {c.experts}, {c.top_k}, {c.embed}, {c.mlp} ({s.ratio:.3f}) "
            f"| {c.tokens} ({c.tokens * c.top_k / c.experts:g}) | {'; '.join(changes)} |"
        )
    out += [
        "",
        "Every program is `examples/moe.py`'s router layer (`variant=\"concat\"`: top-k routing, tokens sorted "
        "by expert, gate/up GMM on the weight `w[E, D, 2F]` whose halves are gathered apart and concatenated, "
        "down GMM, unsort and combine), f32, `w` FSDP-sharded on `D` over 8 devices: `mesh1` = one axis of 8 "
        "(one all-gather stage), `mesh2` = 2 × 4 (two stages). `forward` is the layer; `train` is one step: "
        "loss, gradients of all weights, optax adam update. Tokens are replicated (the example shards only "
        "the weights), so every device does the whole batch's expert work. A real training batch gives each "
        "expert hundreds of rows; the few rows here make moving the weights a larger part of a step than "
        "at scale, so whatever the rewrite changes in step time weighs more here than it would there.",
        "",
        "### Collectives and copies (optimized HLO, per device)",
        "",
        "All-gather bytes are what a device receives; reduce-scatter and all-reduce bytes are the operand "
        "size. Data moved without computing, as bytes written by executed instructions: *split/join* = "
        "`slice`, `concatenate`, `pad` (alone or fused only with layout ops), *relayout* = `copy` / "
        "`transpose` alone (layout assignment's).",
        "",
        "| program | sites | all-gathers | all-gather MiB | reduce-scatters | reduce-scatter MiB | all-reduces "
        "| split/join MiB | relayout MiB | moved MiB (ratio) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in rows:
        o, n = m.original, m.rewritten
        out.append(
            f"| {m.key} | {len(m.sites)} | {_pair(o['all_gather_count'], n['all_gather_count'])} "
            f"| {_pair(_mib(o['all_gather_bytes']), _mib(n['all_gather_bytes']))} "
            f"| {_pair(o['reduce_scatter_count'], n['reduce_scatter_count'])} "
            f"| {_pair(_mib(o['reduce_scatter_bytes']), _mib(n['reduce_scatter_bytes']))} "
            f"| {_pair(o['all_reduce_count'], n['all_reduce_count'])} "
            f"| {_pair(_mib(o['split_join_bytes']), _mib(n['split_join_bytes']))} "
            f"| {_pair(_mib(o['relayout_bytes']), _mib(n['relayout_bytes']))} "
            f"| {_pair(_mib(o['copy_bytes']), _mib(n['copy_bytes']))} ({_ratio(m.ratio('copy_bytes'))}) |"
        )
    out += [
        "",
        "### Device memory (XLA's compiled memory analysis, per device)",
        "",
        "Peak = arguments + outputs + temporaries − aliased. " + _code_size_note(rows),
        "",
        "| program | temp MiB | argument MiB | output MiB | peak MiB | peak ratio | temp ratio |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in rows:
        o, n = m.original, m.rewritten
        out.append(
            f"| {m.key} | {_pair(_mib(o['temp_bytes']), _mib(n['temp_bytes']))} "
            f"| {_pair(_mib(o['argument_bytes']), _mib(n['argument_bytes']))} "
            f"| {_pair(_mib(o['output_bytes']), _mib(n['output_bytes']))} "
            f"| {_pair(_mib(o['peak_bytes']), _mib(n['peak_bytes']))} "
            f"| {_ratio(m.ratio('peak_bytes'))} | {_ratio(m.ratio('temp_bytes'))} |"
        )
    out += [
        "",
        f"### Step time (median of {runs} interleaved runs each, after warm-up)",
        "",
        "Ratio of medians, and the median (with quartiles) of the per-round ratios: each round runs "
        "both programs back to back, so a round's ratio is free of the load drifting between rounds.",
        "",
        "| program | original ms | rewritten ms | ratio of medians | per-round ratio: median (q1–q3) | results max abs diff |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for m in rows:
        a, b = m.median_ms
        q1, q2, q3 = m.pair_ratio_quartiles
        out.append(f"| {m.key} | {a:.2f} | {b:.2f} | **{m.time_ratio:.3f}** | {q2:.3f} ({q1:.3f}–{q3:.3f}) "
                   f"| {m.max_abs_diff:.1e} |")
    out += ["", "### Summary", ""] + summary(rows) + [
        "",
        "Where the step time goes was not profiled. What differs between the two optimized programs, as read "
        "in `deepseek_v3/mesh1` (forward and train): the two slice fusions before the gathers become one "
        "relayout copy of the local shard, two all-gathers (per stage) become one, the concatenate fusion "
        "after them becomes one relayout copy of the gathered weight into the row-major layout the kernel "
        "call pins (the same bytes); in training, in addition, dW's two slices and two pads become one "
        "relayout copy of dW before a single reduce-scatter (per stage).",
    ]
    if png:
        out += ["", f"![rewritten / original per program]({png})"]
    return "\n".join(out) + "\n"


def _code_size_note(rows: list[Measured]) -> str:
    if all(m.original["code_bytes"] == m.rewritten["code_bytes"] == 0 for m in rows):
        return "XLA:CPU reports 0 generated-code bytes for these executables, so code size is not compared."
    ratios = [m.ratio("code_bytes") for m in rows if m.ratio("code_bytes") is not None]
    return (f"Generated code size, rewritten / original: {min(ratios):.3f}–{max(ratios):.3f}."
            if ratios else "Generated code size: reported for the rewritten programs only.")


def summary(rows: list[Measured]) -> list[str]:
    """The tables' bottom lines, computed from them."""
    def total(side: str, field: str) -> int:
        return sum(getattr(m, side)[field] for m in rows)

    def halved(field: str, subset: list[Measured]) -> int:
        return sum(1 for m in subset if m.rewritten[field] * 2 == m.original[field] > 0)

    train = [m for m in rows if m.mode == "train"]
    times = [m.time_ratio for m in rows]
    pairs = [m.pair_ratio_quartiles[1] for m in rows]
    peaks = [m.ratio("peak_bytes") or 1.0 for m in rows]
    same_bytes = all(m.original[f] == m.rewritten[f] for m in rows
                     for f in ("all_gather_bytes", "reduce_scatter_bytes"))
    lines = [
        f"- All-gathers halved in {halved('all_gather_count', rows)} of {len(rows)} programs, reduce-scatters "
        f"in {halved('reduce_scatter_count', train)} of {len(train)} training steps; the bytes they move are "
        + ("unchanged (the same data in half as many collectives)." if same_bytes else "changed (see the table)."),
        f"- Split/join bytes (slices before the gathers, the concatenate after, the pads of dW): "
        f"{_mib(total('original', 'split_join_bytes'))} → {_mib(total('rewritten', 'split_join_bytes'))} MiB "
        f"summed over the programs; relayout copies {_mib(total('original', 'relayout_bytes'))} → "
        f"{_mib(total('rewritten', 'relayout_bytes'))} MiB; all data moved without computing "
        f"{_ratio(total('rewritten', 'copy_bytes') / max(total('original', 'copy_bytes'), 1))}× the original.",
        f"- Peak device memory: rewritten / original {min(peaks):.3f}–{max(peaks):.3f}.",
        f"- Step time, rewritten / original: ratio of medians {statistics.median(times):.3f} "
        f"(median over programs; range {min(times):.3f}–{max(times):.3f}), per-round ratio "
        f"{statistics.median(pairs):.3f} (range {min(pairs):.3f}–{max(pairs):.3f}).",
    ]
    unclear = [m.key for m in rows if m.pair_ratio_quartiles[0] <= 1.0 <= m.pair_ratio_quartiles[2]]
    if unclear:
        lines.append(f"- Per-round quartiles spanning 1 (no time difference shown at this load): {', '.join(unclear)}.")
    return lines


def plot(rows: list[Measured], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    series = {
        "all-gathers": [m.ratio("all_gather_count") or 0 for m in rows],
        "bytes moved": [m.ratio("copy_bytes") or 0 for m in rows],
        "peak memory": [m.ratio("peak_bytes") or 0 for m in rows],
        "step time (per-round, q1–q3)": [m.pair_ratio_quartiles[1] for m in rows],
    }
    spread = np.array([[m.pair_ratio_quartiles[1] - m.pair_ratio_quartiles[0],
                        m.pair_ratio_quartiles[2] - m.pair_ratio_quartiles[1]] for m in rows]).T
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(rows)), 4))
    width = 0.8 / len(series)
    xs = np.arange(len(rows))
    for i, (label, values) in enumerate(series.items()):
        timed = label.startswith("step time")
        ax.bar(xs + (i - (len(series) - 1) / 2) * width, values, width, label=label,
               yerr=spread if timed else None, capsize=2 if timed else 0)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_xticklabels([m.key.replace("/", "\n") for m in rows], fontsize=8)
    ax.set_ylabel("rewritten / original")
    ax.set_title("moe-gather-fusion + moe-gradient-fusion on 8 CPU devices")
    # Room above the bars for a one-row legend, which would otherwise cover them.
    top = max(1.0, *(v for values in series.values() for v in values), *(spread[1] + series[
        "step time (per-round, q1–q3)"]))
    ax.set_ylim(0, top * 1.25)
    ax.legend(fontsize=8, ncol=len(series), loc="upper center")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny programs, 3 runs: a smoke run")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per program (default 30; --quick 3)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the fragment, JSON and PNG")
    parser.add_argument("--gmm", choices=("auto", "cpu-ffi", "dense"), default="auto",
                        help="grouped matmul on CPU: the FFI kernel, jax's dense decomposition, or auto")
    parser.add_argument("--only", default=None, help="run only programs whose key contains this")
    args = parser.parse_args(argv)
    if jax.device_count() < DEVICES:
        raise SystemExit(f"{DEVICES} devices needed, {jax.device_count()} present: set XLA_FLAGS="
                         f"--xla_force_host_platform_device_count={DEVICES} before jax starts")
    runs = args.runs if args.runs is not None else (3 if args.quick else 30)
    gmm = GmmPath(args.gmm)
    if args.quick:
        shapes = QUICK_SHAPES
    else:
        shapes = FULL_SHAPES if gmm.name == "cpu-ffi" else DENSE_SHAPES
    info = machine_info()
    command = "python benchmarks/program_effect.py" + (" --quick" if args.quick else "") + \
        (f" --runs {runs}" if args.runs is not None else "") + (f" --gmm {args.gmm}" if args.gmm != "auto" else "") + \
        (f" --only {args.only}" if args.only else "")
    print(f"GMM path: {gmm.name} {gmm.reason}", flush=True)

    rows: list[Measured] = []
    for shape in shapes:
        for mesh in MESHES:
            for mode in MODES:
                key = f"{shape.key}/{mesh}/{mode}"
                if args.only and args.only not in key:
                    continue
                t0 = time.perf_counter()
                m = measure(shape, mesh, mode, gmm, runs, args.warmup)
                rows.append(m)
                a, b = m.median_ms
                print(f"{key:28} all-gathers {m.original['all_gather_count']}→{m.rewritten['all_gather_count']}"
                      f"  peak {m.ratio('peak_bytes'):.3f}  time {a:8.2f} → {b:8.2f} ms ({m.time_ratio:.3f})"
                      f"  [{time.perf_counter() - t0:.0f}s]", flush=True)

    info["load_at_end"] = _load()
    args.out.mkdir(parents=True, exist_ok=True)
    png_name = "program_effect.png"
    has_png = plot(rows, args.out / png_name)
    (args.out / "program_effect.md").write_text(
        markdown(rows, shapes, gmm, info, command, runs, png_name if has_png else None))
    (args.out / "program_effect.json").write_text(json.dumps({
        "command": command,
        "machine": info,
        "gmm": {"path": gmm.name, "reason": gmm.reason},
        "runs": runs,
        "shapes": [{"key": s.key, "model": s.model, "real": s.real, "cfg": dataclasses.asdict(s.cfg),
                    "note": s.note} for s in shapes],
        "programs": [m.to_json() for m in rows],
    }, indent=1))
    print(f"wrote {args.out / 'program_effect.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
