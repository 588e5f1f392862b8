"""moe-pair-gather-fusion (MOE003): gate and up stored as two weights, gathered once.

``wi_0[E, D, F]`` and ``wi_1[E, D, F]``, FSDP-sharded alike, each take the same
gather chain (explicit all-gathers in a shard_map, one stage or two, or
Shardy's implicit ones: sharding constraints, barriers, in_specs) and meet at
two GMMs on the same tokens, or at a concatenate along ``F`` inside the
shard_map.  Rewritten to ``concatenate(wi_0, wi_1)`` along ``F`` where the
chains start (the local shards, or the sharded globals: no communication),
one gather chain, one GMM and a slice of its output into gate and up (by
blocks, where ``F`` is on a second FSDP axis and gathered too); the
program's parameters stay two arrays (``docs/weight-forms.md``,
"Gate and up stored as two weights"; the engine is ``split.engine``, the
source ``split.pairs``).
"""
from __future__ import annotations

from ..checks import Refusal
from ..ir.rewriter import Rewriter
from ..rule import SHARDING_MARKERS, RuleMeta, check, collective_markers
from .split.chains import in_dependency_order
from .split.pairs import CompiledPairs, PairSource, SharedLhsGmms, WeightConcatenates
from .split.engine import Candidate, SplitFusion
from .split.details import FUSION_WORDING, SplitDetails

# The weights are named in ``weight`` (the two starts, e.g. "%arg2, %arg3").
PAIR_MESSAGE = ("{summary}: {halves} weights ({weight}) are {verb} separately "
                "({before} collectives, {after} when concatenated first; form {form})")


class MoePairGatherFusion(SplitFusion):
    meta = RuleMeta(
        code="MOE003",
        pass_name="moe-pair-gather-fusion",
        name="SeparateMoeWeightsGathered",
        summary="MoE gate and up weights gathered apart",
        help="Gate and up are two weights, each all-gathered on its own and fed to its own grouped "
             "matmul (or concatenated after the gather). Concatenate the two shards along F first, "
             "gather once, run one grouped matmul and split its output; `hlo-rewrite --passes "
             "moe-pair-gather-fusion` does this without changing the parameters.",
        description="one all-gather and one GMM for gate and up stored as two weights "
                    "(MOE003, opt-in; default inside XLA)",
        markers=(*collective_markers("all-gather"), *SHARDING_MARKERS),
        verb="gathered",
        message=PAIR_MESSAGE,
        opt_in=True,
        compiled_default=True,  # in optimized HLO: one gather of the joined shards, the GMMs kept (rule.py says why)
        details=SplitDetails,
        wording=FUSION_WORDING,
        # XLA's CSE may run a rematerialized copy's gathers once, as the forward's: the claims are held
        # against the compiled program (``hlo_passes.claims``).
        combinable=True,
    )
    name = meta.pass_name
    description = meta.description
    # Optimized HLO's forms, the meeting fused away: recorded as the program has it too (rule.py),
    # so that the pass inside XLA shows the record the lowered text's entry points show.
    fused_away_forms = frozenset({"split_gather", "split_reduction"})
    collectives = frozenset({"all-gather"})
    implicit = True
    sources = (PairSource(),)
    meetings = (WeightConcatenates, SharedLhsGmms, CompiledPairs)

    @check()
    def paths(self, c: Candidate) -> None:
        """As the engine's, but a split of the joined dimension is named for two weights: their
        shards, joined, would not lie in blocks of one width (a gather along it is the engine's
        to allow only for weights of one size, ``SourcePlan.block``)."""
        try:
            super().paths(c)
        except Refusal as refusal:
            if refusal.check in ("split-dim-sharded", "gather-dim"):
                refusal.check = "concat-dim-sharded"
            raise

    def rewrite(self, rw: Rewriter, c: Candidate) -> None:
        # The concatenation of the two weights is made where the later one is computed: the ops
        # between are put back in an order where every op follows its operands.
        touched = {id(ch.start.computation): ch.start.computation for ch in c.chains}
        touched[id(c.meeting.anchor.computation)] = c.meeting.anchor.computation
        super().rewrite(rw, c)
        for comp in touched.values():
            if comp is not None:
                in_dependency_order(rw, comp)
