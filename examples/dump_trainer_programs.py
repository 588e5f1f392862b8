"""Write XLA dumps of the training steps of ``examples/moe_trainer.py``:
``python examples/dump_trainer_programs.py OUT``.

As ``dump_programs.py`` (its dump driver, through ``dump_pair_programs.dump_others``): per
program the StableHLO jax lowered and XLA's HLO before optimizations, after Shardy import,
after SPMD partitioning and after optimizations, and ``OUT/manifest.json``.  The programs: the
prefused weight (the pattern), the two weights (MOE003/MOE004's form) and the weight gathered
whole (the negative control), each with its FFN in a shard_map whose entry the partitioner
gathers at (``ffn="shard_map"``) or with no shard_map at all, the partitioner inserting the
gathers and the weight gradients' reductions (``ffn="partitioner"``); and the prefused weight with
its split dimension sharded on a second mesh axis (``fsdp="split"``: the partitioner cuts each
half's pieces out with collective-permutes, ``trainer_prefused_split``).
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - run as a script: the package is one folder up
    if not __package__:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pathlib import Path
from typing import Any

# (layout, fsdp, ffn) of moe_trainer.build, by program name.
TRAINER_DUMP_PROGRAMS: dict[str, tuple[str, str, str]] = {
    f"trainer_{layout}_{ffn}": (layout, "one", ffn)
    for layout in ("prefused", "pair", "fused")
    for ffn in ("shard_map", "partitioner")
}
TRAINER_DUMP_PROGRAMS["trainer_prefused_split"] = ("prefused", "split", "shard_map")


def lower(program: tuple[str, str, str]) -> Any:
    """The training step of ``program``, lowered for the arguments it is built with."""
    from examples import moe_trainer

    layout, fsdp, ffn = program
    step, state = moe_trainer.build(layout, fsdp, ffn=ffn)
    return step.lower(*state)


def dump(out: Path) -> dict[str, dict[str, str]]:
    import shutil

    from examples.dump_pair_programs import dump_others

    # Building a step's state compiles small programs of its own (the optimizer's zeros): their
    # dumps go to a scratch folder, deleted after (without one XLA prints them on stdout).
    scratch = out / "_building"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={scratch}".strip()
    try:
        return dump_others(out, TRAINER_DUMP_PROGRAMS, lower)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    from examples.dump_pair_programs import main

    sys.exit(main(doc=__doc__, dump_fn=dump))
