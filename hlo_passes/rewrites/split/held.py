"""Collectives as GPU and TPU pipelines hold them: asynchronous pairs and combined ops.

XLA:GPU's and XLA:TPU's optimized modules hold a collective as an asynchronous pair
(``all-gather-start`` / ``all-gather-done``, ``all-reduce-start`` / ``-done``, and
``reduce-scatter-start`` / ``-done``: XLA's print of an ``async-start`` wrapping a
reduce-scatter), and XLA's combiners (``AllGatherCombiner`` and its siblings) put several
collectives of one kind into one op with several operands, whose tuple result
``get-tuple-element``s read; a combined op may be asynchronous too.

The rules follow chains of plain collectives.  So a rule that meets held collectives of its
kinds reads the module with each of them taken apart (``unhold``): one plain collective per
operand, where the held op was, with the held op's attributes, marked with the group it came
from.  After the rule, each group is held again as it was held (``hold_again``): its
members that are left, and the collectives a rewrite cloned from a member (the engine clones
the first half's collective for the whole weight), become one pair, one combined op, or one
combined pair again, built from the original op (same attributes, backend config included);
a group left with one member is a plain pair (or a plain op: a combiner does not tuple one).
The start goes where the last member was (all their operands are there), the done right
before the first reader: as late as XLA's scheduler puts it.

``through_held`` runs a rule this way; a rule that finds no site to rewrite leaves the
module as it was (it looked at a taken-apart copy).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...ir import Computation, Instruction, Module, Shape
from ...ir.analysis import behaviour, same_calls
from ...ir.op_table import Trait, op, with_trait
from ...ir.rewriter import Rewriter
from ...pass_interface import Changes, PassContext
from .chains import in_dependency_order

# The metadata key a taken-apart collective carries: the group it came from.  Metadata is what
# a clone and an op made ``like=`` another carry along, and what no rule compares.
MARK = "hlo_passes_held"
# The metadata key of a member a rule moved into another group (``regroup``): the rule's name.
JOINED = "hlo_passes_joined"
_SUFFIX = "-start"


@dataclass
class Group:
    """One held op, taken apart: ``start`` (the combined op, or the async start) and ``done``
    (None: a combined op that is not asynchronous), erased from the module but kept to be
    cloned again; ``kind``: the collective it holds."""

    key: str
    kind: str
    start: Instruction
    done: Instruction | None
    members: list[Instruction] = field(default_factory=list)  # the plain collectives it became
    # The async-updates between start and done (``reduce-scatter-update``: XLA's print of an
    # async-update of a wrapped collective), in order: cloned again between the new pair.
    updates: list[Instruction] = field(default_factory=list)


@dataclass
class Held:
    """The groups ``unhold`` took apart, by key."""

    groups: dict[str, Group] = field(default_factory=dict)


def held_kind(instr: Instruction) -> str | None:
    """The collective ``instr`` holds as a pipeline holds it (an async start, or a combined
    op), or None."""
    row = op(instr.opcode)
    if row is None:
        return None
    if Trait.ASYNC_START in row.traits:
        if row.wraps is not None:
            return row.wraps
        # XLA prints an async-start wrapping one collective as that collective's "-start".
        source = instr.source_op or ""
        return source[:-len(_SUFFIX)] if source.endswith(_SUFFIX) and source != instr.opcode else None
    if Trait.COLLECTIVE in row.traits and row.wraps is None and instr.shape.is_tuple and len(instr.operands) > 1:
        return instr.opcode
    return None


def _chain_of(start: Instruction) -> tuple[list[Instruction], Instruction] | None:
    """(updates, done) of the async op ``start`` begins: each op of the chain read by the next
    alone (an async-update passes the async context on and computes nothing: the collective's
    result is the done's).  None where something else reads the context."""
    updates: list[Instruction] = []
    cur = start
    while True:
        users = cur.users
        if len(users) != 1 or not users[0].operands or users[0].operands[0] is not cur:
            return None
        row = op(users[0].opcode)
        if row is None:
            return None
        if Trait.ASYNC_DONE in row.traits:
            return updates, users[0]
        if Trait.ASYNC_UPDATE not in row.traits or len(users[0].operands) != 1:
            return None  # an update that binds more operands (jax 0.12's late binding): kept as it is
        updates.append(users[0])
        cur = users[0]


def start_of(done: Instruction) -> Instruction:
    """The async start a done finishes, through the updates between them."""
    cur = done.operands[0]
    while Trait.ASYNC_UPDATE in getattr(op(cur.opcode), "traits", ()) and cur.operands:
        cur = cur.operands[0]
    return cur


def _takeable(instr: Instruction, kinds: frozenset[str]
              ) -> tuple[str, Instruction | None, list[Instruction]] | None:
    """(kind, done, updates) of a held op of ``kinds`` that can be taken apart, or None."""
    kind = held_kind(instr)
    if kind is None or kind not in kinds or combined_by(instr) is not None:
        return None
    row = op(instr.opcode)
    asynchronous = row is not None and Trait.ASYNC_START in row.traits
    chain = _chain_of(instr) if asynchronous else None
    if asynchronous and chain is None:
        return None  # a start (or update) read by anything but the next op of its chain: kept as it is
    updates, done = chain if chain is not None else ([], None)
    reader = done if done is not None else instr
    results = _results(reader.shape)
    if len(results) != len(instr.operands) or not all(s.is_array for s in results):
        return None
    if reader.shape.is_tuple and any(u.opcode != "get-tuple-element" for u in reader.users):
        return None  # the tuple itself is passed on (to a while's state): kept as it is
    if reader.computation is not None and reader is reader.computation.root:
        return None
    return kind, done, updates


def _results(shape: Shape) -> tuple[Shape, ...]:
    return shape.tuple_shapes if shape.is_tuple else (shape,)


# The opcodes that can hold a collective (async starts, collectives): ``any_held`` asks the
# rest nothing.  It runs once per rule on every module a rule meets, most of whose ops are
# neither (the 60-layer module of the compile-time benchmark: 56 000 ops asked each time).
_HOLDING_OPCODES = frozenset(row.name for trait in (Trait.ASYNC_START, Trait.COLLECTIVE)
                             for row in with_trait(trait))


def _may_hold(module: Module) -> list[Instruction]:
    """The ops of ``module`` whose opcode can hold a collective."""
    return [i for i in module.instructions() if i.opcode in _HOLDING_OPCODES]


def any_held(module: Module, kinds: frozenset[str]) -> bool:
    """Whether ``module`` holds a collective of ``kinds`` that ``unhold`` takes apart."""
    return any(_takeable(i, kinds) is not None for i in _may_hold(module))


def unhold(rw: Rewriter, module: Module, kinds: Iterable[str], *, mark: bool = True,
           only: frozenset[str] | None = None) -> Held:
    """Take every held collective of ``kinds`` (``only``: of those, the ones of these names)
    apart into plain ones, marked with their group (``mark=False``: not marked, for good: what
    XLA:GPU's ConvertAsyncCollectivesToSync and a split of each combined op would make, which
    XLA:CPU runs)."""
    kinds = frozenset(kinds)
    held = Held()
    counter = itertools.count()
    for instr in _may_hold(module):
        taken = _takeable(instr, kinds)
        if taken is None or (only is not None and instr.name not in only):
            continue
        kind, done, updates = taken
        key = f"g{next(counter)}"
        held.groups[key] = Group(key, kind, instr, done, updates=updates)
        _take_apart(rw, held.groups[key], mark)
    return held


def _take_apart(rw: Rewriter, group: Group, mark: bool) -> None:
    start, done = group.start, group.done
    reader = done if done is not None else start
    members = []
    for k, (operand, shape) in enumerate(zip(start.operand_values, _results(reader.shape))):
        member = rw.create(group.kind, shape, [operand], before=start, name_hint=start.name, like=start,
                           called=list(start.called_computations))
        for key in start.attributes:
            if key != "metadata":
                rw.set_attribute(member, key, start.attributes[key])
        if mark:
            rw.set_attribute(member, "metadata", {**(_metadata(start) or {}), MARK: group.key})
        # Reported where the held op is written (a new op has no line of its own).
        member.line, member.column = start.line, start.column
        members.append(member)
    group.members = members
    if reader.shape.is_tuple:
        for gte in list(reader.users):
            rw.replace_all_uses(gte, members[gte.attributes["index"]])
            rw.erase(gte)
    else:
        rw.replace_all_uses(reader, members[0])
    for finished in ([done] if done is not None else []) + group.updates[::-1]:
        rw.erase(finished)
    rw.erase(start)


def _marked(module: Module, held: Held) -> tuple[dict[tuple[str, int], list[Instruction]],
                                                   list[tuple[Instruction, dict[str, Any]]]]:
    """The members of each of ``held``'s groups in ``module`` (and what a rewrite cloned from them),
    by group and computation; and every other op that carried a group's mark along, with its
    metadata."""
    members: dict[tuple[str, int], list[Instruction]] = {}
    strays: list[tuple[Instruction, dict[str, Any]]] = []
    for instr in list(module.instructions()):
        meta = _metadata(instr)
        key = meta.get(MARK) if meta is not None else None
        if meta is None or key is None:
            continue
        group = held.groups.get(key)
        if group is not None and instr.opcode == group.kind and instr.computation is not None:
            members.setdefault((key, id(instr.computation)), []).append(instr)
        else:
            strays.append((instr, meta))
    return members, strays


def hold_again(rw: Rewriter, module: Module, held: Held) -> list[str]:
    """Hold the members of each group (and what a rewrite cloned from them) as it was held;
    strip the mark from every other op that carried it along.  The names of the held ops a
    rewrite emptied whose rest found no op to ride in (``_ride_along``): each still runs."""
    members, strays = _marked(module, held)
    for instr, meta in strays:
        stripped = {k: v for k, v in meta.items() if k != MARK}
        if stripped:
            rw.set_attribute(instr, "metadata", stripped)
        else:
            rw.remove_attribute(instr, "metadata")
    comps: dict[int, Computation] = {}
    emptied: list[Instruction] = []
    for (key, comp_id), group_members in members.items():
        comp = group_members[0].computation
        assert comp is not None
        comps[comp_id] = comp
        group = held.groups[key]
        # Emptied: a member the rewrite took away, nothing it made (a fused collective cloned from
        # a member, a member moved in) held here in its place.
        originals = {id(m) for m in group.members}
        was_emptied = group.done is None and len(group.members) > len(group_members) and all(
            id(m) in originals and JOINED not in (_metadata(m) or {}) for m in group_members)
        made = _hold(rw, group, comp, group_members)
        if was_emptied:
            emptied.append(made)
    for comp in comps.values():
        in_dependency_order(rw, comp)
    stranded = []
    for made in emptied:
        name = made.name
        if not _ride_along(rw, made):
            stranded.append(name)
    return stranded


def held_group(instr: Instruction) -> str | None:
    """The group (held op) ``instr`` was taken apart from (``MARK``), None for a plain collective."""
    meta = _metadata(instr) if "metadata" in instr.attributes else None
    key = meta.get(MARK) if meta is not None else None
    return str(key) if key is not None else None


def _metadata(instr: Instruction) -> dict[Any, Any] | None:
    """``instr``'s metadata, decoded (None: none, or none that decodes)."""
    meta = instr.attributes.decoded("metadata")
    return meta if isinstance(meta, dict) else None


def _hold(rw: Rewriter, group: Group, comp: Computation, members: list[Instruction]) -> Instruction:
    """Hold ``members`` as ``group`` held its own; the op made (the start of a pair)."""
    place = {id(i): n for n, i in enumerate(comp.instructions)}
    members.sort(key=lambda m: place[id(m)])
    tupled = len(members) > 1
    operands = [m.operand_values[0] for m in members]
    results = [m.shape for m in members]
    result = Shape.tuple_of(results) if tupled else results[0]
    start_shape = _start_shape(group, [v.shape for v in operands], result, tupled)
    start = rw.clone(group.start, operands, start_shape, computation=comp, before=members[-1])
    joined = next((str(meta[JOINED]) for meta in map(_metadata, members) if meta and JOINED in meta), None)
    if joined is not None:
        # A rule moved a member here from another group (``regroup``): the op holds the site it
        # fused, read as one op from now on (``COMBINED_BY``).
        rw.mark(start, COMBINED_BY, joined)
    reader = start
    if group.done is not None:
        # The updates right after the start (each passes the async context, of the start's
        # shape, on), the done as late as the first reader after the start (an earlier one
        # pulls the pair up: in_dependency_order, below).
        context = start
        for update in group.updates:
            context = rw.clone(update, [context], start_shape, computation=comp, after=context)
        readers = [u for m in members for u in m.users
                   if u.computation is comp and place.get(id(u), -1) > place[id(members[-1])]]
        first = min(readers, key=lambda u: place[id(u)], default=None)
        reader = rw.clone(group.done, [context], result, computation=comp, before=first,
                          after=context if first is None else None)
    after = reader
    for k, member in enumerate(members):
        value: Instruction = reader
        if tupled:
            value = after = rw.create("get-tuple-element", member.shape, [reader], {"index": k}, after=after,
                                      name_hint="get-tuple-element", like=group.start)
        rw.replace_all_uses(member, value)
        rw.erase(member)
    return start


def _start_shape(group: Group, operands: list[Shape], result: Shape, tupled: bool) -> Shape:
    """The start's shape for ``operands`` and ``result``, in the structure of the original's:
    the result (all-reduce-start, a combined op), or (operands, result)."""
    original = group.start.shape
    if group.done is None or not original.is_tuple or len(original.tuple_shapes) != 2 \
            or original.tuple_shapes[1] != group.done.shape:
        return result
    # An async-start's operands are a tuple even for one (its wrapped computation's parameters).
    operand_part = Shape.tuple_of(operands) if tupled or group.start.opcode == "async-start" else operands[0]
    return Shape.tuple_of([operand_part, result])


# What a combined collective a rule made itself carries (``combine``, in the op's dialect data:
# a clone of the module keeps it): the rule that made it.  Such an op is read as the one op it is,
# never taken apart: taken apart, the site it fused would be found again in the rule's next round
# (and named a near miss, ``xla-combined``), though that round has nothing left to fuse.
COMBINED_BY = "combined_by"


def combined_by(instr: Instruction) -> str | None:
    """The rule that made ``instr`` a combined collective (``combine``), or None."""
    found = instr.marked(COMBINED_BY)
    return str(found) if found is not None else None


def combine(rw: Rewriter, members: list[Instruction], rule: str) -> Instruction:
    """One collective of ``members`` (plain collectives of one kind and the same attributes, in one
    computation, none reading another's result): XLA's combined form, the one its
    ``ReduceScatterCombiner`` and ``AllReduceCombiner`` make, cloned from the first member with
    each member's operand an operand of it and a tuple of their results, read by a
    ``get-tuple-element`` where each member was read.  Each operand is reduced (or gathered) as its
    member did it: the same devices, the same reduction, element by element — the numbers are the
    members'.  It goes where the last member was (every operand is computed by then); the
    computation is put in dependency order (a reader of an earlier member moves after it).
    Marked as made by ``rule`` (``COMBINED_BY``)."""
    comp = members[0].computation
    assert comp is not None and all(m.computation is comp for m in members), "members of one computation"
    place = {id(i): n for n, i in enumerate(comp.instructions)}
    members = sorted(members, key=lambda m: place[id(m)])
    operands = [m.operand_values[0] for m in members]
    result = Shape.tuple_of([m.shape for m in members])
    made = rw.clone(members[0], operands, result, computation=comp, before=members[-1])
    rw.mark(made, COMBINED_BY, rule)
    after = made
    for k, member in enumerate(members):
        after = rw.create("get-tuple-element", member.shape, [made], {"index": k}, after=after,
                          name_hint="get-tuple-element", like=member)
        rw.replace_all_uses(member, after)
    for member in members:
        rw.erase(member)
    in_dependency_order(rw, comp)
    return made


def regroup(rw: Rewriter, members: list[Instruction], rule: str) -> None:
    """One reduction of each half, at least one taken apart from a held op (``unhold``), go into the
    first such member's group (a plain one, of the same attributes, too): held again
    (``hold_again``), that group's one op reduces them all, beside what XLA's combiner had put
    there, each operand as its member did (the same devices, the same reduction, element by
    element) — the combined form of ``combine`` for collectives XLA had already combined with
    others.  The op is marked as made by ``rule`` (``COMBINED_BY``)."""
    key = next((k for k in map(held_group, members) if k is not None), None)
    assert key is not None, "a member of a held op"
    for member in members:
        rw.set_attribute(member, "metadata", {**(_metadata(member) or {}), MARK: key, JOINED: rule})


def _ride_along(rw: Rewriter, made: Instruction) -> bool:
    """The combined op ``made``, held again without a member the rewrite took away (moved into the
    site's one op, or replaced by the fused chain made from the other half's): what XLA's combiner
    put beside that member rides in the next op of its kind and attributes that is not computed
    from it — where the combiner, which runs before the pass, would have put it had the halves
    been one reduction when it ran.

    XLA's combiner combines, in program order, ops none of which reads another's result; a
    training step that reports its gradients' global norm computes each weight's sum of squares
    from the reduced gradient, so the combiner puts gate's sum of squares beside up's gradient
    (MaxText's apart step: ``(f32[], f32[8,128,256]) all-reduce(norm of wi_0, dW1)``).  Fused,
    dW1 leaves that op and the sum of squares would keep an op of its own: the compiled program
    would run as many all-reduces as before, and the site's "2 -> 1" would not be what runs.
    Each operand is reduced as before (one op of several operands reduces each on its own over
    the same devices), so the numbers are the same.  Nothing is done where no such op exists
    (False)."""
    comp = made.computation
    if comp is None:
        return False
    order = comp.instructions
    below = _computed_from(made, comp)
    start = order.index(made) + 1
    other = next((i for i in order[start:] if id(i) not in below and _rides_with(made, i)), None)
    if other is None:
        return False
    marked = made.marked(COMBINED_BY) or other.marked(COMBINED_BY)
    parts = [(op_, list(_results(op_.shape))) for op_ in (made, other)]
    operands = made.operand_values + other.operand_values
    merged = rw.clone(other, operands, Shape.tuple_of([r for _, rs in parts for r in rs]), computation=comp,
                      before=other)
    if marked is not None:
        rw.mark(merged, COMBINED_BY, marked)
    offset, after = 0, merged
    for op_, results in parts:
        if op_.shape.is_tuple:
            for gte in list(op_.users):
                moved = rw.create("get-tuple-element", gte.shape, [merged],
                                  {"index": offset + gte.attributes["index"]}, after=after,
                                  name_hint="get-tuple-element", like=gte)
                rw.replace_all_uses(gte, moved)
                rw.erase(gte)
                after = moved
        else:
            after = rw.create("get-tuple-element", op_.shape, [merged], {"index": offset}, after=after,
                              name_hint="get-tuple-element", like=op_)
            rw.replace_all_uses(op_, after)
        offset += len(results)
    for op_ in (made, other):
        rw.erase(op_)
    in_dependency_order(rw, comp)
    return True


def _rides_with(made: Instruction, other: Instruction) -> bool:
    """Whether ``other`` can take ``made``'s operands: a plain (not asynchronous) op of the same
    kind, attributes (but its channel) and reduction, every operand of one element type."""
    if other is made or other.opcode != made.opcode or other.computation is None:
        return False
    for op_ in (made, other):
        if op_ is other.computation.root or op_.shape.is_tuple and any(
                u.opcode != "get-tuple-element" for u in op_.users):
            return False  # a tuple passed on whole (a while's state) is kept as it is
    if behaviour(other).attributes != behaviour(made).attributes \
            or ("channel_id" in other.attributes) != ("channel_id" in made.attributes):
        return False
    if not same_calls(made, other):
        return False
    types = {v.shape.element_type for i in (made, other) for v in i.operand_values}
    return len(types) == 1


def _computed_from(instr: Instruction, comp: Computation) -> set[int]:
    """The ops of ``comp`` computed from ``instr`` (not itself)."""
    seen: set[int] = set()
    work = list(instr.users)
    while work:
        cur = work.pop()
        if id(cur) in seen or cur.computation is not comp:
            continue
        seen.add(id(cur))
        work.extend(cur.users)
    return seen


RunFn = Callable[[Module, Rewriter, PassContext], Changes]


def through_held(run: RunFn, module: Module, kinds: Iterable[str], rewriter: Rewriter,
                 context: PassContext) -> Changes:
    """``run(module, rewriter, context)`` (a rule's round) with the held collectives of
    ``kinds`` taken apart and held again, all through ``rewriter`` (the pipeline's).  Sites are
    looked for on a taken-apart trial copy first (``Rewriter.trial``): without a site to
    rewrite, ``module`` is not touched (and reports come from the copy, whose ops carry the
    module's lines); with one, the rule runs again on ``module`` taken apart."""
    kinds = frozenset(kinds)
    if not any_held(module, kinds):
        return run(module, rewriter, context)
    return _through_held(run, module, kinds, rewriter, context)


def _through_held(run: RunFn, module: Module, kinds: frozenset[str], rewriter: Rewriter,
                  context: PassContext) -> Changes:
    with rewriter.trial() as trial:
        trial_held = unhold(trial.prepare, trial.module, kinds)
        tried = run(trial.module, trial.tried, context)
        if rewriter.dry_run or not any(s.rewritten for s in tried.sites):
            return tried
        tangled = held_order_refusal(trial.module, trial_held)
        if tangled is not None:
            # Held again as one op, a group would read its own result: the rewrite is not made,
            # the sites are reported with why (the module is not touched).
            for site in tried.sites:
                if site.rewritten:
                    site.rewritten = False
                    site.details.not_rewritten = tangled
            return tried
        touched = _touched(trial.module, trial_held)
        stranded = hold_again(trial.prepare, trial.module, trial_held)
        if stranded:
            # A held op the rewrite took a reduction out of keeps running for what XLA put beside
            # it: the compiled program would run no fewer ops than before, and a site's "A -> B"
            # would not be what runs.  Not made, said why (the module is not touched).
            why = (f"held-alone: {', '.join(stranded)} would keep running for what XLA's combiner put beside "
                   "the reduction the rewrite takes out of it (no later op of its kind to ride in): the compiled "
                   "program would run as many collectives as before")
            for site in tried.sites:
                if site.rewritten:
                    site.rewritten = False
                    site.details.not_rewritten = why
            return tried
    # Only the held ops the rewrite changed are taken apart in the module (the others stay as
    # they are, names and all).
    held = unhold(rewriter, module, kinds, only=touched)
    changes = run(module, rewriter, context)
    hold_again(rewriter, module, held)
    return changes


def held_order_refusal(module: Module, held: Held) -> str | None:
    """Why ``module``, rewritten with ``held``'s ops taken apart, cannot have them held again (None:
    it can): a group one of whose members now reads another's result, through the rewrite (XLA's
    combiner put a value computed from one half's reduced gradient, a global norm's sum of squares,
    into the same op as the other half's reduction; fused, the halves' one reduction sits on both
    sides).  Holding it again would make an op read itself (``held-order``)."""
    members, _ = _marked(module, held)
    for (key, _), group_members in members.items():
        ids = {id(m): m for m in group_members}
        for member in group_members:
            seen: set[int] = set()
            stack = list(member.operands)
            while stack:
                op_ = stack.pop()
                if id(op_) in seen:
                    continue
                seen.add(id(op_))
                if id(op_) in ids:
                    return (f"held-order: {held.groups[key].start.name} would be held again as one op of "
                            f"{member.name} and {ids[id(op_)].name}, which {member.name} reads through the "
                            "rewrite: one op would read its own result")
                stack.extend(op_.operands)
    return None


def _touched(module: Module, held: Held) -> frozenset[str]:
    """The names of the held ops whose members a rewrite of ``module`` removed, or joined."""
    members = {id(m) for g in held.groups.values() for m in g.members}
    touched = {g.key for g in held.groups.values() if any(m.computation is None for m in g.members)}
    # A member a rule moved into another group (``regroup``): both groups.
    for g in held.groups.values():
        for m in g.members:
            now = held_group(m) if m.computation is not None else None
            if now is not None and now != g.key:
                touched |= {g.key, now}
    for instr in module.instructions():
        meta = _metadata(instr)
        if meta is not None and MARK in meta and id(instr) not in members:
            touched.add(meta[MARK])
    return frozenset(held.groups[k].start.name for k in touched if k in held.groups)
