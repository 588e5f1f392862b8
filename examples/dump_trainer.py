"""Write XLA's texts of the training step of examples/moe_trainer.py: ``python examples/dump_trainer.py OUT``.

The step with ``layout="prefused"`` and ``fsdp="split"`` (the split dimension sharded on a second
mesh axis), in the stages examples/dump_programs.py writes for its programs (StableHLO jax lowers;
HLO before optimizations, after Shardy's import, after SPMD partitioning, after optimizations),
into ``OUT/trainer_prefused_split/``, with ``OUT/manifest.json`` as dump_programs.py writes it.
A process of its own: XLA reads its dump flags once.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - flags must precede the jax import
    os.environ["XLA_FLAGS"] = ("--xla_force_host_platform_device_count=8 --xla_dump_hlo_as_text "
                               "--xla_dump_hlo_pass_re=spmd")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import json
import re
from pathlib import Path

from examples import moe_trainer
from examples.dump_programs import DUMP_STAGES

NAME = "trainer_prefused_split"


def main(out: Path) -> dict[str, str]:
    folder = out / NAME
    folder.mkdir(parents=True, exist_ok=True)
    step, state = moe_trainer.build("prefused", "split")
    lowered = step.lower(*state)
    lowered.compile(compiler_options={"xla_dump_to": str(folder)})
    (folder / f"{NAME}.stablehlo.mlir").write_text(lowered.as_text())
    stages = {"stablehlo": f"{NAME}/{NAME}.stablehlo.mlir"}
    for path in sorted(folder.glob("*jit_step*.txt")):  # the step's modules, not the setup's
        stages.update((stage, f"{NAME}/{path.name}") for stage, pattern in DUMP_STAGES.items()
                      if re.search(pattern, path.name))
    missing = set(DUMP_STAGES) - set(stages)
    if missing:
        raise RuntimeError(f"XLA wrote no dump for {sorted(missing)} in {folder}")
    (out / "manifest.json").write_text(json.dumps({NAME: stages}, indent=2, sort_keys=True) + "\n")
    return stages


if __name__ == "__main__":
    print(f"{NAME}: {len(main(Path(sys.argv[1])))} stages")
