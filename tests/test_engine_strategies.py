"""The engine's strategies, seen from outside (issue 16).

Where halves meet is a ``Meeting`` of its own, no look-alike of an instruction: a pad + add
reassembly is reported at the add itself, with its metadata (the stand-in that pretended to be
a concatenate hid it: ``op_name`` was null in every HLO dump's ``pad_add`` site).
"""
from __future__ import annotations

import pytest

import hlo_passes
from hlo_passes.passes import run_passes
from hlo_passes.rewrites.split import crossings, meetings
from hlo_passes.rewrites.moe_gradient_fusion import MoeGradientFusion

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

PAD_ADD = """HloModule pad_add_with_metadata

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  dw = f32[2,8,8]{2,1,0} parameter(0)
  zero = f32[] constant(0)
  gate = f32[2,8,4]{2,1,0} slice(dw), slice={[0:2], [0:8], [0:4]}
  up = f32[2,8,4]{2,1,0} slice(dw), slice={[0:2], [0:8], [4:8]}
  gate.r = f32[2,2,4]{2,1,0} reduce-scatter(gate), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}, to_apply=sum
  up.r = f32[2,2,4]{2,1,0} reduce-scatter(up), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}, to_apply=sum
  up.p = f32[2,2,8]{2,1,0} pad(up.r, zero), padding=0_0x0_0x4_0
  gate.p = f32[2,2,8]{2,1,0} pad(gate.r, zero), padding=0_0x0_0x0_4
  ROOT dw.r = f32[2,2,8]{2,1,0} add(up.p, gate.p), metadata={op_name="jit(step)/transpose(jvp())/add_any" source_file="model.py" source_line=42}
}
"""


def test_a_pad_add_site_is_reported_at_the_add_with_its_metadata() -> None:
    result = run_passes(hlo_passes.parse(PAD_ADD), ["moe-gradient-fusion"])
    (site,) = result.sites
    assert site.form == "pad_add" and site.rewritten
    assert site.location.op_name == "jit(step)/transpose(jvp())/add_any"
    assert site.location.source == "model.py:42" and site.location.line == 18


def test_meetings_and_boundaries_are_not_instructions() -> None:
    """No fake opcodes: a meeting or a boundary says what it is through its own interface."""
    module = hlo_passes.parse(PAD_ADD)
    add = module.entry.root
    meeting = meetings.pad_meeting(add)
    assert isinstance(meeting, meetings.PadAdd) and meeting.anchor is add and meeting.dim == 2
    assert not hasattr(meeting, "opcode") and not hasattr(meeting, "operands")
    for kind in (crossings.Crossing, crossings.Exit, crossings.HloExit):
        assert not hasattr(kind, "opcode") and not hasattr(kind, "operands")
        assert crossings.BOUNDARY_AT[kind.found_at] is kind


def test_a_rule_is_its_strategies() -> None:
    rule = MoeGradientFusion()
    assert [type(s).__name__ for s in rule.sources] == ["SliceSource", "GmmSource"]
    # Pads of the halves side by side, or into W's layout (a size-2 axis, interleaved): one finder.
    assert any(issubclass(m, meetings.PadAdds) for m in rule.meetings)
    assert not hasattr(rule, "meet_by_pads") and not hasattr(rule, "from_gmms")


# Optimized HLO (``compile().as_text()``): each slice of W in a fusion, each gathered half
# through a fusion that only copies it (a layout change), the halves joined in a fusion.
COMPILED = """HloModule compiled_through_fusions, is_scheduled=true

%slice.gate (p.0: f32[2,2,8]) -> f32[2,2,4] {
  %p.0 = f32[2,2,8]{2,1,0} parameter(0)
  ROOT %slice.0 = f32[2,2,4]{2,1,0} slice(%p.0), slice={[0:2], [0:2], [0:4]}, metadata={op_name="jit(f)/slice_gate" source_file="model.py" source_line=3}
}

%slice.up (p.1: f32[2,2,8]) -> f32[2,2,4] {
  %p.1 = f32[2,2,8]{2,1,0} parameter(0)
  ROOT %slice.1 = f32[2,2,4]{2,1,0} slice(%p.1), slice={[0:2], [0:2], [4:8]}, metadata={op_name="jit(f)/slice_up" source_file="model.py" source_line=4}
}

%copy.gate (c.0: f32[2,8,4]) -> f32[2,8,4] {
  %c.0 = f32[2,8,4]{2,1,0} parameter(0)
  ROOT %copy.0 = f32[2,8,4]{1,2,0} copy(%c.0)
}

%copy.up (c.1: f32[2,8,4]) -> f32[2,8,4] {
  %c.1 = f32[2,8,4]{2,1,0} parameter(0)
  ROOT %copy.1 = f32[2,8,4]{1,2,0} copy(%c.1)
}

%concat.body (q.0: f32[2,8,4], q.1: f32[2,8,4]) -> f32[2,8,8] {
  %q.0 = f32[2,8,4]{1,2,0} parameter(0)
  %q.1 = f32[2,8,4]{1,2,0} parameter(1)
  ROOT %concatenate.0 = f32[2,8,8]{2,1,0} concatenate(%q.0, %q.1), dimensions={2}, metadata={op_name="jit(f)/concatenate" source_file="model.py" source_line=7}
}

ENTRY %main (w: f32[2,2,8]) -> f32[2,8,8] {
  %w = f32[2,2,8]{2,1,0} parameter(0)
  %gate.f = f32[2,2,4]{2,1,0} fusion(%w), kind=kLoop, calls=%slice.gate
  %up.f = f32[2,2,4]{2,1,0} fusion(%w), kind=kLoop, calls=%slice.up
  %gate.g = f32[2,8,4]{2,1,0} all-gather(%gate.f), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  %up.g = f32[2,8,4]{2,1,0} all-gather(%up.f), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  %gate.c = f32[2,8,4]{1,2,0} fusion(%gate.g), kind=kLoop, calls=%copy.gate
  %up.c = f32[2,8,4]{1,2,0} fusion(%up.g), kind=kLoop, calls=%copy.up
  ROOT %concat.f = f32[2,8,8]{2,1,0} fusion(%gate.c, %up.c), kind=kLoop, calls=%concat.body
}
"""


def test_fusions_of_optimized_hlo_are_seen_through_without_look_alikes() -> None:
    """The chain keeps the module's own fusions: the slice a fusion makes is the chain's
    ``Cut``, a copying fusion a ``Boundary`` step (no opcode), the fused concatenate a
    meeting at the fusion; reports name the source lines of the ops inside the fusions."""
    from hlo_passes.rewrites.split import fusions
    from hlo_passes.rewrites.moe_gather_fusion import MoeGatherFusion

    module = hlo_passes.parse(COMPILED)
    entry = {i.name: i for i in module.entry.instructions}
    (candidate,) = [c for c in MoeGatherFusion().match(module) if c.meeting.form == "concat"]
    meeting, chains = candidate.meeting, candidate.chains
    assert isinstance(meeting, meetings.FusedConcat) and meeting.anchor is entry["concat.f"]
    assert meeting.compiled and meeting.dims == (2,)
    assert [c.start for c in chains] == [entry["gate.f"], entry["up.f"]]
    assert all(c.cut.fused and c.cut.whole is entry["w"] and c.compiled for c in chains)
    step = chains[0].ops[-1]
    assert isinstance(step, fusions.FusedCopy) and step.after is entry["gate.c"]
    assert not hasattr(step, "opcode") and not hasattr(step, "operands")

    result = run_passes(module, ["moe-gather-fusion"])
    (site,) = result.sites
    # Rewritten once the fusions are opened (``split.opening``): no fusion left, one gather.
    assert site.form == "concat" and site.rewritten and not site.details.not_rewritten
    after = [i.opcode for i in result.module.entry.instructions]
    assert "fusion" not in after and after.count("all-gather") == 1
    assert (site.location.op_name, site.location.source) == ("jit(f)/concatenate", "model.py:7")
    assert [p.source for p in site.pieces] == ["model.py:3", "model.py:4"]
    assert site.details.weight == "w"
    labels = [n.label.split("\n")[0] for n in site.picture.before.nodes]
    assert labels[:4] == ["W = w", "slice [0:4] of dim 2", "all-gather", "copy"]
