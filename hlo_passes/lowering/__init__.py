"""Hand each grouped matmul (``ragged-dot`` / ``chlo.ragged_dot``) to a kernel.

``lower_gmms(module, kernel, platform)`` runs after the rewrite passes and
replaces, in place, every ragged-dot that the chosen kernel implements by a
call to it.  Kernels (``KERNELS``):

* ``xla`` — keep XLA's native ragged-dot (compiled by XLA on TPU and GPU);
* ``cpu-ffi`` — custom calls to the C++ handlers ``hlo_passes_gmm`` /
  ``hlo_passes_tgmm`` that ``import hlo_passes.kernels`` registers for CPU
  (``lowering/cpu_ffi.py``);
* ``pallas`` — a Pallas/Mosaic grouped-matmul kernel for TPU
  (``lowering/pallas_tpu.py``); with ``platform="cpu"`` the same kernel in
  Pallas interpret mode (slow, for checking numerics);
* ``gpu-ffi`` — a GPU grouped-GEMM FFI target (``lowering/gpu_ffi.py``);
* ``auto`` — the platform's best available: ``cpu-ffi`` on CPU, ``xla`` on
  TPU and GPU and when no platform is named.

Each backend module exposes ``lower(rw, module) -> int`` (ragged-dots replaced, through the
rewriter of the ``LowerGmms`` stage that ``lower_gmms`` runs in a pipeline)
and ``unavailable_reason() -> str | None``; it is imported only when chosen,
so this package itself never imports jax.  Ragged-dots in general form are
first brought into a canonical form by ``_normalize`` (transposes, reshapes);
batch-dimension forms are left to XLA and reported.  Grouped-matmul kernels
already present in the input (Pallas megablox ``tpu_custom_call``,
TransformerEngine, cuBLAS grouped GEMM) keep their kernels and are reported.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

from ..gmm.kernel_calls import gmm_kernel
from ..ir import CREATED_BY, Instruction, Module
from ..ir.rewriter import Rewriter
from ..pass_interface import Changes, PassContext, Stage
from ..pipeline_driver import Pipeline
from ..report import Location, location_of
from ..gmm import placement as _placement
from ..gmm.target import GmmTarget, use_gmm_target
from . import _normalize

__all__ = [
    "KERNELS",
    "PLATFORMS",
    "GmmLowering",
    "KernelUnavailableError",
    "kept_reason",
    "lowering_for",
    "lower_gmms",
    "resolve_kernel",
]

KERNELS: tuple[str, ...] = ("auto", "xla", "cpu-ffi", "pallas", "gpu-ffi")
PLATFORMS: tuple[str, ...] = ("cpu", "tpu", "gpu", "cuda", "rocm")
# Kernel name → backend module in this package (imported on demand).
BACKENDS: dict[str, str] = {"cpu-ffi": "cpu_ffi", "pallas": "pallas_tpu", "gpu-ffi": "gpu_ffi"}
# The frontend attribute value new ops carry (``hlo_passes.rule``), as the rewrites tag theirs.
RULE = _normalize.RULE


class KernelUnavailableError(RuntimeError):
    """The chosen kernel cannot be used here; the message says what is missing."""


@dataclass(frozen=True)
class GmmLowering:
    """One grouped matmul of the module and what ``lower_gmms`` did with it.

    ``form``: ``gmm`` / ``tgmm`` (canonical forms), ``batched`` or
    ``unsupported`` (ragged-dots no kernel form covers), ``kernel`` (a GMM
    kernel custom call already in the input).  ``kernel`` is the resolved
    kernel name; ``reason`` says why a GMM was not lowered.  ``created_by``
    names the rewrite that created the GMM (its location is then 0:0: it has
    no line in the source text).
    """

    kernel: str
    form: str
    location: Location
    lowered: bool
    reason: str | None = None
    op: str = "ragged-dot"
    created_by: str | None = None

    def __str__(self) -> str:
        what = f"{self.op} [{self.form}]"
        if self.created_by:
            what += f" (created by {self.created_by})"
        if self.lowered:
            return f"{self.location}: {what} -> {self.kernel}"
        return f"{self.location}: {what} kept ({self.reason})"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["location"] = self.location.to_json()
        return d


def resolve_kernel(kernel: str = "auto", platform: str | None = None) -> str:
    """The kernel ``kernel`` means on ``platform`` (``auto`` resolved; others unchanged)."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; expected one of {', '.join(KERNELS)}")
    if platform is not None and platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")
    if kernel != "auto":
        return kernel
    if platform == "cpu" and unavailable_reason("cpu-ffi") is None:
        return "cpu-ffi"
    # TPU and GPU compile ragged-dot natively; without a platform nothing is
    # known about where the module runs, so it stays as written.
    return "xla"


def unavailable_reason(kernel: str) -> str | None:
    """Why ``kernel`` cannot be used here, or None when it can."""
    if kernel == "xla":
        return None
    if kernel not in BACKENDS:
        raise ValueError(f"unknown kernel {kernel!r}; expected one of {', '.join(k for k in KERNELS if k != 'auto')}")
    name = f"{__name__}.{BACKENDS[kernel]}"
    if importlib.util.find_spec(name) is None:
        return f"its lowering module {name.replace('.', '/')}.py is missing"
    try:
        module = importlib.import_module(name)
    except ImportError as err:
        return f"its lowering module {name} cannot be imported ({err})"
    reason: str | None = module.unavailable_reason()
    return reason


def backend(kernel: str) -> ModuleType:
    """The backend module of ``kernel``; ``KernelUnavailableError`` naming what is missing."""
    why = unavailable_reason(kernel)
    if why is not None:
        raise KernelUnavailableError(f"kernel {kernel!r} is not available: {why}")
    return importlib.import_module(f"{__name__}.{BACKENDS[kernel]}")


def kept_reason(instr: Instruction, kernel: str = "auto", platform: str | None = None) -> str | None:
    """Why ``lower_gmms(module, kernel, platform)`` would leave the ragged-dot ``instr`` to XLA (its
    form, element types, operands split across devices, the kernel unavailable), or None when the
    kernel takes it: what a rule whose legality rests on the kernel asks before the lowering runs
    (``gmm.target``)."""
    resolved = resolve_kernel(kernel, platform)
    if resolved == "xla":
        return "kernel xla: XLA compiles ragged-dot natively"
    why = unavailable_reason(resolved)
    if why is not None:
        return f"kernel {resolved} is not available: {why}"
    try:
        _normalize.plan(instr)
    except _normalize.NotCanonical as err:
        return err.reason
    module = instr.module
    if module is not None:
        _placement.forget(module)  # the shardings as they are now (a rewrite may have run)
    refusal = getattr(backend(resolved), "refusal", None)
    return _placement.refusal(instr) or (refusal(instr) if refusal is not None else None)


@contextlib.contextmanager
def lowering_for(kernel: str = "auto", platform: str | None = None) -> Iterator[GmmTarget]:
    """Run the passes inside the block for a module whose ragged-dots ``lower_gmms(module, kernel,
    platform)`` will lower after them (``gmm.target``: a rule whose legality rests on the kernel
    asks which one runs each GMM)."""
    resolved = resolve_kernel(kernel, platform)
    kept = None if resolved == "xla" else functools.partial(kept_reason, kernel=resolved, platform=platform)
    with use_gmm_target(platform, resolved, kept) as target:
        yield target


@dataclass
class _Found:
    instr: Instruction
    form: str
    location: Location
    reason: str | None
    created_by: str | None = None


def _survey(module: Module) -> list[_Found]:
    found: list[_Found] = []
    for instr in module.instructions():
        if instr.opcode == "ragged-dot":
            try:
                form, reason = _normalize.plan(instr).form, None
            except _normalize.NotCanonical as err:
                form, reason = err.form, err.reason
            found.append(_Found(instr, form, location_of(instr), reason, _created_by(instr)))
        elif instr.opcode in ("custom-call", "call"):
            kernel = gmm_kernel(instr)
            if kernel is not None:
                found.append(_Found(instr, "kernel", location_of(instr),
                                    f"a grouped-matmul kernel already ({kernel}) keeps it"))
    return found


def _created_by(instr: Instruction) -> str | None:
    if "frontend_attributes" not in instr.attributes:
        return None
    try:
        created_by: str | None = instr.attributes["frontend_attributes"].get(CREATED_BY)
        return created_by
    except (ValueError, AttributeError):
        return None


def lower_gmms(module: Module, kernel: str = "auto", platform: str | None = None) -> list[GmmLowering]:
    """Lower every ragged-dot of ``module`` (in place) to ``kernel``; one record per GMM found.
    The lowering is a pipeline stage (``LowerGmms``): journaled and verified as a rule's
    rewrite is.

    Raises ``ValueError`` for an unknown kernel or platform and
    ``KernelUnavailableError`` when the chosen kernel's backend is missing or
    cannot be used here.
    """
    stage = LowerGmms(kernel, platform)
    Pipeline([stage], strict=True).run(module, copy=False)
    return stage.records


class LowerGmms(Stage):
    """The GMM lowering as a pipeline stage: every ragged-dot of the module to ``kernel`` on
    ``platform``, its new ops tagged ``RULE``; ``records``: one per GMM found.  One round does
    all of it (a ragged-dot it keeps, it keeps for a reason that does not change)."""

    name = RULE
    tag = RULE
    repeats = False

    def __init__(self, kernel: str = "auto", platform: str | None = None) -> None:
        self.kernel, self.platform = kernel, platform
        self.records: list[GmmLowering] = []

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        self.records = _lower_gmms(rewriter, module, self.kernel, self.platform)
        return Changes(changed=any(r.lowered for r in self.records))


def _lower_gmms(rw: Rewriter, module: Module, kernel: str, platform: str | None) -> list[GmmLowering]:
    resolved = resolve_kernel(kernel, platform)
    found = _survey(module)
    impl = None if resolved == "xla" else backend(resolved)
    # TPU's default: XLA's ragged-dot, except where megablox at a searched tiling measured faster.
    tpu_default = kernel == "auto" and platform == "tpu"
    if impl is None:
        count = 0
        if tpu_default:
            impl = importlib.import_module(f"{__name__}.{BACKENDS['pallas']}")
            count = impl.lower_default(rw, module)
    elif resolved == "pallas" and platform == "cpu":
        # Mosaic kernels only run on TPU; on CPU the same kernel runs in Pallas interpret mode.
        count = impl.lower(rw, module, interpret=True)
    else:
        count = impl.lower(rw, module)
    refusal = None if tpu_default else getattr(impl, "refusal", None)
    records = []
    for f in found:
        op = f.instr.source_op if f.form == "kernel" else "ragged-dot"
        if f.form == "kernel":
            records.append(GmmLowering(resolved, f.form, f.location, False, f.reason, op))
            continue
        lowered = f.instr.computation is None
        reason = f.reason
        if tpu_default:
            if not lowered and reason is None and impl is not None:
                reason = _placement.refusal(f.instr) or impl.default_refusal(f.instr)
            records.append(GmmLowering("pallas" if lowered else "xla", f.form, f.location, lowered,
                                       None if lowered else reason, op, f.created_by))
            continue
        if not lowered and reason is None:
            if resolved == "xla":
                reason = "kernel xla: XLA compiles ragged-dot natively"
            else:
                reason = (_placement.refusal(f.instr) or (refusal(f.instr) if refusal is not None else None)
                          or f"{resolved} does not implement it")
        records.append(GmmLowering(resolved, f.form, f.location, lowered, None if lowered else reason, op,
                                   f.created_by))
    done = sum(r.lowered for r in records)
    if done != count:
        raise RuntimeError(f"the {resolved} lowering reported {count} ragged-dots replaced, {done} are gone")
    return records
