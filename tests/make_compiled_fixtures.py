"""Writes tests/fixtures/compiled/: optimized modules (``compile().as_text()``) of small training
steps that tests/test_compiled_fixtures.py reads without jax.

``python tests/make_compiled_fixtures.py`` (jax 0.10.2, 8 host CPU devices) writes, gzipped:

* ``pair_train_implicit_mesh2.cpu_after_optimizations.txt.gz`` — examples/moe_pair.py's training
  step (gate and up as two weights ``wi_0``/``wi_1``, FSDP over fsdp 4 x fsdp_transpose 2, the
  weights gathered by the partitioner, adam), whose two weight gradients XLA:CPU's all-reduce
  combiner puts into one tuple all-reduce beside the other gradients (MOE004's ``xla-combined``);
* ``pair_train_explicit_mesh2.cpu_after_optimizations.txt.gz`` — the same step written with a
  ``shard_map`` that reduce-scatters each weight's gradient itself in two stages: a reduce-scatter
  per weight and stage, which XLA:CPU does not combine (a MOE004 site, 4 -> 2).
"""
from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "fixtures" / "compiled"
FORMS = ("implicit", "explicit")


def name(form: str) -> str:
    return f"pair_train_{form}_mesh2.cpu_after_optimizations.txt.gz"


def main() -> int:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    sys.path.insert(0, str(OUT.parents[2]))
    import jax

    from examples import moe_pair
    from examples.moe_pair import PairSpec

    for form in FORMS:
        step, params, opt_state, x, gs = moe_pair.train_program(PairSpec(form=form, mesh="mesh2"), learning_rate=1e-2)
        text = jax.jit(step).lower(params, opt_state, x, gs).compile().as_text()
        with gzip.open(OUT / name(form), "wt", encoding="utf-8", compresslevel=9) as f:
            f.write(text)
        print(f"{name(form)}: {len(text)} characters (jax {jax.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
