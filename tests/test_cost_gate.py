"""Findings whose fix does not pay, and sites found but not rewritten (issue 27).

* A fix the cost model says does not pay (docs/cost-model.md) is no finding by default: a
  near miss (``does-not-pay``) that ``--explain`` shows with its numbers; ``--select`` still
  reports it; ``hlo-rewrite`` leaves it, saying why.  Until issue 27 such a site was a finding
  (exit 1) whose own message said the fix costs more.
* A gather or reduction over groups of one device is no collective: no site.  Public
  Mixtral- and Qwen3-MoE-like layers (experts × tensor parallelism, an FSDP axis of size 1)
  got MOE003/MOE004 findings (two ``psum``s over the size-1 axis); they get none.
* ``hlo-rewrite`` on optimized HLO printed the line of a real rewrite, exited 0 and counted
  the savings in its totals; it now says ``detected, not rewritten: <why>``, leaves the totals
  to what it rewrote and exits 4.
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

import hlo_passes
from fixture_harness import FIXTURES, cases_of
from hlo_passes import cli
from hlo_passes.cost_model import PLATFORMS, price
from hlo_passes.passes import available_passes, run_passes

PAIR = "moe-pair-gather-fusion"

# Two weights of 32 MiB per device each, gathered over 4 devices into two GMMs: the fix saves
# one all-gather and one GMM launch (~12 us on a TPU) and copies both shards into one
# (64 MiB, ~160 us): it does not pay.
BIG_PAIR = """HloModule big_pair

ENTRY main {
  x = f32[64,4096]{1,0} parameter(0)
  gs = s32[8]{0} parameter(1)
  wi_0 = f32[8,1024,1024]{2,1,0} parameter(2)
  wi_1 = f32[8,1024,1024]{2,1,0} parameter(3)
  wi_0.g = f32[8,4096,1024]{2,1,0} all-gather(wi_0), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  wi_1.g = f32[8,4096,1024]{2,1,0} all-gather(wi_1), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={1}, use_global_device_ids=true
  gate = f32[64,1024]{1,0} ragged-dot(x, wi_0.g, gs), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  up = f32[64,1024]{1,0} ragged-dot(x, wi_1.g, gs), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  ROOT out = f32[64,1024]{1,0} multiply(gate, up)
}
"""
# The same shape of program with weights of 4 KiB: the launches saved pay for the copy.
SMALL_PAIR = re.sub(r"1024\]", "16]", BIG_PAIR.replace("4096", "64")).replace("f32[8,1024,16]", "f32[8,16,16]")


def _lint(path: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.lint_main([str(path), "-j", "1", *args], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _rewrite(path: Path, *args: str) -> tuple[int, str]:
    err = io.StringIO()
    return cli.rewrite_main([str(path), *args], stdout=io.StringIO(), stderr=err), err.getvalue()


def test_the_model_prices_copies_transfers_and_launches() -> None:
    tpu = PLATFORMS["tpu"]
    # 1 collective and 1 GMM launch saved against 64 MiB copied.
    costs = price(copies_removed=0, copies_added=64 << 20, bytes_before=1, bytes_after=1, collectives_before=2,
                  collectives_after=1, gmm_launches_saved=1, platform=tpu)
    assert not costs.pays and costs.collectives_s == tpu.collective_latency_s and costs.launches_s == tpu.kernel_latency_s
    assert costs.copies_s == pytest.approx(-2 * (64 << 20) / tpu.memory_bytes_per_s)
    assert str(costs).startswith("costs ") and "on tpu" in str(costs)
    pays = price(copies_removed=0, copies_added=4096, bytes_before=1, bytes_after=1, collectives_before=2,
                 collectives_after=1, gmm_launches_saved=1, platform=tpu)
    assert pays.pays and str(pays).startswith("saves ")


def test_a_fix_that_does_not_pay_is_a_near_miss_with_its_numbers(tmp_path: Path) -> None:
    src = tmp_path / "big_pair.hlo"
    src.write_text(BIG_PAIR)
    (site,) = run_passes(hlo_passes.parse(BIG_PAIR), [PAIR], rewrite=False).sites
    assert not site.pays and site.copies_added == 64 << 20 and site.gmm_launches_saved == 1
    status, out, err = _lint(src)
    assert status == 0 and out.endswith("0 findings in 1 file\n")
    status, out, err = _lint(src, "--explain")
    assert status == 0
    (note,) = [line for line in err.splitlines() if "near miss" in line]
    assert "refused (does-not-pay): the fix does not pay by the cost model: collectives 2 -> 1" in note
    assert "copies 0 bytes removed and 67,108,864 added per device, 1 GMM launch saved: it costs" in note
    assert "does-not-pay: by the cost model" in err  # the check's meaning, after the near misses
    # Selecting the rule reports every site of it.
    status, out, _ = _lint(src, "--select", "MOE003")
    assert status == 1 and "MOE003" in out and "fusing copies 67,108,864 more bytes per device" in out
    # The same program with small weights: the launches saved pay, a finding by default.
    small = tmp_path / "small_pair.hlo"
    small.write_text(SMALL_PAIR)
    assert _lint(small)[0] == 1


def test_hlo_rewrite_leaves_a_fix_that_does_not_pay_and_says_why(tmp_path: Path) -> None:
    src = tmp_path / "big_pair.hlo"
    src.write_text(BIG_PAIR)
    out, report = tmp_path / "out.hlo", tmp_path / "r.json"
    status, err = _rewrite(src, "--passes", PAIR, "-o", str(out), "--report", str(report))
    assert status == 4, err
    assert "detected, not rewritten: the fix does not pay by the cost model: it costs" in err
    assert out.read_text() == BIG_PAIR
    totals = json.loads(report.read_text())["totals"]
    assert totals["sites"] == 0 and totals["detected_not_rewritten"] == 1 and totals["bytes_saved"] == 0


def test_optimized_hlo_behind_a_custom_fusion_is_detected_not_rewritten_exit_4(tmp_path: Path) -> None:
    """A site of optimized HLO whose halves meet inside a custom fusion (one kernel: it cannot be
    opened, check ``fusion-kind``) is reported, not rewritten."""
    case = cases_of(FIXTURES / "moe-gather-fusion" / "compiled.hlo")[0]
    src = tmp_path / "compiled.hlo"
    text = case.module_text.replace("kind=kLoop, calls=%concat.body", "kind=kCustom, calls=%concat.body")
    assert text != case.module_text
    src.write_text(text)
    out, report = tmp_path / "out.hlo", tmp_path / "r.json"
    status, err = _rewrite(src, "-o", str(out), "--report", str(report))
    assert status == cli.EXIT_NOT_REWRITTEN == 4, err
    (line,) = [l for l in err.splitlines() if "MOE001" in l]
    assert re.search(r"MOE001 moe-gather-fusion \[concat\] detected, not rewritten: concat_fusion is a kCustom, "
                     r"one kernel the site cannot be taken out of", line), line
    assert "saves" not in line and "collectives" not in line
    assert out.read_bytes() == src.read_bytes()
    data = json.loads(report.read_text())
    assert [s["rewritten"] for s in data["sites"]] == [False]
    assert data["totals"]["sites"] == 0 and data["totals"]["detected_not_rewritten"] == 1
    assert data["totals"]["bytes_saved"] == 0 and data["totals"]["collectives_before"] == 0
    # What hlo-rewrite --help says about it.
    assert "4 sites found but none rewritten" in cli._rewrite_parser().format_help().replace("\n", " ")


def case_rule(fixture: str) -> str:
    return fixture.split("/")[0]


@pytest.mark.parametrize("fixture", ["moe-pair-gradient-fusion/split.hlo", "moe-pair-gather-fusion/two_gmm.hlo"])
def test_groups_of_one_device_are_no_collectives(fixture: str) -> None:
    """A psum over a mesh axis of size 1 (all-reduces over replica groups of one device) and
    all-gathers that gather one piece (a group of one: the result is the operand): no
    collective, so no site for any rule, where the same program over 4 devices has one; the
    rule says why it stops (a near miss, ``group-of-one``, what ``--explain`` shows) and the
    lint reports nothing."""
    case = cases_of(FIXTURES / fixture)[0]
    assert run_passes(hlo_passes.parse(case.module_text), list(available_passes()), rewrite=False).sites
    text = re.sub(r"replica_groups=\{\{0,1,2,3\}\}", "replica_groups={{0},{1},{2},{3}}", case.module_text)
    text = text.replace("replica_groups=[1,4]<=[4]", "replica_groups=[4,1]<=[4]")
    # A gather over one device gathers nothing: its result is its operand's shape.
    text = re.sub(r"f32\[2,16,4\](\{2,1,0\} all-gather)", r"f32[2,4,4]\1", text).replace(
        "f32[2,16,4]{2,1,0} parameter", "f32[2,4,4]{2,1,0} parameter").replace("f32[8,16]", "f32[8,4]")
    assert text != case.module_text
    result = run_passes(hlo_passes.parse(text, validate=True), list(available_passes()), rewrite=False)
    assert result.sites == [], [str(s) for s in result.sites]
    assert [m.check for m in result.near_misses] == ["group-of-one"], result.near_misses
    (miss,) = result.near_misses
    assert "over replica groups of one device (a mesh axis of size 1)" in miss.reason
    assert miss.location.line is not None and miss.rule == case_rule(fixture)
    assert hlo_passes.lint(hlo_passes.parse(text)) == []


def test_default_findings_are_stated_in_the_help() -> None:
    text = " ".join(cli._lint_parser().format_help().split())
    assert "Findings by default: the sites of every rule (the opt-in rewrite passes too) where the fix pays" in text
    assert "--select CODE reports every site of the rules it names" in text and "default tpu" in text


# ---- public MoE layers without FSDP: negative controls ---------------------------------------

@pytest.mark.parametrize("mode", ["forward", "grad"])
@pytest.mark.parametrize("kind", ["mixtral", "qwen3"])
def test_public_layers_without_fsdp_have_no_finding(kind: str, mode: str) -> None:
    from examples import moe_public

    fn, args = moe_public.build(kind, mode)
    if mode == "forward":  # the layer is what the public block computes
        np.testing.assert_allclose(np.asarray(fn(*args)), moe_public.reference(kind), rtol=1e-5, atol=1e-5)
    lowered = fn.lower(*args)
    for form, text in (("stablehlo", lowered.as_text()), ("hlo", lowered.as_text(dialect="hlo")),
                       ("compiled", lowered.compile().as_text())):
        findings = hlo_passes.lint(hlo_passes.parse(text))
        assert findings == [], (form, [f"{f.rule} {f.message}" for f in findings])
