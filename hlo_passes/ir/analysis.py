"""Analyses of the IR every rule may use: who calls a computation (``callers_of``), whether two
instructions certainly compute the same value (``same_value``, ``same_op``, ``behaviour``), a
shape with one dimension resized (``resized``), a dot seen through the custom fusion XLA:CPU runs it in
(``as_dot``), where a dimension of a dot's operand lands in its result (``free_dim_position``), and the removal of what a rewrite left unused: dead instructions
(``remove_dead``) and computations nothing calls any more (``remove_unused_callees``).

They read the graph; the two removals change it through the ``Rewriter`` they are given.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, NamedTuple

from .module import Computation, Instruction, Module, Shape
from .op_table import Trait, with_trait
from .rewriter import Rewriter

# Attributes that say *what* an op does, as opposed to its result size.
# Everything else (names, metadata, shapes) may differ between two ops that behave alike.
_IGNORED_ATTRIBUTES = frozenset({"metadata", "frontend_attributes", "sharding", "channel_id", "backend_config",
                                 # called computations: compared by content in same_value
                                 "to_apply", "calls", "condition", "body", "branch_computations"})


# Custom calls that only annotate or re-view a value: sharding constraints,
# and the full <-> shard shape changes around manual (shard_map) regions.
SHARDING_CALLS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


def is_sharding_call(instr: Instruction) -> bool:
    return instr.opcode == "custom-call" and instr.attributes.get("custom_call_target") in SHARDING_CALLS


def callers_of(module: Module) -> dict[str, list[Instruction]]:
    """Computation name → the instructions that call it."""
    callers: dict[str, list[Instruction]] = {}
    for instr in module.instructions():
        for comp in instr.called_computations:
            callers.setdefault(comp.name, []).append(instr)
    return callers


class Behaviour(NamedTuple):
    """What an op does, independent of its size: two ops with equal behaviours do the
    same thing to arrays of the same element type."""

    opcode: str
    element_type: str
    has_channel: bool  # channel kind: a collective with a channel_id and one without differ
    attributes: tuple[Any, ...]  # (name, frozen value) of every semantic attribute, sorted by name


def behaviour(instr: Instruction) -> Behaviour:
    """The ``Behaviour`` of ``instr``: what it does, whatever the size of its operands."""
    attrs = []
    for key in sorted(instr.attributes):
        if key in _IGNORED_ATTRIBUTES:
            continue
        try:
            value = instr.attributes[key]
        except ValueError:
            value = instr.attributes.raw(key)
        attrs.append((key, _freeze(value)))
    if instr.opcode == "compare" and "direction" not in instr.attributes:
        # StableHLO's pretty form (``compare LE, ..., SIGNED``) keeps direction and type as words, no
        # attributes: a compare LE and a compare LT of the same operands are not the same op.
        attrs.append(("direction", (instr.compare_direction, instr.compare_type)))
    has_channel = "channel_id" in instr.attributes
    return Behaviour(instr.opcode, instr.shape.element_type, has_channel, tuple(attrs))


def same_op(a: Instruction, b: Instruction) -> bool:
    """Same op with the same semantic attributes and equivalent called computations."""
    return behaviour(a) == behaviour(b) and same_calls(a, b)


def same_calls(a: Instruction, b: Instruction) -> bool:
    """Whether two ops call equivalent computations, pairwise (a reduction's ``to_apply``: the same
    sum whichever copy of it each op names)."""
    return len(a.called_computations) == len(b.called_computations) and all(
        ca is cb or _same_computation(ca, cb, 12) for ca, cb in zip(a.called_computations, b.called_computations))


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def same_value(a: Instruction, b: Instruction, depth: int = 12, params: bool = False) -> bool:
    """Whether two instructions certainly compute the same value.

    The same instruction, or the same pure op on operands that are the same
    value; bounded in depth, so a "no" may be a "could not prove it".
    Lowered programs repeat the masking of ragged_dot's decomposition per
    call (with a copy of each called computation), so the two GMMs'
    left-hand sides are often equal only in this sense.  ``params`` is set
    while comparing two called computations: there, parameters with the same
    number stand for the same argument.
    """
    if a is b:
        return True
    if depth == 0 or a.opcode != b.opcode or a.shape != b.shape:
        return False
    if a.opcode == "parameter":
        return params and a.attributes.get("parameter_number") == b.attributes.get("parameter_number")
    if a.opcode in ("rng", "rng-bit-generator", "custom-call", "infeed", "recv") or a.opcode == "all-gather":
        return False
    if a.opcode == "iota":
        return behaviour(a) == behaviour(b)
    if a.opcode == "constant":
        return behaviour(a) == behaviour(b) and _literal(a) == _literal(b)
    if len(a.operands) != len(b.operands) or a.operand_results != b.operand_results:
        return False
    if behaviour(a) != behaviour(b):
        return False
    if len(a.called_computations) != len(b.called_computations):
        return False
    for ca, cb in zip(a.called_computations, b.called_computations):
        if ca is not cb and not _same_computation(ca, cb, depth - 1):
            return False
    return all(same_value(x, y, depth - 1, params) for x, y in zip(a.operands, b.operands))


def _same_computation(ca: Computation, cb: Computation, depth: int) -> bool:
    if ca.root is None or cb.root is None or len(ca.instructions) != len(cb.instructions):
        return False
    if [p.shape for p in ca.parameters] != [p.shape for p in cb.parameters]:
        return False
    return same_value(ca.root, cb.root, depth, params=True)


def literal(instr: Instruction) -> tuple[str, Any] | None:
    """A constant's value, comparable between constants of one module (None: unknown)."""
    attrs = instr.attributes
    if "literal" in attrs:  # HLO
        return ("literal", _freeze(attrs["literal"]))
    if "value" in attrs:  # MLIR generic form
        return ("value", attrs.raw("value") or str(attrs["value"]))
    pretty = instr.mlir_pretty_value  # MLIR pretty form: ``stablehlo.constant dense<0> : tensor<i32>``
    return ("text", pretty) if pretty is not None else None


def _literal(instr: Instruction) -> object:
    value = literal(instr)
    # Unknown values never compare equal, not even to themselves.
    return value if value is not None else object()


def resized(shape: Shape, dim: int, size: int) -> Shape:
    """``shape`` with dimension ``dim`` set to ``size``, keeping its layout."""
    dims = list(shape.dims)
    dims[dim] = size
    return replace(shape, dims=tuple(dims), text=None)


DOT_OPCODES = frozenset({"dot", "ragged-dot"})


def fused_dot(instr: Instruction) -> Instruction | None:
    """The dot a custom fusion runs, where its body is that one dot (or ragged-dot) of its
    parameters, in order: XLA:CPU (jax >= 0.12.1) puts every dot in a ``kCustom`` fusion of kind
    ``__ynn_fusion`` (YNNPACK runs it), ``fusion(a, b), calls={ROOT dot(param_0, param_1)}``.
    Then the fusion's operands are the dot's, its shape the dot's; the dot inside holds the
    dimension numbers.  None for anything else (a custom fusion computing more than the dot)."""
    if instr.opcode != "fusion" or instr.attributes.get("kind") != "kCustom" or len(instr.called_computations) != 1:
        return None
    body = instr.called_computations[0]
    root = body.root
    if root is None or root.opcode not in DOT_OPCODES or len(body.instructions) != len(root.operands) + 1:
        return None
    if len(instr.operands) != len(root.operands) or root.shape.dims != instr.shape.dims:
        return None
    for number, (param, outer) in enumerate(zip(root.operands, instr.operands)):
        if param.opcode != "parameter" or param.attributes.get("parameter_number") != number \
                or param.shape.dims != outer.shape.dims:
            return None
    return root


def ynn_dot(instr: Instruction) -> bool:
    """A dot XLA:CPU runs through YNNPACK: a ``fused_dot`` whose fusion's backend config says
    ``__ynn_fusion`` (XLA:CPU puts reductions in such fusions too: they are no dots)."""
    if fused_dot(instr) is None or "backend_config" not in instr.attributes:
        return False
    return "__ynn_fusion" in str(instr.attributes.raw("backend_config") or "")


def as_dot(instr: Instruction) -> Instruction | None:
    """The op holding a dot's dimension numbers: ``instr`` itself (a ``dot`` / ``ragged-dot``),
    or the one dot of a custom fusion (``fused_dot``); None when ``instr`` is no dot.  The one
    test of "this op is a dot" the rules use: read the operands from ``instr``, the dimension
    numbers and the opcode from what this returns."""
    if instr.opcode in DOT_OPCODES:
        return instr
    return fused_dot(instr) if instr.opcode == "fusion" else None


def free_dim_position(gmm: Instruction, operand: int, dim: int) -> int | None:
    """Where dimension ``dim`` of operand ``operand`` (0: lhs, 1: rhs) of the dot ``gmm`` (possibly
    in its custom fusion, ``as_dot``) lands in its result (None: contracted, batched or grouped)."""
    gmm = as_dot(gmm) or gmm
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


def remove_dead(rw: Rewriter, roots: list[Instruction]) -> list[Instruction]:
    """Remove ``roots`` and then their operands, while nothing uses them; returns what went."""
    removed: list[Instruction] = []
    work = list(roots)
    while work:
        instr = work.pop()
        comp = instr.computation
        if comp is None or instr.users or instr is comp.root or instr.opcode == "parameter":
            continue
        if instr.is_terminator or (instr.opcode in _SIDE_EFFECTING and not is_sharding_call(instr)):
            continue
        operands = list(instr.operands)
        rw.erase(instr)
        removed.append(instr)
        work.extend(operands)
    return removed


_SIDE_EFFECTING = frozenset(d.name for d in with_trait(Trait.SIDE_EFFECTS))


def remove_unused_callees(rw: Rewriter, calls: Iterable[Instruction]) -> list[Computation]:
    """The computations that ``calls`` (instructions a rewrite erased) called, removed where no
    instruction of the module calls them any more: a function jax outlined (``_where``, ``silu``)
    that the rewrite stopped calling goes, as XLA would drop it unused.  A nested body (one with a
    parent) is its op's, not a function of the module, and stays.  Returns what went."""
    removed: list[Computation] = []
    for call in calls:
        if call.computation is not None or len(call.called_computations) != 1:
            continue  # still in the module, or not a call of one function
        callee = call.called_computations[0]
        if callee.parent is None and not any(callee in i.called_computations for i in rw.module.instructions()):
            rw.remove_computation(callee)
            removed.append(callee)
    return removed
