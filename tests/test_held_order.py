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


APART_NORM = FIXTURE.parent / "apart_norm_compiled.hlo"


def _all_reduces(module) -> list[str]:
    return [i.name for i in module.instructions() if i.opcode == "all-reduce"]


def test_a_sum_of_squares_left_alone_rides_in_the_next_op_as_claimed() -> None:
    """MaxText's apart FSDP-8 step, cut down (fixture ``apart_norm_compiled.hlo``): XLA's combiner put
    dW0's sum of squares beside dW1's gradient.  Fused (dW1's reduction moved into dW0's op), that
    sum of squares would keep an op of its own, and the step would run as many all-reduces as before
    (24 -> 24 in the trainer) while the site says "2 -> 1".  It rides in the next op instead: the
    module runs as many all-reduces fewer as the site claims."""
    module = hlo_passes.parse(APART_NORM.read_text())
    before = len(_all_reduces(module))
    result = run_passes(module, ["MOE004"], strict=True)
    (site,) = result.sites
    assert site.rewritten and site.copies_added == 0
    assert len(_all_reduces(result.module)) == before - (site.before.count - site.after.count) == 2
    again = run_passes(result.module, ["MOE004"], strict=True)
    assert not any(s.rewritten for s in again.sites)  # the combined op is read as one op from then on


def test_a_rewrite_whose_emptied_op_has_nowhere_to_ride_is_reported_not_made() -> None:
    """The same step with no later all-reduce (the next gradient's reduction made a plain tuple):
    dW0's sum of squares would keep its op, the program would run 2 all-reduces as before, and the
    site's "2 -> 1" would be false: reported, not made (``held-alone``), the module untouched."""
    text = APART_NORM.read_text()
    line = next(ln for ln in text.splitlines() if ln.lstrip().startswith("%all-reduce.next ="))
    text = text.replace(line, "  %all-reduce.next = (f32[], f32[8]{0}) tuple(%sumsq.up, %dnext)")
    module = hlo_passes.parse(text)
    before = module.to_text()
    result = run_passes(module, ["MOE004"], strict=True)
    (site,) = result.sites
    assert not site.rewritten
    assert site.details.not_rewritten.startswith("held-alone: "), site.details.not_rewritten
    assert result.module.to_text() == before
