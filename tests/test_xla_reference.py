"""The XLA reference worker and the module comparison, checked on their own.

These run without hlo_passes' parser: modules are built by hand with the IR
API, so a broken parser cannot make the oracle look right.
"""
from __future__ import annotations

import os
import signal

import pytest

from hlo_passes.ir import Computation, Instruction, Module, Shape
from hlo_xla_compare import name_key, shape_difference, structure_differences, xla_shape
from xla_reference import TEST_ABORT, XlaReference

GOOD = """HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p1 = f32[8]{0} parameter(1)
  p0 = f32[8]{0} parameter(0)
  zero = f32[] constant(0)
  m = f32[8] multiply(p0, p1)
  ROOT r = f32[] reduce(m, zero), dimensions={0}, to_apply=add
}
"""

# Asks XLA to reshape 32 elements into 31: jaxlib 0.10.2's parser CHECK-fails
# (aborts); 0.12's returns an error.
RESHAPE_32_TO_31 = """HloModule m
ENTRY e {
  p = f32[4,8] parameter(0)
  ROOT r = f32[31] reshape(p)
}
"""
# Aborts the worker's child in every jaxlib (see xla_reference.TEST_ABORT).
ABORTS = TEST_ABORT + GOOD

BAD = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] frobnicate(p)\n}\n"


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    with XlaReference(tmp_path_factory.mktemp("xla_cache"), workers=2) as r:
        yield r


def test_parse_reports_computations_instructions_shapes(ref):
    r = ref.parse(GOOD)
    assert r.ok, r.error
    assert r.entry == "main"
    assert [c.name for c in r.computations] == ["add", "main"]
    main = r.computation("main")
    assert [(i.name, i.opcode, i.operands) for i in main.instructions] == [
        ("p1", "parameter", ()),
        ("p0", "parameter", ()),
        ("zero", "constant", ()),
        ("m", "multiply", ("p0", "p1")),
        ("r", "reduce", ("m", "zero")),
    ]
    assert [i.parameter_number for i in main.instructions[:2]] == [1, 0]
    # XLA gives array shapes without a layout the default one.
    assert main.instructions[3].shape == "f32[8]{0}"
    assert main.root.name == "r" and r.computation("add").root.name == "s"
    assert "ROOT %r = f32[] reduce(%m, %zero)" in r.text


def test_rejected_text_is_an_error_with_xla_message(ref):
    r = ref.parse(BAD)
    assert r.status == "error"
    assert "frobnicate" in r.error


def test_abort_is_reported_and_the_worker_survives(ref):
    starts = ref.stats["worker_starts"]
    r = ref.parse(ABORTS)
    assert r.status == "crashed"
    assert "Check failed" in r.error
    assert ref.parse(GOOD).ok
    # The abort happened in a forked child; the worker itself lives on.
    assert ref.stats["worker_starts"] == starts or starts == 0


@pytest.mark.jax010
def test_xla_0_10_aborts_on_a_bad_reshape_and_it_is_reported_as_a_crash(ref):
    r = ref.parse(RESHAPE_32_TO_31)
    assert r.status == "crashed" and "Check failed" in r.error
    assert ref.parse(GOOD).ok


@pytest.mark.jax012
def test_xla_0_12_rejects_the_same_reshape_with_an_error(ref):
    r = ref.parse(RESHAPE_32_TO_31)
    assert r.status == "error" and r.error


def test_parse_many_keeps_order_across_workers(ref):
    texts = [GOOD.replace("HloModule m", f"HloModule m{i}") for i in range(12)]
    texts[3], texts[7] = ABORTS, BAD
    results = list(ref.parse_many(texts))
    assert [r.status for r in results] == ["ok"] * 3 + ["crashed"] + ["ok"] * 3 + ["error"] + ["ok"] * 4
    assert [r.module_name for r in results if r.ok] == [f"m{i}" for i in range(12) if i not in (3, 7)]


def test_calls_may_nest_inside_an_iteration(ref):
    # A request made while another call still has replies in flight must not
    # read those replies as its own (nor they its).
    texts = [GOOD.replace("HloModule m", f"HloModule outer{i}") for i in range(6)]
    seen = []
    for i, r in enumerate(ref.parse_many(texts)):
        inner = ref.parse(GOOD.replace("HloModule m", f"HloModule inner{i}"))
        seen.append((r.module_name, inner.module_name))
        if i == 2:
            assert ref.parse(ABORTS).status == "crashed"
    assert seen == [(f"outer{i}", f"inner{i}") for i in range(6)]
    assert len(ref._workers) <= ref.n_workers + 1


def test_answers_are_cached_but_crashes_are_not(tmp_path):
    with XlaReference(tmp_path, workers=1) as r:
        assert not r.parse(GOOD).cached
        assert r.parse(ABORTS).status == "crashed"
    with XlaReference(tmp_path, workers=1) as r:
        again = r.parse(GOOD)
        assert again.cached and again.ok
        assert r.to_string(GOOD).cached is False  # another request kind, another key
        assert r.parse(ABORTS).cached is False
        assert r.stats["cache_hits"] == 1


def test_a_killed_worker_is_replaced_and_the_request_retried(tmp_path):
    with XlaReference(None, workers=1) as r:
        assert r.parse(GOOD).ok
        (worker,) = r._workers
        os.kill(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        res = r.parse(GOOD)
        assert res.ok and res.attempts == 2
        assert r.stats["worker_starts"] == 2


def test_a_worker_that_cannot_start_is_an_error_not_a_crash_per_request(monkeypatch):
    import xla_reference

    monkeypatch.setattr(xla_reference.sys, "executable", "/bin/false")
    with XlaReference(None, workers=1) as r:
        with pytest.raises(RuntimeError, match="cannot start"):
            list(r.parse_many([GOOD] * 3))


def test_to_string_many_matches_single_calls(ref):
    single = ref.to_string(GOOD)
    assert single.computations is None
    assert [x.text for x in ref.to_string_many([GOOD, GOOD])] == [single.text] * 2


# ---------------------------------------------------------------- comparison
def _module(spec: dict[str, list[tuple]], entry: str, calls: dict[str, str] | None = None) -> Module:
    """Build a Module from {computation: [(name, opcode, shape, operands, attrs)]}.

    ``calls`` maps "computation/instruction" to the computation it calls.
    """
    mod = Module("m", "hlo")
    by_name: dict[str, Instruction] = {}
    for cname, rows in spec.items():
        comp = Computation(cname)
        mod.add_computation(comp)
        for name, opcode, shape, operands, attrs in rows:
            ins = Instruction(name, opcode, shape, [by_name[o] for o in operands], attrs)
            by_name[f"{cname}/{name}"] = by_name[name] = ins
            comp.append(ins)
        comp.root = comp.instructions[-1]
    for where, callee in (calls or {}).items():
        by_name[where].called_computations.append(mod.computations[callee])
    mod.entry = mod.computations[entry]
    return mod


F = Shape.array("f32", [])
F8 = Shape.array("f32", [8])


def _good_module(**changes) -> Module:
    main = [
        ("p1", "parameter", F8, [], {"parameter_number": 1}),
        ("p0", "parameter", F8, [], {"parameter_number": 0}),
        ("zero", "constant", F, [], {}),
        ("m", "multiply", F8, ["p0", "p1"], {}),
        ("r", "reduce", F, ["m", "zero"], {}),
    ]
    for i, row in enumerate(main):
        if row[0] in changes and changes[row[0]] is not None:
            main[i] = changes[row[0]]
    return _module({
        "add": [
            ("a", "parameter", F, [], {"parameter_number": 0}),
            ("b", "parameter", F, [], {"parameter_number": 1}),
            ("s", "add", F, ["a", "b"], {}),
        ],
        "main": main,
    }, "main", calls={f"main/{main[4][0]}": "add"} if "unlinked" not in changes else {})


def test_comparison_accepts_the_same_module(ref):
    assert structure_differences(_good_module(), ref.parse(GOOD), GOOD) == []


@pytest.mark.parametrize("change, expected", [
    ({"m": ("m", "multiply", F8, ["p1", "p0"], {})}, "operands: main/m: ours ['p1', 'p0'], XLA ['p0', 'p1']"),
    ({"m": ("m", "add", F8, ["p0", "p1"], {})}, "opcode: main/m: ours 'add'"),
    ({"m": ("m", "multiply", Shape.array("f32", [9]), ["p0", "p1"], {})}, "(dimensions)"),
    ({"m": ("m", "multiply", Shape.array("s32", [8]), ["p0", "p1"], {})}, "(element type)"),
    ({"p1": ("p1", "parameter", F8, [], {"parameter_number": 0})}, "parameter number: main/p1"),
    ({"r": ("r.7", "reduce", F, ["m", "zero"], {})}, "name: main/r: ours 'r.7'"),
    ({"unlinked": None}, "called computations: main/r: ours [], XLA ['add']"),
])
def test_comparison_finds_each_kind_of_difference(ref, change, expected):
    diffs = structure_differences(_good_module(**change), ref.parse(GOOD), GOOD)
    assert any(expected in d for d in diffs), diffs


def test_comparison_finds_a_missing_instruction(ref):
    mod = _good_module()
    main = mod.computations["main"]
    main.instructions.remove(main.instructions[2])
    diffs = structure_differences(mod, ref.parse(GOOD), GOOD)
    assert diffs and diffs[0].startswith("instruction count: main: ours 4, XLA 5"), diffs


def test_renames_by_xla_are_accepted_only_for_taken_names(ref):
    text = """HloModule m
c1 {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY c2 {
  x = f32[] parameter(0)
  x.1 = f32[] negate(x)
  ROOT y = f32[] call(x.1), to_apply=c1
}
"""
    r = ref.parse(text)
    # XLA keeps the first `x` and `y` and renumbers the later ones, which in
    # turn pushes the source's `x.1` along.
    xla_names = [i.name for c in r.computations for i in c.instructions]
    assert xla_names[:2] == ["x", "y"] and len(set(xla_names)) == 5
    mod = _module({
        "c1": [("x", "parameter", F, [], {"parameter_number": 0}), ("y", "negate", F, ["x"], {})],
        "c2": [("x", "parameter", F, [], {"parameter_number": 0}),
               ("x.1", "negate", F, ["x"], {}), ("y", "call", F, ["x.1"], {})],
    }, "c2", calls={"c2/y": "c1"})
    assert structure_differences(mod, r, text) == []
    # A name nothing else uses must come through unchanged.
    mod.computations["c2"].instructions[2].name = "z"
    assert any(d.startswith("name: c2/") for d in structure_differences(mod, r, text))


def test_shape_reader_and_layout_rules():
    assert xla_shape("(f32[2]{0}, /*index=5*/s32[<=3,?]{1,0:T(8)})") == (
        "tuple", (("array", "f32", (2,), (False,), "{0}"),
                  ("array", "s32", (3, -1), (True, True), "{1,0:T(8)}")))
    tiled = Shape("f32", (2, 3), (False, False), layout="{0,1:T(8,128)}")
    assert shape_difference(tiled, "f32[2,3]{0,1:T(8,128)}") is None
    assert "(layout)" in shape_difference(tiled, "f32[2,3]{1,0}")
    # Without a layout of ours, XLA's default layout is not a difference.
    assert shape_difference(Shape.array("f32", [2, 3]), "f32[2,3]{1,0}") is None
    assert name_key("param") == name_key("param.0") == ("param", 0)


def test_control_predecessors_are_compared(ref):
    text = """HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] negate(a)
  ROOT c = f32[] exponential(a), control-predecessors={b}
}
"""
    r = ref.parse(text)
    assert r.computation("e").instructions[2].control_predecessors == ("b",)

    def build(preds):
        return _module({"e": [
            ("a", "parameter", F, [], {"parameter_number": 0}),
            ("b", "negate", F, ["a"], {}),
            ("c", "exponential", F, ["a"], {"control-predecessors": preds} if preds else {}),
        ]}, "e")

    assert structure_differences(build(("b",)), r, text) == []
    diffs = structure_differences(build(None), r, text)
    assert diffs == ["control predecessors: e/c: ours [], XLA ['b']"], diffs
