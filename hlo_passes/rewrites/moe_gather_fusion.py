"""moe-gather-fusion (MOE001): gather the prefused MoE weight once.

W[E, D, 2F] is sliced into gate and up halves before the FSDP all-gather;
each half is gathered on its own (one stage or two, explicit collectives or
Shardy's implicit ones at a shard_map boundary) and the halves are
concatenated again before the grouped matmul, or each feeds its own GMM.
Rewritten to one gather chain of W, one GMM, and a split of its output
(``docs/weight-forms.md``, "The forms the rules read, in text"; the engine is
``split.engine``).
"""
from __future__ import annotations

from ..rule import SHARDING_MARKERS, RuleMeta, collective_markers
from .split.reshard import ReshardSource
from .split.sources import SliceSource
from .split.engine import SplitFusion
from .split.details import FUSION_WORDING, HALVES_MESSAGE, SplitDetails


class MoeGatherFusion(SplitFusion):
    meta = RuleMeta(
        code="MOE001",
        pass_name="moe-gather-fusion",
        name="UnfusedMoeWeightGather",
        summary="unfused MoE weight gather",
        help="A prefused MoE weight W[E, D, 2F] is sliced into gate and up halves and each half "
             "is all-gathered on its own. Gather W once and slice after the gather (or after the "
             "grouped matmul); `hlo-rewrite` does this: one collective instead of two per stage, "
             "and no slice or concatenate copies.",
        description="one all-gather of a prefused MoE weight instead of one per slice (MOE001)",
        # A site communicates: an all-gather, or (implicit) a sharding change Shardy or GSPMD
        # turns into one (prescan's docstring says why a substring search is enough).
        markers=(*collective_markers("all-gather"), *SHARDING_MARKERS),
        verb="gathered",
        message=HALVES_MESSAGE,
        details=SplitDetails,
        wording=FUSION_WORDING,
        # XLA's CSE may run a rematerialized copy's gathers once, as the forward's: the claims are held
        # against the compiled program (``hlo_passes.claims``).
        combinable=True,
    )
    name = meta.pass_name
    description = meta.description
    # Optimized HLO's forms, the meeting fused away: recorded as the program has it too (rule.py).
    fused_away_forms = frozenset({"split_gather", "split_reduction"})
    collectives = frozenset({"all-gather"})
    implicit = True
    # Slices of W; or pieces the partitioner cut out of W's shard where the split dimension is
    # sharded too (``fsdp_transpose``), reassembled by the gather along it.
    sources = (ReshardSource(), SliceSource())

