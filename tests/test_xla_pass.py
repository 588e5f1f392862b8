"""``install(mode="rewrite")``: hlo_passes as a pass inside XLA's pipeline (hlo_passes.xla_pass).

Until the rules rewrite optimized MoE modules, the path XLA → hook → engine → XLA is exercised by
``tests/xla_pass_rules.py``'s test rules (``XPA001`` reorders the operands of adds, bit-equal;
``XPA002`` raises), on plain ``jax.jit`` programs compiled with XLA's default passes, compared
bit for bit with the pass off.  The multi-process decision is in tests/test_multihost.py.
"""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
import tomllib
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
from hlo_passes import xla_pass, xla_stage
from hlo_passes.passes import compiled, unregister
from programs import REPO_ROOT

RULES = Path(__file__).with_name("xla_pass_rules.py")


@pytest.fixture(scope="module")
def rules():
    names = hlo_passes.load_plugin(str(RULES))
    assert names == ["xpa-add-descending", "xpa-raises"]
    yield names
    for name in names:
        unregister(name)


@pytest.fixture
def off():
    yield
    hlo_passes.uninstall()


def program():
    """A sharded step a trainer would write: matmul, bias, tanh, a reduction over the mesh."""
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("data",))
    x = jax.device_put(jnp.arange(64.0, dtype=jnp.float32).reshape(16, 4) / 64,
                       NamedSharding(mesh, P("data", None)))
    w = jnp.linspace(-1.0, 1.0, 16, dtype=jnp.float32).reshape(4, 4)

    def step(w, x):  # a new function object per call: jax compiles it anew
        h = jnp.tanh(x @ w + 0.25)
        return w - 0.1 * (x.T @ h) / x.shape[0], jnp.sum(h * h)

    return step, (w, x)


def _same(got, want) -> None:
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.sharding == w.sharding
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def _fallback_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, xla_pass.XlaPassFallbackWarning)]


def test_rewrite_mode_rewrites_what_xla_compiles_and_says_so(rules, off, caplog) -> None:
    step, args = program()
    want_text = jax.jit(step).lower(*args).compile().as_text()
    want = jax.jit(program()[0])(*args)
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    with caplog.at_level(logging.INFO, logger="hlo_passes"), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compiled_step = jax.jit(program()[0]).lower(*args).compile()
        got = compiled_step(*args)
    _same(got, want)
    assert _fallback_warnings(record) == []
    # XLA compiled the rewritten module: the adds' operands are in the rule's order now.
    assert compiled_step.as_text() != want_text
    report = hlo_passes.installed_report()
    assert report.mode == "rewrite" and report.platforms == ("cpu",)
    (module,) = [m for m in report.modules if m.module == "jit_step"]
    assert module.rewritten and module.fallback is None and report.sites_rewritten == len(module.rewritten)
    # One INFO line per rewritten site, at the user's source line.
    lines = [r.getMessage() for r in caplog.records if "rewrote" in r.getMessage()]
    assert lines == module.rewritten
    # The adds of the step's own code name their line; a reduction's add (XLA's region) has none.
    step_lines = {f"test_xla_pass.py:{n}" for n in range(program.__code__.co_firstlineno,
                                                             program.__code__.co_firstlineno + 12)}
    assert any(line.rsplit(" at tests/", 1)[-1] in step_lines for line in lines), lines
    assert all(line.rsplit(" at tests/", 1)[-1] in step_lines or "its metadata names no source line" in line
               for line in lines), lines
    head = str(report).splitlines()[0]
    assert f"{len(lines)} site(s) rewritten, 0 fallback(s)" in head


def test_unchanged_module_is_none_and_modules_without_sites_are_not_parsed(rules, off, monkeypatch) -> None:
    step, args = program()
    proto = compat.hlo_text_to_proto(jax.jit(step).lower(*args).compile().as_text())
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    # Twice: the first rewrites, its output (every add in order) is left alone.
    rewritten = xla_pass._on_compile(proto)
    assert isinstance(rewritten, bytes)
    assert xla_pass._on_compile(rewritten) is None
    # The pre-filter: the MOE rules' markers are collectives; a module on one device has none.
    hlo_passes.install("rewrite", platforms="cpu", passes=["MOE001", "MOE002", "MOE003", "MOE004"])
    proto = compat.hlo_text_to_proto(jax.jit(lambda a: jnp.tanh(a) + a).lower(jnp.ones(8)).compile().as_text())

    def must_not_parse(*a, **k):
        raise AssertionError("a module without collectives was parsed")

    monkeypatch.setattr(xla_stage, "rewrite_compiled_text", must_not_parse)
    skipped = hlo_passes.installed_report().skipped
    assert xla_pass._on_compile(proto) is None
    assert hlo_passes.installed_report().skipped == skipped + 1


def test_a_raising_rule_falls_back_with_one_warning_and_the_right_result(rules, off) -> None:
    step, args = program()
    want = jax.jit(step)(*args)
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001", "XPA002"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = jax.jit(program()[0])(*args)
        again = jax.jit(program()[0])(*args)  # the same module again: no second warning
    _same(got, want)
    _same(again, want)
    (message,) = _fallback_warnings(record)
    assert "jit_step compiled as XLA optimized it" in message and "xpa-raises: injected failure" in message
    fallbacks = hlo_passes.installed_report().fallbacks
    assert fallbacks and all("injected failure" in m.fallback for m in fallbacks)
    assert hlo_passes.installed_report().sites_rewritten == 0


def test_a_failure_after_the_rules_falls_back_too(rules, off, monkeypatch) -> None:
    """XLA's parser refusing our text (or anything after the rules) keeps XLA's module."""
    def refuse(text):
        raise RuntimeError("INVALID_ARGUMENT: test: XLA's parser refused the text")

    monkeypatch.setattr(compat, "hlo_text_to_proto", refuse)
    step, args = program()
    want = jax.jit(step)(*args)
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = jax.jit(program()[0])(*args)
    _same(got, want)
    (message,) = _fallback_warnings(record)
    assert "XLA's parser refused the text" in message


def test_the_engine_call_returns_none_when_nothing_changed(rules) -> None:
    step, args = program()
    text = jax.jit(step).lower(*args).compile().as_text()
    new, sites, _ = compiled.rewrite_compiled_text(text, "jit_step", ["XPA001"])
    assert new is not None and sites and all(s.rewritten for s in sites)
    assert compiled.rewrite_compiled_text(new, "jit_step", ["XPA001"])[0] is None
    # XLA reads what the engine printed.
    assert compat.hlo_module_from_text(new).name == compat.hlo_module_from_text(text).name


def test_platforms_are_explicit(off, monkeypatch) -> None:
    with pytest.raises(RuntimeError, match=r"no tpu backend in this process \(present: cpu\)"):
        hlo_passes.install("rewrite", platforms="tpu")
    assert xla_pass.installed() is None

    def no_extension(callback, name, platforms=None):
        raise RuntimeError("UNIMPLEMENTED: the plugin has no PJRT_Xla_Transform extension")

    monkeypatch.setattr(compat, "register_module_transformation", no_extension)
    with pytest.raises(RuntimeError, match="the cpu PJRT plugin does not offer XLA's module-transformation "
                                           "extension .*UNIMPLEMENTED"):
        hlo_passes.install("rewrite", platforms=["cpu"])
    assert xla_pass.installed() is None
    # Not named, a platform without the extension is a warning and the others go on.
    with pytest.warns(xla_pass.XlaPassFallbackWarning, match="cpu PJRT plugin does not offer"):
        hlo_passes.install("rewrite")
    assert hlo_passes.installed_report().platforms == ()


def test_rewrite_is_part_of_the_persistent_cache_key(off) -> None:
    assert compat.cache_key_extra() == ""
    hlo_passes.install("warn", platforms="cpu")
    assert compat.cache_key_extra() == ""  # the lint changes no program
    hlo_passes.install("rewrite", platforms="cpu", passes=["MOE001"])
    # The release, the mode, the passes and the plugin rules loaded (a rule changes the program).
    assert compat.cache_key_extra().startswith(f"|hlo_passes={hlo_passes.__version__};mode=rewrite;"
                                               "passes=moe-gather-fusion;plugins=")
    hlo_passes.uninstall()
    assert compat.cache_key_extra() == ""


CACHE_SCRIPT = """
import os, sys
import jax, jax.numpy as jnp, numpy as np
import hlo_passes
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
hlo_passes.load_plugin(sys.argv[2])
if sys.argv[3] == "rewrite":
    hlo_passes.install("rewrite", platforms="cpu", passes=["XPA001"])
def f(x, y):
    return jnp.tanh(x * 2 + y) + y
out = jax.jit(f)(jnp.arange(8.0), jnp.ones(8) * 0.3)
report = hlo_passes.installed_report() if sys.argv[3] == "rewrite" else None
print("entries", len(os.listdir(sys.argv[1])), "rewritten", report.sites_rewritten if report else 0,
      "out", np.asarray(out).tobytes().hex())
"""


def _cached_run(tmp_path: Path, mode: str) -> tuple[int, int, str]:
    script = tmp_path / "cached.py"
    script.write_text(CACHE_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "cache"), str(RULES), mode],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _, entries, _, rewritten, _, out = proc.stdout.split()
    return int(entries), int(rewritten), out


def test_the_persistent_cache_never_hands_one_mode_the_others_executable(tmp_path) -> None:
    """Runs with and without the rewrite share a cache directory: each compiles (and caches) its
    own executable; a second run of each is served from the cache, rewritten or not as asked."""
    (tmp_path / "cache").mkdir()
    plain, _, out_plain = _cached_run(tmp_path, "off")
    rewrite, sites, out_rewrite = _cached_run(tmp_path, "rewrite")
    assert rewrite > plain and sites >= 1  # not the plain run's executable: compiled, rewritten, cached
    assert out_rewrite == out_plain
    assert _cached_run(tmp_path, "rewrite")[0] == rewrite  # a cache hit: no new entry
    assert _cached_run(tmp_path, "off")[0] == rewrite


TRAINER = """
import sys
import jax, jax.numpy as jnp, numpy as np
import optax

def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w + 0.5) ** 2)

opt = optax.adam(1e-2)

@jax.jit
def step(w, state, x):
    l, g = jax.value_and_grad(loss)(w, x)
    updates, state = opt.update(g, state, w)
    return optax.apply_updates(w, updates), state, l

w = jnp.ones((4, 4)) * 0.1
x = jnp.arange(8.0).reshape(2, 4)
state = opt.init(w)
for _ in range(5):
    w, state, l = step(w, state, x)
np.save(sys.argv[1], np.asarray(w))
print("loss", float(l), "hlo_passes imported:", "hlo_passes" in sys.modules)
"""


def _train(tmp_path: Path, name: str, env_extra: dict[str, str]) -> tuple[np.ndarray, subprocess.CompletedProcess]:
    script = tmp_path / "train.py"
    script.write_text(TRAINER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLO_PASSES")}
    # The source tree on the path, as an installed wheel would be: jax finds jax_plugins there.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    env.update(env_extra)
    out = tmp_path / f"{name}.npy"
    proc = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300,
                          env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.load(out), proc


def test_an_unmodified_trainer_gets_the_pass_from_the_environment(tmp_path) -> None:
    off_w, off = _train(tmp_path, "off", {})
    assert "hlo_passes imported: False" in off.stdout  # unset: jax's plugin discovery loads nothing of ours
    assert "hlo_passes" not in off.stderr
    on_w, on = _train(tmp_path, "on", {"HLO_PASSES": "rewrite", "HLO_PASSES_PLUGINS": str(RULES),
                                       "HLO_PASSES_PASSES": "XPA001"})
    np.testing.assert_array_equal(on_w, off_w)
    assert on.stdout.split()[1] == off.stdout.split()[1]  # the losses, printed in full
    lines = on.stderr.splitlines()
    rewrote = [line for line in lines if line.startswith("hlo_passes: rewrote xpa-add-descending (add) in jit_step")]
    assert rewrote and all(" at train.py:" in line for line in rewrote), on.stderr[-2000:]
    (summary,) = [line for line in lines if line.startswith("hlo_passes.install(mode='rewrite')")]
    assert f"on {xla_pass.EVERY_PLATFORM}:" in summary and f"{len(rewrote)} site(s) rewritten" in summary
    assert "0 fallback(s)" in summary
    # Only the variable, as a user sets it: the default passes (the MOE rules) look at every module
    # jax compiles; this trainer has no collective, so the pre-filter skips them all.
    only_w, only = _train(tmp_path, "only", {"HLO_PASSES": "rewrite"})
    np.testing.assert_array_equal(only_w, off_w)
    (summary,) = [line for line in only.stderr.splitlines() if line.startswith("hlo_passes.install(")]
    assert re.fullmatch(rf"hlo_passes.install\(mode='rewrite'\) on {xla_pass.EVERY_PLATFORM}: 0 module\(s\) "
                        r"looked at, 0 site\(s\) rewritten, 0 fallback\(s\), [1-9]\d* module\(s\) skipped by "
                        r"the pre-filter", summary), summary


def test_environment_values(tmp_path, off) -> None:
    assert xla_pass.activate_from_environment({}) is None
    assert xla_pass.activate_from_environment({"HLO_PASSES": "0"}) is None
    with pytest.warns(xla_pass.XlaPassFallbackWarning, match="'rewirte' is not one of"):
        assert xla_pass.activate_from_environment({"HLO_PASSES": "rewirte"}) is None
    with pytest.warns(xla_pass.XlaPassFallbackWarning, match="unknown pass 'MOE999'"):
        assert xla_pass.activate_from_environment({"HLO_PASSES": "rewrite", "HLO_PASSES_PASSES": "MOE999"}) is None
    assert xla_pass.installed() is None


def test_jax_finds_the_plugin_by_entry_point_and_namespace() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    spec = project["project"]["entry-points"]["jax_plugins"]["hlo_passes_xla_pass"]
    assert spec == "jax_plugins.hlo_passes_xla_pass"
    assert (REPO_ROOT / "jax_plugins" / "hlo_passes_xla_pass.py").is_file()
    assert not (REPO_ROOT / "jax_plugins" / "__init__.py").exists()  # a namespace package, as jax scans it
    assert "jax_plugins*" in project["tool"]["setuptools"]["packages"]["find"]["include"]
    source = textwrap.dedent((REPO_ROOT / "jax_plugins" / "hlo_passes_xla_pass.py").read_text())
    assert "def initialize() -> None:" in source


@pytest.mark.parametrize("text, devices", [
    ("%x = f32[8] add(%a, %b)", 0),
    ("all-reduce(%a), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%sum", 8),
    ("all-gather(%a), channel_id=1, replica_groups=[2,4]<=[8], dimensions={0}", 8),
    ("all-gather(%a), channel_id=1, replica_groups=[4,2]<=[2,4]T(1,0), dimensions={0}", 8),
    ("collective-permute(%a), channel_id=1, source_target_pairs={{0,1},{1,2}}", 3),
    # jax 0.12 prints the groups of a mesh axis by the mesh.
    ("all-gather(%a), replica_groups=mesh['fsdp'=2,'fsdp_transpose'=4] {'fsdp'}, dimensions={1}", 8),
    # Every device, or a spelling not read here: the processes agree (the safe side).
    ("all-reduce(%a), replica_groups={}, to_apply=%sum", sys.maxsize),
    ("all-reduce(%a), replica_groups=<a future spelling>, to_apply=%sum", sys.maxsize),
])
def test_which_modules_the_processes_agree_on(text: str, devices: int) -> None:
    assert xla_pass._devices_named(text) == devices


def test_the_gpu_check_passes_on_cpu() -> None:
    """tools/xla_pass_gpu_check.py (run by tools/gpu_check.sh with --platform cuda) on this machine's CPU."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLO_PASSES")}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "xla_pass_gpu_check.py"), "--platform", "cpu"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.count("same bits as the pass off: True") == 2
    assert proc.stdout.rstrip().endswith("xla_pass_gpu_check: ok")


def test_a_registration_that_fails_during_discovery_leaves_the_pass_off(off, monkeypatch) -> None:
    def fails(*a, **k):
        raise compat.UnsupportedJaxError("test: no jax registration function in this release")

    monkeypatch.setattr(compat, "register_module_transformation_during_discovery", fails)
    with pytest.warns(xla_pass.XlaPassFallbackWarning, match=r"\$HLO_PASSES=rewrite: could not register the pass "
                                                             r"\(UnsupportedJaxError: test: no jax"):
        assert xla_pass.activate_from_environment({"HLO_PASSES": "rewrite"}) is None
    assert xla_pass.installed() is None


MOE_STEP = """
import os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax
from examples import moe
spec = moe.ProgramSpec(variant="concat", mesh="mesh2", mode="grad")
mesh = moe.program_mesh(spec)
jax.block_until_ready(jax.jit(moe.program_fn(spec, mesh))(*moe.inputs(spec, mesh)))
"""


def test_hlo_passes_lint_lints_an_unmodified_moe_step(tmp_path) -> None:
    """HLO_PASSES=lint: the README quick start's training step, with no hlo_passes in its code,
    gets its unfused sites logged (MOE001 forward, MOE002 gradient) at compile time."""
    script = tmp_path / "moe_step.py"
    script.write_text(MOE_STEP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLO_PASSES") and k != "XLA_FLAGS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    env["HLO_PASSES"] = "lint"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                          cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rules = {line.split()[0] for line in proc.stderr.splitlines() if re.match(r"MOE00\d in jit_", line)}
    assert rules == {"MOE001", "MOE002"}, proc.stderr[-3000:]
    assert "hlo_passes.install(mode='log')" in proc.stderr


def test_each_platform_s_modules_are_priced_for_it(off, monkeypatch) -> None:
    """``install`` registers one callback per platform, bound to it: the sites of a module compiled
    for a platform are priced for that platform, as ``hlo_passes.jit`` prices for its backend.  An
    expert FFN whose prefused halves Mosaic cannot tile (F = 96) is held back priced for TPU (no
    finding: its fix saves nothing there) and a MOE005 finding priced for CPU and for GPU, where
    its kernel is emitted; a backend the cost model has no figures for gets the default pricing."""
    from examples import moe_ffn

    callbacks = {}

    def register(callback, name, platforms=None):
        callbacks[platforms[0]] = callback

    monkeypatch.setattr(compat, "register_module_transformation", register)
    monkeypatch.setattr(compat, "clear_module_transformation", lambda name, platforms=None: True)
    monkeypatch.setattr(compat, "backend_platforms", lambda: ["cpu", "cuda", "metal", "tpu"])
    hlo_passes.install("warn", platforms=["cpu", "cuda", "metal", "tpu"], passes=["MOE005"])
    assert sorted(callbacks) == ["cpu", "cuda", "metal", "tpu"]
    proto = compat.hlo_text_to_proto(moe_ffn.lower("gate_first", "forward", "hlo"))  # F = 96
    found = {}
    for platform, callback in callbacks.items():
        before = len(xla_pass.installed_findings())
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            assert callback(proto) is None  # lint: XLA keeps its module
        found[platform] = [f.rule for f in xla_pass.installed_findings()[before:]]
        assert len([w for w in record if "MOE005" in str(w.message)]) == len(found[platform])
        xla_pass._state.reported.clear()  # the next platform's same finding is reported anew
    assert found == {"cpu": ["MOE005"], "cuda": ["MOE005"], "metal": [], "tpu": []}
    hlo_passes.uninstall()  # while the backends are still the pretended ones
