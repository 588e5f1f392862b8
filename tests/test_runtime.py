"""hlo_passes.runtime and hlo_passes._jax_compat: text in, the same numbers as jax.jit out."""
from __future__ import annotations

import jax
import numpy as np
import pytest

from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes import _jax_compat as compat
from hlo_passes import runtime

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing


class _Program:
    """One example program lowered once, with jax.jit's own results for comparison."""

    def __init__(self, spec: ProgramSpec) -> None:
        self.spec = spec
        fn, args = moe.build(spec)
        self.lowered = fn.lower(*args)
        self.host_args = moe.host_inputs(spec)
        self.expected = [np.asarray(a) for a in jax.tree.leaves(self.lowered.compile()(*args))]


_PROGRAMS: dict[str, _Program] = {}


def program(spec: ProgramSpec) -> _Program:
    if spec.name not in _PROGRAMS:
        _PROGRAMS[spec.name] = _Program(spec)
    return _PROGRAMS[spec.name]


RUN_SPECS = [ProgramSpec(variant=v, mesh=m) for m in moe.MESHES for v in moe.VARIANTS] + [
    ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan"),
    ProgramSpec(variant="two_gmm", mesh="mesh1", form="implicit", mode="grad", constraint="reshard"),
    ProgramSpec(variant="fused", mesh="mesh2", mode="scan_grad"),
    ProgramSpec(variant="concat", layer="router", cfg=MoEConfig(dtype="bfloat16", param_dtype="float32")),
    # One device: the executable reports no shardings at all.
    ProgramSpec(variant="concat", num_devices=1),
    ProgramSpec(variant="two_gmm", mesh="mesh2", num_devices=4, mode="grad"),
]


@pytest.mark.parametrize("dialect", ["stablehlo", "hlo"])
@pytest.mark.parametrize("spec", RUN_SPECS, ids=lambda s: s.name)
def test_text_runs_like_jit(spec: ProgramSpec, dialect: str) -> None:
    p = program(spec)
    exe = runtime.compile_text(p.lowered.as_text(dialect=dialect), num_devices=spec.num_devices)
    assert exe.source_dialect == dialect and len(exe.devices) == spec.num_devices
    got = exe.run(*p.host_args)
    assert len(got) == len(p.expected)
    for g, want in zip(got, p.expected):
        assert isinstance(g, jax.Array) and g.shape == want.shape and g.dtype == want.dtype
        # Same module, same compiler: the numbers must not move at all.
        np.testing.assert_array_equal(np.asarray(g), want)


def test_compiled_text_and_op_counts() -> None:
    for variant, gathers in (("concat", 4), ("two_gmm", 4), ("fused", 2)):
        p = program(ProgramSpec(variant=variant, mesh="mesh2"))
        exe = runtime.compile_text(p.lowered.as_text(), num_devices=8)
        text = exe.compiled_text
        assert text.startswith("HloModule")
        assert runtime.count_ops(text)["all-gather"] == gathers
        jit_text = p.lowered.compile().as_text()
        assert runtime.count_collectives(text) == runtime.count_collectives(jit_text)


def test_cache_by_text_and_devices() -> None:
    p = program(ProgramSpec(variant="fused"))
    text = p.lowered.as_text()
    a = runtime.compile_text(text, num_devices=8)
    assert runtime.compile_text(text, num_devices=8) is a
    assert runtime.compile_text(text, num_devices=8, cache=False) is not a
    assert runtime.compile_text(text + "\n", num_devices=8) is not a


def test_num_devices_defaults_to_module_partitions() -> None:
    p = program(ProgramSpec(variant="fused", mesh="mesh1", num_devices=4))
    exe = runtime.compile_text(p.lowered.as_text())
    assert len(exe.devices) == 4
    np.testing.assert_array_equal(np.asarray(exe.run(*p.host_args)[0]), p.expected[0])


def test_inputs_take_the_expected_shardings() -> None:
    p = program(ProgramSpec(variant="concat", mesh="mesh2"))
    exe = runtime.compile_text(p.lowered.as_text(), num_devices=8)
    w_sharding = exe.input_shardings[2]
    w = p.host_args[2]
    assert w_sharding.shard_shape(w.shape) == (4, 8, 64)
    placed = exe.place(*p.host_args)
    assert placed[2].sharding.is_equivalent_to(w_sharding, w.ndim)
    # Device arrays with another sharding are moved, not refused.
    replicated = [jax.device_put(a, jax.devices()[0]) for a in p.host_args]
    np.testing.assert_array_equal(np.asarray(exe.run(*replicated)[0]), p.expected[0])


def test_wrong_arguments_are_refused() -> None:
    p = program(ProgramSpec(variant="fused"))
    exe = runtime.compile_text(p.lowered.as_text(), num_devices=8)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        exe.run(*p.host_args[:3])
    with pytest.raises(TypeError, match=r"argument 2: expected float32\[4, 64, 64\]"):
        exe.run(p.host_args[0], p.host_args[1], p.host_args[2][:, :32], p.host_args[3])
    with pytest.raises(TypeError, match="argument 1"):
        exe.run(p.host_args[0], p.host_args[1].astype(np.int64), p.host_args[2], p.host_args[3])


def test_bad_dialect_and_too_many_devices() -> None:
    p = program(ProgramSpec(variant="fused"))
    with pytest.raises(ValueError, match="dialect"):
        runtime.compile_text(p.lowered.as_text(), dialect="llvm")
    with pytest.raises(RuntimeError, match="devices"):
        runtime.compile_text(p.lowered.as_text(), num_devices=len(jax.devices()) + 1)


def test_optimized_hlo_is_refused_with_a_reason(own_dumps) -> None:
    p = program(ProgramSpec(variant="concat"))
    with pytest.raises(ValueError, match="optimized HLO"):
        runtime.compile_text(p.lowered.compile().as_text(), num_devices=8)
    with pytest.raises(ValueError, match="before optimization"):
        runtime.compile_text(own_dumps["mesh2_concat_explicit_forward", "after_optimizations"].text, num_devices=8)


def test_dumps_compile_and_run(own_dumps) -> None:
    # Dumps before optimization and after partitioning go back through XLA's
    # HLO import; optimized ones do not (documented limitation).
    from examples.dump_programs import DUMP_PROGRAMS

    name = "mesh2_concat_explicit_forward"
    p = program(DUMP_PROGRAMS[name])
    for stage in ("before_optimizations", "after_shardy"):
        exe = runtime.compile_text(own_dumps[name, stage].text, num_devices=8)
        np.testing.assert_array_equal(np.asarray(exe.run(*p.host_args)[0]), p.expected[0])
    # After partitioning the module is per device: device k (mesh2 row-major
    # over fsdp × fsdp_transpose) holds shard k of w's D dimension.  It runs
    # as one replica per device (partitioning it again is what jax 0.11.2's
    # XLA does with its leftover parameter shardings: the shapes no longer fit).
    exe = runtime.compile_text(own_dumps[name, "after_spmd_partitioning"].text, num_devices=8, partitioned=True)
    x, gs, w, wo = p.host_args
    assert exe.parameters[2].shape == (4, 8, 64)
    shards = [w[:, 8 * k : 8 * (k + 1), :] for k in range(8)]
    per_device = exe.run_per_device(x, gs, shards, wo)[0]
    assert len(per_device) == 8
    for value in per_device:
        np.testing.assert_array_equal(value, p.expected[0])


_PARTITIONED_WITH_COPIES = """HloModule copies, num_partitions=4

ENTRY main {
  p = f32[8,16]{1,0} parameter(0)
  c = f32[8,16]{0,1} copy(p)
  g = f32[32,16]{0,1} all-gather(c), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  n = f32[32,16]{0,1} negate(g)
  ROOT r = f32[32,16]{1,0} copy(n)
}
"""


def test_a_partitioned_programs_layout_copies_are_read_through() -> None:
    # XLA:TPU's hand-over refuses the mhlo.copy an after-partitioning dump's copies become (issue 44):
    # the per-device program runs without them, computing the same values.
    text, n = runtime._as_replicas(_PARTITIONED_WITH_COPIES, 4)
    assert n == 4 and " copy(" not in text
    exe = runtime.compile_text(_PARTITIONED_WITH_COPIES, partitioned=True, num_devices=4, cache=False)
    shards = [np.arange(128, dtype=np.float32).reshape(8, 16) + 1000 * i for i in range(4)]
    (out,) = exe.run_per_device(shards)
    for value in out:
        np.testing.assert_array_equal(value, -np.concatenate(shards))


def test_count_ops_reads_hlo_lines() -> None:
    text = """HloModule m, entry_computation_layout={(f32[8]{0})->(f32[64]{0}, f32[8]{0})}

%fused (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(f32[8]{0} %p)
}

ENTRY %main (a: f32[8]) -> (f32[64]{0}, f32[8]{0}) {
  %a = f32[8]{0:T(128)} parameter(0), sharding={replicated}
  %ags = (f32[8]{0}, f32[64]{0}) all-gather-start(%a), dimensions={0}, replica_groups={{0,1,2,3,4,5,6,7}}
  %agd = f32[64]{0} all-gather-done(%ags)
  %ag = f32[64]{0} all-gather(%a), channel_id=1, dimensions={0}
  %f = f32[8]{0} fusion(%a), kind=kLoop, calls=%fused
  ROOT %t = (f32[64]{0}, f32[8]{0}) tuple(%agd, %f)
}
"""
    counts = runtime.count_ops(text)
    assert counts == {
        "parameter": 2, "negate": 1, "all-gather-start": 1, "all-gather-done": 1,
        "all-gather": 1, "fusion": 1, "tuple": 1,
    }
    assert runtime.count_ops(text, ["all-gather", "copy"]) == {"all-gather": 1}
    assert runtime.count_collectives(text) == {"all-gather": 2}


# --- _jax_compat ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "ok"),
    [("0.10.2", True), ("0.11.2", True), ("0.11.9.dev20260101+cuda12", True), ("0.12.0.1", True),
     ("1.0.0", True), ("0.10.1", False), ("0.9.9", False)],
)
def test_version_floor(version: str, ok: bool) -> None:
    # No upper bound: only releases older than the floor are refused by number.
    if ok:
        compat.check_version(version, version)
    else:
        with pytest.raises(ImportError, match=r">=0\.10\.2"):
            compat.check_version(version, "0.10.2")
        with pytest.raises(ImportError, match="jaxlib"):
            compat.check_version("0.10.2", version)


def _fresh_compat(monkeypatch: pytest.MonkeyPatch):
    """A second copy of _jax_compat, imported again under what the test patched."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("_jax_compat_copy", compat.__file__)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    return spec, module


@pytest.mark.parametrize("version", ["0.10.1", "0.9.0"])
def test_import_fails_loudly_on_old_jax(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    spec, module = _fresh_compat(monkeypatch)
    monkeypatch.setattr(jax, "__version__", version)
    with pytest.raises(ImportError, match=rf"supports jax>=0\.10\.2, found jax {version}"):
        spec.loader.exec_module(module)


def test_a_release_without_a_required_internal_fails_at_import_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # A future jax that drops an internal: the import names the API, its
    # purpose, the installed versions and the releases checked on.
    from jax._src.interpreters import mlir

    spec, module = _fresh_compat(monkeypatch)
    monkeypatch.setattr(jax, "__version__", "9.0.0")
    monkeypatch.delattr(mlir, "module_to_bytecode")
    with pytest.raises(ImportError) as info:
        spec.loader.exec_module(module)
    assert type(info.value).__name__ == "UnsupportedJaxError"
    message = str(info.value)
    assert "jax._src.interpreters.mlir.module_to_bytecode" in message
    assert "MLIR bytecode" in message and "jax 9.0.0" in message
    assert all(v in message for v in compat.CHECKED_ON)
    assert isinstance(info.value, ImportError)


def test_alternative_spellings_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax.extend.backend

    real = compat.find("jax.extend.backend:get_compile_options")
    monkeypatch.delattr(jax.extend.backend, "get_compile_options")
    # The private spelling is the fallback.
    assert compat.find("jax.extend.backend:get_compile_options") is not None
    assert callable(real)


def test_an_optional_internal_fails_on_use_not_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax.extend.xla

    monkeypatch.delattr(jax.extend.xla, "register_hlo_module_transformation")
    spec, module = _fresh_compat(monkeypatch)
    spec.loader.exec_module(module)  # still imports
    with pytest.raises(module.UnsupportedJaxError, match="register_hlo_module_transformation.*install"):
        module.register_module_transformation(lambda b: None, "x")


def test_every_internal_resolves_on_the_installed_release() -> None:
    compat.check_version()
    assert compat.SUPPORTED_RANGE == ">=0.10.2"
    release = tuple(int(part) for part in jax.__version__.split(".")[:2])
    for internal in compat.INTERNALS:
        if release >= internal.since:  # an internal of later releases: its feature probes for it
            assert compat.find(internal.spec) is not None, internal.spec


def test_the_docs_list_the_internals(repo_root) -> None:
    docs = (repo_root / "docs" / "internals.md").read_text()
    assert compat.internals_markdown() in docs, (
        "docs/internals.md's list of jax internals is out of date: paste hlo_passes._jax_compat.internals_markdown()"
    )


def test_lowered_without_the_slots_is_refused_naming_the_release() -> None:
    class Bare:
        _lowering = object()

    with pytest.raises(compat.UnsupportedJaxError, match="_hlo/_executable"):
        compat.lowered_with_module(Bare(), None)


def test_conversions_agree() -> None:
    p = program(ProgramSpec(variant="concat", mesh="mesh2"))
    stablehlo = p.lowered.as_text()
    module = compat.parse_mlir(stablehlo)
    assert compat.mlir_print(module) == stablehlo  # jax's as_text is this very print
    with_locs = p.lowered.as_text(debug_info=True)
    assert compat.mlir_print(compat.parse_mlir(with_locs), debug_info=True) == with_locs
    generic = compat.mlir_print(module, generic=True)
    assert '"stablehlo.all_gather"' in generic and "builtin.module" in generic
    # StableHLO → HLO text → StableHLO, and both run to the same numbers.
    hlo = compat.stablehlo_to_hlo_text(stablehlo)
    assert hlo.startswith("HloModule") and "all-gather" in hlo
    assert compat.print_hlo(hlo) == compat.print_hlo(compat.print_hlo(hlo))
    back = compat.hlo_text_to_stablehlo(p.lowered.as_text(dialect="hlo"))
    exe = runtime.compile_text(back, num_devices=8)
    np.testing.assert_array_equal(np.asarray(exe.run(*p.host_args)[0]), p.expected[0])


def test_parse_mlir_rejects_bad_text() -> None:
    with pytest.raises(Exception, match="(?i)error|expected"):
        compat.parse_mlir("func.func @main( -> {")


def test_only_compat_touches_jax_internals(repo_root) -> None:
    offenders = []
    files = [p for d in ("hlo_passes", "tests", "benchmarks", "examples") for p in (repo_root / d).rglob("*.py")]
    for path in files:
        # This file tests _jax_compat itself (it removes internals to see it fail).
        if path.name in ("_jax_compat.py", "test_runtime.py"):
            continue
        text = path.read_text()
        if "jax._src" in text or "xla_client._xla" in text or "from jax._src" in text:
            offenders.append(str(path.relative_to(repo_root)))
    assert not offenders, f"only hlo_passes/_jax_compat.py may use jax internals: {offenders}"
