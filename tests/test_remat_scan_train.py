"""A user's own scanned, rematerialized MoE training loop through every automatic path (issue 46).

``examples/remat_scan_train.py`` is written as a user writes one: the prefused expert weight in a
``jax.shard_map``, each half gathered explicitly, four layers under
``jax.lax.scan(jax.checkpoint(layer))``, Adam from optax.  Its ``fixed=True`` is the hand fix made
in the model code (one gather, one grouped matmul, the activations split), compiled by plain
``jax.jit``: the collective counts every automatic path must reach.

Each path trains 3 steps from the same state: the losses equal plain ``jax.jit``'s (bf16 compute:
within bf16's rounding), the compiled training step's all-gathers and reduce-scatters are the hand
fix's, and what the paths report points at the user's source lines (never ``<lowered ...>``).

* ``hlo_passes.jit``: the forward gathers and their recomputation (in the backward loop, where the
  recomputed gathered halves are also handed on to the backward as residuals: they read their
  slices of the fused gather) and the weight gradient (MOE002): 6 -> 4 all-gathers, 3 -> 2
  reduce-scatters, the hand fix's.
* the pass inside XLA (``install(mode="rewrite")``, what ``HLO_PASSES=rewrite`` installs): both
  rounds of gathers, 6 -> 4.  The weight gradient there is two dense dots (XLA:CPU's ragged_dot)
  whose outputs the fix would join: a copy the CPU cost model prices above the collective it saves
  (reported, not rewritten: "does not pay ... on cpu"); reduce-scatters stay 3 on CPU.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import hlo_passes
from examples import remat_scan_train as user
from hlo_passes.passes import run_passes
from hlo_passes.runtime import count_collectives

# Four compiles of a 4-layer training step and 3 steps each (about 30 s on 2 cores): once per CI run.
pytestmark = pytest.mark.slow

STEPS = 3
SOURCE = "examples/remat_scan_train.py"


def _at_user_line(location) -> bool:
    """A report location whose source is a line of the user's file (absolute or relative)."""
    path = (location.source or "").rsplit(":", 1)[0]
    return path.endswith(SOURCE)


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
    # The CPU kernel (kernel="auto"): with XLA's own grouped matmul, the drop-in default, the joined
    # weight gradient costs a copy that the CPU cost model prices above the reduction it saves.
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


def test_hlo_passes_jit_reaches_the_hand_fix(plain, fixed, through_jit) -> None:
    losses, text = through_jit
    _same_losses(losses, plain[0])
    assert _counts(text) == _counts(fixed[1])
    assert count_collectives(text)["all-gather"] == 4


def test_jit_report_points_at_the_user_lines() -> None:
    mesh = user.make_mesh()
    init, step = user.make_train_step(mesh)
    params, x, gs = user.inputs(mesh)
    low = hlo_passes.jit(step, kernel="auto").lower(init(params), x, gs)
    sites = low.report
    assert sorted((s.rule, s.form) for s in sites) == [("moe-gather-fusion", "two_gmm")] * 2 + \
        [("moe-gradient-fusion", "pad_add")]
    for s in sites:
        assert s.rewritten and _at_user_line(s.location), s.location
    # What it did not rewrite is placed at the user's lines too (the text's own place beside it).
    assert all(_at_user_line(m.location) for m in low.near_misses), [str(m) for m in low.near_misses]


def test_installed_pass_rewrites_both_rounds_of_gathers(plain, fixed, installed) -> None:
    losses, text, report = installed
    _same_losses(losses, plain[0])
    assert report.fallbacks == []
    rewritten = [s for m in report.modules for s in m.sites if s.rewritten]
    assert [s.rule for s in rewritten] == ["moe-gather-fusion"] * 2
    for s in rewritten:
        assert _at_user_line(s.location), s.location
    gathers, scatters = _counts(text)
    assert gathers == _counts(fixed[1])[0] == 4
    # The gradient in the optimized CPU module: found, priced on cpu, not worth its copy there
    # (see the module docstring), so the pass leaves it; the reduce-scatters stay 3 on CPU.
    assert scatters == 3
    result = run_passes(hlo_passes.parse(plain[1]), ["moe-gradient-fusion"], rewrite=False, platform="cpu")
    assert [(s.form, s.pays) for s in result.sites] == [("split_reduction", False)]
    assert _at_user_line(result.sites[0].location)
