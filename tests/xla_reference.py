"""XLA's own HLO text parser as a test oracle, run in restartable subprocesses.

The reference is the HLO parser and printer bundled in jaxlib
(``xla_client.hlo.hlo_module_from_text`` and ``HloModule.to_string``).  It
cannot be called in the test process itself: on some inputs it aborts the
process (a failed CHECK), and some modules it accepts overrun its buffers,
so that a *later* module in the same process dies with ``malloc(): invalid
size (unsorted)`` (in the corpus: ``hlo_parser_test__219.hlo``, a tile
assignment listing 10 devices for 4 tiles, kills ``hlo_parser_test__22``
parsed after it).  One process per module would cost a jax import each time,
far too slow for ~1,500 modules.

So: a long-lived worker process (one per CPU, up to two) imports jaxlib once
and then, per request, forks a child that parses, answers over a pipe and
exits without running destructors.  Every child starts from the worker's
clean heap, so an answer depends on its own text only (no order effects, so
answers can be cached), a crash is pinned on the module that caused it, and
a fork and its exit cost a few ms against ~1 s for a fresh interpreter.
Should a worker itself die, it is replaced and its request is run once more.
POSIX only (fork, select on pipes).

Cost, measured on the 2-core development machine while other jobs ran: the
1,453 valid corpus modules take 10-27 s cold through ``parse_many`` (two
workers) and ~0.3 s from the cache (17 MB).

Usage::

    with XlaReference(cache_dir=path) as ref:
        r = ref.parse(text)          # Result: status, error, text, computations
        if r.ok:
            r.text                   # XLA's HloModule.to_string()
            r.entry                  # name of the ENTRY computation
            for comp in r.computations:          # in XLA's module order
                for ins in comp.instructions:    # in the order XLA keeps them
                    ins.name, ins.opcode, ins.operands, ins.shape, ins.is_root,
                    ins.parameter_number, ins.called, ins.control_predecessors,
                    ins.enum                     # "kAsyncStart": see below
        r2 = ref.to_string(text)     # Result with .text only (computations=None)
        for r in ref.parse_many(texts):      # same order as texts, streamed
            ...
        for r in ref.to_string_many(texts):
            ...

``Result.status`` is ``"ok"``, ``"error"`` (XLA rejected the text;
``Result.error`` holds its message) or ``"crashed"`` (the parser process
died or ran past ``timeout``, twice; ``Result.error`` says how, with the
fatal line of its stderr, e.g. the failed CHECK).  A crash is tried once
more in a fresh child: a failed CHECK fails again, but an overrun's damage
depends on the address-space layout, which differs from run to run, so the
same module can crash one time and come through the next.  Such a module's
answers cannot be trusted either way; ``hlo_parser_test__219`` is the one
known in the corpus (it crashes in most tries of ``to_string``, in some of
``parse``).

Shapes are taken from ``HloInstruction.to_string()``: the text between
``name = `` and the opcode.  That is XLA's own spelling of the shape,
including the layout when the shape has one, which is what a textual
comparison needs; the alternative, decoding the serialized HloModuleProto,
would need the proto schema (field numbers, enum values) re-stated here
without a protobuf dependency, and would still have to be turned back into
text to be compared.  The opcode is taken from the same text for the same
reason: it is the HLO spelling (``get-tuple-element``), where the Python
binding only offers enum names (``kGetTupleElement``).

Caching: with ``cache_dir`` set, every ok/error answer is stored as one file
named by a hash of (request kind, text, jaxlib version, schema version);
crashes are not stored, since they may be intermittent.  Files are written
atomically, so concurrent sessions can share a directory.

Run this file with ``--worker`` only through this class; run it with HLO
file paths to see XLA's view of them.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["XlaComputation", "XlaInstruction", "XlaReference", "Result", "jaxlib_version"]

# Bump when the cached payload changes meaning, so stale caches are ignored.
SCHEMA = 5

_HEADER = struct.Struct("<Q")


@dataclass(frozen=True, slots=True)
class XlaInstruction:
    name: str
    opcode: str          # HLO spelling, as XLA prints it
    operands: tuple[str, ...]
    shape: str           # XLA's printed result shape, layout included if any
    is_root: bool = False
    parameter_number: int | None = None   # for parameters: N of parameter(N)
    # The binding's enum name, e.g. "kAsyncStart".  The printed opcode hides
    # async wrapping: an async-start around an all-reduce prints as
    # "all-reduce-start", the spelling of a different, real opcode.
    enum: str = ""
    # Names of the computations it calls, in the order XLA prints them
    # (to_apply, calls, condition, body, branches, select/scatter, ...).
    called: tuple[str, ...] = ()
    control_predecessors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class XlaComputation:
    name: str
    instructions: tuple[XlaInstruction, ...]
    # False for computations XLA's printer leaves out (the bodies of async
    # ops it prints in the "op-start" short form); their root is unknown.
    printed: bool = True

    @property
    def root(self) -> XlaInstruction | None:
        for ins in self.instructions:
            if ins.is_root:
                return ins
        return None


@dataclass(frozen=True, slots=True)
class Result:
    status: str                      # "ok" | "error" | "crashed"
    error: str | None = None
    text: str | None = None          # XLA's HloModule.to_string()
    module_name: str | None = None
    entry: str | None = None         # name of the ENTRY computation
    computations: tuple[XlaComputation, ...] | None = None
    cached: bool = False
    attempts: int = 1                # worker processes this request ran in

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def computation(self, name: str) -> XlaComputation:
        for c in self.computations or ():
            if c.name == name:
                return c
        raise KeyError(name)

    # JSON keeps the cache readable by any later version of this file; pickle
    # of these classes would break as soon as a field changes.
    def _to_json(self) -> dict:
        return {
            "status": self.status, "error": self.error, "text": self.text,
            "module_name": self.module_name, "entry": self.entry,
            "computations": None if self.computations is None else [
                [c.name, [[i.name, i.opcode, list(i.operands), i.shape, i.is_root,
                           i.parameter_number, i.enum, list(i.called),
                           list(i.control_predecessors)]
                          for i in c.instructions], c.printed]
                for c in self.computations
            ],
        }

    @staticmethod
    def _from_json(d: dict, cached: bool = False) -> "Result":
        comps = d.get("computations")
        return Result(
            status=d["status"], error=d.get("error"), text=d.get("text"),
            module_name=d.get("module_name"), entry=d.get("entry"),
            computations=None if comps is None else tuple(
                XlaComputation(name, tuple(
                    XlaInstruction(n, op, tuple(ops), shape, bool(root), pnum, enum, tuple(called),
                                   tuple(preds))
                    for n, op, ops, shape, root, pnum, enum, called, preds in instrs), printed)
                for name, instrs, printed in comps
            ),
            cached=cached,
        )


def jaxlib_version() -> str:
    """The installed jaxlib version, read without importing jax (which is slow)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jaxlib")
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------
# worker side


_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')
_CALLED_RE = re.compile(
    r", (to_apply|calls|condition|body|select|scatter|true_computation|false_computation"
    r"|branch_computations|called_computations)=(\{[^}]*\}|[^\s,{}]+)"
)


_CONTROL_RE = re.compile(r", control-predecessors=\{([^}]*)\}")


def _called_computations(text: str) -> tuple[list[str], list[str]]:
    """Called computations and control predecessors of one printed instruction."""
    text = _STRING_RE.sub('""', text)  # backend configs may mention anything
    names: list[str] = []
    for _, value in _CALLED_RE.findall(text):
        names.extend(n.strip().lstrip("%") for n in value.strip("{}").split(",") if n.strip())
    m = _CONTROL_RE.search(text)
    preds = [n.strip().lstrip("%") for n in m.group(1).split(",") if n.strip()] if m else []
    return names, preds


def _split_instruction_text(text: str) -> tuple[str, str, int | None]:
    """(shape, opcode, parameter number) from XLA's print ``%name = SHAPE opcode(...)...``."""
    eq = text.find(" = ")
    if eq < 0:
        raise ValueError(f"unexpected instruction print: {text[:200]!r}")
    i = eq + 3
    depth = 0
    start = i
    # The shape ends at the first space outside brackets: tuple shapes have
    # ", " inside parentheses, layouts never contain spaces.
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == " " and depth == 0:
            break
        i += 1
    shape = text[start:i]
    j = text.find("(", i + 1)
    opcode = text[i + 1 : j if j >= 0 else len(text)].strip()
    pnum = None
    if opcode == "parameter":
        m = re.match(r"\((\d+)\)", text[j:])
        pnum = int(m.group(1)) if m else None
    return shape, opcode, pnum


# XLA indents instructions by exactly two spaces; deeper "ROOT" lines are
# inside string attributes (a whole module can sit in origin_recovery_table).
_ROOT_RE = re.compile(r"^  ROOT %?([^\s=]+) = ", re.M)
_ENTRY_RE = re.compile(r"^ENTRY %?([^\s(]+)", re.M)
_HEADER_RE = re.compile(r"^(?:ENTRY )?%?([^\s(]+) \(", re.M)
_MODULE_RE = re.compile(r"^HloModule ([^\s,]+)", re.M)


# A request that starts with this line makes the child abort as a failed CHECK
# does: the crash handling is tested the same way whatever jaxlib is
# installed (jaxlib 0.12's parser returns errors where 0.10.2's aborted).
TEST_ABORT = "// xla_reference: abort this child\n"


def _handle(hlo, kind: str, text: str) -> dict:
    if text.startswith(TEST_ABORT):
        print("Check failed: requested by the test", file=sys.stderr, flush=True)
        os.abort()
    try:
        module = hlo.hlo_module_from_text(text)
    except Exception as e:  # XLA reports a bad module as a Python exception
        return {"status": "error", "error": str(e)}
    printed = module.to_string()
    out: dict = {"status": "ok", "text": printed}
    m = _MODULE_RE.search(printed)
    out["module_name"] = m.group(1) if m else module.name
    m = _ENTRY_RE.search(printed)
    out["entry"] = m.group(1) if m else None
    if kind == "parse":
        roots = set(_ROOT_RE.findall(printed))
        headers = set(_HEADER_RE.findall(printed))
        comps = []
        for comp in module.computations():
            instrs = []
            for ins in comp.instructions():
                line = ins.to_string()
                shape, opcode, pnum = _split_instruction_text(line)
                instrs.append([ins.name, opcode, [o.name for o in ins.operands()], shape,
                               ins.name in roots, pnum, str(ins.opcode).rpartition(".")[2],
                               *_called_computations(line)])
            comps.append([comp.name, instrs, comp.name in headers])
        out["computations"] = comps
    return out


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _serve_in_child(hlo, kind: str, text: str, deadline: float) -> dict:
    """Answer one request in a forked child, so no request sees another's heap.

    The parser can overrun its buffers on a malformed-but-accepted module
    (corpus: a tile assignment listing more devices than tiles), which later
    kills whichever module happens to be parsed next in that process.  A child
    forked from a process that has imported jaxlib but parsed nothing starts
    from the same clean heap every time, so each answer depends on its own
    text only, and a crash is pinned on the module that caused it.
    """
    reply_r, reply_w = os.pipe()
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(reply_r)
            os.dup2(err.fileno(), 1)
            os.dup2(err.fileno(), 2)
            try:
                reply = _handle(hlo, kind, text)
            except Exception as e:  # a bug here, not XLA's verdict; say so
                reply = {"status": "crashed", "error": f"worker error: {type(e).__name__}: {e}"}
            _write_all(reply_w, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))
        finally:
            # No destructors: some accepted modules leave XLA's heap damaged,
            # and tearing it down would abort after the answer was written.
            os._exit(0)
    os.close(reply_w)
    chunks = []
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([reply_r], [], [], max(0.0, left))
        if not ready:
            timed_out = True
            os.kill(pid, 9)
            break
        b = os.read(reply_r, 1 << 20)
        if not b:
            break
        chunks.append(b)
    os.close(reply_r)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not timed_out and data:
        try:
            return pickle.loads(data)
        except Exception:
            pass  # a reply cut short by the child's death
    err.seek(0)
    log = err.read().decode("utf-8", "replace").splitlines()
    err.close()
    # The useful line is the fatal one (a failed CHECK, a C++ exception, the
    # allocator's complaint); a stack trace and many warnings may follow it.
    fatal = [line for line in log if re.match(r"F\d{4} |.*(Check failed|what\(\)|malloc|free\(\)|double free|terminate)", line)]
    tail = "\n".join((fatal[:3] or [line for line in log if line.strip()][-8:]))[-1500:]
    if timed_out:
        why = "timed out"
    elif os.WIFSIGNALED(status):
        why = f"killed by signal {os.WTERMSIG(status)}"
    else:
        why = f"exit status {os.WEXITSTATUS(status)}"
    return {"status": "crashed", "error": f"XLA parser process {why}: {tail}"}


def _worker_main(child_timeout: float) -> None:
    # Our replies go over a private copy of stdout; XLA's C++ code may write
    # to fd 1 itself, so fd 1 is pointed at stderr where it cannot garble them.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        # The module behind xla_client.hlo, without the rest of jax: a
        # quarter of the start-up time and a smaller process to fork.
        import jaxlib._hlo as hlo
    except ImportError:
        from jaxlib import xla_client

        hlo = xla_client.hlo
    while True:
        header = _read_exact(0, _HEADER.size)
        if header is None:
            return
        (n,) = _HEADER.unpack(header)
        payload = _read_exact(0, n)
        if payload is None:
            return
        kind, text = pickle.loads(payload)
        reply = _serve_in_child(hlo, kind, text, time.monotonic() + child_timeout)
        data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(out_fd, _HEADER.pack(len(data)) + data)


# --------------------------------------------------------------------------
# client side


class _WorkerDied(Exception):
    pass


class _Worker:
    """One worker process; talks length-prefixed pickles over its stdin/stdout."""

    def __init__(self, child_timeout: float) -> None:
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ)
        env.setdefault("JAX_PLATFORMS", "cpu")
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", repr(child_timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            bufsize=0, env=env, close_fds=True,
        )
        self.served = 0
        self.started_at: float | None = None

    def fileno(self) -> int:
        return self.proc.stdout.fileno()

    def send(self, kind: str, text: str) -> None:
        payload = pickle.dumps((kind, text), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(_HEADER.pack(len(payload)) + payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise _WorkerDied(self._death_note(f"pipe closed: {e}")) from None
        self.started_at = time.monotonic()

    def recv(self) -> dict:
        fd = self.fileno()
        header = _read_exact(fd, _HEADER.size)
        if header is None:
            raise _WorkerDied(self._death_note())
        (n,) = _HEADER.unpack(header)
        payload = _read_exact(fd, n)
        if payload is None:
            raise _WorkerDied(self._death_note())
        self.served += 1
        self.started_at = None
        return pickle.loads(payload)

    def _death_note(self, why: str = "") -> str:
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - 2000))
        tail = self.stderr.read().decode("utf-8", "replace").strip()
        status = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        return f"worker died ({status}{'; ' + why if why else ''}): {tail[-1500:]}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc.stdout.close()
        self.stderr.close()


class XlaReference:
    """A pool of restartable XLA-parser workers with an optional on-disk cache.

    ``workers``: processes used by the ``*_many`` calls (default: 2, or 1 on
    a single-CPU machine).  ``cache_dir``: where answers are cached (None: no
    cache).  ``timeout``: seconds XLA may spend on one request before it
    counts as crashed.  ``retry_crashed``: run a request that crashed (in its
    child, or by killing the worker) once more before answering "crashed".

    Counters for reports: ``stats`` (requests, cache hits, worker starts,
    crashes, retries that succeeded).
    """

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        *,
        workers: int | None = None,
        timeout: float = 300.0,
        retry_crashed: bool = True,
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.n_workers = max(1, workers if workers is not None else min(2, os.cpu_count() or 1))
        self.timeout = timeout
        self.retry_crashed = retry_crashed
        self.version = jaxlib_version()
        self._workers: list[_Worker] = []
        self._busy: set[_Worker] = set()  # workers some call awaits a reply from
        self.stats = {"requests": 0, "cache_hits": 0, "worker_starts": 0,
                      "crashes": 0, "recovered_by_retry": 0}
        # (first 80 characters of the text, attempt, what the worker said)
        self.crash_log: list[tuple[str, int, str]] = []

    # ---- lifecycle -----------------------------------------------------
    def __enter__(self) -> "XlaReference":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self._workers:
            w.close()
        self._workers.clear()

    # ---- public calls --------------------------------------------------
    def parse(self, text: str) -> Result:
        """XLA's parse of ``text``: status, printed module, computations and instructions."""
        return list(self._run("parse", [text], 1))[0]

    def to_string(self, text: str) -> Result:
        """XLA's ``to_string()`` of ``text`` only (``computations`` is None)."""
        return list(self._run("print", [text], 1))[0]

    def parse_many(self, texts: Iterable[str]) -> Iterator[Result]:
        """``parse`` for each text, in order, computed by all workers in parallel."""
        return self._run("parse", list(texts), self.n_workers)

    def to_string_many(self, texts: Iterable[str]) -> Iterator[Result]:
        """``to_string`` for each text, in order, computed by all workers in parallel."""
        return self._run("print", list(texts), self.n_workers)

    # ---- cache ---------------------------------------------------------
    def _key(self, kind: str, text: str) -> str:
        h = hashlib.sha256()
        h.update(f"{SCHEMA}\0{kind}\0{self.version}\0".encode())
        h.update(text.encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def _cache_path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / (key + ".json.z")

    def _cache_get(self, key: str) -> Result | None:
        if self.cache_dir is None:
            return None
        try:
            data = self._cache_path(key).read_bytes()
            return Result._from_json(json.loads(zlib.decompress(data)), cached=True)
        except (OSError, ValueError, KeyError, zlib.error):
            return None

    def _cache_put(self, key: str, result: Result) -> None:
        if self.cache_dir is None or result.status == "crashed":
            return
        path = self._cache_path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = zlib.compress(json.dumps(result._to_json()).encode(), 1)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs time

    # ---- scheduling ----------------------------------------------------
    def _fresh_worker(self) -> _Worker:
        self.stats["worker_starts"] += 1
        w = _Worker(self.timeout)
        self._workers.append(w)
        return w

    def _retire(self, w: _Worker, *, kill: bool = False) -> None:
        if kill:
            w.kill()
        w.close()
        self._workers.remove(w)

    def _run(self, kind: str, texts: list[str], parallel: int) -> Iterator[Result]:
        """Answers for ``texts`` in order.

        Calls may nest (a caller may ask for one answer while iterating over
        many): each call tracks the workers it has requests in flight on,
        and only hands new requests to workers no call is waiting on.
        """
        self.stats["requests"] += len(texts)
        done: dict[int, Result] = {}
        keys = [self._key(kind, t) for t in texts]
        todo: deque[tuple[int, int]] = deque()  # (index, attempt)
        for i, key in enumerate(keys):
            hit = self._cache_get(key)
            if hit is not None:
                self.stats["cache_hits"] += 1
                done[i] = hit
            else:
                todo.append((i, 1))
        mine: dict[_Worker, tuple[int, int]] = {}

        def finish(i: int, result: Result) -> None:
            done[i] = result
            self._cache_put(keys[i], result)

        def crashed(i: int, attempt: int, note: str) -> None:
            self.stats["crashes"] += 1
            self.crash_log.append((texts[i][:80], attempt, note))
            if self.retry_crashed and attempt == 1:
                todo.appendleft((i, 2))
            else:
                finish(i, Result("crashed", error=note, attempts=attempt))

        def release(w: _Worker) -> tuple[int, int]:
            self._busy.discard(w)
            return mine.pop(w)

        try:
            next_out = 0
            while next_out < len(texts):
                while next_out in done:
                    yield done.pop(next_out)
                    next_out += 1
                if next_out >= len(texts):
                    break
                # Hand requests to idle workers; start new ones up to the
                # parallelism asked, or one if all are busy for other calls.
                while todo:
                    idle = [w for w in self._workers if w not in self._busy]
                    if not idle and (len(self._workers) < parallel or not mine):
                        idle = [self._fresh_worker()]
                    if not idle:
                        break
                    w = idle[0]
                    i, attempt = todo.popleft()
                    try:
                        w.send(kind, texts[i])
                    except _WorkerDied as e:
                        self._retire(w)
                        if w.served == 0:
                            raise RuntimeError(f"XLA reference worker cannot start: {e}") from None
                        crashed(i, attempt, str(e))
                        continue
                    mine[w] = (i, attempt)
                    self._busy.add(w)
                if not mine:
                    continue
                # The worker enforces `timeout` on its child; this backstop
                # only catches a worker that stopped answering altogether.
                limit = self.timeout + 30.0
                now = time.monotonic()
                wait = min(max(0.0, w.started_at + limit - now) for w in mine)
                ready, _, _ = select.select(list(mine), [], [], wait)
                if not ready:
                    now = time.monotonic()
                    for w in [w for w in mine if now - w.started_at >= limit]:
                        i, attempt = release(w)
                        self._retire(w, kill=True)
                        crashed(i, attempt, f"worker silent for {limit:.0f}s")
                    continue
                for w in ready:
                    i, attempt = release(w)
                    try:
                        reply = w.recv()
                    except _WorkerDied as e:
                        self._retire(w)
                        if w.served == 0:
                            # Children take the crashes; a worker that dies
                            # before its first answer cannot start at all
                            # (no jaxlib?), and would fail every request.
                            raise RuntimeError(f"XLA reference worker cannot start: {e}") from None
                        crashed(i, attempt, str(e))
                        continue
                    if reply["status"] == "crashed":
                        crashed(i, attempt, reply["error"])
                        continue
                    if attempt > 1:
                        self.stats["recovered_by_retry"] += 1
                    result = Result._from_json(reply)
                    finish(i, result if attempt == 1 else _with_attempts(result, attempt))
        finally:
            # An abandoned iteration leaves requests in flight whose replies
            # would be read as answers to another call: drop those workers.
            for w in list(mine):
                release(w)
                self._retire(w, kill=True)
            # Keep at most `workers` warm processes once no call is waiting
            # (a nested call's extra worker stays for the next nested call).
            while not self._busy and len(self._workers) > self.n_workers:
                self._retire(self._workers[-1])


def _with_attempts(r: Result, attempts: int) -> Result:
    from dataclasses import replace

    return replace(r, attempts=attempts)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker_main(float(sys.argv[2]))
    else:
        # A quick look at one file: python tests/xla_reference.py FILE.hlo
        with XlaReference() as ref:
            for path in sys.argv[1:]:
                r = ref.parse(Path(path).read_text())
                print(f"{path}: {r.status} {r.error or ''}")
                for c in r.computations or ():
                    print(f"  {c.name}")
                    for ins in c.instructions:
                        root = "ROOT " if ins.is_root else ""
                        args = ins.parameter_number if ins.opcode == "parameter" else ", ".join(ins.operands)
                        print(f"    {root}{ins.name} = {ins.shape} {ins.opcode}({args})")
