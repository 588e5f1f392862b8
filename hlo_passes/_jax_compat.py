"""The one place hlo_passes reaches into jax and jaxlib internals.

jax has no public API for parsing MLIR text into its own context, for
building compile options, or for converting between HLO and StableHLO text.
Everything that needs those goes through the small set of functions here, so
that a jax upgrade breaks one module, loudly, at import time.

Supported: jax and jaxlib ``>=0.10.2,<0.12`` (``SUPPORTED_RANGE``).  Importing
this module with another version raises ``ImportError`` naming the range.

Internals touched (kept in sync with the README):

* ``jax._src.interpreters.mlir.make_ir_context`` — an MLIR context with the
  StableHLO, CHLO, Shardy, func and other dialects jax registers;
* ``jax._src.interpreters.mlir.module_to_bytecode`` — MLIR bytecode of a
  module (what ``compile_and_load`` and ``jax.export`` take);
* ``jax._src.compiler.get_compile_options`` — ``CompileOptions`` for a device
  assignment (the public ``jax.extend.backend.get_compile_options`` is used
  when present; both take the same arguments);
* ``jax._src.sharding_impls.GSPMDSharding`` — a jax ``Sharding`` from the
  ``OpSharding`` an executable reports for its parameters and results;
* ``jaxlib.xla_client._xla.mlir.mlir_module_to_xla_computation`` —
  StableHLO → ``XlaComputation`` (HLO text);
* ``jaxlib.xla_client._xla.mlir.hlo_to_stablehlo`` (also public as
  ``jax.extend.mlir.hlo_to_stablehlo``) — serialized ``HloModuleProto`` →
  StableHLO bytecode;
* ``jaxlib.xla_client.hlo.hlo_module_from_text`` / ``HloModule`` — XLA's HLO
  text parser and printer (no shape verification; some malformed inputs abort
  the process, so callers feed it only text that came from XLA or from our
  printer);
* ``jaxlib.xla_client.DeviceList`` — the device list ``compile_and_load`` takes;
* ``jax.extend.mlir.ir`` (public) — the MLIR Python bindings jax ships;
* ``jax.stages.Lowered._lowering`` (a ``pxla.MeshComputation``) and its
  ``_hlo`` / ``_executable`` slots — where ``hlo_passes.jit`` puts the
  rewritten module before jax compiles it (``lowered_with_module``);
* ``jax.extend.xla.register_hlo_module_transformation`` /
  ``clear_hlo_module_transformation`` (public, new in jaxlib 0.10.2) — the
  compile-time hook ``hlo_passes.install()`` lints every module through;
* ``jax._src.lax.lax.ragged_dot_general_p`` and ``_ragged_dot_general_lower``,
  ``mlir.LoweringParameters(override_lowering_rules=...)`` and
  ``Traced.lower(_private_parameters=...)`` — lowering ``ragged_dot`` on CPU as
  ``chlo.ragged_dot`` (jax decomposes it into a masked dense dot there) so
  that ``hlo_passes.jit(kernel=...)`` can hand it to a grouped-matmul kernel;
  ``Lowered._lowering._platforms`` — the platform a lowering is for.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import jax
import jaxlib

SUPPORTED_RANGE = ">=0.10.2"
_MIN = (0, 10, 2)
_MAX_EXCLUSIVE = (10**6, 0, 0)  # no upper bound: see issue 12 (feature detection follows)


def _version_tuple(version: str) -> tuple[int, int, int]:
    """``"0.11.2.dev20260101+cuda"`` → ``(0, 11, 2)``."""
    parts = [int(m) for m in re.findall(r"\d+", version.split("+")[0])[:3]]
    parts += [0] * (3 - len(parts))
    return (parts[0], parts[1], parts[2])


def check_version(jax_version: str | None = None, jaxlib_version: str | None = None) -> None:
    """Raise ``ImportError`` unless jax and jaxlib are within ``SUPPORTED_RANGE``."""
    versions = {
        "jax": jax_version if jax_version is not None else jax.__version__,
        "jaxlib": jaxlib_version if jaxlib_version is not None else jaxlib.__version__,
    }
    for name, version in versions.items():
        if not _MIN <= _version_tuple(version) < _MAX_EXCLUSIVE:
            raise ImportError(
                f"hlo_passes supports {name}{SUPPORTED_RANGE}, found {name} {version}: "
                "it relies on jax internals that change between releases "
                "(see hlo_passes/_jax_compat.py); install a supported version, "
                f"e.g. pip install 'jax{SUPPORTED_RANGE}' 'jaxlib{SUPPORTED_RANGE}'"
            )


check_version()

# Imported only after the version check so that an unsupported jax fails with
# the message above rather than an AttributeError from deep inside.
from jax._src import compiler as _compiler  # noqa: E402
from jax._src.lax import lax as _lax  # noqa: E402
from jax._src import sharding_impls as _sharding_impls  # noqa: E402
from jax._src.interpreters import mlir as _mlir  # noqa: E402
import jax.extend.backend as _jax_extend_backend  # noqa: E402
from jax.extend.mlir import ir  # noqa: E402  (public; re-exported for callers)
from jaxlib import xla_client as _xc  # noqa: E402

__all__ = [
    "SUPPORTED_RANGE",
    "check_version",
    "compile_options",
    "device_list",
    "get_backend",
    "clear_module_transformation",
    "hlo_module_from_proto",
    "lowered_with_module",
    "lower_keeping_ragged_dot",
    "lowering_platform",
    "register_module_transformation",
    "hlo_module_from_text",
    "hlo_proto_to_stablehlo",
    "hlo_text_to_stablehlo",
    "ir",
    "make_ir_context",
    "mlir_print",
    "mlir_to_bytecode",
    "parse_mlir",
    "print_hlo",
    "sharding_from_op_sharding",
    "stablehlo_to_hlo_text",
    "without_shardy",
]


def make_ir_context() -> ir.Context:
    """A fresh MLIR context with every dialect jax lowers to registered."""
    return _mlir.make_ir_context()


def parse_mlir(text: str | bytes, context: ir.Context | None = None) -> ir.Module:
    """Parse StableHLO/MLIR text (or bytecode) with jaxlib's MLIR parser.

    Raises jaxlib's ``MLIRError`` on invalid input, with the diagnostics.
    The module keeps its context alive.
    """
    ctx = context if context is not None else make_ir_context()
    with ctx:
        return ir.Module.parse(text)


def mlir_print(
    module: ir.Module, *, generic: bool = False, debug_info: bool = False
) -> str:
    """jaxlib's print of ``module``: pretty by default, or generic op form."""
    return module.operation.get_asm(
        print_generic_op_form=generic, enable_debug_info=debug_info
    )


def mlir_to_bytecode(module: ir.Module) -> bytes:
    """MLIR bytecode of ``module`` (what ``compile_and_load`` takes fastest)."""
    return _mlir.module_to_bytecode(module)


def hlo_module_from_text(text: str) -> Any:
    """XLA's HLO text parser: an ``xla_client.hlo.HloModule``.

    It does not verify shapes, and some malformed inputs abort the process.
    """
    return _xc.hlo.hlo_module_from_text(text)


def hlo_module_from_proto(serialized: bytes) -> Any:
    """An ``HloModule`` from a serialized ``HloModuleProto``."""
    return _xc.hlo.HloModule.from_serialized_hlo_module_proto(serialized)


def print_hlo(text: str) -> str:
    """XLA's own print of HLO text (parse, then ``to_string()``)."""
    return hlo_module_from_text(text).to_string()


def hlo_proto_to_stablehlo(serialized: bytes) -> bytes:
    """Serialized ``HloModuleProto`` → StableHLO (MLIR bytecode)."""
    return _xc._xla.mlir.hlo_to_stablehlo(serialized)


def hlo_text_to_stablehlo(text: str) -> bytes:
    """HLO text → StableHLO bytecode, through XLA's own HLO → MHLO import.

    Works for modules before optimization, after Shardy import and after SPMD
    partitioning; an optimized module (layouts assigned, fusions) does not
    survive the trip.
    """
    return hlo_proto_to_stablehlo(hlo_module_from_text(text).as_serialized_hlo_module_proto())


def stablehlo_to_hlo_text(text: str | bytes) -> str:
    """StableHLO text or bytecode → HLO text (XLA's conversion, as jit does it)."""
    computation = _xc._xla.mlir.mlir_module_to_xla_computation(
        text, use_tuple_args=False, return_tuple=False
    )
    return computation.as_hlo_text()


def get_backend(platform: str | None = None) -> Any:
    """The jaxlib ``Client`` for ``platform`` (default: jax's default backend)."""
    return _jax_extend_backend.get_backend(platform)


def device_list(devices: Sequence[Any]) -> Any:
    """The ``xla_client.DeviceList`` that ``Client.compile_and_load`` takes."""
    return _xc.DeviceList(tuple(devices))


def compile_options(*, num_partitions: int, devices: Sequence[Any], num_replicas: int = 1, backend: Any = None) -> Any:
    """``CompileOptions`` for SPMD over ``devices`` (``num_replicas × num_partitions``)."""
    import numpy as np

    assignment = np.array(list(devices), dtype=object).reshape(num_replicas, num_partitions)
    get = getattr(_jax_extend_backend, "get_compile_options", None) or _compiler.get_compile_options
    return get(
        num_replicas=num_replicas,
        num_partitions=num_partitions,
        device_assignment=assignment,
        backend=backend,
    )


def without_shardy(options: Any) -> Any:
    """``options`` set to partition with GSPMD instead of Shardy (jaxlib's
    ``ExecutableBuildOptions.use_shardy_partitioner``), for modules Shardy has
    imported already (see runtime.compile_text)."""
    options.executable_build_options.use_shardy_partitioner = False
    return options


def sharding_from_op_sharding(op_sharding: Any, devices: Sequence[Any]) -> jax.sharding.Sharding:
    """A jax ``Sharding`` equivalent to an executable's ``OpSharding``.

    ``devices`` are the executable's devices in device-assignment order (the
    ids an ``OpSharding`` tile assignment refers to are positions in it).
    """
    return _sharding_impls.GSPMDSharding(tuple(devices), op_sharding)


def lowered_with_module(lowered: Any, module: ir.Module) -> Any:
    """A copy of a ``jax.stages.Lowered`` whose program is ``module``.

    jax caches lowerings (and a lowering caches its executable once
    compiled), so the object jax handed out may be shared with plain
    ``jax.jit`` calls of the same function: the copy is what gets the new
    module, with no executable yet, and the original keeps compiling the
    original program.  The copy keeps jax's argument handling (pytrees,
    static and donated arguments, shardings).
    """
    import copy

    lowering = getattr(lowered, "_lowering", None)
    if lowering is None or not hasattr(lowering, "_hlo"):
        raise TypeError(
            f"cannot replace the module of {type(lowered).__name__}: jax's Lowered has no "
            "_lowering._hlo in this version (see hlo_passes/_jax_compat.py)"
        )
    new_lowering = copy.copy(lowering)
    new_lowering._hlo = module
    new_lowering._executable = None
    new = copy.copy(lowered)
    new._lowering = new_lowering
    return new


def register_module_transformation(callback: Any, name: str) -> None:
    """Call ``callback(serialized HloModuleProto) -> bytes | None`` on every module XLA compiles."""
    import jax.extend.xla as _jax_extend_xla

    _jax_extend_xla.register_hlo_module_transformation(callback, name=name)


def clear_module_transformation(name: str) -> bool:
    """Remove a callback registered under ``name``; whether one was there."""
    import jax.extend.xla as _jax_extend_xla

    return bool(_jax_extend_xla.clear_hlo_module_transformation(name))


# One rule object, so that jax's lowering cache (keyed on the parameters)
# hits on repeated lowerings of the same function.
_RAGGED_DOT_AS_INSTRUCTION = _mlir.LoweringParameters(
    override_lowering_rules=((_lax.ragged_dot_general_p, _lax._ragged_dot_general_lower),),
)


def lower_keeping_ragged_dot(traced: Any) -> Any:
    """``traced.lower()`` with every ``ragged_dot`` lowered to ``chlo.ragged_dot``.

    jax lowers ``ragged_dot`` for CPU as a dense dot over a masked,
    per-group copy of lhs (E times the work); a grouped-matmul kernel needs
    the ragged dot itself.  The override is part of jax's lowering cache key,
    so plain ``jax.jit`` lowerings of the same function are not affected.
    """
    return traced.lower(_private_parameters=_RAGGED_DOT_AS_INSTRUCTION)


def lowering_platform(lowered: Any) -> str | None:
    """The platform a ``jax.stages.Lowered`` was lowered for (``cpu``, ``tpu``, ``cuda``, ...)."""
    platforms = getattr(getattr(lowered, "_lowering", None), "_platforms", None)
    return str(platforms[0]) if platforms else None
