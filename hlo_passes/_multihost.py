"""Agreement across the processes of a multi-controller jax job (``jax.distributed``).

In a job with one jax process per host, every process lowers, rewrites and
compiles the program on its own, and XLA needs the programs to agree: if one
process compiles the rewrite and another does not (a fallback after an error,
a plugin present on one host only), the collectives no longer match and the
job hangs or computes garbage.  So before ``hlo_passes.jit`` compiles, the
processes agree on what they compile:

1. each posts a ``Vote`` through the runtime's key-value store: what it
   decided (``rewrite`` / ``unchanged`` / ``fallback``) and SHA-256
   fingerprints of the program it would compile and of jax's own program,
   both printed without locations (they carry absolute paths, which may
   differ per host);
2. it waits for all N votes; a process that does not answer within the
   timeout (``$HLO_PASSES_AGREE_TIMEOUT`` seconds, default 300) makes the
   others raise ``AgreementTimeoutError`` naming it: a process never decides
   alone, since falling back alone would itself make the programs differ;
3. ``decide(votes)``, a pure function of the N votes, says what everyone
   compiles: all equal → what they voted for; any differ → jax's own program
   everywhere, and process 0 warns naming the processes that differ.

After compiling a rewrite, a second round of the same kind settles XLA's
verdict (a host may reject it alone: memory, flags): if any process could not
compile it, all compile the original.

A single-process job pays nothing: ``current_job()`` is None there and no
vote is printed, posted or awaited.  Warnings and logs of the jax entry points
are emitted by process 0 only (``reports_here``), unless
``$HLO_PASSES_LOG_ALL_PROCESSES=1`` asks every process to report, tagged with
its id.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import jax

from . import _jax_compat as compat
from .errors import AgreementTimeoutError

__all__ = [
    "Agreement",
    "Disagreement",
    "Job",
    "Vote",
    "current_job",
    "decide",
    "fingerprint",
    "report_tag",
    "reports_here",
]

TIMEOUT_ENV = "HLO_PASSES_AGREE_TIMEOUT"
DEFAULT_TIMEOUT_S = 300.0
ALL_PROCESSES_ENV = "HLO_PASSES_LOG_ALL_PROCESSES"
KEY_ROOT = "hlo_passes/jit"

REWRITE, UNCHANGED, FALLBACK = "rewrite", "unchanged", "fallback"


def fingerprint(text: str) -> str:
    """SHA-256 of a program's text (printed without locations by the caller)."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Vote:
    """What one process would compile: its decision and fingerprints of both programs."""

    decision: str  # REWRITE, UNCHANGED or FALLBACK
    program: str  # fingerprint of what this process would compile
    original: str  # fingerprint of jax's own program

    def encode(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def decode(cls, text: str) -> "Vote":
        fields = json.loads(text)
        return cls(str(fields["decision"]), str(fields["program"]), str(fields["original"]))


@dataclass(frozen=True)
class Agreement:
    """What every process compiles, and who differed from the largest group of equal votes."""

    rewrite: bool  # True: the rewrite all processes voted for; False: jax's own program
    differing: tuple[int, ...] = ()
    reference: tuple[int, ...] = ()
    why: str = ""  # for a disagreement: what differs, per differing process

    @property
    def unanimous(self) -> bool:
        return not self.differing


def _processes(ids: Sequence[int]) -> str:
    return f"process{'es' * (len(ids) != 1)} {', '.join(map(str, ids))}"


def _difference(vote: Vote, reference: Vote, reference_ids: Sequence[int]) -> str:
    others = _processes(reference_ids)
    if vote.original != reference.original:
        return f"lowered another program than {others} (jax's own module differs)"
    if vote.decision != reference.decision:
        return f"decided {vote.decision} where {others} decided {reference.decision}"
    return f"rewrote the module differently from {others}"


def decide(votes: Sequence[Vote]) -> Agreement:
    """What every process compiles, given the votes of processes 0..N-1 (a pure function).

    All votes equal: what they voted for (the rewrite if they rewrote).  Any
    difference: jax's own program everywhere; ``differing`` lists the processes
    outside the largest group of equal votes (on a tie, the group holding the
    lowest process id is the reference), ``why`` says how each differs.
    """
    if not votes:
        raise ValueError("decide() needs the votes of every process, got none")
    groups: dict[Vote, list[int]] = {}
    for process, vote in enumerate(votes):
        groups.setdefault(vote, []).append(process)
    if len(groups) == 1:
        return Agreement(rewrite=votes[0].decision == REWRITE, reference=tuple(range(len(votes))))
    ref_vote, ref_ids = max(groups.items(), key=lambda kv: (len(kv[1]), -kv[1][0]))
    differing = sorted(p for vote, ids in groups.items() if vote != ref_vote for p in ids)
    why = "; ".join(f"{_processes(ids)} {_difference(vote, ref_vote, ref_ids)}"
                    for vote, ids in groups.items() if vote != ref_vote)
    return Agreement(rewrite=False, differing=tuple(differing), reference=tuple(ref_ids), why=why)


def decide_compiled(verdicts: Sequence[str]) -> Agreement:
    """After compiling the agreed rewrite: keep it only if every process's XLA accepted it.

    ``verdicts[p]`` is ``"ok"`` or the error process p got from XLA.
    """
    failed = tuple(p for p, v in enumerate(verdicts) if v != "ok")
    if not failed:
        return Agreement(rewrite=True, reference=tuple(range(len(verdicts))))
    why = "; ".join(f"process {p}: {verdicts[p]}" for p in failed)
    return Agreement(rewrite=False, differing=failed,
                     reference=tuple(p for p in range(len(verdicts)) if p not in failed),
                     why=f"XLA rejected the rewritten module in {_processes(failed)} ({why})")


class Disagreement(Exception):
    """Recorded (not raised) on a ``RewrittenLowered`` whose processes did not agree."""

    def __init__(self, agreement: Agreement) -> None:
        self.agreement = agreement
        super().__init__(agreement.why)


def _timeout_s() -> float:
    raw = os.environ.get(TIMEOUT_ENV)
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"${TIMEOUT_ENV}={raw!r}: expected a number of seconds") from None
    if value <= 0:
        raise ValueError(f"${TIMEOUT_ENV}={raw!r}: expected a positive number of seconds")
    return value


_rounds_lock = threading.Lock()
_rounds: dict[str, itertools.count] = {}


def _next_round(name: str) -> str:
    """``hlo_passes/jit/<name>/<n>``: the n-th agreement about functions called ``name``.

    Every process of an SPMD job compiles the same functions in the same order,
    so the n-th round of a name is the same compile everywhere (a mismatch
    shows up as differing votes, never as a wrong program).
    """
    safe = name.replace("/", "_") or "_"
    with _rounds_lock:
        counter = _rounds.setdefault(safe, itertools.count())
        return f"{KEY_ROOT}/{safe}/{next(counter)}"


@dataclass
class Job:
    """This process's view of a multi-process job."""

    process: int
    count: int
    client: Any  # the runtime's key-value store, or None without jax.distributed
    timeout_s: float

    def round(self, name: str) -> str:
        return _next_round(name)

    def exchange(self, key: str, value: str, *, what: str) -> list[str]:
        """Post ``value`` under ``key`` and return every process's value, in process order.

        ``AgreementTimeoutError`` naming the processes that did not post within
        the timeout.
        """
        compat.kv_post(self.client, f"{key}/{self.process}", value)
        deadline = time.monotonic() + self.timeout_s
        values: dict[int, str] = {self.process: value}
        for p in range(self.count):
            if p in values:
                continue
            got = compat.kv_wait(self.client, f"{key}/{p}", max(deadline - time.monotonic(), 0.001))
            if got is None:
                break
            values[p] = got
        if len(values) < self.count:
            # Who else did answer (late, or after the one we waited on).
            for k, v in compat.kv_dir(self.client, f"{key}/").items():
                tail = k.rsplit("/", 1)[-1]
                if tail.isdigit():
                    values.setdefault(int(tail), v)
            silent = tuple(p for p in range(self.count) if p not in values)
            if silent:
                raise AgreementTimeoutError(
                    f"{what}: no answer from {_processes(silent)} (of {self.count}) within "
                    f"{self.timeout_s:g} s (key {key}). Every process must agree before any compiles: "
                    "one falling back alone would make the programs differ and the job hang in its "
                    "collectives. Check that every process calls this function with the same arguments "
                    f"and is still running, or raise ${TIMEOUT_ENV} (seconds) if some are just slower.",
                    silent=silent,
                )
        return [values[p] for p in range(self.count)]

    def agree(self, key: str, vote: Vote, *, what: str) -> Agreement:
        if self.client is None:
            # Nowhere to exchange votes: every process takes the one decision
            # it can take alone and still match the others, jax's own program.
            return Agreement(rewrite=False, differing=tuple(range(1, self.count)), reference=(0,),
                             why="jax.distributed is not initialized, so the processes cannot compare "
                                 "their rewrites")
        votes = [Vote.decode(v) for v in self.exchange(f"{key}/program", vote.encode(), what=what)]
        return decide(votes)

    def agree_compiled(self, key: str, error: BaseException | None, *, what: str) -> Agreement:
        verdict = "ok" if error is None else f"{type(error).__name__}: {str(error)[:300]}"
        return decide_compiled(self.exchange(f"{key}/compiled", verdict, what=what))


def current_job() -> Job | None:
    """This process's job, or None when it is the only process (nothing to agree on)."""
    count = jax.process_count()
    if count == 1:
        return None
    return Job(process=jax.process_index(), count=count, client=compat.distributed_client(),
               timeout_s=_timeout_s())


def _all_processes_report() -> bool:
    return os.environ.get(ALL_PROCESSES_ENV, "").strip().lower() not in ("", "0", "false", "no")


def reports_here() -> bool:
    """Whether this process emits the entry points' warnings and logs: process 0 of a job,
    or every process with ``$HLO_PASSES_LOG_ALL_PROCESSES=1``."""
    return _all_processes_report() or jax.process_index() == 0


def report_tag() -> str:
    """``"[process 3 of 8] "`` when every process of a multi-process job reports, else ``""``."""
    if not _all_processes_report() or jax.process_count() == 1:
        return ""
    return f"[process {jax.process_index()} of {jax.process_count()}] "
