"""The split engine's shared types, below every strategy: what a half is (``Chain``, the slice it
starts with: ``Cut``; a step: ``step_kind``), what a source found (``SourcePlan``) and where halves
meet (``Meeting``, the base of ``meetings``' kinds).  The modules above name these; they import
nothing above the IR readers (``chains``, ``crossings``, ``fusions``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir import Instruction, Shape
from ...ir.rewriter import Operand, Rewriter
from .crossings import Boundary, result_shape
from .fusions import FusedValue


@dataclass(frozen=True)
class Cut:
    """The slice a chain starts with: ``sliced`` is the slice op (in a fusion's body,
    for a start seen through a fusion of optimized HLO: ``fused``), cutting result
    ``result`` of ``whole``."""

    sliced: Instruction
    whole: Instruction | FusedValue
    result: int
    fused: bool

    @property
    def spec(self) -> tuple[Any, ...]:
        return tuple(self.sliced.attributes["slice"])

    @property
    def shape(self) -> Shape:
        return self.sliced.shape

    @property
    def full(self) -> Shape:
        """The shape of the array cut."""
        if self.fused or not isinstance(self.whole, Instruction):
            return self.whole.shape
        return result_shape(self.whole, self.result)



@dataclass
class Chain:
    """One half: where it starts (its slice of W, or its GMM) and the steps from there up
    to where halves meet.

    A step is an op, or a ``Boundary`` where the value enters or leaves a called
    body (a shard_map), so a chain can start outside a manual computation and end
    inside it (Shardy's implicit gathers).
    """

    start: Instruction
    ops: list[Any]  # list[Instruction | Boundary]: the start's user first
    cut: Cut | None = None  # the slice the start is (None for a GMM)
    # A start that is itself the array (``PairSource``): the result of it the first op reads,
    # and the chain as walked when the source moved its start up (``Source.settle``).
    result: int | None = None
    walked: "Chain | None" = None
    callers: dict[Any, Any] | None = field(default=None, repr=False)  # of the module (callers_of), for the cost
    # A resharded half (``reshard``): where its piece starts in the array gathered, for ordering.
    place: int | None = None

    @property
    def top(self) -> Instruction:
        last = self.ops[-1] if self.ops else self.start
        return last.after if isinstance(last, Boundary) else last

    @property
    def base(self) -> tuple[Instruction | FusedValue | None, int]:
        """(value, result) the chain's first op reads: the array its slice cuts, or a GMM's first operand."""
        if self.cut is not None:
            return self.cut.whole, self.cut.result
        if self.result is not None:
            return self.start, self.result
        return (self.start.operands[0], self.start.operand_results[0]) if self.start.operands else (None, 0)

    @property
    def origin(self) -> Instruction:
        """The op whose metadata says where the start came from (inside a fusion, for a fused slice)."""
        return self.cut.sliced if self.cut is not None else self.start

    @property
    def compiled(self) -> bool:
        """Seen through a fusion of optimized HLO somewhere: reported, never rewritten."""
        return (self.cut is not None and self.cut.fused) or any(
            isinstance(step, Boundary) and step.compiled for step in self.ops)


def step_kind(step: Instruction | Boundary) -> str:
    """What a step is, for comparing two halves' paths: an op's opcode, a boundary's kind."""
    return step.kind if isinstance(step, Boundary) else step.opcode


@dataclass
class SourcePlan:
    """What ``check`` found: the split dimension, the halves' sizes along it, and
    whatever ``whole`` needs to build the fused start."""

    split_dim: int
    sizes: list[int]
    extra: Any = field(default=None)
    # Two weights joined shard by shard (``pairs.PairSource``): how many shards of the split
    # dimension each weight enters a shard_map in, one block per shard; 1: joined whole.
    blocks: int = 1
    # Halves interleaved with this stride (``check_interleaved``): the fused result is split
    # with it, half i taking the elements i, i + stride, …; 1: side by side.
    stride: int = 1
    # The step (index in the chains' ops) whose gather along the split dimension puts the halves'
    # resharded pieces back together (``reshard.ReshardSource``): applied to the array they are
    # cut from, it gathers that array whole.  None: no step works along the split dimension.
    reassembled: int | None = None
    # Two weights of equal size (``pairs.PairSource``): the width of each one's piece, per
    # device, where they are joined.  Gathered along the joined dimension after that, the
    # fused value holds them in blocks of this width (block k: piece k of each weight in
    # turn); 0: a gather along it is refused (the weights differ in size).
    block: int = 0
    # The joined dimension's split across devices changes to fewer shards on the way (an
    # implicit gather along it): the join is shard by shard, but no shard_map splits it.
    gathered: bool = False
    # Two weights' gradients reduce-scattered along the joined dimension (``apart``, F on a
    # second FSDP axis): the fused start joins them in blocks of this width (block k: each one's
    # k-th in turn), so that the scatter leaves each device its blocks side by side; 0: a
    # scatter along it is refused.
    scattered: int = 0
    # Why the halves' GMMs are kept as written (``engine``: one GMM on the joined operand would
    # round differently on the backend that runs the program, its dots summing in an order that
    # depends on their shape): only the collectives are fused, the GMMs read (or are joined into)
    # slices and concatenates, which copy.  None: the GMMs, if any, are merged into one.
    gmms_kept: str | None = None
    # Kept GMMs whose reductions are combined, one collective of both results per step
    # (``engine.combinable``: optimized HLO), instead of joined and reduced once: no copy.
    combined: bool = False


class Meeting:
    """Where the halves meet (see the module docstring).  ``anchor``: the instruction
    the site is reported at; ``pieces``: the (value, result) of each half there."""

    form: str
    anchor: Instruction
    dim: int | None = None  # the dimension the halves are joined along, where they are
    dims: tuple[Any, ...] | None = None  # every dimension the joining op names (text may name several)
    compiled: bool = False  # inside optimized HLO: reported, not rewritten
    gmms: list[Instruction] | None = None
    # The halves never meet again: each end keeps its own users (MOE004's two weights' gradients).
    ends_apart: bool = False

    @property
    def shape(self) -> Shape:
        return self.anchor.shape

    @property
    def origin(self) -> Instruction:
        """The op whose metadata says where the meeting came from (for reports)."""
        return self.anchor

    def check(self, chains: list[Chain], split_dims: list[int]) -> int | None:
        return None

    def added_bytes(self, chains: list[Chain]) -> int:
        """Bytes per device of a copy the meeting's replacement makes (a reorder into W's layout)."""
        return 0

    def single_use_part(self, chains: list[Chain]) -> list[Any]:
        """The parts of the chains whose values nothing else may use (all of them, where halves meet)."""
        return chains

    # Whether the halves are put back together into one array there (a concatenate, pad + add):
    # the rewrite removes that copy.  Halves that meet at two GMMs are read where they are.
    joins: bool = False
    # Whether each half is the weight of a GMM of its own: the fix runs one GMM instead.
    gmm_launches: bool = False
    # Halves interleaved with this stride in the fused value (``SourcePlan.stride``), in blocks
    # of ``block`` elements (two weights gathered along the joined dimension), set by the
    # rewrite before ``replace``: only a meeting that splits the fused result reads them.
    interleave: int = 1
    block: int = 1

    def replace(self, rw: Rewriter, value: Operand, out_dim: int | None, total: int) -> None:
        raise NotImplementedError
