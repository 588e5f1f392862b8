"""hlo_passes' jax plugin: ``HLO_PASSES=rewrite`` (or ``lint``, ``warn``, ``log``) installs the pass
inside XLA's pipeline in an unmodified program.

jax imports every module of the ``jax_plugins`` namespace package (and every
``jax_plugins`` entry point: pyproject.toml names this module) when it first
initializes its backends, on CPU-only machines too, and calls ``initialize()``.
Without ``$HLO_PASSES`` this costs an environment lookup: hlo_passes (and its
~0.3 s import) is not loaded.  docs/xla-pass.md says more.
"""
from __future__ import annotations

import os


def initialize() -> None:
    if not os.environ.get("HLO_PASSES", "").strip():
        return
    from hlo_passes.xla_pass import activate_from_environment

    activate_from_environment()
