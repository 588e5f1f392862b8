"""hlo_passes.jit in a multi-process jax job: every process compiles the same program.

Real jobs on loopback: N processes × K fake CPU devices each, one mesh over
all N·K devices (W FSDP-sharded across processes), cross-process collectives
over Gloo; the worker is tests/multihost_worker.py, the job runner
tests/multihost.py (every process under a deadline, killed by pid on failure).
"""
from __future__ import annotations

import numpy as np
import pytest

from hlo_passes import _multihost
from hlo_passes._multihost import FALLBACK, REWRITE, UNCHANGED, Vote, decide, decide_compiled
from multihost import Job, run_job

pytestmark = pytest.mark.jax_facing

# The rewrite reorders sums (one GMM instead of two, one reduction of dW):
# equal up to float32 rounding, as in the single-process training tests.
F32 = dict(rtol=1e-5, atol=1e-5)
JOB_TIMEOUT_S = 300
GATHERS_JAX = 4  # two halves of W, gathered in two stages (mesh2)


def _warnings(record: dict, category: str) -> list[str]:
    return [w["message"] for w in record.get("warnings", []) if w["category"] == category]


@pytest.fixture(scope="module", params=[(2, 4), (4, 2)], ids=["2x4", "4x2"])
def agreeing_job(request, tmp_path_factory) -> tuple[int, Job]:
    processes, devices = request.param
    # The 4-process job also checks the switch for per-process reports.
    env = {_multihost.ALL_PROCESSES_ENV: "1"} if processes == 4 else {}
    out = tmp_path_factory.mktemp(f"job_{processes}x{devices}")
    return processes, run_job("agree", processes, devices, out, timeout=JOB_TIMEOUT_S, env=env)


def test_every_process_rewrites_and_trains_like_jax_jit(agreeing_job) -> None:
    processes, job = agreeing_job
    assert [r["process_count"] for r in job.records] == [processes] * processes
    for p, record in enumerate(job.records):
        assert record["mesh"] == {"fsdp": 2, "fsdp_transpose": 4}, record["mesh"]
        assert record["report"] == ["moe-gather-fusion", "moe-gradient-fusion"], p
        assert record["rewritten_locally"] and all(record["compiled_rewrite"]), p
        assert record["fell_back"] == [None] * len(record["fell_back"]), p
        # The compiled all-gathers of W are halved, in every process's executable(s).
        assert record["gathers"]["jax"] == GATHERS_JAX
        assert record["gathers"]["hlo_passes"] == [GATHERS_JAX // 2] * len(record["fell_back"]), p
        np.testing.assert_allclose(*np.array(record["losses"]).T, **F32)
        # After 5 optimizer steps this process's shards of the parameters equal jax.jit's.
        shards = job.shards[p]
        names = sorted(k.split("/", 1)[1] for k in shards if k.startswith("jax/"))
        assert {n.split("/")[0] for n in names} == {"w", "wo"}
        for name in names:
            np.testing.assert_allclose(shards[f"hlo_passes/{name}"], shards[f"jax/{name}"], **F32, err_msg=name)
    assert len(job.records) == processes
    # What the processes rewrote is byte-identical (locations included: same script).
    assert job.rewritten[0] is not None and "all_gather" in job.rewritten[0]
    assert all(text == job.rewritten[0] for text in job.rewritten), "the processes' rewritten modules differ"


def test_reports_once_per_job_unless_asked_per_process(agreeing_job) -> None:
    processes, job = agreeing_job
    lint = [_warnings(r, "MoELintWarning") for r in job.records]
    assert all(not _warnings(r, "RewriteFallbackWarning") for r in job.records)
    assert lint[0], "install() reported nothing on process 0 (jax.jit compiles the unfused step)"
    if processes == 2:
        # Default: process 0 speaks for the job.
        assert lint[1:] == [[]] * (processes - 1), lint
        assert not lint[0][0].startswith("[process")
    else:
        # $HLO_PASSES_LOG_ALL_PROCESSES=1: every process reports, tagged with its id.
        for p, messages in enumerate(lint):
            assert messages and all(m.startswith(f"[process {p} of {processes}] ") for m in messages), (p, messages)


def test_a_process_that_rewrites_differently_makes_all_compile_the_original(tmp_path) -> None:
    job = run_job("disagree", 2, 4, tmp_path, timeout=JOB_TIMEOUT_S)
    first, second = job.records
    # Process 1's plugin pass tagged one op: its module differs from process 0's.
    assert "test.host_tag" in job.rewritten[1] and "test.host_tag" not in job.rewritten[0]
    for p, record in enumerate(job.records):
        assert record["rewritten_locally"], p
        assert record["compiled_rewrite"] == [False] * len(record["compiled_rewrite"]), p
        assert set(record["fell_back"]) == {"Disagreement"}, p
        assert record["gathers"]["hlo_passes"] == [GATHERS_JAX] * len(record["fell_back"]), p
        shards = job.shards[p]
        for name in (k.split("/", 1)[1] for k in shards if k.startswith("jax/")):
            # The same program as jax.jit's: the same bits.
            np.testing.assert_array_equal(shards[f"hlo_passes/{name}"], shards[f"jax/{name}"], err_msg=name)
    plugin, rejected = _warnings(first, "ProcessesDisagreeWarning")
    assert plugin.startswith("hlo_passes.jit(step): ")
    assert "process 1 rewrote the module differently from process 0" in plugin
    assert plugin.endswith("every process runs the original program")
    assert not _warnings(second, "ProcessesDisagreeWarning") and not _warnings(second, "RewriteFallbackWarning")
    # Then XLA rejects another function's rewrite in process 1 only: all compile the original.
    for p, record in enumerate(job.records):
        assert record["rejected"] == {"compiled_rewrite": False, "fell_back": "Disagreement",
                                      "gathers": GATHERS_JAX, "equal": True}, p
    assert rejected.startswith("hlo_passes.jit(rejected_step): XLA rejected the rewritten module in process 1 ")
    assert "RESOURCE_EXHAUSTED" in rejected


def test_a_silent_process_gives_a_clear_error_within_the_timeout(tmp_path) -> None:
    timeout_s = 5
    job = run_job("silent", 2, 4, tmp_path, timeout=JOB_TIMEOUT_S, wait_for=(0,),
                  env={_multihost.TIMEOUT_ENV: str(timeout_s)})
    assert job.records[1].get("stopped"), "process 1 did not reach its stop"
    error = job.records[0]["error"]
    assert error["type"] == "AgreementTimeoutError" and error["silent"] == [1]
    assert "no answer from process 1 (of 2) within 5 s" in error["message"]
    assert f"${_multihost.TIMEOUT_ENV}" in error["message"]
    assert timeout_s <= error["after_s"] < timeout_s + 30, error["after_s"]


def test_the_pass_inside_xla_compiles_one_program_in_every_process(tmp_path) -> None:
    """install(mode="rewrite") under plain jax.jit: a rule failing in process 1 alone makes every
    process keep XLA's module; without the failure every process compiles the rewrite."""
    job = run_job("xla-pass", 2, 4, tmp_path, timeout=JOB_TIMEOUT_S)
    failed, alike = ([r["xla_pass"][phase] for r in job.records] for phase in ("failure", "alike"))
    for p, phase in enumerate(failed):
        assert phase["equal"] and phase["losses_equal"], p
        assert phase["rewritten"] == 0 and phase["fallbacks"], (p, phase)
    assert all("xpa-raises: injected failure" in f for f in failed[1]["fallbacks"])
    assert all("did not rewrite it alike" in f and "process 1 decided fallback" in f
               for f in failed[0]["fallbacks"]), failed[0]["fallbacks"]
    for p, phase in enumerate(alike):
        assert phase["equal"] and phase["losses_equal"], p
        assert phase["rewritten"] > 0 and not phase["fallbacks"], (p, phase)
    # One program per phase in the whole job; the rewrite is another program than XLA's.
    assert len({phase["compiled"] for phase in failed}) == 1 and len({phase["compiled"] for phase in alike}) == 1
    assert failed[0]["compiled"] != alike[0]["compiled"]
    warned = _warnings(job.records[0], "XlaPassFallbackWarning")
    assert warned and all("did not rewrite it alike" in w for w in warned)


# ---- the decision, a pure function of the N votes ---------------------------------

A = Vote(REWRITE, "p-a", "o")
B = Vote(REWRITE, "p-b", "o")


def test_decide_all_equal_compiles_what_they_voted() -> None:
    assert decide([A, A, A]).rewrite and decide([A, A, A]).unanimous
    same = Vote(UNCHANGED, "o", "o")
    assert not decide([same, same]).rewrite and decide([same, same]).unanimous
    fell = Vote(FALLBACK, "o", "o")
    assert not decide([fell] * 4).rewrite and decide([fell] * 4).unanimous
    assert decide([A]).rewrite


def test_decide_any_difference_compiles_the_original_naming_the_minority() -> None:
    got = decide([A, A, B, A])
    assert not got.rewrite and got.differing == (2,) and got.reference == (0, 1, 3)
    assert got.why == "process 2 rewrote the module differently from processes 0, 1, 3"
    # Process 0 may be the odd one out; a tie keeps the group of the lowest id.
    assert decide([B, A, A]).differing == (0,)
    assert decide([A, B]).differing == (1,) and decide([B, A]).differing == (1,)
    fell = Vote(FALLBACK, "o", "o")
    assert decide([A, fell, fell, A, A]).why == "processes 1, 2 decided fallback where processes 0, 3, 4 decided rewrite"
    other = Vote(REWRITE, "p-a", "o2")
    assert "jax's own module differs" in decide([A, A, other]).why
    with pytest.raises(ValueError):
        decide([])


def test_decide_is_a_function_of_the_votes_alone() -> None:
    votes = [A, B, B, A, Vote(FALLBACK, "o", "o")]
    assert decide(votes) == decide([Vote.decode(v.encode()) for v in votes]) == decide(list(votes))


def test_compiled_verdicts() -> None:
    assert decide_compiled(["ok", "ok"]).rewrite
    got = decide_compiled(["ok", "XlaRuntimeError: out of memory", "ok"])
    assert not got.rewrite and got.differing == (1,) and "process 1: XlaRuntimeError: out of memory" in got.why


def test_single_process_pays_nothing(monkeypatch) -> None:
    # No job, so no vote is printed, posted or awaited (the exchange would fail without a client).
    assert _multihost.current_job() is None
    monkeypatch.setattr(_multihost.Job, "exchange", lambda *a, **k: pytest.fail("exchanged in a single process"))
    import jax

    import hlo_passes
    from examples import moe

    spec = moe.ProgramSpec(variant="concat", mesh="mesh1")
    mesh = moe.program_mesh(spec)
    fn, args = moe.program_fn(spec, mesh), moe.inputs(spec, mesh)
    fast = hlo_passes.jit(fn)
    np.testing.assert_array_equal(np.asarray(fast(*args)), np.asarray(jax.jit(fn)(*args)))
    assert fast.lower(*args).rewritten
    assert _multihost.reports_here() and _multihost.report_tag() == ""


def test_timeout_setting(monkeypatch) -> None:
    monkeypatch.delenv(_multihost.TIMEOUT_ENV, raising=False)
    assert _multihost._timeout_s() == _multihost.DEFAULT_TIMEOUT_S
    monkeypatch.setenv(_multihost.TIMEOUT_ENV, "2.5")
    assert _multihost._timeout_s() == 2.5
    for bad in ("soon", "0", "-1"):
        monkeypatch.setenv(_multihost.TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=_multihost.TIMEOUT_ENV):
            _multihost._timeout_s()
