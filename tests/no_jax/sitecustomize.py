"""Blocks jax and jaxlib in every Python process of the ``jax_free`` run.

`make test` runs the tests marked ``jax_free`` once, with ``HLO_PASSES_TESTS_WITHOUT_JAX=1``
(docs/testing.md).  tests/conftest.py then installs the blocker below in pytest's process and
puts this folder first on ``PYTHONPATH``, so that Python runs this file at start-up in every
interpreter a test starts (console scripts, workers): a test that reaches jax anywhere fails
there, instead of depending on the jax version the other runs would have tested it with.
"""
from __future__ import annotations

import os
import sys


class NoJax:
    """A meta-path finder that refuses ``import jax`` and ``import jaxlib``."""

    def find_spec(self, name: str, path=None, target=None):
        if name.split(".")[0] in ("jax", "jaxlib"):
            raise ImportError(f"{name}: this run has jax and jaxlib blocked (HLO_PASSES_TESTS_WITHOUT_JAX=1): "
                              "a test that reaches them is not jax_free; remove its marker")
        return None


def install() -> None:
    if os.environ.get("HLO_PASSES_TESTS_WITHOUT_JAX") != "1":
        return
    if any(m.split(".")[0] in ("jax", "jaxlib") for m in sys.modules):
        raise RuntimeError("HLO_PASSES_TESTS_WITHOUT_JAX=1, but jax is imported already")
    if not any(type(f).__name__ == "NoJax" for f in sys.meta_path):
        sys.meta_path.insert(0, NoJax())


install()

if __name__ == "sitecustomize":
    # Run the sitecustomize this file shadows, if the installation has one.
    from importlib.machinery import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    spec = PathFinder.find_spec("sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != here])
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(type(sys)("_shadowed_sitecustomize"))
