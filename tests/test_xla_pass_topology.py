"""The pass inside XLA and compiles for a topology (ahead of time, compile-only devices).

XLA:TPU's compile for a topology through the chip's own client (jax's cross-compile) never returns
while a module transformation is registered, a bare no-op one too; through the topology's own
compile-only client it calls the transformation and returns (measured on the TPU machine:
benchmarks/results/tpu_aot_check.md, docs/xla-pass.md "Compiles for a topology").  So with the pass
installed a compile for a TPU topology goes through that client; one for another platform but CPU
(GPU: untried) is compiled without the pass (its hook taken off around it, one warning).  Here, on CPU:

* the decision (``xla_pass.compile_only_action``) for every case;
* the real paths on XLA:CPU's compile-only devices (``_jax_compat.compile_only_devices``): XLA:CPU
  runs the pass there (jax 0.11 and 0.12; jax 0.10.2's XLA:CPU has no compiler for a CPU topology);
  with CPU counted as TPU is, the compile goes through the topology's own client and is rewritten;
  with CPU counted as an untried platform, the pass steps aside (the test rule never called, one
  warning, XLA's module) and is back for the next compile (on jax 0.10.2 the compile for the topology
  then fails as it does without the pass), in the lint modes too;
* the note that XLA:TPU lowered ragged-dots to its own kernels, on the module captured on the chip.
"""
from __future__ import annotations

import threading
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import hlo_passes
from hlo_passes import _jax_compat as compat
from hlo_passes import xla_pass
from hlo_passes.passes import unregister

pytestmark = pytest.mark.jax_facing

RULES = Path(__file__).with_name("xla_pass_rules.py")


@pytest.fixture(scope="module")
def rules():
    names = hlo_passes.load_plugin(str(RULES))
    yield names
    for name in names:
        unregister(name)


@pytest.fixture(scope="module")
def plain_aot_text() -> str | None:
    """The step compiled for XLA:CPU's compile-only devices with no pass installed, or None where
    XLA:CPU cannot compile for a CPU topology (jax 0.10.2: NOT_FOUND, no compiler factory)."""
    try:
        return _aot_step(compat.compile_only_devices(jax.devices())).compile().as_text()
    except Exception as err:  # noqa: BLE001 - XLA's refusal, asserted below
        assert "No compiler factory for platform: cpu" in str(err)
        return None


@pytest.fixture
def off():
    yield
    hlo_passes.uninstall()


@pytest.mark.parametrize("platform,compile_only,mode,platforms,explicit,action", [
    ("tpu", True, "rewrite", ("tpu",), True, xla_pass.OWN_CLIENT),   # through the topology's own client
    ("tpu", True, "warn", ("tpu",), True, xla_pass.OWN_CLIENT),      # the lint modes alike
    ("tpu", True, "rewrite", ("cpu",), False, xla_pass.OWN_CLIENT),  # a CPU host compiling for a TPU topology
    ("tpu", True, "rewrite", (xla_pass.EVERY_PLATFORM,), False, xla_pass.OWN_CLIENT),  # $HLO_PASSES
    ("tpu", True, "rewrite", ("cpu",), True, None),                  # the user named the TPU away
    ("cuda", True, "rewrite", ("cuda",), True, xla_pass.ASIDE),      # GPU's untried: stepped aside
    ("tpu", False, "rewrite", ("tpu",), True, xla_pass.RUN),         # the chip present: the pass runs
    ("cpu", True, "rewrite", ("cpu",), True, xla_pass.RUN),          # XLA:CPU runs it for a topology
    ("tpu", True, None, (), False, None),                            # not installed
])
def test_what_the_pass_does_about_a_compile(platform, compile_only, mode, platforms, explicit, action) -> None:
    assert xla_pass.compile_only_action(platform, compile_only, mode=mode, platforms=platforms,
                                        explicit=explicit) == action
    for reason in (xla_pass.compile_only_reason(platform), xla_pass.not_reached_reason(platform)):
        assert f"{platform} topology" in reason and "hlo_passes.jit" in reason


def _aot_step(devices):
    """A sharded step lowered for ``devices`` (compile-only or present)."""
    mesh = jax.sharding.Mesh(np.array(devices[:4]), ("data",))
    shard = NamedSharding(mesh, P("data", None))

    def step(w, x):  # a new function object per call: jax compiles it anew
        h = jnp.tanh(x @ w + 0.25)
        return w - 0.1 * (x.T @ h) / x.shape[0], jnp.sum(h * h)

    rep = NamedSharding(mesh, P())
    return jax.jit(step, in_shardings=(rep, shard)).lower(
        jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=rep),
        jax.ShapeDtypeStruct((16, 4), jnp.float32, sharding=shard))


def _fallbacks(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, xla_pass.XlaPassFallbackWarning)]


def test_xla_cpu_runs_the_pass_in_a_compile_for_a_topology(rules, off, plain_aot_text) -> None:
    if plain_aot_text is None:
        pytest.skip("this jax's XLA:CPU has no compiler for a CPU topology (jax 0.10.2: NOT_FOUND, "
                    "No compiler factory for platform: cpu): nothing to rewrite there")
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        _aot_step(compat.compile_only_devices(jax.devices())).compile()
    assert _fallbacks(record) == []
    # XLA called the hook inside the compile for the topology and took the rewritten module.
    (outcome,) = hlo_passes.installed_report().modules
    assert outcome.module == "jit_step" and outcome.rewritten and outcome.fallback is None


def test_a_topology_s_own_client_compiles_it_with_the_pass(rules, off, monkeypatch, plain_aot_text) -> None:
    # CPU counted as TPU is: compiled through the topology's own compile-only client, not the chip's.
    monkeypatch.setattr(xla_pass, "COMPILE_ONLY_RUNS_THE_PASS", frozenset())
    monkeypatch.setattr(xla_pass, "COMPILE_ONLY_ON_ITS_OWN_CLIENT", frozenset({"cpu"}))
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    routed = compat._routed[0]
    aot = _aot_step(compat.compile_only_devices(jax.devices()))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        if plain_aot_text is None:  # jax 0.10.2's XLA:CPU: no compiler for a CPU topology, either way
            with pytest.raises(Exception, match="No compiler factory for platform: cpu"):
                aot.compile()
            assert compat._routed[0] == routed + 1
            return
        aot.compile()
    assert compat._routed[0] == routed + 1  # the chip's client was not asked
    assert _fallbacks(record) == []
    (outcome,) = hlo_passes.installed_report().modules
    assert outcome.module == "jit_step" and outcome.rewritten and outcome.fallback is None
    assert not getattr(compat._own_client, "on", False)  # outside such a compile, jax chooses again


def test_the_pass_steps_aside_for_a_topology_once_and_comes_back(rules, off, monkeypatch,
                                                                plain_aot_text) -> None:
    # CPU counted as a platform whose compile for a topology hangs: the real path of the guard.
    monkeypatch.setattr(xla_pass, "COMPILE_ONLY_RUNS_THE_PASS", frozenset())
    calls: list[int] = []
    real = xla_pass._transform
    monkeypatch.setattr(xla_pass, "_transform", lambda serialized, priced: calls.append(1) or real(serialized, priced))
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    aot = _aot_step(compat.compile_only_devices(jax.devices()))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        if plain_aot_text is not None:
            assert aot.compile().as_text().splitlines()[0] == plain_aot_text.splitlines()[0]
        else:
            with pytest.raises(Exception, match="No compiler factory for platform: cpu"):
                aot.compile()
    assert calls == []  # the hook was off: XLA never called it
    (message,) = _fallbacks(record)
    assert "jit_step compiled as XLA optimized it" in message and "cpu topology" in message
    (outcome,) = hlo_passes.installed_report().modules
    assert outcome.module == "jit_step" and "compiled ahead of time" in (outcome.fallback or "")
    # Back for the next compile, on the devices present: rewritten.
    _aot_step(jax.devices()).compile()
    assert calls, "the hook did not come back after the compile for the topology"
    assert [m.module for m in hlo_passes.installed_report().modules if m.rewritten] == ["jit_step"]


def test_the_lint_steps_aside_too_and_says_so_once(rules, off, monkeypatch, plain_aot_text) -> None:
    from hlo_passes.jax_hook import LintSkippedWarning

    monkeypatch.setattr(xla_pass, "COMPILE_ONLY_RUNS_THE_PASS", frozenset())
    calls: list[int] = []
    real = xla_pass._transform
    monkeypatch.setattr(xla_pass, "_transform", lambda serialized, priced: calls.append(1) or real(serialized, priced))
    hlo_passes.install("warn", platforms="cpu", passes=["XPA001"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for _ in range(2):  # the same module again: said once
            try:
                _aot_step(compat.compile_only_devices(jax.devices())).compile()
            except Exception as err:  # noqa: BLE001 - jax 0.10.2's XLA:CPU: no compiler for a topology
                assert plain_aot_text is None and "No compiler factory" in str(err)
    assert calls == []
    (message,) = [str(w.message) for w in record if issubclass(w.category, LintSkippedWarning)]
    assert message.startswith("hlo_passes.install could not lint jit_step (compiled ahead of time for a cpu topology")


def test_compiles_wait_while_the_pass_is_aside(off) -> None:
    gate = xla_pass._CompileGate()
    order: list[str] = []
    aside_in, release = threading.Event(), threading.Event()

    def aot() -> None:
        with gate.aside("tpu"):
            order.append("aside")
            aside_in.set()
            release.wait(5)
            order.append("back")

    def compile_tpu() -> None:
        with gate.compiling("tpu"):
            order.append("tpu compile")

    def compile_cpu() -> None:
        with gate.compiling("cpu"):
            order.append("cpu compile")

    t = threading.Thread(target=aot)
    t.start()
    assert aside_in.wait(5)
    waiting = threading.Thread(target=compile_tpu)
    waiting.start()
    compile_cpu()  # another platform does not wait
    time.sleep(0.2)
    assert order == ["aside", "cpu compile"]  # the TPU compile waits for the hook to be back
    release.set()
    t.join(5)
    waiting.join(5)
    assert order == ["aside", "cpu compile", "back", "tpu compile"]


# ---------------------------------------------------------------------------
# On the chip: ragged-dots that XLA:TPU lowered to its own kernels before the pass runs

# The shape of what XLA:TPU hands the pass for a grouped matmul (a Mosaic kernel where the
# ragged-dot was, its metadata still naming jax's op); tests/data/tpu_ragged_prescheduler.hlo is
# the module captured on the chip (tools/tpu_aot_check.py, chip_ragged_note).
KERNEL_MODULE = """HloModule jit_moe_layer, entry_computation_layout={(f32[64,32]{1,0}, f32[4,32,16]{2,1,0}, s32[4]{0})->f32[64,16]{1,0}}

ENTRY main {
  x = f32[64,32]{1,0} parameter(0)
  w = f32[4,32,16]{2,1,0} parameter(1)
  gs = s32[4]{0} parameter(2)
  ROOT gmm = f32[64,16]{1,0} custom-call(gs, x, w), custom_call_target="tpu_custom_call", backend_config="{}", metadata={op_name="jit(moe_layer)/ragged_dot_general" source_file="moe_mask.py" source_line=62}
}
"""
CAPTURED = Path(__file__).with_name("data") / "tpu_ragged_prescheduler.hlo"


def _kernel_modules() -> list[str]:
    return [KERNEL_MODULE] + ([CAPTURED.read_text()] if CAPTURED.exists() else [])


@pytest.mark.parametrize("which", range(len(_kernel_modules())))
def test_ragged_dots_xla_tpu_lowered_are_noted_once(off, which) -> None:
    text = _kernel_modules()[which]
    proto = compat.hlo_text_to_proto(text)
    hlo_passes.install("rewrite", platforms="cpu", passes=["MOE005", "MOE006"])
    for _ in range(2):  # said once, not per module
        assert xla_pass._on_compile(proto, platform="tpu") is None
    report = hlo_passes.installed_report()
    (note,) = report.notes
    assert "already lowered by XLA:TPU to its own kernels" in note and "MOE005, MOE006 cannot look" in note
    assert f"note: {note}" in str(report)
    assert report.fallbacks == []


def test_no_note_without_a_rule_over_ragged_dots(off) -> None:
    hlo_passes.install("rewrite", platforms="cpu", passes=["MOE001", "MOE002"])  # the default set
    assert xla_pass._on_compile(compat.hlo_text_to_proto(KERNEL_MODULE), platform="tpu") is None
    report = hlo_passes.installed_report()
    assert report.notes == [] and report.fallbacks == []
