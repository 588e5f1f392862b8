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
import sys


def initialize() -> None:
    mode = os.environ.get("HLO_PASSES", "").strip()
    if not mode:
        return
    try:
        from hlo_passes.xla_pass import activate_from_environment
    except Exception as err:  # noqa: BLE001 - an unsupported jax (or a broken install): one line, not
        # jax's "Jax plugin configuration error" and a traceback; the program runs on without the pass.
        reason = " ".join(str(err).split()) or type(err).__name__
        sys.stderr.write(f"hlo_passes: warning: $HLO_PASSES={mode} ignored, the pass is off: {reason}\n")
        sys.stderr.flush()
        return
    activate_from_environment()
