"""Write XLA dumps of the two-weight programs (MOE003): ``python examples/dump_pair_programs.py OUT``.

The same stages, files and manifest as ``dump_programs.py`` (its ``dump`` writes them), for
the programs of ``examples/moe_pair.py`` in ``PAIR_DUMP_PROGRAMS``: one per form, and the implicit
form with F on a tensor-parallel axis of size 2 and of size 1.  A script of
its own so that ``dump_programs.py``, whose line numbers are in the golden dumps' stack
frames, stays as it is.
"""
from __future__ import annotations

import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

from examples import dump_programs, moe_pair  # noqa: E402  (jax reads XLA_FLAGS at its first compile)

PAIR_DUMP_PROGRAMS: dict[str, moe_pair.PairSpec] = {
    spec.name: spec
    for spec in (
        moe_pair.PairSpec(form="explicit", mesh="mesh2"),
        moe_pair.PairSpec(form="implicit", mode="grad"),
        moe_pair.PairSpec(form="concat_inside", mesh="mesh2"),
        # F on a tensor-parallel axis, of size 2 and of size 1 (issue 27: one verdict per site).
        moe_pair.PairSpec(form="implicit", tensor=2),
        moe_pair.PairSpec(form="implicit", tensor=1),
    )
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over ``PAIR_DUMP_PROGRAMS``, lowered by ``moe_pair.lower``."""
    return dump_others(out, PAIR_DUMP_PROGRAMS, moe_pair.lower)


def dump_others(out: Path, programs: dict, lower: Callable) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over other ``programs`` (name → spec), each lowered by ``lower``."""
    saved = dump_programs.DUMP_PROGRAMS, dump_programs.lower
    dump_programs.DUMP_PROGRAMS, dump_programs.lower = programs, lower
    try:
        return dump_programs.dump(out)
    finally:
        dump_programs.DUMP_PROGRAMS, dump_programs.lower = saved


def main(argv: list[str] | None = None, *, doc: str | None = None,
         dump_fn: Callable[[Path], dict[str, dict[str, str]]] = dump) -> int:
    """The script: ``dump_fn`` into the folder given (``doc``: the script's docstring)."""
    parser = argparse.ArgumentParser(description=(doc or __doc__).splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the dumps into")
    args = parser.parse_args(argv)
    flags = os.environ.get("XLA_FLAGS", "").split()
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in flags):
        flags.append("--xla_force_host_platform_device_count=8")
    os.environ["XLA_FLAGS"] = " ".join(flags + [f for f in dump_programs.DUMP_FLAGS if f not in flags])
    for name, stages in dump_fn(args.out).items():
        print(f"{name}: {len(stages)} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
