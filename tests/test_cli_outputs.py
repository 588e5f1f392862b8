"""What the command-line tools write: the user's path in every error, links and modes kept,
stale temporary files cleaned, stdout as the bytes read, --diff as docs/cli.md says.

Subprocesses on real files (issue 19, "Messages that mislead" and "Files and faults").
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.passes import run_passes
from programs import REPO_ROOT
from test_cli import FAILING_WRITE, HLO, MLIR, _plugin, _script, run


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / HLO.name
    shutil.copy(HLO, path)
    return path


def _rewritten(path: Path = HLO) -> str:
    return run_passes(hlo_passes.parse_file(path)).module.to_text()


# ---- errors name the user's path ------------------------------------------------------------


def test_missing_output_directory_names_the_users_path(src: Path, tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "out.hlo"
    proc = run("hlo-rewrite", src, "-o", target)
    assert proc.returncode == 2
    assert proc.stderr == f"hlo-rewrite: error: cannot write {target}: no such directory: {target.parent}\n"
    assert ".tmp" not in proc.stderr


def test_output_that_is_a_directory_gets_the_module_under_its_name(src: Path, tmp_path: Path) -> None:
    # As cp does (and -o DIR with several inputs): the folder gets the input's file name.
    (tmp_path / "out").mkdir()
    proc = run("hlo-rewrite", src, "-o", "out/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == [src.name]
    assert (tmp_path / "out" / src.name).read_text() == _rewritten()


def test_disk_full_names_the_users_path(src: Path, tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "diskfull", FAILING_WRITE)
    out = tmp_path / "out.hlo"
    proc = run("hlo-rewrite", src, "-o", out, "--plugin", plugin)
    assert proc.returncode == 2
    assert proc.stderr == f"hlo-rewrite: error: cannot write {out}: No space left on device\n"
    report = run("hlo-lint", src, "--format", "json", "--output", out, "--plugin", plugin)
    assert report.returncode == 2
    assert f"hlo-lint: error: cannot write {out}: No space left on device" in report.stderr


# ---- links, modes, owners, read-only files ----------------------------------------------------


def test_in_place_on_a_symlink_writes_the_target_and_keeps_the_link(src: Path, tmp_path: Path) -> None:
    src.chmod(0o640)
    link = tmp_path / "link.hlo"
    link.symlink_to(src.name)
    proc = run("hlo-rewrite", link, "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == src.name
    assert src.read_text() == _rewritten()
    assert stat.S_IMODE(src.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, link.name])


def test_output_through_a_symlink_writes_the_target(src: Path, tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    real = tmp_path / "results" / "out.hlo"
    real.write_text("previous\n")
    link = tmp_path / "out.hlo"
    link.symlink_to(real)
    proc = run("hlo-rewrite", src, "-o", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and real.read_text() == _rewritten()


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root; checked when run as root")
def test_in_place_keeps_the_owner(src: Path) -> None:
    os.chown(src, 4321, 4321)
    assert run("hlo-rewrite", src, "--in-place").returncode == 0
    st = src.stat()
    assert (st.st_uid, st.st_gid) == (4321, 4321) and src.read_text() == _rewritten()


def test_hard_linked_input_is_refused_with_a_note(src: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-name.hlo"
    os.link(src, other)
    before = src.read_bytes()
    proc = run("hlo-rewrite", src, "--in-place")
    assert proc.returncode == 2
    assert proc.stderr == (f"hlo-rewrite: error: cannot write {src}: has 2 hard links; replacing it would "
                           "break them (write to another file, or remove the other links first)\n")
    assert src.read_bytes() == before and os.path.samefile(src, other)


def test_read_only_output_is_not_replaced(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.hlo"
    out.write_text("keep me\n")
    out.chmod(0o444)
    proc = run("hlo-rewrite", src, "-o", out)
    assert proc.returncode == 2
    assert proc.stderr == f"hlo-rewrite: error: cannot write {out}: is read-only (mode 0444); not replacing it\n"
    assert out.read_text() == "keep me\n" and stat.S_IMODE(out.stat().st_mode) == 0o444


def test_special_file_outputs_are_written_directly(src: Path, tmp_path: Path) -> None:
    # A FIFO (or /dev/null, /dev/stdout) is written into, never replaced by a regular file: as
    # root, a rename over /dev/null would replace the device for every process on the machine.
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    # A daemon: if the FIFO were replaced, nothing would ever open it for writing again.
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        proc = run("hlo-rewrite", src, "-o", fifo)
    finally:
        if reader.is_alive():  # nothing opened the FIFO for writing: unblock the reader
            with open(fifo, "wb"):
                pass
        reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received == [_rewritten().encode()]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, fifo.name])


# ---- temporary files of an interrupted run -----------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temporaries_of_a_killed_run_are_cleaned_by_the_next(src: Path, tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "killed", FAILING_WRITE)
    out = tmp_path / "out.hlo"
    killed = run("hlo-rewrite", src, "-o", out, "--plugin", plugin, env={**os.environ, "HLO_TEST_KILL": "1"})
    assert killed.returncode == -9
    (leftover,) = [p for p in tmp_path.iterdir() if p.name.startswith(".out.hlo.")]
    live = tmp_path / f".out.hlo.{os.getpid()}-running.tmp"  # a run still writing (this process)
    live.write_text("partial")
    proc = run("hlo-rewrite", src, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert not leftover.exists() and live.exists()
    assert re.search(rf"hlo-rewrite: note: removed {re.escape(str(leftover))}, a temporary file left by an "
                     r"interrupted run \(process \d+\)", proc.stderr)
    assert out.read_text() == _rewritten()


def test_temporary_of_a_dead_process_is_removed(src: Path, tmp_path: Path) -> None:
    stale = tmp_path / f".{src.name}.{_dead_pid()}-abcd1234.tmp"
    stale.write_bytes(b"x" * 40_000)
    proc = run("hlo-rewrite", src, "--in-place")
    assert proc.returncode == 0 and not stale.exists()
    assert f"removed {stale}" in proc.stderr


# ---- stdout carries the bytes that were read ----------------------------------------------------


def test_non_utf8_bytes_pass_through_to_a_strict_utf8_stdout(tmp_path: Path) -> None:
    raw = HLO.read_bytes()
    header_end = raw.index(b"\n") + 1
    data = raw[:header_end] + b"// author: Jos\xe9 (latin-1), \xff\xfe\n" + raw[header_end:]
    src = tmp_path / "latin1.hlo"
    src.write_bytes(data)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
    proc = subprocess.run([*_script("hlo-rewrite"), str(src)], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    expected = run_passes(hlo_passes.parse(data.decode("utf-8", "surrogateescape"))).module.to_text()
    assert proc.stdout == expected.encode("utf-8", "surrogateescape")
    assert b"Jos\xe9 (latin-1), \xff\xfe\n" in proc.stdout


# ---- --diff -------------------------------------------------------------------------------------


def test_diff_with_output_writes_the_module_and_prints_the_diff_as_documented(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.hlo"
    proc = run("hlo-rewrite", src, "--diff", "-o", out)
    assert proc.returncode == 0
    assert out.read_text() == _rewritten()
    assert proc.stdout.startswith(f"--- {src}\n+++ {src} (rewritten)\n")
    alone = run("hlo-rewrite", src, "--diff")
    assert alone.stdout == proc.stdout  # without -o: the diff instead of the module
    # docs/cli.md and --help say the same.
    readme = (REPO_ROOT / "docs" / "cli.md").read_text()
    (line,) = [l for l in readme.splitlines() if l.startswith("hlo-rewrite") and "--diff" in l and "#" in l]
    documented = line.split("#", 1)[1]
    assert "instead of the module" in documented and "-o" in documented and "still written" in documented
    assert "with -o or --in-place the module is still written there" in " ".join(
        run("hlo-rewrite", "--help").stdout.split())
