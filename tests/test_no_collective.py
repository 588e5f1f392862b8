"""A finding needs a collective that moves bytes (issue 43).

A prefused ``W[E, D, 2F]`` sliced into gate and up halves, where nothing is gathered: the weight
replicated and handed to a ``shard_map`` whole (``in_specs=P()``), a mesh of one device, or gathers
over a mesh axis of size 1 in an 8-device mesh.  Written as a user writes them; each is a training
step (``jax.value_and_grad``), so the backward's reductions are looked at too.  Every entry point
must find nothing and rewrite nothing, in every text form: ``hlo-lint`` (StableHLO, HLO, optimized
HLO), ``hlo-rewrite`` (the same texts), ``hlo_passes.jit``, and the pass inside XLA in both modes
(``install(mode="rewrite")`` and ``"log"``, which ``HLO_PASSES=rewrite|lint`` install).  Each
program is compiled once (module-scoped).
"""
from __future__ import annotations

import functools
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import hlo_passes
from hlo_passes import xla_pass
from hlo_passes.lint import lint_text
from hlo_passes.passes.registry import available_passes, run_passes
from programs import REPO_ROOT

pytestmark = pytest.mark.jax_facing

E, D, F, T = 4, 16, 8, 16
ALL = sorted(available_passes())


def _layer(mesh: Mesh, w_spec: P, gather: str | None, check_vma: bool = True, tokens_over: str | None = None):
    def body(x, gate, up, sizes):
        if gather is not None:
            gate = jax.lax.all_gather(gate, gather, axis=1, tiled=True)
            up = jax.lax.all_gather(up, gather, axis=1, tiled=True)
        h = jax.lax.ragged_dot(x, jnp.concatenate([gate, up], axis=-1), sizes)
        return jax.nn.silu(h[:, :F]) * h[:, F:]

    def loss(w, x, sizes):
        gate, up = w[:, :, :F], w[:, :, F:]
        # The tokens split over the gathered axis where there is one (of size 1 here).
        over = tokens_over or gather
        tokens = P(over) if over is not None else P()
        y = jax.shard_map(body, mesh=mesh, in_specs=(tokens, w_spec, w_spec, P()), out_specs=tokens,
                          check_vma=check_vma)(x, gate, up, sizes)
        return jnp.sum(y ** 2)

    return jax.value_and_grad(loss)


def _program(name: str):
    """(mesh, the weight's sharding, its in_specs, the axis gathered over, check_vma, the axis the
    tokens are split over)."""
    devices = jax.devices()
    if name in ("replicated", "replicated_unchecked", "data_parallel", "data_parallel_split"):
        # The weight whole on every device, handed to the shard_map whole.  Unchecked
        # (check_vma=False), jax still psums its cotangent in the backward: a sum of eight
        # copies of one value.  Data parallel (the tokens split; unchecked too, so that each half
        # is reduced on its own): a real reduction.
        mesh = Mesh(np.array(devices[:8]), ("fsdp",))
        return (mesh, P(), P(), None, name == "replicated",
                "fsdp" if name.startswith("data_parallel") else None)
    if name == "one_device":  # a mesh of one device: the FSDP gather moves nothing
        mesh = Mesh(np.array(devices[:1]), ("fsdp",))
        return mesh, P(None, "fsdp", None), P(None, "fsdp", None), "fsdp", True, None
    # an 8-device mesh whose FSDP axis has size 1 (data parallel over the other): gathers over
    # groups of one device
    mesh = Mesh(np.array(devices[:8]).reshape(8, 1), ("data", "fsdp"))
    return mesh, P(None, "fsdp", None), P(None, "fsdp", None), "fsdp", True, None


PROGRAMS = ["replicated", "replicated_unchecked", "one_device", "axis_of_one"]


def _unprovable(name: str, form: str) -> bool:
    """The unchecked program's optimized module as ``compiled.as_text()`` prints it, where it
    states no parameter sharding (jax >= 0.12's XLA prints none on a partitioned module's
    parameters): that the program splits none of its weights cannot be read from that text
    (``split.replicated.no_weight_split``).  The pass inside XLA reads the module's recorded shardings
    (``xla_pass.with_parameter_shardings``): never unprovable there."""
    if name != "replicated_unchecked" or form != "compiled":
        return False
    text = _compile(name)[2]["compiled"][0]
    return not any("parameter(" in line and "sharding=" in line for line in text.splitlines())


@functools.lru_cache(maxsize=None)  # each program compiled once for the module's tests
def _compile(name: str):
    mesh, w_sharding, w_spec, gather, check_vma, tokens_over = _program(name)
    fn = _layer(mesh, w_spec, gather, check_vma, tokens_over)
    w = jax.device_put(jax.random.normal(jax.random.key(0), (E, D, 2 * F)), NamedSharding(mesh, w_sharding))
    # The tokens split over the devices before the program (an input of the program that is
    # split: what no_weight_split must see) or inside the shard_map.
    x = jax.device_put(jnp.ones((T, D)), NamedSharding(mesh, P("fsdp") if name == "data_parallel_split" else P()))
    # The rows each device's GMM reads: all of them, or its two where the tokens are split.
    sizes = jnp.array([4, 4, 4, 4] if tokens_over is None else [1, 0, 1, 0], jnp.int32)
    args = (w, x, sizes)
    lowered = jax.jit(fn).lower(*args)
    compiled = lowered.compile()
    texts = {"stablehlo": (lowered.as_text(), "stablehlo"), "hlo": (lowered.as_text(dialect="hlo"), "hlo"),
             "compiled": (compiled.as_text(), "hlo")}
    return fn, args, texts, compiled


@pytest.fixture(scope="module", params=PROGRAMS)
def program(request):
    return (request.param, *_compile(request.param))


def test_nothing_gathered_in_the_compiled_program(program) -> None:
    """What XLA compiles gathers and scatters nothing: no such collective, or only over groups
    of one device (XLA keeps those, as copies)."""
    _, _, _, texts, _ = program
    module = hlo_passes.parse(texts["compiled"][0], dialect="hlo")
    for instr in module.instructions():
        if instr.opcode in ("all-gather", "reduce-scatter"):
            assert instr.operands[0].shape.dims == instr.shape.dims, instr.ref


@pytest.mark.parametrize("form", ["stablehlo", "hlo", "compiled"])
def test_unchecked_replicated_reduction_named(form: str) -> None:
    """jax's check_vma=False psum of a replicated weight's cotangent: a near miss that says so."""
    text, dialect = _compile("replicated_unchecked")[2][form]
    result = run_passes(hlo_passes.parse(text, dialect=dialect), ["MOE002"], rewrite=False)
    if _unprovable("replicated_unchecked", form):
        # jax >= 0.11's optimized module states no parameter sharding: that nothing is split is
        # not provable there; but XLA's combiner reduces both halves in one all-reduce, which MOE002
        # names a near miss (xla-combined, issue 47): no finding (issue 43's "0 findings").
        assert result.sites == [] and [m.check for m in result.near_misses] == ["xla-combined"], result
        return
    assert [m.check for m in result.near_misses] == ["no-collective"], result.near_misses
    assert "reduces a value every device computes alike" in result.near_misses[0].reason


@pytest.mark.parametrize("form", ["stablehlo", "hlo", "compiled"])
def test_data_parallel_reduction_still_found(form: str) -> None:
    """Negative control: the same replicated weight on tokens split over the devices (data
    parallel) sums eight different contributions: a real reduction, still MOE002's site in the
    lowered texts.  In the optimized module XLA's all-reduce combiner has put both halves'
    all-reduces into one op already: no saving there, a near miss (``xla-combined``, issue 47)."""
    text, dialect = _compile("data_parallel")[2][form]
    found = lint_text(text, dialect=dialect, select=["MOE002"], explain=True)
    findings = [f for f in found if not f.is_note]
    if form == "compiled":
        assert findings == [] and [f.details["check"] for f in found if f.rule == "MOE002"] == ["xla-combined"], found
        return
    assert [f.rule for f in findings] == ["MOE002"], findings



@pytest.mark.parametrize("form", ["stablehlo", "hlo", "compiled"])
def test_lint_and_rewrite_find_nothing(program, form: str) -> None:
    name, _, _, texts, _ = program
    text, dialect = texts[form]
    findings = [f for f in lint_text(text, dialect=dialect, select=["MOE"]) if not f.is_note]
    if _unprovable(name, form):  # (see test_unchecked_replicated_reduction_named: an xla-combined near miss)
        assert findings == [], findings
        return
    assert findings == [], [(f.rule, f.message) for f in findings]
    result = run_passes(hlo_passes.parse(text, dialect=dialect), ALL, rewrite=True)
    assert result.sites == [] and not result.changed, result.sites
    # Each place looked at says why it is none, where it names a check about collectives.
    assert {m.check for m in result.near_misses} <= {"no-collective", "group-of-one"}, result.near_misses


def test_jit_rewrites_nothing(program) -> None:
    _, fn, args, _, compiled = program
    jitted = hlo_passes.jit(fn, passes=ALL)
    lowered = jitted.lower(*args)
    # (Rewritten or not by its GMM lowering: no rule's site.)
    assert lowered.report == [], lowered.report
    got = jitted(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(compiled(*args)), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["rewrite", "log"])
def test_inside_xla_nothing(program, mode: str) -> None:
    name, fn, args, _, _ = program
    hlo_passes.install(mode=mode, platforms="cpu", passes=ALL)
    try:
        jax.jit(lambda *a: fn(*a)).lower(*args).compile()
        report = hlo_passes.installed_report()
        findings = xla_pass.installed_findings()
    finally:
        hlo_passes.uninstall()
    # On every jax: the partitioner's recorded parameter shardings say the weight is whole on
    # every device (jax 0.12 prints none on the parameters; the pass reads the module's).
    assert [s for m in report.modules for s in m.sites] == [] and report.sites_rewritten == 0
    assert [f for f in findings if not f.is_note] == []
    if name == "replicated_unchecked" and mode == "rewrite":  # the reduction XLA keeps: named
        near = [m.check for mod in report.modules for m in mod.near_misses]
        assert "no-collective" in near, near


@pytest.mark.parametrize("name", ["data_parallel", "data_parallel_split"])
def test_inside_xla_data_parallel_named_combined(name: str) -> None:
    """Negative control inside XLA: the replicated weight's gradient on tokens split inside the
    shard_map (a partition's window) or before the program (a split parameter, whose sharding the
    module records) is a real reduction, so it is no ``no-collective`` near miss; but in the module
    XLA hands the pass its combiner already reduces both halves in one all-reduce, so fusing them
    saves no collective: MOE002 names it ``xla-combined`` (issue 47), no finding, on every jax."""
    fn, args, _, _ = _compile(name)
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=["MOE002"])
    try:
        jax.jit(lambda *a: fn(*a)).lower(*args).compile()
        report = hlo_passes.installed_report()
        findings = xla_pass.installed_findings()
    finally:
        hlo_passes.uninstall()
    assert [f.rule for f in findings if not f.is_note] == [], findings
    assert report.sites_rewritten == 0
    assert [m.check for mod in report.modules for m in mod.near_misses] == ["xla-combined"], report


def test_recorded_parameter_shardings_stated() -> None:
    """``with_parameter_shardings``: an entry parameter without a sharding gets the recorded one;
    one that states its own, and the parameters of other computations, keep theirs."""
    text = "\n".join([
        "HloModule m, num_partitions=8", "",
        "%add (a: f32[], b: f32[]) -> f32[] {", "  %a = f32[] parameter(0)", "  %b = f32[] parameter(1)",
        "  ROOT %s = f32[] add(%a, %b)", "}", "",
        "ENTRY %main (p0: f32[4,8], p1: f32[8]) -> f32[4,8] {",
        '  %p0 = f32[4,8]{1,0} parameter(0), metadata={op_name="w"}',
        "  %p1 = f32[8]{0} parameter(1), sharding={devices=[8]<=[8]}",
        "  ROOT %n = f32[4,8]{1,0} negate(%p0)", "}", ""])
    stated = xla_pass.with_parameter_shardings(text, ["{mesh[], replicated}", "{replicated}"])
    assert '%p0 = f32[4,8]{1,0} parameter(0), sharding={mesh[], replicated}, metadata={op_name="w"}' in stated
    assert "%p1 = f32[8]{0} parameter(1), sharding={devices=[8]<=[8]}\n" in stated
    assert "%a = f32[] parameter(0)\n" in stated
    assert xla_pass.with_parameter_shardings(text, []) == text
    module = hlo_passes.parse(stated, dialect="hlo")
    assert str(module.entry.instructions[0].attributes["sharding"]) == "{mesh[], replicated}"


_ENV_SCRIPT = """
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
import hlo_passes
from hlo_passes import xla_pass
import test_no_collective as t
for name in t.PROGRAMS:
    if name == "replicated_unchecked":
        continue  # (install() in both modes runs it: tests/test_no_collective.py::test_inside_xla_nothing)
    mesh, w_sharding, w_spec, gather, check_vma, tokens_over = t._program(name)
    fn = t._layer(mesh, w_spec, gather, check_vma, tokens_over)
    w = jax.device_put(jnp.ones((t.E, t.D, 2 * t.F)), NamedSharding(mesh, w_sharding))
    x = jax.device_put(jnp.ones((t.T, t.D)), NamedSharding(mesh, P()))
    jax.jit(fn)(w, x, jnp.array([4, 4, 4, 4], jnp.int32))
assert xla_pass.installed() == {mode!r}, xla_pass.installed()  # installed at the first compile
report = hlo_passes.installed_report()
print("sites", sum(len(m.sites) for m in report.modules), "findings",
      sum(not f.is_note for f in xla_pass.installed_findings()), "modules", len(report.modules))
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["lint", "rewrite"])
def test_environment_variable_nothing(mode: str) -> None:
    """``HLO_PASSES=lint|rewrite`` (the pass installed while jax discovers its plugins), every
    rule asked for: the programs compile and run with no site and no finding (the unchecked one is
    install()'s, whose jax-version-dependent outcome test_inside_xla_nothing holds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HLO_PASSES")}
    env.update(HLO_PASSES=mode, HLO_PASSES_PASSES=",".join(ALL),
               PYTHONPATH=os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests"), env.get("PYTHONPATH", "")]),
               XLA_FLAGS="--xla_force_host_platform_device_count=8")
    done = subprocess.run([sys.executable, "-c", _ENV_SCRIPT.format(mode="log" if mode == "lint" else mode)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    sites, findings, modules = done.stdout.split()[1::2]
    assert (sites, findings) == ("0", "0"), done.stdout + done.stderr[-2000:]
    if mode == "rewrite":  # the unchecked program's all-reduces pass the pre-filter: parsed, refused
        assert int(modules) > 0, done.stdout
