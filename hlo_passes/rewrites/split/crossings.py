"""Values that enter a called body: shard_map boundaries in both dialects.

Under Shardy the FSDP gather of a weight is implicit: the weight (or each of
its halves) becomes an operand of the manual computation, and the sharding
it enters with decides what each device sees.  Spellings:

* StableHLO: ``sdy.manual_computation(%a, %b) in_shardings=[...]`` whose
  region's block arguments are the local views;
* HLO from jax: ``custom-call(...), custom_call_target="xla.sdy.GlobalToLocalShape"``
  → ``get-tuple-element`` per operand → ``call(...), to_apply=xla.sdy.manual_computation_body.N``;
* HLO after import or partitioning: per-operand ``SPMDFullToShardShape``
  custom calls (ordinary chain ops) feeding a plain ``call``.

Each way a chain crosses a boundary is a ``Boundary``: ``follow`` finds it
from the instruction a walk down a chain stands on, ``source`` is the value
the walk goes on with, ``check`` holds it against the other halves' crossings
of the same boundary, ``merge`` sends the whole array through the first half's
crossing, and ``drop`` removes the other halves' once nothing uses them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ...checks import Refusal
from ...ir import Computation, Instruction, Shape, Sharding, Value
from ...ir.rewriter import Operand, Rewriter, as_value
from ...ir.analysis import is_sharding_call, resized
from ...dialects.shardy import per_value, per_value_text
from ...dialects.shardy import same as same_sharding
from .chains import INCONSISTENT, dim_size

ENTRY_TARGET = "xla.sdy.GlobalToLocalShape"


class Boundary:
    """A chain's step from one computation into another (no op of its own in the
    chain's computation): into or out of a called body, or through a fusion's
    body in optimized HLO (``fusions.FusedCopy``).

    ``kind`` names the step in the path two halves must share; ``shape`` is the
    value's shape after the step, ``after`` the instruction that holds it,
    ``users`` what reads it there.
    """

    # Seen through a fusion of optimized HLO: the site is reported, not rewritten.
    compiled: ClassVar[bool] = False

    kind: ClassVar[str]
    # The opcode of the instruction a walk down stands on when it reaches this boundary.
    found_at: ClassVar[str]

    @classmethod
    def follow(cls, instr: Instruction, result: int, callers: dict[str, list[Instruction]]) -> "Boundary | None":
        raise NotImplementedError

    def source(self, result: int) -> tuple[Instruction, int]:
        """(value, result) on the other side, where the walk down goes on."""
        raise NotImplementedError

    @staticmethod
    def check(steps: list[Any], split_dim: int) -> None:
        """All halves cross the same way, the split dimension whole; a ``Refusal`` if not."""
        raise NotImplementedError

    @staticmethod
    def merge(rw: Rewriter, steps: list[Any], value: Operand, split_dim: int,
              total: int) -> tuple[Instruction, int, list[Instruction]]:
        """Send ``value`` (all of the array) through the first step: (the value on the far
        side, its result, instructions left without a use)."""
        raise NotImplementedError

    def drop(self, rw: Rewriter) -> list[Instruction]:
        """Remove this half's crossing once nothing uses it; returns what was cut loose."""
        raise NotImplementedError

    def drop_order(self) -> tuple[int, ...]:
        """Sort key: dropping in this order keeps the indices still to drop valid."""
        raise NotImplementedError

    def entry_sharding(self) -> tuple[str | None, Instruction] | None:
        """(the sharding text a value enters with, the value outside) if crossing reshards."""
        return None

    @property
    def reshards(self) -> bool:
        """Whether crossing changes how the value is sharded (an implicit gather or scatter)."""
        return False

    @property
    def origin(self) -> Instruction:
        """The op whose metadata says where the step came from (for reports)."""
        return self.after

    # What each kind of boundary says of the value on its far side.
    @property
    def shape(self) -> Shape:
        raise NotImplementedError

    @property
    def after(self) -> Instruction:
        raise NotImplementedError

    @property
    def ref(self) -> str:
        raise NotImplementedError

    @property
    def users(self) -> list[Instruction]:
        raise NotImplementedError

    @property
    def computation(self) -> Computation | None:
        raise NotImplementedError


@dataclass(eq=False)
class Crossing(Boundary):
    """A value entering a called body: operand ``index`` of ``caller`` becomes ``param``."""

    caller: Instruction  # sdy.manual_computation, or the HLO call
    index: int  # operand of ``caller`` that becomes ``param``
    param: Instruction
    entry: Instruction | None = None  # HLO GlobalToLocalShape custom call
    entry_index: int | None = None
    gte: Instruction | None = None
    # The value outside is where a chain starts and stays (two weights, ``pairs``): its
    # other users keep reading it, so they are no reason to refuse.
    outside_kept: bool = False
    # Other shard_maps the halves enter alike (``shared_callers``), found by ``check``: the whole
    # array enters them too, each reading its halves as slices of it (``merge``).
    shared: tuple[Instruction, ...] = ()

    kind: ClassVar[str] = "crossing"
    found_at: ClassVar[str] = "parameter"

    @property
    def entered(self) -> tuple[Instruction, int, Instruction] | None:
        """HLO's way in: (the GlobalToLocalShape call, the operand of it, its get-tuple-element)."""
        if self.entry is None:
            return None
        assert self.entry_index is not None and self.gte is not None, "an entry call without its index"
        return self.entry, self.entry_index, self.gte

    @property
    def outside(self) -> Instruction:
        entered = self.entered
        return entered[0].operands[entered[1]] if entered is not None else self.caller.operands[self.index]

    shape = property(lambda self: self.param.shape)
    after = property(lambda self: self.param)
    ref = property(lambda self: self.param.ref)
    users = property(lambda self: self.param.users)

    @property
    def computation(self) -> Computation | None:
        return self.param.computation

    @classmethod
    def follow(cls, instr: Instruction, result: int, callers: dict[str, list[Instruction]]) -> "Crossing | None":
        return crossing_into(instr, callers)

    def source(self, result: int) -> tuple[Instruction, int]:
        # The result of a multi-result value that enters (a barrier's, a tuple's).
        entered = self.entered
        if entered is not None:
            return self.outside, entered[0].operand_results[entered[1]]
        return self.outside, self.caller.operand_results[self.index]

    check = staticmethod(lambda steps, split_dim, blocks=1: check_crossings(steps, split_dim, blocks))

    @staticmethod
    def merge(rw: Rewriter, steps: list[Any], value: Operand, split_dim: int,
              total: int) -> tuple[Instruction, int, list[Instruction]]:
        loose = [steps[0].outside]
        for other in steps[0].shared:
            loose.extend(enter_whole(rw, other, steps, value, split_dim, total))
        return merge_crossings(rw, steps, value, split_dim, total), 0, loose

    def drop(self, rw: Rewriter) -> list[Instruction]:
        return drop_crossing(rw, self)

    def drop_order(self) -> tuple[int, ...]:
        return (0, -self.index, -(self.entry_index or 0))

    def entry_sharding(self) -> tuple[str | None, Instruction] | None:
        return (self.in_sharding(), self.outside) if self.reshards else None

    @property
    def reshards(self) -> bool:
        """Whether entering changes how the value is sharded (an implicit gather or scatter)."""
        return self.caller.opcode == "sdy.manual_computation" or self.entry is not None

    def in_sharding(self) -> str | None:
        """The sharding this operand enters with, as source text (None for a plain call)."""
        if self.caller.opcode == "sdy.manual_computation":
            if "in_shardings" not in self.caller.attributes:
                raise Refusal("unknown-sharding", f"{self.caller.ref} has no in_shardings", self.caller)
            return _nth(self.caller.attributes["in_shardings"], self.index, self.caller, "in_shardings")
        entered = self.entered
        if entered is not None:
            return _nth(_per_value(entered[0]), entered[1], entered[0], "xla.sdy.in_shardings")
        return None


def _nth(values: Sequence[object], index: int, instr: Instruction, what: str) -> str:
    """Entry ``index`` of a per-operand or per-result list, refusing a list too short."""
    if not 0 <= index < len(values):
        raise Refusal("unknown-sharding", f"{what} of {instr.ref} lists {len(values)} value(s), none for "
                      f"number {index}", instr)
    return str(values[index])


def crossing_into(param: Instruction, callers: dict[str, list[Instruction]]) -> Crossing | None:
    """How ``param`` is fed from outside its computation, if we can follow it."""
    comp = param.computation
    number = param.attributes.get("parameter_number")
    if comp is None or number is None:
        return None
    parent = comp.parent
    if parent is not None:
        if parent.opcode != "sdy.manual_computation" or number >= len(parent.operands):
            return None
        return Crossing(parent, number, param)
    sites = callers.get(comp.name, [])
    if len(sites) != 1 or sites[0].opcode != "call" or number >= len(sites[0].operands):
        return None
    call = sites[0]
    fed = call.operands[number]
    if (
        fed.opcode == "get-tuple-element"
        and fed.operands  # a get-tuple-element without its operand: malformed text carried through
        and fed.operands[0].opcode == "custom-call"
        and fed.operands[0].attributes.get("custom_call_target") == ENTRY_TARGET
    ):
        index = fed.attributes.get("index")
        if not isinstance(index, int) or not 0 <= index < len(fed.operands[0].operands):
            return None  # a get-tuple-element past the operands of the GlobalToLocalShape call
        return Crossing(call, number, param, fed.operands[0], index, fed)
    return Crossing(call, number, param)


def check_crossings(crossings: list[Crossing], split_dim: int, blocks: int = 1) -> None:
    """All halves enter the same body the same way, and the split dimension stays whole (or,
    for two weights joined shard by shard, is split into exactly those ``blocks``: each device
    gets its shard of both)."""
    first = crossings[0]
    shared: tuple[Instruction, ...] | None = None  # looked for once, where a half has other readers
    for c in crossings:
        if c.caller is not first.caller or c.entry is not first.entry:
            raise Refusal("same-collectives", f"{c.ref} enters {c.caller.ref}, not {first.caller.ref}", c.param)
        if not same_sharding(c.in_sharding(), first.in_sharding()):
            raise Refusal("same-collectives", f"{c.ref} enters {c.caller.ref} sharded {c.in_sharding()}, "
                          f"{first.ref} {first.in_sharding()}", c.param)
        outside = result_shape(*c.source(0))  # the result that enters, of a multi-result value
        if (dim_size(outside, split_dim, c.param, f"{c.outside.ref} entering {c.caller.ref}")
                != dim_size(c.param.shape, split_dim, c.param) * (blocks if c.reshards else 1)):
            raise Refusal("split-dim-sharded", f"{c.caller.ref} shards the split dimension {split_dim} of "
                          f"{c.ref} ({outside} outside, {c.param.shape} inside)", c.param)
        if len(c.outside.users) != 1 and not c.outside_kept and shared is None:
            shared = shared_callers(crossings)
        if (c.gte is not None and len(c.gte.users) != 1) or (
                len(c.outside.users) != 1 and not c.outside_kept and not shared):
            raise Refusal("extra-users", f"{c.outside.ref} is used outside {c.caller.ref} too", c.outside)
    for c in crossings:
        c.shared = shared or ()


def shared_callers(crossings: list[Crossing]) -> tuple[Instruction, ...]:
    """The other shard_maps each half enters as it enters the site's (empty where there are none,
    or one reads them otherwise): the rematerialized layer's recomputed forward and the backward's
    transpose (``jax.checkpoint``) both take the forward's halves, each as an operand of its own
    ``sdy.manual_computation`` (in HLO from jax, its own ``GlobalToLocalShape`` call).  The
    partitioner gathers a half for each, and XLA's CSE runs the equal gathers once: the site's
    collectives.  Fused, each of them takes the whole array instead (``enter_whole``), which the CSE
    gathers once.  Each must be one of the site's computation, take each half once, with the site's
    sharding and local shape: it gathers exactly what the site gathers.  Only the halves the chains
    start with (a slice: nothing else between it and the boundary, ``_check_single_use`` holds the
    rest) may be read so, which the fused whole dominates.  Returned: what reads the halves there
    (the manual computation, or the ``GlobalToLocalShape`` call)."""
    first = crossings[0]
    way_in = first.entry if first.entry is not None else first.caller
    if not first.reshards:
        return ()  # a plain call: no gather at its entry
    others: dict[int, Instruction] = {}
    for c in crossings:
        readers = [u for u in c.outside.users if u is not way_in]
        if way_in.operands.count(c.outside) != 1 or not readers:
            return ()
        for reader in readers:
            others.setdefault(id(reader), reader)
    for other in others.values():
        if other.computation is not way_in.computation or other.opcode != way_in.opcode:
            return ()
        for c in crossings:
            mine = _entering(other, c.outside)
            if mine is None or not same_sharding(mine.in_sharding(), c.in_sharding()) \
                    or mine.param.shape != c.param.shape:
                return ()
    return tuple(others.values())


def _entering(reader: Instruction, outside: Instruction) -> Crossing | None:
    """How ``outside`` enters the shard_map ``reader`` is the way into (a manual computation, or an
    HLO ``GlobalToLocalShape`` call), if it is one operand of it and is followed to one parameter."""
    if reader.operands.count(outside) != 1:
        return None
    index = reader.operands.index(outside)
    if reader.opcode == "sdy.manual_computation":
        body = next((c for c in reader.called_computations if c.parent is reader), None)
        if body is None or index >= len(body.parameters):
            return None
        return Crossing(reader, index, body.parameters[index])
    if reader.opcode != "custom-call" or reader.attributes.get("custom_call_target") != ENTRY_TARGET:
        return None
    gtes = [u for u in reader.users if u.opcode == "get-tuple-element" and u.attributes.get("index") == index]
    if len(gtes) != 1 or len(gtes[0].users) != 1:
        return None
    (gte,), call = gtes, gtes[0].users[0]
    if call.opcode != "call" or call.operands.count(gte) != 1 or len(call.called_computations) != 1:
        return None
    number = call.operands.index(gte)
    return Crossing(call, number, call.called_computations[0].parameters[number], reader, index, gte)


def enter_whole(rw: Rewriter, reader: Instruction, crossings: list[Crossing], value: Operand, split_dim: int,
                total: int) -> list[Instruction]:
    """Feed ``value`` (the whole array) into the shard_map ``reader`` is the way into (one of
    ``shared_callers``) in place of the halves, each read inside as its slice of it; returns what
    was cut loose."""
    entering = [_entering(reader, c.outside) for c in crossings]
    assert all(e is not None for e in entering), "checked by shared_callers"
    ways = [e for e in entering if e is not None]
    body = ways[0].param.computation
    assert body is not None
    # The whole array enters as the parameter the body lists first (HLO lists each where it is
    # first read), and the halves' slices of it go right after it: before every reader of a half.
    order = body.instructions
    kept = min(ways, key=lambda e: order.index(e.param))
    halves = [e.param.shape for e in ways]
    readers = {id(e.param): list(e.param.users) for e in ways}
    merge_crossings(rw, [kept, *(e for e in ways if e is not kept)], value, split_dim, total)
    offset = 0
    for e, shape in zip(ways, halves):
        width = shape.dims[split_dim]
        piece = rw.slice_along(kept.param, split_dim, offset, width, shape, after=kept.param)
        offset += width
        for user in readers[id(e.param)]:
            for n, operand in enumerate(list(user.operands)):
                if operand is e.param:
                    rw.set_operand(user, n, Value(piece, 0))
    loose: list[Instruction] = []
    for e in sorted((e for e in ways if e is not kept), key=lambda e: e.drop_order()):
        loose.extend(drop_crossing(rw, e))
    return loose


def merge_crossings(rw: Rewriter, crossings: list[Crossing], value: Operand, split_dim: int, total: int) -> Instruction:
    """Feed ``value`` (all of W) through the first crossing; returns its body parameter.

    The other halves' operands and parameters are dropped by
    ``drop_crossing`` once nothing inside uses them any more.
    """
    first = crossings[0]
    param = first.param
    entered = first.entered
    if entered is not None:
        entry, index, gte = entered
        rw.set_operand(entry, index, value)
        shapes = list(entry.shape.tuple_shapes)
        shapes[index] = resized(shapes[index], split_dim, total)
        rw.set_shape(entry, Shape.tuple_of(shapes))
        rw.set_shape(gte, resized(gte.shape, split_dim, total))
    else:
        rw.set_operand(first.caller, first.index, value)
    rw.set_shape(param, resized(param.shape, split_dim, total))
    return param


def drop_crossing(rw: Rewriter, c: Crossing) -> list[Instruction]:
    """Remove an operand that no longer feeds anything inside; returns what was cut loose."""
    if c.param.users:
        raise RuntimeError(f"{c.param.ref} is still used inside {c.caller.ref}")
    loose = []
    rw.erase_parameter(c.param)
    if c.caller.opcode == "sdy.manual_computation":
        loose.append(rw.remove_operand(c.caller, c.index))
        shardings = list(c.caller.attributes["in_shardings"])
        del shardings[c.index]
        rw.set_attribute(c.caller, "in_shardings", tuple(shardings))
        return loose
    loose.append(rw.remove_operand(c.caller, c.index))
    entered = c.entered
    if entered is None:
        return loose
    entry, index, gte = entered
    rw.erase(gte)
    loose.append(rw.remove_operand(entry, index))
    shapes = list(entry.shape.tuple_shapes)
    del shapes[index]
    rw.set_shape(entry, Shape.tuple_of(shapes))
    for user in entry.users:
        if user.opcode == "get-tuple-element" and int(user.attributes["index"]) > index:
            rw.set_attribute(user, "index", int(user.attributes["index"]) - 1)
    _drop_sharding_element(rw, entry, index)
    if "xla.sdy.in_shardings" not in _frontend(entry):
        return loose  # jax 0.12: the operand's own Sharding call carried it
    attrs = dict(entry.attributes["frontend_attributes"])
    values = per_value(attrs["xla.sdy.in_shardings"])
    assert values is not None, "read when the crossing was found (_per_value)"
    del values[index]
    attrs["xla.sdy.in_shardings"] = per_value_text(values)
    rw.set_attribute(entry, "frontend_attributes", attrs)
    return loose


def _frontend(instr: Instruction) -> dict[Any, Any]:
    return instr.attributes["frontend_attributes"] if "frontend_attributes" in instr.attributes else {}


def _sharding_text(instr: Instruction) -> str | None:
    if "sharding" not in instr.attributes:
        return None
    return instr.attributes.raw("sharding") or str(instr.attributes["sharding"])


def _per_value(entry: Instruction) -> list[str]:
    """The per-operand shardings of a GlobalToLocalShape call, as text.

    jax 0.10.2's XLA lists them in the call's frontend attribute
    ``xla.sdy.in_shardings``; jax 0.12's puts each operand through a
    ``Sharding`` custom call that carries it.
    """
    if "xla.sdy.in_shardings" not in _frontend(entry):
        each = [_sharding_text(op) if is_sharding_call(op) else None for op in entry.operands]
        known = [v for v in each if v is not None]
        if len(known) != len(each):
            raise Refusal("unknown-sharding", f"cannot read the in_shardings of {entry.ref}: neither "
                          "xla.sdy.in_shardings nor a Sharding custom call per operand", entry)
        return known
    text = entry.attributes["frontend_attributes"].get("xla.sdy.in_shardings", "")
    listed = per_value(text)
    if listed is None:
        raise Refusal("unknown-sharding", f"cannot read the in_shardings of {entry.ref}: {text[:80]}", entry)
    return listed


@dataclass(eq=False)
class Exit(Boundary):
    """A value leaving a shard_map: operand ``result`` of the body's terminator
    becomes result ``result`` of the ``sdy.manual_computation`` (the weight
    gradient's halves leave this way under Shardy)."""

    caller: Instruction
    result: int
    terminator: Instruction

    kind: ClassVar[str] = "exit"
    found_at: ClassVar[str] = "sdy.manual_computation"

    @classmethod
    def follow(cls, instr: Instruction, result: int, callers: dict[str, list[Instruction]]) -> "Exit | None":
        return exit_from(instr, result)

    def source(self, result: int) -> tuple[Instruction, int]:
        return self.inside, self.inside_result

    check = staticmethod(lambda steps, split_dim: check_exits(steps, split_dim))

    @staticmethod
    def merge(rw: Rewriter, steps: list[Any], value: Operand, split_dim: int,
              total: int) -> tuple[Instruction, int, list[Instruction]]:
        loose = [steps[0].inside]
        caller, result = merge_exits(rw, steps, value, split_dim, total)
        return caller, result, loose

    def drop(self, rw: Rewriter) -> list[Instruction]:
        return [drop_exit(rw, self)]

    def drop_order(self) -> tuple[int, ...]:
        return (1, -self.result)

    after = property(lambda self: self.caller)

    @property
    def inside(self) -> Instruction:
        return self.terminator.operands[self.result]

    @property
    def inside_result(self) -> int:
        return self.terminator.operand_results[self.result]

    @property
    def shape(self) -> Shape:
        return result_shape(self.caller, self.result)

    @property
    def computation(self) -> Computation | None:
        return self.caller.computation

    @property
    def ref(self) -> str:
        return f"{self.caller.ref}#{self.result}"

    @property
    def users(self) -> list[Instruction]:
        return result_users(self.caller, self.result)

    def out_sharding(self) -> str:
        return _nth(self.caller.attributes["out_shardings"], self.result, self.caller, "out_shardings")


def result_shape(instr: Instruction, result: int) -> Shape:
    """The shape of one result of a (possibly multi-result) op."""
    if instr.num_results > 1 and instr.shape.is_tuple:
        if not 0 <= result < len(instr.shape.tuple_shapes):
            raise Refusal(INCONSISTENT, f"{instr.ref} has {len(instr.shape.tuple_shapes)} results, "
                          f"no result {result}", instr)
        return instr.shape.tuple_shapes[result]
    return instr.shape


def result_users(instr: Instruction, result: int) -> list[Instruction]:
    """The users of one result of ``instr``, each once."""
    module = instr.module
    seen: dict[Instruction, None] = {}
    if module is not None:
        for _, user, key in module.graph.out_edges(instr, keys=True):
            if user.operand_results[key] == result:
                seen[user] = None
    return list(seen)


def exit_from(caller: Instruction, result: int) -> Exit | None:
    """How result ``result`` of ``caller`` is made inside its body, if it is a shard_map."""
    if caller.opcode != "sdy.manual_computation":
        return None
    bodies = [c for c in caller.called_computations if c.parent is caller]
    if len(bodies) != 1 or not bodies[0].instructions:
        return None
    term = bodies[0].instructions[-1]
    if not term.is_terminator or result >= len(term.operands):
        return None
    return Exit(caller, result, term)


def check_exits(exits: list[Exit], split_dim: int) -> None:
    """All halves leave the same shard_map the same way, with the split dimension whole."""
    first = exits[0]
    for e in exits:
        if e.caller is not first.caller:
            raise Refusal("same-collectives", f"{e.ref} leaves {e.caller.ref}, not {first.caller.ref}", e.caller)
        if not same_sharding(e.out_sharding(), first.out_sharding()):
            raise Refusal("same-collectives", f"{e.ref} leaves sharded {e.out_sharding()}, "
                          f"{first.ref} {first.out_sharding()}", e.caller)
        inside = result_shape(e.inside, e.inside_result)
        if (dim_size(inside, split_dim, e.caller, f"{e.inside.ref} leaving {e.caller.ref}")
                != dim_size(e.shape, split_dim, e.caller, e.ref)):
            raise Refusal("split-dim-sharded", f"{e.caller.ref} shards the split dimension {split_dim} of "
                          f"{e.ref} ({inside} inside, {e.shape} outside)", e.caller)
        if len(result_users(e.inside, e.inside_result)) != 1:
            raise Refusal("extra-users", f"{e.inside.ref} is used inside {e.caller.ref} too", e.inside)


def merge_exits(rw: Rewriter, exits: list[Exit], value: Operand, split_dim: int, total: int) -> tuple[Instruction, int]:
    """Return ``value`` (all of the array) through the first exit; returns (caller, its result)."""
    first = exits[0]
    rw.set_operand(first.terminator, first.result, value)
    caller = first.caller
    shapes = list(caller.shape.tuple_shapes) if caller.num_results > 1 else [caller.shape]
    shapes[first.result] = resized(shapes[first.result], split_dim, total)
    rw.set_shape(caller, Shape.tuple_of(shapes) if caller.num_results > 1 else shapes[0])
    return caller, first.result


def drop_exit(rw: Rewriter, e: Exit) -> Instruction:
    """Remove a result nothing outside uses any more; returns the inside value it carried."""
    caller = e.caller
    if result_users(caller, e.result):
        raise RuntimeError(f"{e.ref} is still used")
    inside = rw.remove_operand(e.terminator, e.result)
    shapes = list(caller.shape.tuple_shapes)
    del shapes[e.result]
    rw.set_shape(caller, Shape.tuple_of(shapes) if len(shapes) > 1 else shapes[0], num_results=len(shapes))
    shardings = list(caller.attributes["out_shardings"])
    del shardings[e.result]
    rw.set_attribute(caller, "out_shardings", tuple(shardings))
    # Later results move down one place, for every use of them.
    module = caller.module
    assert module is not None
    for _, user, key in list(module.graph.out_edges(caller, keys=True)):
        r = user.operand_results[key]
        if r > e.result:
            rw.set_operand(user, key, Value(caller, r - 1))
    rw.shrink_result_group(caller)
    return inside


EXIT_TARGET = "xla.sdy.LocalToGlobalShape"


@dataclass(eq=False)
class HloExit(Boundary):
    """The HLO spelling of leaving a shard_map: the body's root tuple element
    ``element`` → ``get-tuple-element`` of the ``call`` → operand ``result`` of
    ``xla.sdy.LocalToGlobalShape`` → its ``get-tuple-element`` outside."""

    call: Instruction
    element: int
    inner_gte: Instruction
    exit_call: Instruction | None  # the LocalToGlobalShape custom call (None after import)
    result: int
    outer_gte: Instruction

    kind: ClassVar[str] = "exit"
    found_at: ClassVar[str] = "get-tuple-element"

    @classmethod
    def follow(cls, instr: Instruction, result: int, callers: dict[str, list[Instruction]]) -> "HloExit | None":
        return hlo_exit_from(instr, callers)

    def source(self, result: int) -> tuple[Instruction, int]:
        return self.inside, self.inside_result

    check = staticmethod(lambda steps, split_dim: check_hlo_exits(steps, split_dim))

    @staticmethod
    def merge(rw: Rewriter, steps: list[Any], value: Operand, split_dim: int,
              total: int) -> tuple[Instruction, int, list[Instruction]]:
        loose = [steps[0].inside]
        outside = merge_hlo_exits(rw, steps, value, split_dim, total)
        # Its old users (the first half's chain outside) are dead code now.
        loose.extend(outside.users)
        return outside, 0, loose

    def drop(self, rw: Rewriter) -> list[Instruction]:
        return [drop_hlo_exit(rw, self)]

    def drop_order(self) -> tuple[int, ...]:
        return (1, -self.result)

    after = property(lambda self: self.outer_gte)

    @property
    def root(self) -> Instruction:
        root = self.call.called_computations[0].root
        assert root is not None, "hlo_exit_from found the root"
        return root

    @property
    def inside(self) -> Instruction:
        return self.root.operands[self.element]

    @property
    def inside_result(self) -> int:
        return self.root.operand_results[self.element]

    @property
    def caller(self) -> Instruction:
        return self.call

    shape = property(lambda self: self.outer_gte.shape)
    computation = property(lambda self: self.outer_gte.computation)
    ref = property(lambda self: self.outer_gte.ref)
    users = property(lambda self: self.outer_gte.users)

    def out_sharding(self) -> str:
        if self.exit_call is None:  # after Shardy import: SPMDShardToFullShape ops follow
            return ""
        return _nth(_shardings_of(self.exit_call, "xla.sdy.out_shardings"), self.result, self.exit_call,
                    "xla.sdy.out_shardings")


def hlo_exit_from(gte: Instruction, callers: dict[str, list[Instruction]]) -> HloExit | None:
    """``gte(LocalToGlobalShape(..., gte(call), ...))``: where a shard_map result is made."""
    if gte.opcode != "get-tuple-element":
        return None
    exit_call = gte.operands[0]
    if exit_call.opcode == "call":
        # After Shardy import the body's results are read straight off the call.
        body = exit_call.called_computations[0] if exit_call.called_computations else None
        element = int(gte.attributes["index"])
        if (body is None or body.root is None or body.root.opcode != "tuple"
                or len(callers.get(body.name, [])) != 1 or element >= len(body.root.operands)):
            return None
        return HloExit(exit_call, element, gte, None, element, gte)
    if exit_call.opcode != "custom-call" or exit_call.attributes.get("custom_call_target") != EXIT_TARGET:
        return None
    result = int(gte.attributes["index"])
    inner = exit_call.operands[result] if result < len(exit_call.operands) else None
    if inner is None or inner.opcode != "get-tuple-element" or inner.operands[0].opcode != "call":
        return None
    call = inner.operands[0]
    body = call.called_computations[0] if call.called_computations else None
    if body is None or body.root is None or body.root.opcode != "tuple" or len(callers.get(body.name, [])) != 1:
        return None
    element = int(inner.attributes["index"])
    if element >= len(body.root.operands):
        return None
    return HloExit(call, element, inner, exit_call, result, gte)


def _shardings_of(instr: Instruction, key: str) -> list[str]:
    """Per-result shardings of a shard_map exit: the frontend attribute ``key``
    (jax 0.10.2), or the elements of its tuple sharding (jax 0.12)."""
    if key not in _frontend(instr) and "sharding" in instr.attributes:
        sharding = instr.attributes["sharding"]
        if isinstance(sharding, Sharding) and sharding.kind == "tuple":
            return [str(s) for s in sharding.tuple_shardings]
    text = _frontend(instr).get(key, "")
    values = per_value(text)
    if values is None:
        raise Refusal("unknown-sharding", f"cannot read {key} of {instr.ref}: {text[:80]}", instr)
    return values


def check_hlo_exits(exits: list[HloExit], split_dim: int) -> None:
    first = exits[0]
    for e in exits:
        if e.call is not first.call or e.exit_call is not first.exit_call:
            raise Refusal("same-collectives", f"{e.ref} leaves {e.call.ref}, not {first.call.ref}", e.outer_gte)
        if e.out_sharding() != first.out_sharding():
            raise Refusal("same-collectives", f"{e.ref} leaves sharded {e.out_sharding()}, "
                          f"{first.ref} {first.out_sharding()}", e.outer_gte)
        if (dim_size(e.inside.shape, split_dim, e.outer_gte, f"{e.inside.ref} leaving {e.call.ref}")
                != dim_size(e.shape, split_dim, e.outer_gte)):
            raise Refusal("split-dim-sharded", f"{e.call.ref} shards the split dimension {split_dim} of "
                          f"{e.ref} ({e.inside.shape} inside, {e.shape} outside)", e.outer_gte)
        if len(e.inside.users) != 1 or len(e.inner_gte.users) != 1 or e.exit_call is not None and len(
                [u for u in e.exit_call.users if u.attributes.get("index") == e.result]) != 1:
            raise Refusal("extra-users", f"{e.ref} is used more than once on its way out of {e.call.ref}",
                          e.outer_gte)


def _set_element(rw: Rewriter, instr: Instruction, index: int, shape: Shape) -> None:
    shapes = list(instr.shape.tuple_shapes)
    shapes[index] = shape
    rw.set_shape(instr, Shape.tuple_of(shapes))


def merge_hlo_exits(rw: Rewriter, exits: list[HloExit], value: Operand, split_dim: int, total: int) -> Instruction:
    """Return ``value`` through the first exit; returns the outside value now holding all of it."""
    first = exits[0]
    root = first.root
    shape = as_value(value).shape
    rw.set_operand(root, first.element, value)
    _set_element(rw, root, first.element, shape)
    _set_element(rw, first.call, first.element, shape)
    rw.set_shape(first.inner_gte, shape)
    if first.exit_call is not None:
        outside = resized(first.outer_gte.shape, split_dim, total)
        _set_element(rw, first.exit_call, first.result, outside)
        rw.set_shape(first.outer_gte, outside)
    return first.outer_gte


def drop_hlo_exit(rw: Rewriter, e: HloExit) -> Instruction:
    """Remove a shard_map result nothing uses any more; returns the inside value it carried."""
    if e.outer_gte.users:
        raise RuntimeError(f"{e.ref} is still used")
    if e.outer_gte.computation is not None:  # not already swept away as dead code
        rw.erase(e.outer_gte)
    if e.exit_call is not None:
        old_values = _shardings_of(e.exit_call, "xla.sdy.out_shardings")
        _drop_element(rw, e.exit_call, e.result)  # its tuple sharding (jax 0.12) too
        rw.remove_operand(e.exit_call, e.result)
        if "xla.sdy.out_shardings" in _frontend(e.exit_call):
            attrs = dict(e.exit_call.attributes["frontend_attributes"])
            del old_values[e.result]
            attrs["xla.sdy.out_shardings"] = "#sdy.sharding_per_value<[" + ", ".join(old_values) + "]>"
            rw.set_attribute(e.exit_call, "frontend_attributes", attrs)
        rw.erase(e.inner_gte)
    inside = rw.remove_operand(e.root, e.element)
    shapes = list(e.root.shape.tuple_shapes)
    del shapes[e.element]
    rw.set_shape(e.root, Shape.tuple_of(shapes))
    _drop_sharding_element(rw, e.root, e.element)
    _drop_element(rw, e.call, e.element)
    return inside


def _drop_element(rw: Rewriter, tuple_op: Instruction, index: int) -> None:
    """Remove element ``index`` of a tuple-shaped op; later get-tuple-elements move down."""
    shapes = list(tuple_op.shape.tuple_shapes)
    del shapes[index]
    rw.set_shape(tuple_op, Shape.tuple_of(shapes))
    _drop_sharding_element(rw, tuple_op, index)
    for user in tuple_op.users:
        if user.opcode == "get-tuple-element" and int(user.attributes["index"]) > index:
            rw.set_attribute(user, "index", int(user.attributes["index"]) - 1)


def _drop_sharding_element(rw: Rewriter, instr: Instruction, index: int) -> None:
    """A tuple sharding (``{{manual}, {manual}}``) loses the element its tuple lost."""
    if "sharding" not in instr.attributes:
        return
    sharding = instr.attributes["sharding"]
    if isinstance(sharding, Sharding) and sharding.kind == "tuple" and index < len(sharding.tuple_shardings):
        elements = list(sharding.tuple_shardings)
        del elements[index]
        rw.set_attribute(instr, "sharding", replace(sharding, tuple_shardings=tuple(elements)))


# Where a walk down a chain meets each kind of boundary: by the opcode it stands on.
BOUNDARY_AT: dict[str, type[Boundary]] = {kind.found_at: kind for kind in (Crossing, Exit, HloExit)}
