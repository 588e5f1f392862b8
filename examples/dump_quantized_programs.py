"""Write XLA dumps of the quantized-weight programs (issue 32): ``python examples/dump_quantized_programs.py OUT``.

The same stages, files and manifest as ``dump_programs.py`` (its ``dump`` writes them), for the
programs of ``examples/moe_quantized.py`` in ``QUANT_DUMP_PROGRAMS``: MaxText's quantized
all-gather (int8 and fp8, scales replicated and sharded, concat and two GMMs) and XLA's
CollectiveQuantizer form, each as written and as its already-fused twin.
"""
from __future__ import annotations

import os
import sys

if not __package__:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pathlib import Path  # noqa: E402

from examples import dump_pair_programs, moe_quantized  # noqa: E402  (jax reads XLA_FLAGS at its first compile)
from examples.moe_quantized import QuantSpec  # noqa: E402

_SPLIT = (
    QuantSpec(qtype="int8", scale="replicated", meet="concat"),
    QuantSpec(qtype="int8", scale="sharded", meet="two_gmm"),
    QuantSpec(qtype="fp8", scale="sharded", meet="concat"),
    QuantSpec(qtype="fp8", scale="replicated", meet="two_gmm", dequant_dtype="bfloat16"),
    QuantSpec(form="collective_quantizer", qtype="fp8", meet="concat"),
    QuantSpec(form="collective_quantizer", qtype="fp8", meet="two_gmm"),
)
QUANT_DUMP_PROGRAMS: dict[str, QuantSpec] = {
    spec.name: spec for spec in (*_SPLIT, *(s.replace(variant="fused") for s in _SPLIT))
}


def dump(out: Path) -> dict[str, dict[str, str]]:
    """``dump_programs.dump`` over ``QUANT_DUMP_PROGRAMS``, lowered by ``moe_quantized.lower``."""
    return dump_pair_programs.dump_others(out, QUANT_DUMP_PROGRAMS, moe_quantized.lower)


if __name__ == "__main__":
    sys.exit(dump_pair_programs.main(doc=__doc__, dump_fn=dump))
