"""Does gathering two gate/up weights once pay?  MOE003 on whole programs.

    python benchmarks/pair_effect.py [--quick] [--runs N] [--out DIR] [--target rule|fused]

Issue 17.  The programs are ``examples/moe_pair.py``'s, in each of its three
forms (``explicit``: two all-gathers and two GMMs inside the shard_map;
``implicit``: two operands whose constraints drop the FSDP axes, two GMMs;
``concat_inside``: TransformerEngine's concatenate of the two gathered weights
inside), at DeepSeek-v3's and Qwen3-MoE's embed:mlp ratios (sizes as in
``program_effect.py``), one- and two-stage FSDP, as a forward pass and as a
training step (loss, gradients of ``wi_0``, ``wi_1``, ``wo``, optax adam).

``--target rule`` (the default) compares each program with what
``moe-pair-gather-fusion`` (and, in a training step, ``moe-pair-gradient-fusion``
where it exists) makes of it; ``--target fused`` with the hand-fused program
``examples/moe_pair.py`` writes (``variant="fused"``: the shards concatenated
along F, one gather, one GMM), which is what the rule aims at.  Both sides come
from the same lowering path (TPU lowering, ragged dots to the CPU kernel) and are
measured as ``program_effect.py`` measures: collectives, copies, memory, step time
interleaved, results compared.

Writes ``DIR/pair_effect.md`` (a fragment ``run_all.py`` assembles) and
``DIR/pair_effect.json``.
"""
from __future__ import annotations

import os
import sys

_flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in _flags:
    os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import jax  # noqa: E402

import hlo_passes  # noqa: E402
from examples import moe_pair  # noqa: E402
from examples.moe_pair import PAIR_FORMS, PairSpec  # noqa: E402
from hlo_passes import runtime  # noqa: E402
from hlo_passes.passes import available_passes, run_passes  # noqa: E402

from benchmarks import _program_measures as measures  # noqa: E402
from benchmarks.program_effect import (DEFAULT_OUT, DEVICES, FULL_SHAPES, MESHES, MODES, QUICK_SHAPES,  # noqa: E402
                                       GmmPath, Measured, Shape, _interleaved, _load, _max_abs_diff, _mib,
                                       _pair, _ratio, machine_info)

FORWARD_RULE = "moe-pair-gather-fusion"
GRADIENT_RULE = "moe-pair-gradient-fusion"


def pair_spec(shape: Shape, mesh: str, form: str) -> PairSpec:
    # The pair layer has no router: its tokens are the GMM's rows, so it gets the rows the
    # router layer's top-k expansion gives program_effect's programs (8 per expert).
    cfg = dataclasses.replace(shape.cfg, tokens=shape.cfg.tokens * shape.cfg.top_k)
    return PairSpec(mesh=mesh, form=form, cfg=cfg)


def program(spec: PairSpec, mode: str) -> tuple[Callable, tuple[Any, ...]]:
    """The forward layer, or one training step of it, jitted, with its device arguments."""
    if mode == "forward":
        return moe_pair.build(spec)
    step, params, opt_state, x, gs = moe_pair.train_program(spec)
    return jax.jit(step), (params, opt_state, x, gs)


def rules_for(mode: str) -> list[str]:
    known = set(available_passes())
    if FORWARD_RULE not in known:
        raise SystemExit(f"{FORWARD_RULE} is not a registered pass here: run with --target fused")
    return [FORWARD_RULE] + ([GRADIENT_RULE] if mode == "train" and GRADIENT_RULE in known else [])


def measure(shape: Shape, mesh: str, form: str, mode: str, target: str, gmm: GmmPath, runs: int,
            warmup: int) -> Measured:
    spec = pair_spec(shape, mesh, form)
    fn, args = program(spec, mode)
    original = hlo_passes.parse(gmm.lowered_text(fn, args), dialect="stablehlo")
    if target == "rule":
        result = run_passes(original, rules_for(mode))
        rewritten, sites = result.module, [f"{s.rule}:{s.form}" for s in result.sites if s.rewritten]
        if not any(s.startswith(FORWARD_RULE) for s in sites):
            raise RuntimeError(f"{spec.name} {mode}: {FORWARD_RULE} rewrote nothing; near misses: "
                               f"{[str(m) for m in result.near_misses]}")
    else:
        fused_fn, fused_args = program(spec.replace(variant="fused"), mode)
        rewritten, sites = hlo_passes.parse(gmm.lowered_text(fused_fn, fused_args), dialect="stablehlo"), []
    text0, n0 = gmm.to_cpu(original)
    text1, n1 = gmm.to_cpu(rewritten)
    exe0 = runtime.compile_text(text0, num_devices=DEVICES, cache=False)
    exe1 = runtime.compile_text(text1, num_devices=DEVICES, cache=False)
    flat = jax.tree.leaves(args)
    placed0, placed1 = exe0.place(*flat), exe1.place(*flat)
    diff = _max_abs_diff(exe0.run(*placed0), exe1.run(*placed1))
    times = _interleaved([lambda: exe0.run(*placed0), lambda: exe1.run(*placed1)], runs, warmup)
    return Measured(
        key=f"{shape.key}/{mesh}/{form}/{mode}", shape=shape.key, mesh=mesh, mode=mode, sites=sites,
        gmms_to_kernel=(n0, n1), original=measures.program_figures(exe0),
        rewritten=measures.program_figures(exe1), times_ms=(times[0], times[1]), max_abs_diff=diff,
    )


def markdown(rows: list[Measured], target: str, gmm: GmmPath, info: dict[str, Any], command: str,
             runs: int) -> str:
    against = ("what `moe-pair-gather-fusion` makes of it" if target == "rule" else
               "the hand-fused program (`variant=\"fused\"`: shards concatenated along F, one gather, one GMM)")
    out = [
        "## Pair effect: gate and up stored as two weights, gathered once (MOE003; 8 CPU devices)",
        "",
        f"`{command}` — {info['date']}. Each program of `examples/moe_pair.py` against {against}; "
        f"GMM: {gmm.describe()}. Machine: {info['cpu']}, {info['cores']} cores; jax {info['jax']}; "
        f"load average {info['load_at_start']} at the start, {info.get('load_at_end')} at the end.",
        "",
        "Shapes as in the program-effect benchmark (DeepSeek-v3, Qwen3-MoE scaled down, f32), 8 GMM rows per "
        "expert; `mesh1` one FSDP stage of 8, `mesh2` two (2 × 4); `train` = loss, gradients of both weights "
        "and `wo`, optax adam.",
        "",
        "| program | all-gathers | all-gather MiB | reduce-scatters | all-reduces | split/join MiB | relayout MiB "
        "| peak MiB (ratio) | step ms | ratio of medians | per-round ratio median (q1–q3) | max abs diff |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in rows:
        o, n = m.original, m.rewritten
        a, b = m.median_ms
        q1, q2, q3 = m.pair_ratio_quartiles
        out.append(
            f"| {m.key} | {_pair(o['all_gather_count'], n['all_gather_count'])} "
            f"| {_pair(_mib(o['all_gather_bytes']), _mib(n['all_gather_bytes']))} "
            f"| {_pair(o['reduce_scatter_count'], n['reduce_scatter_count'])} "
            f"| {_pair(o['all_reduce_count'], n['all_reduce_count'])} "
            f"| {_pair(_mib(o['split_join_bytes']), _mib(n['split_join_bytes']))} "
            f"| {_pair(_mib(o['relayout_bytes']), _mib(n['relayout_bytes']))} "
            f"| {_pair(_mib(o['peak_bytes']), _mib(n['peak_bytes']))} ({_ratio(m.ratio('peak_bytes'))}) "
            f"| {a:.2f} → {b:.2f} | **{m.time_ratio:.3f}** | {q2:.3f} ({q1:.3f}–{q3:.3f}) | {m.max_abs_diff:.1e} |")
    out += ["", "### Summary", ""] + summary(rows)
    return "\n".join(out) + "\n"


def summary(rows: list[Measured]) -> list[str]:
    lines = []
    for form in PAIR_FORMS:
        for mode in MODES:
            subset = [m for m in rows if f"/{form}/" in m.key and m.mode == mode]
            if not subset:
                continue
            pairs = [m.pair_ratio_quartiles[1] for m in subset]
            peaks = [m.ratio("peak_bytes") or 1.0 for m in subset]
            gathers = ", ".join(f"{m.original['all_gather_count']}→{m.rewritten['all_gather_count']}" for m in subset)
            lines.append(f"- {form} {mode}: step time per-round ratio median {statistics.median(pairs):.3f} "
                         f"(programs {min(pairs):.3f}–{max(pairs):.3f}); peak memory {min(peaks):.3f}–"
                         f"{max(peaks):.3f}; all-gathers {gathers}.")
    unclear = [m.key for m in rows if m.pair_ratio_quartiles[0] <= 1.0 <= m.pair_ratio_quartiles[2]]
    if unclear:
        lines.append(f"- Per-round quartiles spanning 1 (no time difference shown at this load): {', '.join(unclear)}.")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny programs, 3 runs: a smoke run")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per program (default 30; --quick 3)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--target", choices=("rule", "fused"), default="rule")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", default=None, help="run only programs whose key contains this")
    args = parser.parse_args(argv)
    if jax.device_count() < DEVICES:
        raise SystemExit(f"{DEVICES} devices needed, {jax.device_count()} present")
    runs = args.runs if args.runs is not None else (3 if args.quick else 30)
    gmm = GmmPath("cpu-ffi")  # the pair layer's sizes are only meaningful with the kernel
    shapes = QUICK_SHAPES if args.quick else FULL_SHAPES
    info = machine_info()
    command = "python benchmarks/pair_effect.py" + (" --quick" if args.quick else "") + \
        (f" --runs {runs}" if args.runs is not None else "") + \
        (f" --target {args.target}" if args.target != "rule" else "") + (f" --only {args.only}" if args.only else "")
    rows: list[Measured] = []
    for shape in shapes:
        for mesh in MESHES:
            for form in PAIR_FORMS:
                for mode in MODES:
                    key = f"{shape.key}/{mesh}/{form}/{mode}"
                    if args.only and args.only not in key:
                        continue
                    t0 = time.perf_counter()
                    m = measure(shape, mesh, form, mode, args.target, gmm, runs, args.warmup)
                    rows.append(m)
                    a, b = m.median_ms
                    print(f"{key:40} all-gathers {m.original['all_gather_count']}→{m.rewritten['all_gather_count']}"
                          f"  peak {_ratio(m.ratio('peak_bytes'))}  time {a:8.2f} → {b:8.2f} ms "
                          f"(per-round {m.pair_ratio_quartiles[1]:.3f})  [{time.perf_counter() - t0:.0f}s]", flush=True)
    info["load_at_end"] = _load()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pair_effect.md").write_text(markdown(rows, args.target, gmm, info, command, runs))
    (args.out / "pair_effect.json").write_text(json.dumps({
        "command": command, "machine": info, "target": args.target, "runs": runs,
        "shapes": [{"key": s.key, "model": s.model, "real": s.real, "cfg": dataclasses.asdict(s.cfg)} for s in shapes],
        "programs": [m.to_json() for m in rows],
    }, indent=1))
    print(f"wrote {args.out / 'pair_effect.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
