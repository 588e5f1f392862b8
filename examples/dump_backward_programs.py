"""Write XLA dumps of the weight-layout training steps (issue 32, the backward):
``python examples/dump_backward_programs.py OUT``.

The same stages, files and manifest as ``dump_programs.py``, for the ``mode="grad"`` programs of
``examples/moe_weight_forms.py`` whose weight gradient is put back into a layout that does not
hold the halves side by side (a separate size-2 axis, interleaved halves), and of
``examples/moe_pair_fsdp_transpose.py`` (two weights with F on ``fsdp_transpose``, their
gradients reduce-scattered along F), each with its already-fused twin.  A script of its own so
that the forward dump scripts' programs, one site each, stay as they are.
"""
from __future__ import annotations

import json
import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pathlib import Path  # noqa: E402

from examples import dump_pair_programs, moe_weight_forms  # noqa: E402  (jax reads XLA_FLAGS at its first compile)
from examples import dump_pair_fsdp_transpose, moe_pair_fsdp_transpose  # noqa: E402
from examples.moe_weight_forms import FormSpec  # noqa: E402

BACKWARD_DUMP_PROGRAMS: dict[str, FormSpec] = {
    spec.name: spec
    for form in ("size2", "interleaved")
    for spec in (FormSpec(form=form, mode="grad"), FormSpec(form=form, mode="grad", variant="fused"))
}

# name -> (form, variant, mode) of ``moe_pair_fsdp_transpose.build``: the training steps.
PAIR_BACKWARD_PROGRAMS: dict[str, tuple[str, str, str]] = {
    f"{variant}_{form}_grad": (form, variant, "grad")
    for form in moe_pair_fsdp_transpose.FORMS for variant in moe_pair_fsdp_transpose.VARIANTS
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over both sets of programs, one manifest for all."""
    manifest = dump_pair_programs.dump_others(out, BACKWARD_DUMP_PROGRAMS, moe_weight_forms.lower)
    manifest.update(dump_pair_programs.dump_others(out, PAIR_BACKWARD_PROGRAMS, dump_pair_fsdp_transpose.lower))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


if __name__ == "__main__":
    sys.exit(dump_pair_programs.main(doc=__doc__, dump_fn=dump))
