"""moe-pair-gather-fusion (MOE003): gate and up stored as two weights, gathered once.

``wi_0[E, D, F]`` and ``wi_1[E, D, F]``, FSDP-sharded alike, each take the same
gather chain (explicit all-gathers in a shard_map, one stage or two, or
Shardy's implicit ones: sharding constraints, barriers, in_specs) and meet at
two GMMs on the same tokens, or at a concatenate along ``F`` inside the
shard_map.  Rewritten to ``concatenate(wi_0, wi_1)`` along ``F`` where the
chains start (the local shards, or the sharded globals: no communication),
one gather chain, one GMM and a slice of its output into gate and up; the
program's parameters stay two arrays (``../shared/design/moe-pattern.md``,
"Gate and up stored as two weights"; the engine is ``_split_fusion``, the
source ``_pairs``).
"""
from __future__ import annotations

from ..report import Site
from ..ir.rewriter import Rewriter
from ..rule import SHARDING_MARKERS, RuleMeta, collective_markers
from ._chains import Refusal
from ._pairs import CompiledPairs, PairSource, SharedLhsGmms, WeightConcatenates, in_dependency_order
from ._meetings import Meeting
from ._split_fusion import SplitFusion, _Chain
from ._split_report import FUSION_WORDING, SplitDetails

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
        description="one all-gather and one GMM for gate and up stored as two weights (MOE003, opt-in)",
        markers=(*collective_markers("all-gather"), *SHARDING_MARKERS),
        verb="gathered",
        message=PAIR_MESSAGE,
        opt_in=True,
        details=SplitDetails,
        wording=FUSION_WORDING,
    )
    name = meta.pass_name
    description = meta.description
    collectives = frozenset({"all-gather"})
    implicit = True
    sources = (PairSource(),)
    meetings = (WeightConcatenates, SharedLhsGmms, CompiledPairs)

    def _fuse(self, rw: Rewriter, meeting: Meeting, chains: list[_Chain]) -> Site:
        touched = {id(c.start.computation): c.start.computation for c in chains}
        touched[id(meeting.anchor.computation)] = meeting.anchor.computation
        try:
            site = super()._fuse(rw, meeting, chains)
        except Refusal as refusal:
            # A chain that changes the size of F (a shard_map or a collective splits it), or
            # gathers along F (after partitioning, the gather an unpartitioned text states as a
            # sharding): one check whatever the text, F split across devices where joined.
            if refusal.check in ("split-dim-sharded", "gather-dim"):
                refusal.check = "concat-dim-sharded"
            raise
        if site.rewritten:
            for comp in touched.values():
                if comp is not None:
                    in_dependency_order(rw, comp)
        return site
