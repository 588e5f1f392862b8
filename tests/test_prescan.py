"""The text pre-scan never hides a site; the jit hook and the lint skip work only where they may.

Conservativeness is checked two ways: the markers cover every spelling of a
communicating step the rules accept (taken from the rules' and the parser's
own tables, so a new collective or sharding call fails here), and every
module the tests lower, dump or ship that has a site is answered "maybe".
"""
from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp

import hlo_passes
from examples import moe
from hlo_passes import jax_hook
from hlo_passes._mlir_ops import op_spellings
from hlo_passes.lint import lint_module, rule_id
from hlo_passes.dialects.stablehlo.attrs import OPCODES
from hlo_passes.passes import available_passes, opt_in_passes, run_passes
from hlo_passes.passes.prescan import BUILTIN_RULES, MARKERS, markers_for, may_have_sites, rules_that_may_fire
from hlo_passes.ir.analysis import SHARDING_CALLS
from hlo_passes.rewrites.split import crossings
from moe_cases import lowered_text
from programs import DUMP_CASES, TEXT_CASES

COMMUNICATING = frozenset({"all-gather", "all-reduce", "reduce-scatter"})


def test_markers_cover_the_rules_tables() -> None:
    rules = available_passes()
    assert BUILTIN_RULES <= set(rules)
    mlir_names = {h: [m for m, hh in OPCODES.items() if hh == h] for h in COMMUNICATING}
    sharding_spellings = [*SHARDING_CALLS, crossings.ENTRY_TARGET,
                          "sdy.sharding_constraint", "sdy.manual_computation"]
    for name in BUILTIN_RULES:
        markers = markers_for(name)
        marked = lambda spelling: any(m in spelling for m in markers)  # noqa: E731
        # A rule that finds no communication (MOE006) names no collectives.
        collectives = getattr(rules[name], "collectives", frozenset())
        assert set(collectives) <= COMMUNICATING, name
        for opcode in collectives:
            assert marked(opcode) and mlir_names[opcode] and all(marked(m) for m in mlir_names[opcode])
        if getattr(rules[name], "implicit", False):
            assert all(marked(s) for s in sharding_spellings), name
    assert set(MARKERS) == {m for name in BUILTIN_RULES for m in markers_for(name)}


def test_no_marker_no_rule_and_plugins_always_looked_at() -> None:
    text = "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n"
    assert not may_have_sites(text)
    assert not may_have_sites(text, ["moe-gather-fusion"])
    assert may_have_sites(text, ["some-plugin-rule"])
    assert not may_have_sites(text.replace("parameter(0)", "parameter(0), sharding={replicated}"))
    assert may_have_sites(text + "// all-gather\n")


def _check(texts: dict[str, str]) -> int:
    """How many texts have sites; each of those must pass the scan."""
    with_sites = 0
    for label, text in texts.items():
        result = run_passes(hlo_passes.parse(text), rewrite=False)
        # The lint (pre-scan per rule, detection on its own module, no copy) finds the same sites
        # (and those of opt-in rules that pay: MOE005 where its kernel is emitted) and leaves the
        # module as it was.
        module = hlo_passes.parse(text)
        findings = lint_module(module)
        paying = [s for s in run_passes(hlo_passes.parse(text), opt_in_passes(), rewrite=False).sites if s.pays]
        # Each finding where the program has its site (``Site.written``: in optimized HLO whose
        # meeting op XLA fused away, the op that now joins the pieces), as every entry point shows it.
        placed = [(s.rule, (s.written or s).location) for s in [*result.sites, *paying]]
        assert [(f.pass_name, f.line, f.column) for f in findings] == sorted(
            ((rule, loc.line, loc.column) for rule, loc in placed),
            key=lambda k: (k[1], k[2], rule_id(k[0]))), label
        assert not module.changed and module.to_text() == text
        if result.sites:
            with_sites += 1
            kept = rules_that_may_fire(text)
            for site in result.sites:
                assert site.rule in kept, f"pre-scan would skip {site.rule} on {label}, which has a site of it"
    return with_sites


def test_every_lowered_moe_program_with_a_site_passes() -> None:
    specs = moe.all_specs()
    texts = {f"{s.name} {d}": lowered_text(s, d) for s in specs for d in ("stablehlo", "hlo")}
    # Each constraint spelling and the router layer, once each.
    for spec in moe.all_specs(forms=("implicit",), modes=("forward", "grad"), variants=("concat",),
                              layers=("router",)):
        texts[f"{spec.name} stablehlo"] = lowered_text(spec, "stablehlo")
    for constraint in moe.CONSTRAINTS:
        spec = moe.ProgramSpec(form="implicit", constraint=constraint)
        texts[f"{spec.name} {constraint}"] = lowered_text(spec, "stablehlo")
    assert _check(texts) >= 60


def test_op_names_of_every_lowered_moe_program_with_a_site_pass() -> None:
    """The jit hook scans op names and custom-call targets, not the text."""
    with_sites = 0
    specs = [*moe.all_specs(), *moe.all_specs(forms=("implicit",), modes=("forward", "grad"),
                                              variants=("concat",), layers=("router",)),
             *(moe.ProgramSpec(form="implicit", constraint=c) for c in moe.CONSTRAINTS)]
    for spec in specs:
        lowered = moe.lower(spec)
        spellings = op_spellings(lowered.compiler_ir("stablehlo"))
        assert spellings is not None and "stablehlo.dot_general" in spellings.split("\n")
        result = run_passes(hlo_passes.parse(lowered_text(spec, "stablehlo")), rewrite=False)
        if result.sites:
            with_sites += 1
            kept = rules_that_may_fire(spellings)
            assert all(site.rule in kept for site in result.sites), spec.name
    assert with_sites >= 30


def test_own_texts_dumps_and_bundled_files_with_a_site_pass(own_texts, own_dumps, repo_root, samples_dir) -> None:
    texts = {f"{p}-{f}": own_texts[(p, f)].text for p, f in TEXT_CASES}
    texts.update({f"dump {p}-{s}": own_dumps[(p, s)].text for p, s in DUMP_CASES})
    files = [*sorted((repo_root / "examples" / "data").iterdir()), *sorted(samples_dir.rglob("*"))]
    for path in files:
        if path.is_file() and path.suffix in (".mlir", ".hlo", ".txt"):
            text = path.read_text(errors="replace")
            if text.lstrip().startswith(("HloModule", "module", "#", "func", '"builtin.module"')):
                texts[str(path)] = text
    assert _check(texts) >= 20


def test_hook_skips_the_parse_without_a_candidate_and_runs_the_same(monkeypatch) -> None:
    parsed: list[str] = []
    real_parse = jax_hook.parse
    monkeypatch.setattr(jax_hook, "parse", lambda text, **kw: parsed.append(text) or real_parse(text, **kw))

    def f(x, y):
        return jnp.tanh(x @ y) + 1.0

    x = jnp.arange(12.0).reshape(3, 4)
    y = jnp.ones((4, 2))
    jitted = hlo_passes.jit(f)
    low = jitted.lower(x, y)
    assert low.result is None and not low.rewritten and parsed == []
    np.testing.assert_allclose(np.asarray(jitted(x, y)), np.asarray(jax.jit(f)(x, y)), rtol=1e-6)


def test_hook_still_rewrites_a_candidate(monkeypatch) -> None:
    spec = moe.ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="forward")
    fn, args = moe.build(spec)  # a jax.jit-ed function
    jitted = hlo_passes.jit(fn.__wrapped__)
    low = jitted.lower(*args)
    assert low.result is not None and low.rewritten and len(low.report) == 1
