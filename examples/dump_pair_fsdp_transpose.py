"""Write XLA dumps of the two weights with F on ``fsdp_transpose`` (``examples/moe_pair_fsdp_transpose.py``):
``python examples/dump_pair_fsdp_transpose.py OUT``; the stages, files and manifest of ``dump_programs.py``.
"""
from __future__ import annotations

import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pathlib import Path  # noqa: E402

import jax  # noqa: E402

from examples import dump_pair_programs, moe_pair_fsdp_transpose as ft  # noqa: E402

# name -> (form, variant, mode) of ``ft.build``
FSDP_TRANSPOSE_PROGRAMS: dict[str, tuple[str, str, str]] = {
    f"{variant}_{form}_{mode}": (form, variant, mode)
    for form in ft.FORMS for variant in ft.VARIANTS for mode in ("forward",)
}


def lower(spec: tuple[str, str, str]) -> jax.stages.Lowered:
    fn, args = ft.build(*spec)
    return fn.lower(*args)


def dump(out: Path) -> dict[str, dict[str, str]]:
    return dump_pair_programs.dump_others(out, FSDP_TRANSPOSE_PROGRAMS, lower)


if __name__ == "__main__":
    sys.exit(dump_pair_programs.main(doc=__doc__, dump_fn=dump))
