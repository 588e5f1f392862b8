"""Compile and run HLO or StableHLO text on the local devices through jaxlib.

For tests, examples and benchmarks: a rewritten module is only as good as the
numbers it computes, and this is the shortest path from text to numbers.

    exe = compile_text(lowered.as_text(), num_devices=8)
    out = exe.run(x, gs, w, wo)            # host arrays in, jax.Arrays out
    count_ops(exe.compiled_text)["all-gather"]

HLO text goes through XLA's own HLO → StableHLO import first, so it must be a
module before optimization (a lowering, a dump before optimizations, after
Shardy import or after SPMD partitioning); optimized HLO does not compile again.
Executables are cached by a hash of the text and the device set, since the
compile is the expensive part.
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from . import _jax_compat as compat
from .ir.op_table import COLLECTIVES, is_collective
from .sniff import detect_dialect
from .ir import Instruction, Module
from .ir.rewriter import Rewriter
from .pass_interface import Changes, PassContext, Stage
from .pipeline_driver import Pipeline
from .text import parse_hlo

__all__ = [
    "Executable",
    "clear_cache",
    "compile_text",
    "count_collectives",
    "count_ops",
]

# MLIR element types → numpy dtypes; integers in StableHLO are signless and
# mean signed.
_MLIR_DTYPES: dict[str, str] = {
    "i1": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "si8": "int8", "si16": "int16", "si32": "int32", "si64": "int64",
    "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "complex<f32>": "complex64", "complex<f64>": "complex128",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
}


@dataclass(frozen=True)
class ArrayType:
    """Global shape and dtype of one parameter or result."""

    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


@dataclass
class Executable:
    """A compiled module bound to its devices.

    ``run`` takes host or device arrays in parameter order and returns one
    global ``jax.Array`` per result, with the shardings XLA chose.
    """

    loaded: Any  # xla_client.LoadedExecutable
    devices: tuple[Any, ...]
    parameters: tuple[ArrayType, ...]
    results: tuple[ArrayType, ...]
    source_dialect: str
    key: str
    _in_shardings: tuple[jax.sharding.Sharding, ...] = field(default=(), repr=False)
    _out_shardings: tuple[jax.sharding.Sharding, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        # A one-device executable reports no shardings at all: everything
        # simply lives on that device; a replicated one (a partitioned module
        # run as one program per device) has one copy per device.
        ins = self.loaded.get_parameter_shardings()
        outs = self.loaded.get_output_shardings()
        single: jax.sharding.Sharding
        if len(self.devices) > 1:
            single = jax.sharding.NamedSharding(
                jax.sharding.Mesh(np.array(self.devices, dtype=object), ("devices",)),
                jax.sharding.PartitionSpec())
        else:
            single = jax.sharding.SingleDeviceSharding(self.devices[0])
        self._in_shardings = tuple(
            compat.sharding_from_op_sharding(s, self.devices) for s in ins
        ) if ins is not None else (single,) * len(self.parameters)
        self._out_shardings = tuple(
            compat.sharding_from_op_sharding(s, self.devices) for s in outs
        ) if outs is not None else (single,) * len(self.results)

    @property
    def input_shardings(self) -> tuple[jax.sharding.Sharding, ...]:
        return self._in_shardings

    @property
    def output_shardings(self) -> tuple[jax.sharding.Sharding, ...]:
        return self._out_shardings

    @property
    def compiled_text(self) -> str:
        """XLA's optimized HLO of the executable (per-device, after partitioning)."""
        return "\n".join(m.to_string() for m in self.loaded.hlo_modules())

    def place(self, *arrays: Any) -> list[jax.Array]:
        """Put ``arrays`` on the devices with the shardings the executable expects."""
        if len(arrays) != len(self.parameters):
            raise TypeError(f"executable takes {len(self.parameters)} arguments, got {len(arrays)}")
        placed = []
        for i, (a, want, sharding) in enumerate(zip(arrays, self.parameters, self._in_shardings)):
            shape = tuple(np.shape(a))
            dtype = np.dtype(a.dtype) if hasattr(a, "dtype") else np.asarray(a).dtype
            if shape != want.shape or dtype != want.dtype:
                raise TypeError(f"argument {i}: expected {want}, got {dtype}{list(shape)}")
            placed.append(jax.device_put(a, sharding))
        return placed

    def run(self, *arrays: Any) -> list[jax.Array]:
        """Execute on host or device arrays; one global ``jax.Array`` per result."""
        args = self.place(*arrays)
        outs = self.loaded.execute_sharded(args).disassemble_into_single_device_arrays()
        return [
            jax.make_array_from_single_device_arrays(t.shape, s, list(shards))
            for t, s, shards in zip(self.results, self._out_shardings, outs)
        ]


    def run_per_device(self, *arrays: Any) -> list[list[np.ndarray]]:
        """Execute a module that is already partitioned (one program per device).

        A dump after SPMD partitioning takes each device's own shard under a
        "replicated" parameter sharding, which a global ``jax.Array`` cannot
        say.  Each argument is one host array (every device gets it) or a
        list with one host array per device.  Returns, per result, the list
        of per-device values.
        """
        if len(arrays) != len(self.parameters):
            raise TypeError(f"executable takes {len(self.parameters)} arguments, got {len(arrays)}")
        n = len(self.devices)
        args = []
        for i, (a, want, sharding) in enumerate(zip(arrays, self.parameters, self._in_shardings)):
            per_device = list(a) if isinstance(a, (list, tuple)) else [a] * n
            if len(per_device) != n:
                raise TypeError(f"argument {i}: {len(per_device)} per-device values for {n} devices")
            bufs = []
            for d, v in zip(self.devices, per_device):
                v = np.asarray(v)
                if v.shape != want.shape or v.dtype != want.dtype:
                    raise TypeError(f"argument {i}: expected {want} per device, got {v.dtype}{list(v.shape)}")
                bufs.append(jax.device_put(v, d))
            args.append(jax.make_array_from_single_device_arrays(want.shape, sharding, bufs))
        outs = self.loaded.execute_sharded(args).disassemble_into_single_device_arrays()
        return [[np.asarray(b) for b in shards] for shards in outs]


# What Shardy's import reads in HLO text (jax's lowering, a dump before optimizations).
_SHARDY_INPUT_RE = re.compile(r'custom_call_target="xla\.sdy\.|xla\.sdy\.(?:sharding|meshes)\b')
# Shardings over a named mesh (jax 0.12's XLA writes them once Shardy has run).
_NAMED_SHARDING_RE = re.compile(r"sharding=\{+mesh\[")

_CACHE: dict[str, Executable] = {}
_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every cached executable."""
    with _LOCK:
        _CACHE.clear()


def compile_text(
    text: str | bytes,
    *,
    dialect: str = "auto",
    num_devices: int | None = None,
    devices: Sequence[Any] | None = None,
    cache: bool = True,
    partitioned: bool = False,
) -> Executable:
    """Compile HLO or StableHLO text for SPMD over ``num_devices`` local devices.

    ``dialect``: ``"auto"`` (HLO when the text starts with ``HloModule``),
    ``"hlo"`` or ``"stablehlo"``; bytes are taken as MLIR bytecode.
    ``num_devices`` defaults to the module's ``mhlo.num_partitions``;
    ``devices`` (default: the first ``num_devices`` of ``jax.devices()``) fixes
    which devices and their order.

    ``partitioned=True``: HLO that is already one device's program (a dump
    after SPMD partitioning).  Partitioning it again would refuse its
    ``partition-id`` ("its meaning is ambiguous"), and XLA:CPU runs several
    partitions only through the partitioner, so it runs as one replica per
    device: ``partition-id`` reads the replica id, and its collectives (which
    name global device ids, ``use_global_device_ids=true``) mean the same
    devices.  Use ``Executable.run_per_device``.
    """
    dialect = _dialect_of(text, dialect)
    if partitioned:
        if dialect != "hlo" or not isinstance(text, str):  # bytes are MLIR bytecode
            raise ValueError("partitioned=True takes HLO text (a dump after SPMD partitioning)")
        text, copies = _as_replicas(text, num_devices)
    # (bytes are MLIR bytecode: _dialect_of)
    stablehlo = compat.hlo_text_to_stablehlo(_explicit_device_ids(text)) if isinstance(text, str) and dialect == "hlo" else text
    module = compat.parse_mlir(stablehlo)
    if isinstance(text, str) and dialect == "hlo" and "ragged-dot(" in text:
        module = chlo_ragged_dots(module)
    replicas, partitions = (copies, 1) if partitioned else _replicas_and_partitions(module)
    devices = _pick_devices(num_devices, devices, replicas * partitions)
    if replicas != 1 and replicas * partitions != len(devices):
        raise ValueError(f"module wants {replicas} replicas × {partitions} partitions, got {len(devices)} devices")
    partitions = len(devices) // replicas

    key = _cache_key(text, dialect, devices)
    if cache:
        with _LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return hit
    parameters, results = _main_signature(module)
    exe = Executable(loaded=_compile(module, text, dialect, devices, replicas, partitions), devices=devices,
                     parameters=parameters, results=results, source_dialect=dialect, key=key)
    if cache:
        with _LOCK:
            _CACHE[key] = exe
    return exe


_MHLO_RAGGED_DOT_DIMS = re.compile(r"#mhlo\.ragged_dot<dot_dimension_numbers = #mhlo\.dot<([^<>]*)>(, )?")


def chlo_ragged_dots(module: Any) -> Any:
    """``module`` with each ``mhlo.ragged_dot`` as ``chlo.ragged_dot`` (the same op).

    XLA's HLO → MHLO import turns an HLO ``ragged-dot`` into ``mhlo.ragged_dot``.
    XLA:CPU takes that, but what jaxlib hands a PJRT plugin (TPU, GPU) is
    portable StableHLO, and ``mhlo.ragged_dot`` has no StableHLO form: XLA:TPU
    refuses the module ("failed to legalize operation 'mhlo.ragged_dot' that
    was explicitly marked illegal").  jax's own lowering emits
    ``chlo.ragged_dot``, which every backend takes and turns back into the
    same HLO ``ragged-dot``: the attribute's dimension numbers are the MHLO
    ones with the nested ``#mhlo.dot<...>`` flattened, the precisions the same.
    """
    text = compat.mlir_print(module, generic=True)
    if '"mhlo.ragged_dot"' not in text:
        return module
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if '"mhlo.ragged_dot"' not in line:
            continue
        line = line.replace('"mhlo.ragged_dot"', '"chlo.ragged_dot"').replace("#mhlo<precision ", "#chlo<precision ")
        line = _MHLO_RAGGED_DOT_DIMS.sub(
            lambda m: "#chlo.ragged_dot<" + (m.group(1) + (m.group(2) or "") if m.group(1) else ""), line)
        left = re.search(r"#mhlo[.<][\w.]*", line)
        if left:
            raise ValueError(f"ragged-dot with {left.group(0)}: no chlo.ragged_dot form known for it "
                             "(hlo_passes.runtime.chlo_ragged_dots)")
        lines[i] = line
    return compat.parse_mlir("\n".join(lines))


def _dialect_of(text: str | bytes, dialect: str) -> str:
    """``"hlo"`` or ``"stablehlo"`` for ``compile_text``'s ``dialect`` argument; refuses what
    XLA cannot compile again."""
    if isinstance(text, bytes):
        return "stablehlo"
    if dialect == "auto":
        dialect = detect_dialect(text)
    if dialect not in ("hlo", "stablehlo", "mlir"):
        raise ValueError(f"unknown dialect {dialect!r}: expected 'auto', 'hlo' or 'stablehlo'")
    if dialect == "hlo" and "is_scheduled=true" in text.split("\n", 1)[0]:
        # XLA's HLO → MHLO import keeps the assigned layouts and then fails on
        # them ("layout minor_to_major field contains 2 elements ...").
        raise ValueError(
            "optimized HLO (is_scheduled=true: after layout assignment and fusion) "
            "cannot be compiled again; give a module from before optimization "
            "(a lowering, or a dump before optimizations / after SPMD partitioning)"
        )
    return "hlo" if dialect == "hlo" else "stablehlo"


def _pick_devices(num_devices: int | None, devices: Sequence[Any] | None, wanted: int) -> tuple[Any, ...]:
    """The devices to run on: those given, else the first ``num_devices`` (default: what the
    module asks for) of ``jax.devices()``."""
    if devices is None:
        n = num_devices if num_devices is not None else wanted
        available = jax.devices()
        if n > len(available):
            raise RuntimeError(
                f"module needs {n} devices, {len(available)} present (on CPU set "
                "XLA_FLAGS=--xla_force_host_platform_device_count=N before importing jax)"
            )
        devices = available[:n]
    devices = tuple(devices)
    if num_devices is not None and len(devices) != num_devices:
        raise ValueError(f"num_devices={num_devices} but {len(devices)} devices given")
    return devices


def _cache_key(text: str | bytes, dialect: str, devices: tuple[Any, ...]) -> str:
    digest = hashlib.sha256()
    digest.update(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
    digest.update(f"|{dialect}|{[d.id for d in devices]}|{devices[0].platform}".encode())
    return digest.hexdigest()


def _compile(module: Any, text: str | bytes, dialect: str, devices: tuple[Any, ...], replicas: int,
             partitions: int) -> Any:
    """The loaded executable of the parsed MLIR ``module`` (``text`` is what it came from)."""
    backend = compat.get_backend(devices[0].platform)
    options = compat.compile_options(num_partitions=partitions, num_replicas=replicas, devices=devices, backend=backend)
    if isinstance(text, str) and dialect == "hlo" and partitions > 1 and _NAMED_SHARDING_RE.search(text) and not _SHARDY_INPUT_RE.search(text):
        # Shardy's import already ran on this module (an XLA dump after it, or
        # after SPMD partitioning): what is left is GSPMD's partitioner, which
        # XLA runs after Shardy anyway.  Shardy again on it crashes jaxlib 0.12
        # (SIGSEGV in compile_and_load on a dump after Shardy import, whose
        # shardings name a mesh: sdy.mesh from the HLO -> StableHLO import).
        options = compat.without_shardy(options)
    return backend.compile_and_load(
        compat.mlir_to_bytecode(module),
        executable_devices=compat.device_list(devices),
        compile_options=options,
    )


_PARTITION_ID_RE = re.compile(r"(=\s*u32\[\]\s*)partition-id\(\)")


def _as_replicas(text: str, num_devices: int | None) -> tuple[str, int]:
    """A partitioned module as one replica per device (see ``compile_text``), and
    how many devices it runs on."""
    module = parse_hlo(text)
    for instr in module.instructions():
        if is_collective(instr.opcode) and not instr.opcode.endswith("-done"):
            if instr.attributes.source_texts().get("use_global_device_ids") != "true":
                raise ValueError(f"{instr.name}: a partitioned module runs as replicas here only if its "
                                 "collectives name global device ids (use_global_device_ids=true)")
    module = _prepared(_prepared(module, _DropShardings()), _DropCopies())
    text = module.to_text()
    header, sep, rest = text.partition("\n")
    n = num_devices if num_devices is not None else module.declared_devices[1]
    header = re.sub(r",\s*num_partitions=\d+", "", header)
    header = re.sub(r",\s*replica_count=\d+", "", header) + f", replica_count={n}"
    return header + sep + _PARTITION_ID_RE.sub(r"\1replica-id()", rest), n


def _explicit_device_ids(text: str) -> str:
    """HLO text with every ``mesh[...], device_ids=(...) {...}`` replica-group list
    written out as explicit groups.

    XLA's HLO → StableHLO import (jaxlib 0.10.2 and 0.12) drops the
    ``device_ids`` of mesh replica groups: the module would then gather over
    the mesh's positions instead of its devices (measured: ``mesh['a'=2,'b'=4],
    device_ids=([2,4]T(1,0)) {'b'}`` runs as groups {0,1,2,3},{4,5,6,7}
    instead of {0,4,1,5},{2,6,3,7}), and refuses a mesh group over an axis of size 1 the
    partitioner wrote (``mesh['axis_0'=1,'axis_1'=8,'axis_2'=1] {'axis_2'}``: "Unknown axis
    axis_2"); explicit groups say the same of every mesh group.
    """
    if "mesh[" not in text:
        return text
    result = Pipeline([_ExplicitDeviceIds()], strict=True).run(parse_hlo(text), copy=False)
    return result.module.to_text() if result.changed else text


# The preparations of a text for running are pipeline stages (``pass_interface.Stage``): their
# edits are journaled and verified as a rule's are, and tag nothing (the same program).
def _prepared(module: Module, stage: Stage) -> Module:
    return Pipeline([stage], strict=True).run(module, copy=False).module


class _DropShardings(Stage):
    """Shardings left on a per-device program would be read as global ones: removed."""

    name = "drop-shardings"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        dropped = 0
        for instr in module.instructions():
            if "sharding" in instr.attributes:
                rewriter.remove_attribute(instr, "sharding")
                dropped += 1
        return Changes(changed=dropped > 0)


class _DropCopies(Stage):
    """A per-device program's ``copy`` ops change a layout only (the partitioner's and layout
    assignment's), and the hand-over to StableHLO drops layouts; XLA:TPU's MLIR legalization refuses
    the ``mhlo.copy`` they become ("failed to legalize operation 'mhlo.copy'", measured on a v5e chip
    for every after-partitioning dump of tests/fixtures/tpu), so each copy's readers read its operand."""

    name = "drop-copies"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        dropped = 0
        for comp in list(module.computations.values()):
            for instr in [i for i in comp.instructions if i.opcode == "copy"]:
                source = instr.operands[0]
                if comp.root is instr and not isinstance(source, Instruction):
                    continue  # (a root must be an op of its own)
                # (Operand by operand: ``replace_all_uses`` keeps the readers' layout with a copy.)
                for user in list(instr.users):
                    for k, operand in enumerate(user.operands):
                        if operand is instr:
                            rewriter.set_operand(user, k, source)
                if comp.root is instr:
                    rewriter.make_root(comp, source)
                rewriter.erase(instr)
                dropped += 1
        return Changes(changed=dropped > 0)


class _ExplicitDeviceIds(Stage):
    """Every mesh replica-group list written out as explicit groups (``_explicit_device_ids``)."""

    name = "explicit-device-ids"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        written = 0
        for instr in module.instructions():
            raw = instr.attributes.raw("replica_groups") if "replica_groups" in instr.attributes else None
            if raw is not None and raw.startswith("mesh"):
                rewriter.set_attribute(instr, "replica_groups", tuple(instr.attributes["replica_groups"]))
                written += 1
        return Changes(changed=written > 0)


def _replicas_and_partitions(module: Any) -> tuple[int, int]:
    # (jax's MLIR module, read through its bindings: the same fact ``ir.Module.declared_devices``
    # reads off this package's IR, which is not parsed here.)
    attrs = module.operation.attributes

    def get(name: str) -> int:
        return int(compat.ir.IntegerAttr(attrs[name]).value) if name in attrs else 1

    return get("mhlo.num_replicas"), get("mhlo.num_partitions")


def _main_signature(module: Any) -> tuple[tuple[ArrayType, ...], tuple[ArrayType, ...]]:
    """Global parameter and result types of the public ``@main``."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and compat.ir.StringAttr(op.attributes["sym_name"]).value == "main":
            ftype = compat.ir.FunctionType(compat.ir.TypeAttr(op.attributes["function_type"]).value)
            return (
                tuple(_array_type(t) for t in ftype.inputs),
                tuple(_array_type(t) for t in ftype.results),
            )
    raise ValueError("module has no func.func @main")


def _array_type(t: Any) -> ArrayType:
    ranked = compat.ir.RankedTensorType(t)
    element = str(ranked.element_type)
    if element not in _MLIR_DTYPES:
        raise TypeError(f"unsupported element type {element} in {t}")
    return ArrayType(tuple(ranked.shape), np.dtype(jax.numpy.dtype(_MLIR_DTYPES[element])))


# ---------------------------------------------------------------------------
# Counting ops in HLO text

_INSTR_START = re.compile(r"^\s*(?:ROOT\s+)?%?[^\s=]+\s*=\s*")
_OPCODE = re.compile(r"\s*([a-z][a-z0-9\-]*)\(")


def _skip_shape(line: str, i: int) -> int:
    """Index just past the result shape starting at ``line[i]``."""
    if i < len(line) and line[i] == "(":
        depth = 0
        for j in range(i, len(line)):
            c = line[j]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
        return len(line)
    # Array shapes contain no spaces outside braces/brackets: f32[4,8]{1,0:T(8,128)}.
    depth = 0
    for j in range(i, len(line)):
        c = line[j]
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif c == " " and depth == 0:
            return j
    return len(line)


def count_ops(hlo_text: str, opcodes: Iterable[str] | None = None) -> Counter[str]:
    """Instructions per opcode over every computation of HLO text.

    Counts each instruction line once (fused computations included), so it
    works on compiled text, dumps and lowerings alike.  With ``opcodes``,
    only those keys are kept (missing ones read 0 from the ``Counter``).
    """
    counts: Counter[str] = Counter()
    for line in hlo_text.splitlines():
        m = _INSTR_START.match(line)
        if not m:
            continue
        j = _skip_shape(line, m.end())
        op = _OPCODE.match(line, j)
        if op:
            counts[op.group(1)] += 1
    if opcodes is not None:
        wanted = set(opcodes)
        counts = Counter({k: v for k, v in counts.items() if k in wanted})
    return counts


def count_collectives(hlo_text: str) -> Counter[str]:
    """Collectives in HLO text, async ``-start``/``-done`` pairs counted once under the base name."""
    counts = count_ops(hlo_text)
    out: Counter[str] = Counter()
    for name in COLLECTIVES:
        n = counts.get(name, 0) + counts.get(f"{name}-start", 0)
        if n:
            out[name] = n
    return out
