"""The differential soundness campaign (issue 43): generated programs, compiled with the pass inside
XLA with every rule enabled and without it, outputs compared at the compute dtype's rounding.

``programs``: the generator (``Spec``; a Hypothesis strategy ``specs()`` and ``spec_from_seed``
over the same choices: weight shapes and layouts, f32/bf16/int8, meshes of 1-8 devices with one
or two FSDP axes, explicit (``shard_map`` + ``all_gather``) and partitioner-inserted gathers
(in the layer, or at the entry of a ``shard_map`` that takes an FFN's weights whole),
``scan`` + ``jax.checkpoint``, forward and training steps, MoE weights and non-MoE ones —
attention projections, dense MLPs — of the same shapes, row masks around grouped matmuls).
``check``: one program through each entry point, compared with the program compiled without it.
``python -m soundness`` (from ``tests/``; ``make soundness``): the long run in worker processes,
one summary line; ``tests/test_soundness.py``: the seeded CI slice; ``tools/tpu_soundness.sh``:
the same generator on one TPU chip.  docs/robustness.md records the runs.
"""
