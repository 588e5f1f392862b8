"""gmm-redundant-mask (MOE006): a row mask a group-aware grouped matmul makes redundant.

A GMM in the ragged-rows form (``ragged-dot`` / ``chlo.ragged_dot``: ``[m, k] x [g, k, n] ->
[m, n]``, group ``i`` the block of rows after groups ``0..i-1``) never reads the rows of its lhs
at or past ``sum(group_sizes)`` and writes +0.0 to those rows of its result.  So a mask

    x = jnp.where(jnp.arange(T)[:, None] < jnp.sum(group_sizes), x, 0)

on the GMM's lhs, or on its result, changes no value and costs a pass over the activations
(TransformerEngine removed such masks by hand).  The rule removes the select (or the call of
jax's ``_where`` that holds it) only when its predicate is provably that row bound: an iota
along the GMM's ragged dimension compared with the sum of the very group sizes the GMM reads
(``<``, the mirrored ``>``, or ``<=``/``>`` against ``sum - 1``; with the branches swapped for
the complement), through the broadcasts, reshapes and widening converts jax lowers it with.
Otherwise it names the check that failed.  Group sizes are counts (non-negative), as every GMM
kernel assumes.  That a GMM writes +0 past its groups and reads nothing there is a property of the
kernel it is lowered to, not of the op: the last check (``mask-kernel``) asks the entry point's
target (``gmm.target``, on the pipeline's context: hlo_passes.jit's device and kernel,
hlo-rewrite's --platform/--kernel, hlo-lint's --platform, XLA's own inside XLA) which kernel runs
each GMM that writes or reads the masked rows, and removes the mask only for the cpu-ffi, gpu-ffi and Pallas kernels; never in front
of or behind XLA's own ragged-dot (on TPU it leaves those rows unspecified, measured; on GPU and
CPU its expansion writes 0 * w there, NaN for an infinite weight).  Opt-in (docs/rules.md, MOE006).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..checks import Refusal
from ..gmm.target import past_groups_refusal
from ..ir import Computation, Instruction, Module, Value
from ..report import CollectiveCost, Site, SiteDetails, Wording, location_of
from ..ir.rewriter import Rewriter
from ..ir.analysis import callers_of, free_dim_position, remove_dead, remove_unused_callees, same_value
from ..pass_interface import PassContext
from ..rule import PatternRule, RuleMeta, check

__all__ = ["GmmRedundantMask", "MaskDetails"]

_INTS = {"s8": 8, "s16": 16, "s32": 32, "s64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}
_MIRROR = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE", "EQ": "EQ", "NE": "NE"}
# (direction of ``row OP bound``, offset of the bound from the sum) -> the rows the predicate
# holds for: True "row < sum" (inside), False "row >= sum" (outside).
_ROW_BOUND = {("LT", 0): True, ("LE", -1): True, ("GE", 0): False, ("GT", -1): False}
# A call of a function: HLO's ``call``, and MLIR's ``func.call``, which the dialect reads as ``call``.
_CALLS = frozenset({"call"})
_DENSE = re.compile(r"^dense<\s*([^>]*?)\s*>")


@dataclass(kw_only=True)
class MaskDetails(SiteDetails):
    """What a MOE006 site says: the GMM whose rows are masked, on which side, along which
    dimension of the masked value."""

    gmm: str
    side: str  # "lhs" or "result"
    masked_dim: int


@dataclass
class Mask:
    """A select (``select``, or the root of the function ``op`` calls: jax's ``_where``) at a GMM."""

    op: Instruction  # what the rewrite removes: the select, or the call of the function holding it
    select: Instruction
    call: Instruction | None  # ``op`` when it is a call
    gmm: Instruction
    side: str  # "lhs": op is the GMM's lhs; "result": op masks the GMM's result
    # Computation name -> the ops that call it (to follow a function's argument to its caller).
    callers: dict[str, list[Instruction]] = field(default_factory=dict)
    # Filled by the checks: the branch the mask keeps (1: on_true, 2: on_false) and the dimension
    # of the masked value it counts rows along.
    kept: int = 0
    dim: int = -1


def _through_call(instr: Instruction, call: Instruction | None, any_result: bool = False) -> Instruction:
    """``instr``, or the argument ``call`` passes for it when it is a parameter of the callee.  An
    argument that is another result than the first of its op (``%21#1``) is followed only when
    ``any_result`` (the value a mask keeps, passed on by index); else ``instr`` is returned, which
    no check accepts: what such a result is, the op's kind does not say."""
    if call is not None and instr.opcode == "parameter" and instr.computation is call.called_computations[0]:
        number = instr.attributes.get("parameter_number", -1)
        if 0 <= number < len(call.operands) and (any_result or call.operand_results[number] == 0):
            operand: Instruction = call.operands[number]
            return operand
    return instr


def _select_of(op: Instruction, result: int = 0) -> tuple[Instruction, Instruction | None] | None:
    """The select ``op`` is (read as its result ``result``), or that the function it calls returns
    first (a where-like helper: parameters, broadcasts, reshapes, converts and one select); None
    otherwise.  In a training step jax's jvp of ``where`` returns the predicate too (``%15:2 =
    call @_where``; in HLO a tuple read by get-tuple-elements): the mask is its first result, an
    HLO ``get-tuple-element`` of index 0 stands for it, and the predicate stays for the backward."""
    if op.opcode == "select":
        return op, None
    if op.opcode == "get-tuple-element" and op.attributes.get("index") == 0 and op.operands:
        op = op.operands[0]
        if op.opcode not in _CALLS or op.shape.is_array:
            return None
    elif op.opcode not in _CALLS or result != 0 or (op.num_results == 1 and not op.shape.is_array):
        return None  # a tuple-valued HLO call is read through its get-tuple-elements
    if len(op.called_computations) != 1:
        return None
    callee = op.called_computations[0]
    root = callee.root
    if root is not None and (root.is_terminator or root.opcode == "tuple"):
        root = root.operands[0] if root.operands else None
    allowed = {"parameter", "broadcast", "reshape", "convert", "select", "constant"}
    if root is None or root.opcode != "select" or any(
            i.opcode not in allowed and not i.is_terminator and not (i is callee.root and i.opcode == "tuple")
            for i in callee.instructions):
        return None
    return root, op


def _mask_readers(op: Instruction) -> list[tuple[Instruction, int]]:
    """(reader, operand number) of each use of the masked value ``op`` (its first result: the other
    results of jax's jvp ``_where`` call are the predicate)."""
    return [(u, k) for u in op.users for k, o in enumerate(u.operands) if o is op and u.operand_results[k] == 0]


def _masked_value(call: Instruction) -> Instruction | None:
    """What reads the mask a call returns first: the call (one result, or MLIR's ``#0``), or in HLO
    the one ``get-tuple-element`` of index 0 of its tuple."""
    if call.shape.is_array or call.num_results > 1:
        return call
    reads = [u for u in call.users if u.opcode == "get-tuple-element" and u.attributes.get("index") == 0]
    return reads[0] if len(reads) == 1 else None


def _is_ragged_rows(gmm: Instruction) -> bool:
    a = gmm.attributes
    ragged = tuple(a.get("lhs_ragged_dims", ()))
    return (gmm.opcode == "ragged-dot" and len(ragged) == 1 and not tuple(a.get("lhs_batch_dims", ()))
            and ragged[0] not in tuple(a.get("lhs_contracting_dims", ())) and bool(a.get("rhs_group_dims", ())))


def _widening(instr: Instruction) -> bool:
    """A convert between integer types that keeps every value (so counts and indices stay)."""
    src, dst = instr.operands[0].shape.element_type, instr.shape.element_type
    if src not in _INTS or dst not in _INTS:
        return False
    if src[0] == dst[0]:
        return _INTS[dst] >= _INTS[src]
    return src[0] == "u" and dst[0] == "s" and _INTS[dst] > _INTS[src]


def _strip_widening(instr: Instruction) -> Instruction:
    while instr.opcode == "convert" and _widening(instr):
        instr = instr.operands[0]
    return instr


def _constant_text(instr: Instruction) -> str | None:
    """A splat constant's value as text (``0``, ``0.000000e+00``, ``-0.0``); None if unknown."""
    attrs = instr.attributes
    if "literal" in attrs:  # HLO: a scalar's text as written (decoded, -0 would read as 0)
        raw = attrs.raw("literal")
        value = raw if raw is not None else attrs["literal"]
        literal = str(value).strip()
        return literal if re.fullmatch(r"[-+]?[0-9.eE+-]+|[-+]?(inf|nan)", literal) else None
    text = instr.mlir_pretty_value
    if text is None and "value" in attrs:
        text = attrs.raw("value") or str(attrs["value"])
    m = _DENSE.match(text or "")
    return m.group(1) if m else None


def _constant_number(instr: Instruction) -> float | None:
    text = _constant_text(instr)
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


Stack = tuple[Instruction, ...]  # the calls entered, innermost last
_CALL_DEPTH = 32  # how many function boundaries a value is followed across


def _across_calls(value: Value, stack: Stack, callers: dict[str, list[Instruction]]) -> tuple[Value, Stack]:
    """``value`` as the program computes it, across function boundaries (a training step's
    backward reads the forward's predicate and group sizes as arguments): a parameter of a
    top-level function is the argument of the call entered last (``stack``), else of the one
    call that calls the function; a call's result (an HLO get-tuple-element of it, MLIR's
    ``%c#k``) is what its function returns, entered.  Stops at anything else."""
    for _ in range(_CALL_DEPTH):
        op, k = value
        comp = op.computation
        if op.opcode == "parameter" and comp is not None and comp.parent is None:
            number = op.attributes.get("parameter_number", -1)
            if stack and stack[-1].called_computations[:1] == [comp]:
                call, stack = stack[-1], stack[:-1]
            else:
                sites = callers.get(comp.name, [])
                if len(sites) != 1 or sites[0].opcode not in _CALLS:
                    break
                call = sites[0]
            if not 0 <= number < len(call.operands):
                break
            value = call.operand_values[number]
            continue
        if op.opcode == "get-tuple-element" and op.operands and op.operands[0].opcode in _CALLS:
            call, k = op.operands[0], op.attributes.get("index", -1)
        elif op.opcode in _CALLS:
            call = op
        else:
            break
        root = call.called_computations[0].root if len(call.called_computations) == 1 else None
        if root is not None and (root.is_terminator or root.opcode == "tuple") and 0 <= k < len(root.operands):
            value = root.operand_values[k]
        elif root is not None and k == 0 and call.shape.is_array and not root.is_terminator:
            value = Value(root, 0)
        else:
            break
        stack = stack + (call,)
    return value, stack


def _same_across_calls(a: Value, a_stack: Stack, b: Value, b_stack: Stack,
                       callers: dict[str, list[Instruction]]) -> bool:
    """Whether two values are certainly the same, once widening converts and function boundaries
    are looked through."""
    def canonical(value: Value, stack: Stack) -> Value:
        for _ in range(_CALL_DEPTH):
            op = _strip_widening(value.op)
            value = Value(op, value.result if op is value.op else 0)
            moved, stack = _across_calls(value, stack, callers)
            if moved == value:
                return value
            value = moved
        return value
    a, b = canonical(a, a_stack), canonical(b, b_stack)
    return a.result == b.result and same_value(a.op, b.op)


class _Trace:
    """Follows a value of the select's shape back through the ops that only move or widen it,
    keeping which dimension of the select each of its dimensions is (None: a size-1 dimension
    that is none of the select's)."""

    def __init__(self, mask: Mask) -> None:
        self.mask = mask

    def start(self) -> Stack:
        """Where the select's operands are read: inside the function of jax's ``_where`` call."""
        return (self.mask.call,) if self.mask.call is not None else ()

    def back(self, value: Value, dims: list[int | None], stack: Stack) -> tuple[Instruction, list[int | None], Stack]:
        """Through broadcasts, size-1 reshapes and function boundaries, to the op that makes the
        value (and the calls entered to reach it)."""
        while True:
            value, stack = _across_calls(value, stack, self.mask.callers)
            instr = value.op
            if value.result != 0 or not instr.shape.is_array or len(dims) != instr.shape.rank:
                return instr, dims, stack  # nothing to follow
            if instr.opcode == "broadcast":
                mapping = tuple(instr.attributes.get("dimensions", ()))
                operand = instr.operands[0]
                if len(mapping) != operand.shape.rank or any(not 0 <= d < len(dims) for d in mapping):
                    return instr, dims, stack
                dims = [dims[d] if operand.shape.dims[k] == instr.shape.dims[d] else None
                        for k, d in enumerate(mapping)]
                value = instr.operand_values[0]
                continue
            if instr.opcode == "reshape":
                inner = _unit_reshape(instr.operands[0].shape.dims, instr.shape.dims, dims)
                if inner is None:
                    return instr, dims, stack
                value, dims = instr.operand_values[0], inner
                continue
            return instr, dims, stack

    def row_dim(self, value: Value, stack: Stack) -> int | None:
        """The dimension of the select an iota-valued ``value`` counts along; None if it is no iota."""
        instr, dims, stack = self.back(value, list(range(self.mask.select.shape.rank)), stack)
        while instr.opcode == "convert" and _widening(instr):
            instr, dims, stack = self.back(instr.operand_values[0], dims, stack)
        axis = instr.attributes.get("iota_dimension", 0) if instr.opcode == "iota" else -1
        return dims[axis] if 0 <= axis < len(dims) else None

    def bound(self, value: Value, stack: Stack) -> tuple[Instruction, int, Stack] | None:
        """(the scalar op whose value every element of ``value`` is, a constant added to it, the
        calls entered to reach it); None if ``value`` is not a broadcast scalar."""
        instr, _, stack = self.back(value, list(range(self.mask.select.shape.rank)), stack)
        offset = 0
        while instr.shape.num_elements == 1:
            if instr.opcode == "convert" and _widening(instr):
                instr, _, stack = self.back(instr.operand_values[0], [], stack)
                continue
            if instr.opcode in ("add", "subtract"):
                (a, _, a_stack), (b, _, b_stack) = (self.back(o, [], stack) for o in instr.operand_values)
                if instr.opcode == "add" and a.opcode == "constant":
                    a, b, a_stack = b, a, b_stack
                step = _constant_number(b) if b.opcode == "constant" else None
                if step is None or step != int(step):
                    return instr, offset, stack
                offset += int(step) if instr.opcode == "add" else -int(step)
                instr, stack = a, a_stack
                continue
            return instr, offset, stack
        return None


def _unit_reshape(src: tuple[int, ...], dst: tuple[int, ...], dims: list[int | None]) -> list[int | None] | None:
    """The dims of a reshape's operand from its result's, when it only adds or drops size-1
    dimensions; None otherwise."""
    if [n for n in src if n != 1] != [n for n in dst if n != 1]:
        return None
    big = [dims[d] for d, n in enumerate(dst) if n != 1]
    out: list[int | None] = []
    it = iter(big)
    for n in src:
        out.append(next(it) if n != 1 else None)
    return out


def _is_sum_of(reduce: Instruction, stack: Stack, groups: Value, callers: dict[str, list[Instruction]]) -> bool:
    """``reduce`` (reached through the calls ``stack``) adds up every element of ``groups`` (read
    where the GMM is; through widening converts and function boundaries), from 0."""
    if len(reduce.operands) != 2 or len(reduce.called_computations) != 1:
        return False
    data, init = reduce.operands
    if init.opcode != "constant" or _constant_number(init) != 0:
        return False
    if tuple(sorted(reduce.attributes.get("dimensions", ()))) != tuple(range(data.shape.rank)):
        return False
    if reduce.shape.element_type not in _INTS or data.shape.element_type not in _INTS:
        return False
    if _INTS[reduce.shape.element_type] < _INTS[data.shape.element_type]:
        return False
    if not _is_add(reduce.called_computations[0]):
        return False
    return _same_across_calls(reduce.operand_values[0], stack, groups, (), callers)


def _is_add(comp: Computation) -> bool:
    root = comp.root
    if root is not None and root.is_terminator and root.operands:
        root = root.operands[0]
    return (root is not None and root.opcode == "add"
            and sorted(o.attributes.get("parameter_number", -1) for o in root.operands
                       if o.opcode == "parameter") == [0, 1])


def _readers_across_calls(op: Instruction, callers: dict[str, list[Instruction]]
                          ) -> tuple[list[tuple[Instruction, int]], Instruction | None]:
    """Who reads ``op``'s first result, and as which operand, across function boundaries (a
    training step returns the forward's masked tokens to its caller, which passes them to the
    backward's weight-gradient GMM): a function's return is followed to what its one caller's
    result is read by, an argument of a call into what reads the parameter.  Second: the op a
    value could not be followed past (None: every reader found)."""
    readers: list[tuple[Instruction, int]] = []
    work: list[tuple[Instruction, int]] = [(op, 0)]
    seen: set[tuple[int, int]] = set()
    while work:
        value, result = work.pop()
        if (id(value), result) in seen or len(seen) > 64:
            continue
        seen.add((id(value), result))
        for user in value.users:
            for k, o in enumerate(user.operands):
                if o is not value or user.operand_results[k] != result:
                    continue
                comp = user.computation
                returned = comp is not None and comp.parent is None and (
                    user.is_terminator or (user is comp.root and user.opcode == "tuple"))
                if returned:
                    assert comp is not None
                    sites = callers.get(comp.name, [])
                    if len(sites) != 1 or sites[0].opcode not in _CALLS:
                        return readers, user
                    call = sites[0]
                    if call.num_results > 1 or call.shape.is_array:
                        work.append((call, k))
                    else:  # an HLO call's tuple: its get-tuple-elements of index k
                        work.extend((g, 0) for g in call.users
                                    if g.opcode == "get-tuple-element" and g.attributes.get("index") == k)
                elif user.opcode in _CALLS:
                    callee = user.called_computations[0] if len(user.called_computations) == 1 else None
                    params = [i for i in (callee.instructions if callee is not None else [])
                              if i.opcode == "parameter" and i.attributes.get("parameter_number") == k]
                    if len(params) != 1 or len(callers.get(callee.name if callee else "", [])) != 1:
                        return readers, user
                    work.append((params[0], 0))
                else:
                    readers.append((user, k))
    return readers, None


def _groups_rows_along(gmm: Instruction, operand: int, dim: int) -> bool:
    """Whether ``gmm`` reads its operand ``operand`` only in the rows of its groups along ``dim``:
    the lhs of a ragged-rows GMM ragged along ``dim``, or either operand of a GMM whose ragged
    dimension is contracted (the weight gradient: ``out[i] = lhs[rows_i]^T @ rhs[rows_i]``, rows
    past the groups in no group) where ``dim`` is that contracted dimension.  Both kinds ignore the
    rows at or past sum(group sizes) (checked of the kernels: test_kernels_honour_the_row_bound)."""
    a = gmm.attributes
    ragged = tuple(a.get("lhs_ragged_dims", ()))
    lhs_contracting = tuple(a.get("lhs_contracting_dims", ()))
    rhs_contracting = tuple(a.get("rhs_contracting_dims", ()))
    if len(ragged) != 1 or tuple(a.get("lhs_batch_dims", ())) or tuple(a.get("rhs_batch_dims", ())):
        return False
    if _is_ragged_rows(gmm):
        return operand == 0 and ragged == (dim,)
    if ragged[0] not in lhs_contracting or tuple(a.get("rhs_group_dims", ())):
        return False
    if operand == 0:
        same: bool = ragged[0] == dim
        return same
    position = lhs_contracting.index(ragged[0])
    return operand == 1 and position < len(rhs_contracting) and rhs_contracting[position] == dim


class GmmRedundantMask(PatternRule[Mask]):
    meta = RuleMeta(
        code="MOE006",
        pass_name="gmm-redundant-mask",
        name="GmmRedundantRowMask",
        summary="row mask a grouped matmul makes redundant",
        help="A select keeps the rows below sum(group_sizes) of a grouped matmul's lhs or result and "
             "zeroes the others; a grouped matmul that ignores those lhs rows and writes zeros to those "
             "result rows (hlo_passes's cpu-ffi, gpu-ffi and Pallas megablox kernels) makes the mask a "
             "pass over the activations for nothing: drop the jnp.where there, or run `hlo-rewrite "
             "--passes gmm-redundant-mask --platform cpu` (or --kernel). Never behind XLA's own "
             "ragged-dot: on TPU it leaves those rows unspecified (docs/rules.md, MOE006).",
        description="remove a row mask (iota < sum(group_sizes)) on a grouped matmul's lhs or result (MOE006, opt-in)",
        markers=("ragged-dot", "ragged_dot"),
        verb="removed",
        message="{summary}: the {side} of {gmm} is masked to rows < sum(group sizes) along dimension "
                "{masked_dim} (form {form})",
        # Legality rests on the kernel the GMM is lowered to, which the rule cannot see: run when
        # named (docs/rules.md says which kernels were verified to honour the row bound).
        opt_in=True,
        needs_kernel="its rewrite rests on a GMM kernel that writes +0 past the groups, which XLA's "
                     "ragged-dot is not known to do (check mask-kernel refuses every site)",
        details=MaskDetails,
        wording=Wording(saves="saves a pass over {bytes:,} bytes per device",
                        fix="removes a select, {saving}", gain="removing it {saving}",
                        piece="mask", fixed_by="named (opt-in), hlo_passes.jit or hlo-rewrite removes it"),
    )
    name = meta.pass_name
    description = meta.description

    # ---- match ---------------------------------------------------------------------
    def match(self, module: Module) -> Iterator[Mask]:
        seen: set[int] = set()
        callers = callers_of(module)
        for gmm in list(module.instructions()):
            if gmm.opcode != "ragged-dot" or len(gmm.operands) != 3:
                continue
            found = _select_of(gmm.operands[0], gmm.operand_results[0])
            if found is not None and id(gmm.operands[0]) not in seen:
                seen.add(id(gmm.operands[0]))
                yield Mask(gmm.operands[0], found[0], found[1], gmm, "lhs", callers)
            for user in gmm.users:
                op = _masked_value(user) if user.opcode in _CALLS else user
                found = _select_of(op) if op is not None else None
                if found is None or op is None or id(op) in seen or (
                        not _mask_readers(op) and op.computation is not None and op is not op.computation.root):
                    continue  # no mask, or one already removed: nothing reads it any more
                select, call = found
                if any(_through_call(select.operands[k], call) is gmm for k in (1, 2)):
                    seen.add(id(op))
                    yield Mask(op, select, call, gmm, "result", callers)

    def anchor(self, mask: Mask) -> Instruction:
        return mask.op

    # ---- checks --------------------------------------------------------------------
    @check("mask-gmm-form")
    def gmm_form(self, mask: Mask) -> Refusal | None:
        if not _is_ragged_rows(mask.gmm):
            return Refusal("mask-gmm-form", f"{mask.gmm.ref} is no grouped matmul over ragged rows "
                           "(its ragged dimension is contracted, or it has batch dimensions)", mask.gmm)
        if mask.op.computation is not mask.gmm.computation:
            return Refusal("mask-gmm-form", f"{mask.op.ref} and {mask.gmm.ref} are in different computations",
                           mask.op)
        return None

    @check("mask-predicate", "mask-dim", "mask-bound")
    def predicate(self, mask: Mask) -> Refusal | None:
        trace = _Trace(mask)
        pred, _, stack = trace.back(mask.select.operand_values[0], list(range(mask.select.shape.rank)), trace.start())
        if pred.opcode == "parameter" and pred.computation is not None and pred.computation.parent is None:
            # A training step's backward: jax passes the forward's predicate to the function of the
            # transposed select as an argument, followed to its caller where the function has one.
            return Refusal("mask-predicate", f"{mask.op.ref}: its predicate is {pred.ref}, an argument of "
                           f"{pred.computation.name} (in a training step: the forward's mask, saved for the "
                           "backward's transposed select) whose value could not be followed to one caller, so "
                           "it is not proven the row bound", pred)
        if pred.opcode != "compare":
            return Refusal("mask-predicate", f"{mask.op.ref}: its predicate is {pred.opcode} {pred.ref}, not a "
                           "comparison of an iota with a bound", pred)
        direction = pred.compare_direction
        a, b = pred.operand_values
        row = trace.row_dim(a, stack)
        if row is None:
            a, b = b, a
            row = trace.row_dim(a, stack)
            direction = _MIRROR.get(direction or "", direction)
        bound = trace.bound(b, stack)
        if row is None or bound is None:
            return Refusal("mask-predicate", f"{mask.op.ref}: {pred.ref} does not compare an iota with a "
                           "scalar bound", pred)
        want = self._row_dim(mask)
        if row != want:
            return Refusal("mask-dim", f"{mask.op.ref}: it masks along dimension {row}, not the row dimension "
                           f"{want} {mask.gmm.ref} groups", pred)
        root, offset, root_stack = bound
        groups = mask.gmm.operand_values[2]
        if root.opcode != "reduce" or not _is_sum_of(root, root_stack, groups, mask.callers):
            return Refusal("mask-bound", f"{mask.op.ref}: its bound {root.ref} is not the sum of the group "
                           f"sizes {groups.op.ref} that {mask.gmm.ref} reads", root)
        inside = _ROW_BOUND.get((direction or "", offset))
        if inside is None:
            symbol = {"LT": "<", "LE": "<=", "GT": ">", "GE": ">=", "EQ": "==", "NE": "!="}.get(direction or "", "?")
            rel = f"sum(group sizes) {'+' if offset > 0 else '-'} {abs(offset)}" if offset else "sum(group sizes)"
            return Refusal("mask-bound", f"{mask.op.ref}: {pred.ref} keeps the rows {symbol} {rel}, not "
                           "exactly the rows below the sum", pred)
        mask.kept = 1 if inside else 2
        mask.dim = want
        return None

    @check("mask-kept", "mask-false-value")
    def branches(self, mask: Mask) -> Refusal | None:
        kept = _through_call(mask.select.operands[mask.kept], mask.call, any_result=True)
        if kept.computation is not mask.op.computation or kept is mask.op:
            return Refusal("mask-kept", f"{mask.op.ref} keeps {kept.ref}, computed inside the function it "
                           "calls, not a value it is given", mask.op)
        if mask.side == "lhs":
            return None  # what a mask fills the lhs's rows with is never read
        if kept is not mask.gmm:
            return Refusal("mask-kept", f"{mask.op.ref} keeps the rows {mask.gmm.ref} zeroes and zeroes the "
                           "rows it computes", mask.op)
        if not self._is_positive_zero(mask, mask.select.operands[3 - mask.kept]):
            return Refusal("mask-false-value", f"{mask.op.ref} fills the masked rows with something other "
                           f"than +0, the value {mask.gmm.ref} writes there", mask.op)
        return None

    @check("mask-users")
    def users(self, mask: Mask) -> Refusal | None:
        if mask.side == "result":
            return None  # the select equals the GMM's result: every user may read that instead
        readers, lost = _readers_across_calls(mask.op, mask.callers)
        if lost is not None:
            comp = lost.computation
            if comp is not None and lost.opcode not in _CALLS and not mask.callers.get(comp.name):
                return Refusal("mask-users", f"{lost.ref} returns the masked value {mask.op.ref} from {comp.name}, "
                               "which nothing calls (the program's result): the select stays for it", lost)
            return Refusal("mask-users", f"{lost.ref} passes the masked value {mask.op.ref} on to a function "
                           "called from several places, whose readers are not followed: the select stays", lost)
        for user, k in readers:
            ok = (user.opcode == "ragged-dot" and _groups_rows_along(user, k, mask.dim)
                  and _same_across_calls(user.operand_values[2], (), mask.gmm.operand_values[2], (), mask.callers))
            if not ok:
                return Refusal("mask-users", f"{user.ref} also reads the masked value {mask.op.ref} and may "
                               "read the rows it zeroes (the select would stay for it: nothing saved)", user)
        return None

    @check("mask-kernel", takes_context=True)
    def kernel(self, mask: Mask, context: PassContext) -> Refusal | None:
        """The premise, per GMM: the one whose result is masked writes +0 past the groups, and every
        GMM reading a masked lhs reads none of those rows, on the kernel each will run on (the
        entry point's platform and kernel, on the pipeline's context: ``context.gmm_target``).  Never XLA's own ragged-dot: on TPU it
        leaves those rows unspecified (measured), on GPU and CPU its expansion gives 0 * w there."""
        gmms = [mask.gmm]
        if mask.side == "lhs":
            readers, _ = _readers_across_calls(mask.op, mask.callers)
            gmms += [u for u, _ in readers if u.opcode == "ragged-dot" and u is not mask.gmm]
        for gmm in gmms:
            why = past_groups_refusal(gmm, context.gmm_target)
            if why is not None:
                role = "writes" if mask.side == "result" else "reads"
                return Refusal("mask-kernel", f"{mask.op.ref}: {gmm.ref}, which {role} the rows it masks, is not "
                               f"known to ignore the rows past sum(group sizes) and write +0 there: {why}", mask.op)
        return None

    # ---- report and rewrite ---------------------------------------------------------
    def site(self, mask: Mask) -> Site:
        removed = mask.select.shape.byte_size  # the masked value (a jvp ``_where`` also returns its predicate)
        return Site(rule=self.name, form=mask.side, location=location_of(mask.op),
                    before=CollectiveCost(), after=CollectiveCost(), bytes_saved=removed, rewritten=False,
                    pieces=[location_of(mask.gmm)], copies_removed=removed,
                    details=MaskDetails(gmm=mask.gmm.name, side=mask.side, masked_dim=mask.dim))

    def rewrite(self, rw: Rewriter, mask: Mask) -> None:
        kept = mask.select.operand_values[mask.kept]
        if mask.call is not None:  # the value jax's _where function was called with
            kept = mask.call.operand_values[kept.op.attributes["parameter_number"]]
        if mask.op.num_results == 1:
            rw.replace_all_uses(mask.op, kept)
        else:  # MLIR's jvp ``_where``: only its first result is the mask, the predicate stays read
            for reader, k in _mask_readers(mask.op):
                rw.set_operand(reader, k, kept)
        remove_dead(rw, [mask.op])
        # jax's ``_where`` function, once nothing calls it, goes too (XLA would drop it unused).
        if mask.call is not None:
            remove_unused_callees(rw, [mask.call])

    # ---- helpers -------------------------------------------------------------------
    @staticmethod
    def _row_dim(mask: Mask) -> int:
        ragged = tuple(mask.gmm.attributes["lhs_ragged_dims"])[0]
        if mask.side == "lhs":
            return int(ragged)
        position = free_dim_position(mask.gmm, 0, ragged)
        assert position is not None  # ragged rows: the ragged dimension is a free one
        return position

    @staticmethod
    def _is_positive_zero(mask: Mask, value: Instruction) -> bool:
        call = mask.call
        while True:
            outer = _through_call(value, call)
            if outer is not value:
                value, call = outer, None
            elif value.opcode in ("broadcast", "reshape", "convert"):
                value = value.operands[0]
            else:
                break
        if value.opcode != "constant":
            return False
        text = _constant_text(value)
        number = _constant_number(value)
        return number == 0 and text is not None and not text.lstrip().startswith("-")
