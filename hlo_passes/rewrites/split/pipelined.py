"""Halves XLA's collective pipeliner carries across loop iterations: where they are named.

With collective pipelining on (XLA:GPU's ``xla_gpu_enable_pipelined_all_gather`` and its
siblings, XLA:TPU's), the gathers of a scanned layer's weight are moved one iteration
back: the body gathers the *next* layer's halves and hands them over in the while's state
(elements of its root tuple), the iteration after reads them from its parameter, and the
first layer's are gathered before the loop.  The halves then never meet in the iteration
that gathers them: a chain walked down from their meeting ends at the loop parameter, and
one walked up from the gathers at the root tuple.  Where only fusions and the loop state read
the gathered halves, the split-gather form rewrites them in place (one gather of the next
layer's weight, sliced into the halves the state carries: ``meetings._loop_state``); where
the next iteration joins the two state elements again (a concatenate), the loop then carries
the weight whole (``carry_whole``).  A body whose carried halves are not a site is named as a
near miss (``loop-carried``), at the first half's collective, and a join of two carried pieces
that is left (the halves not a site, or ``carry_whole``'s conditions not met) at the
concatenate (``rejoined_halves``), so that neither is passed over in silence.

A body is reported when two or more elements of its root tuple are collectives of the
rule's kinds (plain, or the done of an async pair) of slices of one array (a slice, or a
fusion whose root is one, of the same operand), each through copies and converts only.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from ...ir import Computation, Instruction, Module
from ...ir.op_table import Trait, op
from ...report import NearMiss, location_of
from .chains import is_chain_op
from .held import held_kind, start_of

CHECK = "loop-carried"


def carried_halves(module: Module, kinds: Iterable[str], rule: str) -> list[NearMiss]:
    """A near miss for each while body of ``module`` that carries halves of one array,
    collected by ``kinds``, to the next iteration."""
    kinds = frozenset(kinds)
    misses = []
    for body in _while_bodies(module):
        root = body.root
        if root is None or root.opcode != "tuple":
            continue
        by_origin: dict[int, list[tuple[int, Instruction]]] = {}
        for index, element in enumerate(root.operands):
            found = _carried_collective(element, kinds)
            if found is None:
                continue
            origin = _sliced(found.operands[0])
            if origin is not None:
                by_origin.setdefault(id(origin), []).append((index, found))
        for carried in by_origin.values():
            if len(carried) < 2 or len({c.opcode for _, c in carried}) != 1:
                continue
            indices = ", ".join(str(i) for i, _ in carried)
            first = carried[0][1]
            misses.append(NearMiss(rule, CHECK, (
                f"{first.ref} and {len(carried) - 1} more collective(s) of slices of one array feed the "
                f"state of the loop {body.name} (tuple elements {indices}): the halves are gathered for the next "
                "iteration (XLA's collective pipeliner); they are fused only where nothing but fusions and the "
                "loop state reads them"),
                location_of(first)))
    return misses


def rejoined_halves(module: Module, kinds: Iterable[str], rule: str) -> list[NearMiss]:
    """A near miss for each while body that hands two pieces of one array to the next iteration
    in two elements of its state — two collectives of ``kinds`` of its slices (the pipeliner's
    halves), or two slices of one gathered array (those halves after a split_gather rewrite) —
    where the next iteration joins those two elements again with a concatenate (plain, or
    inside a fusion) in the order they were cut.  Carrying the array whole in one element would
    drop the slices and the concatenate; it changes the loop's state (the while's, its body's
    and condition's shapes, every index past the removed element, copy insertion's copies and
    their control edges), which is not done: the site is named, at the concatenate."""
    kinds = frozenset(kinds)
    misses = []
    for body in _while_bodies(module):
        root = body.root
        params = body.parameters
        if root is None or root.opcode != "tuple" or len(params) != 1:
            continue
        by_origin: dict[int, list[int]] = {}
        for index, element in enumerate(root.operands):
            origin = _piece_of(element, kinds)
            if origin is not None:
                by_origin.setdefault(id(origin), []).append(index)
        read = state_reads(params[0])
        for indices in by_origin.values():
            if len(indices) < 2:
                continue
            join = _joining(read, indices)
            if join is None:
                continue
            op_, pair = join
            misses.append(NearMiss(rule, CHECK, (
                f"{op_.ref} joins the loop state's elements {pair[0]} and {pair[1]} of {body.name}, the pieces of one "
                "array the previous iteration cut apart (its collective pipeliner's halves): carrying the array whole "
                "in one element of the state (no slices, no concatenate) is not done"), location_of(op_)))
    return misses


def _piece_of(element: Instruction, kinds: frozenset[str]) -> Instruction | None:
    """The array ``element`` of a body's root tuple is a slice of (through copy insertion's copy
    and copies, converts), also through a collective of ``kinds`` of the slice; or None."""
    found = _carried_collective(element, kinds)
    if found is not None:
        return _sliced(found.operands[0])
    return _sliced(element)


def state_reads(param: Instruction) -> dict[int, list[Instruction]]:
    """Per element index of a body's state parameter, what stands for that element: its
    get-tuple-elements and the copies (copy insertion's) and bitcasts of them."""
    reads: dict[int, list[Instruction]] = {}
    for gte in param.users:
        if gte.opcode != "get-tuple-element":
            continue
        found = reads.setdefault(int(gte.attributes["index"]), [])
        work = [gte]
        while work:
            cur = work.pop()
            found.append(cur)
            work.extend(u for u in cur.users if u.opcode in _PASSING and len(u.operands) == 1)
    return reads


_PASSING = ("copy", "bitcast")


def _joining(read: dict[int, list[Instruction]], indices: list[int]) -> tuple[Instruction, tuple[int, int]] | None:
    """The concatenate (or the fusion holding one) that joins two of ``indices``' elements
    (either order), and the two indices; or None."""
    for a, b in itertools.permutations(indices, 2):
        found = joining_reads(read, a, b)
        if found is not None:
            return found[0], (a, b)
    return None


def joining_reads(read: dict[int, list[Instruction]], a: int, b: int
                  ) -> tuple[Instruction, Instruction] | None:
    """(the op, the concatenate) joining element ``a`` then element ``b`` of a loop state whose
    reads are ``read`` (``state_reads``): a concatenate of the two (twice the same), or a fusion
    and the concatenate in its computation of the two parameters standing for them (through
    copies and bitcasts); or None."""
    first, second = read.get(a, []), read.get(b, [])
    ids_a, ids_b = {id(v) for v in first}, {id(v) for v in second}
    for instr in {id(u): u for v in first for u in v.users}.values():
        if instr.opcode == "concatenate":
            if len(instr.operands) == 2 and id(instr.operands[0]) in ids_a and id(instr.operands[1]) in ids_b:
                return instr, instr
            continue
        if instr.opcode != "fusion" or not instr.called_computations:
            continue
        comp = instr.called_computations[0]
        number = {id(p): p.attributes.get("parameter_number") for p in comp.parameters}
        for concat in (i for i in comp.instructions if i.opcode == "concatenate" and len(i.operands) == 2):
            sides = []
            for operand in concat.operands:
                cur = operand
                while cur.opcode in _PASSING and len(cur.operands) == 1:
                    cur = cur.operands[0]
                k = number.get(id(cur))
                sides.append(id(instr.operands[k]) if isinstance(k, int) and k < len(instr.operands) else None)
            if sides[0] in ids_a and sides[1] in ids_b:
                return instr, concat
    return None


def _while_bodies(module: Module) -> Iterator[Computation]:
    return (body for _, body, _ in while_parts(module))


def while_parts(module: Module) -> Iterator[tuple[Instruction, Computation, Computation]]:
    """(loop, body, condition) of each while of ``module``."""
    for instr in module.instructions():
        if instr.opcode != "while":
            continue
        named = {key: str(instr.attributes[key]).lstrip("%") for key in ("body", "condition")
                 if key in instr.attributes}
        parts = [next((c for c in instr.called_computations if c.name == named.get(key)), None)
                 for key in ("body", "condition")]
        body, cond = parts
        if body is not None and cond is not None:
            yield instr, body, cond


def _carried_collective(element: Instruction, kinds: frozenset[str]) -> Instruction | None:
    """The one-operand collective of ``kinds`` ``element`` is (the start, for an async pair's
    done), through the copy XLA's copy insertion puts between it and the loop state."""
    if element.opcode == "copy" and len(element.operands) == 1:
        element = element.operands[0]
    if element.opcode in kinds and len(element.operands) == 1:
        return element
    row = op(element.opcode)
    if row is not None and Trait.ASYNC_DONE in row.traits and element.operands:
        start = start_of(element)
        if held_kind(start) in kinds and len(start.operands) == 1:
            return start
    return None


def _sliced(value: Instruction) -> Instruction | None:
    """The array ``value`` is a slice of (through copies and converts), or None."""
    cur = value
    for _ in range(8):
        if cur.opcode == "slice" and cur.operands:
            return cur.operands[0]
        if cur.opcode == "fusion" and cur.operands and cur.called_computations:
            fused_root = cur.called_computations[0].root
            return cur.operands[0] if fused_root is not None and fused_root.opcode == "slice" else None
        if cur.opcode not in ("copy", "convert", "bitcast") or not is_chain_op(cur):
            return None
        cur = cur.operands[0]
    return None
