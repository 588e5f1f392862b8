"""Replica groups in every spelling: what they mean, that equal means equal, and caps.

The meaning is XLA's: each HLO spelling is compiled and run (an all-gather of
every device's id), and the groups the devices gathered must be the groups
the parser decoded.  XLA's HLO -> StableHLO import drops ``device_ids`` of mesh
groups (measured in both jaxlib versions), so those are pinned by the two
prints of one program instead: jax 0.10.2 writes its gather over all 8
devices as ``mesh['axis_0'=1,'axis_1'=8], device_ids=([2,4]T(1,0)) {'axis_1'}``,
jax 0.12 as ``mesh['a'=2,'b'=4] {'b','a'}`` (the dump tests run that program
per device against jax).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import hlo_passes
from hlo_passes import ParseError, runtime
from hlo_passes.ir.device_groups import MAX_DEVICES, DeviceGroups
from hlo_passes.passes import run_passes

_GATHER = """HloModule m, num_partitions=8

ENTRY e {
  p = f32[1] parameter(0), sharding={replicated}
  ROOT ag = f32[SIZE] all-gather(p), channel_id=1, replica_groups=RG, dimensions={0}, use_global_device_ids=true, sharding={replicated}
}
"""

# Spellings XLA runs as written (no device_ids), with their group size.
EXECUTED = [
    ("{{0,1,2,3},{4,5,6,7}}", 4),
    ("[2,4]<=[8]", 4),
    ("[4,2]<=[2,4]T(1,0)", 2),
    ("mesh['a'=2,'b'=4] {'b'}", 4),
    ("mesh['a'=2,'b'=4] {'a'}", 2),
    ("mesh['a'=2,'b'=4] {'b','a'}", 8),
    ("mesh['a'=4,'b'=2] {'a':(1)2}", 2),
    ("mesh['a'=4,'b'=2] {'a':(2)2}", 2),
    ("mesh['a'=4,'b'=2] {'b','a':(2)2}", 4),
    ("mesh['axis_0'=1,'axis_1'=4,'axis_2'=1,'axis_3'=2] {'axis_1'}", 4),
]


def _decoded(rg: str, size: int):
    module = hlo_passes.parse(_GATHER.replace("RG", rg).replace("SIZE", str(size)), validate=True)
    return module.entry.root.attributes["replica_groups"]


@pytest.mark.parametrize(("rg", "size"), EXECUTED, ids=[r for r, _ in EXECUTED])
def test_groups_are_what_xla_runs(rg: str, size: int) -> None:
    exe = runtime.compile_text(_GATHER.replace("RG", rg).replace("SIZE", str(size)), num_devices=8,
                               partitioned=True)
    (per_device,) = exe.run_per_device([np.array([d], np.float32) for d in range(8)])
    executed = sorted({tuple(int(v) for v in out) for out in per_device})
    groups = _decoded(rg, size)
    assert isinstance(groups, DeviceGroups) and sorted(groups) == executed
    assert groups.group_size == size and len(groups) == 8 // size


def test_the_same_gather_printed_by_both_jax_versions_is_one_value() -> None:
    printed_010 = _decoded("mesh['axis_0'=1,'axis_1'=8], device_ids=([2,4]T(1,0)) {'axis_1'}", 8)
    printed_012 = _decoded("mesh['a'=2,'b'=4] {'b','a'}", 8)
    listed = _decoded("{{0,4,1,5,2,6,3,7}}", 8)
    assert printed_010 == printed_012 == listed == ((0, 4, 1, 5, 2, 6, 3, 7),)
    assert hash(printed_010) == hash(printed_012) == hash(((0, 4, 1, 5, 2, 6, 3, 7),))
    # ... and the issue's spelling of a scanned layer's gather over fsdp_transpose.
    issue = _decoded("mesh['axis_0'=1,'axis_1'=4,'axis_2'=1,'axis_3'=2], device_ids=([2,4]T(1,0)) {'axis_1'}", 4)
    assert issue == ((0, 1, 2, 3), (4, 5, 6, 7)) == _decoded("mesh['fsdp'=2,'fsdp_transpose'=4] {'fsdp_transpose'}", 4)
    assert _decoded("mesh['a'=2,'b'=4], device_ids=(7,6,5,4,3,2,1,0) {'a'}", 2) == ((7, 3), (6, 2), (5, 1), (4, 0))


def _halves(samples_dir: Path, first: str, second: str) -> str:
    text = (samples_dir / "mesh1_concat.hlo_dialect.txt").read_text()
    old = "replica_groups={{0,1,2,3,4,5,6,7}}"
    assert text.count(old) == 2
    i = text.index(old)
    j = text.index(old, i + len(old))
    return text[:i] + f"replica_groups={first}" + text[i + len(old):j] + f"replica_groups={second}" \
        + text[j + len(old):]


@pytest.mark.parametrize("spelling", ["[1,8]<=[8]", "mesh['fsdp'=8] {'fsdp'}",
                                      "mesh['a'=2,'b'=4] {'a','b'}", "mesh['x'=8], device_ids=([8]) {'x'}"])
def test_halves_gathered_over_the_same_devices_in_other_words_fuse(samples_dir: Path, spelling: str) -> None:
    text = _halves(samples_dir, "{{0,1,2,3,4,5,6,7}}", spelling)
    result = run_passes(hlo_passes.parse(text), ["moe-gather-fusion"])
    assert [s.form for s in result.sites] == ["concat"], [str(m) for m in result.near_misses]
    original = runtime.compile_text((samples_dir / "mesh1_concat.hlo_dialect.txt").read_text(), num_devices=8)
    rewritten = runtime.compile_text(result.module.to_text(), num_devices=8)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(p.shape).astype(p.dtype) if p.dtype.kind == "f"
            else np.full(p.shape, 16, p.dtype) for p in original.parameters]
    for g, w in zip(rewritten.run(*args), original.run(*args)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_halves_gathered_over_other_devices_are_refused(samples_dir: Path) -> None:
    text = _halves(samples_dir, "{{0,1,2,3,4,5,6,7}}", "mesh['a'=2,'b'=4] {'b','a'}")
    result = run_passes(hlo_passes.parse(text), ["moe-gather-fusion"])
    assert result.sites == []
    (miss,) = result.near_misses
    assert miss.check == "same-collectives" and "replica_groups" in miss.reason


def test_compact_groups_are_expanded_only_when_read() -> None:
    side = 1 << 10
    text = _GATHER.replace("RG", f"mesh['a'={side},'b'={side}] {{'b'}}").replace("SIZE", str(side))
    module = hlo_passes.parse(text.replace("num_partitions=8", f"num_partitions={side * side}"), validate=True)
    groups = module.entry.root.attributes["replica_groups"]
    assert groups.num_devices == MAX_DEVICES and groups._groups is None  # checked, not expanded
    assert groups.group_size == side and groups[3][:2] == (3 * side, 3 * side + 1)


def test_repr_does_not_depend_on_whether_the_groups_were_read() -> None:
    # A near miss quotes the groups; the text must be the same in every run.
    from hlo_passes.ir import device_groups

    for make in (lambda: device_groups.iota([2, 4], [8], None), lambda: device_groups.iota([4, 1024], [4096], None)):
        fresh, read = make(), make()
        read.groups  # noqa: B018 - expands it
        assert repr(fresh) == repr(read)
    assert repr(device_groups.iota([2, 4], [8], None)) == "DeviceGroups(((0, 1, 2, 3), (4, 5, 6, 7)))"
    assert repr(device_groups.iota([4, 1024], [4096], None)) == "DeviceGroups(iota: 4 groups of 1024)"


def test_compact_groups_over_the_cap_are_refused(shared_dir: Path) -> None:
    over = _GATHER.replace("RG", "[1048577,1]<=[1048577]").replace("SIZE", "1")
    with pytest.raises(ParseError, match="more than 1048576 devices"):
        hlo_passes.parse(over)
    explicit = _GATHER.replace("RG", "{{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15}}").replace("SIZE", "16")
    # Explicit lists are taken as written, whatever the header says.
    assert len(hlo_passes.parse(explicit, validate=True).entry.root.attributes["replica_groups"][0]) == 16


@pytest.mark.parametrize(("name", "line", "column"), [
    ("07_hlo_iota_replica_groups_huge_group_count_hang.hlo", 5, 53),
    ("08_mlir_replica_group_mesh_axes_huge_axis_hang.mlir", 2, 62),
])
def test_robustness_reproducers_fail_promptly_where_the_groups_are(shared_dir: Path, name: str,
                                                                   line: int, column: int) -> None:
    path = shared_dir / "robustness" / name
    start = time.process_time()
    with pytest.raises(ParseError) as info:
        hlo_passes.parse_file(path)
    assert time.process_time() - start < 5  # not a timing target: it used to hang
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert "more than 1048576 devices" in err.reason
    with pytest.raises(ParseError):
        hlo_passes.parse_file(path, validate=True)


def test_stablehlo_mesh_axes_name_their_mesh_by_symbol() -> None:
    """jax 0.12 lowers an explicit all_gather's groups as mesh axes of a ``sdy.mesh``."""
    text = '''module @m attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh_0 = <["a"=2, "b"=4], device_ids=[0, 4, 1, 5, 2, 6, 3, 7]>
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<16xf32> {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
'''
    module = hlo_passes.parse(text, validate=True)
    (gather,) = [i for i in module.instructions() if i.opcode == "all-gather"]
    assert gather.attributes["replica_groups"] == ((0, 4, 1, 5), (2, 6, 3, 7))
    assert module.to_text() == text


def test_the_devices_a_module_declares_are_read_alike_in_both_dialects() -> None:
    """``Module.declared_devices``: (replicas, partitions) from HLO's header or StableHLO's module
    attributes, 1 where absent; the one reading claims, runtime and the rules use, and the one
    jax's own MLIR reading gives for the same program (``runtime._replicas_and_partitions``)."""
    hlo = hlo_passes.parse(_GATHER.replace("SIZE", "8").replace("RG", "{}"), dialect="hlo")
    assert hlo.declared_devices == (1, 8)
    two = hlo_passes.parse(_GATHER.replace("num_partitions=8", "num_partitions=4, replica_count=2")
                           .replace("SIZE", "8").replace("RG", "{}"), dialect="hlo")
    assert two.declared_devices == (2, 4)
    mlir = ('module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32} {\n'
            '  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n'
            '    return %arg0 : tensor<2xf32>\n  }\n}\n')
    assert hlo_passes.parse(mlir, dialect="stablehlo").declared_devices == (2, 4)
    assert runtime._replicas_and_partitions(hlo_passes._jax_compat.parse_mlir(mlir)) == (2, 4)
    bare = mlir.replace(" attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32}", "")
    assert hlo_passes.parse(bare, dialect="stablehlo").declared_devices == (1, 1)
