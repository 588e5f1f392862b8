"""The collective counts a site reports are the ones XLA runs (issue 16).

For every form the rule tests build (explicit and Shardy-implicit gathers in one stage
and two, the two-GMM form, the weight gradient's reductions, in HLO and StableHLO) the
original and the rewritten program are compiled on 8 CPU devices and the collectives of
the weight counted in XLA's module after SPMD partitioning, before its combiners: the
sites' reported before -> after counts must equal them, and the bytes they report the
bytes those collectives receive per device (scanned implicit gathers reported 0 or too
few until the weight's layout was read from the stack the loop indexes).  Implicit
gathers are no ops in the lowered text: the rule derives them from the shardings; a
constraint restating the layout a value already has is no collective (they were counted
as ones until issue 16: "4 collectives, 2 when fused" where XLA runs 2 -> 1).

The same for the module XLA's SPMD partitioner is given (``after_shardy``: Shardy's
shardings exported onto every op, the dump stage between Shardy and SPMD partitioning):
it is taken from XLA's dump of the original's compile, rewritten, and both compiled
again.  XLA cannot compile the scanned ones again (see test_moe_gather_fusion_dumps'
NOT_RECOMPILABLE): their counts are held against the after-SPMD dump of the same
program, before, and of the program rewritten where jax lowered it, after.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hlo_passes
from examples.moe import ProgramSpec
from hlo_passes.passes import available_passes, run_passes
from moe_cases import DIALECTS, lowered_text

TESTS = Path(__file__).resolve().parent

SPECS = [
    ProgramSpec(variant=v, mesh=m, form=f, mode=mode)
    for v in ("concat", "two_gmm")
    for m in ("mesh1", "mesh2")
    for f in ("explicit", "implicit")
    for mode in ("forward", "grad")
] + [
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit", constraint=c) for c in ("reshard", "in_specs")
] + [
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan_grad"),
    ProgramSpec(variant="concat", mesh="mesh2", mode="scan"),
    # Scanned implicit gathers: the weight's layout is stated on the stack the loop indexes.
    ProgramSpec(variant="concat", mesh="mesh1", form="implicit", mode="scan"),
    ProgramSpec(variant="two_gmm", mesh="mesh2", form="implicit", mode="scan"),
]
# The lowered text in each dialect, and the after-Shardy dump XLA makes of it.
FORMS = [*DIALECTS, "after_shardy"]
CASES = [(s, f) for s in SPECS for f in FORMS]


def _recompilable(spec: ProgramSpec, form: str) -> bool:
    return form != "after_shardy" or spec.mode not in ("scan", "scan_grad")


def _others(spec: ProgramSpec) -> set[tuple[int, ...]]:
    """Results of the program's collectives that are not the weight's: the all-reduces of
    the gradients of wo [E, F, D] and of the activations [T, D], and scalars.  (Every other
    argument is replicated, so nothing else communicates.)"""
    c = spec.cfg
    return {(c.experts, c.mlp, c.embed), (c.tokens, c.embed), ()}


def _rewrite_and_list(cases, text_of, out: Path, sites: dict) -> list[str]:
    """Rewrite each case's text; write it and the rewrite to ``out``; their paths to compile."""
    paths = []
    for spec, form in cases:
        text = text_of(spec, form)
        result = run_passes(hlo_passes.parse(text))
        assert result.near_misses == [], (spec.name, form, result.near_misses)
        sites[spec, form] = result.sites
        for which, t in (("before", text), ("after", result.module.to_text())):
            path = out / f"{spec.name}.{form}.{which}"
            path.write_text(t)
            if _recompilable(spec, form):
                paths.append(str(path))
    return paths


def _spmd_counts(paths: list[str], out: Path, name: str) -> dict[str, list]:
    (out / f"{name}.list").write_text("\n".join(paths))
    proc = subprocess.run([sys.executable, str(TESTS / "spmd_counts_worker.py"), str(out / f"{name}.list"),
                           str(out / f"{name}.json")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads((out / f"{name}.json").read_text())


@pytest.fixture(scope="module")
def spmd_collectives(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[ProgramSpec, str], dict]:
    """Per case: the sites, and the collectives XLA runs for the original and the rewrite."""
    out = tmp_path_factory.mktemp("spmd_counts")
    sites: dict = {}
    lowered = [(s, d) for s, d in CASES if d in DIALECTS]
    counts = _spmd_counts(_rewrite_and_list(lowered, lowered_text, out, sites), out, "lowered")

    def after_shardy(spec: ProgramSpec, form: str) -> str:
        # What the partitioner was given when XLA compiled the StableHLO jax lowered.
        return (out / f"{spec.name}.stablehlo.before.after_shardy").read_text()

    dumped = [(s, f) for s, f in CASES if f == "after_shardy"]
    counts.update(_spmd_counts(_rewrite_and_list(dumped, after_shardy, out, sites), out, "after_shardy"))

    def of(spec: ProgramSpec, form: str, which: str) -> list:
        if not _recompilable(spec, form):
            # The after-SPMD dump of the same program (before), of its rewrite at the lowering (after).
            form = "stablehlo"
        return counts[str(out / f"{spec.name}.{form}.{which}")]

    return {case: {"sites": sites[case], **{w: of(*case, w) for w in ("before", "after")}} for case in CASES}


@pytest.mark.parametrize("spec,form", CASES, ids=[f"{s.name}-{f}" for s, f in CASES])
def test_reported_counts_equal_after_spmd_partitioning(spmd_collectives, spec: ProgramSpec, form: str) -> None:
    case = spmd_collectives[spec, form]
    others = _others(spec)

    def weights(found: list) -> list:
        return [c for c in found if not (c[0] == "all-reduce" and tuple(c[1]) in others)]

    def of_weight(found: list) -> list[str]:
        return sorted(c[0] for c in weights(found))

    before, after = of_weight(case["before"]), of_weight(case["after"])
    sites = case["sites"]
    assert sites, "the rules found nothing to rewrite"
    # The rewrite leaves every other collective where it was.
    assert len(case["before"]) - len(before) == len(case["after"]) - len(after)
    reported = (sum(s.before.count for s in sites), sum(s.after.count for s in sites))
    assert reported == (len(before), len(after)), (
        f"reported {reported[0]} -> {reported[1]}, XLA runs {before} -> {after}")
    assert len(after) < len(before)
    moved = (sum(s.before.bytes_moved for s in sites), sum(s.after.bytes_moved for s in sites))
    runs = tuple(sum(c[2] for c in weights(case[w])) for w in ("before", "after"))
    assert moved == runs, f"reported {moved[0]} -> {moved[1]} bytes, XLA's collectives receive {runs}"


# ---- a second FSDP axis on the split dimension (issue 27) ----------------------------------
# MaxText's two-stage layout: W[E, D, 2F] with D on fsdp and 2F on an fsdp_transpose-like axis
# (examples/moe_split_sharded.py, a 4 x 2 mesh).  Slicing the halves out of W makes the
# partitioner move pieces with collective-permutes, and dropping both axes gathers each
# dimension on its own: XLA runs 6 collectives (4 all-gathers, 2 collective-permutes) where the
# fused chain runs 2, one stage or two.  Until issue 27 the sites said 2 -> 1 and 4 -> 2.  Two
# weights sharded so are joined shard by shard before F is gathered, and the GMM's output split
# by the blocks the gather leaves (issue 32; refused as concat-dim-sharded before): 4 -> 2.  The
# training steps' gate/up gradients are reduced as the gradient sites say (2 all-reduces -> 1).
SPLIT_SHARDED = [(w, s, m) for w in ("prefused", "pair") for s in (1, 2) for m in ("forward", "grad")]


def _split_sharded_text(case: tuple[str, int, str], dialect: str) -> str:
    from examples import moe_split_sharded

    fn, args = moe_split_sharded.build(*case)
    return fn.lower(*args).as_text(dialect=dialect)


def _split_name(case: tuple[str, int, str]) -> str:
    return "split_sharded_{}_s{}_{}".format(*case)


@pytest.fixture(scope="module")
def split_sharded_collectives(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("split_sharded_counts")
    found, paths = {}, []
    for case in SPLIT_SHARDED:
        for dialect in DIALECTS:
            text = _split_sharded_text(case, dialect)
            result = run_passes(hlo_passes.parse(text), list(available_passes()))
            found[case, dialect] = result
            for which, t in (("before", text), ("after", result.module.to_text())):
                path = out / f"{_split_name(case)}.{dialect}.{which}"
                path.write_text(t)
                paths.append(str(path))
    counts = _spmd_counts(paths, out, "split_sharded")
    return {key: (result, counts[str(out / f"{_split_name(key[0])}.{key[1]}.before")],
                  counts[str(out / f"{_split_name(key[0])}.{key[1]}.after")]) for key, result in found.items()}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", SPLIT_SHARDED, ids=_split_name)
def test_split_dimension_on_a_second_axis(split_sharded_collectives, case, dialect: str) -> None:
    weights, stages, mode = case
    result, before, after = split_sharded_collectives[case, dialect]
    gathers = [s for s in result.sites if s.rule in ("moe-gather-fusion", "moe-pair-gather-fusion")]
    misses = [m for m in result.near_misses if m.rule == "moe-pair-gather-fusion"]
    # The gate/up weight's gradient: its reductions (wo's gradient [E, F, D] is reduced apart).
    cfg = ProgramSpec().cfg
    reductions = lambda found: [c for c in found if c[0] in ("all-reduce", "reduce-scatter")  # noqa: E731
                                and tuple(c[1]) != (cfg.experts, cfg.mlp, cfg.embed)]
    grads = [s for s in result.sites if s.rule in ("moe-gradient-fusion", "moe-pair-gradient-fusion")]
    assert (sum(s.before.count for s in grads), sum(s.after.count for s in grads)) == (
        len(reductions(before)), len(reductions(after))), (before, after)
    assert (sum(s.before.bytes_moved for s in grads), sum(s.after.bytes_moved for s in grads)) == (
        sum(c[2] for c in reductions(before)), sum(c[2] for c in reductions(after)))
    assert (len(grads), len(reductions(before))) == ((1, 2) if mode == "grad" else (0, 0))
    # The gate/up weight's collectives, every kind.
    weight = lambda found: sorted(c[0] for c in found if c[0] in ("all-gather", "collective-permute", "all-to-all"))  # noqa: E731
    (site,) = gathers
    assert misses == [], [str(m) for m in misses]
    permutes = ["collective-permute"] * 2 if weights == "prefused" else []  # slicing the sharded W
    assert weight(before) == ["all-gather"] * 4 + permutes and weight(after) == ["all-gather"] * 2
    assert (site.before.count, site.after.count) == (4 + len(permutes), 2)
    moved = lambda found: sum(c[2] for c in found if c[0] in ("all-gather", "collective-permute"))  # noqa: E731
    assert (site.before.bytes_moved, site.after.bytes_moved) == (moved(before), moved(after))
