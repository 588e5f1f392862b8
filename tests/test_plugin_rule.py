"""A rule is one module: a plugin written only against ``hlo_passes``'s public API is listed,
pre-scanned, linted in every output format and run by ``hlo-rewrite``, with no other file edited;
a rule's findings read in its own words (``Wording``) and carry its own typed facts (``SiteDetails``).

The plugin (``XPL001``) reports each all-gather whose only user is a concatenate; it rewrites
nothing.  The console scripts run as subprocesses (the scripts beside ``sys.executable``).
"""
from __future__ import annotations

import ast
import dataclasses
import json
import multiprocessing
import os
import re
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes.passes import prescan
from hlo_passes.lint import json_schema
from hlo_passes.passes import unregister
from sarif_structure import check_sarif
from test_cli import HLO, MLIR, run

PLUGIN = '''
"""XPL001: an all-gather read only by a concatenate (a plugin, for the tests)."""
from hlo_passes import CollectiveCost, Rule, RuleMeta, Site, location_of


class GatherIntoConcat(Rule):
    meta = RuleMeta(
        code="XPL001",
        pass_name="xpl-gather-concat",
        name="GatherIntoConcatenate",
        summary="all-gather read only by a concatenate",
        help="Gather the concatenated array once instead.",
        markers=("all-gather", "all_gather"),
        message="{summary} ({before} collective; form {form})",
    )

    def apply(self, module, *, rewrite):
        sites = []
        for instr in module.instructions():
            users = instr.users if instr.opcode == "all-gather" else []
            if len(users) == 1 and users[0].opcode == "concatenate":
                cost = CollectiveCost()
                cost.add(instr)
                sites.append(Site(self.name, "concat", location_of(instr), cost, cost, 0, rewritten=False))
        return sites, []
'''
NAME, CODE = "xpl-gather-concat", "XPL001"
# In the bundled example each half's last gather feeds the concatenate: two sites per file.
SITES = 2


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "xpl_rule.py"
    path.write_text(textwrap.dedent(PLUGIN))
    return path


@pytest.fixture
def loaded(plugin: Path):
    assert hlo_passes.load_plugin(str(plugin)) == [NAME]
    yield plugin
    unregister(NAME)


def test_the_plugin_uses_only_the_public_api() -> None:
    for node in ast.walk(ast.parse(PLUGIN)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            assert isinstance(node, ast.ImportFrom) and node.module == "hlo_passes" and not node.level
            assert {a.name for a in node.names} <= set(hlo_passes.__all__)


def test_listed_by_both_scripts(plugin: Path) -> None:
    passes = run("hlo-rewrite", "--plugin", plugin, "--list-passes")
    assert passes.returncode == 0, passes.stderr
    assert f"{NAME:24} {CODE:8} all-gather read only by a concatenate\n" in passes.stdout
    rules = run("hlo-lint", "--plugin", plugin, "--list-rules")
    assert rules.returncode == 0, rules.stderr
    assert f"{CODE}  {NAME:24} all-gather read only by a concatenate  (plugin)\n" in rules.stdout
    assert rules.stdout.splitlines()[0].startswith("MOE001  moe-gather-fusion ")


def test_pre_scanned_by_its_markers(loaded: Path) -> None:
    assert prescan.markers_for(NAME) == ("all-gather", "all_gather")
    text = MLIR.read_text()
    assert prescan.rules_that_may_fire(text, [NAME]) == [NAME]
    without = "\n".join(line for line in text.splitlines() if "all_gather" not in line)
    assert prescan.rules_that_may_fire(without, [NAME]) == []
    assert not prescan.may_have_sites(without, [NAME])
    # The built-in markers are the built-in rules' alone.
    assert set(prescan.MARKERS) == {m for n in prescan.BUILTIN_RULES for m in prescan.markers_for(n)}


def test_linted_in_process(loaded: Path) -> None:
    for path in (HLO, MLIR):
        found = hlo_passes.lint(path, select=[CODE])
        assert [(f.rule, f.pass_name, f.form) for f in found] == [(CODE, NAME, "concat")] * SITES
        assert found[0].message == "all-gather read only by a concatenate (1 collective; form concat)"
        assert found[0].fix == "collectives 1 -> 1, saves 0 bytes per device"


def _copies(tmp_path: Path) -> list[str]:
    """Four files (the pool's least) of the bundled module, each named apart."""
    copies = []
    for k in range(4):
        copy = tmp_path / f"m{k}.mlir"
        copy.write_text(MLIR.read_text().replace("module @", f"module @m{k}_", 1))
        copies.append(str(copy))
    return copies


def test_linted_by_spawned_workers(loaded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that imported jax lints in spawned workers, which start with the built-in rules
    # only: the plugin must reach them too (before, its findings were silently missing).
    lint = sys.modules["hlo_passes.lint"]
    monkeypatch.setattr(lint, "_pool_context", lambda: multiprocessing.get_context("spawn"))
    copies = _copies(tmp_path)
    run = lint.lint_files(copies, select=[CODE], jobs=2, fold=False)
    assert [f.rule for f in run.findings] == [CODE] * SITES * len(copies)


def test_spawned_workers_run_the_parents_passes_only(plugin: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A plugin loaded and then unregistered in the parent must not come back in the workers.
    hlo_passes.load_plugin(str(plugin))
    unregister(NAME)
    lint = sys.modules["hlo_passes.lint"]
    monkeypatch.setattr(lint, "_pool_context", lambda: multiprocessing.get_context("spawn"))
    copies = _copies(tmp_path)
    pooled = lint.lint_files(copies, jobs=2, fold=False).findings
    assert pooled == lint.lint_files(copies, jobs=1, fold=False).findings
    assert {f.rule for f in pooled} == {"MOE001"}


def _lint(plugin: Path, fmt: str, *paths: Path) -> str:
    proc = run("hlo-lint", "--plugin", plugin, "--select", "XPL", "--format", fmt, *paths)
    assert proc.returncode == 1, proc.stderr  # findings
    return proc.stdout


def test_linted_in_every_format(plugin: Path) -> None:
    text = _lint(plugin, "text", MLIR)
    assert text.count(f": {CODE} all-gather read only by a concatenate (1 collective; form concat)\n") == SITES
    assert text.endswith(f"{SITES} findings in 1 file\n")
    findings = json.loads(_lint(plugin, "json", HLO, MLIR))
    jsonschema.validate(findings, json_schema())
    assert [f["rule"] for f in findings] == [CODE] * 2 * SITES
    assert {f["pass_name"] for f in findings} == {NAME}
    github = _lint(plugin, "github", MLIR).splitlines()
    assert len(github) == SITES and all(f"title={CODE}::all-gather read only" in g for g in github)
    sarif = json.loads(_lint(plugin, "sarif", MLIR))
    check_sarif(sarif)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    ours = [r for r in rules if r["id"] == CODE]
    assert ours and ours[0]["name"] == "GatherIntoConcatenate" and ours[0]["properties"] == {"pass": NAME}
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == [CODE] * SITES


def test_run_by_hlo_rewrite_as_file_and_as_module(plugin: Path, tmp_path: Path) -> None:
    # A detect-only rule: its sites are found, none rewritten (exit 4, each says so; issue 27).
    by_file = run("hlo-rewrite", "--plugin", plugin, "--passes", NAME, MLIR, "--dry-run")
    assert by_file.returncode == 4, by_file.stderr
    lines = [line for line in by_file.stderr.splitlines() if f" {CODE} {NAME} [concat] " in line]
    assert len(lines) == SITES and lines[0].endswith("detected, not rewritten: the rule reports this site "
                                                     "without rewriting it")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    report = tmp_path / "r.json"
    by_module = run("hlo-rewrite", "--plugin", "xpl_rule", "--passes", NAME, HLO, "--dry-run",
                    "--report", report, env=env)
    assert by_module.returncode == 4, by_module.stderr
    sites = json.loads(report.read_text())["sites"]
    assert [(s["rule"], s["rule_id"], s["rewritten"]) for s in sites] == [(NAME, CODE, False)] * SITES


BAD_PLUGINS = {
    "syntax": ("def broken(:\n", "SyntaxError"),
    "raises": ("raise RuntimeError('plugin import failed')\n", "RuntimeError: plugin import failed"),
    "bad-code": (PLUGIN.replace('code="XPL001"', 'code="xpl-1"'), "is not letters then three digits"),
    "taken-code": (PLUGIN.replace('code="XPL001"', 'code="MOE001"'),
                   "rule code MOE001 of xpl-gather-concat is already the code of moe-gather-fusion"),
    "bad-template": (PLUGIN.replace("({before} collective", "({colectives}"), "message template names colectives"),
    "no-apply": (PLUGIN.replace("def apply(", "def aply("), "rule class GatherIntoConcat of hlo_passes_plugin_bad_no_apply "
                 "has no apply(module, *, rewrite)"),
}


@pytest.mark.parametrize("kind", sorted(BAD_PLUGINS))
def test_a_bad_plugin_is_a_clear_usage_error(kind: str, tmp_path: Path) -> None:
    code, says = BAD_PLUGINS[kind]
    bad = tmp_path / f"bad_{kind.replace('-', '_')}.py"
    bad.write_text(textwrap.dedent(code))
    for tool, args in (("hlo-rewrite", [MLIR, "--dry-run"]), ("hlo-lint", [MLIR])):
        proc = run(tool, "--plugin", bad, *args)
        assert proc.returncode == 2, (tool, proc.stderr)
        assert f"{tool}: error: cannot load plugin {bad}: " in proc.stderr and says in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_a_missing_plugin_is_a_usage_error(tmp_path: Path) -> None:
    proc = run("hlo-lint", "--plugin", tmp_path / "nowhere.py", MLIR)
    assert proc.returncode == 2 and "plugin file not found" in proc.stderr


# A rule with words and facts of its own (issue 30): its site details are a ``SiteDetails`` subclass
# whose fields its message names, and its ``Wording`` says what fixing a site gains, what a site's
# pieces are called and what fixes it.  Every output format says it in the rule's words, with no
# file of the package edited (nor any of its emitters knowing the rule).
WORDED = '''
"""XPW001: an all-gather read only by a concatenate, in its own words (a plugin, for the tests)."""
from dataclasses import dataclass

from hlo_passes import CollectiveCost, Rule, RuleMeta, Site, SiteDetails, Wording, location_of


@dataclass(kw_only=True)
class JoinFacts(SiteDetails):
    joins: int
    gathered: str


class GatherJoined(Rule):
    meta = RuleMeta(
        code="XPW001",
        pass_name="xpw-gather-joined",
        name="GatherJoined",
        summary="gathered then joined",
        help="Join the shards first, then gather once.",
        markers=("all-gather", "all_gather"),
        verb="joined",
        message="{summary}: a gather of {gathered} is {verb} with {joins} operands ({before} gather; form {form})",
        details=JoinFacts,
        wording=Wording(saves="frees {bytes:,} bytes a chip", costs="spends {bytes:,} bytes a chip",
                        fix="gathers {before} -> {after}: {saving}", gain="joining first {saving}",
                        gain_when_costs="joining first {saving}", piece="operand",
                        fixed_by="join the shards before the gather"),
    )

    def apply(self, module, *, rewrite):
        sites = []
        for instr in module.instructions():
            users = instr.users if instr.opcode == "all-gather" else []
            if len(users) == 1 and users[0].opcode == "concatenate":
                cost = CollectiveCost()
                cost.add(instr)
                facts = JoinFacts(joins=len(users[0].operands), gathered=instr.operands[0].name)
                sites.append(Site(self.name, "joined", location_of(users[0]), cost, CollectiveCost(),
                                  cost.bytes_moved, rewritten=False, details=facts, pieces=[location_of(instr)]))
        return sites, []
'''
W_NAME, W_CODE = "xpw-gather-joined", "XPW001"
# The emitters' words for the MoE rules, which this rule's findings must not carry.
MOE_WORDS = ("fusing", "half ", "fuses it")


@pytest.fixture
def worded(tmp_path: Path) -> Path:
    path = tmp_path / "xpw_rule.py"
    path.write_text(textwrap.dedent(WORDED))
    return path


def test_the_worded_plugin_uses_only_the_public_api() -> None:
    for node in ast.walk(ast.parse(WORDED)):
        if isinstance(node, ast.ImportFrom) and node.module != "dataclasses":
            assert node.module == "hlo_passes" and not node.level
            assert {a.name for a in node.names} <= set(hlo_passes.__all__)


def _worded_lint(plugin: Path, fmt: str, *paths: Path) -> str:
    proc = run("hlo-lint", "--plugin", plugin, "--select", W_CODE, "--format", fmt, *paths)
    assert proc.returncode == 1, proc.stderr
    return proc.stdout


def test_a_rule_says_its_findings_in_its_own_words_in_every_format(worded: Path) -> None:
    text = _worded_lint(worded, "text", MLIR)
    messages = [line for line in text.splitlines() if f": {W_CODE} " in line]
    assert len(messages) == SITES
    assert all(re.search(r": XPW001 gathered then joined: a gather of \S+ is joined with 2 operands "
                         r"\(1 gather; form joined\)$", m) for m in messages), messages
    assert re.search(r"\n    joining first frees [\d,]+ bytes a chip\n", text), text
    assert re.search(r"\n    note: operand 1 starts at \S+:\d+:\d+", text), text
    findings = json.loads(_worded_lint(worded, "json", HLO, MLIR))
    jsonschema.validate(findings, json_schema())
    assert [f["rule"] for f in findings] == [W_CODE] * 2 * SITES
    for f in findings:
        assert f["details"]["joins"] == 2 and f["details"]["gathered"] and f["details"]["collectives_before"] == 1
        assert re.fullmatch(r"gathers 1 -> 0: frees [\d,]+ bytes a chip", f["fix"]), f["fix"]
        assert f["notes"][0].startswith("operand 1 starts at ")
    github = _worded_lint(worded, "github", MLIR).splitlines()
    assert len(github) == SITES
    assert all(f"title={W_CODE}::gathered then joined" in g and "; joining first frees " in g for g in github)
    sarif = json.loads(_worded_lint(worded, "sarif", MLIR))
    check_sarif(sarif)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [W_CODE] * SITES
    assert all("; joining first frees " in r["message"]["text"] for r in results)
    assert all(loc["message"]["text"] == "operand 1 starts here" for r in results for loc in r["relatedLocations"])
    for output in (text, json.dumps(findings), "\n".join(github), json.dumps(results)):
        assert not any(word in output for word in MOE_WORDS), output


def test_the_rewrite_line_and_the_hook_warning_in_its_words(worded: Path) -> None:
    from hlo_passes.diagnostics import hook_warning

    assert hlo_passes.load_plugin(str(worded)) == [W_NAME]
    try:
        found = hlo_passes.lint(MLIR, select=[W_CODE])
        assert len(found) == SITES
        warning = hook_warning(found[0], "jit_step")
        assert re.search(r"; joining first frees [\d,]+ bytes a chip \(join the shards before the gather\)$", warning)
        result = hlo_passes.run_passes(hlo_passes.parse_file(MLIR), [W_NAME], rewrite=False)
        assert [type(s.details).__name__ for s in result.sites] == ["JoinFacts"] * SITES
        # A finding whose fix copies more than it removes, in the rule's words for that.
        from hlo_passes.diagnostics import from_site

        costly = from_site(dataclasses.replace(result.sites[0], bytes_saved=-4096))
        assert costly.fix == "gathers 1 -> 0: spends 4,096 bytes a chip"
    finally:
        unregister(W_NAME)


def test_a_message_may_name_only_its_details_fields(tmp_path: Path) -> None:
    bad = tmp_path / "bad_fields.py"
    bad.write_text(textwrap.dedent(WORDED.replace("with {joins} operands", "with {joinz} operands")))
    proc = run("hlo-lint", "--plugin", bad, MLIR)
    assert proc.returncode == 2 and "message template names joinz; it may use after, before, bytes_saved, " \
                                     "code, form, gathered, joins, pass_name, summary, verb" in proc.stderr


def test_wording_templates_are_checked_when_the_rule_is_defined() -> None:
    with pytest.raises(ValueError, match="wording gain: template names bytes; it may use saving"):
        hlo_passes.Wording(gain="saves {bytes}")
