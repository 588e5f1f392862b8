"""Worker processes that run the oracle with a per-input timeout.

Each worker is a fresh interpreter (``spawn``: the test process may hold jax's
threads, which a fork would copy half-way) with a memory cap, so an input that
would take the machine's memory raises ``MemoryError`` in the worker instead.
An input that has used its timeout in CPU seconds (or six times it in wall
time: the machine is shared) is a *hang*: the worker is asked for its stack first (``faulthandler`` on SIGUSR1: the innermost ``hlo_passes``
frame names the loop), then killed and replaced.  A worker that dies is
replaced too, and its input is run again later on its own in a fresh worker
(``rerun_alone``): dying again is a defect of the tool, not of the harness.
"""
from __future__ import annotations

import faulthandler
import importlib
import multiprocessing as mp
import os
import re
import signal
import tempfile
import time
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from .oracle import STAGES

_FRAME_RE = re.compile(r'File "([^"]*)", line (\d+) in (\S+)')
DEFAULT_MEMORY = 3 << 30
# A hang is an input that used the timeout in CPU seconds; on a loaded machine it
# may take this many times the timeout in wall time before it counts anyway.
MAX_WALL_FACTOR = 6
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux /proc), None where unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


def _worker_main(conn: Any, stage: Any, dump_path: str, memory: int, target: str) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass
    dump = open(dump_path, "w")  # noqa: SIM115 - lives as long as the worker
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=False)
    module_name, func_name = target.split(":")
    check = getattr(importlib.import_module(module_name), func_name)

    def set_stage(i: int) -> None:
        stage.value = i

    # Work is sent only once this arrives: a send to a worker still importing
    # would block the parent (a large text fills the pipe), and with it the
    # deadlines of every other worker.
    conn.send(("ready", None))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        key, text = msg
        stage.value = 0
        t0 = time.perf_counter()
        result = check(text, set_stage)
        result["seconds"] = round(time.perf_counter() - t0, 4)
        try:
            conn.send((key, result))
        except (BrokenPipeError, ConnectionResetError):
            return  # the parent gave up on this input (its timeout) as it finished: nothing to tell


def _stack_where(dump: str) -> str:
    """The innermost ``hlo_passes`` frame of a faulthandler dump (most recent call first),
    else its innermost frame, else '?' (no dump: the worker did not answer SIGUSR1 in time)."""
    frames = list(_FRAME_RE.finditer(dump))
    for m in frames:
        path = m.group(1).replace("\\", "/")
        k = path.rfind("/hlo_passes/")
        if k >= 0:
            return f"{path[k + 1:]}:{m.group(2)} {m.group(3)}"
    if frames:
        m = frames[0]
        return f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)} {m.group(3)}"
    return "?"


class _Worker:
    def __init__(self, ctx: Any, tmp: str, memory: int, target: str) -> None:
        self.stage = ctx.Value("i", 0, lock=False)
        fd, self.dump_path = tempfile.mkstemp(prefix="fuzz-stack-", suffix=".txt", dir=tmp)
        os.close(fd)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, self.stage, self.dump_path, memory, target),
                                daemon=True)
        self.proc.start()
        child.close()
        self.key: Any = None
        self.text = ""
        self.deadline = 0.0
        self.started = 0.0
        self.cpu_at_start: float | None = None

    def send(self, key: Any, text: str, timeout: float) -> None:
        self.key, self.text = key, text
        self.started = time.monotonic()
        self.cpu_at_start = _cpu_seconds(self.proc.pid)
        self.deadline = self.started + timeout
        self.conn.send((key, text))

    def over_time(self, timeout: float) -> bool:
        """At the deadline: whether the input has had ``timeout`` seconds of the CPU (or a wall
        time of MAX_WALL_FACTOR x timeout); if not, the deadline moves on by what it still has.

        The machine is shared: a busy neighbour must not turn a slow input into a hang."""
        now = time.monotonic()
        cpu = _cpu_seconds(self.proc.pid)
        if cpu is None or self.cpu_at_start is None:
            return True
        used = cpu - self.cpu_at_start
        if used >= timeout or now - self.started >= MAX_WALL_FACTOR * timeout:
            return True
        self.deadline = now + max(0.2, timeout - used)
        return False

    def stage_name(self) -> str:
        return STAGES[self.stage.value] if 0 <= self.stage.value < len(STAGES) else "?"

    def hang_report(self) -> dict[str, Any]:
        where = "?"
        if self.proc.is_alive():
            try:
                os.kill(self.proc.pid, signal.SIGUSR1)
                for _ in range(20):  # up to 2 s: a loaded machine is slow to schedule the dump
                    time.sleep(0.1)
                    if os.path.getsize(self.dump_path):
                        break
                time.sleep(0.1)
                with open(self.dump_path) as f:
                    where = _stack_where(f.read())
            except OSError:
                pass
        stage = self.stage_name()
        return {"outcome": "hang", "stage": stage, "type": "", "where": where, "message": "",
                "signature": f"hang|{stage}||{where}"}

    def close(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        try:
            os.unlink(self.dump_path)
        except OSError:
            pass


class Pool:
    """``workers`` processes running ``target`` (``module:function``) on texts."""

    def __init__(self, workers: int = 2, timeout: float = 10.0, memory: int = DEFAULT_MEMORY,
                 target: str = "fuzzing.oracle:check") -> None:
        self.n = max(1, workers)
        self.timeout = timeout
        self.memory = memory
        self.target = target
        self.ctx = mp.get_context("spawn")
        self.tmp = tempfile.mkdtemp(prefix="hlo-fuzz-")
        # (key, text, stage, exit code) of each input whose worker died.
        self.deaths: list[tuple[Any, str, str, int | None]] = []
        self._spare: _Worker | None = None

    def _new(self) -> _Worker:
        return _Worker(self.ctx, self.tmp, self.memory, self.target)

    def run(self, tasks: Iterable[tuple[Any, str]]) -> Iterator[tuple[Any, dict[str, Any]]]:
        """(key, result) for each task, in completion order; a dead worker's task is kept for ``rerun_alone``."""
        it = iter(tasks)
        starting = [self._new() for _ in range(self.n)]
        idle: list[_Worker] = []
        busy: list[_Worker] = []
        exhausted = False
        try:
            while True:
                for w in [w for w in starting if w.conn.poll()]:
                    try:
                        w.conn.recv()  # "ready"
                    except (EOFError, OSError):
                        starting.remove(w)
                        w.close(kill=True)
                        starting.append(self._new())
                        continue
                    starting.remove(w)
                    idle.append(w)
                while idle and not exhausted:
                    try:
                        key, text = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    w = idle.pop()
                    w.send(key, text, self.timeout)
                    busy.append(w)
                if not busy:
                    if exhausted:
                        return
                    wait([w.conn for w in starting], timeout=60)  # every worker is still starting
                    continue
                now = time.monotonic()
                ready = wait([w.conn for w in busy + starting],
                             timeout=max(0.0, min(w.deadline for w in busy) - now))
                for w in list(busy):
                    if w.conn in ready:
                        try:
                            key, result = w.conn.recv()
                        except (EOFError, OSError):
                            w.proc.join(2)
                            self.deaths.append((w.key, w.text, w.stage_name(), w.proc.exitcode))
                            busy.remove(w)
                            w.close(kill=True)
                            starting.append(self._new())
                            continue
                        busy.remove(w)
                        idle.append(w)
                        yield key, result
                    elif time.monotonic() >= w.deadline and w.over_time(self.timeout):
                        report = w.hang_report()
                        report["seconds"] = self.timeout
                        busy.remove(w)
                        key = w.key
                        w.close(kill=True)
                        starting.append(self._new())
                        yield key, report
        finally:
            for w in idle + busy + starting:
                w.close(kill=w not in idle)

    def run_one(self, text: str) -> dict[str, Any]:
        """One text in the pool's own spare worker, kept between calls (reduction, re-runs)."""
        w = self._spare
        if w is None or not w.proc.is_alive():
            if w is not None:
                w.close(kill=True)
            w = self._spare = self._new()
            if not w.conn.poll(120):
                raise RuntimeError("a fuzz worker did not start within 120 s")
            w.conn.recv()  # "ready"
        w.send(0, text, self.timeout)
        while not w.conn.poll(max(0.0, w.deadline - time.monotonic())):
            if w.over_time(self.timeout):
                result = w.hang_report()
                break
        else:
            try:
                return w.conn.recv()[1]
            except (EOFError, OSError):
                w.proc.join(2)
                result = death_result(w.stage_name(), w.proc.exitcode)
        w.close(kill=True)
        self._spare = None
        return result

    def close(self) -> None:
        if self._spare is not None:
            self._spare.close(kill=True)
            self._spare = None

    def rerun_alone(self) -> Iterator[tuple[Any, dict[str, Any]]]:
        """Each dead worker's input once more, alone: a death again, or what it gives when it does not die."""
        pending, self.deaths = self.deaths, []
        for key, text, _, _ in pending:
            self.close()  # alone: in a fresh worker
            result = self.run_one(text)
            if result["outcome"] != "death":
                result = dict(result, flake=True)
            yield key, result


def death_result(stage: str, code: int | None) -> dict[str, Any]:
    return {"outcome": "death", "stage": stage, "type": f"exit {code}", "where": "", "message": "",
            "signature": f"death|{stage}|exit {code}|"}
