"""The README starts with use, and its quick starts are true: every command in them runs and prints
what the README shows (modulo timings); `make demo` is quiet and writes into a temporary directory."""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
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
DOCS = REPO_ROOT / "docs"
# What a user reads, in this order; everything else is under docs/.
USER_SECTIONS = ["Install", "Quick start", "Fix your model code", "Writing a rule", "Supported versions",
                 "Limitations", "Troubleshooting", "Figures", "Documentation"]


def test_readme_is_for_users_and_the_rest_is_under_docs() -> None:
    text = README.read_text()
    headings = [h[3:] for h in re.findall(r"(?m)^## .*$", text)]
    assert headings == USER_SECTIONS
    # 320 lines for the user's sections, and one screen for a rule's author (issue 30).
    assert len(text.splitlines()) < 375, "the README is for users: maintainer material goes under docs/"
    intro = text.split("\n## ", 1)[0]
    (picture,) = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", intro)
    assert (REPO_ROOT / picture).is_file()
    subsections = re.findall(r"(?m)^### (.*)$", QUICK_START)
    assert [s.split(":")[-1].strip() for s in subsections] == [
        "`hlo-lint`", "`hlo-rewrite`", "`hlo_passes.jit`", "`hlo_passes.install()`"]
    # Maintainer material lives in docs/, each file linked from the README's last section.
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", _sections(text)["Documentation"]))
    assert linked == {p.name for p in DOCS.glob("*.md") if p.name in _OWN_DOCS}
    for name, words in (("install.md", "Making a release"), ("internals.md", "Checked on jax/jaxlib"),
                        ("robustness.md", "make fuzz"), ("multi-host.md", "jax.distributed"),
                        ("benchmarks.md", "make bench"), ("architecture.md", "import-linter"),
                        ("rules.md", "mutate_checks"), ("cli.md", "Exit status")):
        assert words in (DOCS / name).read_text(), name
        assert words not in text, f"{words!r} belongs in docs/{name}, not in the README"
    setup = (DOCS / "install.md").read_text()
    assert "../shared" in setup and "HLO_PASSES_SHARED" in setup and "skipped" in setup


def test_the_install_lines_name_this_release_and_no_tag() -> None:
    """The wheel line names the release this checkout builds (tests/test_wheel.py builds that wheel),
    so that bumping the version cannot leave it behind; the git lines name a commit, not a tag: no
    release tag exists (a line naming one fails on a fresh machine).  tests/test_wheel.py runs the
    git line."""
    from hlo_passes._version import __version__

    install = _sections(README.read_text())["Install"]
    assert 'pip install "hlo_passes @ git+https://<host>/<owner>/hlo_passes@<commit>"' in install
    assert f"pip install hlo_passes-{__version__}-py3-none-any.whl" in install
    for page in (README, DOCS / "install.md", REPO_ROOT / "examples" / "ci" / "hlo-lint.yml"):
        text = page.read_text()
        installs = [ln for ln in text.splitlines() if "git+" in ln]
        assert installs, page.name
        for line in installs:
            assert not re.search(r"@v\d", line), (page.name, line)
        wheels = set(re.findall(r"hlo_passes-(\d+\.\d+\.\d+\S*?)-py3", text))
        assert wheels <= {__version__}, (page.name, wheels)


def test_the_readme_gives_one_install_and_one_test_command_and_ci_runs_it() -> None:
    """A newcomer reads one command to install and one to run the tests, and CI runs that one."""
    blocks = _blocks(_sections(README.read_text())["Install"], "")
    commands = [line.split("#")[0].strip() for b in blocks for line in b.splitlines()]
    assert "make demo" in commands and "make test" in commands
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert [line.strip() for line in ci.splitlines() if line.strip().startswith("make ")] == ["make test"]
    assert re.search(r"(?m)^test:", (REPO_ROOT / "Makefile").read_text())


# The docs this README's restructuring wrote (others add their own docs/*.md and a line here).
_OWN_DOCS = {"install.md", "cli.md", "python-api.md", "rules.md", "kernels.md", "multi-host.md", "robustness.md",
             "benchmarks.md", "architecture.md", "internals.md", "testing.md", "status.md", "pipeline.md",
             "rewriter.md", "weight-forms.md", "xla-pass.md"}


def test_every_relative_link_of_the_readme_and_the_docs_resolves() -> None:
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(REPO_ROOT)}: broken link {target}"


def test_readme_picture_is_what_the_tool_draws_now(tmp_path: Path) -> None:
    """The committed picture's .dot is what `--graph` writes for the bundled example today."""
    committed = REPO_ROOT / "docs" / "images" / "moe_mesh2_concat.MOE001.L11.dot"
    assert "hlo-lint examples/data/moe_mesh2_concat.mlir --graph docs/images" in README.read_text()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["hlo-lint", "examples/data/moe_mesh2_concat.mlir", "--graph", str(tmp_path)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / committed.name).read_text() == committed.read_text()


def test_the_python_quick_starts_show_the_example_files() -> None:
    shown = _blocks(QUICK_START, "python")
    files = [REPO_ROOT / "examples" / name for name in ("quickstart_jit.py", "quickstart_install.py")]
    assert shown == [f.read_text().split("# --- quick start ---\n", 1)[1] for f in files]


def test_the_install_quick_start_logs_each_site() -> None:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, "examples/quickstart_install.py"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    assert [line.split(" in ")[0] for line in lines] == ["WARNING hlo_passes: MOE001", "WARNING hlo_passes: MOE002"]
    assert all("fusing saves" in line for line in lines)


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
    assert [c.split()[0] for c, _, _ in COMMANDS] == ["hlo-lint", "hlo-lint", "hlo-rewrite", "hlo-lint", "python",
                                                               "python"]


# ---- make demo --------------------------------------------------------------------------------


def test_make_demo_is_quiet_and_writes_into_a_temporary_directory(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the README's set-up is `make demo` / `make test`")
    fixed = [Path("/tmp/hlo_passes_demo.mlir"), Path("/tmp/hlo_passes_demo.json")]
    before = {p: p.stat().st_mtime_ns if p.exists() else None for p in fixed}
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # make demo's pip install -e writes into the checkout: `make test` runs its two Pythons side by
    # side (docs/testing.md), so their demos take turns.
    lock = Path(tempfile.gettempdir()) / f"hlo_passes_pip.{hashlib.sha1(bytes(REPO_ROOT)).hexdigest()[:12]}.lock"
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
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


# ---- Fix your model code: the blocks are examples/fixes.py, and they do what they say -----------

FIXES = REPO_ROOT / "examples" / "fixes.py"


def test_the_fix_blocks_are_the_example_file() -> None:
    marked = re.findall(r"(?ms)^# --- (MOE[^\n]*) ---\n(.*?)^# --- end ---\n", FIXES.read_text())
    assert len(marked) == 6
    assert _blocks(_sections(README.read_text())["Fix your model code"], "python") == [code for _, code in marked]


@pytest.fixture(scope="module")
def fixes():
    from examples import fixes as module

    return module


@pytest.mark.parametrize("name", ["MOE001", "MOE001 implicit", "MOE003"])
def test_each_fix_removes_its_findings_and_computes_the_same(fixes, name: str) -> None:
    import jax
    import numpy as np

    import hlo_passes

    (_, before, after, rules) = [p for p in fixes.PAIRS if p[0] == name][0]
    mesh = fixes.make_mesh()
    results = {}
    for label, fn in (("before", before), ("after", after)):
        step, args = fixes.program(fn, mesh), fixes.inputs(fn, mesh)
        found = sorted({f.rule for f in hlo_passes.lint_fn(step, *args)})
        assert found == (sorted(rules) if label == "before" else []), (label, found)
        loss, grads = jax.jit(step)(*args)
        if len(grads) == 3:  # gate and up as two weights: compare as the one weight they make
            grads = (np.concatenate([grads[0], grads[1]], axis=-1), grads[2])
        results[label] = (loss, *grads)
    # f32 programs: equal at f32 rounding (the same sums, in another order).
    for got, want in zip(results["after"], results["before"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
