"""Write XLA dumps of the weight-layout programs (issue 32): ``python examples/dump_form_programs.py OUT``.

The same stages, files and manifest as ``dump_programs.py`` (its ``dump`` writes them), for the
programs of ``examples/moe_weight_forms.py`` in ``FORM_DUMP_PROGRAMS``: each layout as written
and its already-fused twin.  A script of its own so that ``dump_programs.py``, whose line numbers
are in the golden dumps' stack frames, stays as it is.
"""
from __future__ import annotations

import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

from examples import dump_programs, moe_weight_forms  # noqa: E402  (jax reads XLA_FLAGS at its first compile)
from examples.moe_weight_forms import FormSpec  # noqa: E402

FORM_DUMP_PROGRAMS: dict[str, FormSpec] = {
    spec.name: spec
    for spec in (
        FormSpec(form="up_first"),
        FormSpec(form="up_first", meet="concat", mesh="mesh2"),
        FormSpec(form="up_first_pair"),
        FormSpec(form="size2"),
        FormSpec(form="size2", mesh="mesh2", mode="scan", checkpoint=True),
        FormSpec(form="interleaved"),
        FormSpec(form="interleaved", mesh="mesh2", mode="scan"),
        *(FormSpec(form=form, variant="fused") for form in moe_weight_forms.WEIGHT_FORMS),
    )
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over ``FORM_DUMP_PROGRAMS``, lowered by ``moe_weight_forms.lower``."""
    saved = dump_programs.DUMP_PROGRAMS, dump_programs.lower
    dump_programs.DUMP_PROGRAMS, dump_programs.lower = FORM_DUMP_PROGRAMS, moe_weight_forms.lower
    try:
        return dump_programs.dump(out)
    finally:
        dump_programs.DUMP_PROGRAMS, dump_programs.lower = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the dumps into")
    args = parser.parse_args(argv)
    flags = os.environ.get("XLA_FLAGS", "").split()
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in flags):
        flags.append("--xla_force_host_platform_device_count=8")
    os.environ["XLA_FLAGS"] = " ".join(flags + [f for f in dump_programs.DUMP_FLAGS if f not in flags])
    for name, stages in dump(args.out).items():
        print(f"{name}: {len(stages)} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
