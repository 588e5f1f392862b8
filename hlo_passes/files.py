"""Reading inputs and writing outputs for the command-line tools, failing closed.

Reading: an input is read in chunks up to a size limit (``MAX_INPUT_BYTES``
by default) and refused past it, so ``/dev/zero`` or a runaway pipe cannot
exhaust memory; binary data stops the read at once (``not a text module``);
a missing file, a directory or an unreadable file is an ``InputError`` naming
the user's path.

Writing: outputs are all or nothing.  The bytes go to a temporary file beside
the target (``.NAME.PID-XXXX.tmp``), are flushed to disk and renamed over the
target, only after everything succeeded.  The target is the file a symbolic
link points to (the link stays a link), its mode and owner are kept, a
read-only or hard-linked file is refused (replacing it would defeat the
read-only bit or break the other links), and temporary files that a killed
run left behind are removed on the next write to that target when their
process is gone.  Every error names the user's path, never the temporary file.
"""
from __future__ import annotations

import io
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

from .sniff import binary_error, binary_offset

# Larger inputs are refused (--max-input-size changes it): a module this size
# would need tens of GB to parse, and reading /dev/zero must end.
MAX_INPUT_BYTES = 2 * 1024**3
_READ_CHUNK = 1 << 20


class InputError(Exception):
    """An input that cannot be read as a module: ``kind`` (``no-such-file``,
    ``is-a-directory``, ``not-readable``, ``too-large``) and what happened."""

    def __init__(self, path: str, kind: str, reason: str) -> None:
        self.path = path
        self.kind = kind
        self.reason = reason
        super().__init__(f"{path}: error: {reason}")

    def __reduce__(self):  # picklable for hlo-lint's worker processes
        return (InputError, (self.path, self.kind, self.reason))


class OutputError(OSError):
    """An output that cannot be written; ``str()`` is ``cannot write PATH: reason``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"


def parse_size(text: str) -> int:
    """``2G``, ``500M``, ``64k`` or a byte count (for ``--max-input-size``)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kKmMgGtT]?)(i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"not a size: {text!r} (e.g. 2G, 500M, 1048576)")
    scale = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}[m.group(2).lower()]
    return int(m.group(1)) * scale


def _reason(err: OSError) -> str:
    if isinstance(err, PermissionError):
        return "permission denied"
    return err.strerror or str(err)


def read_input(path: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of ``path``: ``InputError`` for what is not a readable file within
    ``limit`` bytes, ``ParseError`` for binary data (its byte offset)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(path, "no-such-file", "broken symbolic link (its target does not exist)") from None
        raise InputError(path, "no-such-file", "no such file") from None
    except OSError as err:
        raise InputError(path, "not-readable", f"cannot read: {_reason(err)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, "is-a-directory", "is a directory, not a module file")
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise too_large(path, st.st_size, limit)
    try:
        with open(path, "rb") as f:
            return read_stream(f, path, limit=limit)
    except OSError as err:
        raise InputError(path, "not-readable", f"cannot read: {_reason(err)}") from None


def read_stream(f: BinaryIO, name: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """Read ``f`` in chunks, stopping at binary data or past ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            chunk = f.read(_READ_CHUNK)
            if not chunk:
                break
            offset = binary_offset(chunk, head=total == 0)
            if offset is not None:
                raise binary_error(b"".join(chunks) + chunk, total + offset, name)
            total += len(chunk)
            if total > limit:
                raise too_large(name, None, limit)
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "surrogateescape")
    except MemoryError:
        chunks.clear()
        raise InputError(name, "too-large", f"out of memory after reading {total:,} bytes") from None


def too_large(path: str, size: int | None, limit: int) -> InputError:
    """The error for an input over ``limit`` bytes (``size``: None for a stream, known only to
    hold more than ``limit``)."""
    if size is None:
        return InputError(path, "too-large", f"input too large: more than the limit of {limit:,} bytes "
                                             "(--max-input-size)")
    return InputError(path, "too-large", f"input too large: {size:,} bytes, the limit is {limit:,} bytes "
                                         "(--max-input-size)")


def read_text_stream(f: IO[str], name: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """A text stream (``StringIO``, a stream without ``.buffer``) read as ``read_stream`` reads
    bytes: in chunks, refused past ``limit`` characters."""
    chunks: list[str] = []
    total = 0
    while True:
        chunk = f.read(_READ_CHUNK)
        if not chunk:
            return "".join(chunks)
        total += len(chunk)
        if total > limit:
            raise too_large(name, None, limit)
        chunks.append(chunk)


def read_any(source: str | BinaryIO | IO[str], name: str | None = None, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The one bounded read every reader of a module uses: a path (``read_input``), a binary
    stream (``read_stream``) or a text stream (its ``.buffer`` when it has one, else
    ``read_text_stream``).  Never more than ``limit`` bytes are held; a pipe is read once."""
    if isinstance(source, (str, os.PathLike)):
        return read_input(os.fspath(source), limit=limit)
    label = name if name is not None else getattr(source, "name", "<stream>")
    buffer = getattr(source, "buffer", None)
    if buffer is not None:
        return read_stream(buffer, str(label), limit=limit)
    if isinstance(source, io.TextIOBase):
        return read_text_stream(source, str(label), limit=limit)
    return read_stream(source, str(label), limit=limit)  # type: ignore[arg-type]


def stream_path(stream: Any) -> str:
    """What a user calls the file behind ``stream`` in a message: ``stdout (/dev/full)`` when the
    system says where it goes, else ``stdout``."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return "stdout"
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "stdout"
    return f"stdout ({target})" if target.startswith("/") else "stdout"


def write_stdout(stream: IO[str], text: str) -> None:
    """``text`` on ``stream`` as the bytes it was read from: input that is not UTF-8
    passes through (surrogate escapes) whatever the terminal's encoding.  A failed write
    (``/dev/full``, a closed pipe) is ``OutputError`` naming where stdout goes."""
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a StringIO given by a caller
            stream.write(text)
            stream.flush()
            return
        stream.flush()
        buffer.write(text.encode("utf-8", "surrogateescape"))
        buffer.flush()
    except OSError as err:
        where = stream_path(stream)
        _forget_pending(stream, buffer)
        raise OutputError(where, _reason(err)) from None


def _forget_pending(stream: Any, buffer: Any) -> None:
    """After a failed write, stdout is pointed at ``/dev/null`` so that the interpreter's own
    flush at exit does not fail (and print a second, Python-worded error) on the bytes left."""
    for s in (buffer, stream):
        try:
            fd = s.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except OSError:
            pass
        return


# ---------------------------------------------------------------------------
# Writing


@dataclass
class Staged:
    """An output computed and written beside its target, not yet in place."""

    target: str  # as the user named it (messages)
    real: str  # the file it resolves to (what is replaced)
    tmp: str | None  # None: the target is not a regular file and is written directly
    data: bytes = b""
    notes: list[str] = field(default_factory=list)


# Chunked so that a failure (disk full, a signal) can strike between chunks,
# as it would on a large module; the tests rely on this to fail mid-way.
_CHUNK = 1 << 16


def _write_all(f: Any, payload: bytes) -> None:
    for i in range(0, len(payload), _CHUNK):
        f.write(payload[i:i + _CHUNK])


def _payload(data: str | bytes) -> bytes:
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


def stage(path: str | os.PathLike[str], data: str | bytes, *, mode: int | None = None) -> Staged:
    """Write ``data`` next to ``path``'s real file in a temporary file (not yet in place)."""
    target = os.fspath(path)
    real = os.path.realpath(target)
    directory = os.path.dirname(real)
    st = _existing(target, real)
    payload = _payload(data)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # /dev/null, /dev/stdout, a FIFO: no file to replace, written when committed.
        return Staged(target, real, None, payload)
    if not os.path.isdir(directory):
        raise OutputError(target, f"no such directory: {os.path.dirname(target) or directory}")
    notes = _remove_stale_temporaries(directory, os.path.basename(real))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.{os.getpid()}-", suffix=".tmp",
                                   dir=directory)
    except OSError as err:
        raise OutputError(target, _reason(err)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            _write_all(f, payload)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode) if mode is None else mode)
            _keep_owner(tmp, st)
        else:
            os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
    except OSError as err:
        _remove_quietly(tmp)
        raise OutputError(target, _reason(err)) from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    return Staged(target, real, tmp, notes=notes)


def _existing(target: str, real: str) -> os.stat_result | None:
    """The target's status, or None when it does not exist yet; refuses what must not be replaced."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise OutputError(target, _reason(err)) from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(target, "is a directory (give a file name)")
    if not stat.S_ISREG(st.st_mode):
        return st
    if st.st_nlink > 1:
        raise OutputError(target, f"has {st.st_nlink} hard links; replacing it would break them "
                                  "(write to another file, or remove the other links first)")
    if not st.st_mode & 0o222:
        raise OutputError(target, f"is read-only (mode {stat.S_IMODE(st.st_mode):04o}); not replacing it")
    return st


def check_directory(path: str) -> None:
    """``OutputError`` (``cannot write PATH: why``) unless ``path`` is a folder this process can
    write files into, or one it can create: checked before any work, so that nothing is spent
    on a run whose output has nowhere to go.  Nothing is created here."""
    probe = os.path.abspath(path)
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    try:
        st = os.stat(probe)
    except OSError as err:  # a broken link, a loop, a folder we may not look into
        raise OutputError(path, _reason(err)) from None
    if not stat.S_ISDIR(st.st_mode):
        where = "it" if probe == os.path.abspath(path) else probe
        raise OutputError(path, f"{where} is not a directory")
    inside = "" if probe == os.path.abspath(path) else f" in {probe}"
    if not os.access(probe, os.W_OK | os.X_OK):
        read_only = bool(os.statvfs(probe).f_flag & os.ST_RDONLY)
        raise OutputError(path, ("read-only file system" if read_only else "permission denied") + inside)
    try:  # what access() cannot tell (root, /proc, a full disk): make a file there and remove it
        fd, probe_file = tempfile.mkstemp(prefix=".hlo_passes-probe.", dir=probe)
    except OSError as err:
        raise OutputError(path, _reason(err) + inside) from None
    os.close(fd)
    _remove_quietly(probe_file)


def _keep_owner(tmp: str, st: os.stat_result) -> None:
    if (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.chown(tmp, st.st_uid, st.st_gid)
    except PermissionError:
        try:  # an unprivileged user can still keep the group when they belong to it
            os.chown(tmp, -1, st.st_gid)
        except PermissionError:
            pass


_TEMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[^.]+\.tmp\Z")


def _remove_stale_temporaries(directory: str, name: str) -> list[str]:
    """Remove the temporary files of ``name`` whose writing process is gone; notes on what went."""
    notes: list[str] = []
    prefix = f".{name}."
    try:
        entries = [e for e in os.listdir(directory) if e.startswith(prefix) and e.endswith(".tmp")]
    except OSError:
        return notes
    for entry in entries:
        m = _TEMP.match(entry)
        if m is None or m.group("name") != name:
            continue
        pid = int(m.group("pid"))
        if pid == os.getpid() or _alive(pid):
            continue  # another run is writing it right now
        path = os.path.join(directory, entry)
        try:
            os.unlink(path)
        except OSError:
            continue
        notes.append(f"removed {path}, a temporary file left by an interrupted run (process {pid})")
    return notes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def commit(staged: list[Staged]) -> None:
    """Put every staged output in place; ``OutputError`` naming the first that failed."""
    try:
        for s in staged:
            try:
                if s.tmp is None:
                    with open(s.real, "wb") as f:
                        _write_all(f, s.data)
                else:
                    os.replace(s.tmp, s.real)
            except OSError as err:
                raise OutputError(s.target, _reason(err)) from None
    finally:
        discard(staged)


def discard(staged: list[Staged]) -> None:
    for s in staged:
        if s.tmp is not None:
            _remove_quietly(s.tmp)


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, mode: int | None = None) -> list[str]:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half;
    returns notes (stale temporary files removed)."""
    s = stage(path, data, mode=mode)
    commit([s])
    return s.notes


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def is_regular_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


__all__ = [
    "MAX_INPUT_BYTES", "InputError", "OutputError", "Staged", "atomic_write", "check_directory", "commit", "discard",
    "file_kind", "is_regular_file", "parse_size", "read_any", "read_input", "read_stream", "read_text_stream", "stage",
    "stream_path", "too_large", "write_stdout",
]
