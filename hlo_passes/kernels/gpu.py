"""The CUDA grouped-matmul FFI handlers: built with nvcc on first use, registered for XLA:GPU.

``register()`` compiles ``gpu/grouped_matmul.cu`` against the installed
jaxlib's FFI headers (``jax.ffi.include_dir()``) into a cache directory, loads
it and registers ``hlo_passes_gmm_cuda`` / ``hlo_passes_tgmm_cuda`` and the
fused expert FFN's ``hlo_passes_moe_ffn_silu_cuda`` / ``..._up_first_cuda`` /
``..._pair_cuda`` (``GPU_MOE_FFN_TARGETS``: what the fused-FFN rule emits priced for GPU) with
``jax.ffi.register_ffi_target(..., platform="CUDA")``.  Nothing CUDA-related
runs at import (importing ``hlo_passes.kernels`` builds the CPU handlers), so
``import hlo_passes.kernels.gpu`` works on machines without CUDA.

The library is cached beside the CPU one (``_build.cache_dir()``), keyed by
the source, the FFI headers, nvcc's version, the GPU architecture and the
flags, so a jaxlib upgrade or another GPU rebuilds it and nothing else does.  The architecture is the first CUDA
device's compute capability, else ``$HLO_PASSES_CUDA_ARCH`` (e.g. ``90``),
else ``90`` (H100/H200); PTX is embedded too, so newer GPUs can JIT it.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hlo_passes.errors import KernelBuildError

from ._build import cache_dir, ffi_include_dir, log

__all__ = [
    "GPU_MOE_FFN_TARGETS",
    "SOURCE",
    "TARGETS",
    "GpuKernelUnavailable",
    "build",
    "cuda_arch",
    "cuda_devices",
    "find_nvcc",
    "register",
    "unavailable_reason",
]

SOURCE = Path(__file__).resolve().parent / "gpu" / "grouped_matmul.cu"
# The fused expert FFN by form (the contract of the CPU kernel's ``CPU_MOE_FFN_TARGETS``).
GPU_MOE_FFN_TARGETS = {"gate_first": "hlo_passes_moe_ffn_silu_cuda",
                       "up_first": "hlo_passes_moe_ffn_silu_up_first_cuda",
                       "pair": "hlo_passes_moe_ffn_silu_pair_cuda"}
TARGETS: tuple[str, ...] = ("hlo_passes_gmm_cuda", "hlo_passes_tgmm_cuda", *GPU_MOE_FFN_TARGETS.values())
DEFAULT_ARCH = "90"
FLAGS: tuple[str, ...] = ("-O3", "-shared", "-Xcompiler", "-fPIC", "-std=c++17")

_registered: Path | None = None


class GpuKernelUnavailable(KernelBuildError):
    """The CUDA handlers cannot be built or run here; the message says what is missing."""


def find_nvcc() -> str | None:
    """nvcc on ``PATH``, else under ``$CUDA_HOME`` / ``$CUDA_PATH`` / ``/usr/local/cuda``."""
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.join(root, "bin", "nvcc")
    return None


def cuda_devices() -> list:
    """jax's CUDA devices (empty when jaxlib has no CUDA backend or sees no GPU)."""
    import jax  # deferred: seconds to import, and only the GPU kernel's users need it

    try:
        return list(jax.devices("cuda"))
    except RuntimeError:
        return []


def cuda_arch() -> str:
    """The ``sm_XX`` number to compile for (see the module docstring)."""
    for device in cuda_devices()[:1]:
        capability = getattr(device, "compute_capability", None)
        if capability:
            return str(capability).replace(".", "")
    return os.environ.get("HLO_PASSES_CUDA_ARCH", DEFAULT_ARCH)


def unavailable_reason(need_device: bool = True) -> str | None:
    """Why the handlers cannot be built (or, with ``need_device``, run) here; None if they can."""
    if not SOURCE.is_file():
        return f"the CUDA source {SOURCE} is missing"
    if find_nvcc() is None:
        return ("nvcc (the CUDA compiler) was not found on PATH or under CUDA_HOME, CUDA_PATH or "
                "/usr/local/cuda; install the CUDA toolkit to build the GPU grouped-matmul kernel")
    if need_device and not cuda_devices():
        return "jax sees no CUDA device (a CUDA build of jaxlib and an NVIDIA GPU are needed to run it)"
    return None


def _headers_digest(include_dir: Path) -> str:
    h = hashlib.sha256()
    for path in sorted((include_dir / "xla" / "ffi" / "api").glob("*.h")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _command(nvcc: str, arch: str, include_dir: Path, output: Path) -> list[str]:
    return [
        nvcc, *FLAGS,
        f"-gencode=arch=compute_{arch},code=sm_{arch}",
        f"-gencode=arch=compute_{arch},code=compute_{arch}",
        "-isystem", str(include_dir), str(SOURCE), "-o", str(output),
    ]


def build(arch: str | None = None) -> Path:
    """Compile the handlers (unless cached) and return the shared library's path.

    Raises ``GpuKernelUnavailable`` when nvcc is missing or the compile fails
    (with nvcc's output).  Needs no GPU.
    """
    why = unavailable_reason(need_device=False)
    if why is not None:
        raise GpuKernelUnavailable(f"cannot build the CUDA grouped-matmul kernel: {why}")
    nvcc = find_nvcc()
    assert nvcc is not None
    arch = arch or cuda_arch()
    include_dir = ffi_include_dir()
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256("\0".join([
        SOURCE.read_text(), _headers_digest(include_dir), version,
        " ".join(_command(nvcc, arch, include_dir, Path("out.so"))),
    ]).encode()).hexdigest()[:16]
    cache = cache_dir()
    library = cache / f"hlo_passes_gmm_cuda_sm{arch}_{key}.so"
    if library.is_file():
        return library
    try:
        cache.mkdir(parents=True, exist_ok=True)
        # Compile beside the target and rename: concurrent builders never see a half-written file.
        fd, tmp = tempfile.mkstemp(prefix=library.stem + ".", suffix=".so.tmp", dir=cache)
    except OSError as err:
        raise GpuKernelUnavailable(f"kernel cache directory {cache} is not writable ({err}); "
                                   "set $HLO_PASSES_CACHE_DIR to a writable directory") from err
    os.close(fd)
    log.info("building the CUDA grouped-matmul kernel for sm_%s, once: compiling %s with %s; cached in %s",
             arch, SOURCE.name, nvcc, cache)
    try:
        try:
            done = subprocess.run(_command(nvcc, arch, include_dir, Path(tmp)), capture_output=True, text=True,
                                  timeout=900)
        except subprocess.TimeoutExpired as err:
            raise GpuKernelUnavailable(f"nvcc took over {err.timeout:.0f} s to build {SOURCE.name}") from err
        if done.returncode != 0:
            raise GpuKernelUnavailable(
                f"nvcc failed to build {SOURCE.name} for sm_{arch} (exit {done.returncode}):\n"
                f"{done.stderr[-4000:] or done.stdout[-4000:]}")
        os.replace(tmp, library)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return library


def register() -> Path:
    """Build if needed, load, and register every target for platform ``CUDA``; idempotent.

    Raises ``GpuKernelUnavailable`` naming what is missing (nvcc, a CUDA
    device) rather than registering a kernel that cannot run.
    """
    global _registered
    if _registered is not None:
        return _registered
    why = unavailable_reason(need_device=True)
    if why is not None:
        raise GpuKernelUnavailable(f"the CUDA grouped-matmul kernel cannot run here: {why}")
    import jax.ffi  # deferred: seconds to import, and only the GPU kernel's users need it

    library = build()
    lib = ctypes.cdll.LoadLibrary(str(library))
    for name in TARGETS:
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(getattr(lib, name)), platform="CUDA")
    _registered = library
    return library
