"""Where a finding points (issue 27), without jax: HLO's stack-frame tables decoded, the user's
frame chosen as jax's tracebacks choose it, the note that says how to get source lines only
where the text has none, and the stages of an XLA dump folder named as XLA and jax name them.

The real dumps of both jax versions are in tests/test_lint_dump_sources.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes._copies import dump_stages, group_copies, module_name
from hlo_passes.lint import lint_files, lint_text
from hlo_passes.source_frames import Frame, FrameTable, frame_table, is_library_file, mlir_frames, user_frame

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "moe-gather-fusion" / "concat.hlo"


def _one_stage() -> str:
    """The one-stage ``concat`` fixture module (slice -> all-gather -> concatenate)."""
    text = FIXTURE.read_text()
    return text[text.index("HloModule concat_one_stage"):text.index("// CHECK-LABEL")]


def _with_frames(text: str, files: list[str], stack: list[tuple[str, int, str]]) -> str:
    """``text`` with stack-frame tables (as XLA prints them) in which every op's frame is the
    innermost of ``stack`` (innermost first: (file, line, function)), and its metadata."""
    functions = sorted({f for _, _, f in stack})
    frames = ["FileNames", *(f'{i} "{f}"' for i, f in enumerate(files, 1)), "",
              "FunctionNames", *(f'{i} "{f}"' for i, f in enumerate(functions, 1)), "", "FileLocations"]
    for i, (file, line, function) in enumerate(stack, 1):
        frames.append(f"{i} {{file_name_id={files.index(file) + 1} function_name_id={functions.index(function) + 1} "
                      f"line={line} end_line={line} column=4 end_column=9}}")
    frames += ["", "StackFrames"]
    # Outermost first, as XLA numbers them: frame k's parent is frame k - 1, printed + 1.
    for k, loc in enumerate(reversed(range(1, len(stack) + 1)), 1):
        frames.append(f"{k} {{file_location_id={loc} parent_frame_id={k - 1 + 1}}}")
    innermost = len(stack)
    head, body = text.split("\n", 1)
    body = re.sub(r"^(\s+(?:ROOT )?[\w.]+ = [^\n]*?)$",
                  lambda m: m.group(1) + f', metadata={{op_name="jit(step)/op" stack_frame_id={innermost}}}',
                  body, flags=re.M)
    return head + "\n\n" + "\n".join(frames) + "\n\n" + body


# ---- the tables --------------------------------------------------------------------


def test_parent_ids_are_printed_one_past_the_parent(corpus_dir: Path) -> None:
    # XLA's own parser test: frame 2 is method (test.py:35), called from main (frame 1).
    module = hlo_passes.parse_file(corpus_dir / "hlo" / "valid" / "hlo_parser_test__111.hlo")
    table = frame_table(module)
    assert table.stack(2) == (Frame("yet/another/test.py", 35, 2, "method"), Frame("<embedded module>", 153, 2, "main"))
    assert table.stack(1) == (Frame("<embedded module>", 153, 2, "main"),)
    assert table.stack(7) == ()  # an id the tables do not hold
    assert table.user_frame(2) == Frame("yet/another/test.py", 35, 2, "method")
    assert frame_table(module) is table  # decoded once per module


def test_a_cycle_or_a_dangling_location_ends_the_stack() -> None:
    table = FrameTable([
        ("FileNames", [(1, '"/u/a.py"')], None),
        ("FunctionNames", [(1, '"f"')], None),
        ("FileLocations", [(1, "{file_name_id=1 function_name_id=1 line=3 end_line=3 column=0 end_column=1}")], None),
        # 1 -> 2 -> 1 (a cycle no XLA writes), 3 at a location the table lacks.
        ("StackFrames", [(1, "{file_location_id=1 parent_frame_id=3}"), (2, "{file_location_id=1 parent_frame_id=2}"),
                         (3, "{file_location_id=9 parent_frame_id=1}")], None),
    ])
    assert table.stack(1) == (Frame("/u/a.py", 3, 0, "f"), Frame("/u/a.py", 3, 0, "f"))
    assert table.stack(3) == ()


def test_file_names_are_c_escaped_utf8() -> None:
    # absl::CEscape writes bytes past ASCII in octal: "é" is \303\251.
    table = FrameTable([("FileNames", [(1, r'"/home/r\303\251my/\"q\"\\model.py"')], None),
                        ("FunctionNames", [(1, '"f"')], None),
                        ("FileLocations", [(1, "{file_name_id=1 function_name_id=1 line=7}")], None),
                        ("StackFrames", [(1, "{file_location_id=1 parent_frame_id=1}")], None)])
    assert table.stack(1)[0].file == '/home/rémy/"q"\\model.py'


# ---- which frame is the user's ---------------------------------------------------------


@pytest.mark.parametrize("path, library", [
    ("/usr/lib/python3.12/site-packages/flax/linen/module.py", True),
    ("/venv/lib/python3.11/site-packages/optax/_src/transform.py", True),
    ("/venv/lib/python3.11/site-packages/jax/_src/lax/lax.py", True),
    ("/src/jax/jax/_src/numpy/lax_numpy.py", True),  # a jax source checkout
    ("/work/checkout/hlo_passes/jax_hook.py", True),
    ("/venv/lib/python3.11/site-packages/hlo_passes/diagnostics/model.py", True),
    # A clone of the repository named hlo_passes: its examples and tests are the user's (a CI
    # clone made install()'s warning point at pytest's frame), the package inside it is not.
    ("/work/ci/hlo_passes/examples/moe.py", False),
    ("/work/ci/hlo_passes/tests/test_jax_hook.py", False),
    ("/work/ci/hlo_passes/hlo_passes/jax_hook.py", True),
    ("/usr/lib/python3.12/contextlib.py", True),
    ("<frozen runpy>", True),
    ("/home/u/model/moe.py", False),
    ("model/moe.py", False),
    ("/venv/lib/python3.11/site-packages/mymodel/layers.py", False),  # jax keeps other packages' frames
    ("/src/jax/tests/shard_map_test.py", False),  # jax's own rule: *_test.py is the user's
])
def test_library_files(path: str, library: bool) -> None:
    assert is_library_file(path) is library


def test_the_innermost_frame_outside_the_libraries_is_chosen() -> None:
    flax = Frame("/venv/lib/python3.12/site-packages/flax/linen/module.py", 700, 0, "_call_wrapped_method")
    layer = Frame("/repo/model/moe.py", 21, 8, "MoE.__call__")
    step = Frame("/repo/train.py", 90, 4, "train_step")
    assert user_frame([flax, layer, step]) == layer
    assert user_frame([layer, step]) == layer
    assert user_frame([flax]) == flax  # all a library's: the innermost, rather than nothing
    assert user_frame([]) is None


def test_hlo_metadata_resolves_to_the_user_frame_through_the_tables() -> None:
    stack = [("/venv/lib/python3.12/site-packages/flax/linen/module.py", 700, "_call_wrapped_method"),
             ("/repo/model/moe.py", 21, "MoE.__call__"), ("/repo/train.py", 90, "train_step")]
    text = _with_frames(_one_stage(), [f for f, _, _ in stack], stack)
    (f,) = lint_text(text, path="m.hlo")
    assert (f.source, f.source_function) == ("/repo/model/moe.py:21", "MoE.__call__")
    assert all(p["source"] == "/repo/model/moe.py:21" for p in f.details["pieces"])
    assert not any("metadata" in n or "source" in n for n in f.notes)  # the text has its lines: no note


def test_mlir_callsites_give_the_same_frame() -> None:
    loc = ('loc("jit(step)/concatenate"(callsite("_call_wrapped_method"("/venv/lib/python3.12/site-packages/flax/'
           'linen/module.py":700:4) at callsite("MoE.__call__"("/repo/model/moe.py":21:8) at '
           '"train_step"("/repo/train.py":90:4)))))')
    frames = mlir_frames(loc, "jit(step)/concatenate")
    assert [f.source for f in frames] == ["/venv/lib/python3.12/site-packages/flax/linen/module.py:700",
                                          "/repo/model/moe.py:21", "/repo/train.py:90"]
    assert user_frame(frames) == Frame("/repo/model/moe.py", 21, 8, "MoE.__call__")
    # Without tracebacks in locations the op's name wraps the file: not a function.
    (only,) = mlir_frames('loc("jit(step)/concatenate"("/repo/model/moe.py":21:8))', "jit(step)/concatenate")
    assert only.function is None


# ---- the note that says how to get source lines --------------------------------------


def test_no_metadata_note_names_what_keeps_it() -> None:
    (f,) = lint_text(_one_stage(), path="m.hlo")
    assert f.source is None
    assert f.notes[-1].startswith("this text has no op metadata: print it with "
                                  "`lowered.as_text(dialect=\"hlo\", debug_info=True)`")


def test_op_names_without_lines_say_so() -> None:
    text = re.sub(r"^(\s+(?:ROOT )?[\w.]+ = [^\n]*?)$", r'\1, metadata={op_name="jit(step)/op"}', _one_stage(),
                  flags=re.M)
    (f,) = lint_text(text, path="m.hlo")
    assert f.op_name == "jit(step)/op" and f.source is None
    assert "op names but no source lines" in f.notes[-1] and "jax_traceback_in_locations_limit" in f.notes[-1]


def test_frame_ids_without_their_tables_say_so() -> None:
    stack = [("/repo/model/moe.py", 21, "MoE.__call__")]
    text = _with_frames(_one_stage(), ["/repo/model/moe.py"], stack)
    text = re.sub(r"\n(FileNames|FunctionNames|FileLocations|StackFrames)\n(\d+ [^\n]*\n)*", "\n", text)
    assert "StackFrames" not in text and "stack_frame_id=1" in text
    (f,) = lint_text(text, path="m.hlo")
    assert f.source is None and "stack-frame tables (`stack_frame_id`) that it does not hold" in f.notes[-1]


# ---- stages of a dump folder, as XLA and jax name them ------------------------------------


def _stages(tmp_path: Path, files: dict[str, str]) -> dict[str, tuple[str, str, bool]]:
    paths = []
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        paths.append(str(p))
    names: dict[str, str | None] = {}
    group_copies(paths, names)
    return {str(Path(p).relative_to(tmp_path)): (str(Path(s.module).relative_to(tmp_path)), s.name, s.joined)
            for p, s in dump_stages(paths, names).items()}


def test_dump_file_names(tmp_path: Path) -> None:
    hlo = "HloModule jit_step, entry_computation_layout={()->f32[]}\n\nENTRY e {\n  ROOT c = f32[] constant(0)\n}\n"
    mlir = "module @jit_step {\n}\n"
    got = _stages(tmp_path, {
        "module_0007.jit_step.before_optimizations.txt": hlo,
        "module_0007.jit_step.0003.spmd-partitioner.after_spmd-partitioning.before_x.txt": hlo,
        "module_0007.jit_step.sm_9.0_gpu_after_optimizations.txt": hlo,
        "module_0007.jit_step/module.mlir": mlir,
        "jax_ir0012_jit_step_compile.mlir": mlir,
        "tpu-module_12345.before_optimizations.txt": hlo.replace("jit_step", "x" * 300),  # name left out
        "saved/lowered.mlir": mlir,  # a folder without a dump: no stage
    })
    assert got == {
        "module_0007.jit_step.before_optimizations.txt": ("module_0007", "before_optimizations", False),
        "module_0007.jit_step.0003.spmd-partitioner.after_spmd-partitioning.before_x.txt":
            ("module_0007", "after_spmd-partitioning", False),
        "module_0007.jit_step.sm_9.0_gpu_after_optimizations.txt": ("module_0007", "sm_9.0_gpu_after_optimizations", False),
        "module_0007.jit_step/module.mlir": ("module_0007", "module.mlir", False),
        "jax_ir0012_jit_step_compile.mlir": ("module_0007", "jax_ir0012_jit_step_compile.mlir", True),
        "tpu-module_12345.before_optimizations.txt": ("module_12345", "before_optimizations", False),
        "saved/lowered.mlir": ("saved/lowered.mlir", "", False),
    }


def test_a_name_two_modules_share_joins_neither(tmp_path: Path) -> None:
    hlo = "HloModule jit_step\n\nENTRY e {\n  ROOT c = f32[] constant(0)\n}\n"
    got = _stages(tmp_path, {"module_0001.jit_step.before_optimizations.txt": hlo,
                             "module_0005.jit_step.before_optimizations.txt": hlo.replace("0)", "1)"),
                             "jax_ir0003_jit_step_compile.mlir": "module @jit_step {\n}\n"})
    assert got["jax_ir0003_jit_step_compile.mlir"] == ("jax_ir0003_jit_step_compile.mlir", "", False)


def test_module_names() -> None:
    assert module_name("// c\nHloModule jit_f.1, entry_computation_layout={()->f32[]}\n") == "jit_f.1"
    assert module_name('#loc = loc(unknown)\nmodule @jit_f attributes {x = 1} {\n}') == "jit_f"
    assert module_name('"builtin.module"() <{sym_name = "jit_g"}> ({\n}) : () -> ()') == "jit_g"
    assert module_name("module {\n}\n") is None


def test_fold_needs_the_same_place(tmp_path: Path) -> None:
    """Two stages of one module fold a site when they agree where it is, and only then."""
    stack = [("/repo/model/moe.py", 21, "MoE.__call__")]
    before = _with_frames(_one_stage(), ["/repo/model/moe.py"], stack).replace("concat_one_stage", "jit_step")
    (tmp_path / "module_0001.jit_step.before_optimizations.txt").write_text(before)
    # Another stage (a text of its own, not a copy) whose site is at another line: another site.
    after = before.replace("line=21", "line=22").replace("ENTRY main", "ENTRY main.2")
    (tmp_path / "module_0001.jit_step.cpu_after_optimizations.txt").write_text(after)
    run = lint_files([str(tmp_path)], jobs=1)
    assert sorted(f.source for f in run.findings) == ["/repo/model/moe.py:21", "/repo/model/moe.py:22"]
    # The same place in a text that differs otherwise (not a copy): one site.
    (tmp_path / "module_0001.jit_step.cpu_after_optimizations.txt").write_text(before.replace("ENTRY main", "ENTRY main.2"))
    (f,) = lint_files([str(tmp_path)], jobs=1).findings
    assert f.path.endswith("before_optimizations.txt") and [s.stage for s in f.stages] == ["cpu_after_optimizations"]


def test_an_op_xla_made_takes_the_line_that_uses_it() -> None:
    """SPMD partitioning's all-gathers of a sharded parameter carry only the parameter's name:
    the site is placed at the line of the nearest op that uses what they make."""
    stack = [("/repo/model/moe.py", 30, "ffn")]
    text = _with_frames(_one_stage(), ["/repo/model/moe.py"], stack)
    # Only the GMM-like user of the concatenate has a frame; the site's own ops none.
    text = re.sub(r', metadata=\{[^}]*\}', "", text)
    text = text.replace("  ROOT w.g = f32[2,8,8]{2,1,0} concatenate(gate.g, up.g), dimensions={2}",
                        "  w.g = f32[2,8,8]{2,1,0} concatenate(gate.g, up.g), dimensions={2}\n"
                        "  ROOT use = f32[2,8,8]{2,1,0} negate(w.g), metadata={op_name=\"jit(step)/gmm\" stack_frame_id=1}")
    (f,) = lint_text(text, path="m.hlo")
    assert (f.source, f.source_function) == ("/repo/model/moe.py:30", "ffn")
    assert [p["source"] for p in f.details["pieces"]] == [None, None]  # the halves' own ops say nothing


def test_numbers_past_int64_are_not_lines() -> None:
    # The fuzz campaign's mutant (huge_number in a location): int() of 5,000 digits raises.
    digits = "9" * 5000
    assert mlir_frames(f'loc("f"("a.py":{digits}:3))', None) == ()
    table = FrameTable([("FileNames", [(1, '"a.py"')], None),
                        ("FileLocations", [(1, f"{{file_name_id=1 line={digits}}}")], None),
                        ("StackFrames", [(1, "{file_location_id=1 parent_frame_id=1}")], None)])
    assert table.stack(1) == (Frame("a.py", 0, 0, None),)
