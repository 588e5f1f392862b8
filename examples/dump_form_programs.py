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

from pathlib import Path  # noqa: E402

from examples import dump_pair_programs, moe_weight_forms  # noqa: E402  (jax reads XLA_FLAGS at its first compile)
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
        # MaxText's way: constraints on the halves of the global weight, Shardy's gathers.
        FormSpec(form="size2", collectives="implicit"),
        FormSpec(form="interleaved", collectives="implicit", mesh="mesh2"),
        FormSpec(form="up_first", collectives="implicit"),
        FormSpec(form="size2", collectives="implicit", variant="fused"),
        *(FormSpec(form=form, variant="fused") for form in moe_weight_forms.WEIGHT_FORMS),
    )
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over ``FORM_DUMP_PROGRAMS``, lowered by ``moe_weight_forms.lower``."""
    return dump_pair_programs.dump_others(out, FORM_DUMP_PROGRAMS, moe_weight_forms.lower)


if __name__ == "__main__":
    sys.exit(dump_pair_programs.main(doc=__doc__, dump_fn=dump))
