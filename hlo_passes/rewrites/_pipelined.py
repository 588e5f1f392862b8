"""Halves XLA's collective pipeliner carries across loop iterations: reported, not rewritten.

With collective pipelining on (XLA:GPU's ``xla_gpu_enable_pipelined_all_gather`` and its
siblings, XLA:TPU's), the gathers of a scanned layer's weight are moved one iteration
back: the body gathers the *next* layer's halves and hands them over in the while's state
(elements of its root tuple), the iteration after reads them from its parameter, and the
first layer's are gathered before the loop.  The halves then never meet in the iteration
that gathers them: a chain walked down from their meeting ends at the loop parameter, and
one walked up from the gathers at the root tuple.  Where only fusions and the loop state read
the gathered halves, the split-gather form rewrites them in place (one gather of the next
layer's weight, sliced into the halves the state carries: ``_meetings._loop_state``);
following them across the iteration to where they meet is not done.  A body whose carried
halves are not a site is named as a near miss (``loop-carried``), at the first half's
collective, so that it is not passed over in silence.

A body is reported when two or more elements of its root tuple are collectives of the
rule's kinds (plain, or the done of an async pair) of slices of one array (a slice, or a
fusion whose root is one, of the same operand), each through copies and converts only.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..ir import Instruction, Module
from ..ir.op_table import Trait, op
from ..report import NearMiss, location_of
from ._chains import is_chain_op
from ._held import held_kind, start_of

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
                "loop state reads them, and where they meet in the next iteration is not followed"),
                location_of(first)))
    return misses


def _while_bodies(module: Module) -> Iterator:
    for instr in module.instructions():
        if instr.opcode != "while":
            continue
        name = instr.attributes["body"] if "body" in instr.attributes else None
        body = next((c for c in instr.called_computations if c.name == str(name).lstrip("%")), None)
        if body is not None:
            yield body


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
