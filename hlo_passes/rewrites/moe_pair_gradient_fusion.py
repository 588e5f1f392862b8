"""moe-pair-gradient-fusion (MOE004): the gradients of two gate/up weights, reduced once.

The backward mirror of moe-pair-gather-fusion (MOE003).  With gate and up
stored as two weights ``wi_0``, ``wi_1``, a training step computes dW0 and dW1
with two weight-gradient GMMs that share the lhs and group sizes (or slices
one gradient of the concatenated weight, TransformerEngine's ``jnp.split``),
and reduces each on its own over the FSDP axes (a reduce-scatter per stage, or
an all-reduce per half).  The two never meet: each goes to its own result or
optimizer update.  Rewritten to one weight-gradient GMM on the concatenated
activation gradients (or the unsplit gradient), one reduction chain of
dW[E, D, 2F], and dW0, dW1 sliced from the reduced array for their users
(local slices: no communication), so the program's outputs are unchanged.
Same engine and legality checks as MOE001/MOE002 (``split.engine``); the
site is found from the chains' ends (``split.apart``).  Gradients whose reductions
XLA's combiner already put into one op (optimized HLO) are a near miss (``xla-combined``,
as MOE002's halves): the compiled program runs no more collectives than the fix would.
Opt-in: the lint reports it always, the rewrite runs when named.
"""
from __future__ import annotations

from ..checks import Refusal
from ..rule import SHARDING_MARKERS, RuleMeta, check, collective_markers
from .split.apart import ApartGmmSource, SeparateEnds
from .split.engine import Candidate
from .split.hidden_reductions import HiddenReductionChecks, PartitionerApart, combined_refusal
from .split.sources import SliceSource
from .split.details import FUSION_WORDING, SplitDetails


class MoePairGradientFusion(HiddenReductionChecks):
    meta = RuleMeta(
        code="MOE004",
        pass_name="moe-pair-gradient-fusion",
        name="UnfusedMoePairGradientReduction",
        summary="unfused MoE gate/up weight-gradient reductions",
        help="The gradients of two MoE weights (gate and up, wi_0 and wi_1) are computed by two "
             "weight-gradient GMMs with the same lhs (or split from one) and reduced one by one. "
             "Compute them with one GMM on the concatenated activation gradients, reduce the whole "
             "gradient once and slice dW0 and dW1 out of the reduced array.",
        description="one reduction of the gate and up weights' gradients instead of one per weight "
                    "(MOE004, opt-in; default inside XLA)",
        markers=(*collective_markers("all-reduce", "reduce-scatter"), *SHARDING_MARKERS),
        verb="reduced",
        message="{summary}: {halves} weight gradients{of_layer} are {verb} separately ({before} collectives, "
                "{after} when fused; form {form})",
        opt_in=True,
        compiled_default=True,  # in optimized HLO: the kept GMMs' reductions in one combined op (rule.py says why)
        details=SplitDetails,
        wording=FUSION_WORDING,
        combinable=True,  # XLA's all-reduce combiner may put the two gradients' reductions in one op
    )
    name = meta.pass_name
    description = meta.description
    collectives = frozenset({"reduce-scatter", "all-reduce"})
    sources = (SliceSource(), ApartGmmSource())
    # Named, not rewritten (``split.hidden_reductions``): gradients the partitioner alone reduces
    # (lowered text), or whose reductions XLA's combiner already made one (optimized HLO).
    meetings = (SeparateEnds, PartitionerApart)

    @check("xla-combined")
    def not_combined(self, c: Candidate) -> Refusal | None:
        """Optimized HLO whose every reduction of the two gradients XLA's combiner already put into
        one op (XLA:CPU's psums of the partitioner-reduced forms): the compiled program runs one
        collective per step already, and fusing them saves none — MaxText's apart fsdp 4 x
        fsdp_transpose 2 step kept its 32 all-reduces after such a rewrite (MOE002's check,
        ``split.hidden_reductions.combined_refusal``)."""
        return combined_refusal(c, self.collectives, pieces="weights")
