"""moe-gather-fusion (MOE001): gather the prefused MoE weight once.

W[E, D, 2F] is sliced into gate and up halves before the FSDP all-gather;
each half is gathered on its own (one stage or two, explicit collectives or
Shardy's implicit ones at a shard_map boundary) and the halves are
concatenated again before the grouped matmul, or each feeds its own GMM.
Rewritten to one gather chain of W, one GMM, and a split of its output
(``../shared/design/moe-pattern.md``; the engine is ``_split_fusion``).
"""
from __future__ import annotations

from ._split_fusion import SplitFusion


class MoeGatherFusion(SplitFusion):
    name = "moe-gather-fusion"
    description = "one all-gather of a prefused MoE weight instead of one per slice (MOE001)"
    collectives = frozenset({"all-gather"})
    implicit = True

