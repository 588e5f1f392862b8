"""A user's own scanned, rematerialized MoE training loop through every automatic path (issue 46).

``examples/remat_scan_train.py`` is written as a user writes one: the prefused expert weight in a
``jax.shard_map``, each half gathered explicitly, four layers under
``jax.lax.scan(jax.checkpoint(layer))``, Adam from optax.  Its ``fixed=True`` is the hand fix made
in the model code (one gather, one grouped matmul, the activations split), compiled by plain
``jax.jit``: the collective counts every automatic path must reach.

Each path trains 3 steps from the same state: the losses equal plain ``jax.jit``'s (bf16 compute:
within bf16's rounding), the compiled training step's all-gathers and reduce-scatters are the hand
fix's, and what the paths report points at the user's source lines (never ``<lowered ...>``).

* ``hlo_passes.jit`` (default arguments: XLA's ragged_dot): the forward gathers and their
  recomputation (in the backward loop, where the recomputed gathered halves are also handed on to
  the backward as residuals: they read their slices of the fused gather) and the weight gradient
  (MOE002, ``pad_add``): 6 -> 4 all-gathers, 3 -> 2 reduce-scatters, the hand fix's.  jax's
  transpose of a ragged_dot computes each half's operand as ``select(mask, broadcast(dy), 0)``
  over every expert; the join goes up to ``dy`` (``_sources.join_operands``), so it copies one
  row of tokens per device, not the masked ``[E, T, F]`` arrays.
* ``hlo-rewrite`` on the compiled step's dump (``*.cpu_after_optimizations.txt``): the same
  counts; XLA does not compile an optimized (scheduled) module again, so its values are those of
  the next path, which rewrites the same module inside XLA.
* the pass inside XLA (``install(mode="rewrite")``, what ``HLO_PASSES=rewrite`` installs): both
  rounds of gathers (``split_gather``) and the weight gradient (``split_reduction``): there each
  half's operand is a loop fusion only its dot reads, and the rewrite writes the joined operand
  in one loop fusion of both, no copy of its own: 6 -> 4, 3 -> 2.

Where XLA:CPU's dots round by their shape (YNNPACK: jax 0.10.2 and 0.12.1 both, asked of the backend,
``gmm.target.dots_round_by_shape_here``), the weight-gradient GMMs are not merged but kept as written:

* in optimized HLO (``hlo-rewrite`` on the dump, the pass inside XLA) their two reduce-scatters become
  one combined reduce-scatter of both results (XLA's own combined form): nothing joined or copied,
  each result reduced as before; 3 -> 2 reduce-scatters, the hand fix's, and inside XLA the losses
  equal ``jax.jit``'s bit for bit;
* in StableHLO (``hlo_passes.jit``'s rewrite of the lowered text) a reduce_scatter takes one operand:
  the results would be joined (262,144 bytes per device) to save one reduce-scatter, which the cost
  model prices as not paying on CPU: the lowered text's gradient site is not rewritten ("does not
  pay", with why).  The jit's own compile then runs the optimized-HLO stage (hlo_passes/xla_stage.py:
  the rules of the pass inside XLA on the module XLA makes of that compile's program), which
  combines the two reductions as above: 3 -> 2, the losses ``jax.jit``'s bit for bit, the site's
  record the stage's (one per site).  The CPU kernel (``kernel="auto"``) runs the GMMs itself:
  merged in StableHLO, 3 -> 2.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import hlo_passes
from examples import remat_scan_train as user
from hlo_passes.gmm.target import dots_round_by_shape_here
from hlo_passes.passes import run_passes
from hlo_passes.runtime import count_collectives
from programs import ynn_dots

# Five compiles of a 4-layer training step and 3 steps each (about 40 s on 2 cores): once per CI run.
pytestmark = pytest.mark.slow

STEPS = 3
SOURCE = "examples/remat_scan_train.py"


def _at_user_line(location) -> bool:
    """A report location whose source is a line of the user's file (absolute or relative)."""
    path = (location.source or "").rsplit(":", 1)[0]
    return path.endswith(SOURCE)


def _kept() -> bool:
    """Whether this XLA:CPU's dots round by their shape: the gradient GMMs are then kept as written."""
    return dots_round_by_shape_here("cpu")


def _reached() -> tuple[int, int]:
    """(all-gathers, reduce-scatters) every path reaches: the hand fix's (where the gradient GMMs are
    kept as written, their reductions combined in optimized HLO: by the pass inside XLA, by
    hlo-rewrite on the dump, by the optimized-HLO stage of ``hlo_passes.jit``'s compile)."""
    return (4, 2)


def _counts(text: str) -> tuple[int, int]:
    c = user.collectives(text)
    return c["all-gather"], c["reduce-scatter"]


@pytest.fixture(scope="module")
def plain():
    return user.train(STEPS)


@pytest.fixture(scope="module")
def fixed():
    return user.train(STEPS, fixed=True)


@pytest.fixture(scope="module")
def through_jit():
    return user.train(STEPS, jit=hlo_passes.jit)  # default arguments: XLA's ragged_dot


@pytest.fixture(scope="module")
def through_jit_cpu_kernel():
    return user.train(STEPS, jit=functools.partial(hlo_passes.jit, kernel="auto"))


@pytest.fixture(scope="module")
def installed():
    hlo_passes.install(mode="rewrite")
    try:
        losses, text = user.train(STEPS)
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    return losses, text, report


def _same_losses(got: list[float], want: list[float]) -> None:
    # bf16 compute: a fused gather and GMM round as the halves' did, up to bf16's last bit.
    np.testing.assert_allclose(got, want, rtol=2e-3)


def test_the_hand_fix_is_the_target(plain, fixed) -> None:
    assert _counts(plain[1]) == (6, 3)
    assert _counts(fixed[1]) == (4, 2)
    _same_losses(fixed[0], plain[0])


def test_lint_names_the_sites_at_the_user_lines(plain) -> None:
    # The compiled step as a dump holds it: both rounds of gathers (MOE001) and the weight
    # gradient of the one prefused weight (MOE002, never the two-weight MOE004), at the user's lines.
    findings = hlo_passes.lint(hlo_passes.parse(plain[1]))
    assert sorted(f.rule for f in findings) == ["MOE001", "MOE001", "MOE002"], [f.message for f in findings]
    assert all(f.source and f.source.rsplit(":", 1)[0].endswith(SOURCE) for f in findings)


@pytest.mark.parametrize("kernel", ["default", "auto"])
def test_hlo_passes_jit_reaches_the_hand_fix(plain, fixed, through_jit, through_jit_cpu_kernel, kernel) -> None:
    losses, text = through_jit if kernel == "default" else through_jit_cpu_kernel
    _same_losses(losses, plain[0])
    assert _counts(fixed[1]) == (4, 2)
    assert _counts(text) == _reached() == _counts(fixed[1])
    assert count_collectives(text)["all-gather"] == 4
    if kernel == "default":
        # XLA's GMMs, the gathers fused and the gradient's reductions combined (the optimized-HLO
        # stage where the GMMs are kept): nothing rounds otherwise, the losses are jax.jit's bit for bit.
        assert losses == plain[0]


@pytest.mark.parametrize("kw", [{}, {"kernel": "auto"}], ids=["default", "auto"])
def test_jit_report_points_at_the_user_lines(kw) -> None:
    mesh = user.make_mesh()
    init, step = user.make_train_step(mesh)
    params, x, gs = user.inputs(mesh)
    low = hlo_passes.jit(step, **kw).lower(init(params), x, gs)
    sites = low.report
    assert sorted((s.rule, s.form) for s in sites) == [("moe-gather-fusion", "two_gmm")] * 2 + \
        [("moe-gradient-fusion", "pad_add")]
    for s in sites:
        assert _at_user_line(s.location), s.location
    (grad,) = [s for s in sites if s.rule == "moe-gradient-fusion"]
    assert all(s.rewritten for s in sites if s is not grad)
    if _kept() and not kw:
        # The GMMs kept as written: their two results joined (262,144 bytes per device) to save one
        # reduce-scatter: not paying on CPU, reported, not rewritten.
        why = grad.details.not_rewritten or ""
        assert not grad.rewritten and "does not pay" in why, grad
        assert grad.details.gmms_kept and (grad.copies_added, grad.copies_removed) == (262144, 32768), grad
        # ... and says why it joins them here: the combined form exists only in optimized HLO.
        assert "combined reduce-scatter" in why and "HLO_PASSES=rewrite" in why and "one operand" in why, why
        return
    # The weight gradient's join copies the two halves of dy (64 x 128 bf16 each) and removes the
    # join of the reduced halves: no net copy, one collective and one GMM saved.
    assert grad.rewritten and (grad.copies_added, grad.copies_removed) == (32768, 32768), grad
    # What it did not rewrite is placed at the user's lines too (the text's own place beside it).
    assert all(_at_user_line(m.location) for m in low.near_misses), [str(m) for m in low.near_misses]


def test_hlo_rewrite_on_the_dump_reaches_the_hand_fix(plain, fixed, tmp_path) -> None:
    # What XLA's dump holds of the compiled step, rewritten by the console script as a user runs it
    # (the platform read from the file's name).
    from hlo_passes.cli import rewrite_main
    dump = tmp_path / "module_0001.jit_train_step.cpu_after_optimizations.txt"
    dump.write_text(plain[1])
    out = tmp_path / "rewritten.txt"
    assert rewrite_main([str(dump), "-o", str(out), "-q"]) == 0
    assert _counts(out.read_text()) == _reached()


def test_installed_pass_reaches_the_hand_fix(plain, fixed, installed) -> None:
    losses, text, report = installed
    # Bit for bit: the forward's gathers fused (slices of one gather copy, a gather along D moves
    # the same bytes) and the gradient's reductions combined (each result reduced as before).
    assert losses == plain[0]
    assert report.fallbacks == []
    assert [n for m in report.modules for n in m.near_misses] == []
    rewritten = [s for m in report.modules for s in m.sites if s.rewritten]
    assert sorted((s.rule, s.form) for s in rewritten) == [("moe-gather-fusion", "split_gather")] * 2 + \
        [("moe-gradient-fusion", "split_reduction")]
    for s in rewritten:
        assert _at_user_line(s.location), s.location
    assert _counts(text) == _reached() == _counts(fixed[1])
    if _kept():
        # One combined reduce-scatter of the two kept GMMs' results (XLA's tuple form), in the
        # compiled program the claim "2 -> 1" is made of.
        (grad,) = [s for s in rewritten if s.rule == "moe-gradient-fusion"]
        assert (grad.before.count, grad.after.count, grad.copies_added, grad.copies_removed) == (2, 1, 0, 0)
        assert "combined reduce-scatter" in (grad.details.gmms_kept or "")
        combined = [line for line in text.splitlines() if " reduce-scatter(" in line and "get-tuple" not in line
                    and line.split("=", 1)[1].lstrip().startswith("(")]
        assert len(combined) == 1, combined
    # Priced on cpu: each half's operand of the gradient dots is a loop fusion only its dot reads, so
    # the joined operand is written by one loop fusion in place of theirs (no copy added); the
    # reduced halves' join goes (2 x 8 x 8 x 128 f32 = 65,536 bytes), one collective, one dot.
    result = run_passes(hlo_passes.parse(plain[1]), ["moe-gradient-fusion"], rewrite=False, platform="cpu")
    if ynn_dots(plain[1]):  # the gradient GMMs are YNNPACK's: kept, their reductions combined, no copy
        assert [(s.form, s.pays, s.gmm_launches_saved, s.copies_added, s.copies_removed)
                for s in result.sites] == [("split_reduction", True, 0, 0, 0)]
    else:
        assert [(s.form, s.pays, s.copies_added, s.copies_removed) for s in result.sites] == \
            [("split_reduction", True, 0, 65536)]
    assert _at_user_line(result.sites[0].location)
