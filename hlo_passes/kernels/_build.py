"""Compile the kernels' C++ sources into a per-user cache of shared libraries.

A library is built once per (source, flags, compiler, jaxlib, CPU): the file
name carries a hash of all of them, so a new jaxlib (new FFI headers), another
compiler, or a cache shared between machines with different CPUs (the code is
built with ``-march=native``) never loads a stale or foreign binary. The
compiler writes to a temporary file in the cache directory, which is then
renamed into place: a reader never sees a half-written library, and two
processes building at once both end with the same complete file.

Cache directory: ``$HLO_PASSES_CACHE_DIR``, else ``$XDG_CACHE_HOME/hlo_passes``,
else ``~/.cache/hlo_passes``. Compiler: ``$CXX``, else ``g++``.
"""
from __future__ import annotations

import hashlib
import logging
import os
import platform
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hlo_passes.errors import KernelBuildError

# -ffp-contract=fast: ISO -std=c++17 turns GCC's contraction off, and the
# portable (non-x86) micro-kernel relies on a*b+c becoming an FMA.
FLAGS: tuple[str, ...] = (
    "-O3",
    "-march=native",
    "-ffp-contract=fast",
    "-shared",
    "-fPIC",
    "-std=c++17",
    "-pthread",
    "-DNDEBUG",
)

_lock = threading.Lock()
log = logging.getLogger("hlo_passes")


@dataclass(frozen=True)
class BuildResult:
    path: Path
    built: bool  # False: the cached library was reused


def cache_dir() -> Path:
    """Where built libraries live (see the module docstring)."""
    if env := os.environ.get("HLO_PASSES_CACHE_DIR"):
        return Path(env).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "hlo_passes"
    return Path.home() / ".cache" / "hlo_passes"


def ffi_include_dir() -> Path:
    """jaxlib's XLA FFI headers, checked to be present."""
    import jax  # deferred: seconds to import; a cached build does not need it

    include = Path(jax.ffi.include_dir())
    header = include / "xla" / "ffi" / "api" / "ffi.h"
    if not header.is_file():
        raise KernelBuildError(
            f"XLA FFI headers not found: {header} is missing (jax.ffi.include_dir() = {include}); "
            "reinstall jaxlib from a wheel that ships include/ (pip install --force-reinstall jaxlib)"
        )
    return include


def _compiler() -> tuple[str, str]:
    """(path, version text) of ``$CXX`` or ``g++``."""
    requested = os.environ.get("CXX") or "g++"
    argv = shlex.split(requested)
    found = shutil.which(argv[0]) if argv else None
    if found is None:
        origin = "$CXX" if os.environ.get("CXX") else "the default compiler (set $CXX to choose another)"
        raise KernelBuildError(
            f"no C++ compiler: {requested!r} ({origin}) was not found; the CPU grouped-matmul kernel "
            "is compiled from C++ on first use: install g++ (e.g. apt-get install g++) or point $CXX "
            "at a C++17 compiler"
        )
    try:
        probe = subprocess.run([found, *argv[1:], "--version"], capture_output=True, text=True, timeout=60)
    except OSError as err:
        raise KernelBuildError(f"C++ compiler {found!r} could not be run: {err}") from err
    if probe.returncode != 0:
        raise KernelBuildError(
            f"C++ compiler {found!r} failed on --version (exit {probe.returncode}):\n{probe.stderr.strip()}"
        )
    return " ".join([found, *argv[1:]]), probe.stdout.strip()


def _cpu_identity() -> str:
    """What -march=native depends on: vendor, model and feature flags."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return f"{platform.machine()} {platform.processor()}"
    keep = ("vendor_id", "cpu family", "model", "model name", "flags", "Features", "CPU implementer",
            "CPU part", "CPU architecture", "CPU variant")
    wanted: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if sep and key in keep and key not in wanted:
            wanted[key] = value.strip()
    return f"{platform.machine()} " + " | ".join(f"{k}={wanted[k]}" for k in sorted(wanted))


# A temporary older than this was left by a build that was killed; a live
# build of these sources takes seconds.
_STALE_SECONDS = 3600.0


def _remove_stale_temporaries(directory: Path, stem: str, keep: Path) -> None:
    now = time.time()
    for old in directory.glob(f".{stem}-*.so.tmp"):
        try:
            if old != keep and now - old.stat().st_mtime > _STALE_SECONDS:
                old.unlink()
        except OSError:
            pass  # another process removed or renamed it first


@dataclass(frozen=True)
class _Plan:
    source: Path
    target: Path
    cxx: str
    include: Path


def _plan(source: Path, directory: Path | None) -> _Plan:
    import jaxlib  # deferred: seconds to import, only to key the build

    source = Path(source)
    try:
        code = source.read_bytes()
    except OSError as err:
        raise KernelBuildError(f"kernel source {source} cannot be read: {err}") from err
    include = ffi_include_dir()
    cxx, cxx_version = _compiler()
    key = hashlib.sha256(
        "\0".join([code.hex(), " ".join(FLAGS), cxx, cxx_version, jaxlib.__version__, str(include),
                   _cpu_identity()]).encode()
    ).hexdigest()[:24]
    directory = cache_dir() if directory is None else Path(directory)
    return _Plan(source, directory / f"{source.stem}-{key}.so", cxx, include)


def library_target(source: Path, *, directory: Path | None = None) -> Path:
    """Where the library for ``source`` is (or would be) cached on this machine."""
    return _plan(source, directory).target


def build_library(source: Path, *, directory: Path | None = None, what: str | None = None) -> BuildResult:
    """The shared library for ``source``, compiled unless an identical build is cached.

    A build logs one INFO line on the ``hlo_passes`` logger first (it takes seconds,
    and a first call that is slow for no visible reason is a puzzle), naming
    ``what`` is built and the cache it goes to, and one when it is done.
    Raises ``KernelBuildError`` naming what is missing (compiler, FFI headers,
    a writable cache directory) or with the compiler's stderr when it fails.
    """
    plan = _plan(source, directory)
    source, target, cxx, include = plan.source, plan.target, plan.cxx, plan.include
    directory = target.parent
    with _lock:
        if target.is_file():
            return BuildResult(target, built=False)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(prefix=f".{source.stem}-", suffix=".so.tmp", dir=directory)
        except OSError as err:
            raise KernelBuildError(
                f"kernel cache directory {directory} is not writable ({err}); "
                "set $HLO_PASSES_CACHE_DIR to a writable directory"
            ) from err
        os.close(fd)
        tmp = Path(tmp_name)
        _remove_stale_temporaries(directory, source.stem, keep=tmp)
        cmd = [*shlex.split(cxx), *FLAGS, "-isystem", str(include), str(source), "-o", str(tmp)]
        log.info("building %s, once: compiling %s with %s (a few seconds); cached in %s",
                 what or source.name, source.name, cxx, directory)
        started = time.perf_counter()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                raise KernelBuildError(
                    f"compiling {source.name} failed (exit {done.returncode}):\n  {shlex.join(cmd)}\n"
                    f"{done.stderr.strip()}"
                )
            tmp.chmod(0o755)
            os.replace(tmp, target)
        except OSError as err:
            raise KernelBuildError(f"compiling {source.name} failed: {err}\n  {shlex.join(cmd)}") from err
        except subprocess.TimeoutExpired as err:
            raise KernelBuildError(f"compiling {source.name} took over {err.timeout:.0f} s") from err
        finally:
            tmp.unlink(missing_ok=True)
    log.info("built %s in %.1f s: %s", what or source.name, time.perf_counter() - started, target)
    return BuildResult(target, built=True)
