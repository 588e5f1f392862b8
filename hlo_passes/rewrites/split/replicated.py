"""Whether a value is provably the same on every device: a reduction of it moves nothing worth fusing.

A weight-gradient reduction (MOE002, MOE004) sums each device's contribution.  Where every device
computes the same contribution (a replicated weight used on replicated tokens inside a
``shard_map`` with ``in_specs=P()``; jax's ``check_vma=False`` then still inserts a ``psum`` of the
cotangent), the reduction only multiplies what each device already holds: there is no gradient to
gather from the others, and two such reductions fused save nothing a user asked for (issue 43:
the site is a near miss, ``no-collective``).

``same_on_every_device`` proves it, conservatively (a "no" may be "could not tell"), by walking the
value's operands back to where it comes from:

* constants and iotas are the same everywhere;
* a pure op (element-wise, data movement, dot, reduce, select, ...) of values the same everywhere is;
* a ``shard_map`` body's argument is, where it enters with a sharding that names no mesh axis
  (``in_specs=P()``: every device sees the whole array), or where it enters split exactly as the
  ``shard_map`` it comes from put it out (a forward body's residual handed to the backward body:
  each device gets back what it computed) and that body computed it the same everywhere;
  in StableHLO (``sdy.manual_computation``) and in jax's HLO (``xla.sdy.GlobalToLocalShape`` /
  ``LocalToGlobalShape`` around a ``call`` of the body);
* a parameter of the entry computation whose sharding is ``{replicated}`` (optimized HLO, where a
  device's program reads its parameters directly), a fusion's parameter as its operand, a
  called function's parameter as the caller's operand and its result as what it returns;
* anything else is not: partition and replica ids, random numbers, collectives, loops,
  conditionals, custom calls, an entry parameter without a replicated sharding.
"""
from __future__ import annotations

from typing import Any

from ...dialects.shardy import decode, per_value
from ...dialects.shardy import same as same_sharding
from ...ir import Instruction, Module, Sharding
from ...ir.op_table import COLLECTIVES, Trait, with_trait
from .layouts import stated_layout

# Ops whose value may differ between devices whatever their operands: those with effects beyond
# their result (the op table's side effects: custom calls, infeed, send/recv, rng), the device's
# own id, a random bit generator, loops and branches (not followed here), and a shard_map's body.
_DEVICE_DEPENDENT = frozenset({d.name for d in with_trait(Trait.SIDE_EFFECTS)}) | {
    "partition-id", "replica-id", "rng-bit-generator", "while", "conditional",
    "stablehlo.partition_id", "stablehlo.replica_id", "sdy.manual_computation",
}
_CALLS = frozenset({"call"})  # MLIR's func.call too: the dialect reads it as call
_BODY_CALL = "xla.sdy.manual_computation_body"
_MAX_STEPS = 4096


def _frontend(instr: Instruction) -> dict[Any, Any]:
    return instr.attributes["frontend_attributes"] if "frontend_attributes" in instr.attributes else {}


def unsplit(text: str | None) -> bool:
    """A sharding that names no mesh axis on any dimension: every device holds the whole array."""
    if text is None:
        return False
    sharding = decode(text)
    if sharding is None:
        return False
    return sharding.replicated_all or all(not dim.axes for dim in sharding.dims)


def _nth(values: object, index: int) -> str | None:
    try:
        items = list(values)  # type: ignore[call-overload]
    except TypeError:
        return None
    return str(items[index]) if 0 <= index < len(items) else None


def _custom_target(instr: Instruction) -> str | None:
    if instr.opcode != "custom-call":
        return None
    target = instr.attributes.get("custom_call_target")
    return str(target) if target is not None else None


class _Walk:
    def __init__(self) -> None:
        self.steps = 0
        self.memo: dict[tuple[Any, ...], bool] = {}

    def value(self, instr: Instruction, result: int, frames: tuple[Any, ...]) -> bool:
        key = (id(instr), result, tuple(id(f) for f in frames))
        if key in self.memo:
            return self.memo[key]
        self.steps += 1
        if self.steps > _MAX_STEPS:
            return False
        self.memo[key] = False  # a cycle proves nothing
        found = self._value(instr, result, frames)
        self.memo[key] = found
        return found

    def _operand(self, instr: Instruction, k: int, frames: tuple[Any, ...]) -> bool:
        return self.value(instr.operands[k], instr.operand_results[k] if instr.operand_results else 0, frames)

    def _value(self, instr: Instruction, result: int, frames: tuple[Any, ...]) -> bool:
        op = instr.opcode
        if op in ("constant", "iota", "stablehlo.constant", "stablehlo.iota"):
            return True
        if op == "parameter":
            return self._parameter(instr, frames)
        if op == "get-tuple-element":
            index = instr.attributes.get("index")
            if not isinstance(index, int) or not instr.operands:
                return False
            return self.value(instr.operands[0], index, frames)
        if op == "tuple":
            return 0 <= result < len(instr.operands) and self._operand(instr, result, frames)
        if op == "fusion" or (op in _CALLS and not self._is_body(instr)):
            body = instr.called_computations[0] if instr.called_computations else None
            if body is None or body.root is None:
                return False
            return self._returned(body.root, result, frames + (instr,))
        if op in _DEVICE_DEPENDENT or op in COLLECTIVES or op.startswith(("all-", "all_", "stablehlo.all")):
            return False
        if op in _CALLS:
            return False  # a shard_map body entered from outside: its results are the exit's to say
        for comp in instr.called_computations:  # a reduce's or sort's scalar function: pure
            if any(i.opcode in _DEVICE_DEPENDENT or i.opcode in COLLECTIVES for i in comp.instructions):
                return False
        return all(self._operand(instr, k, frames) for k in range(len(instr.operands)))

    def _returned(self, root: Instruction, result: int, frames: tuple[Any, ...]) -> bool:
        """Result ``result`` of a computation whose root is ``root``."""
        if root.opcode in ("tuple", "sdy.return", "func.return", "return", "stablehlo.return"):
            return 0 <= result < len(root.operands) and self._operand(root, result, frames)
        return self.value(root, result, frames)

    @staticmethod
    def _is_body(call: Instruction) -> bool:
        return any(c.name.startswith(_BODY_CALL) for c in call.called_computations)

    def _parameter(self, param: Instruction, frames: tuple[Any, ...]) -> bool:
        comp = param.computation
        number = param.attributes.get("parameter_number")
        if comp is None:
            return False
        if number is None:  # StableHLO block arguments: their place among the parameters
            params = [i for i in comp.instructions if i.opcode == "parameter"]
            number = params.index(param) if param in params else None
        if not isinstance(number, int):
            return False
        if frames:  # inside a fusion or a called function: the caller's operand
            caller = frames[-1]
            if number >= len(caller.operands):
                return False
            return self._operand(caller, number, frames[:-1])
        module = comp.module
        if module is not None and module.entry is comp:
            return unsplit(self._param_sharding(param))
        callers = [i for i in (module.instructions() if module is not None else ())
                   if comp in i.called_computations]
        if len(callers) != 1:
            return False
        caller = callers[0]
        if caller.opcode == "sdy.manual_computation":
            return self._entered_stablehlo(caller, number)
        if caller.opcode == "call" and self._is_body(caller) and number < len(caller.operands):
            return self._entered_hlo(caller.operands[number], caller.operand_results[number]
                                     if caller.operand_results else 0)
        return False

    @staticmethod
    def _param_sharding(param: Instruction) -> str | None:
        if "sharding" in param.attributes:
            sharding = param.attributes["sharding"]
            if isinstance(sharding, Sharding) and sharding.kind == "replicated":
                return "#sdy.sharding<@mesh, []>"  # {replicated}: reads as unsplit
        sdy = _frontend(param).get("xla.sdy.sharding")
        return str(sdy) if sdy is not None else None

    def _entered_stablehlo(self, caller: Instruction, k: int) -> bool:
        """A manual computation's argument ``k``, seen inside its body."""
        if "in_shardings" not in caller.attributes or k >= len(caller.operands):
            return False
        entering = _nth(caller.attributes["in_shardings"], k)
        if unsplit(entering):
            return True
        source, r = caller.operands[k], caller.operand_results[k] if caller.operand_results else 0
        if source.opcode != "sdy.manual_computation" or "out_shardings" not in source.attributes:
            return False
        leaving = _nth(source.attributes["out_shardings"], r)
        if entering is None or leaving is None or not same_sharding(entering, leaving):
            return False
        body = source.called_computations[0] if source.called_computations else None
        return body is not None and body.root is not None and self._returned(body.root, r, ())

    def _entered_hlo(self, value: Instruction, result: int) -> bool:
        """jax's HLO: a body's argument is a get-tuple-element of ``xla.sdy.GlobalToLocalShape``."""
        if value.opcode != "get-tuple-element" or not value.operands:
            return False
        entry = value.operands[0]
        index = value.attributes.get("index")
        if _custom_target(entry) != "xla.sdy.GlobalToLocalShape" or not isinstance(index, int):
            return False
        shardings = per_value(str(_frontend(entry).get("xla.sdy.in_shardings", "")))
        entering = shardings[index] if shardings is not None and index < len(shardings) else None
        if unsplit(entering):
            return True
        if index >= len(entry.operands):
            return False
        outside = entry.operands[index]
        # Split as a body put it out: get-tuple-element of LocalToGlobalShape of the body's call.
        if outside.opcode != "get-tuple-element" or not outside.operands:
            return False
        exit_call, j = outside.operands[0], outside.attributes.get("index")
        if _custom_target(exit_call) != "xla.sdy.LocalToGlobalShape" or not isinstance(j, int):
            return False
        out = per_value(str(_frontend(exit_call).get("xla.sdy.out_shardings", "")))
        leaving = out[j] if out is not None and j < len(out) else None
        if entering is None or leaving is None or not same_sharding(entering, leaving):
            return False
        if j >= len(exit_call.operands):
            return False
        inner = exit_call.operands[j]
        if inner.opcode != "get-tuple-element" or not inner.operands or inner.operands[0].opcode != "call":
            return False
        call, e = inner.operands[0], inner.attributes.get("index")
        body = call.called_computations[0] if call.called_computations else None
        return (isinstance(e, int) and body is not None and body.root is not None
                and self._is_body(call) and self._returned(body.root, e, ()))


def no_weight_split(module: Module | None) -> bool:
    """Whether the program splits none of its arrays: every parameter of the entry computation of
    rank 2 or more states a sharding (Shardy's, or HLO's ``{replicated}``) that names no mesh axis.
    A program with an FSDP-sharded weight reduces its gradients to hand out the shards (a site of
    its own), however alike the values each device sums; an unannotated parameter proves nothing."""
    entry = module.entry if module is not None else None
    if entry is None:
        return False
    for param in entry.instructions:
        if param.opcode != "parameter" or not param.shape.is_array or param.shape.rank < 2:
            continue
        layout = stated_layout(param, param.shape.rank)
        if layout is None:
            return False
        if layout.counts is not None:
            if any(n != 1 for n in layout.counts):
                return False
        elif layout.axes is None or any(layout.axes):
            return False
    return True


def same_on_every_device(value: Instruction, result: int = 0) -> bool:
    """Whether result ``result`` of ``value`` is provably the same on every device."""
    return _Walk().value(value, result, ())
