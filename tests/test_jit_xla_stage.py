"""``hlo_passes.jit``'s own compile runs the optimized-HLO stage (issue 46, hlo_passes/xla_stage.py).

The rules of the pass inside XLA run on the module XLA makes of the jit's program, for that compile
only: a weight gradient whose two GMMs are kept as written (XLA:CPU's dots round by their shape) is
fused there by one combined reduce-scatter of both results, which StableHLO cannot write (its
reduce_scatter takes one operand).  The transformation is registered for the duration of the
jit's ``compile()`` and acts on the module that carries the jit's token only: a plain ``jax.jit``
compiled meanwhile in another thread is untouched; with ``install()`` active the jit registers
nothing (the installed pass rewrites the module, once); a stage that fails is one
``RewriteFallbackWarning``, XLA's module kept.
"""
from __future__ import annotations

import threading

import jax
import numpy as np
import pytest

import hlo_passes
from examples import remat_scan_train as user
from hlo_passes import _jax_compat as compat
from hlo_passes import xla_stage
from hlo_passes.diagnostics import record_of
from hlo_passes.gmm.target import dots_round_by_shape_here
from hlo_passes.jax_hook import RewriteFallbackWarning

# One layer: XLA drops the scan's loops; the forward's gathers, their recomputation and the weight
# gradient's two reduce-scatters are each one site (3 all-gathers, 3 reduce-scatters as written).
LAYERS = 1


def _step():
    mesh = user.make_mesh()
    init, step = user.make_train_step(mesh)
    params, x, gs = user.inputs(mesh, layers=LAYERS)
    return step, (init(params), x, gs)


def _counts(text: str) -> tuple[int, int]:
    c = user.collectives(text)
    return c["all-gather"], c["reduce-scatter"]


def _combined(text: str) -> list[str]:
    """The reduce-scatters of a tuple result: one op reducing several arrays (the combined form)."""
    return [line for line in text.splitlines() if " reduce-scatter(" in line
            and line.split("=", 1)[1].lstrip().startswith("(")]


def test_the_kept_gradient_gmms_reductions_are_combined_in_the_jits_compile() -> None:
    plain_losses, plain_text = user.train(2, layers=LAYERS)
    losses, text = user.train(2, layers=LAYERS, jit=hlo_passes.jit)
    assert _counts(plain_text) == (3, 3)
    # The hand fix's counts through the jit's default arguments, the losses jax.jit's bit for bit.
    assert _counts(text) == (2, 2), user.collectives(text)
    assert losses == plain_losses
    step, args = _step()
    low = hlo_passes.jit(step).lower(*args)
    assert low.stage is None  # lower() compiles nothing
    low.compile()
    assert low.stage is not None and low.stage.reached and low.stage.error is None, low.stage_skipped
    (grad,) = [s for s in low.report if s.rule == "moe-gradient-fusion"]
    assert grad.rewritten and not record_of(grad).as_written, str(low)
    if dots_round_by_shape_here("cpu"):
        # Fused by the stage: one combined reduce-scatter of both kept GMMs' results, no copy; its
        # record (one per site) replaces the lowered text's "does not pay" one, at the user's line.
        assert low.stage.rewritten and grad in low.stage.sites
        assert (grad.before.count, grad.after.count, grad.copies_added) == (2, 1, 0)
        assert "combined reduce-scatter" in (grad.details.gmms_kept or "")
        assert len(_combined(text)) == 1, _combined(text)
        assert grad.location.source and grad.location.source.rsplit(":", 1)[0].endswith("remat_scan_train.py")
        # Its claim is the compiled module's, not held again: the claims still to hold are the gather
        # sites' the lowered text rewrote, against XLA's original, compiled when they were first read
        # (``report`` above), never by the compile itself.
        assert grad not in low.pending_claims()
        assert {s.rule for s in low.pending_claims()} == {"moe-gather-fusion"}
        assert low.compiled_original_text is not None
    compiled_only = hlo_passes.jit(step).lower(*args)
    compiled_only.compile()
    assert compiled_only.compiled_original_text is None  # nothing read: the original was not compiled
    # The lowered text's second gather site (the recomputation, read through the forward's there) is
    # one XLA's compiled original runs once already: its near miss xla-computed-once, not a saving; the
    # claims left add up to what the compiled step saves (3 / 3 -> 2 / 2).
    assert [line for line in str(low).splitlines() if line.startswith("hlo_passes.jit")] == \
        ["hlo_passes.jit(train_step): rewritten: 2 sites"], str(low)
    assert any(m.check == "xla-computed-once" for m in low.near_misses), str(low)
    assert sum(s.before.count - s.after.count for s in low.report if s.rewritten) == \
        sum(_counts(plain_text)) - sum(_counts(text))


def test_a_plain_jax_jit_compiled_meanwhile_in_another_thread_is_untouched(monkeypatch) -> None:
    """While the jit's stage is registered (XLA inside the jit's compile), another thread compiles a
    program with sites by plain ``jax.jit``: the transformation is called for it and hands it back."""
    step, args = _step()
    other, other_args = _step()
    reference = jax.jit(lambda *a: other(*a)).lower(*other_args).compile().as_text()
    seen: list[tuple[str, bool]] = []
    inside, done = threading.Event(), threading.Event()
    result: dict[str, str] = {}
    original_on_compile = xla_stage._on_compile
    original_transform = xla_stage.Stage.transform

    def spy(serialized: bytes) -> bytes | None:
        out = original_on_compile(serialized)
        seen.append((str(compat.hlo_module_from_proto(serialized).name), out is not None))
        return out

    def held(self, serialized: bytes) -> bytes | None:
        inside.set()  # the jit's compile is under way, the stage registered: the other compiles now
        assert done.wait(300)
        return original_transform(self, serialized)

    def compile_other() -> None:
        assert inside.wait(300)
        try:
            result["text"] = jax.jit(lambda *a: other(*a)).lower(*other_args).compile().as_text()
        finally:
            done.set()

    monkeypatch.setattr(xla_stage, "_on_compile", spy)
    monkeypatch.setattr(xla_stage.Stage, "transform", held)
    thread = threading.Thread(target=compile_other)
    thread.start()
    low = hlo_passes.jit(step).lower(*args)
    compiled = low.compile()
    thread.join(300)
    assert "text" in result
    # The other program passed through the registered transformation and came back unchanged ...
    assert ("jit__lambda", False) in seen, seen
    assert _counts(result["text"]) == _counts(reference) == (3, 3)
    assert _combined(result["text"]) == []
    # ... the jit's own was rewritten, and nothing stays registered.
    assert _counts(compiled.as_text()) == (2, 2)
    assert not xla_stage._registered and not xla_stage._pending


def test_with_the_pass_installed_the_jit_registers_nothing(monkeypatch) -> None:
    step, args = _step()
    calls: list[str] = []
    register = compat.register_module_transformation

    def recording(callback, name, platforms=None):
        calls.append(name)
        return register(callback, name, platforms)

    hlo_passes.install(mode="rewrite")
    try:
        monkeypatch.setattr(compat, "register_module_transformation", recording)
        low = hlo_passes.jit(step).lower(*args)
        compiled = low.compile()
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    assert xla_stage.HOOK_NAME not in calls
    assert low.stage is None and "installed" in (low.stage_skipped or ""), low.stage_skipped
    # Rewritten once: the lowered text's sites by the jit, what is left by the installed pass.
    assert _counts(compiled.as_text()) == (2, 2)
    assert report.fallbacks == []


def test_where_the_stage_does_not_run() -> None:
    assert xla_stage.why_not("cpu", compile_only=False, multi_process=False) is None
    assert "tested on cpu only" in (xla_stage.why_not("tpu", compile_only=False, multi_process=False) or "")
    assert "topology" in (xla_stage.why_not("cpu", compile_only=True, multi_process=False) or "")
    assert "multi-process" in (xla_stage.why_not("cpu", compile_only=False, multi_process=True) or "")


def test_the_stage_s_module_is_keyed_apart_from_jax_jit_s() -> None:
    """The token is part of the module jax serializes (its persistent cache key), deterministic (the
    next process finds the executable again), and names the release, the passes and the program."""
    step, args = _step()
    lowered = jax.jit(step).lower(*args)
    marked, token = xla_stage.marked(lowered, None)
    again, same = xla_stage.marked(jax.jit(step).lower(*args), None)
    assert token == same and f"hlo_passes={hlo_passes.__version__}" in token
    assert xla_stage.STAGE_ATTRIBUTE in marked.as_text() and xla_stage.STAGE_ATTRIBUTE not in lowered.as_text()
    _, other = xla_stage.marked(jax.jit(lambda s, x, g: step(s, x * 2, g)).lower(*args), None)
    assert other != token


def test_a_stage_that_fails_is_warned_once_and_xla_s_module_runs(monkeypatch) -> None:
    """A bug of the rules on the optimized module: one ``RewriteFallbackWarning`` as the jit's other
    fallbacks, XLA's module of the (lowered-text-rewritten) program compiled and run, values jax.jit's."""
    step, args = _step()

    def broken(*a, **k):
        raise RuntimeError("a rule's bug")

    monkeypatch.setattr(xla_stage, "rewrite_module_text", broken)
    jitted = hlo_passes.jit(step)
    with pytest.warns(RewriteFallbackWarning, match="optimized-HLO stage could not rewrite .*a rule's bug"):
        low = jitted.lower(*args)
        compiled = low.compile()
    assert low.stage is not None and low.stage.error and not low.stage.rewritten
    assert "optimized-HLO stage: XLA's module kept (RuntimeError: a rule's bug)" in str(low)
    assert _combined(compiled.as_text()) == []
    (_, loss), (_, want) = compiled(*args), jax.jit(step)(*args)
    assert float(loss) == float(want)


def test_a_compile_for_a_topology_runs_without_the_stage() -> None:
    """Compile-only devices (an ahead-of-time compile for a topology): the stage never registers
    there (XLA:TPU's compile for a topology never returns with a transformation registered)."""
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = compat.compile_only_devices(jax.devices())
    mesh = Mesh(np.array(devices[:8]), ("x",))
    rep, shard = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
    low = hlo_passes.jit(lambda w, x: x @ w, in_shardings=(rep, shard)).lower(
        jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=rep),
        jax.ShapeDtypeStruct((16, 4), jnp.float32, sharding=shard))
    assert compat.lowered_compile_only(low._lowered)
    try:
        low.compile()
    except Exception as err:  # noqa: BLE001 - jax 0.10.2's XLA:CPU has no compiler for a CPU topology
        assert "No compiler factory for platform: cpu" in str(err), err
    assert low.stage is None and "topology" in (low.stage_skipped or ""), low.stage_skipped
    assert not xla_stage._registered
    # The devices present are no topology's.
    assert not compat.lowered_compile_only(hlo_passes.jit(lambda x: x + 1).lower(jnp.ones(4))._lowered)
