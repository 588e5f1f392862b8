"""The one place hlo_passes reaches into jax and jaxlib internals.

jax has no public API for parsing MLIR text into its own context, for
building compile options, for converting between HLO and StableHLO text or
for handing ``jax.jit`` a module of our own.  Everything that needs those
goes through the functions here, so that a jax upgrade breaks one module,
loudly, naming what it misses.

Supported: jax and jaxlib ``>=0.10.2`` (``SUPPORTED_RANGE``; 0.10.2 is the
first release with the public compile hook ``install()`` uses).  There is no
upper bound.  Each internal is *found* when this module is imported — feature
detection, not version numbers — and a release that lacks one raises
``UnsupportedJaxError`` (an ``ImportError``) naming the API, what it is for,
the installed versions and the releases this module was checked on
(``CHECKED_ON``).  An internal that only one feature needs (``required=False``
in ``INTERNALS``) is looked up when that feature is used instead, so a release
without it still parses, rewrites, compiles and runs everything else.

``INTERNALS`` lists every internal with its purpose; docs/internals.md's list is
``internals_markdown()`` (a test keeps the two equal).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import inspect
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jaxlib
import numpy as np

SUPPORTED_RANGE = ">=0.10.2"
_MIN = (0, 10, 2)
# The releases the whole suite (CI) or its jax-facing part ran on.
CHECKED_ON = ("0.10.2", "0.11.2", "0.12.0.1")


class UnsupportedJaxError(ImportError):
    """The installed jax/jaxlib lacks an internal hlo_passes needs."""


@dataclass(frozen=True)
class Internal:
    """One jax/jaxlib API beyond the public one: ``module:attribute.path``, what for."""

    spec: str
    purpose: str
    # Other spellings of the same API in other releases, tried in order after ``spec``.
    alternatives: tuple[str, ...] = ()
    # False: only one feature needs it; looked up on first use, not at import.
    required: bool = True
    # The first jaxlib release that has it (a feature probing for it does without it before).
    since: tuple[int, int] = (0, 0)

    @property
    def dotted(self) -> str:
        return self.spec.replace(":", ".")


INTERNALS = (
    Internal("jax._src.interpreters.mlir:make_ir_context",
             "an MLIR context with the StableHLO, CHLO, Shardy, func and other dialects jax registers"),
    Internal("jax._src.interpreters.mlir:module_to_bytecode",
             "MLIR bytecode of a module (what `compile_and_load` and `jax.export` take)"),
    Internal("jax.extend.backend:get_compile_options",
             "`CompileOptions` for a device assignment (public in `jax.extend`; the private spelling is the fallback)",
             alternatives=("jax._src.compiler:get_compile_options",)),
    Internal("jax.extend.backend:get_backend", "the jaxlib client of a platform (public)"),
    Internal("jax._src.sharding_impls:GSPMDSharding",
             "a jax `Sharding` from the `OpSharding` an executable reports for its parameters and results"),
    Internal("jaxlib.xla_client:_xla.mlir.mlir_module_to_xla_computation",
             "StableHLO → `XlaComputation` (HLO text), as jit converts it"),
    Internal("jax.extend.mlir:hlo_to_stablehlo",
             "serialized `HloModuleProto` → StableHLO bytecode (public in `jax.extend`)",
             alternatives=("jaxlib.xla_client:_xla.mlir.hlo_to_stablehlo",)),
    Internal("jaxlib.xla_client:hlo.hlo_module_from_text",
             "XLA's HLO text parser (no shape verification; some malformed inputs abort the process, "
             "so it is fed only text from XLA or from our printer)"),
    Internal("jaxlib.xla_client:hlo.HloModule.from_serialized_hlo_module_proto",
             "an `HloModule` (and its text) from the proto the compile hook receives"),
    Internal("jaxlib.xla_client:DeviceList", "the device list `compile_and_load` takes"),
    Internal("jaxlib.xla_client:hlo.HloModule.spmd_parameters_shardings",
             "the sharding each entry parameter had before SPMD partitioning, which an optimized module of "
             "jax >= 0.12 records in its proto but no longer prints on its parameters", required=False),
    Internal("jaxlib.xla_client:HloSharding.from_proto",
             "the HLO spelling of such an `OpSharding` (`str()` of the `HloSharding`)", required=False),
    Internal("jaxlib._jax:ExecutableBuildOptions.use_shardy_partitioner",
             "compile with GSPMD a module Shardy has already imported (an after-Shardy dump: compiling its "
             "`sdy.mesh` with Shardy again crashes jaxlib 0.12)", required=False),
    Internal("jax.extend.mlir.ir:Module", "the MLIR Python bindings jax ships (public)"),
    Internal("jax.stages:Lowered._lowering",
             "where `hlo_passes.jit` puts the rewritten module: a copy of the `pxla.MeshComputation` with its "
             "`_hlo` replaced and `_executable` cleared, so jax's shared lowering caches keep the original "
             "(the two instance attributes are checked on use)"),
    Internal("jax.extend.xla:register_hlo_module_transformation",
             "the public compile hook `hlo_passes.install()` lints every compiled module through", required=False),
    Internal("jax.extend.xla:clear_hlo_module_transformation", "removes that hook (`uninstall()`)",
             required=False),
    Internal("jax.extend.backend:backends",
             "the platforms whose backends this process has (public): where `install()` registers by default",
             required=False),
    Internal("jax._src.lib:_xla.register_xla_transform",
             "registers the compile hook for XLA:CPU directly; used only while jax discovers its plugins "
             "(`HLO_PASSES=...`), where the public function (jax >= 0.11) would initialize the backends "
             "from inside their own initialization", required=False),
    Internal("jax._src.lib:_xla.register_xla_transform_c_api",
             "the same for a PJRT plugin (GPU, TPU), called with each plugin's C API once jax has loaded it; "
             "where it takes a client instead (jax 0.10.2), the public function does not initialize the "
             "backends and is used during discovery too", required=False),
    Internal("jax._src.xla_bridge:register_plugin_callbacks",
             "calls back with each PJRT plugin's C API right after plugin discovery", required=False),
    Internal("jax._src.compiler:backend_compile_and_load",
             "the one function through which jax compiles every module (`jax.jit`, `lower().compile()`, the "
             "persistent cache's misses): wrapped once, so the pass inside XLA can step aside around a compile "
             "for a topology's compile-only devices (XLA:TPU's never returns with a module transformation "
             "registered)", required=False),
    Internal("jax._src.compiler:_get_cross_compile_backend",
             "the chip's own client that jax compiles a topology's module with when a chip of that platform is "
             "present: answered None for a compile for a TPU topology while the pass is installed, so that "
             "the topology's compile-only client compiles it (XLA:TPU's compile through the chip's client never "
             "returns with a module transformation registered; through its own, it runs it and returns)",
             required=False),
    Internal("jax._src.lib:_jax.CompileOnlyPyClient",
             "the client of a topology's compile-only devices (`jax.experimental.topologies.get_topology_desc`): "
             "what tells a compile for a topology from one for the devices present", required=False),
    Internal("jax._src.lib:_jax.get_topology_for_devices",
             "a topology description of devices present, whose compile-only devices stand for a topology where "
             "no other exists (XLA:CPU: the tests of that path)", required=False),
    Internal("jax._src.lib:_xla.clear_xla_transform",
             "takes the compile hook off XLA:CPU for one compile for a topology, and "
             "`_xla.register_xla_transform` puts it back", required=False),
    Internal("jax._src.lib:_xla.clear_xla_transform_c_api",
             "the same for a PJRT plugin (its C API from jax 0.11, an initialized client on jax 0.10.2); "
             "`_xla.register_xla_transform_c_api` puts it back", required=False),
    Internal("jax._src.lib:_jax.get_pjrt_plugin",
             "a loaded PJRT plugin's C API by platform (jax >= 0.11), to take the compile hook off it and put it "
             "back", required=False, since=(0, 11)),
    Internal("jax._src.cache_key:custom_hook",
             "a string jax folds into every persistent compilation cache key: `install(mode=\"rewrite\")` adds "
             "hlo_passes' version, mode and passes, so a cached executable is never shared between runs "
             "with and without the rewrite", required=False),
    Internal("jax._src.interpreters.mlir:LoweringParameters",
             "`override_lowering_rules`, passed through `Traced.lower(_private_parameters=...)` (part of jax's "
             "lowering cache key): `ragged_dot` lowered whole on CPU for the grouped-matmul kernel",
             required=False),
    Internal("jax._src.lax.lax:ragged_dot_general_p", "the `ragged_dot` primitive whose CPU lowering is overridden",
             required=False),
    Internal("jax._src.lax.lax:_ragged_dot_general_lower",
             "jax's platform-independent `ragged_dot` lowering (`chlo.ragged_dot`), used as the override",
             required=False),
    Internal("jax._src.distributed:global_state",
             "the multi-controller runtime `jax.distributed.initialize` starts: its `client` is the key-value "
             "store through which the processes of a job agree on what `hlo_passes.jit` compiles",
             required=False),
    Internal("jaxlib._jax:DistributedRuntimeClient.key_value_set",
             "posts this process's fingerprint of what it would compile", required=False),
    Internal("jaxlib._jax:DistributedRuntimeClient.blocking_key_value_get",
             "waits, with a timeout, for another process's fingerprint", required=False),
    Internal("jaxlib._jax:DistributedRuntimeClient.key_value_dir_get",
             "lists the processes that posted, to name the silent ones when the wait times out",
             required=False),
)


def _version_tuple(version: str) -> tuple[int, int, int]:
    """``"0.11.2.dev20260101+cuda"`` → ``(0, 11, 2)``."""
    parts = [int(m) for m in re.findall(r"\d+", version.split("+")[0])[:3]]
    parts += [0] * (3 - len(parts))
    return (parts[0], parts[1], parts[2])


def _installed() -> str:
    return f"jax {jax.__version__} / jaxlib {jaxlib.__version__}"


def check_version(jax_version: str | None = None, jaxlib_version: str | None = None) -> None:
    """Raise ``ImportError`` when jax or jaxlib is older than ``SUPPORTED_RANGE`` allows."""
    versions = {
        "jax": jax_version if jax_version is not None else jax.__version__,
        "jaxlib": jaxlib_version if jaxlib_version is not None else jaxlib.__version__,
    }
    for name, version in versions.items():
        if _version_tuple(version) < _MIN:
            raise ImportError(
                f"hlo_passes supports {name}{SUPPORTED_RANGE}, found {name} {version}: "
                "it relies on APIs that older releases lack (see hlo_passes/_jax_compat.py); "
                f"upgrade, e.g. pip install -U 'jax{SUPPORTED_RANGE}' 'jaxlib{SUPPORTED_RANGE}'"
            )


def _lookup(spec: str) -> Any:
    module_name, _, path = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for attr in path.split("."):
        obj = getattr(obj, attr)
    return obj


def find(spec: str) -> Any:
    """The object an entry of ``INTERNALS`` names, or ``UnsupportedJaxError`` saying what is missing."""
    internal = next(i for i in INTERNALS if i.spec == spec)
    failures = []
    for candidate in (internal.spec, *internal.alternatives):
        try:
            return _lookup(candidate)
        except (ImportError, AttributeError) as err:
            failures.append(f"{candidate.replace(':', '.')}: {type(err).__name__}: {err}")
    raise UnsupportedJaxError(
        f"hlo_passes cannot use {_installed()}: it needs {internal.dotted} ({internal.purpose}), "
        f"which this release does not have ({'; '.join(failures)}). hlo_passes supports "
        f"jax{SUPPORTED_RANGE} and was checked on {', '.join(CHECKED_ON)}; install one of those "
        f"(e.g. pip install 'jax=={CHECKED_ON[-1]}' 'jaxlib=={CHECKED_ON[-1]}') or report the missing API"
    )


def internals_markdown() -> str:
    """docs/internals.md's list of internals: one bullet per entry of ``INTERNALS``."""
    checked = ", ".join(CHECKED_ON)
    lines = [f"Checked on jax/jaxlib {checked} (each entry on each release):", ""]
    for i in INTERNALS:
        also = "".join(f" (or `{a.replace(':', '.')}`)" for a in i.alternatives)
        when = "" if i.required else " — looked up on first use"
        lines.append(f"- `{i.dotted}`{also}: {i.purpose}{when}")
    return "\n".join(lines) + "\n"


check_version()

# jax's own jit, as jax defines it when hlo_passes is imported: ``jax.jit = hlo_passes.jit``
# (the one-line way to rewrite a whole trainer) must not make hlo_passes.jit call itself.
# (Evaluating ``hlo_passes.jit`` imports this module, so jax.jit is still jax's here.)
jax_jit = jax.jit

# Found only after the version check, so that an old jax fails with the
# message above rather than an AttributeError from deep inside.
_make_ir_context = find("jax._src.interpreters.mlir:make_ir_context")
_module_to_bytecode = find("jax._src.interpreters.mlir:module_to_bytecode")
_get_compile_options = find("jax.extend.backend:get_compile_options")
_get_backend = find("jax.extend.backend:get_backend")
_GSPMDSharding = find("jax._src.sharding_impls:GSPMDSharding")
_mlir_module_to_xla_computation = find("jaxlib.xla_client:_xla.mlir.mlir_module_to_xla_computation")
_hlo_to_stablehlo = find("jax.extend.mlir:hlo_to_stablehlo")
_hlo_module_from_text = find("jaxlib.xla_client:hlo.hlo_module_from_text")
_hlo_module_from_proto = find("jaxlib.xla_client:hlo.HloModule.from_serialized_hlo_module_proto")
_DeviceList = find("jaxlib.xla_client:DeviceList")
find("jax.stages:Lowered._lowering")
from jax.extend.mlir import ir  # noqa: E402  (public; re-exported for callers)
find("jax.extend.mlir.ir:Module")

__all__ = [
    "CHECKED_ON",
    "INTERNALS",
    "SUPPORTED_RANGE",
    "UnsupportedJaxError",
    "check_version",
    "compile_options",
    "device_list",
    "distributed_client",
    "find",
    "get_backend",
    "add_to_cache_key",
    "backend_platforms",
    "cache_key_extra",
    "clear_module_transformation",
    "compile_only_devices",
    "compiling_on_the_topology_client",
    "hlo_module_from_proto",
    "parameter_shardings",
    "hlo_text_to_proto",
    "internals_markdown",
    "is_compile_only",
    "jax_jit",
    "kv_dir",
    "kv_post",
    "kv_wait",
    "lowered_with_module",
    "lower_keeping_ragged_dot",
    "local_device_count",
    "lowering_platform",
    "register_module_transformation",
    "register_module_transformation_during_discovery",
    "hlo_module_from_text",
    "hlo_proto_to_stablehlo",
    "lowered_compile_only",
    "lowered_with_frontend_attribute",
    "hlo_text_to_stablehlo",
    "ir",
    "make_ir_context",
    "mlir_print",
    "mlir_to_bytecode",
    "parse_mlir",
    "persistent_cache_dir",
    "print_hlo",
    "sharding_from_op_sharding",
    "stablehlo_to_hlo_text",
    "suspend_module_transformation",
    "without_shardy",
    "wrap_backend_compile",
]


def make_ir_context() -> ir.Context:
    """A fresh MLIR context with every dialect jax lowers to registered."""
    return _make_ir_context()


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
    # Text (str) unless asked for binary, which it is not; the stubs say object.
    return str(module.operation.get_asm(print_generic_op_form=generic, enable_debug_info=debug_info))


def mlir_to_bytecode(module: ir.Module) -> bytes:
    """MLIR bytecode of ``module`` (what ``compile_and_load`` takes fastest)."""
    return _module_to_bytecode(module)


def hlo_module_from_text(text: str) -> Any:
    """XLA's HLO text parser: an ``xla_client.hlo.HloModule``.

    It does not verify shapes, and some malformed inputs abort the process.
    """
    return _hlo_module_from_text(text)


def hlo_module_from_proto(serialized: bytes) -> Any:
    """An ``HloModule`` from a serialized ``HloModuleProto``."""
    return _hlo_module_from_proto(serialized)


def parameter_shardings(module: Any) -> list[str]:
    """The HLO spelling of the sharding each entry parameter of ``module`` (an ``HloModule``) had
    before SPMD partitioning, as the partitioner recorded it in the module
    (``spmd_parameters_shardings``; empty where it did not run)."""
    find("jaxlib.xla_client:hlo.HloModule.spmd_parameters_shardings")
    from_proto = find("jaxlib.xla_client:HloSharding.from_proto")
    return [str(from_proto(op)) for op in module.spmd_parameters_shardings or ()]  # None: never partitioned


def print_hlo(text: str) -> str:
    """XLA's own print of HLO text (parse, then ``to_string()``)."""
    return hlo_module_from_text(text).to_string()


def hlo_proto_to_stablehlo(serialized: bytes) -> bytes:
    """Serialized ``HloModuleProto`` → StableHLO (MLIR bytecode)."""
    return _hlo_to_stablehlo(serialized)


def hlo_text_to_stablehlo(text: str) -> bytes:
    """HLO text → StableHLO bytecode, through XLA's own HLO → MHLO import.

    Works for modules before optimization, after Shardy import and after SPMD
    partitioning; an optimized module (layouts assigned, fusions) does not
    survive the trip.
    """
    return hlo_proto_to_stablehlo(hlo_module_from_text(text).as_serialized_hlo_module_proto())


def stablehlo_to_hlo_text(text: str | bytes) -> str:
    """StableHLO text or bytecode → HLO text (XLA's conversion, as jit does it)."""
    computation = _mlir_module_to_xla_computation(
        text, use_tuple_args=False, return_tuple=False
    )
    return computation.as_hlo_text()


def get_backend(platform: str | None = None) -> Any:
    """The jaxlib ``Client`` for ``platform`` (default: jax's default backend)."""
    return _get_backend(platform)


def device_list(devices: Sequence[Any]) -> Any:
    """The ``xla_client.DeviceList`` that ``Client.compile_and_load`` takes."""
    return _DeviceList(tuple(devices))


def compile_options(*, num_partitions: int, devices: Sequence[Any], num_replicas: int = 1, backend: Any = None) -> Any:
    """``CompileOptions`` for SPMD over ``devices`` (``num_replicas × num_partitions``)."""
    assignment = np.array(list(devices), dtype=object).reshape(num_replicas, num_partitions)
    return _get_compile_options(
        num_replicas=num_replicas,
        num_partitions=num_partitions,
        device_assignment=assignment,
        backend=backend,
    )


def without_shardy(options: Any) -> Any:
    """``options`` set to partition with GSPMD instead of Shardy (jaxlib's
    ``ExecutableBuildOptions.use_shardy_partitioner``), for modules Shardy has
    imported already (see runtime.compile_text)."""
    find("jaxlib._jax:ExecutableBuildOptions.use_shardy_partitioner")
    options.executable_build_options.use_shardy_partitioner = False
    return options


def sharding_from_op_sharding(op_sharding: Any, devices: Sequence[Any]) -> jax.sharding.Sharding:
    """A jax ``Sharding`` equivalent to an executable's ``OpSharding``.

    ``devices`` are the executable's devices in device-assignment order (the
    ids an ``OpSharding`` tile assignment refers to are positions in it).
    """
    return _GSPMDSharding(tuple(devices), op_sharding)


def lowered_with_module(lowered: Any, module: ir.Module) -> Any:
    """A copy of a ``jax.stages.Lowered`` whose program is ``module``.

    jax caches lowerings (and a lowering caches its executable once
    compiled), so the object jax handed out may be shared with plain
    ``jax.jit`` calls of the same function: the copy is what gets the new
    module, with no executable yet, and the original keeps compiling the
    original program.  The copy keeps jax's argument handling (pytrees,
    static and donated arguments, shardings).
    """
    lowering = getattr(lowered, "_lowering", None)
    if lowering is None or not hasattr(lowering, "_hlo") or not hasattr(lowering, "_executable"):
        raise UnsupportedJaxError(
            f"hlo_passes cannot use {_installed()}: cannot replace the module of "
            f"{type(lowered).__name__}, its _lowering has no _hlo/_executable slots in this release "
            f"(checked on {', '.join(CHECKED_ON)}; see hlo_passes/_jax_compat.py)"
        )
    new_lowering = copy.copy(lowering)
    new_lowering._hlo = module
    new_lowering._executable = None
    new = copy.copy(lowered)
    new._lowering = new_lowering
    return new


def lowered_with_frontend_attribute(lowered: Any, key: str, value: Callable[[str], str]) -> Any:
    """A copy of a ``jax.stages.Lowered`` (``lowered_with_module``) whose module is a copy of its
    module with the module frontend attribute ``key = value(text)`` (``mhlo.frontend_attributes``;
    ``text``: the module printed without locations), which XLA keeps on the ``HloModule`` it makes
    of it (the module a registered transformation is handed) and jax's persistent cache hashes with
    the module.  The module is copied by printing it with its locations and parsing that:
    ``lowered``'s own module is left as it is (jax may share it with plain ``jax.jit``)."""
    lowering = getattr(lowered, "_lowering", None)
    source = getattr(lowering, "_hlo", None)
    if source is None:
        raise UnsupportedJaxError(f"hlo_passes cannot use {_installed()}: its Lowered has no module to copy")
    module = parse_mlir(mlir_print(source, debug_info=True))
    with module.context:
        attrs = module.operation.attributes
        old = ir.DictAttr(attrs["mhlo.frontend_attributes"]) if "mhlo.frontend_attributes" in attrs else None
        entries = {} if old is None else {old[i].name: old[i].attr for i in range(len(old))}
        entries[key] = ir.StringAttr.get(value(mlir_print(source)))
        attrs["mhlo.frontend_attributes"] = ir.DictAttr.get(entries)
    return lowered_with_module(lowered, module)


def lowered_compile_only(lowered: Any) -> bool:
    """Whether a ``jax.stages.Lowered`` compiles for a topology's compile-only devices
    (``is_compile_only`` of the backend it compiles with); True where that cannot be read (the
    caller then takes the careful side)."""
    args = getattr(getattr(lowered, "_lowering", None), "compile_args", None)
    backend = args.get("backend") if isinstance(args, dict) else None
    if backend is None:
        return True
    return is_compile_only(backend)


def register_module_transformation(callback: Any, name: str, platforms: Sequence[str] | None = None) -> None:
    """Call ``callback(serialized HloModuleProto) -> bytes | None`` on every module XLA compiles
    for ``platforms`` (None: jax's default, every backend it knows)."""
    register = find("jax.extend.xla:register_hlo_module_transformation")
    if platforms is None:
        register(callback, name=name)
    else:
        register(callback, name=name, platforms=list(platforms))


def clear_module_transformation(name: str, platforms: Sequence[str] | None = None) -> bool:
    """Remove a callback registered under ``name``; whether one was there."""
    clear = find("jax.extend.xla:clear_hlo_module_transformation")
    return bool(clear(name) if platforms is None else clear(name, platforms=list(platforms)))


def local_device_count() -> int:
    """The devices of this process (public ``jax.local_device_count``)."""
    return int(jax.local_device_count())


def backend_platforms() -> list[str]:
    """The platforms of the backends this process has (initializes them, as the first compile does)."""
    return sorted(find("jax.extend.backend:backends")().keys())


def _present(spec: str) -> bool:
    try:
        find(spec)
    except UnsupportedJaxError:
        return False
    return True


def register_module_transformation_during_discovery(callback: Any, name: str, on_plugin_error: Any) -> None:
    """``register_module_transformation`` for every platform, from a jax plugin's ``initialize()``.

    jax calls ``initialize()`` while it discovers plugins, holding a lock that
    the public function of jax >= 0.11 takes again (it initializes the backends
    first): there, XLA:CPU is registered directly and each PJRT plugin once
    jax has loaded it.  ``on_plugin_error(err)`` hears of a plugin that lacks
    XLA's module-transformation extension (the call raises from jax 0.11 on).
    """
    register_c_api = find("jax._src.lib:_xla.register_xla_transform_c_api")
    if (register_c_api.__doc__ or "").startswith("register_xla_transform_c_api(client"):
        # jax 0.10.2 (the plugin registration takes an initialized client): the public function
        # only adds a backend-initialization hook, no backend is initialized; a plugin without
        # the extension is skipped silently there (jax logs it at debug level).
        find("jax.extend.xla:register_hlo_module_transformation")(callback, name=name)
        return
    stage = find("jax.extend.xla:register_hlo_module_transformation").__kwdefaults__["stage"].value
    find("jax._src.lib:_xla.register_xla_transform")(name, stage, callback)

    def on_plugin(c_api: Any) -> None:
        try:
            register_c_api(c_api, name, stage, callback)
        except Exception as err:  # noqa: BLE001 - jax's plugin loop must go on; the caller says why
            on_plugin_error(err)

    find("jax._src.xla_bridge:register_plugin_callbacks")(on_plugin)


def _transform_stage() -> int:
    """The pipeline stage ``register_module_transformation`` registers at (the public default)."""
    return int(find("jax.extend.xla:register_hlo_module_transformation").__kwdefaults__["stage"].value)


def is_compile_only(backend: Any) -> bool:
    """Whether ``backend`` is the client of a topology's compile-only devices (an ahead-of-time
    compile for a topology, ``jax.experimental.topologies``), not of devices present."""
    return isinstance(backend, find("jax._src.lib:_jax.CompileOnlyPyClient"))


def compile_only_devices(devices: Sequence[Any]) -> list[Any]:
    """Compile-only stand-ins for ``devices`` (present ones): compiling for them takes jax's path for
    a topology (``jax.experimental.topologies``) where no other topology exists (XLA:CPU).  jax 0.10.2's
    XLA:CPU refuses that compile (no compiler for a CPU topology); jax 0.12's compiles it."""
    topology = find("jax._src.lib:_jax.get_topology_for_devices")(list(devices))
    return list(topology._make_compile_only_devices())


class _Suspended:
    """``suspend_module_transformation``'s context: the hook taken off ``platform`` on entry, put back
    on exit with the same callback (only where it was there)."""

    def __init__(self, name: str, platform: str, callback: Any) -> None:
        self.name, self.platform, self.callback = name, platform, callback
        self.put_back: list[Any] = []  # what to register again on exit: None (XLA:CPU), a C API or a client

    def __enter__(self) -> bool:
        stage = _transform_stage()
        if self.platform == "cpu":
            if find("jax._src.lib:_xla.clear_xla_transform")(self.name, stage):
                self.put_back.append(None)
            return bool(self.put_back)
        clear_c_api = find("jax._src.lib:_xla.clear_xla_transform_c_api")
        if _present("jax._src.lib:_jax.get_pjrt_plugin"):
            # jax >= 0.11: registered per plugin (its C API), as the public function does.
            try:
                targets = [find("jax._src.lib:_jax.get_pjrt_plugin")(self.platform)]
            except Exception:  # noqa: BLE001 - no such plugin loaded: nothing registered on it
                targets = []
        else:
            # jax 0.10.2: registered on each initialized client of the platform.
            targets = [b for b in find("jax.extend.backend:backends")().values() if b.platform == self.platform]
        for target in targets:
            if clear_c_api(target, self.name, stage):
                self.put_back.append(target)
        return bool(self.put_back)

    def __exit__(self, *exc: object) -> None:
        stage = _transform_stage()
        for target in self.put_back:
            if target is None:
                find("jax._src.lib:_xla.register_xla_transform")(self.name, stage, self.callback)
            else:
                find("jax._src.lib:_xla.register_xla_transform_c_api")(target, self.name, stage, self.callback)
        self.put_back = []


def suspend_module_transformation(name: str, platform: str, callback: Any) -> _Suspended:
    """A context manager that takes the compile hook registered as ``name`` off ``platform`` and puts
    ``callback`` back under that name on exit (it must be the callback registered).  Its value:
    whether a hook was there to take off."""
    return _Suspended(name, platform, callback)


_own_client = threading.local()
_routed = [0]  # compiles for a topology sent to the topology's own client (for the tests)


@contextlib.contextmanager
def compiling_on_the_topology_client() -> Any:
    """Inside it, a compile for a topology in this thread goes through the topology's own compile-only
    client, not through the chip's client of the same platform (jax's cross-compile,
    ``_get_cross_compile_backend``): what jax does where no such chip is present."""
    module: Any = importlib.import_module("jax._src.compiler")
    original = find("jax._src.compiler:_get_cross_compile_backend")
    if not getattr(original, "_hlo_passes", False):

        @functools.wraps(original)
        def _get_cross_compile_backend(compile_only_backend: Any) -> Any:
            if getattr(_own_client, "on", False):
                _routed[0] += 1
                return None
            return original(compile_only_backend)

        _get_cross_compile_backend._hlo_passes = True  # type: ignore[attr-defined]
        module._get_cross_compile_backend = _get_cross_compile_backend
    before = getattr(_own_client, "on", False)
    _own_client.on = True
    try:
        yield
    finally:
        _own_client.on = before


_compile_wrappers: list[Any] = []


def wrap_backend_compile(around: Any) -> None:
    """From now on, every module jax compiles is compiled inside ``around(platform, compile_only,
    module_name)`` (a context manager): ``platform`` the backend's, ``compile_only`` whether it is an
    ahead-of-time compile for a topology (``is_compile_only``).  Wrapped once per process; ``around``
    added twice is one."""
    module: Any = importlib.import_module("jax._src.compiler")
    find("jax._src.compiler:backend_compile_and_load")
    if around in _compile_wrappers:
        return
    if not _compile_wrappers:
        original = module.backend_compile_and_load

        @functools.wraps(original)
        def backend_compile_and_load(*args: Any, **kwargs: Any) -> Any:
            backend = args[0] if args else kwargs["backend"]
            mlir_module = args[1] if len(args) > 1 else kwargs["module"]
            try:
                name = str(ir.StringAttr(mlir_module.operation.attributes["sym_name"]).value)
            except Exception:  # noqa: BLE001 - the name is only for messages
                name = "a module"
            with contextlib.ExitStack() as stack:
                for wrapper in list(_compile_wrappers):
                    stack.enter_context(wrapper(str(backend.platform), is_compile_only(backend), name))
                return original(*args, **kwargs)

        module.backend_compile_and_load = backend_compile_and_load
    _compile_wrappers.append(around)


def persistent_cache_dir() -> str | None:
    """Where jax's persistent compilation cache writes, when it is enabled; else None."""
    directory = getattr(jax.config, "jax_compilation_cache_dir", None)
    if not directory or not getattr(jax.config, "jax_enable_compilation_cache", True):
        return None
    return str(directory)


_cache_key_parts: list[Any] = []


def add_to_cache_key(part: Any) -> None:
    """Fold ``part()`` (a string) into every persistent compilation cache key from now on.

    jax hashes ``jax._src.cache_key.custom_hook()`` into each key; it is wrapped
    once per process, and each part is asked at every key computation.
    """
    module: Any = importlib.import_module("jax._src.cache_key")
    find("jax._src.cache_key:custom_hook")
    if part in _cache_key_parts:
        return
    if not _cache_key_parts:
        previous = module.custom_hook

        def custom_hook() -> str:
            return previous() + "".join(p() for p in _cache_key_parts)

        module.custom_hook = custom_hook
    _cache_key_parts.append(part)


def cache_key_extra() -> str:
    """What jax adds to the persistent cache key now (``custom_hook()``), for tests and the report."""
    return str(find("jax._src.cache_key:custom_hook")()) if _present("jax._src.cache_key:custom_hook") else ""


def hlo_text_to_proto(text: str) -> bytes:
    """HLO text → serialized ``HloModuleProto`` (XLA's HLO parser, then its proto), what the compile
    hook hands back to XLA."""
    return hlo_module_from_text(text).as_serialized_hlo_module_proto()


_ragged_dot_override: Any = None


def _ragged_dot_whole() -> Any:
    """jax's ``ragged_dot`` lowering that emits ``chlo.ragged_dot``.  Up to jax 0.11 the rule
    without a platform does; from jax 0.12 it takes ``platform`` and, left at ``'default'`` (the
    CPU's), expands the dense form itself, so it is asked for a platform that keeps the op (CPU's
    precision handling, the same ``chlo.ragged_dot`` as on TPU and GPU)."""
    rule = find("jax._src.lax.lax:_ragged_dot_general_lower")
    if "platform" not in inspect.signature(rule).parameters:
        return rule
    return functools.partial(rule, platform="cpu")


def lower_keeping_ragged_dot(traced: Any) -> Any:
    """``traced.lower()`` with every ``ragged_dot`` lowered to ``chlo.ragged_dot``.

    jax lowers ``ragged_dot`` for CPU as a dense dot over a masked,
    per-group copy of lhs (E times the work); a grouped-matmul kernel needs
    the ragged dot itself.  The override is part of jax's lowering cache key,
    so plain ``jax.jit`` lowerings of the same function are not affected.
    """
    global _ragged_dot_override
    if _ragged_dot_override is None:
        # One parameters object for the process, so that jax's lowering cache
        # (keyed on it) hits on repeated lowerings of the same function.
        _ragged_dot_override = find("jax._src.interpreters.mlir:LoweringParameters")(
            override_lowering_rules=((find("jax._src.lax.lax:ragged_dot_general_p"), _ragged_dot_whole()),),
        )
    return traced.lower(_private_parameters=_ragged_dot_override)


_dots_round_by_shape: dict[str, bool] = {}
_dots_lock = threading.Lock()


def dots_round_by_shape(platform: str) -> bool:
    """Whether ``platform``'s compiler runs dots of the forms a GMM takes in jax's dense lowering of
    ``ragged_dot`` (a batched ``[E, T, K] x [E, K, N]``, and the 2-D ``[T, K] x [K, N]`` XLA may
    simplify one to) through a library it calls in a custom fusion of the dot alone (XLA:CPU's
    ``__ynn_fusion``, YNNPACK: jax 0.10.2 for both forms, 0.12.1 for the transposed weight-gradient
    form too), which picks its kernel, and the order it sums in, by the dot's shape: one dot of width
    2N is then not bit-equal to two of width N joined (docs/optimized-hlo.md).  Asked of the backend
    itself, once per process and platform: two tiny dots compiled on its first device, the optimized
    module read for XLA:CPU's marking of such a fusion (``__ynn_fusion``; a library XLA does not
    mark so is not recognised).  Public API only (``jax.jit`` on arguments placed on that
    device); a failure raises."""
    with _dots_lock:
        known = _dots_round_by_shape.get(platform)
        if known is None:
            device = jax.devices(platform)[0]
            # jax 0.12.1 deprecates the class's constructor for a function; earlier releases lack it.
            make = getattr(jax.sharding, "make_single_device_sharding", None)
            placed = make(device) if make is not None else jax.sharding.SingleDeviceSharding(device)

            def arg(*shape: int) -> Any:
                return jax.ShapeDtypeStruct(shape, np.float32, sharding=placed)

            def dots(x: Any, y: Any, u: Any, v: Any) -> Any:
                return (jax.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                        jax.lax.dot_general(u, v, (((1,), (0,)), ((), ()))))

            text = jax.jit(dots).lower(arg(2, 8, 16), arg(2, 16, 32), arg(8, 16), arg(16, 32)).compile().as_text()
            if not isinstance(text, str):
                raise RuntimeError(f"jax gave no optimized text for dots compiled on {platform}")
            known = _dots_round_by_shape[platform] = "__ynn_fusion" in text
    return known


def known_dots_round_by_shape(platform: str) -> bool | None:
    """What ``dots_round_by_shape(platform)`` found in this process, None if it was not asked (no
    compile: for the pass inside XLA, whose callback must not compile)."""
    with _dots_lock:
        return _dots_round_by_shape.get(platform)


def lowering_platform(lowered: Any) -> str | None:
    """The platform a ``jax.stages.Lowered`` was lowered for (``cpu``, ``tpu``, ``cuda``, ...)."""
    platforms = getattr(getattr(lowered, "_lowering", None), "_platforms", None)
    return str(platforms[0]) if platforms else None


# ---------------------------------------------------------------------------
# The multi-controller runtime's key-value store (hlo_passes._multihost)


def distributed_client() -> Any | None:
    """The client ``jax.distributed.initialize`` connected, or None in a job without one."""
    return getattr(find("jax._src.distributed:global_state"), "client", None)


def kv_post(client: Any, key: str, value: str) -> None:
    """Store ``value`` under ``key`` (a key is written once: jax refuses to overwrite it)."""
    find("jaxlib._jax:DistributedRuntimeClient.key_value_set")
    client.key_value_set(key, value)


def kv_wait(client: Any, key: str, timeout_s: float) -> str | None:
    """The value under ``key`` once some process stored it; None if none did within ``timeout_s``."""
    find("jaxlib._jax:DistributedRuntimeClient.blocking_key_value_get")
    try:
        return client.blocking_key_value_get(key, max(1, int(timeout_s * 1000)))
    except jax.errors.JaxRuntimeError as err:
        if "DEADLINE_EXCEEDED" in str(err):
            return None
        raise


def kv_dir(client: Any, prefix: str) -> dict[str, str]:
    """Every ``key: value`` stored so far whose key starts with ``prefix`` (a ``.../`` directory)."""
    find("jaxlib._jax:DistributedRuntimeClient.key_value_dir_get")
    return dict(client.key_value_dir_get(prefix))
