"""One rule model: a rule's metadata lives on the rule, and everything else reads it from there.

The registry, the pre-scan, the lint's tables, the console scripts and the JSON schema take
each rule's code, pass name, summary and markers from ``RuleMeta``; built-in rules are found
in ``hlo_passes/rewrites/`` (a new module there is a new rule, nothing else lists it).
"""
from __future__ import annotations

import ast
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes import passes
from hlo_passes.passes import prescan
from hlo_passes.diagnostics import schema
from hlo_passes.rewrites import builtin
from hlo_passes.rule import Rule, RuleMeta, rules_in_module

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

lint = sys.modules["hlo_passes.lint"]  # the attribute hlo_passes.lint is the function
PACKAGE = Path(hlo_passes.__file__).resolve().parent


def test_builtin_rules_are_found_in_the_rewrites_package() -> None:
    rules = builtin.builtin_rules()
    assert [(r.meta.code, r.name) for r in rules] == [("MOE001", "moe-gather-fusion"),
                                                       ("MOE002", "moe-gradient-fusion"),
                                                       ("MOE003", "moe-pair-gather-fusion"),
                                                       ("MOE004", "moe-pair-gradient-fusion"),
                                                       ("MOE005", "moe-ffn-fusion"),
                                                       ("MOE006", "gmm-redundant-mask")]
    assert list(passes.available_passes())[:len(rules)] == [r.name for r in rules]  # run in the order of codes
    # Each rule's listing fields are its metadata's.
    for r in rules:
        assert r.name == r.meta.pass_name and r.description == r.meta.listing


def test_a_new_module_in_rewrites_is_a_new_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What adding a built-in rule takes: one module in the package, nothing listed elsewhere.
    (tmp_path / "zz_example.py").write_text(textwrap.dedent('''
        from hlo_passes.rule import Rule, RuleMeta

        class Example(Rule):
            meta = RuleMeta(code="ZZZ001", pass_name="zz-example", name="Example", summary="an example")

            def apply(self, module, *, rewrite):
                return [], []
    '''))
    (tmp_path / "_zz_private.py").write_text("raise AssertionError('private modules are not imported')\n")
    import hlo_passes.rewrites as package

    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    builtin.builtin_rules.cache_clear()
    try:
        found = builtin.builtin_rules()
        assert [r.meta.code for r in found] == ["MOE001", "MOE002", "MOE003", "MOE004", "MOE005", "MOE006", "ZZZ001"]
    finally:
        monkeypatch.undo()
        builtin.builtin_rules.cache_clear()
        sys.modules.pop("hlo_passes.rewrites.zz_example", None)
    assert [r.meta.code for r in builtin.builtin_rules()] == ["MOE001", "MOE002", "MOE003", "MOE004", "MOE005", "MOE006"]


def test_the_tables_are_read_off_the_rules() -> None:
    rules = builtin.builtin_rules()
    assert lint.RULES == {r.name: r.meta for r in rules}
    assert lint.rule_id("moe-gradient-fusion") == "MOE002" and lint.rule_id("a-plugin") == "a-plugin"
    assert prescan.BUILTIN_RULES == {r.name for r in rules}
    for r in rules:
        assert prescan.markers_for(r.name) == r.meta.markers
    assert lint.known_codes() == ["MOE001", "MOE002", "MOE003", "MOE004", "MOE005", "MOE006"]


def test_codes_and_pass_names_are_written_once() -> None:
    # The one place a built-in rule's code or pass name is spelled is its own module (docstrings
    # and comments aside): a second table would drift.
    spelled = {s for r in builtin.builtin_rules() for s in (r.meta.code, r.meta.pass_name)}
    own = {sys.modules[type(r).__module__].__file__ for r in builtin.builtin_rules()}
    for path in PACKAGE.rglob("*.py"):
        if str(path) in own:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in spelled:
                pytest.fail(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} spells {node.value!r}")


def test_the_shipped_schema_is_generated_from_the_metadata() -> None:
    # If this fails after a rule changed: python -m hlo_passes.diagnostics.schema --write
    assert schema.SCHEMA_FILE.read_text() == schema.schema_text(), "python -m hlo_passes.diagnostics.schema --write"
    assert lint.json_schema() == schema.generate()
    # The schema names no rule: a new rule (built in or a plugin) leaves it as it is.
    def values(node: object) -> Iterator[object]:  # every const and enum value in the schema
        if isinstance(node, dict):
            yield from ([node["const"]] if "const" in node else [])
            yield from node.get("enum", [])
            node = list(node.values())
        if isinstance(node, list):
            for child in node:
                yield from values(child)
    assert not {r.meta.code for r in builtin.builtin_rules()} & set(values(lint.json_schema()))
    codes = {"type": "object", "properties": {"rule": lint.json_schema()["items"]["properties"]["rule"]},
             "$defs": lint.json_schema()["$defs"]}
    for rule in ("MOE001", "XPW001", "ABC1234", "a-plugin-pass", "parse-error"):
        jsonschema.validate({"rule": rule}, codes)
    assert schema.main(["--check"]) == 0


@pytest.mark.parametrize("fields, says", [
    ({"code": "moe1"}, "is not letters then three digits"),
    ({"pass_name": "Has Spaces"}, "is not lower-case words"),
    ({"name": "not camel"}, "is not CamelCase"),
    ({"summary": "two\nlines"}, "one non-empty line"),
    ({"markers": "all-gather"}, "markers must be a tuple"),
    ({"message": "{summary} {nope}"}, "message template names nope"),
    ({"message": "{summary"}, "message template"),
])
def test_bad_metadata_is_refused_when_the_rule_is_defined(fields: dict, says: str) -> None:
    base = {"code": "XYZ001", "pass_name": "xyz", "name": "Xyz", "summary": "xyz"}
    with pytest.raises(ValueError, match=says):
        RuleMeta(**{**base, **fields})


def test_register_refuses_a_code_already_taken_and_a_nameless_rule() -> None:
    class Clash(Rule):
        meta = RuleMeta(code="MOE001", pass_name="clash", name="Clash", summary="clash")

        def apply(self, module, *, rewrite):
            return [], []

    with pytest.raises(ValueError, match="MOE001 of clash is already the code of moe-gather-fusion"):
        passes.register(Clash())
    with pytest.raises(ValueError, match="needs a pass name"):
        passes.register(object())
    assert "clash" not in passes.available_passes()


def test_rules_in_module_takes_the_classes_it_defines_only() -> None:
    import hlo_passes.rewrites.moe_gather_fusion as gather

    assert [type(r).__name__ for r in rules_in_module(gather)] == ["MoeGatherFusion"]
    assert rules_in_module(passes) == []  # imports rule classes' bases, defines no rule
