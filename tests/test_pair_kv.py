"""Two weights that are not gate and up are never merged inside XLA (issue 43).

An outside Mixtral implementation (FSDP over 8 CPU devices) run with the pass inside XLA and
MOE003 enabled had its attention key/value projection weights' all-gathers merged as
``moe-pair-gather-fusion (split_gather)``: two weights of one shape, gathered alike, read only by
fusions.  ``examples/mixtral_fsdp.py`` is that model; compiled with every rule inside XLA's
pipeline it must compute what plain ``jax.jit`` computes, bit for bit, and the key/value gathers
must be a ``gmm-consumers`` near miss, not a site.  (The text form: the fixture
``tests/fixtures/moe-pair-gather-fusion/attention_kv.hlo``.)
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import hlo_passes
from examples import mixtral_fsdp
from hlo_passes.passes.registry import available_passes

pytestmark = pytest.mark.jax_facing


@pytest.fixture(scope="module")
def compiled() -> tuple:
    fn, args = mixtral_fsdp.build()
    want = fn.lower(*args).compile()(*args)
    fn, args = mixtral_fsdp.build()
    hlo_passes.install(mode="rewrite", platforms="cpu", passes=sorted(available_passes()))
    try:
        executable = fn.lower(*args).compile()
        report = hlo_passes.installed_report()
    finally:
        hlo_passes.uninstall()
    return want, executable(*args), report, executable.as_text()


def test_attention_weights_not_merged_inside_xla(compiled) -> None:
    want, got, report, text = compiled
    assert not report.fallbacks
    sites = [s for m in report.modules for s in m.sites]
    assert not [s for s in sites if s.rule == "moe-pair-gather-fusion"], sites
    misses = [m for module in report.modules for m in module.near_misses if m.check == "gmm-consumers"]
    assert misses and all("f32[2,64,256]" in m.reason for m in misses), misses
    # The key/value gathers are still two: nothing merged them.
    assert text.count("f32[2,64,256]{1,0,2} all-gather(") == 2
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
