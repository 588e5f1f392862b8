"""``Module.release()``: a module parsed for one call is freed when dropped, not by the collector.

The pass inside XLA parses one module per compile and drops it.  A module is full of reference
cycles, so without ``release`` it is garbage only a full collection frees: a fifth of a second on
a large heap, inside whichever compile runs it.  Here the collector stays paused while a module
is parsed, rewritten and dropped, and ``gc.collect()`` then counts what is left for it.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from fixture_harness import FIXTURES, cases_of
from hlo_passes.passes import run_passes
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.text import parse

pytestmark = pytest.mark.jax_free

# Modules that each rule rewrites: optimized HLO (held collectives among them), HLO, StableHLO.
REWRITTEN = ["moe-gather-fusion/compiled.hlo", "moe-gather-fusion/combined.hlo", "moe-gather-fusion/concat.mlir",
             "moe-gradient-fusion/two_gmm.mlir"]


def _first_case(rel: str) -> str:
    return cases_of(FIXTURES / rel)[0].module_text


@contextmanager
def _collector_paused() -> Iterator[None]:
    gc.collect(0)
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _garbage_after(work) -> int:
    """Objects the cyclic collector finds unreachable after ``work()`` ran with it paused.

    Everything ``work`` made is in the youngest generation (nothing was collected meanwhile), so
    collecting that generation alone finds it, at a cost that does not grow with the test
    session's heap as a full collection's does."""
    with _collector_paused():
        work()
        return gc.collect(0)


PAD = 1000  # ops of a computation nothing calls, added to a module: what its size adds to the garbage


def _padded(text: str, dialect: str) -> str:
    """``text`` with a computation of ``PAD`` ops that no rule touches."""
    if dialect == "hlo":
        ops = "\n".join(f"  a{k} = f32[] add(a{k - 1}, a{k - 1})" for k in range(1, PAD))
        pad = f"%pad (a0: f32[]) -> f32[] {{\n  a0 = f32[] parameter(0)\n{ops}\n  ROOT r = f32[] negate(a{PAD - 1})\n}}\n\n"
        at = text.index("ENTRY")
        return text[:at] + pad + text[at:]
    ops = "\n".join(f"    %a{k} = stablehlo.add %a{k - 1}, %a{k - 1} : tensor<f32>" for k in range(1, PAD))
    pad = (f"  func.func private @pad(%a0: tensor<f32>) -> tensor<f32> {{\n{ops}\n"
           f"    return %a{PAD - 1} : tensor<f32>\n  }}\n")
    at = text.rindex("}")
    return text[:at] + pad + text[at:]


@pytest.mark.parametrize("rel", REWRITTEN)
def test_a_released_module_leaves_no_cycles(rel: str) -> None:
    dialect = "stablehlo" if rel.endswith(".mlir") else "hlo"
    small = _first_case(rel)
    large = _padded(small, dialect)

    def rewrite(text: str, release: bool) -> None:
        module = parse(text, dialect=dialect)
        result = run_passes(module, None, rewrite=True, copy=False)
        assert result.changed, rel  # a rewrite ran: its clones, erasures and new ops are in play
        result.module.to_text()
        if release:
            module.release()

    def added(release: bool) -> int:
        return _garbage_after(lambda: rewrite(large, release)) - _garbage_after(lambda: rewrite(small, release))

    # Kept, every op is cyclic garbage (with its attributes); released, none is: what is left
    # for the collector (the ops a rewrite erased, the rules' own objects) does not grow with
    # the module.
    assert added(False) > 2 * PAD
    assert abs(added(True)) < PAD / 50, added(True)


def test_the_compiled_path_leaves_almost_nothing_and_draws_nothing() -> None:
    # What the pass inside XLA runs per module: parsed, rewritten, printed, released.
    text = _first_case("moe-gather-fusion/compiled.hlo")
    out: list = []
    left = _garbage_after(lambda: out.append(rewrite_compiled_text(text, "m", None)))
    new_text, sites, _ = out[0]
    assert new_text is not None and any(s.rewritten for s in sites)
    assert left < 200, left
    # What it returns is plain data, readable after the module is gone.
    assert parse(new_text, dialect="hlo").entry is not None
    assert all(s.location.line > 0 for s in sites)
    # No site pictures there (nothing shows them); the same module run by run_passes has them.
    assert all(s.picture is None for s in sites)
    drawn = run_passes(parse(text, dialect="hlo"), None, rewrite=True).sites
    assert drawn and all(s.picture is not None for s in drawn if s.rewritten)


def test_a_released_module_is_empty() -> None:
    module = parse(_first_case("moe-gather-fusion/concat.mlir"), dialect="stablehlo")
    ops = list(module.instructions())
    module.release()
    assert module.computations == {} and module.entry is None
    assert all(op.computation is None for op in ops)
