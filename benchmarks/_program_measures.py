"""What one compiled program costs: collectives, pure data movement, device memory.

Read from XLA's optimized (per-device) HLO and its compiled memory analysis,
for benchmarks/program_effect.py.  Only instructions that execute are
counted: the bodies of fusions are looked into to classify a fusion, never
counted on their own.
"""
from __future__ import annotations

from typing import Any

import hlo_passes
from hlo_passes.ir import Computation, Instruction, Module
from hlo_passes.report import collective_bytes

__all__ = ["collective_figures", "copy_figures", "memory_figures", "program_figures"]

# Ops that only move data; a fusion made of them (and the layout-only ops
# below) writes its result without computing anything.
_SPLIT_JOIN = frozenset({"concatenate", "slice", "pad"})
_MOVES = _SPLIT_JOIN | {"copy"}
_LAYOUT_ONLY = frozenset({"parameter", "bitcast", "reshape", "transpose", "constant", "broadcast",
                          "tuple", "get-tuple-element"})

_COLLECTIVES = {
    "all_gather": ("all-gather", "all-gather-start"),
    "reduce_scatter": ("reduce-scatter",),
    "all_reduce": ("all-reduce", "all-reduce-start"),
}


def program_figures(exe: Any) -> dict[str, int]:
    """Every figure of one ``hlo_passes.runtime.Executable``, as a flat dict of ints."""
    modules = exe.loaded.hlo_modules()
    if len(modules) != 1:
        raise ValueError(f"expected one SPMD program, got {len(modules)} HLO modules")
    module = hlo_passes.parse(modules[0].to_string(), dialect="hlo")
    figures: dict[str, int] = {}
    figures.update(collective_figures(module))
    figures.update(copy_figures(module))
    figures.update(memory_figures(exe.loaded.get_compiled_memory_stats()))
    return figures


def _executed(module: Module) -> list[Computation]:
    """Computations whose instructions run as such: not fusion bodies, not reducers."""
    inner: set[str] = set()
    for instr in module.instructions():
        if instr.opcode == "fusion" or instr.opcode in ("reduce", "reduce-window", "scatter", "sort",
                                                        "select-and-scatter", "map") \
                or instr.opcode.startswith(("all-reduce", "reduce-scatter")):
            inner.update(c.name for c in instr.called_computations)
    return [c for c in module.computations.values() if c.name not in inner]


def collective_figures(module: Module) -> dict[str, int]:
    """Count and bytes per device of all-gathers, reduce-scatters and all-reduces."""
    out = {f"{k}_{f}": 0 for k in _COLLECTIVES for f in ("count", "bytes")}
    for comp in _executed(module):
        for instr in comp:
            for key, opcodes in _COLLECTIVES.items():
                if instr.opcode in opcodes:
                    out[f"{key}_count"] += 1
                    out[f"{key}_bytes"] += _collective_bytes(instr)
    return out


def _collective_bytes(instr: Instruction) -> int:
    if instr.opcode.endswith("-start"):
        # The async form's result is (operands, results): the received part is the second.
        shape = instr.shape
        if shape.is_tuple and len(shape.tuple_shapes) == 2:
            received, held = shape.tuple_shapes[1].byte_size, shape.tuple_shapes[0].byte_size
            return received - held if instr.opcode.startswith("all-gather") else held
    return collective_bytes(instr)


def copy_figures(module: Module) -> dict[str, int]:
    """Instructions that only move data and the bytes they write: ``split_join`` for
    slice / concatenate / pad (alone or fused with layout ops), ``relayout`` for
    copies and transposes alone (layout assignment's)."""
    out = {"copy_count": 0, "copy_bytes": 0, "split_join_bytes": 0, "relayout_bytes": 0}
    for comp in _executed(module):
        for instr in comp:
            kind = _move_kind(instr)
            if kind is None:
                continue
            out["copy_count"] += 1
            out["copy_bytes"] += instr.shape.byte_size
            out[f"{kind}_bytes"] += instr.shape.byte_size
    return out


def _move_kind(instr: Instruction) -> str | None:
    if instr.opcode == "fusion":
        opcodes = {i.opcode for c in instr.called_computations for i in c}
        if not (opcodes & _MOVES) or not opcodes <= _MOVES | _LAYOUT_ONLY:
            return None
    elif instr.opcode in _MOVES:
        opcodes = {instr.opcode}
    else:
        return None
    return "split_join" if opcodes & _SPLIT_JOIN else "relayout"


def memory_figures(stats: Any) -> dict[str, int]:
    """XLA's ``CompiledMemoryStats`` of the executable (one device's program)."""
    argument = int(stats.argument_size_in_bytes)
    output = int(stats.output_size_in_bytes)
    alias = int(stats.alias_size_in_bytes)
    temp = int(stats.temp_size_in_bytes)
    return {
        "argument_bytes": argument,
        "output_bytes": output,
        "alias_bytes": alias,
        "temp_bytes": temp,
        "peak_bytes": argument + output + temp - alias,
        "code_bytes": int(stats.generated_code_size_in_bytes),
    }
