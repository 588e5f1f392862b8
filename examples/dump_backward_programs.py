"""Write XLA dumps of the weight-layout training steps (issue 32, the backward):
``python examples/dump_backward_programs.py OUT``.

The same stages, files and manifest as ``dump_programs.py``, for the ``mode="grad"`` programs of
``examples/moe_weight_forms.py`` whose weight gradient is put back into a layout that does not
hold the halves side by side (a separate size-2 axis, interleaved halves), each with its
already-fused twin.  A script of its own so that ``dump_form_programs.py``'s programs, one site
each, stay as they are.
"""
from __future__ import annotations

import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pathlib import Path  # noqa: E402

from examples import dump_pair_programs, moe_weight_forms  # noqa: E402  (jax reads XLA_FLAGS at its first compile)
from examples.moe_weight_forms import FormSpec  # noqa: E402

BACKWARD_DUMP_PROGRAMS: dict[str, FormSpec] = {
    spec.name: spec
    for form in ("size2", "interleaved")
    for spec in (FormSpec(form=form, mode="grad"), FormSpec(form=form, mode="grad", variant="fused"))
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over ``BACKWARD_DUMP_PROGRAMS``, lowered by ``moe_weight_forms.lower``."""
    return dump_pair_programs.dump_others(out, BACKWARD_DUMP_PROGRAMS, moe_weight_forms.lower)


if __name__ == "__main__":
    sys.exit(dump_pair_programs.main(doc=__doc__, dump_fn=dump))
