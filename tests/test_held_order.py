"""A held op that would read its own result is never made (issue 47/46, jax 0.12.1's YNNPACK).

MaxText's apart two-stage training step, cut down (fixture ``two_stage_compiled.hlo``): XLA's combiner
put a global norm's sum of squares, computed from up's reduced gradient, into the same tuple all-reduce
as gate's second-stage reduction.  With the GMMs kept as written (YNNPACK), MOE004 would fuse the two
weights' reductions only; held again, gate's combined op would then read the fused reduction's own
result.  The site is reported, not rewritten (``held-order``), and nothing ever loops on a cycle."""
from __future__ import annotations

from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.passes import run_passes
from hlo_passes.rewrites.split.chains import in_dependency_order

pytestmark = pytest.mark.jax_free

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "moe-pair-gradient-fusion" / "two_stage_compiled.hlo"


def test_a_rewrite_whose_held_op_would_read_itself_is_reported_not_made() -> None:
    module = hlo_passes.parse(FIXTURE.read_text())
    before = module.to_text()
    result = run_passes(module, ["MOE004"], strict=True)
    (site,) = result.sites
    assert not site.rewritten
    assert site.details.not_rewritten.startswith("held-order: "), site.details.not_rewritten
    assert "would read its own result" in site.details.not_rewritten
    assert result.module.to_text() == before  # (the module is not touched)


def test_dependency_order_refuses_a_cycle_instead_of_looping() -> None:
    module = hlo_passes.parse("""HloModule m

ENTRY main {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} add(p, p)
  ROOT b = f32[4]{0} negate(a)
}
""")
    comp = next(iter(module.computations.values()))
    by = {i.name: i for i in comp.instructions}
    rw = Rewriter(module)
    rw.set_operand(by["a"], 1, by["b"])  # a reads b, which reads a
    with pytest.raises(ValueError, match="reads its own result"):
        in_dependency_order(rw, comp)
