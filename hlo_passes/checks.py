"""The legality checks of the rules, by id: one line each saying what the check requires.

A near miss names the check that refused a site (``report.NearMiss.check``) and why, in its
own words for that site; this table says what the check is for, in one place: ``--explain``
prints the meaning of each check it names, the JSON report carries it (``details.meaning``),
and ``docs/checks.md`` lists the same table (``tests/test_checks.py`` holds the two equal and
every id the rules raise to an entry here).  Ids are stable: tools match on them.

A refusal is raised (or returned by a rule's named check, ``rule.PatternRule``) as a ``Refusal``:
the check's id, the reason for this site, and where.  A plugin's rule may refuse under ids of its
own: it declares each with its meaning (``rule.check(id, meaning=...)``), and ``meaning`` reads
those after this table; the built-in rules keep theirs here, so that ``docs/checks.md`` is the
whole list.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ir import Instruction

# id -> what the check requires of a site (a sentence without its final period).
CHECKS: dict[str, str] = {
    # Where the halves come from: slices of one weight (MOE001, MOE002, MOE004 split_apart).
    "same-source": "the halves are slices of one array",
    "slice-stride": "every slice has stride 1, or the k slices interleave the halves (stride k in one dimension, "
                    "starting at 0 … k-1)",
    "split-dim": "the slices cut exactly one dimension, the split dimension",
    "slices-adjacent": "the slices are adjacent pieces of the split dimension, without gap or overlap",
    "slices-cover": "the slices cover the whole split dimension",
    "concat-order": "the halves meet again in the order they were cut",
    "resharded-pieces": "where the split dimension is sharded too, each device's piece of a half (slices of its "
                        "shard, moved by collective-permutes, cut at its partition's offset) is, on every device, "
                        "the part of the half the gather along the split dimension puts at its place, and every "
                        "conversion on the way keeps the shard's values",
    "interleaved-joined": "interleaved halves (strided slices) meet at GMMs of their own, whose results are split "
                          "with the same stride; joined side by side they would be W reordered",
    # The path each half takes.
    "group-of-one": "every half runs a collective over more than one device (over groups of one device, "
                    "a mesh axis of size 1, nothing moves: there is nothing to fuse)",
    "no-collective": "the halves run a collective on the way, or a sharding change the partitioner makes one "
                     "(one that moves nothing on the mesh is none, and so is a reduction of a value every device "
                     "computes alike)",
    "xla-combined": "in optimized HLO, XLA's combiner has not already put the halves' collectives (MOE004: the two "
                    "weights' gradients' reductions) into one op (a tuple-shaped all-reduce or reduce-scatter): "
                    "where it has, fusing them saves no collective",
    "xla-computed-once": "a site of a text before optimization is one the compiled program runs: where XLA runs "
                         "its collectives once already, as another site's at the same source place (a "
                         "rematerialized copy that its common-subexpression elimination merged with the "
                         "original), fusing them saves nothing XLA runs",
    "same-collectives": "every half takes the same path: the same ops and collectives (replica groups, "
                        "channel kind, use_global_device_ids, dimension) and the same shard_map crossings",
    "same-computation": "the halves' ops are in one computation",
    "gather-dim": "no all-gather works along the split dimension",
    "scatter-dim": "no reduce-scatter works along the split dimension",
    "split-dim-sharded": "nothing on the way (a shard_map, a collective) changes the size of the split dimension",
    "reshape-moves-split": "no reshape or bitcast on the way changes the dimensions, so the split dimension "
                           "can be followed",
    "bitcast-moves-split": "a bitcast on the way between two layouts of the same dimensions (the same bytes read in "
                           "another order) is a permutation of those dimensions, which the split dimension is "
                           "followed through as through a transpose (`f32[2,32,32]{2,1,0}` read as `{1,2,0}`: "
                           "dimension 2 becomes 1); a tiled layout, or a dimension read as one of another size, "
                           "is refused",
    "dequant-operand": "a half dequantized on the way (an int8 or fp8 value converted and multiplied) is "
                       "multiplied by its own half of one array split as the weight is (its scale), or by one "
                       "value the same along the split dimension (a broadcast scalar or per-row scale)",
    "window-split-dim": "a dynamic-slice on the way keeps the split dimension whole",
    "same-offsets": "the halves' dynamic-slices cut at offsets that are provably the same",
    "extra-users": "nothing else reads a half's intermediate values (they go with the rewrite)",
    "fusion-kind": "the fusions a site of optimized HLO runs through are loop or input fusions, which can be "
                   "opened to rewrite it (a custom or output fusion is one kernel: the site is only reported)",
    "unknown-sharding": "every sharding the site's cost and legality depend on can be read",
    "inconsistent-shapes": "the shapes the text states agree with each other",
    # Where the halves meet.
    "concat-dim": "the halves meet along the dimension they were split on",
    "gmm-sources": "halves computed by separate GMMs meet again (a concatenate or pad + add)",
    "gmm-contracts-split": "the dimension the halves are joined along is a free dimension of the GMM operand, "
                           "not a contracting one",
    "same-lhs": "the GMMs differ in one operand only (the same tokens)",
    "same-group-sizes": "the GMMs group the tokens the same way",
    "same-gmm": "the GMMs have the same dimension numbers, precision and result type",
    "gmm-consumers": "in optimized HLO, two weights gathered apart are read only by grouped matmuls (through "
                     "moves of their elements) that leave F alone free and multiply the same tokens",
    "fixed-shape-kernel": "a grouped-matmul kernel built for one shape can be emitted again for the fused weight",
    # Two weights (MOE003, MOE004).
    "same-weight": "the two pieces are two different arrays (one weight read twice is no pair)",
    "same-element-type": "the two weights have one element type",
    "same-shape": "the two weights have one shape except along the dimension they are joined on",
    "same-sharding": "the two weights are sharded alike",
    "concat-dim-sharded": "the dimension the weights are joined along holds whole blocks of both: split as "
                          "they start, it is gathered only into fewer shards that divide it, and the weights "
                          "are of one size along it",
    "crosses-boundary": "halves that never meet are fused within one computation",
    "order": "a user of a half's end that comes before the last half is computed can move after it: the fused "
             "chain is not computed from it, and the halves do not meet again past it",
    # Reductions the text does not show one op per half (MOE002, MOE004; rewrites/split/hidden_reductions.py).
    "partitioner-reduction": "the halves' reductions are ops of the text (in a lowered program that leaves "
                             "them to the SPMD partitioner, they are made per half after partitioning: "
                             "rewrite that form)",
    # A row mask a grouped matmul makes redundant (MOE006).
    "mask-gmm-form": "the GMM groups the rows of its lhs (ragged rows, no batch dimensions) and the mask is in "
                     "its computation",
    "mask-predicate": "the mask's predicate compares an iota with a scalar bound (through broadcasts, size-1 "
                      "reshapes, widening converts and call arguments)",
    "mask-dim": "the mask's iota counts along the GMM's ragged (row) dimension",
    "mask-bound": "the mask keeps exactly the rows below the sum of the group sizes the GMM reads",
    "mask-kept": "the mask keeps, on the rows below the bound, the GMM's own lhs or result",
    "mask-false-value": "a mask on a GMM's result fills the other rows with +0, what the GMM writes there",
    "mask-users": "every user of a masked lhs is a GMM over the same row groups (for any other the select "
                  "stays: nothing saved)",
    "mask-kernel": "every GMM that writes or reads the masked rows runs on a kernel known to write +0 to the rows "
                   "past the groups and to read none of them (the platform and kernel the entry point names)",
    # The expert FFN as one kernel (MOE005).
    "ffn-sigmoid-form": "silu's sigmoid is 1 / (1 + exp(-x)) (or logistic), the arithmetic the fused kernels do, "
                        "not jax's subnormal-preserving select(x >= 0, 1, e) / (1 + e), e = exp(-|x|)",
    "ffn-halves": "the gate and up values are the two column halves of one GMM's result, or two GMMs of the "
                  "same tokens",
    "ffn-gmm-form": "both GMMs are [T, D] x [E, D, N] -> [T, N] in jax's dimension numbers, in one computation, "
                    "with matching expert and F sizes",
    "ffn-group-sizes": "both GMMs group the rows by provably the same group sizes",
    "ffn-element-type": "the GMM results, the activation and the product are in one float type (f32 or bf16), "
                        "the weights in one",
    "ffn-intermediate-users": "nothing but the chain reads the up-projection, the activation or the product "
                              "(else it would be computed twice)",
    "ffn-placement": "the GMMs' operands are whole on each device (a kernel call's operands would be gathered "
                     "by the partitioner)",
    # The price.
    "loop-carried": "the halves meet in the loop iteration that gathers them (not carried to the next one in the "
                    "while's state, as XLA's collective pipeliner carries them)",
    "does-not-pay": "by the cost model (docs/cost-model.md) the fix saves more than it costs per device",
    # Not a legality check: the rule raised.
    "internal-error": "the rule ran to the end (it raised: a bug, reported with where it happened)",
}


# Ids a plugin's rule declared with their meanings (``declare``), apart from the table above.
_DECLARED: dict[str, str] = {}


class Refusal(Exception):
    """A failed legality check: ``check`` names it (an id of the table), ``instr`` is where it
    failed; ``provenance``, when given, the op inside ``instr`` (a fusion) it failed at, whose
    metadata names the source line (see ``report.location_of``)."""

    def __init__(self, check: str, reason: str, instr: Instruction, provenance: Instruction | None = None) -> None:
        super().__init__(reason)
        self.check = check
        self.reason = reason
        self.instr = instr
        self.provenance = provenance


def declare(check: str, text: str) -> None:
    """Give a plugin's own check id its meaning; an id that already means something else is refused."""
    known = meaning(check)
    if known is not None and known != text:
        raise ValueError(f"check id {check!r} already means {known!r}")
    if not check or "\n" in text or not text:
        raise ValueError(f"check id {check!r}: an id and a one-line meaning are needed")
    _DECLARED[check] = text


def meaning(check: str) -> str | None:
    """What ``check`` requires, or None for an id neither this table nor a plugin declared."""
    return CHECKS.get(check) or _DECLARED.get(check)


def legend(checks: Iterable[str | None]) -> list[str]:
    """``check: meaning`` lines for the distinct known ids among ``checks`` (a near miss without
    a check id gives None), in order of first use."""
    seen: dict[str, None] = {}
    for check in checks:
        if check is not None and meaning(check) is not None:
            seen.setdefault(check, None)
    return [f"{check}: {meaning(check)}" for check in seen]
