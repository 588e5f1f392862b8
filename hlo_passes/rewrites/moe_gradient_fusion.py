"""moe-gradient-fusion (MOE002): reduce the prefused weight's gradient once.

The backward mirror of moe-gather-fusion: the weight-gradient GMM yields
dW[E, D, 2F], which is sliced into gate and up halves; each half is reduced
on its own (reduce-scatter or all-reduce over the FSDP axes, one stage or
two) and the halves are put back together with pad + pad + add (jax's
transpose of a slice) or a concatenate.  Rewritten to one reduction chain of
the whole dW, read where the halves met.  In the two-GMM form the halves'
gradients come from two weight-gradient GMMs: they become one GMM on the
concatenated activation gradients, then one reduction chain.  Same engine
and legality checks as the forward rule (``split.engine``).  Halves whose reductions the text
does not show one per half are named as near misses (``split.hidden_reductions``): reduced by the
SPMD partitioner alone (``partitioner-reduction``, in the lowered text), or already in one
tuple all-reduce of XLA's combiner (``combined``, optimized HLO).
"""
from __future__ import annotations

from ..checks import Refusal
from ..rule import SHARDING_MARKERS, RuleMeta, check, collective_markers
from .split.engine import Candidate
from .split.hidden_reductions import HiddenReductionChecks, PartitionerReductions, combined_refusal
from .split.meetings import Concatenates, GmmPairs, SplitCollectiveFinder
from .split.reordered import ReorderedPadAdds
from .split.sources import GmmSource, SliceSource
from .split.details import FUSION_WORDING, HALVES_MESSAGE, SplitDetails


class MoeGradientFusion(HiddenReductionChecks):
    meta = RuleMeta(
        code="MOE002",
        pass_name="moe-gradient-fusion",
        name="UnfusedMoeWeightGradientReduction",
        summary="unfused MoE weight-gradient reduction",
        help="The gradient of a prefused MoE weight is reduced half by half and reassembled. "
             "Reduce the whole gradient at once.",
        description="one reduction of a prefused MoE weight's gradient instead of one per slice (MOE002)",
        # Every site has a reduction chain that communicates; a sharding change is where the
        # partitioner alone reduces the halves (named, ``partitioner-reduction``).
        markers=(*collective_markers("all-reduce", "reduce-scatter"), *SHARDING_MARKERS),
        verb="reduced",
        message=HALVES_MESSAGE,
        details=SplitDetails,
        wording=FUSION_WORDING,
        combinable=True,  # XLA's all-reduce combiner may put the halves' reductions in one op
    )
    name = meta.pass_name
    description = meta.description
    # Optimized HLO's forms, the meeting fused away: recorded as the program has it too (rule.py).
    fused_away_forms = frozenset({"split_gather", "split_reduction"})
    collectives = frozenset({"reduce-scatter", "all-reduce"})
    # Halves sliced from dW, or computed by the two weight-gradient GMMs of the two-GMM form.
    sources = (SliceSource(), GmmSource())
    # Besides a concatenate, halves meet as pad + pad + add (the transpose of slicing), side by
    # side or into W's layout (a size-2 axis, interleaved: ``split.reordered``).  Named,
    # not rewritten: halves the partitioner alone reduces (lowered text), or whose reductions
    # XLA's combiner already made one (optimized HLO) (``split.hidden_reductions``).
    meetings = (Concatenates, ReorderedPadAdds, GmmPairs, SplitCollectiveFinder, PartitionerReductions)

    @check("xla-combined")
    def not_combined(self, c: "Candidate") -> Refusal | None:
        """Optimized HLO whose every reduction of the halves XLA's combiner already put into one
        op: nothing to save (``split.hidden_reductions.combined_refusal``, MOE004's check too)."""
        return combined_refusal(c, self.collectives)
