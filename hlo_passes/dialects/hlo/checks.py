"""Structural checks XLA's HLO parser makes while it builds a module.

They run on every parse (``validate`` or not) because XLA rejects such text
outright: operand counts, get-tuple-element bounds, reshape element counts,
conditional predicates, async start/update/done chains, collective flags and
the attribute values XLA decodes eagerly (dimension labels, mesh replica
groups, iota shardings, result accuracy).  Each failure is a ``ParseError``
at the offending instruction.

Async chains: current XLA (jaxlib 0.12) binds operands late (``async-start()``
with fewer operands than its computation has parameters, the rest arriving
in ``*-update(start, operand, ...)``) and its parser no longer checks the
shapes along a chain (its verifier does).  Without ``strict`` (parse's
default ``validate=False``) the checks are those of that parser; with it,
those of jaxlib 0.10.2's parser, except that a chain that binds every
parameter with the shapes its computation wants, listing them in each
update's shape, is accepted.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import Instruction, Module, Shape
from ._base import _source_texts
from .attrs import AttributeDecodeError, decode_attribute
from ...ir.op_table import OPS, Trait, with_trait

if TYPE_CHECKING:
    from .parser import _HloParser

# The op table's facts these checks read for every instruction, as plain lookups.
_ARITY = {d.name: d.arity for d in OPS.values() if d.arity is not None}
_REQUIRED = {d.name: d.required for d in OPS.values() if d.required}
_ACCURACY_OPS = frozenset(d.name for d in with_trait(Trait.RESULT_ACCURACY))

# A problem: its reason and the text to point at (and the offset into it).
_Problem = tuple[str, str | None] | tuple[str, str | None, int]


def _known(shape: Shape) -> bool:
    return shape.element_type != "inferred"


def check_structure(module: Module, parser: "_HloParser", strict: bool = False) -> None:
    for instr in module.instructions():
        problem = _instruction_problem(instr, strict)
        if problem is not None:
            offset: list[int]
            reason, needle, *offset = problem
            raise parser.error_at_instruction(instr, reason, needle, *offset)


def _eager(instr: Instruction, key: str) -> tuple[str, str, int] | None:
    raw = _source_texts(instr.attributes)[key]
    try:
        decode_attribute(key, raw)
    except AttributeDecodeError as e:
        return f"bad {key}: {e.reason}", raw, e.offset
    return None


def _instruction_problem(instr: Instruction, strict: bool = False) -> _Problem | None:
    op = instr.opcode
    ops = instr.operands
    attrs = instr.attributes
    raw = _source_texts(attrs)
    n = len(ops)
    arity = _ARITY.get(op)
    if arity is not None and (n < arity.min or arity.max is not None and n > arity.max):
        if arity.fixed is not None:
            return f"{op} expects {arity.fixed} operand(s), but got {n}", None
        if op == "dynamic-reshape":
            return "DynamicReshape requires at least one operand.", None
        return f"{op} expects at least one operand", None
    for need in _REQUIRED.get(op, ()):
        if need in raw:
            continue
        # A scalar may be broadcast without saying to which dimensions.
        if not (op == "broadcast" and n == 1 and (not _known(ops[0].shape) or ops[0].shape.rank == 0)):
            return f"{op} expects attribute {need}=", need
    for key in ("dim_labels", "result_accuracy"):
        if key in raw:
            p = _eager(instr, key)
            if p:
                return p
    if "result_accuracy" in raw and op not in _ACCURACY_OPS:
        return f'unexpected attribute "result_accuracy" for {op}', "result_accuracy"
    # Compact groups are checked (and capped) now; they are expanded when read.
    if "replica_groups" in raw and ("mesh" in raw["replica_groups"] or "<=" in raw["replica_groups"]):
        p = _eager(instr, "replica_groups")
        if p:
            return p
    if "sharding" in raw and "<=" in raw["sharding"]:
        p = _eager(instr, "sharding")
        if p:
            return p
    if raw.get("use_global_device_ids") == "true" and "channel_id" not in raw:
        return "Cannot have use_global_device_ids=true without channel_id", "use_global_device_ids"
    if op in ("all-gather", "reduce-scatter", "all-gather-start") and raw.get("dimensions", "{0}").replace(" ", "") == "{}":
        return f"{op} expects exactly one dimension in dimensions={{}}", "dimensions"
    if op == "get-dimension-size" and "dimensions" in raw and raw["dimensions"].replace(" ", "") == "{}":
        return "get-dimension-size expects one dimension", "dimensions"
    if op == "scan" and "dimensions" in raw and "-" in raw["dimensions"]:
        return "scan dimensions must be non-negative", "dimensions"
    if op == "recv" and _known(instr.shape) and not instr.shape.is_tuple:
        return "recv expects a (data, context, token) tuple shape", None
    if op == "get-tuple-element":
        return _gte_problem(instr)
    if op == "reshape" and _known(instr.shape) and _known(ops[0].shape):
        a, b = instr.shape, ops[0].shape
        if a.is_array and b.is_array and -1 not in a.dims and -1 not in b.dims and a.num_elements != b.num_elements:
            return (f"expects the same number of elements in result shape {_plain(a)} and "
                    f"operand shape {_plain(b)}"), None
    if op == "dynamic-reshape" and _known(instr.shape):
        if n - 1 != instr.shape.rank:
            return (f"expects one dim size operand per result dimension; got {n - 1} for "
                    f"{instr.shape.rank} result dimensions"), None
        b = ops[0].shape
        if _known(b) and b.is_array and instr.shape.num_elements != b.num_elements:
            return (f"expects the same number of elements in result shape {_plain(instr.shape)} and "
                    f"operand shape {_plain(b)}"), None
    if op == "conditional":
        return _conditional_problem(instr)
    if op in ("async-start", "async-update", "async-done"):
        return _async_problem(instr, strict)
    return None


def _plain(s: Shape) -> str:
    dims = ",".join(("<=" if dyn else "") + str(d) for d, dyn in zip(s.dims, s.dynamic))
    return f"{s.element_type}[{dims}]"


def _gte_problem(instr: Instruction) -> tuple[str, str | None] | None:
    raw = instr.attributes.raw("index") if "index" in instr.attributes else None
    if raw is None:
        return "get-tuple-element expects index=N", None
    try:
        index = int(raw)
    except ValueError:
        return f"get-tuple-element index expects integer, got {raw!r}", "index"
    operand = instr.operands[0].shape
    if not _known(operand):
        return None
    if not operand.is_tuple:
        return "GTE operand must be tuple", None
    if not 0 <= index < len(operand.tuple_shapes):
        return f"GTE index {index} out of bounds", "index"
    return None


def _conditional_problem(instr: Instruction) -> tuple[str, str | None] | None:
    pred = instr.operands[0].shape
    raw = instr.attributes.source_texts()
    if not _known(pred):
        return None
    if pred.rank != 0 or not pred.is_array:
        return "The first operand must be a scalar", None
    if pred.element_type not in ("pred", "s32"):
        return "The first operand must be a scalar of PRED or S32", None
    if pred.element_type == "pred" and "branch_computations" in raw:
        return 'unexpected attribute "branch_computations" (a pred conditional takes true_computation/false_computation)', "branch_computations"
    return None


def _wrapped(instr: Instruction) -> tuple[str | None, str | None]:
    """(called computation name, wrapped opcode) of an async op, as written."""
    raw = instr.attributes.source_texts()
    calls = raw.get("calls")
    comp = calls.lstrip("%") if calls else None
    wrapped = None
    if instr.source_op != instr.opcode:
        wrapped = instr.source_op.rsplit("-", 1)[0]
    elif instr.called_computations:
        root = instr.called_computations[0].root
        wrapped = root.opcode if root is not None else None
    return comp, wrapped


_START_FORM = ("AsyncStart and AsyncUpdate expect the shape to be in the form of "
               "((operand0_shape, operand1_shape, ...), output_shape, ...)")


def _async_problem(instr: Instruction, strict: bool) -> tuple[str, str | None] | None:
    op = instr.opcode
    ops = instr.operands
    shape = instr.shape
    if op == "async-start":
        if _known(shape):
            if not shape.is_tuple or len(shape.tuple_shapes) < 2 or not shape.tuple_shapes[0].is_tuple:
                return _START_FORM, None
            got = shape.tuple_shapes[0].tuple_shapes
            if len(got) != len(ops) or any(
                _known(o.shape) and o.shape != s for o, s in zip(ops, got)
            ):
                return _START_FORM, None
        # Sugar forms (call-start(), fusion-start()) may leave parameters
        # unbound; a plain async-start may not, unless its updates bind them.
        if strict and instr.called_computations and instr.source_op == "async-start":
            callee = instr.called_computations[0]
            params = callee.parameters
            if len(params) != len(ops) and not _binds_late(instr, params):
                return ("async-start expects the operands of the async computation to be fully bound: "
                        f"{len(ops)} operands for {len(params)} parameters"), None
        return None
    if not ops:
        return "No operand found for AsyncUpdate and AsyncDone", None
    prev = ops[0]
    if prev.opcode == "async-done":
        return "AsyncUpdate and AsyncDone cannot have AsyncDone as operand.", None
    if prev.opcode not in ("async-start", "async-update"):
        if strict:
            return (f"Async done {instr.name} does not trace back to an async start: AsyncUpdate and "
                    "AsyncDone expect a single async op as their operand"), None
        return None
    if op == "async-update" and _known(shape) and (not shape.is_tuple or len(shape.tuple_shapes) < 2
                                                   or not shape.tuple_shapes[0].is_tuple):
        return _START_FORM, None
    if strict and len(ops) != 1 and (op == "async-done" or not _binds_consistently(instr)
                                     or not _bound_fit(instr)):
        return (f"{op} has {len(ops) - 1} new operands: AsyncUpdate and AsyncDone expect a single "
                "async op as their operand"), None
    if (strict and op == "async-update" and _known(shape) and _known(prev.shape) and shape != prev.shape
            and not _binds_consistently(instr)):
        return (_START_FORM + ": AsyncUpdate expects the op shape to be the same as the operand shape"), None
    start = prev
    while start.opcode == "async-update" and start.operands:
        start = start.operands[0]
    s_comp, s_op = _wrapped(start)
    comp, wrapped = _wrapped(instr)
    if comp is not None and s_comp is not None and comp != s_comp:
        return f"Expect async_wrapped_computation to be {s_comp}, but got {comp}", "calls"
    if instr.source_op != instr.opcode and s_op is not None and wrapped != s_op:
        return f"Expect async wrapped opcode to be {s_op}, but got {wrapped}", None
    # update/done inherit the start's thread unless they name one.
    thread = instr.attributes.source_texts().get("async_execution_thread")
    s_thread = _source_texts(start.attributes).get("async_execution_thread", '"main"').strip('"')
    if thread is not None and thread.strip('"') != s_thread:
        thread = thread.strip('"')
        return f"Expect async_execution_thread to be {s_thread}, but got {thread}", "async_execution_thread"
    return None


def _binds_consistently(update: Instruction) -> bool:
    """An update whose shape is its operand's with the operands it binds appended to
    the operand tuple.  The other elements stay as they are, except in a chain
    that binds operands late: there XLA's own tests restate them per update."""
    prev = update.operands[0]
    a, b = prev.shape, update.shape
    if not (_known(a) and _known(b) and a.is_tuple and b.is_tuple and a.tuple_shapes and b.tuple_shapes):
        return False
    if not a.tuple_shapes[0].is_tuple or not b.tuple_shapes[0].is_tuple:
        return False
    if a.tuple_shapes[1:] != b.tuple_shapes[1:] and not _late_chain(update):
        return False
    new = [o.shape for o in update.operands[1:]]
    return list(b.tuple_shapes[0].tuple_shapes) == list(a.tuple_shapes[0].tuple_shapes) + new


def _binds_late(start: Instruction, params: list[Instruction]) -> bool:
    """Whether the chain of updates after ``start`` binds the rest of ``params``,
    consistently, with the shapes the parameters have."""
    bound = list(start.operands)
    cur = start
    for _ in range(10_000):  # a chain longer than this is no one's test case
        nxt = [u for u in cur.users if u.opcode in ("async-update", "async-done") and u.operands
               and u.operands[0] is cur]
        if len(nxt) != 1 or nxt[0].opcode == "async-done":
            break
        cur = nxt[0]
        if not _binds_consistently(cur):
            return False
        bound.extend(cur.operands[1:])
    return len(bound) == len(params) and all(
        not _known(b.shape) or b.shape == p.shape for b, p in zip(bound, params))


def _bound_fit(update: Instruction) -> bool:
    """Whether the operands bound up to ``update`` fit its computation's parameters."""
    chain = [update]
    while chain[-1].opcode == "async-update" and chain[-1].operands:
        chain.append(chain[-1].operands[0])
    start = chain[-1]
    if start.opcode != "async-start" or not start.called_computations:
        return True
    bound = list(start.operands)
    for u in reversed(chain[:-1]):
        bound.extend(u.operands[1:])
    params = start.called_computations[0].parameters
    return len(bound) <= len(params) and all(
        not _known(b.shape) or b.shape == p.shape for b, p in zip(bound, params))


def _late_chain(instr: Instruction) -> bool:
    """Whether some update of the async chain through ``instr`` binds operands."""
    start = instr
    for _ in range(10_000):
        if start.opcode != "async-update" or not start.operands:
            break
        start = start.operands[0]
    cur = start
    for _ in range(10_000):
        nxt = [u for u in cur.users if u.opcode == "async-update" and u.operands and u.operands[0] is cur]
        if len(nxt) != 1:
            return False
        cur = nxt[0]
        if len(cur.operands) > 1:
            return True
    return False
