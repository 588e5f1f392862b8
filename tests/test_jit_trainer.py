"""hlo_passes.jit in a real trainer (issue 28): the ahead-of-time ``step.lower(*args).compile()``
trainers do is the executable the calls then use (backend compiles counted with jax's own
monitoring events), ``jax.jit = hlo_passes.jit`` before importing a trainer works (and so does
``functools.partial(hlo_passes.jit, passes=[...])`` in its place), and the INFO block is said
when a program is compiled, not again on every ``explain()`` or ``lower()``."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import jax
import numpy as np
import pytest

import hlo_passes
from hlo_passes import jax_hook, runtime
from programs import REPO_ROOT
from test_jax_hook import UNFUSED, _assert_same, _program, rewrites_xla_rejects

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing

_BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"


@pytest.fixture(autouse=True, scope="module")
def _asked_the_backend() -> None:
    """hlo_passes.jit asks the backend once per process whether its dots round by their shape (a tiny
    compile of two dots, docs/optimized-hlo.md): asked before any test counts its compiles, whichever
    test of the suite runs first."""
    from hlo_passes import _jax_compat

    _jax_compat.dots_round_by_shape(jax.default_backend())


@contextlib.contextmanager
def backend_compiles() -> Iterator[list[str]]:
    """The backend compiles (XLA compiling a program) that happen inside the block, as jax
    reports them to its public monitoring listeners."""
    seen: list[str] = []

    def listener(event: str, duration: float, **kwargs: object) -> None:
        if event == _BACKEND_COMPILE:
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def test_a_call_after_an_ahead_of_time_compile_reuses_its_executable() -> None:
    fn, args = _program(UNFUSED.replace(mode="grad"))
    want = jax.jit(fn)(*args)
    step = hlo_passes.jit(fn)
    with backend_compiles() as compiles:
        compiled = step.lower(*args).compile()
        assert len(compiles) == 1
        got = step(*args)
        again = step(*args)
    assert len(compiles) == 1, "the call compiled the rewritten program again"
    assert (step.cache_info().hits, step.cache_info().misses) == (2, 1)
    _assert_same(got, want, exact=False)
    _assert_same(again, got)
    # It is the rewritten program (fewer gathers than jax's), and the very executable compile() gave.
    assert runtime.count_ops(compiled.as_text())["all-gather"] < runtime.count_ops(
        jax.jit(fn).lower(*args).compile().as_text())["all-gather"]
    _assert_same(compiled(*args), got)
    # The other way round: compile() after a call returns the cached executable, compiling nothing.
    with backend_compiles() as compiles:
        assert step.lower(*args).compile() is compiled
    assert compiles == []


def test_an_ahead_of_time_compile_xla_rejects_falls_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fn, args = _program(UNFUSED)
    rewrites_xla_rejects(monkeypatch)
    step = hlo_passes.jit(fn)
    with pytest.warns(jax_hook.RewriteFallbackWarning, match="XLA rejected the rewritten module"):
        compiled = step.lower(*args).compile()  # a trainer's AOT compile never crashes on a rewrite
    with warnings.catch_warnings(), backend_compiles() as compiles:
        warnings.simplefilter("error")
        got = step(*args)
    assert compiles == [] and step.cache_info().misses == 1
    _assert_same(got, jax.jit(fn)(*args))
    _assert_same(compiled(*args), got)


def _info(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hlo_passes" and r.levelno == logging.INFO]


def test_the_info_block_is_logged_when_compiled_not_when_explained(caplog: pytest.LogCaptureFixture) -> None:
    fn, args = _program(UNFUSED)
    step = hlo_passes.jit(fn, kernel="xla")
    with caplog.at_level(logging.INFO, logger="hlo_passes"):
        summary = step.explain(*args)
        step.explain(*args)
        step.lower(*args)
        assert _info(caplog) == []  # explaining and lowering compile nothing and say nothing
        step(*args)
        block = _info(caplog)
        # The same lines, the claim held by then: explain() before compiling says it is the lowered
        # text's, the compile held it against XLA's program (hlo_passes.claims).
        assert block == [line.strip().replace(" (as written; XLA may combine)", "") for line in summary.splitlines()]
        assert "as written" in summary
        step(*args)
        step.explain(*args)
        assert _info(caplog) == block  # said once, when the program was compiled
        # Compiled ahead of time: said by compile(), once; the call that reuses it says nothing.
        aot = hlo_passes.jit(fn, kernel="xla")
        lowered = aot.lower(*args)
        assert _info(caplog) == block
        lowered.compile()
        aot(*args)
        assert _info(caplog) == block * 2


def test_passes_by_rule_code() -> None:
    fn, args = _program(UNFUSED)
    by_code = hlo_passes.jit(fn, passes=["MOE001"], kernel="xla").lower(*args)
    assert [s.rule for s in by_code.report] == ["moe-gather-fusion"]
    with pytest.raises(ValueError, match="unknown pass 'MOE999'"):
        hlo_passes.jit(fn, passes=["MOE999"])


# ---- jax.jit = hlo_passes.jit before the trainer is imported --------------------------------------

# A trainer written as trainers are: jax.jit at import (a decorated helper it calls inside the
# step, so under a trace), functools.partial(jax.jit, donate_argnums=...) on the step, optax,
# and the step compiled ahead of time before the loop.
TRAINER = '''
import functools

import jax
import jax.numpy as jnp
import optax

from examples import moe

SPEC = moe.ProgramSpec(variant="concat", mesh="mesh2")


@jax.jit
def mse(out):
    return jnp.mean(jnp.square(out.astype(jnp.float32)))


def main(steps=3):
    mesh = moe.program_mesh(SPEC)
    forward = moe.program_fn(SPEC, mesh)
    optimizer = optax.adam(1e-2)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def train_step(params, opt_state, x, gs):
        def loss(p):
            return mse(forward(x, gs, p["w"], p["wo"]))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    x, gs, w, wo = moe.inputs(SPEC, mesh)
    params = {"w": w, "wo": wo}
    opt_state = optimizer.init(params)
    lowered = train_step.lower(params, opt_state, x, gs)
    compiled = lowered.compile()
    losses = []
    for _ in range(steps):
        params, opt_state, loss = train_step(params, opt_state, x, gs)
        losses.append(float(loss))
    return train_step, lowered, compiled, losses, params
'''

DRIVER = '''
import functools, importlib, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax
import numpy as np
import hlo_passes
from hlo_passes import runtime

jax_jit = jax.jit
compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: compiles.append(event) if event == "/jax/core/compile/backend_compile_duration" else None)
out = {}
# "warm-up" first: what any first run compiles once per process (optax's state, the inputs' placement),
# and hlo_passes.jit's one question to the backend per process (one tiny compile of two dots: whether
# its dots round by their shape, docs/optimized-hlo.md), asked here so that each run counts its own.
from hlo_passes import _jax_compat
_jax_compat.dots_round_by_shape(jax.default_backend())
for mode in ("warm-up", "plain", "patched", "partial"):
    jax.jit = {"warm-up": jax_jit, "plain": jax_jit, "patched": hlo_passes.jit,
               "partial": functools.partial(hlo_passes.jit, passes=["MOE001", "MOE002"])}[mode]
    import trainer
    trainer = importlib.reload(trainer)  # imported after the patch, as a user's script would
    del compiles[:]
    step, lowered, compiled, losses, params = trainer.main()
    out[mode] = {
        "step": type(step).__name__, "helper": type(trainer.mse).__name__, "compiles": len(compiles),
        "losses": losses, "gathers": runtime.count_ops(compiled.as_text())["all-gather"],
        "report": sorted({s.rule for s in getattr(lowered, "report", [])}),
        "w": np.asarray(params["w"]).tolist(),
    }
jax.jit = jax_jit
print(json.dumps(out))
'''


def test_jax_jit_patched_before_the_trainer_is_imported(tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text(textwrap.dedent(TRAINER))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO_ROOT), *sys.path])}
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, env=env,
                          timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert "RecursionError" not in proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    plain, patched, partial = out["plain"], out["patched"], out["partial"]
    assert plain["step"] != "Jitted" and plain["compiles"] >= 1
    for run in (patched, partial):
        # Every jax.jit of the trainer became hlo_passes.jit, the step was rewritten (both rules),
        # compiled once ahead of time and reused by the loop, exactly as many compiles as jax.jit.
        assert (run["step"], run["helper"]) == ("Jitted", "Jitted")
        assert run["report"] == ["moe-gather-fusion", "moe-gradient-fusion"], run["report"]
        assert run["gathers"] < plain["gathers"]
        # As many as jax.jit's while it trains: the original, against which the jit holds its claims
        # (issue 47: XLA may already run both halves in one op), is compiled only when the report is
        # first read ("report" below, counted before it), never by the step's compile.
        assert run["compiles"] == plain["compiles"], (run["compiles"], plain["compiles"])
        # The same training: f32 programs, equal at f32 rounding after 3 adam steps.
        np.testing.assert_allclose(run["losses"], plain["losses"], rtol=1e-5)
        np.testing.assert_allclose(np.asarray(run["w"]), np.asarray(plain["w"]), rtol=1e-5, atol=1e-6)
