"""Dump the two-weight training programs of examples/moe_pair.py at XLA's stages (MOE004's tests).

``python tests/pair_dumps_worker.py OUT``: each program of ``PROGRAMS`` is compiled for 8
CPU devices with ``xla_dump_to=OUT/<name>``; OUT/manifest.json maps each name to its
``before_optimizations`` and ``after_spmd_partitioning`` module files
(examples/dump_programs.py's stage patterns).  A child process of its own, because XLA
reads its dump flags once per process.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = ("--xla_force_host_platform_device_count=8 --xla_dump_hlo_as_text "
                           "--xla_dump_hlo_pass_re=spmd")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples import moe_pair  # noqa: E402
from examples.dump_programs import DUMP_STAGES  # noqa: E402

PROGRAMS = {s.name: s for s in (
    moe_pair.PairSpec(form="explicit", mesh="mesh2", mode="grad"),
    moe_pair.PairSpec(form="implicit", mesh="mesh1", mode="grad", checkpoint=True),
    moe_pair.PairSpec(form="concat_inside", mesh="mesh1", mode="grad"),
)}
STAGES = ("before_optimizations", "after_spmd_partitioning")


def main(out: str) -> int:
    root = Path(out)
    manifest = {}
    for name, spec in PROGRAMS.items():
        folder = root / name
        moe_pair.lower(spec).compile(compiler_options={"xla_dump_to": str(folder)})
        found = {}
        for path in sorted(folder.rglob("*.txt")):
            for stage in STAGES:
                if re.search(DUMP_STAGES[stage], path.name):
                    found[stage] = str(path)
        if set(found) != set(STAGES):
            raise RuntimeError(f"{name}: no dump for {sorted(set(STAGES) - set(found))} in {folder}")
        manifest[name] = found
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
