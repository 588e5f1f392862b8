"""Compile modules and list the collectives of each one's program after SPMD partitioning.

``python tests/spmd_counts_worker.py LIST OUT.json``: LIST holds one module path per
line; each is compiled for 8 CPU devices with XLA dumping the module after its SPMD
partitioner (``--xla_dump_hlo_pass_re=spmd``), before any combiner merges collectives.
OUT.json: per path, ``[opcode, [result dims], bytes received]`` of every collective there.  The module
the partitioner was given (after Shardy's export, ``*after_shardy-xla*``) is kept next to
each input as ``PATH.after_shardy``, where XLA wrote one.  A child process of its own,
because XLA reads its dump flags once per process.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

DUMP = tempfile.mkdtemp(prefix="spmd_counts_")
# Nothing compiled here runs: only the HLO passes up to SPMD partitioning matter, and LLVM's
# optimizations of the CPU code after them were most of the worker's time (its output, the
# dumps and so the counts, are the same bytes without them: docs/testing.md).
os.environ["XLA_FLAGS"] = (f"--xla_force_host_platform_device_count=8 --xla_dump_to={DUMP} "
                           "--xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd "
                           "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hlo_passes  # noqa: E402
from hlo_passes import runtime  # noqa: E402
from hlo_passes.report import bytes_received  # noqa: E402

COLLECTIVES = ("all-gather", "all-reduce", "reduce-scatter", "collective-permute", "all-to-all")


def collectives(text: str) -> list[tuple[str, list[int], int]]:
    """(opcode, result dims, bytes each device receives) of every collective of ``text``."""
    module = hlo_passes.parse(text, dialect="hlo")
    found = []
    for instr in module.instructions():
        base = instr.opcode.removesuffix("-start")
        if base in COLLECTIVES:
            shapes = instr.shape.tuple_shapes if instr.shape.is_tuple else (instr.shape,)
            # A combined one counts per operand.
            found.extend((base, list(s.dims), bytes_received(base, s.byte_size, op.shape.byte_size))
                         for s, op in zip(shapes, instr.operands))
    return found


def main(listing: str, out: str) -> int:
    results = {}
    for path in Path(listing).read_text().split():
        seen = set(os.listdir(DUMP))
        runtime.compile_text(Path(path).read_text(), num_devices=8, cache=False)
        new = [n for n in os.listdir(DUMP) if n not in seen and "after_spmd-partitioning" in n and n.endswith(".txt")]
        if len(new) != 1:
            raise RuntimeError(f"{path}: expected one after-SPMD dump, found {new}")
        results[path] = collectives((Path(DUMP) / new[0]).read_text())
        given = [n for n in os.listdir(DUMP) if n not in seen and "after_shardy" in n and n.endswith(".txt")]
        if len(given) == 1:
            Path(f"{path}.after_shardy").write_text((Path(DUMP) / given[0]).read_text())
    Path(out).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
