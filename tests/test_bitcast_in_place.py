"""A bitcast is in place only where it keeps the elements' order (issue 43, the audit after MOE004).

XLA's bitcast keeps the bytes: between two layouts it moves the elements (``f32[2,8,8]{2,1,0}`` read
as ``{1,2,0}`` is the transpose of the last two dimensions; ``{1,0,2}`` read as ``{2,1,0}`` is no
transpose at all).  MOE004's square-bitcast bug read one as in place.  The places that looked
through bitcasts as if they kept every element where it is now ask ``bitcast_keeps_order``:

* ``_fusions._through_copies`` (a fused slice's source, a fused copy's operand): a slice of a
  transposing bitcast of the fusion's parameter cuts a computed array (a ``FusedValue``), not the
  parameter;
* ``_carry_whole._fused_reads_only_concat``: the loop carries the whole weight in the halves' place
  only where the join reads the halves through copies and order-keeping bitcasts;
* ``_reordered._insert_axis``: a bitcast adds the stacking axis only where it keeps the order;
* ``_sources.sliced_fusion`` / ``stacked_axis`` (a dropped size-1 axis) and ``_dequant``'s walk
  (``dequant-operand``): the same.

Each test reads an optimized-HLO text with non-default layouts (``{1,0,2}``, ``{1,2,0}``) at the
place itself; a layout-keeping twin is the control.  Not by values: optimized HLO does not
compile through ``hlo_passes.runtime`` (``is_scheduled``), and a text without that header goes
through XLA's HLO → StableHLO import, which reads a bitcast as a reshape whatever the layouts (a
``{2,1,0}`` → ``{1,2,0}`` bitcast computed a reshape there, measured), so it could not tell the
two apart; only the pass inside XLA compiles bitcasts as XLA does.
"""
from __future__ import annotations

import pytest

import hlo_passes
from hlo_passes.checks import Refusal
from hlo_passes.ir import Instruction, Module
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.rewrites.split.carry_whole import _fused_reads_only_concat
from hlo_passes.rewrites.split.chains import bitcast_keeps_order
from hlo_passes.rewrites.split.dequant import _walk
from hlo_passes.rewrites.split.fusions import FusedValue, fused_slice
from hlo_passes.rewrites.split.reordered import _insert_axis
from hlo_passes.rewrites.split.sources import sliced_fusion

pytestmark = pytest.mark.jax_free


def _parse(text: str) -> Module:
    return hlo_passes.parse(text, dialect="hlo")


def _named(module: Module, name: str) -> Instruction:
    return next(i for i in module.instructions() if i.name == name)


_BITCASTS = """HloModule bitcasts, is_scheduled=true

ENTRY %main (p: f32[8,8,4], q: f32[4,8]) -> f32[8,8,4] {
  %p = f32[8,8,4]{2,1,0} parameter(0)
  %transposed = f32[8,8,4]{2,0,1} bitcast(%p)
  %scrambled = f32[8,8,4]{1,0,2} bitcast(%p)
  %same = f32[8,8,4]{2,1,0} bitcast(%p)
  %axis_added = f32[8,1,8,4]{3,1,2,0} bitcast(%p)
  %merged = f32[64,4]{1,0} bitcast(%p)
  %merged_moved = f32[64,4]{0,1} bitcast(%p)
  %q = f32[4,8]{0,1} parameter(1)
  %axis_kept = f32[4,1,8]{0,1,2} bitcast(%q)
  %axis_moved = f32[4,1,8]{2,1,0} bitcast(%q)
  ROOT %r = f32[8,8,4]{2,1,0} negate(%p)
}
"""


@pytest.mark.parametrize("name, keeps", [
    ("transposed", False), ("scrambled", False), ("same", True), ("axis_added", True), ("merged", True),
    ("merged_moved", False), ("axis_kept", True), ("axis_moved", False)])
def test_bitcast_keeps_order(name: str, keeps: bool) -> None:
    assert bitcast_keeps_order(_named(_parse(_BITCASTS), name)) is keeps


def _slice_fusion(layout: str) -> str:
    """A fusion slicing ``f32[2,8,8]`` through a bitcast of its parameter into ``layout``."""
    return f"""HloModule sliced, is_scheduled=true

%slice.gate (p.0: f32[2,8,8]) -> f32[2,8,4] {{
  %p.0 = f32[2,8,8]{{2,1,0}} parameter(0)
  %b.0 = f32[2,8,8]{layout} bitcast(%p.0)
  ROOT %slice.0 = f32[2,8,4]{{2,1,0}} slice(%b.0), slice={{[0:2], [0:8], [0:4]}}
}}

ENTRY %main (w: f32[2,8,8]) -> f32[2,8,4] {{
  %w = f32[2,8,8]{{2,1,0}} parameter(0)
  ROOT %slice_fusion.0 = f32[2,8,4]{{2,1,0}} fusion(%w), kind=kLoop, calls=%slice.gate
}}
"""


def test_a_fused_slice_of_a_transposing_bitcast_cuts_a_computed_array() -> None:
    """``{1,2,0}``: the slice cuts the transpose of ``w`` (its dimension 2 is ``w``'s 1), which
    the fusion computes: a ``FusedValue``, not ``w`` (before: ``w``, the slice read along the
    wrong dimension of it).  ``{2,1,0}``: ``w`` itself."""
    moved = _parse(_slice_fusion("{1,2,0}"))
    found = fused_slice(_named(moved, "slice_fusion.0"))
    assert found is not None and isinstance(found[1], FusedValue) and found[1].inner.name == "b.0"
    kept = _parse(_slice_fusion("{2,1,0}"))
    found = fused_slice(_named(kept, "slice_fusion.0"))
    assert found is not None and found[1] is _named(kept, "w")


_GATHERED = """HloModule gathered_transposed, is_scheduled=true

%slice.gate (p.0: f32[2,8,8]) -> f32[2,8,4] {
  %p.0 = f32[2,8,8]{2,1,0} parameter(0)
  %b.0 = f32[2,8,8]{1,2,0} bitcast(%p.0)
  ROOT %slice.0 = f32[2,8,4]{2,1,0} slice(%b.0), slice={[0:2], [0:8], [0:4]}
}

%slice.up (p.1: f32[2,8,8]) -> f32[2,8,4] {
  %p.1 = f32[2,8,8]{2,1,0} parameter(0)
  %b.1 = f32[2,8,8]{1,2,0} bitcast(%p.1)
  ROOT %slice.1 = f32[2,8,4]{2,1,0} slice(%b.1), slice={[0:2], [0:8], [4:8]}
}

%gmm.body (r.0: f32[2,32,4], r.1: f32[2,32,4]) -> f32[2,32,4] {
  %r.0 = f32[2,32,4]{2,1,0} parameter(0)
  %r.1 = f32[2,32,4]{2,1,0} parameter(1)
  ROOT %multiply.0 = f32[2,32,4]{2,1,0} multiply(%r.0, %r.1)
}

ENTRY %main (w: f32[2,8,8]) -> f32[2,32,4] {
  %w = f32[2,8,8]{2,1,0} parameter(0)
  %slice_fusion.0 = f32[2,8,4]{2,1,0} fusion(%w), kind=kLoop, calls=%slice.gate
  %slice_fusion.1 = f32[2,8,4]{2,1,0} fusion(%w), kind=kLoop, calls=%slice.up
  %all_gather.0 = f32[2,32,4]{2,1,0} all-gather(%slice_fusion.0), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  %all_gather.1 = f32[2,32,4]{2,1,0} all-gather(%slice_fusion.1), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  ROOT %gmm_fusion = f32[2,32,4]{2,1,0} fusion(%all_gather.0, %all_gather.1), kind=kLoop, calls=%gmm.body
}
"""


def test_gathered_halves_of_a_transposing_bitcast_gather_the_bitcast() -> None:
    """The rule's rewrite of such halves gathers the bitcast of ``w`` (the array the slices cut,
    rebuilt outside the fusion), never ``w`` itself: each half is the gathered array's slice of
    the same dimension and offsets the fused slice took (the same gather, the same slice: equal
    values whatever the bitcast does)."""
    new, sites, _ = rewrite_compiled_text(_GATHERED, "m", ["MOE001"])
    assert new is not None and [(s.rule, s.rewritten) for s in sites] == [("moe-gather-fusion", True)]
    module = _parse(new)
    gathers = [i for i in module.instructions() if i.opcode == "all-gather"]
    assert len(gathers) == 1
    # What the one gather reads: the bitcast into {1,2,0} (through a layout copy), not w.
    cur = gathers[0].operands[0]
    while cur.opcode in ("fusion", "copy") and cur.opcode != "bitcast":
        cur = cur.operands[0]
    assert cur.opcode == "bitcast" and cur.shape.layout_text == "{1,2,0}", cur


def test_a_dropped_axis_read_in_another_order_is_no_stacked_slice() -> None:
    """``sliced_fusion``: a fusion whose root drops a size-1 axis of a slice by a bitcast is a
    slice of a stacked weight only where the bitcast keeps the order."""
    def text(layout: str) -> str:
        return f"""HloModule stacked, is_scheduled=true

%cut (p.0: f32[4,2,8]) -> f32[4,8] {{
  %p.0 = f32[4,2,8]{{2,1,0}} parameter(0)
  %s.0 = f32[4,1,8]{{2,1,0}} slice(%p.0), slice={{[0:4], [0:1], [0:8]}}
  ROOT %b.0 = f32[4,8]{layout} bitcast(%s.0)
}}

ENTRY %main (w: f32[4,2,8]) -> f32[4,8] {{
  %w = f32[4,2,8]{{2,1,0}} parameter(0)
  ROOT %f = f32[4,8]{layout} fusion(%w), kind=kLoop, calls=%cut
}}
"""
    kept = _parse(text("{1,0}"))
    found = sliced_fusion(_named(kept, "f"))
    assert found is not None and found[1] is _named(kept, "w")
    assert sliced_fusion(_named(_parse(text("{0,1}")), "f")) is None


def _join(layout: str) -> str:
    """A fusion joining two ``f32[4,8,2]{1,0,2}`` halves through bitcasts into ``layout``."""
    return f"""HloModule join, is_scheduled=true

%joined (a: f32[4,8,2], b: f32[4,8,2]) -> f32[4,8,4] {{
  %a = f32[4,8,2]{{1,0,2}} parameter(0)
  %b = f32[4,8,2]{{1,0,2}} parameter(1)
  %ba = f32[4,8,2]{layout} bitcast(%a)
  %bb = f32[4,8,2]{layout} bitcast(%b)
  ROOT %c = f32[4,8,4]{{1,0,2}} concatenate(%ba, %bb), dimensions={{2}}
}}

ENTRY %main (x: f32[4,8,2], y: f32[4,8,2]) -> f32[4,8,4] {{
  %x = f32[4,8,2]{{1,0,2}} parameter(0)
  %y = f32[4,8,2]{{1,0,2}} parameter(1)
  ROOT %f = f32[4,8,4]{{1,0,2}} fusion(%x, %y), kind=kLoop, calls=%joined
}}
"""


@pytest.mark.parametrize("layout, carried", [("{1,0,2}", True), ("{2,1,0}", False), ("{0,1,2}", False)])
def test_a_join_through_a_bitcast_between_layouts_is_not_carried_whole(layout: str, carried: bool) -> None:
    """``_carry_whole``: the whole weight replaces the join only where the join reads the halves
    as they are; ``{1,0,2}`` read as ``{2,1,0}`` or ``{0,1,2}`` moves their elements."""
    module = _parse(_join(layout))
    fusion = _named(module, "f")
    reads = [_named(module, "x"), _named(module, "y")]
    assert _fused_reads_only_concat(fusion, _named(module, "c"), reads) is carried


@pytest.mark.parametrize("layout, inserts", [("{1,0,2}", True), ("{0,1,2}", True), ("{2,0,1}", False),
                                             ("{2,1,0}", False)])
def test_a_stacking_axis_is_inserted_only_in_order(layout: str, inserts: bool) -> None:
    """``_reordered._insert_axis``: ``f32[8,4]{0,1}`` (column-major) bitcast to ``f32[8,1,4]``:
    the size-1 axis inserted where the other two keep their order ({1,0,2}, {0,1,2}: dimension 2
    major over 0), not where the bitcast lays them out the other way ({2,0,1}, {2,1,0}: a
    transpose)."""
    module = _parse(f"""HloModule insert, is_scheduled=true

ENTRY %main (h: f32[8,4]) -> f32[8,1,4] {{
  %h = f32[8,4]{{0,1}} parameter(0)
  ROOT %i = f32[8,1,4]{layout} bitcast(%h)
}}
""")
    assert _insert_axis(_named(module, "i"), 1) is inserts


@pytest.mark.parametrize("layout, follows", [("{1,0}", True), ("{0,1}", False)])
def test_a_scale_read_through_a_bitcast_between_layouts_is_refused(layout: str, follows: bool) -> None:
    """``_dequant``: a half's scale walked down to its slice of one scale array goes through a
    bitcast only where it keeps the order; ``f32[4,4]{1,0}`` read as ``{0,1}`` is the transpose
    (the scale's split dimension would be followed as the wrong one): ``dequant-operand``."""
    module = _parse(f"""HloModule scaled, is_scheduled=true

ENTRY %main (q: s8[4,4], s: f32[4,8]) -> f32[4,4] {{
  %q = s8[4,4]{{1,0}} parameter(0)
  %s = f32[4,8]{{1,0}} parameter(1)
  %cut = f32[4,4]{{1,0}} slice(%s), slice={{[0:4], [0:4]}}
  %laid = f32[4,4]{layout} bitcast(%cut)
  %c = f32[4,4]{{1,0}} convert(%q)
  ROOT %m = f32[4,4]{{1,0}} multiply(%c, %laid)
}}
""")
    mul = _named(module, "m")
    if follows:
        assert _walk(mul, 0, 1).stop is _named(module, "cut")
        return
    with pytest.raises(Refusal) as refused:
        _walk(mul, 0, 1)
    assert refused.value.check == "dequant-operand" and "another order" in refused.value.reason
