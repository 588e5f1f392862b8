"""The rules and the hook on meshes of 64 and 256 devices (one process, that many fake CPU devices).

Each mesh size runs tests/big_mesh_worker.py in a process of its own (jax
fixes the device count when it starts); both run at once, under a deadline.
W is FSDP-sharded over all devices, in one stage (mesh1) and two (mesh2:
8 × 8, 16 × 16).  What the worker saw is checked here: sites found, rewritten
modules compiled and equal to the originals, all-gathers halved, replica
groups in the spellings XLA writes at that size.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().with_name("big_mesh_worker.py")
SIZES = (64, 256)
TIMEOUT_S = 420


def _jaxlib() -> tuple[int, ...]:
    return tuple(int(p) for p in metadata.version("jaxlib").split(".")[:2])


@pytest.fixture(scope="module")
def big_meshes(tmp_path_factory) -> dict[int, dict]:
    out = tmp_path_factory.mktemp("big_mesh")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # the worker sets its own devices
    procs = {}
    try:
        for n in SIZES:
            procs[n] = subprocess.Popen([sys.executable, str(WORKER), str(n), str(out / f"{n}.json")], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for n, p in procs.items():
            try:
                output, _ = p.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the {n}-device worker did not finish within {TIMEOUT_S} s")
            assert p.returncode == 0, f"{n} devices:\n" + output.decode(errors="replace")[-5000:]
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    return {n: json.loads((out / f"{n}.json").read_text()) for n in SIZES}


def _expected_mesh(name: str, n: int) -> dict[str, int]:
    if name.startswith("mesh1"):
        return {"fsdp": n}
    side = math.isqrt(n)
    return {"fsdp": side, "fsdp_transpose": side}


@pytest.mark.parametrize("n", SIZES)
def test_sites_found_rewrites_compile_equal_with_half_the_gathers(big_meshes, n: int) -> None:
    record = big_meshes[n]
    assert record["devices"] == n
    assert len(record["programs"]) == 5
    for name, program in record["programs"].items():
        assert program["mesh"] == _expected_mesh(name, n), name
        want_rules = {"moe-gather-fusion", "moe-gradient-fusion"} if "_grad" in name else {"moe-gather-fusion"}
        stages = len(program["mesh"])
        assert program["gathers_original"] == 2 * stages, name
        for dialect in ("stablehlo", "hlo"):
            got = program[dialect]
            assert {rule for rule, _, rewritten in got["sites"] if rewritten} == want_rules, (name, dialect)
            # Per rule: half the collectives (explicit: 2 per stage before, 1 after; an implicit
            # site also counts the sharding steps the partitioner turns into gathers).
            assert all(before == 2 * after for _, before, after in got["collectives"]), got
            if "_explicit_" in name:
                assert all(before == 2 * stages for _, before, _ in got["collectives"]), got
            assert got["gathers"] == stages, (name, dialect)
            assert got["equal"], (name, dialect)
            _check_groups(got, name, n)
            if "_explicit_" in name:
                assert got["group_sizes"], (name, dialect)


def _check_groups(got: dict, name: str, n: int) -> None:
    """The replica groups decoded, in whatever spelling: one axis, or all devices, each device once."""
    assert not got["undecoded"], (name, got["undecoded"])
    if not got["group_sizes"]:
        return  # Shardy-implicit StableHLO: no collective before partitioning
    side = math.isqrt(n)
    allowed = {n} if name.startswith("mesh1") else {side, n}
    assert got["partitions"] and set(got["group_sizes"]) <= allowed, (name, got["group_sizes"])


@pytest.mark.parametrize("n", SIZES)
def test_the_hook_trains_like_jax_jit_on_a_big_mesh(big_meshes, n: int) -> None:
    for kind, hook in big_meshes[n]["hook"].items():
        stages = 1 if kind == "mesh1" else 2
        assert hook["rules"] == ["moe-gather-fusion", "moe-gradient-fusion"] and hook["rewritten"], kind
        assert hook["gathers"] == [2 * stages, stages], kind
        assert hook["equal"], kind


@pytest.mark.parametrize("n", SIZES)
def test_partitioned_dumps(big_meshes, n: int) -> None:
    compiled = []
    programs = big_meshes[n]["programs"]
    for name, program in programs.items():
        (d,) = program["dumps"]  # the after-SPMD dump of compiling the original
        assert "parse_error" not in d, (name, d)
        assert any(rule == "moe-gather-fusion" and rewritten for rule, _, rewritten in d["sites"]), (name, d)
        _check_groups(d, name, n)
        assert not d["undecoded"], (name, d)
        before, after = d["gathers"]
        assert before == 2 * after, (name, d)
        if d["original_is_jax"]:
            # The dump, run one replica per device, computes jax's results: so must the rewrite.
            assert d["equal"], (name, d)
        else:
            # runtime's partitioned mode turns partition-id into replica-id; on the two-stage implicit
            # gradient from 16 devices on (jax 0.10 and 0.12 alike), the dump's own dW then comes out in
            # another device's place (its partition-id lookup table): nothing to compare the rewrite with.
            assert d["partition_id"] and name.startswith("mesh2_") and "_implicit_grad" in name, (name, d)
        compiled.append(d)
    # The implicit two-stage programs' dumps hold the iota and mesh spellings.
    assert any({"iota", "mesh"} <= set(d["spellings"]) for d in compiled), [d["spellings"] for d in compiled]


@pytest.mark.parametrize("n", SIZES)
def test_replica_groups_in_every_spelling_xla_writes_at_this_size(big_meshes, n: int) -> None:
    record = big_meshes[n]
    texts = {dialect: set() for dialect in ("stablehlo", "hlo", "dump")}
    for program in record["programs"].values():
        for dialect in ("stablehlo", "hlo"):
            texts[dialect].update(program[dialect]["spellings"])
        for d in program["dumps"]:
            texts["dump"].update(d["spellings"])
    if _jaxlib() >= (0, 12):
        expected = {"stablehlo": {"mesh_axes"}, "hlo": {"mesh"}, "dump": {"iota", "mesh"}}
    else:
        expected = {"stablehlo": {"dense"}, "hlo": {"explicit"}, "dump": {"explicit", "iota", "mesh"}}
    for dialect, spellings in expected.items():
        assert spellings <= texts[dialect], (dialect, texts[dialect])


def test_replica_groups_in_mlir_hex_decode_like_the_literal_list() -> None:
    """MLIR prints large constants as raw hex (dense<"0x...">): jax's replica groups from 16 × 16
    devices on.  The same module with its groups in either spelling decodes, rewrites and runs alike."""
    import re
    import struct

    import numpy as np

    import hlo_passes
    from examples import moe
    from hlo_passes import runtime

    def to_hex(m: re.Match) -> str:
        rows = [[int(x) for x in row.split(",")] for row in re.findall(r"\[([\d,\s]+)\]", m.group(1))]
        data = "".join(struct.pack("<q", x).hex().upper() for row in rows for x in row)
        return f'replica_groups = dense<"0x{data}"> : tensor<{len(rows)}x{len(rows[0])}xi64>'

    literal = (REPO / "examples" / "data" / "moe_mesh2_concat.mlir").read_text()
    hexed = re.sub(r"replica_groups = dense<(\[\[[\d,\s\[\]]+\]\])> : tensor<\d+x\d+xi64>", to_hex, literal)
    assert hexed.count('dense<"0x') == literal.count("replica_groups = dense<[[") > 0

    def groups(text: str) -> list:
        return [i.attributes["replica_groups"] for i in hlo_passes.parse(text).instructions()
                if "replica_groups" in i.attributes]

    assert groups(hexed) == groups(literal) and groups(literal)[0] == ((0, 1, 2, 3), (4, 5, 6, 7))
    results = [hlo_passes.run_passes(hlo_passes.parse(t)) for t in (literal, hexed)]
    assert [(s.rule, s.form, s.before, s.after) for s in results[0].sites] == \
        [(s.rule, s.form, s.before, s.after) for s in results[1].sites] != []
    spec = moe.ProgramSpec(variant="concat", mesh="mesh2")
    args = moe.host_inputs(spec)
    want = runtime.compile_text(literal, num_devices=8).run(*args)
    got = runtime.compile_text(results[1].module.to_text(), num_devices=8).run(*args)
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-5, atol=1e-5)
