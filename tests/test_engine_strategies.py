"""The engine's strategies, seen from outside (issue 16).

Where halves meet is a ``Meeting`` of its own, no look-alike of an instruction: a pad + add
reassembly is reported at the add itself, with its metadata (the stand-in that pretended to be
a concatenate hid it: ``op_name`` was null in every HLO dump's ``pad_add`` site).
"""
from __future__ import annotations

import hlo_passes
from hlo_passes.passes import run_passes
from hlo_passes.rewrites import _crossings, _meetings
from hlo_passes.rewrites.moe_gradient_fusion import MoeGradientFusion

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
    meeting = _meetings.pad_meeting(add)
    assert isinstance(meeting, _meetings.PadAdd) and meeting.anchor is add and meeting.dim == 2
    assert not hasattr(meeting, "opcode") and not hasattr(meeting, "operands")
    for kind in (_crossings.Crossing, _crossings.Exit, _crossings.HloExit):
        assert not hasattr(kind, "opcode") and not hasattr(kind, "operands")
        assert _crossings.BOUNDARY_AT[kind.found_at] is kind


def test_a_rule_is_its_strategies() -> None:
    rule = MoeGradientFusion()
    assert [type(s).__name__ for s in rule.sources] == ["SliceSource", "GmmSource"]
    assert _meetings.PadAdds in rule.meetings
    assert not hasattr(rule, "meet_by_pads") and not hasattr(rule, "from_gmms")
