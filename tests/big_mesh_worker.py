"""The rules and the hook on a big mesh, in one process: ``python tests/big_mesh_worker.py N OUT.json``.

N fake CPU devices (the count is fixed when jax starts, so each mesh size is a
process of its own).  Programs of examples/moe.py with W FSDP-sharded over all
N devices, one stage (``mesh1``: N) and two (``mesh2``: √N × √N, e.g. 16 × 16),
explicit gathers (shard_map) and Shardy-implicit ones, value and gradient:

* each program's StableHLO and HLO text: the sites, the rewritten module
  compiled and run against the original (outputs, compiled all-gathers);
* XLA's dumps of the same programs after SPMD partitioning, where XLA writes
  the replica groups of N devices in its compact spellings;
* the training step through ``hlo_passes.jit`` against ``jax.jit``.

Writes what it saw as JSON (tests/test_big_mesh.py checks it; times are
recorded, never asserted).
"""
from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

N = int(sys.argv[1]) if __name__ == "__main__" else 8
DUMP_DIR = Path(tempfile.mkdtemp(prefix=f"hlo_passes_big_mesh_{N}_"))
if __name__ == "__main__":
    os.environ["XLA_FLAGS"] = (f"--xla_force_host_platform_device_count={N} --xla_dump_to={DUMP_DIR} "
                               "--xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402
from examples import moe  # noqa: E402
from hlo_passes import runtime  # noqa: E402
from hlo_passes.errors import ParseError  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402

# How the texts spell the replica groups of a collective.
SPELLINGS = {
    "explicit": re.compile(r"replica_groups=\{\{"),  # {{0,1,...},{...}}
    "iota": re.compile(r"replica_groups=\[\d+(?:,\d+)*\]<=\["),  # [16,16]<=[256], [16,16]<=[16,16]T(1,0)
    "mesh": re.compile(r"replica_groups=mesh\["),  # mesh['fsdp'=16,...] {'fsdp'} (jax 0.12) / mesh['axis_0'=...]
    "dense": re.compile(r"replica_groups = dense<"),  # StableHLO, jax 0.10
    "mesh_axes": re.compile(r"replica_group_mesh_axes"),  # StableHLO, jax 0.12
}
F32 = dict(rtol=1e-5, atol=1e-5)


def spellings(text: str) -> list[str]:
    return sorted(name for name, pattern in SPELLINGS.items() if pattern.search(text))


def _close(got, want) -> bool:
    return all(np.allclose(np.asarray(g, np.float32), np.asarray(w, np.float32), **F32)
               for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)))


def replica_groups(module) -> dict:
    """Every collective's decoded replica groups: their sizes, and whether each covers the N devices once
    (``undecoded``: groups the parser hands back as text, e.g. a mesh named by symbol)."""
    sizes, partitions, undecoded = set(), True, []
    for instr in module.instructions():
        if instr.opcode in ("all-gather", "all-reduce", "reduce-scatter", "all-to-all") and \
                "replica_groups" in instr.attributes:
            groups = instr.attributes["replica_groups"]
            if isinstance(groups, str):
                undecoded.append(groups[:120])
                continue
            sizes.update(len(g) for g in groups)
            partitions &= sorted(d for g in groups for d in g) == list(range(N))
    return {"group_sizes": sorted(sizes), "partitions": partitions, "undecoded": sorted(set(undecoded))}


def _gathers(text: str) -> int:
    return runtime.count_ops(text)["all-gather"]


def programs() -> list[moe.ProgramSpec]:
    """Value and gradient on both meshes in both forms, and the forward implicit two-stage program
    (the gather rule alone; its partitioned dump spells replica groups as iota and mesh)."""
    cfg = moe.MoEConfig(embed=max(64, N), tokens=32)
    grads = [moe.ProgramSpec(variant="concat", mesh=m, form=f, mode="grad", num_devices=N, cfg=cfg)
             for m in moe.MESHES for f in moe.FORMS]
    return grads + [moe.ProgramSpec(variant="concat", mesh="mesh2", form="implicit", num_devices=N, cfg=cfg)]


def check_texts(spec: moe.ProgramSpec) -> dict:
    """Both text forms of one program: sites, and the rewrite compiled and run against the original."""
    fn, args = moe.build(spec)
    lowered = fn.lower(*args)
    host = moe.host_inputs(spec)
    dumped = set(DUMP_DIR.iterdir())
    original = runtime.compile_text(lowered.as_text(), num_devices=N)
    want = original.run(*host)
    mesh = moe.program_mesh(spec)
    out = {"mesh": dict(mesh.shape), "gathers_original": _gathers(original.compiled_text),
           # XLA's dumps of compiling the original (not of the rewrites compiled below).
           "dumps": check_dumps(sorted(set(DUMP_DIR.iterdir()) - dumped), _per_device(fn, args, mesh))}
    for dialect in ("stablehlo", "hlo"):
        text = lowered.as_text(dialect=dialect)
        t0 = time.perf_counter()
        module = hlo_passes.parse(text)
        groups = replica_groups(module)
        result = run_passes(module, copy=False)
        took = time.perf_counter() - t0
        new_text = result.module.to_text()
        exe = runtime.compile_text(new_text, num_devices=N)
        out[dialect] = {
            "spellings": spellings(text),
            **groups,
            "sites": sorted((s.rule, s.form, s.rewritten) for s in result.sites),
            "collectives": [(s.rule, s.before.count, s.after.count) for s in result.sites],
            "gathers": _gathers(exe.compiled_text),
            "equal": _close(exe.run(*host), want),
            "rewrite_s": took,
        }
    return out


def _per_device(fn, args, mesh) -> tuple[list, list]:
    """What jax gives each device (in the mesh's order: partition i is its i-th device) and
    each device's shards of jax's results."""
    order = list(mesh.devices.flat)

    def shard_on(array, device):
        return np.asarray(next(s.data for s in array.addressable_shards if s.device == device))

    inputs = [[shard_on(a, d) for d in order] for a in args]
    outputs = [[shard_on(o, d) for d in order] for o in jax.tree.leaves(fn(*args))]
    return inputs, outputs


def check_dumps(paths: list[Path], per_device: tuple[list, list]) -> list[dict]:
    """XLA's after-SPMD-partitioning dumps among ``paths``: one device's program each, run
    on every device with jax's shards and compared with jax's shards of the results."""
    rows = []
    for path in paths:
        if "after_spmd-partitioning" not in path.name or path.suffix != ".txt":
            continue
        text = path.read_text()
        row = {"file": path.name, "spellings": spellings(text)}
        try:
            module = hlo_passes.parse(text)
            row.update(replica_groups(module))
            result = run_passes(module, copy=False)
        except ParseError as err:
            row["parse_error"] = str(err).splitlines()[0]
            rows.append(row)
            continue
        row["sites"] = sorted((s.rule, s.form, s.rewritten) for s in result.sites)
        row["collectives"] = [(s.rule, s.before.count, s.after.count) for s in result.sites]
        if result.changed:
            # One device's program: run as one replica per device (runtime's partitioned mode).
            original = runtime.compile_text(text, num_devices=N, partitioned=True)
            exe = runtime.compile_text(result.module.to_text(), num_devices=N, partitioned=True)
            row["gathers"] = [_gathers(original.compiled_text), _gathers(exe.compiled_text)]
            inputs, want = per_device
            before = original.run_per_device(*inputs)
            row["equal"] = _close(exe.run_per_device(*inputs), before)
            # Whether the dump, run here, computes jax's results at all: a partition-id in it
            # (from the gradient's dynamic-slices) is not reproduced by one-replica-per-device runs.
            row["original_is_jax"] = _close(before, want)
            row["partition_id"] = "partition-id(" in text
        rows.append(row)
    return rows


def check_hook(kind: str) -> dict:
    """The training step through hlo_passes.jit against jax.jit, 2 steps.

    With SGD: the parameters move by the gradients themselves, which agree to
    float32 rounding.  (Adam divides each gradient by its own size: an entry
    near zero, a sum of 256 partial sums that cancel, turns rounding into a
    visible step; the single-device and multi-process tests use Adam.)
    """
    import optax
    from multihost_worker import train_step

    spec = moe.ProgramSpec(variant="concat", mesh=kind, num_devices=N, cfg=moe.MoEConfig(embed=max(64, N), tokens=32))
    step, params, opt_state, x, gs = train_step(moe.program_mesh(spec), spec, moe, optax.sgd(1e-2))
    plain, fused = jax.jit(step), hlo_passes.jit(step)
    lowered = fused.lower(params, opt_state, x, gs)
    p0, s0, p1, s1 = params, opt_state, params, opt_state
    for _ in range(2):
        p0, s0, _ = plain(p0, s0, x, gs)
        p1, s1, _ = fused(p1, s1, x, gs)
    return {
        "rules": sorted({s.rule for s in lowered.report}),
        "rewritten": lowered.rewritten,
        "gathers": [_gathers(plain.lower(params, opt_state, x, gs).compile().as_text()),
                    _gathers(lowered.compile().as_text())],
        "equal": _close(p1, p0),
    }


def main(out: Path) -> int:
    t0 = time.perf_counter()
    record: dict = {"devices": jax.device_count(), "jaxlib": jax.lib.__version__ if hasattr(jax, "lib") else None}
    record["programs"] = {spec.name: check_texts(spec) for spec in programs()}
    record["hook"] = {kind: check_hook(kind) for kind in moe.MESHES}
    record["seconds"] = time.perf_counter() - t0
    out.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[2])))
