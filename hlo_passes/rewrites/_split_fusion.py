"""The engine both MoE rules share: halves of one array that take the same
path apart and meet again.

A prefused MoE weight W[E, D, 2F] is sliced into gate and up halves, each
half goes through the same chain of ops on its own — collectives (all-gather
forward; reduce-scatter or all-reduce for the weight gradient), element-wise
ops such as convert or copy, sharding annotations, a shard_map boundary —
and the halves meet again:

* ``concat``: a concatenate along the split dimension;
* ``pad_add``: each half padded back to its place with zeros and the pads
  added (how jax's transpose of a slice reassembles a gradient);
* ``two_gmm``: each half is the weight of its own grouped matmul (GMM) with
  the same left-hand side and group sizes.

Replacement: the same chain applied once to the whole array, read directly
where the halves met (``concat``, ``pad_add``), or one GMM on it whose output
is sliced into the halves' results (``two_gmm``).  Applying an op to W and
then slicing equals slicing and then applying it, for every op allowed in a
chain, as long as no collective runs along the split dimension and nothing
resizes it: the checks below make sure of that, and refuse with a reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..gmm import kernel_calls
from ..gmm.kernel_calls import gmm_kernel
from ..ir import Instruction, Module, tag_created
from ..report import CollectiveCost, NearMiss, Site, bytes_received, location_of, note_instruction
from ._chains import (
    INCONSISTENT,
    WINDOWS,
    Refusal,
    dim_size,
    behaviour,
    check_windows,
    clone,
    is_chain_op,
    is_sharding_call,
    map_split_dim,
    remove_dead,
    resized,
    same_op,
    same_value,
    literal,
)
from ._picture import site_picture
from ._fusions import FusedView, fused_concats, fused_copy, fused_slice
from ._crossings import (
    Crossing,
    Exit,
    HloExit,
    callers_of,
    check_hlo_exits,
    check_crossings,
    check_exits,
    crossing_into,
    drop_crossing,
    drop_exit,
    drop_hlo_exit,
    hlo_exit_from,
    merge_hlo_exits,
    exit_from,
    merge_crossings,
    merge_exits,
    result_shape,
)

GMM_OPCODES = frozenset({"ragged-dot", "dot"})
# Copies the rewrite removes: their results are what bytes_saved counts.
_COPY_OPCODES = frozenset({"slice", "concatenate", "copy"})


@dataclass
class _Chain:
    """One half: its slice of W and the steps from the slice up to where halves meet.

    A step is an op, or a ``Crossing`` where the value enters a called body
    (a shard_map), so a chain can start outside a manual computation and end
    inside it (Shardy's implicit gathers).
    """

    slice: Instruction
    ops: list  # list[Instruction | Crossing]: the slice's user first

    @property
    def top(self) -> Instruction:
        last = self.ops[-1] if self.ops else self.slice
        return last.param if isinstance(last, Crossing) else last


def _is_step(step, collectives: frozenset[str], implicit: bool) -> bool:
    """A step that communicates: one of ``collectives``, or (``implicit``) a change of
    sharding that the partitioner turns into one (Shardy, GSPMD)."""
    if isinstance(step, Crossing):
        return implicit and step.reshards
    if step.opcode in collectives:
        return True
    return implicit and (step.opcode == "sdy.sharding_constraint" or is_sharding_call(step))


# Longer chains are not followed: a real one is a few gathers, converts and
# boundaries long, and the cap keeps every pass linear in the module's size
# (each start of a walk costs at most this many steps).
MAX_CHAIN_STEPS = 64


def _chain_below(value: Instruction, callers, collectives: frozenset[str], implicit: bool,
                 from_gmms: bool = False, result: int = 0, dead: set | None = None) -> _Chain | None:
    """The chain that ends in result ``result`` of ``value``, if it starts at a slice (or,
    with ``from_gmms``, at a GMM: the backward two-GMM form) and communicates on the way.

    ``dead`` (shared by the walks of one pass) holds the places from which the
    walk down is known to end nowhere: where it goes from a place depends only
    on the place, so no walk repeats another one's way to nothing.
    """
    ops: list = []
    cur = value
    seen: list[tuple[int, int]] = []
    found = _walk_down(value, callers, from_gmms, result, dead, ops, seen)
    if found is None:
        if dead is not None and found is None and len(ops) <= MAX_CHAIN_STEPS:
            dead.update(seen)
        return None
    cur = found
    ops.reverse()
    if not any(_is_step(op, collectives, implicit) for op in ops):
        return None
    return _Chain(cur, ops)


def _walk_down(value: Instruction, callers, from_gmms: bool, result: int, dead: set | None,
               ops: list, seen: list) -> Instruction | None:
    """Follow ``value`` down its first operands to a slice (or GMM); the steps go to ``ops``."""
    cur = value
    while cur.opcode != "slice" and not (from_gmms and ops and cur.opcode in GMM_OPCODES):
        if ops:
            key = (id(cur), result)
            if dead is not None and key in dead:
                return None
            seen.append(key)
        if len(ops) > MAX_CHAIN_STEPS:
            return None
        if cur.opcode == "sdy.manual_computation":
            out = exit_from(cur, result)
            if out is None:
                return None
            ops.append(out)
            cur, result = out.inside, out.inside_result
            continue
        if cur.opcode == "parameter":
            crossing = crossing_into(cur, callers)
            if crossing is None:
                return None
            ops.append(crossing)
            cur = crossing.outside
            continue
        if cur.opcode == "fusion":
            view = fused_slice(cur) or fused_copy(cur)
            if view is None:
                return None
            if view.opcode == "copy":
                ops.append(view)
                cur = view.operands[0]
            else:
                cur = view
            continue
        if cur.opcode == "get-tuple-element":
            out = hlo_exit_from(cur, callers)
            if out is None:
                return None
            ops.append(out)
            cur, result = out.inside, out.inside_result
            continue
        if not is_chain_op(cur):
            return None
        ops.append(cur)
        cur, result = cur.operands[0], cur.operand_results[0]
    if cur.opcode == "slice" and len(cur.operands) != 1:
        return None  # a slice needs its one operand (text that parsed without it)
    return cur


class PadMeeting:
    """``add(pad(a), pad(b), ...)`` that places each piece at its own offset with zeros
    elsewhere: the same value as ``concatenate(a, b, ...)``, seen as one."""

    opcode = "concatenate"

    def __init__(self, add: Instruction, pads: list[Instruction], dim: int) -> None:
        self.instr = add
        self.pads = pads
        self.operands = [p.operands[0] for p in pads]
        self.operand_results = [p.operand_results[0] if p.operand_results else 0 for p in pads]
        self.attributes = {"dimensions": (dim,)}
        self.shape = add.shape
        self.dialect_data = add.dialect_data
        self.called_computations: list = []
        self.num_results = 1

    name = property(lambda self: self.instr.name)
    ref = property(lambda self: self.instr.ref)
    line = property(lambda self: self.instr.line)
    column = property(lambda self: self.instr.column)
    users = property(lambda self: self.instr.users)
    computation = property(lambda self: self.instr.computation)
    module = property(lambda self: self.instr.module)


def _is_zero(instr: Instruction) -> bool:
    if instr.opcode == "broadcast" and instr.operands:
        return _is_zero(instr.operands[0])
    if instr.opcode != "constant":
        return False
    value = literal(instr)
    if value is None:
        return False
    kind, v = value
    if kind == "literal":
        return v in (0, 0.0, False) and not isinstance(v, (tuple, str))
    return re.fullmatch(r"dense<\s*(-?0(\.0*)?(e[+-]?0+)?|false)\s*>(\s*:.*)?", str(v).strip(), re.IGNORECASE) is not None


# An add of more zero-pads than this is not looked at as a reassembly (a
# weight is cut into a few pieces); the cap keeps the search linear.
MAX_PIECES = 64


def _pad_count(add: Instruction, memo: dict[int, int | None]) -> int | None:
    """How many pads an add tree reassembles: the add's operands are pads or
    single-use adds of the same kind; None if anything else is in it (or more
    than MAX_PIECES).  ``memo`` (one per pass) makes every add count once, so a
    chain of adds costs its length, not its length squared."""
    stack = [add]
    while stack:
        cur = stack[-1]
        if id(cur) in memo:
            stack.pop()
            continue
        todo = [op for op in cur.operands if op.opcode == "add" and len(op.users) == 1 and id(op) not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        count: int | None = 0
        for op in cur.operands:
            if op.opcode == "pad" and len(op.operands) == 2:
                count += 1
            elif op.opcode == "add" and len(op.users) == 1 and memo[id(op)] is not None:
                count += memo[id(op)]
            else:
                count = None
                break
            if count > MAX_PIECES:
                count = None
                break
        memo[id(cur)] = count
    return memo[id(add)]


def pad_meeting(add: Instruction, memo: dict[int, int | None] | None = None) -> PadMeeting | None:
    """The pieces an add of zero-pads reassembles, in offset order, if it is one."""
    count = _pad_count(add, {} if memo is None else memo)
    if count is None or count < 2:
        return None
    pads: list[Instruction] = []
    work = [add]
    while work:
        cur = work.pop()
        if cur.opcode == "add":
            work.extend(cur.operands)
        else:
            pads.append(cur)
    rank = add.shape.rank
    for p in pads:
        if p.shape.dims != add.shape.dims or not _is_zero(p.operands[1]) or "padding" not in p.attributes:
            return None
        spec = p.attributes["padding"]
        if not isinstance(spec, (tuple, list)) or len(spec) != rank:
            return None
    dims = set()
    for p in pads:
        spec = tuple(p.attributes["padding"])
        moved = [d for d, (lo, hi, interior) in enumerate(spec) if lo or hi or interior]
        if len(moved) != 1 or spec[moved[0]][2] != 0 or spec[moved[0]][0] < 0 or spec[moved[0]][1] < 0:
            return None
        dims.add(moved[0])
    if len(dims) != 1:
        return None
    dim = dims.pop()
    pads.sort(key=lambda p: p.attributes["padding"][dim][0])
    offset = 0
    for p in pads:
        if p.attributes["padding"][dim][0] != offset:
            return None  # overlapping or leaving a gap: not a reassembly
        piece = result_shape(p.operands[0], p.operand_results[0] if p.operand_results else 0)
        if not piece.is_array or piece.rank != add.shape.rank:
            return None
        offset += piece.dims[dim]
    if offset != add.shape.dims[dim]:
        return None
    return PadMeeting(add, pads, dim)


class SplitFusion:
    """A rule over split chains; subclasses say which collectives and meetings they own."""

    name: str
    description: str
    collectives: frozenset[str]
    # Count sharding changes (Shardy constraints, shard_map boundaries) as collectives.
    implicit: bool = False
    # Halves that meet as pad + pad + add (the transpose of slicing).
    meet_by_pads: bool = False

    # Halves that start as two GMMs (the two weight gradients of the two-GMM form).
    from_gmms: bool = False

    def _chain(self, value: Instruction, callers, result: int = 0, dead: set | None = None) -> _Chain | None:
        return _chain_below(value, callers, self.collectives, self.implicit, self.from_gmms, result, dead)

    def apply(self, module: Module, *, rewrite: bool) -> tuple[list[Site], list[NearMiss]]:
        sites: list[Site] = []
        misses: list[NearMiss] = []
        for candidate in list(self._candidates(module)):
            anchor = candidate[1]
            if anchor.computation is None:  # removed by an earlier site's rewrite
                continue
            try:
                sites.append(self._fuse(*candidate, rewrite=rewrite))
            except Refusal as refusal:
                misses.append(NearMiss(self.name, refusal.check, refusal.reason, location_of(refusal.instr)))
            except Exception as err:
                # A bug: run_passes turns it into an internal-error near miss at this site.
                note_instruction(err, anchor)
                raise
        return sites, misses

    # ---- pattern ---------------------------------------------------------
    def _candidates(self, module: Module):
        callers = callers_of(module)
        gmms_by_source: dict[tuple[int, int], list[tuple[Instruction, _Chain]]] = {}
        covered: set[int] = set()  # ops of chains that met in a fused concatenate
        dead: set[tuple[int, int]] = set()  # where a walk down ends nowhere (see _chain_below)
        pads: dict[int, int | None] = {}  # pieces under each add (see pad_meeting)
        current = None
        try:
            for instr in list(module.instructions()):
                current = instr
                if instr.opcode == "concatenate" and len(instr.operands) >= 2:
                    chains = [self._chain(op, callers, r, dead)
                              for op, r in zip(instr.operands, instr.operand_results)]
                    if all(c is not None for c in chains):
                        covered.update(id(op) for c in chains for op in c.ops)
                        yield ("concat", instr, chains)
                elif instr.opcode == "add" and self.meet_by_pads:
                    meeting = pad_meeting(instr, pads)
                    if meeting is not None:
                        chains = [self._chain(op, callers, r, dead)
                                  for op, r in zip(meeting.operands, meeting.operand_results)]
                        if all(c is not None for c in chains):
                            yield ("pad_add", meeting, chains)
                elif instr.opcode == "fusion":
                    for view in fused_concats(instr):
                        chains = [self._chain(op, callers, 0, dead) for op in view.operands]
                        if all(c is not None for c in chains):
                            covered.update(id(op) for c in chains for op in c.ops)
                            yield ("concat", view, chains)
                elif instr.opcode in GMM_OPCODES and len(instr.operands) >= 2:
                    chain = self._chain(instr.operands[1], callers, 0, dead)
                    if chain is not None:
                        src = chain.slice.operands[0]
                        key = (id(src), chain.slice.operand_results[0])
                        gmms_by_source.setdefault(key, []).append((instr, chain))
                elif gmm_kernel(instr) is not None:
                    for operand in instr.operands:
                        chain = self._chain(operand, callers, 0, dead)
                        if chain is not None:
                            src = chain.slice.operands[0]
                            key = (id(src), chain.slice.operand_results[0])
                            gmms_by_source.setdefault(key, []).append((instr, chain))
        except Exception as err:
            note_instruction(err, current)
            raise
        for group in gmms_by_source.values():
            if len(group) >= 2:
                yield ("two_gmm", group[0][0], [c for _, c in group], [g for g, _ in group])
        yield from self._split_collectives_in_fusions(module, callers, covered, dead)

    def _split_collectives_in_fusions(self, module: Module, callers, covered: set[int], dead: set):
        """Optimized HLO: halves of one array gathered (or reduced) apart, whatever
        consumes them.

        After fusion the GMMs and the pads are fusions that cannot be matched
        op for op; the lint still must see the split collectives, so they are
        reported as a site of their own (never rewritten).
        """
        by_source: dict[int, list[_Chain]] = {}
        for instr in module.instructions():
            if instr.opcode not in self.collectives or any(u.opcode in self.collectives for u in instr.users):
                continue
            if id(instr) in covered:
                continue  # reported as a concat site
            chain = self._chain(instr, callers, 0, dead)
            if chain is not None and isinstance(chain.slice, FusedView):
                by_source.setdefault(id(chain.slice.operands[0]), []).append(chain)
        for chains in by_source.values():
            # Between two stages a fusion may convert (bf16 round trips): the
            # first stage's chain is then a part of the second's, not a half.
            inner = {id(op) for c in chains for op in c.ops[:-1]}
            chains = [c for c in chains if id(c.ops[-1]) not in inner]
            if len(chains) >= 2:
                chains.sort(key=lambda c: tuple(r[0] for r in c.slice.attributes["slice"]))
                form = "split_gather" if "all-gather" in self.collectives else "split_reduction"
                yield (form, chains[0].top, chains)

    # ---- legality + replacement ------------------------------------------
    def _fuse(self, form: str, anchor: Instruction, chains: list[_Chain],
              gmms: list[Instruction] | None = None, *, rewrite: bool) -> Site:
        if chains[0].slice.opcode in GMM_OPCODES:
            if form not in ("concat", "pad_add"):
                raise Refusal("gmm-sources", "halves computed by separate GMMs must meet again", anchor)
            split_dim = tuple(anchor.attributes["dimensions"])[0]
            sizes, source = _check_gmm_sources(chains, split_dim)
        else:
            split_dim, sizes = _check_slices(chains)
            source = None
        split_dims = _check_chains(chains, split_dim)
        for g in gmms or ():
            kernel = gmm_kernel(g)
            if kernel is not None:
                why = _reemit_refusal(g)
                if why is not None:
                    raise Refusal("fixed-shape-kernel", f"{g.ref} runs a grouped-matmul kernel built for a fixed "
                                  f"shape ({kernel}); fusing the GMMs needs the kernel emitted again for the "
                                  f"fused weight: {why}", g)
        if form in ("split_gather", "split_reduction"):
            out_dim = None
        elif form in ("concat", "pad_add"):
            # A concatenate without its dimension (malformed text carried through) joins nothing we know.
            joined = anchor.attributes.get("dimensions")
            if joined is None or tuple(joined) != (split_dims[-1],):
                raise Refusal(
                    "concat-dim",
                    f"concatenate joins dimension {tuple(joined) if joined is not None else 'none given'} "
                    f"but the halves were split on dimension {split_dims[-1]}",
                    anchor,
                )
            out_dim = None
        else:
            out_dim = _check_gmms(gmms, chains, split_dims[-1])
        _check_single_use(chains)
        compiled = isinstance(anchor, FusedView) or any(
            isinstance(step, FusedView) for c in chains for step in [c.slice, *c.ops])
        if compiled:
            # Optimized HLO does not compile again, so such a site is only reported.
            rewrite = False

        before = CollectiveCost()
        after = CollectiveCost()
        removed_bytes = 0
        for chain in chains:
            for op in [chain.slice, *chain.ops]:
                if op.opcode in self.collectives:
                    before.add(op)
                elif _is_step(op, self.collectives, self.implicit):
                    before.count += 1  # implicit: the partitioner decides the bytes
                if op.opcode in _COPY_OPCODES:
                    removed_bytes += op.shape.byte_size
        added_bytes = 0
        if form == "concat":
            removed_bytes += anchor.shape.byte_size
        elif form == "pad_add":
            # The pads and the additions that put the halves back together.
            removed_bytes += sum(p.shape.byte_size for p in anchor.pads) + anchor.shape.byte_size * (len(anchor.pads) - 1)
        elif form == "two_gmm":
            # The activations are now sliced out of one GMM result.
            added_bytes = sum(g.shape.byte_size for g in gmms)
        total = sum(sizes)
        for k, op in enumerate(chains[0].ops):
            if op.opcode in self.collectives:
                full = resized(op.shape, split_dims[k], sum(c.ops[k].shape.dims[split_dims[k]] for c in chains))
                in_full = resized(op.operands[0].shape, split_dims[k],
                                  sum(c.ops[k].operands[0].shape.dims[split_dims[k]] for c in chains))
                after.count += 1
                after.bytes_moved += bytes_received(op.opcode, full.byte_size, in_full.byte_size)
            elif _is_step(op, self.collectives, self.implicit):
                after.count += 1
        bytes_saved = removed_bytes - added_bytes + before.bytes_moved - after.bytes_moved

        site = Site(
            rule=self.name, form=form, location=location_of(anchor), before=before, after=after,
            bytes_saved=bytes_saved, rewritten=rewrite, pieces=[location_of(c.slice) for c in chains],
            details={"halves": len(chains), "split_dim": split_dim, "split_sizes": sizes,
                     # The array the halves are cut from (or, for two GMMs, the first GMM).
                     "weight": (chains[0].slice.ref if chains[0].slice.opcode in GMM_OPCODES
                                else chains[0].slice.operands[0].ref),
                     "collectives": "explicit" if any(op.opcode in self.collectives for op in chains[0].ops)
                     else "implicit"},
        )
        try:  # a side product: drawing a site must never stop its rewrite
            site.picture = site_picture(
                self.name, form, anchor, chains, gmms, split_dim, split_dims, out_dim,
                f"collectives {before.count} -> {after.count}, saves {bytes_saved:,} bytes per device")
        except Exception as err:
            site.details["picture_error"] = f"{type(err).__name__}: {err}"
        if compiled:
            site.details["not_rewritten"] = ("the slice or concatenate sits inside a fusion of optimized HLO; "
                                             "rewrite the module before optimization (a lowering or an early dump)")
        if rewrite:
            _replace(self.name, form, anchor, chains, gmms, split_dims, out_dim, total, source)
        return site


def _reemit_refusal(gmm: Instruction) -> str | None:
    """None if the grouped-matmul kernel ``gmm`` runs can be emitted for the fused shape
    (Pallas megablox gmm for TPU); otherwise why not."""
    if kernel_calls.megablox_callee(gmm) is None:
        return "hlo_passes emits no kernel of this kind"
    return kernel_calls.reemit_refusal(gmm)


def _check_slices(chains: list[_Chain]) -> tuple[int, list[int]]:
    """The slices cut one source along one dimension into adjacent pieces, in order."""
    first = chains[0].slice
    source = first.operands[0]
    for c in chains[1:]:
        if c.slice.operands[0] is not source or c.slice.operand_results[0] != first.operand_results[0]:
            raise Refusal("same-source", f"{c.slice.ref} slices {c.slice.operands[0].ref}, "
                          f"not {source.ref} like {first.ref}", c.slice)
    full = result_shape(source, first.operand_results[0]).dims
    split_dim = None
    ranges = []
    for c in chains:
        spec = tuple(c.slice.attributes["slice"])
        if len(spec) != len(full) or c.slice.shape.rank != len(full):
            raise Refusal(INCONSISTENT, f"{c.slice.ref} slices {len(spec)} dimension(s) of "
                          f"{source.ref} (rank {len(full)}) into a result of rank {c.slice.shape.rank}", c.slice)
        ranges.append(spec)
        for d, (start, limit, stride) in enumerate(spec):
            if stride != 1:
                raise Refusal("slice-stride", f"{c.slice.ref} has stride {stride} in dimension {d}", c.slice)
            if (start, limit) != (0, full[d]):
                if split_dim is not None and split_dim != d:
                    raise Refusal("split-dim", f"the slices cut dimensions {split_dim} and {d}; "
                                  "only one split dimension can be fused", c.slice)
                split_dim = d
    if split_dim is None:
        raise Refusal("split-dim", "every slice takes all of the weight: nothing was split", first)
    pos = 0
    for c, spec in zip(chains, ranges):
        start, limit, _ = spec[split_dim]
        if start != pos:
            problem = "overlap" if start < pos else "leave a gap"
            check = "concat-order" if start > pos and any(
                s[split_dim][0] == pos for s in ranges) else "slices-adjacent"
            raise Refusal(check, f"{c.slice.ref} starts at {start} in dimension {split_dim}, where the "
                          f"previous piece ends at {pos}: the pieces {problem} or are out of order", c.slice)
        pos = limit
    if pos != full[split_dim]:
        raise Refusal("slices-cover", f"the slices end at {pos} but dimension {split_dim} of "
                      f"{source.ref} has {full[split_dim]}", chains[-1].slice)
    return split_dim, [s[split_dim][1] - s[split_dim][0] for s in ranges]


# Collectives that work along one dimension, and what they do there.
ALONG_A_DIMENSION = {"all-gather": "gather", "reduce-scatter": "scatter"}


def _check_chains(chains: list[_Chain], split_dim: int) -> list[int]:
    """Every half goes through the same ops; nothing gathers or shards along the split dimension."""
    first = chains[0]
    for c in chains[1:]:
        if [op.opcode for op in c.ops] != [op.opcode for op in first.ops]:
            raise Refusal("same-collectives",
                          f"the halves take different paths: {[op.opcode for op in first.ops]} vs "
                          f"{[op.opcode for op in c.ops]}", c.top)
    split_dims = []
    dim = split_dim
    for k, op in enumerate(first.ops):
        steps = [c.ops[k] for c in chains]
        if isinstance(op, Crossing):
            check_crossings(steps, dim)
            split_dims.append(dim)
            continue
        if isinstance(op, Exit):
            check_exits(steps, dim)
            split_dims.append(dim)
            continue
        if isinstance(op, HloExit):
            check_hlo_exits(steps, dim)
            split_dims.append(dim)
            continue
        for other in steps[1:]:
            if not same_op(other, op):
                raise Refusal("same-collectives",
                              f"{other.ref} and {op.ref} differ in {_difference(op, other)}", other)
            if other.computation is not op.computation:
                raise Refusal("same-computation", f"{other.ref} is in another computation than {op.ref}", other)
        if op.opcode in WINDOWS:
            check_windows(steps, dim)
        dim_in = dim
        dim = map_split_dim(op, dim)
        if op.opcode in ALONG_A_DIMENSION and "dimensions" not in op.attributes:
            raise Refusal(INCONSISTENT, f"{op.ref} does not say along which dimension it works", op)
        if op.opcode in ALONG_A_DIMENSION and dim in tuple(op.attributes["dimensions"]):
            verb = ALONG_A_DIMENSION[op.opcode]
            raise Refusal(f"{verb}-dim", f"{op.ref} {verb}s along dimension {dim}, the split dimension: "
                          f"{verb}ing the whole array would interleave the halves", op)
        for step in steps:
            before = result_shape(step.operands[0], step.operand_results[0])
            if (dim_size(before, dim_in, step, f"the operand of {step.ref}")
                    != dim_size(step.shape, dim, step)):
                raise Refusal("split-dim-sharded", f"{step.ref} changes the size of the split dimension "
                              f"({before} -> {step.shape})", step)
        split_dims.append(dim)
    return split_dims


def _difference(a: Instruction, b: Instruction) -> str:
    ba, bb = behaviour(a), behaviour(b)
    if ba[:2] != bb[:2]:
        return f"opcode or element type ({ba[0]} {ba[1]} vs {bb[0]} {bb[1]})"
    if ba[2] != bb[2]:
        return "channel kind (one has channel_id, the other not)"
    da, db = dict(ba[3]), dict(bb[3])
    keys = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    return ", ".join(f"{k} ({da.get(k)} vs {db.get(k)})" for k in keys) or "attributes"


def _check_gmms(gmms: list[Instruction], chains: list[_Chain], w_dim: int) -> int:
    """The GMMs differ only in their weight: same lhs, group sizes and dimension numbers."""
    first = gmms[0]
    for g in gmms[1:]:
        if not same_value(g.operands[0], first.operands[0]):
            raise Refusal("same-lhs", f"{g.ref} and {first.ref} do not provably share their "
                          "left-hand side", g)
        if len(g.operands) != len(first.operands) or not all(
            same_value(a, b) for a, b in zip(g.operands[2:], first.operands[2:])
        ):
            raise Refusal("same-group-sizes", f"{g.ref} and {first.ref} use different group sizes", g)
        if not _same_gmm(g, first):
            raise Refusal("same-gmm", f"{g.ref} and {first.ref} differ in {_difference(first, g)}", g)
        if g.computation is not first.computation:
            raise Refusal("same-computation", f"{g.ref} is in another computation than {first.ref}", g)
    if gmm_kernel(first) is not None:
        out_dim = kernel_calls.kernel_output_dim(first, w_dim)
    else:
        out_dim = _gmm_output_dim(first, w_dim)
    if out_dim is None:
        raise Refusal("gmm-contracts-split", f"{first.ref} contracts or groups over the split "
                      "dimension of its weight; the halves cannot be separated after it", first)
    for g in gmms:
        dim_size(g.shape, out_dim, g)  # the halves' results are cut (and joined) along it
    return out_dim


def _same_gmm(a: Instruction, b: Instruction) -> bool:
    """The same grouped matmul up to its weight.  Two megablox kernel calls are when they
    solve the same problem (kind, dtypes, lhs and group sizes): their functions differ
    only in names and, possibly, tiling, which changes no result."""
    if gmm_kernel(a) is not None and gmm_kernel(b) is not None:
        sa, sb = kernel_calls.megablox_spec(a), kernel_calls.megablox_spec(b)
        if not isinstance(sa, str) and not isinstance(sb, str):
            return (sa.mode, sa.lhs_shape, sa.lhs_dtype, sa.rhs_dtype, sa.groups_shape, sa.groups_dtype,
                    sa.out_dtype) == (sb.mode, sb.lhs_shape, sb.lhs_dtype, sb.rhs_dtype, sb.groups_shape,
                                      sb.groups_dtype, sb.out_dtype)
    return same_op(a, b)


def _gmm_output_dim(gmm: Instruction, rhs_dim: int) -> int | None:
    """Where dimension ``rhs_dim`` of the weight appears in the GMM's result (None if consumed)."""
    a = gmm.attributes
    lhs_rank = gmm.operands[0].shape.rank
    rhs_rank = gmm.operands[1].shape.rank
    dim_size(gmm.operands[1].shape, rhs_dim, gmm, f"the weight of {gmm.ref}")
    rhs_contract = tuple(a.get("rhs_contracting_dims", ()))
    rhs_batch = tuple(a.get("rhs_batch_dims", ()))
    rhs_group = tuple(a.get("rhs_group_dims", ())) if gmm.opcode == "ragged-dot" else ()
    if rhs_dim in rhs_contract or rhs_dim in rhs_batch or rhs_dim in rhs_group:
        return None
    lhs_contract = tuple(a.get("lhs_contracting_dims", ()))
    lhs_batch = tuple(a.get("lhs_batch_dims", ()))
    lhs_free = [d for d in range(lhs_rank) if d not in lhs_contract and d not in lhs_batch]
    rhs_free = [d for d in range(rhs_rank) if d not in rhs_contract and d not in rhs_batch and d not in rhs_group]
    return len(lhs_batch) + len(lhs_free) + rhs_free.index(rhs_dim)


def _check_gmm_sources(chains: list[_Chain], out_dim: int) -> tuple[list[int], tuple[int, int]]:
    """Halves that start as GMMs differing in one operand, the one that feeds ``out_dim``.

    ``gmm(A, B0) ++ gmm(A, B1) == gmm(A, B0 ++ B1)`` when B's concatenated
    dimension is a free dimension that lands on ``out_dim``: the weight
    gradients of the two-GMM form become one GMM on the concatenated
    activation gradients.  Returns the halves' sizes and (operand, its dimension).
    """
    gmms = [c.slice for c in chains]
    first = gmms[0]
    for g in gmms[1:]:
        if not same_op(g, first) or len(g.operands) != len(first.operands):
            raise Refusal("same-gmm", f"{g.ref} and {first.ref} differ in {_difference(first, g)}", g)
        if g.computation is not first.computation:
            raise Refusal("same-computation", f"{g.ref} is in another computation than {first.ref}", g)
    varying = [j for j in range(len(first.operands))
               if not all(same_value(g.operands[j], first.operands[j]) for g in gmms[1:])]
    if len(varying) != 1:
        raise Refusal("same-lhs", f"{first.ref} and {gmms[1].ref} differ in operands {varying}; "
                      "only one may differ", gmms[1])
    j = varying[0]
    dim = _gmm_operand_dim(first, j, out_dim)
    if dim is None:
        raise Refusal("gmm-contracts-split", f"dimension {out_dim} of {first.ref} does not come from a free "
                      f"dimension of operand {j}", first)
    for g in gmms:
        shape = g.operands[j].shape
        for other in gmms:
            if other.operands[j].shape.rank != shape.rank or any(
                    a != b for d, (a, b) in enumerate(zip(shape.dims, other.operands[j].shape.dims)) if d != dim):
                raise Refusal("same-gmm", f"operand {j} of {g.ref} and {other.ref} differ beyond dimension {dim}", g)
    return [g.shape.dims[out_dim] for g in gmms], (j, dim)


def _gmm_operand_dim(gmm: Instruction, operand: int, out_dim: int) -> int | None:
    """The free dimension of ``operand`` (0: lhs, 1: rhs) that becomes ``out_dim`` of the result."""
    if operand not in (0, 1):
        return None
    for d in range(gmm.operands[operand].shape.rank):
        if _free_dim_position(gmm, operand, d) == out_dim:
            return d
    return None


def _free_dim_position(gmm: Instruction, operand: int, dim: int) -> int | None:
    a = gmm.attributes
    lhs_rank, rhs_rank = gmm.operands[0].shape.rank, gmm.operands[1].shape.rank
    lhs_contract = tuple(a.get("lhs_contracting_dims", ()))
    lhs_batch = tuple(a.get("lhs_batch_dims", ()))
    rhs_contract = tuple(a.get("rhs_contracting_dims", ()))
    rhs_batch = tuple(a.get("rhs_batch_dims", ()))
    rhs_group = tuple(a.get("rhs_group_dims", ())) if gmm.opcode == "ragged-dot" else ()
    # A ragged contracting dimension (the weight-gradient mode) puts the groups first.
    lead = 1 if gmm.opcode == "ragged-dot" and set(a.get("lhs_ragged_dims", ())) & set(lhs_contract) else 0
    lhs_free = [d for d in range(lhs_rank) if d not in lhs_contract and d not in lhs_batch]
    rhs_free = [d for d in range(rhs_rank) if d not in rhs_contract and d not in rhs_batch and d not in rhs_group]
    if operand == 0:
        return lead + len(lhs_batch) + lhs_free.index(dim) if dim in lhs_free else None
    return lead + len(lhs_batch) + len(lhs_free) + rhs_free.index(dim) if dim in rhs_free else None


def _fused_gmm_source(rule: str, chains: list[_Chain], source: tuple[int, int], where: Instruction,
                      total: int) -> Instruction:
    """One GMM on the concatenated varying operands, standing in for the halves' GMMs."""
    j, dim = source
    gmms = [c.slice for c in chains]
    first = gmms[0]
    comp = first.computation
    # After every half's inputs: right before the last of the GMMs.
    where = max(gmms, key=comp.instructions.index)
    parts = [g.operands[j] for g in gmms]
    joined_shape = resized(parts[0].shape, dim, sum(p.shape.dims[dim] for p in parts))
    joined = comp.add("concatenate", joined_shape, parts, {"dimensions": (dim,)}, name_hint="concatenate",
                      before=where, source_op="stablehlo.concatenate" if comp.module.dialect == "stablehlo"
                      else "concatenate")
    joined.operand_results = [g.operand_results[j] for g in gmms]
    tag_created(joined, rule)
    operands = list(first.operands)
    operands[j] = joined
    out_dim = _free_dim_position(first, j, dim)
    fused = clone(first, comp, operands, resized(first.shape, out_dim, total), before=where, tag=rule)
    fused.operand_results = list(first.operand_results)
    fused.operand_results[j] = 0
    return fused


def _check_single_use(chains: list[_Chain]) -> None:
    """Intermediates used elsewhere would keep the old gathers alive: refuse such sites."""
    for c in chains:
        for op in [c.slice, *c.ops]:
            users = op.param.users if isinstance(op, Crossing) else op.users
            if len(users) != 1:
                raise Refusal("extra-users", f"{op.ref} has {len(users)} users "
                              f"({', '.join(u.ref for u in users[:4])}); fusing would keep "
                              "the per-half gathers alive", op)


def _replace(rule: str, form: str, anchor: Instruction, chains: list[_Chain], gmms: list[Instruction] | None,
             split_dims: list[int], out_dim: int | None, total: int,
             source: tuple[int, int] | None = None) -> None:
    module = anchor.module
    first = chains[0]
    where = anchor.instr if isinstance(anchor, PadMeeting) else anchor
    if source is None:
        value = first.slice.operands[0]
        result = first.slice.operand_results[0]
    else:
        value = _fused_gmm_source(rule, chains, source, where, total)
        result = 0
    dropped: list[Crossing] = []
    dropped_exits: list[Exit] = []
    loose: list[Instruction] = []
    for k, op in enumerate(first.ops):
        size = sum(c.ops[k].shape.dims[split_dims[k]] for c in chains)
        if isinstance(op, Crossing):
            steps = [c.ops[k] for c in chains]
            loose.append(op.outside)
            value = merge_crossings(steps, value, split_dims[k], size)
            dropped.extend(steps[1:])
        elif isinstance(op, Exit):
            steps = [c.ops[k] for c in chains]
            loose.append(op.inside)
            value, result = merge_exits(steps, value, split_dims[k], size)
            dropped_exits.extend(steps[1:])
            continue
        elif isinstance(op, HloExit):
            steps = [c.ops[k] for c in chains]
            loose.append(op.inside)
            value = merge_hlo_exits(steps, value, split_dims[k], size)
            dropped_exits.extend(steps[1:])
            # Its old users (the first half's chain outside) are dead code now.
            loose.extend(u for u in value.users)
            continue
        elif op.opcode in WINDOWS:
            # Its offsets are computed after W's chain starts: the window goes
            # where the first half's was, which they all dominate.
            shape = resized(op.shape, split_dims[k], size)
            value = clone(op, op.computation, [value, *op.operands[1:]], shape, before=op, tag=rule)
            value.operand_results = [result, *op.operand_results[1:]]
            value.attributes["dynamic_slice_sizes"] = tuple(shape.dims)
            result = 0
        else:
            shape = resized(op.shape, split_dims[k], size)
            if value.computation is op.computation and value.opcode != "parameter":
                # Right after its input: every other input of the chain is W itself.
                value = clone(op, op.computation, [value], shape, after=value, tag=rule)
            else:
                # Just entered this computation: right before the half's own op.
                value = clone(op, op.computation, [value], shape, before=op, tag=rule)
        if result:
            value.operand_results[0] = result
            result = 0
    if form in ("concat", "pad_add"):
        module.replace_all_uses(where, value)
        remove_dead([where])
    else:
        comp = anchor.computation
        g0 = gmms[0]
        operands = list(g0.operands)
        operands[1] = value
        results = list(g0.operand_results)
        results[1] = 0
        if gmm_kernel(g0) is not None:
            # A kernel built for the halves' shape: emitted again for the whole weight.
            fused = kernel_calls.reemit_gmm(g0, operands, results, before=anchor)
            tag_created(fused, rule)
        else:
            fused = clone(g0, comp, operands, resized(g0.shape, out_dim, total), before=anchor, tag=rule)
            fused.operand_results = results
        start = 0
        for g in gmms:
            width = g.shape.dims[out_dim]
            spec = tuple((start, start + width, 1) if d == out_dim else (0, n, 1)
                         for d, n in enumerate(fused.shape.dims))
            piece = comp.add("slice", resized(fused.shape, out_dim, width), [fused], {"slice": spec},
                             name_hint="slice", before=anchor, source_op=_slice_spelling(module))
            tag_created(piece, rule)
            start += width
            module.replace_all_uses(g, piece)
        kernels = [g.called_computations[0] for g in gmms if gmm_kernel(g) is not None and g.called_computations]
        remove_dead(list(gmms))
        if kernels:
            # The halves' kernels, built for their shape, are dead now.
            kernel_calls.drop_unused(module, kernels)
    # Operands of a shard_map that only fed the other halves go last, highest
    # index first, so the indices of the ones still to drop stay valid.
    for crossing in sorted(dropped, key=lambda c: (c.index, c.entry_index or 0), reverse=True):
        loose.extend(drop_crossing(crossing))
    for out in sorted(dropped_exits, key=lambda e: e.result, reverse=True):
        loose.append(drop_hlo_exit(out) if isinstance(out, HloExit) else drop_exit(out))
    remove_dead(loose)


def _slice_spelling(module: Module) -> str:
    return "stablehlo.slice" if module.dialect == "stablehlo" else "slice"

