"""The walk down from a piece where halves meet to where a half starts (``chain_below``), and what
one pass of a rule shares with its finders (``Scan``): the module's callers, read when first asked
(``Callers``), the places known to lead nowhere.
"""
from __future__ import annotations

import functools

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...ir import Instruction, Module
from ...ir.analysis import callers_of
from ...rule import PatternRule
from .chains import is_chain_op
from .cost import CollectiveModel
from .crossings import BOUNDARY_AT, Boundary
from .dequant import dequant_operand
from .fusions import FusedCopy
from .sources import Source, cut_of
from .types import Chain


# The steps that are not ops of the chain's computation, by the opcode a walk
# down stands on: shard_map boundaries, and (optimized HLO) a fusion that only
# copies.  A fusion that slices is where a chain starts (``SliceSource``).
_STEP_AT: dict[str, type[Boundary]] = {**BOUNDARY_AT, FusedCopy.found_at: FusedCopy}

# Longer chains are not followed: a real one is a few gathers, converts and
# boundaries long, and the cap keeps every pass linear in the module's size
# (each start of a walk costs at most this many steps).
MAX_CHAIN_STEPS = 64


class Callers(dict[str, list[Instruction]]):
    """``callers_of(module)``, filled when first asked about a computation other than the entry
    (which nothing calls): a site of the entry is matched and priced without a pass over the
    whole module to list the callers of every computation.  Readers ask with ``get``."""

    def __init__(self, module: Module) -> None:
        super().__init__()
        self._module: Module | None = module
        self._entry = module.entry.name if module.entry is not None else None

    def _fill(self) -> None:
        if self._module is not None:
            module, self._module = self._module, None
            self.update(callers_of(module))

    def get(self, key: str, default: Any = None) -> Any:
        if self._module is not None and key == self._entry:
            return default
        self._fill()
        return super().get(key, default)

    def __getitem__(self, key: str) -> list[Instruction]:
        self._fill()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return super().__iter__()

    def __len__(self) -> int:
        self._fill()
        return super().__len__()

    def keys(self) -> Any:
        self._fill()
        return super().keys()

    def values(self) -> Any:
        self._fill()
        return super().values()

    def items(self) -> Any:
        self._fill()
        return super().items()


@dataclass
class Scan:
    """One pass of a rule over a module: what its finders share."""

    module: Module
    rule: PatternRule[Any]  # the rule scanning: its name, its checks (``refusal``)
    callers: dict[Any, Any]
    steps: CollectiveModel  # the rule's collectives (``SplitFusion.steps``)
    sources: tuple[Source, ...]  # where its halves start
    covered: set[Any] = field(default_factory=set)  # ops of chains that met in a concatenate
    dead: set[tuple[int, int]] = field(default_factory=set)  # where a walk down ends nowhere (see chain_below)
    pads: dict[Any, Any] = field(default_factory=dict)  # pieces under each add (see _meetings.pad_meeting)

    def __post_init__(self) -> None:
        # Read once per pass, not once per walk: ``chain`` is asked for every candidate piece.
        self.collectives = self.steps.collectives

    def chain(self, value: Instruction, result: int = 0) -> Chain | None:
        return chain_below(value, self.callers, self.steps, self.sources, result, self.dead)


def chain_below(value: Instruction, callers: dict[str, list[Instruction]], steps: CollectiveModel,
                sources: tuple[Source, ...], result: int = 0,
                dead: set[tuple[int, int]] | None = None) -> Chain | None:
    """The chain that ends in result ``result`` of ``value``, if it starts where one of
    ``sources`` starts chains and communicates on the way.

    ``dead`` (shared by the walks of one pass) holds the places from which the
    walk down is known to end nowhere: where it goes from a place depends only
    on the place, so no walk repeats another one's way to nothing.
    """
    ops: list[Any] = []
    seen: list[tuple[int, int]] = []
    found = _walk_down(value, callers, sources, result, dead, ops, seen)
    if found is None:
        if dead is not None and len(ops) <= MAX_CHAIN_STEPS:
            dead.update(seen)
        return None
    ops.reverse()
    communicates = steps.communicates
    for op in ops:
        if communicates(op):
            break
    else:
        # Collectives over groups of one device only (a mesh axis of size 1): nothing to fuse,
        # but the chain is kept so that the rule says so (a near miss, ``group-of-one``).
        if not any(steps.over_one_device(op) for op in ops):
            return None
    start, start_result, at_dead_end = found
    if at_dead_end:
        return next(s for s in sources if s.at_dead_end).settle(
            Chain(start, ops, None, start_result, callers=callers), steps)
    return Chain(start, ops, cut_of(start), callers=callers)


@functools.lru_cache(maxsize=64)
def _start_opcodes(sources: tuple[Source, ...]) -> frozenset[str]:
    return frozenset().union(*(s.start_opcodes for s in sources))


def _starts(sources: tuple[Source, ...], instr: Instruction, steps: int) -> bool:
    for source in sources:
        if source.starts_chain(instr, steps):
            return True
    return False


def _walk_down(value: Instruction, callers: dict[str, list[Instruction]], sources: tuple[Source, ...], result: int,
               dead: set[tuple[int, int]] | None, ops: list[Instruction | Boundary],
               seen: list[tuple[int, int]]) -> tuple[Instruction, int, bool] | None:
    """Follow ``value`` down its first operands to where a source starts; the steps go to ``ops``.
    Returns (the start, its result, whether the walk stopped only because it could go no further:
    a start of a source whose chains begin at any array, ``Source.at_dead_end``)."""
    cur = value
    starts = _start_opcodes(sources)
    while True:
        if cur.opcode in starts and _starts(sources, cur, len(ops)):
            break
        if ops:
            key = (id(cur), result)
            if dead is not None and key in dead:
                return None
            seen.append(key)
        if len(ops) > MAX_CHAIN_STEPS:
            return None
        boundary = _STEP_AT.get(cur.opcode)
        if boundary is not None:
            step = boundary.follow(cur, result, callers)
            if step is None:
                return _dead_end(cur, result, sources, len(ops))
            ops.append(step)
            cur, result = step.source(result)
            continue
        # A half's int8/fp8 value multiplied by its scale (``dequant``): the walk goes on
        # down the quantized operand; the scale is checked where the halves meet.
        k = 0 if is_chain_op(cur) else dequant_operand(cur)
        if k is None:
            return _dead_end(cur, result, sources, len(ops))
        ops.append(cur)
        cur, result = cur.operands[k], cur.operand_results[k]
    if cur.opcode == "slice" and len(cur.operands) != 1:
        return None  # a slice needs its one operand (text that parsed without it)
    return cur, result, False


def _dead_end(cur: Instruction, result: int, sources: tuple[Source, ...], steps: int) -> tuple[Any, ...] | None:
    """Where a walk can go no further: a start for a source that takes any array there."""
    if any(s.at_dead_end and s.starts_chain(cur, steps) for s in sources):
        return cur, result, True
    return None
