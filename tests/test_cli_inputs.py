"""The command-line tools fail closed on what they read, and say what happened in the user's terms.

Every test runs the console scripts as subprocesses on real files (issue 19:
empty inputs, unknown rule codes, missing paths and empty globs, binary files,
the dialect a message speaks, unreadable dump files and folders, FIFOs,
devices and inputs past the size limit, and no traceback ever).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import hlo_passes
from hlo_passes.files import MAX_INPUT_BYTES
from hlo_passes.lint import json_schema
from test_cli import HLO, MLIR, _plugin, _script, run


def _no_output_written(work: Path, *expected: str) -> None:
    assert sorted(p.name for p in work.iterdir()) == sorted(expected)


# ---- empty input ------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["", "  \n\t\n", "// only a comment\n\n", "/* a block */\n"],
                         ids=["empty", "whitespace", "line-comment", "block-comment"])
@pytest.mark.parametrize("suffix", [".hlo", ".mlir", ".txt"])
def test_empty_input_is_an_error_for_both_tools(tmp_path: Path, content: str, suffix: str) -> None:
    src = tmp_path / f"empty{suffix}"
    src.write_text(content)
    proc = run("hlo-rewrite", src, "-o", tmp_path / f"out{suffix}")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"{src}:1:1: error: empty input: no module")
    _no_output_written(tmp_path, src.name)
    lint = run("hlo-lint", src)
    assert lint.returncode == 2, lint.stdout
    assert f"{src}:1:1: error: parse-error: empty input: no module" in lint.stdout
    stdin = run("hlo-rewrite", "-", stdin=content)
    assert stdin.returncode == 2 and "<stdin>:1:1: error: empty input: no module" in stdin.stderr


def test_empty_dump_file_in_a_folder_fails_the_lint(tmp_path: Path) -> None:
    shutil.copy(HLO, tmp_path / "module.hlo")
    (tmp_path / "step.mlir").write_text("")
    proc = run("hlo-lint", tmp_path, "--format", "json")
    assert proc.returncode == 2
    rules = sorted(d["rule"] for d in json.loads(proc.stdout))
    assert rules == ["MOE001", "parse-error"]


def test_parse_of_empty_text_raises() -> None:
    for text in ("", "\n \n", "// nothing\n"):
        with pytest.raises(hlo_passes.ParseError, match="empty input: no module"):
            hlo_passes.parse(text)


# ---- unknown rule codes -----------------------------------------------------------------


@pytest.mark.parametrize("args", [["--select", "FOO"], ["--ignore", "MOE01X"], ["--select", "MOE001,BAR"],
                                  ["--select", "moe"]], ids=["select", "ignore", "one-of-two", "lower-case"])
def test_unknown_rule_code_is_a_usage_error_naming_the_known_codes(args: list[str]) -> None:
    proc = run("hlo-lint", MLIR, *args)
    assert proc.returncode == 2, proc.stdout
    assert "unknown rule code" in proc.stderr and "known codes: MOE001, MOE002" in proc.stderr
    assert proc.stdout == ""


def test_known_codes_and_prefixes_still_select() -> None:
    assert run("hlo-lint", MLIR, "--select", "MOE").returncode == 1
    assert run("hlo-lint", MLIR, "--select", "MOE00").returncode == 1
    assert run("hlo-lint", MLIR, "--ignore", "MOE001").returncode == 0


def test_lint_api_refuses_unknown_codes() -> None:
    with pytest.raises(ValueError, match="unknown rule code in select: FOO"):
        hlo_passes.lint(hlo_passes.parse_file(MLIR), select=["FOO"])


# ---- missing paths and empty globs --------------------------------------------------------


def test_missing_path_and_empty_glob_are_their_own_error_kinds(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "x.mlir"
    pattern = str(tmp_path / "dumps" / "*.hlo")
    proc = run("hlo-lint", missing, pattern)
    assert proc.returncode == 2
    assert f"{missing}: error: no-such-file: no such file\n" in proc.stdout
    assert f"{pattern}: error: no-match: glob matched no file\n" in proc.stdout
    assert ":0:0:" not in proc.stdout and "parse-error" not in proc.stdout
    js = run("hlo-lint", missing, pattern, "--format", "json")
    data = json.loads(js.stdout)
    jsonschema.validate(data, json_schema())
    assert [(d["rule"], d["message"]) for d in data] == [("no-such-file", "no such file"),
                                                         ("no-match", "glob matched no file")]
    rewrite = run("hlo-rewrite", missing)
    assert rewrite.returncode == 2 and rewrite.stderr == f"{missing}: error: no such file\n"


# ---- binary data and the dialect of the message ------------------------------------------


def test_binary_file_is_refused_without_echoing_its_bytes(tmp_path: Path) -> None:
    elf = tmp_path / "model.hlo"
    elf.write_bytes(Path(sys.executable).resolve().read_bytes()[:65536])
    for proc in (run("hlo-rewrite", elf), run("hlo-lint", elf)):
        out = proc.stdout + proc.stderr
        assert proc.returncode == 2
        assert "not a text module (binary data at byte 0)" in out
        assert "\x7f" not in out and "\x00" not in out and "ELF" not in out


def test_binary_data_after_text_names_its_byte_offset(tmp_path: Path) -> None:
    text = HLO.read_bytes()
    cut = text.index(b"\n", 500) + 1
    src = tmp_path / "truncated.hlo"
    src.write_bytes(text[:cut] + b"\x00\x00\x01garbage" + text[cut:])
    line = text[:cut].count(b"\n") + 1
    proc = run("hlo-rewrite", src)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{src}:{line}:1: error: not a text module (binary data at byte {cut})")


@pytest.mark.parametrize(("text", "where"), [
    ("HloModule m\n\ud800\x00", (2, 4)),  # a lone surrogate (3 bytes as itself), then binary data
    ("\ud800\x01", (1, 4)),
    ("module {\n\udcff\ud800 \x00}", (2, 6)),  # an escaped byte (1) and a lone surrogate (3)
], ids=["hlo", "first-character", "mixed"])
def test_text_with_lone_surrogates_is_a_located_parse_error(text: str, where: tuple[int, int]) -> None:
    # A Python str may hold surrogates no decoder made (the fuzz campaign found 2 in 3,000
    # mutants): the byte offset of the binary data is still counted, never a UnicodeEncodeError.
    with pytest.raises(hlo_passes.ParseError) as info:
        hlo_passes.parse(text)
    assert (info.value.line, info.value.column) == where
    assert "not a text module (binary data at byte" in info.value.reason


def test_undecodable_bytes_are_shown_as_bytes_under_the_caret() -> None:
    """stdin in a POSIX locale turns bytes that are not UTF-8 into lone surrogates: the error's
    line shows them as \\xNN (not Python's \\udcNN), with the caret still under its character."""
    bad = b"HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] add(p, p) \xff\xfe\n}\n"
    proc = subprocess.run([*_script("hlo-rewrite"), "-"], input=bad, capture_output=True, timeout=120,
                          env={**os.environ, "LC_ALL": "C", "PYTHONIOENCODING": ""})
    assert proc.returncode == 2, proc
    stderr = proc.stderr.decode("ascii")
    assert "\\udc" not in stderr
    (shown, caret) = stderr.splitlines()[1:3]
    assert shown.endswith("add(p, p) \\xff\\xfe") and caret.index("^") == shown.index("\\xff")
    # Escapes before the column move the caret with them.
    err = hlo_passes.ParseError("expected ')'", path="m.hlo", line=1, column=6, source_line="a\udce9\ud800b c")
    assert str(err).splitlines()[1:] == ["  a\\xe9\\ud800b c", "  " + " " * len("a\\xe9\\ud800b ") + "^"]


def test_device_is_refused_at_once(tmp_path: Path) -> None:
    proc = run("hlo-rewrite", "/dev/zero", "-o", tmp_path / "out.hlo")
    assert proc.returncode == 2 and "not a text module (binary data at byte 0)" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out.hlo").exists()


@pytest.mark.parametrize(("suffix", "expected"), [
    (".hlo", "expected 'HloModule <name>' at the start of the module"),
    (".mlir", "unknown operation 'garbage'"),
    (".txt", "(read as MLIR: the text does not start with 'HloModule')"),
])
def test_message_speaks_the_dialect_the_file_name_suggests(tmp_path: Path, suffix: str, expected: str) -> None:
    src = tmp_path / f"broken{suffix}"
    src.write_text("garbage in a file\n")
    proc = run("hlo-rewrite", src)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{src}:1:1: error: ") and expected in proc.stderr.splitlines()[0]


def test_content_wins_over_the_extension(tmp_path: Path) -> None:
    src = tmp_path / "actually_mlir.hlo"
    shutil.copy(MLIR, src)
    proc = run("hlo-rewrite", src, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "MOE001" in proc.stderr


# ---- unreadable files and folders, FIFOs --------------------------------------------------


def _as_unprivileged(cmd: list[str]) -> list[str]:
    """``cmd`` run so that permission bits apply: root reads anything, so it drops
    the capabilities that bypass them (util-linux's setpriv)."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root: the test needs util-linux's setpriv to make a file unreadable"
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", *cmd]


def test_unreadable_dump_file_and_subfolder_are_errors(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    (dump / "sub").mkdir(parents=True)
    shutil.copy(HLO, dump / "fused.hlo")
    (dump / "fused.hlo").write_text(hlo_passes.run_passes(hlo_passes.parse_file(HLO)).module.to_text())
    shutil.copy(HLO, dump / "module_0001.before_optimizations.txt")
    shutil.copy(HLO, dump / "sub" / "module_0002.hlo")
    (dump / "module_0001.before_optimizations.txt").chmod(0)
    (dump / "sub").chmod(0)
    try:
        proc = subprocess.run(_as_unprivileged([*_script("hlo-lint"), str(dump), "-j", "1"]),
                              capture_output=True, text=True, timeout=120)
    finally:
        (dump / "sub").chmod(0o755)
        (dump / "module_0001.before_optimizations.txt").chmod(0o644)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout
    assert f"{dump / 'module_0001.before_optimizations.txt'}: error: not-readable: cannot read: permission denied" in out
    assert f"{dump / 'sub'}: error: not-readable: cannot read folder: permission denied" in out
    assert out.strip().endswith("0 findings, 2 errors in 1 file")


def test_a_fifo_in_a_folder_is_skipped_with_a_note(tmp_path: Path) -> None:
    shutil.copy(HLO, tmp_path / "module.hlo")
    os.mkfifo(tmp_path / "pipe.hlo")
    os.mkfifo(tmp_path / "module_0003.before_optimizations.txt")
    proc = run("hlo-lint", tmp_path, "-j", "1")  # run() times out after 120 s: a read would hang
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("1 finding in 1 file")
    assert f"{tmp_path / 'pipe.hlo'}: note: skipped: a FIFO, not a regular file" in proc.stderr
    assert f"{tmp_path / 'module_0003.before_optimizations.txt'}: note: skipped: a FIFO" in proc.stderr


# ---- size limit -------------------------------------------------------------------------------


def test_input_past_the_limit_is_refused(tmp_path: Path) -> None:
    assert MAX_INPUT_BYTES == 2 * 1024**3
    assert "default 2G" in run("hlo-rewrite", "--help").stdout
    src = tmp_path / HLO.name
    shutil.copy(HLO, src)
    size = src.stat().st_size
    proc = run("hlo-rewrite", src, "--max-input-size", "1k", "-o", tmp_path / "out.hlo")
    assert proc.returncode == 2
    assert proc.stderr == (f"{src}: error: input too large: {size:,} bytes, the limit is 1,024 bytes "
                           "(--max-input-size)\n")
    lint = run("hlo-lint", src, "--max-input-size", "1k")
    assert lint.returncode == 2 and f"{src}: error: too-large: input too large" in lint.stdout
    assert run("hlo-rewrite", src, "--max-input-size", f"{size}", "--dry-run").returncode == 0
    bad = run("hlo-rewrite", src, "--max-input-size", "lots")
    assert bad.returncode == 2 and "not a size" in bad.stderr


def test_endless_stdin_stops_at_the_limit() -> None:
    # Text that never ends (a runaway pipe): refused at the limit, not read until memory runs out.
    feeder = subprocess.Popen(["yes", "// a comment line that never ends"], stdout=subprocess.PIPE)
    try:
        proc = subprocess.run([*_script("hlo-rewrite"), "-", "--max-input-size", "4M"], stdin=feeder.stdout,
                              capture_output=True, text=True, timeout=120)
    finally:
        feeder.stdout.close()
        feeder.send_signal(signal.SIGTERM)
        feeder.wait()
    assert proc.returncode == 2
    assert proc.stderr == ("<stdin>: error: input too large: more than the limit of 4,194,304 bytes "
                           "(--max-input-size)\n")


# ---- no traceback ever ---------------------------------------------------------------------

FAILING_PRINTER = """
import sys
lint = sys.modules["hlo_passes.lint"]  # the attribute hlo_passes.lint is the function

def explode(*args, **kwargs):
    raise RuntimeError("boom in the report")

lint.format_text = explode
"""
OUT_OF_MEMORY = """
from hlo_passes.passes import register

class Hungry:
    name = "hungry"
    description = "needs more memory than there is, for the tests"

    def apply(self, module, *, rewrite):
        raise MemoryError()

register(Hungry())
"""


def test_internal_error_is_exit_3_with_a_hint_and_no_traceback(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "printer", FAILING_PRINTER)
    proc = run("hlo-lint", MLIR, "--plugin", plugin)
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr
    assert "hlo-lint: internal error: RuntimeError: boom in the report" in proc.stderr
    assert "this is a bug in hlo_passes; please report it" in proc.stderr


def test_out_of_memory_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "hungry", OUT_OF_MEMORY)
    src = tmp_path / HLO.name
    shutil.copy(HLO, src)
    proc = run("hlo-rewrite", src, "-o", tmp_path / "out.hlo", "--plugin", plugin, "--passes", "hungry")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "out of memory" in proc.stderr
    _no_output_written(tmp_path, src.name)
