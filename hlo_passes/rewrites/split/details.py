"""How a site of the split-fusion engine reports: its typed details, its wording, its message.

The four MoE rules find pieces of one array (halves of a weight, or two weights) that each take
their own collectives, and fuse them; what a finding of theirs says beyond its costs is here, in
the rules' own layer: ``SplitDetails`` (the JSON's ``details``: how many pieces, where the
weight is cut, ...), ``FUSION_WORDING`` (what fusing saves, the pieces called halves) and the
message template ``HALVES_MESSAGE``.  The emitters (``diagnostics``) know none of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...report import SiteDetails, Wording

__all__ = ["FUSION_WORDING", "HALVES_MESSAGE", "SplitDetails"]

# How a finding of a rule whose sites are halves of one weight reads (MOE001, MOE002).
HALVES_MESSAGE = ("{summary}: {halves} slices{of_weight} are {verb} separately "
                  "({before} collectives, {after} when fused; form {form})")

FUSION_WORDING = Wording(
    gain="fusing {saving}",
    # A negative saving is the copies a rewrite adds (MOE003's local concatenation of the two
    # shards), which it pays for in collective and GMM launches.
    gain_when_costs="fusing {saving} (it saves collective and GMM launches)",
    piece="half",
    fixed_by="hlo_passes.jit or hlo-rewrite fuses it",
)


@dataclass(kw_only=True)
class SplitDetails(SiteDetails):
    """A split-fusion site: ``halves`` pieces cut along ``split_dim`` in ``split_sizes``, from
    ``weight`` (the array they are cut from; for two GMMs, the first GMM; for two weights, both),
    through ``collectives`` that are ``explicit`` ops or ``implicit`` sharding changes."""

    halves: int
    split_dim: int
    split_sizes: list[int]
    weight: str
    collectives: str
    # Two weights gathered along the joined dimension: how the fix reads the blocks (None: not so).
    blocked: str | None = None
    # "dense": the pieces' products are plain 2-D dots, no expert (group or batch) dimension — a
    # dense layer's gate and up (MaxText's MlpBlock, a DeepSeek dense layer's or the shared
    # expert's), which the fix merges the same way; said so, not called an MoE layer's (None: GMMs).
    layer: str | None = None
    # The halves' GMMs kept as written, and why (``engine.gmms_kept``): only the collectives are
    # fused.  None: the GMMs, if any, run as one.
    gmms_kept: str | None = None
    # True where those GMMs' reductions are fused as one combined op of optimized HLO (no join,
    # no copy): a fix the text before optimization cannot write, priced as it is (``claims``).
    combined: bool | None = None

    def own_fields(self) -> dict[str, Any]:
        own = super().own_fields()
        for said_where_it_applies in ("blocked", "layer", "gmms_kept", "combined"):
            if own.get(said_where_it_applies) is None:
                own.pop(said_where_it_applies, None)
        return own

    def fix_note(self) -> str | None:
        return self.gmms_kept

    @classmethod
    def template_fields(cls) -> frozenset[str]:
        return super().template_fields() | {"of_weight", "of_layer"}

    def message_fields(self) -> dict[str, Any]:
        return {**super().message_fields(), "of_weight": f" of {self.weight}" if self.weight else "",
                "of_layer": (" of a dense layer (2-D dots, not an MoE layer's grouped matmuls; the same fix)"
                             if self.layer == "dense" else "")}

    def fold_group(self) -> tuple[Any, ...]:
        # Two findings with another number of pieces are two sites.
        return (self.halves,)

    def fold_shape(self) -> tuple[Any, ...]:
        return (self.split_dim, tuple(self.split_sizes))
