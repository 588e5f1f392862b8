"""The README starts with use, and its quick starts are true: every command in them runs and prints
what the README shows (modulo timings); `make demo` is quiet and writes into a temporary directory."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from programs import REPO_ROOT

README = REPO_ROOT / "README.md"
_EXIT = re.compile(r"\s+#\s*exit status (\d+)\b.*$")
_TIMING = re.compile(r"\b\d+(\.\d+)?\s?(s|ms|µs)\b")


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"(?m)^(?=## )", text)
    return {p.split("\n", 1)[0][3:].strip(): p for p in parts[1:]}


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"(?ms)^```{lang}\n(.*?)^```$", text)


def _commands(block: str) -> list[tuple[str, int, str]]:
    """``(command, expected exit status, expected output)`` of each ``$ `` line of a console block."""
    out: list[tuple[str, int, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            cmd = line[2:]
            m = _EXIT.search(cmd)
            status = int(m.group(1)) if m else 0
            out.append((_EXIT.sub("", cmd).strip(), status, []))
        else:
            assert out, f"output before any command in:\n{block}"
            out[-1][2].append(line)
    return [(cmd, status, "\n".join(lines)) for cmd, status, lines in out]


def _normalized(text: str) -> str:
    return _TIMING.sub("<time>", text.rstrip("\n"))


QUICK_START = _sections(README.read_text())["Quick start"]
COMMANDS = [c for block in _blocks(QUICK_START, "console") for c in _commands(block)]


def test_readme_opens_with_use_then_versions_then_internals() -> None:
    text = README.read_text()
    headings = [h[3:] for h in re.findall(r"(?m)^## .*$", text)]
    assert headings[:3] == ["Quick start", "Supported versions and the test environments", "What text it reads"]
    for later in ("Tests", "What is in the package", "Status", "Benchmarks: where the targets stand"):
        assert headings.index(later) > headings.index("Python API: jit hook and lint"), later
    intro = text.split("\n## ", 1)[0]
    (picture,) = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", intro)
    assert (REPO_ROOT / picture).is_file()
    subsections = re.findall(r"(?m)^### (.*)$", QUICK_START)
    assert [s.split(":")[-1].strip() for s in subsections] == ["`hlo-lint`", "`hlo-rewrite`", "`hlo_passes.jit`"]
    setup = _sections(text)["Set-up: two commands"]
    assert "../shared" in setup and "HLO_PASSES_SHARED" in setup and "skipped" in setup


def test_readme_picture_is_what_the_tool_draws_now(tmp_path: Path) -> None:
    """The committed picture's .dot is what `--graph` writes for the bundled example today."""
    committed = REPO_ROOT / "docs" / "images" / "moe_mesh2_concat.MOE001.L11.dot"
    assert "hlo-lint examples/data/moe_mesh2_concat.mlir --graph docs/images" in README.read_text()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["hlo-lint", "examples/data/moe_mesh2_concat.mlir", "--graph", str(tmp_path)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / committed.name).read_text() == committed.read_text()


def test_the_jit_quick_start_shows_the_example_file() -> None:
    (code,) = _blocks(QUICK_START, "python")
    script = (REPO_ROOT / "examples" / "quickstart_jit.py").read_text()
    assert script.split("# --- quick start ---\n", 1)[1] == code


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/ to run the quick starts in (they write files: fused.mlir)."""
    work = tmp_path_factory.mktemp("quick_start")
    shutil.copytree(REPO_ROOT / "examples", work / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return work


@pytest.mark.parametrize(("command", "status", "expected"), COMMANDS, ids=[c for c, _, _ in COMMANDS])
def test_quick_start_command_prints_what_the_readme_shows(workdir: Path, command: str, status: int,
                                                          expected: str) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("XLA_FLAGS", None)  # the example sets its own devices, as it does for a user
    proc = subprocess.run(["bash", "-c", command], cwd=workdir, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    assert proc.returncode == status, proc.stdout
    assert _normalized(proc.stdout) == _normalized(expected)


def test_quick_starts_are_all_run() -> None:
    assert [c.split()[0] for c, _, _ in COMMANDS] == ["hlo-lint", "hlo-lint", "hlo-rewrite", "hlo-lint", "python"]


# ---- make demo --------------------------------------------------------------------------------


def test_make_demo_is_quiet_and_writes_into_a_temporary_directory(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the README's set-up is `make demo` / `make test`")
    fixed = [Path("/tmp/hlo_passes_demo.mlir"), Path("/tmp/hlo_passes_demo.json")]
    before = {p: p.stat().st_mtime_ns if p.exists() else None for p in fixed}
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run(["make", "--no-print-directory", "demo", f"PYTHON={sys.executable}"], cwd=REPO_ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    # No recipe is echoed: every line is the demo's own output.
    assert not [l for l in lines if l.startswith((sys.executable, "hlo-rewrite ", "hlo-lint ", "python", "tmp="))]
    headers = [l for l in lines if l.startswith("== hlo-")]
    assert len(headers) == 2 and all(str(tmp_path) in h for h in headers), headers
    assert "2 findings in 3 files" in proc.stdout
    assert list(tmp_path.iterdir()) == []  # the temporary directory is gone
    assert {p: p.stat().st_mtime_ns if p.exists() else None for p in fixed} == before
