"""What the two weights' rules cost inside XLA: collectives and memory, their default set there.

    python benchmarks/pair_inside_xla.py [--only KEY] [--out DIR]

Issue 46.  MOE003 and MOE004 are opt-in before optimization: their StableHLO forms hold the fused
weight and the fused GMM's output at once (+9-22 % peak memory, ``pair_effect.py``).  Inside XLA
(``HLO_PASSES=rewrite``) their forms keep the GMMs: one gather of the joined shards, the kept GMMs'
reductions in one combined op.  This measures that on ``examples/moe_pair.py``'s programs (three
forms, one and two FSDP stages, the forward and an adam training step under ``jax.checkpoint``;
DeepSeek-v3 and Qwen3-MoE ratios, ``program_effect.FULL_SHAPES``), each compiled by plain
``jax.jit`` twice in this process: without the pass, and with ``install(mode="rewrite")`` at its
default set.  Per program: the compiled module's all-gathers, reduce-scatters and all-reduces, XLA's
temp buffer bytes (``memory_analysis()``), the sites rewritten, and whether the outputs are
bit-identical.  No step time: on this 2-core machine it says less than ``pair_effect.py``'s
interleaved runs; the cost model decides which sites are rewritten.

Writes ``DIR/pair_inside_xla.md`` and ``DIR/pair_inside_xla.json``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# First: program_effect sets the 8 host devices before jax is imported.
from benchmarks.program_effect import DEFAULT_OUT, FULL_SHAPES, Shape, machine_info  # noqa: E402, I001

import jax  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402
from benchmarks import _program_measures as measures  # noqa: E402
from examples import moe_pair  # noqa: E402

FORMS = ("explicit", "implicit", "concat_inside")
MESHES = ("mesh1", "mesh2")
MODES = ("forward", "train")


def program(shape: Shape, mesh: str, form: str, mode: str) -> tuple[Callable, tuple[Any, ...]]:
    """A fresh jitted program and its arguments (a new function: jax keeps no executable of it)."""
    cfg = dataclasses.replace(shape.cfg, tokens=shape.cfg.tokens * shape.cfg.top_k)
    spec = moe_pair.PairSpec(mesh=mesh, form=form, cfg=cfg, checkpoint=mode == "train")
    if mode == "forward":
        return moe_pair.build(spec)
    step, params, opt_state, x, gs = moe_pair.train_program(spec)
    return jax.jit(step), (params, opt_state, x, gs)


def figures(fn: Callable, args: tuple[Any, ...]) -> tuple[dict[str, int], list[np.ndarray]]:
    compiled = fn.lower(*args).compile()
    module = hlo_passes.parse(compiled.as_text(), dialect="hlo")
    got = {k: v for k, v in measures.collective_figures(module).items() if k.endswith("_count")}
    got["temp_bytes"] = int(compiled.memory_analysis().temp_size_in_bytes)
    return got, [np.asarray(a) for a in jax.tree.leaves(compiled(*args))]


def measure(shape: Shape, mesh: str, form: str, mode: str) -> dict[str, Any]:
    off, want = figures(*program(shape, mesh, form, mode))
    hlo_passes.install(mode="rewrite", platforms="cpu")
    try:
        on, got = figures(*program(shape, mesh, form, mode))
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    sites = [f"{s.rule}:{s.form}" for m in report.modules for s in m.sites]
    same = len(want) == len(got) and all(np.array_equal(a, b) for a, b in zip(want, got))
    return {"key": f"{shape.key}/{mesh}/{form}/{mode}", "off": off, "on": on, "sites": sites,
            "bit_identical": same}


def markdown(rows: list[dict[str, Any]], info: dict[str, Any], command: str) -> str:
    out = ["## The two weights' rules inside XLA (pair_inside_xla.py)", "",
           f"`{command}`; {info.get('date', '')}, jax {jax.__version__}, CPU (8 host devices). "
           "Plain `jax.jit`, without the pass and with `install(mode=\"rewrite\")` at its default set.", "",
           "| program | all-gathers | reduce-scatters | all-reduces | temp MiB | sites rewritten | outputs |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        o, n = r["off"], r["on"]
        cell = lambda k: f"{o[k]} → {n[k]}"  # noqa: E731
        temp = f"{o['temp_bytes'] / 2**20:.2f} → {n['temp_bytes'] / 2**20:.2f} " \
               f"({(n['temp_bytes'] - o['temp_bytes']) / o['temp_bytes'] * 100:+.2f} %)"
        out.append(f"| {r['key']} | {cell('all_gather_count')} | {cell('reduce_scatter_count')} | "
                   f"{cell('all_reduce_count')} | {temp} | {', '.join(r['sites']) or '—'} | "
                   f"{'bit-identical' if r['bit_identical'] else 'DIFFER'} |")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, help="run only programs whose key contains this")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rows = []
    for shape in FULL_SHAPES:
        for mesh in MESHES:
            for form in FORMS:
                for mode in MODES:
                    key = f"{shape.key}/{mesh}/{form}/{mode}"
                    if args.only and args.only not in key:
                        continue
                    rows.append(measure(shape, mesh, form, mode))
                    print(json.dumps(rows[-1]), flush=True)
    command = "python benchmarks/pair_inside_xla.py" + (f" --only {args.only}" if args.only else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pair_inside_xla.json").write_text(json.dumps(rows, indent=1))
    (args.out / "pair_inside_xla.md").write_text(markdown(rows, machine_info(), command))
    return 1 if not all(r["bit_identical"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
