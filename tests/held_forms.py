"""XLA:CPU's optimized module with its collectives held as XLA:GPU and XLA:TPU hold them.

Nothing on CPU makes asynchronous collectives or combined (tuple) ones, so the tests make
them from a CPU module the way XLA's passes print them: each collective an asynchronous
pair (``all-gather-start`` / ``-done``; ``all-reduce-start`` / ``-done``;
``reduce-scatter-start`` / ``-done``, XLA's print of an ``async-start`` wrapping one), and
(``combine``) the collectives of one kind and the same attributes in one computation
combined into one op of several operands whose tuple ``get-tuple-element``s read, as
XLA's combiners make them.  Written as text, line for line, from the parsed module.
"""
from __future__ import annotations

import itertools

import hlo_passes
from hlo_passes.ir import Instruction

KINDS = ("all-gather", "reduce-scatter", "all-reduce")
_IGNORED = ("channel_id", "metadata")  # what collectives a combiner joins may differ in


def _attributes(instr: Instruction, skip: tuple[str, ...] = ()) -> str:
    return "".join(f", {k}={v}" for k, v in instr.attributes.source_texts().items() if k not in skip and v is not None)


def _tuple(texts: list[str]) -> str:
    return "(" + ", ".join(texts) + ")"


def hold(text: str, *, asynchronous: bool, combine: bool) -> str:
    """``text`` (an optimized HLO module) with each collective of ``KINDS`` held: made an
    asynchronous pair, or (``combine``) combined with the others like it, or both."""
    module = hlo_passes.parse(text, validate=True)
    lines = text.split("\n")
    replaced: dict[int, list[str]] = {}
    counter = itertools.count()
    for comp in module.computations.values():
        groups: dict[tuple, list[Instruction]] = {}
        for instr in comp.instructions:
            if instr.opcode not in KINDS or len(instr.operands) != 1 or instr.shape.is_tuple or instr is comp.root:
                continue
            key = (instr.opcode, _attributes(instr, _IGNORED)) if combine else (id(instr),)
            groups.setdefault(key, []).append(instr)
        for members, place in (run for group in groups.values() for run in _runs(group)):
            if len(members) == 1 and not asynchronous:
                continue
            hoisted = [m.operands[0] for m in members if m.operands[0].line > place.line]
            for m in members + hoisted:
                replaced[m.line] = []
            replaced[place.line] = ([lines[h.line - 1] for h in hoisted]
                                    + _held_lines(members, f"held.{next(counter)}", asynchronous))
    out = []
    for n, line in enumerate(lines, start=1):
        out.extend(replaced.get(n, [line]))
    return "\n".join(out)


def _runs(members: list[Instruction]) -> list[tuple[list[Instruction], Instruction]]:
    """``members`` (in program order) in runs that can be combined, each with the member whose
    place the combined op takes: the last (no reader of an earlier member comes before it) or
    else the first (every member's operand is defined before it)."""
    runs: list[tuple[list[Instruction], Instruction]] = []
    for m in members:
        if runs:
            run = runs[-1][0] + [m]
            if all(min((u.line for u in p.users), default=m.line + 1) > m.line for p in run[:-1]):
                runs[-1] = (run, m)
                continue
            if all(_defined_before(p.operands[0], run[0]) for p in run):
                runs[-1] = (run, run[0])
                continue
        runs.append(([m], m))
    return runs


def _defined_before(value: Instruction, place: Instruction) -> bool:
    """Whether ``value`` is defined before ``place``, or can be (its own operands are: it is
    then written right before the combined op, ``hold``)."""
    return value.line < place.line or all(o.line < place.line for o in value.operands)


def _held_lines(members: list[Instruction], name: str, asynchronous: bool) -> list[str]:
    first = members[0]
    indent = "  "
    ops = [str(m.operands[0].shape) for m in members]
    results = [str(m.shape) for m in members]
    operands = ", ".join(f"%{m.operands[0].name}" for m in members)
    combined = len(members) > 1
    result = _tuple(results) if combined else results[0]
    attrs = _attributes(first)
    lines = []
    if asynchronous:
        opcode = first.opcode
        if opcode == "all-gather":
            start_shape = _tuple([_tuple(ops) if combined else ops[0], result])
        elif opcode == "reduce-scatter":
            start_shape = _tuple([_tuple(ops), result])
        else:
            start_shape = result
        lines.append(f"{indent}%{name}-start = {start_shape} {opcode}-start({operands}){attrs}")
        reader = first.name if not combined else f"{name}-done"
        lines.append(f"{indent}%{reader} = {result} {opcode}-done(%{name}-start)")
    else:
        reader = name
        lines.append(f"{indent}%{name} = {result} {first.opcode}({operands}){attrs}")
    if combined:
        for k, m in enumerate(members):
            lines.append(f"{indent}%{m.name} = {results[k]} get-tuple-element(%{reader}), index={k}")
    return lines
