"""hlo_passes.jit against jax.jit on 8 CPU devices; lint_fn; install()/uninstall()."""
from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo_passes
from examples import moe
from examples.moe import ProgramSpec
from hlo_passes import _jax_compat as compat
from hlo_passes import jax_hook, runtime, xla_pass
from hlo_passes.passes import register, unregister

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing

UNFUSED = ProgramSpec(variant="concat", mesh="mesh2")
FUSED = ProgramSpec(variant="fused", mesh="mesh2")


def _program(spec: ProgramSpec):
    mesh = moe.program_mesh(spec)
    return moe.program_fn(spec, mesh), moe.inputs(spec, mesh)


def _gathers(compiled) -> int:
    return runtime.count_ops(compiled.as_text())["all-gather"]


def _assert_same(got, want, exact: bool = True) -> None:
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, jax.Array)
        assert g.sharding == w.sharding, (g.sharding, w.sharding)
        assert g.shape == w.shape and g.dtype == w.dtype
        if exact:
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["forward", "grad", "scan"])
def test_jit_matches_jax_jit_with_fewer_gathers(mode: str) -> None:
    spec = UNFUSED.replace(mode=mode)
    fn, args = _program(spec)
    want = jax.jit(fn)(*args)
    fast = hlo_passes.jit(fn)
    got = fast(*args)
    # Same function of the same inputs: the gathered weight is the same
    # bytes either way, so results agree bit for bit.
    _assert_same(got, want, exact=mode != "grad")
    info = fast.cache_info()
    assert (info.hits, info.misses, info.size) == (0, 1, 1)
    again = fast(*args)
    info = fast.cache_info()
    assert (info.hits, info.misses, info.size) == (1, 1, 1)
    _assert_same(again, got)

    lowered = fast.lower(*args)
    # Every pass runs by default; the gradient pass may add sites to grad programs.
    assert [s.form for s in lowered.report if s.rule == "moe-gather-fusion"] == ["concat"]
    assert lowered.rewritten and not lowered.fell_back
    stages = len(moe.gather_stages(spec.mesh))
    assert _gathers(jax.jit(fn).lower(*args).compile()) == 2 * stages
    assert _gathers(lowered.compile()) == stages
    # The rewritten StableHLO is what as_text shows; jax's own lowering of the
    # same function is untouched (lowerings are cached and shared).
    assert lowered.as_text().count("stablehlo.all_gather") < lowered.original.as_text().count("stablehlo.all_gather")
    assert jax.jit(fn).lower(*args).as_text() == lowered.original.as_text()
    assert _gathers(jax.jit(fn).lower(*args).compile()) == 2 * stages


def test_in_and_out_shardings_are_jax_s() -> None:
    fn, args = _program(UNFUSED)
    mesh = moe.program_mesh(UNFUSED)
    rows = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(("fsdp", "fsdp_transpose")))
    kw = dict(in_shardings=tuple(a.sharding for a in args), out_shardings=rows)
    fast = hlo_passes.jit(fn, **kw)
    got = fast(*args)
    want = jax.jit(fn, **kw)(*args)
    assert got.sharding == rows
    _assert_same(got, want)
    low = fast.lower(*args)
    assert [s.form for s in low.report] == ["concat"]
    assert _gathers(low.compile()) < _gathers(jax.jit(fn, **kw).lower(*args).compile())


def test_fused_program_passes_through() -> None:
    fn, args = _program(FUSED)
    # kernel="xla": on CPU the default (auto) hands the GMMs to the cpu-ffi kernel.
    fast = hlo_passes.jit(fn, kernel="xla")
    lowered = fast.lower(*args)
    assert lowered.report == [] and not lowered.rewritten
    assert lowered.as_text() == jax.jit(fn).lower(*args).as_text()
    _assert_same(fast(*args), jax.jit(fn)(*args))


def test_cache_is_per_signature_static_args_and_donation() -> None:
    calls = []

    def f(x, n, *, scale):
        calls.append(1)  # counts traces
        return jnp.sin(x) * n + scale

    fast = hlo_passes.jit(f, static_argnums=1, static_argnames="scale", donate_argnums=0)
    ref = jax.jit(f, static_argnums=1, static_argnames="scale", donate_argnums=0)
    x = np.arange(8, dtype=np.float32)
    for n, scale, arr in [(2, 1.0, x), (2, 1.0, x), (3, 1.0, x), (3, 0.5, x), (2, 1.0, x[:4]),
                          (2, 1.0, x.astype(np.float64).astype(np.float32) + 1)]:
        ref_in = jnp.asarray(arr)
        want = ref(ref_in, n, scale=scale)
        donated = jnp.asarray(arr)
        got = fast(donated, n, scale=scale)
        _assert_same(got, want)
        # Donation is jax's: the buffer is consumed exactly when jax.jit consumes it.
        assert donated.is_deleted() == ref_in.is_deleted()
    info = fast.cache_info()
    # Keys: (n=2, 1.0, [8]) twice + new values, (3, 1.0), (3, 0.5), (2, 1.0, [4]);
    # the last call has the first call's signature.
    assert (info.misses, info.hits) == (4, 2)
    sharded = jax.device_put(x, jax.sharding.NamedSharding(jax.make_mesh((8,), ("d",)), jax.sharding.PartitionSpec("d")))
    got = fast(sharded, 2, scale=1.0)
    assert fast.cache_info().misses == 5  # a new input sharding is a new executable
    _assert_same(got, ref(jax.device_put(x, sharded.sharding), 2, scale=1.0))


class _Explode:
    name = "test-explode"
    description = "raises, for the tests"

    def apply(self, module, *, rewrite):
        raise RuntimeError("boom")


@pytest.fixture
def exploding_pass():
    register(_Explode())
    yield "test-explode"
    unregister("test-explode")


def test_failing_pass_falls_back_with_one_warning(exploding_pass: str) -> None:
    fn, args = _program(UNFUSED)
    fast = hlo_passes.jit(fn, passes=["moe-gather-fusion", exploding_pass])
    with pytest.warns(jax_hook.RewriteFallbackWarning, match="a pass failed.*boom") as record:
        got = fast(*args)
        # A second signature fails the same way: still one warning.
        x2 = jax.device_put(np.asarray(args[0]) * 2, args[0].sharding)
        got2 = fast(x2, *args[1:])
    assert len([w for w in record if issubclass(w.category, jax_hook.RewriteFallbackWarning)]) == 1
    _assert_same(got, jax.jit(fn)(*args))
    _assert_same(got2, jax.jit(fn)(x2, *args[1:]))
    lowered = fast.lower(*args)
    assert lowered.fell_back and not lowered.rewritten
    assert _gathers(lowered.compile()) == 4


def rewrites_xla_rejects(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every rewrite of hlo_passes.jit one that XLA refuses to compile."""
    real_rewrite = jax_hook._rewrite

    def broken_rewrite(lowered, passes, *kernel_and_platform):
        new, result, gmms = real_rewrite(lowered, passes, *kernel_and_platform)
        assert result.changed
        # Valid MLIR that XLA refuses: a side-effecting custom call to a
        # target nobody registered, without the sharding SPMD needs.
        text = new.as_text()
        ret = re.search(r"^(\s*)return ", text, re.M)
        text = (text[:ret.start()] + ret.group(1)
                + "stablehlo.custom_call @hlo_passes_test_no_such_target() {has_side_effect = true} : () -> ()\n"
                + text[ret.start():])
        return compat.lowered_with_module(lowered, compat.parse_mlir(text)), result, gmms

    monkeypatch.setattr(jax_hook, "_rewrite", broken_rewrite)


def test_module_xla_rejects_falls_back(monkeypatch) -> None:
    fn, args = _program(UNFUSED)
    rewrites_xla_rejects(monkeypatch)
    fast = hlo_passes.jit(fn)
    with pytest.raises(Exception):
        fast.lower(*args)._lowered.compile()  # the broken module really does not compile
    with pytest.warns(jax_hook.RewriteFallbackWarning, match="XLA rejected the rewritten module"):
        got = fast(*args)
    _assert_same(got, jax.jit(fn)(*args))
    assert fast.cache_info().misses == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _assert_same(fast(*args), got)  # cached fallback: no new warning
    assert fast.cache_info().hits == 1


def test_lint_fn_for_model_unit_tests() -> None:
    fn, args = _program(UNFUSED)
    (finding,) = hlo_passes.lint_fn(fn, *args)
    assert finding.rule == "MOE001" and finding.bytes_saved == 73728
    assert finding.op_name and "concatenate" in finding.op_name
    assert finding.source and finding.source.split(":")[0].endswith("moe.py")
    assert finding.path.startswith("<lowered ")
    fused_fn, fused_args = _program(FUSED)
    assert hlo_passes.lint_fn(fused_fn, *fused_args) == []
    assert hlo_passes.lint_fn(jax.jit(fused_fn), *fused_args) == []
    assert [f.rule for f in hlo_passes.lint_fn(hlo_passes.jit(fn), *args)] == ["MOE001"]


# ---- install(): every module XLA compiles is linted ------------------------------------------

# XLA:CPU's fusion passes hide the slices inside fusions by the time the hook
# sees the module; with them off the pattern stays in plain sight.
NO_FUSION = {"xla_disable_hlo_passes": "fusion,cpu-instruction-fusion,loop-fusion,fusion-wrapper"}


@pytest.fixture
def installed():
    hlo_passes.install()
    yield
    hlo_passes.uninstall()


def _moe_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, jax_hook.MoELintWarning)]


def test_install_warns_once_for_unfused_program(installed) -> None:
    fn, args = _program(UNFUSED)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = jax.jit(fn, compiler_options=NO_FUSION)(*args)
        fn2, _ = _program(UNFUSED)  # a fresh function: jax compiles it again
        jax.jit(fn2, compiler_options=NO_FUSION)(*args)
    (message,) = _moe_warnings(record)
    assert message.startswith("MOE001 in jit_")
    assert "concatenate" in message and "fusing saves" in message
    assert [f.rule for f in xla_pass.installed_findings()] == ["MOE001"]
    # Reporting changes nothing: same values as without the hook.
    hlo_passes.uninstall()
    _assert_same(got, jax.jit(_program(UNFUSED)[0], compiler_options=NO_FUSION)(*args))


def test_install_is_silent_for_fused_program(installed) -> None:
    fn, args = _program(FUSED)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        jax.jit(fn, compiler_options=NO_FUSION)(*args)
        jax.jit(_program(FUSED)[0])(*args)
    assert _moe_warnings(record) == []


def test_uninstall_stops_reporting() -> None:
    hlo_passes.install()
    assert xla_pass.installed() == "warn"
    assert hlo_passes.uninstall() is True
    assert hlo_passes.uninstall() is False
    fn, args = _program(UNFUSED)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        jax.jit(fn, compiler_options=NO_FUSION)(*args)
    assert _moe_warnings(record) == []


def test_install_with_default_compiler_options() -> None:
    """With XLA's default passes the hook sees optimized modules, where the
    slices sit inside fusions: the pattern is still found and warned about."""
    fn, args = _program(UNFUSED)
    compiled_text = jax.jit(_program(UNFUSED)[0]).lower(*args).compile().as_text()
    detectable = bool(hlo_passes.lint(hlo_passes.parse(compiled_text)))
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            got = jax.jit(fn)(*args)
    finally:
        hlo_passes.uninstall()
    _assert_same(got, jax.jit(_program(UNFUSED)[0])(*args))
    # The rule sees the split gathers through XLA's fusions (reported, not rewritten).
    assert detectable
    (message,) = _moe_warnings(record)
    assert message.startswith("MOE001 in jit_")


@pytest.mark.slow
def test_moe_fsdp_example_runs() -> None:
    import os
    import subprocess
    import sys

    from programs import REPO_ROOT

    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "examples" / "moe_fsdp.py"), "--runs", "1"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "compiled all-gathers 4 -> 2; max |difference| of results 0" in out
    assert "all-gathers 4 -> 2; saves" in out and "shardings equal: True" in out
    assert "results unchanged: True" in out


def _lint_warnings(record, category) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, category)]


@pytest.mark.parametrize("spec", [
    moe.ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="forward",
                    cfg=moe.MoEConfig(dtype="bfloat16", param_dtype="float32")),
    moe.ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan_grad", device_order="permuted"),
], ids=lambda s: s.name)
def test_install_warns_on_plain_jit_of_the_issue_programs(spec) -> None:
    """Compiled with plain jax.jit and XLA's default passes (what the hook sees is
    optimized: slices and bf16 converts inside fusions, a scan's stacked weights)."""
    fn, args = moe.build(spec)
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            jax.block_until_ready(fn(*args))
    finally:
        hlo_passes.uninstall()
    moe_warnings = _lint_warnings(record, jax_hook.MoELintWarning)
    assert any(m.startswith("MOE001 in jit_moe_body") for m in moe_warnings), moe_warnings
    # The scanned training step's weight gradient too: its halves ride in the one all-reduce
    # XLA:CPU combines them into (read taken apart: rewrites/split/held.py).
    assert all(m.startswith(("MOE001 in jit_moe_body", "MOE002 in jit_moe_body")) for m in moe_warnings), moe_warnings
    assert _lint_warnings(record, jax_hook.LintSkippedWarning) == []


def test_install_says_once_per_reason_when_it_cannot_lint(monkeypatch) -> None:
    """A module the lint cannot read is not silence: one warning per reason."""
    def refuse(module, **kwargs):
        raise hlo_passes.ParseError("something hlo_passes does not read", line=3, column=7)

    monkeypatch.setattr(xla_pass, "lint_module", refuse)
    fn, args = _program(UNFUSED)
    hlo_passes.install()
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            jax.jit(fn)(*args)
            jax.jit(_program(UNFUSED)[0])(*args)  # compiled again: the same reason
    finally:
        hlo_passes.uninstall()
    (message,) = _lint_warnings(record, jax_hook.LintSkippedWarning)
    assert "could not lint jit_" in message and "something hlo_passes does not read" in message
