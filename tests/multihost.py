"""Start a multi-process jax job on loopback and collect what its processes wrote.

Every process runs under one deadline; on failure or timeout the job's
processes are killed by pid, and the caller gets their logs, never a hang.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WORKER = Path(__file__).resolve().with_name("multihost_worker.py")


def free_port() -> int:
    """A TCP port nobody listens on right now (the coordinator binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Job:
    records: list[dict]
    shards: list[dict[str, np.ndarray] | None]
    rewritten: list[str | None]
    logs: list[str]
    seconds: float


class JobFailed(AssertionError):
    pass


def run_job(scenario: str, processes: int, devices: int, out: Path, *, timeout: float = 300,
            wait_for: tuple[int, ...] | None = None, env: dict[str, str] | None = None) -> Job:
    """Run ``tests/multihost_worker.py SCENARIO`` in ``processes`` processes of ``devices`` devices each.

    Waits for the processes in ``wait_for`` (default: all) to exit with status 0
    within ``timeout`` seconds in all, then kills whatever is still running.
    """
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    child_env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # the worker sets its devices
    child_env.update(env or {})
    procs: list[subprocess.Popen] = []
    logs = [out / f"p{i}.log" for i in range(processes)]
    t0 = time.monotonic()
    try:
        for i in range(processes):
            with open(logs[i], "wb") as log:
                procs.append(subprocess.Popen(
                    [sys.executable, str(WORKER), scenario, "--process", str(i), "--processes", str(processes),
                     "--devices", str(devices), "--port", str(port), "--out", str(out)],
                    stdout=log, stderr=subprocess.STDOUT, env=child_env, cwd=WORKER.parent.parent))
        deadline = t0 + timeout
        for i in (wait_for if wait_for is not None else range(processes)):
            try:
                code = procs[i].wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                raise JobFailed(f"{scenario}: process {i} still running after {timeout:.0f} s\n"
                                + _tails(logs)) from None
            if code != 0:
                raise JobFailed(f"{scenario}: process {i} exited with {code}\n" + _tails(logs, out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
    seconds = time.monotonic() - t0
    records = [_read_json(out / f"p{i}.json") for i in range(processes)]
    shards = [_read_npz(out / f"p{i}.npz") for i in range(processes)]
    rewritten = [_read_text(out / f"p{i}.rewritten.mlir") for i in range(processes)]
    return Job(records, shards, rewritten, [p.read_text(errors="replace") for p in logs], seconds)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _read_npz(path: Path) -> dict[str, np.ndarray] | None:
    if not path.exists():
        return None
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _read_text(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


def _tails(logs: list[Path], out: Path | None = None) -> str:
    parts = []
    for i, log in enumerate(logs):
        text = log.read_text(errors="replace") if log.exists() else "(no log)"
        lines = [line for line in text.splitlines() if "[Gloo]" not in line]
        parts.append(f"--- process {i} log (last lines)\n" + "\n".join(lines[-25:]))
        record = out / f"p{i}.json" if out is not None else None
        if record is not None and record.exists():
            crash = json.loads(record.read_text()).get("crash")
            if crash:
                parts.append(f"--- process {i} crash\n{crash}")
    return "\n".join(parts)
