"""Installing hlo_passes outside a checkout (issue 28): the sources build an sdist and a wheel
(``python -m build``, the release step of docs/install.md), and the wheel installed in a fresh
virtual environment gives working console scripts and ``import hlo_passes``, run from a folder
that is not the checkout; so does the ``pip install "hlo_passes @ git+URL"`` line of
examples/ci/hlo-lint.yml, pointed at a git repository of the same sources.

No download: the build runs without isolation (``build`` and ``setuptools`` are in the test
extra) and the fresh environment sees the test environment's packages (jax, networkx, lark)
through a ``.pth`` file, never its hlo_passes: what it imports is the wheel's.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from hlo_passes._version import __version__
from programs import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "data" / "moe_mesh2_concat.mlir"
WORKFLOW = REPO_ROOT / "examples" / "ci" / "hlo-lint.yml"
# What the package is built from (pyproject.toml's [tool.setuptools] and project metadata).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "hlo_passes", "jax_plugins")


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _clean_env() -> dict[str, str]:
    """This environment without what points at the checkout or this interpreter's packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.pop("XLA_FLAGS", None)
    return env


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's sources alone (what a clone holds of it), committed to a git repository."""
    src = tmp_path_factory.mktemp("hlo_passes-src")
    for name in SOURCES:
        path = REPO_ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(path, src / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main"]
    _run([*git, "init", "-q"], cwd=src)
    _run([*git, "add", "."], cwd=src)
    _run([*git, "commit", "-q", "-m", "sources"], cwd=src)
    return src


@pytest.fixture(scope="module")
def dist(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # python -m build: the sdist, then the wheel built from the sdist (so the sdist must hold it all).
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(sources)],
         env=_clean_env(), cwd=out)
    return out


def _fresh_venv(path: Path) -> Path:
    """A new virtual environment that sees this one's packages but not its hlo_passes; its python."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(path)])
    python = path / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    here = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # A path a .pth adds is searched after the venv's own site-packages, and the .pth files in it
    # (this environment's editable install of hlo_passes) are not run.
    (Path(site) / "test_environment.pth").write_text("".join(f"{p}\n" for p in sorted(here)))
    return python


def _pip(python: Path, *args: str) -> None:
    # This environment's pip, installing into the fresh one; no index, no dependencies: they are here.
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
          *args], env=_clean_env())


def _check_installed(venv: Path, tmp_path: Path) -> None:
    """The console scripts and the package, from the environment, in a folder outside the checkout."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(EXAMPLE, work / "model.mlir")
    env = _clean_env()
    python = venv / "bin" / "python"
    where = _run([str(python), "-c", (
        "import json, hlo_passes, importlib.metadata as m\n"
        "from hlo_passes.lint import json_schema\n"
        "from importlib.resources import files\n"
        "print(json.dumps({'file': hlo_passes.__file__, 'version': hlo_passes.__version__,\n"
        "  'dist': m.version('hlo_passes'), 'license': m.metadata('hlo_passes')['License-Expression'],\n"
        "  'license_file': any(str(f).endswith('LICENSE') for f in m.files('hlo_passes')),\n"
        "  'schema': json_schema()['$schema'],\n"
        "  'kernel': files('hlo_passes.kernels').joinpath('cpu/grouped_matmul.cc').is_file(),\n"
        "  'jit': callable(hlo_passes.jit)}))\n")], cwd=work, env=env)
    info = json.loads(where.stdout)
    assert Path(info["file"]).resolve().is_relative_to(venv.resolve()), info["file"]
    assert info["version"] == info["dist"] == __version__
    assert info["license"] == "Apache-2.0" and info["license_file"]
    assert info["schema"].startswith("http") and info["kernel"] and info["jit"]
    for tool in ("hlo-lint", "hlo-rewrite"):
        assert _run([str(venv / "bin" / tool), "--version"], cwd=work, env=env).stdout == f"{tool} {__version__}\n"
    # HLO_PASSES=rewrite in a program that never imports hlo_passes: jax's plugin discovery finds the
    # installed plugin (its entry point and the jax_plugins namespace) and installs the pass.
    plugin = _run([str(python), "-c", (
        "import sys, importlib.metadata as m, jax, jax.numpy as jnp\n"
        "jax.jit(lambda x: x + 1)(jnp.ones(3))\n"
        "ours = [e.value for e in m.entry_points(group='jax_plugins') if e.dist.name == 'hlo_passes']\n"
        "print(ours, sys.modules['hlo_passes.xla_pass'].installed())\n")],
        cwd=work, env={**env, "HLO_PASSES": "rewrite"})
    assert plugin.stdout.strip() == "['jax_plugins.hlo_passes_xla_pass'] rewrite", plugin.stdout + plugin.stderr
    lint = subprocess.run([str(venv / "bin" / "hlo-lint"), "model.mlir"], capture_output=True, text=True,
                          cwd=work, env=env, timeout=120)
    assert lint.returncode == 1 and lint.stdout.startswith("model.mlir:11:7: MOE001 "), lint
    rewrite = _run([str(venv / "bin" / "hlo-rewrite"), "model.mlir", "-o", "fused.mlir"], cwd=work, env=env)
    assert "collectives 4 -> 2" in rewrite.stderr
    assert subprocess.run([str(venv / "bin" / "hlo-lint"), "fused.mlir"], cwd=work, env=env,
                          capture_output=True, timeout=120).returncode == 0


def test_the_sdist_and_wheel_hold_the_package(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    assert wheel.name == f"hlo_passes-{__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in ("hlo_passes/dialects/hlo/attrs.lark", "hlo_passes/dialects/stablehlo/attrs.lark",
                 "hlo_passes/schemas/lint-findings.schema.json", "hlo_passes/kernels/cpu/grouped_matmul.cc",
                 "hlo_passes/kernels/gpu/grouped_matmul.cu", f"hlo_passes-{__version__}.dist-info/licenses/LICENSE"):
        assert data in names, data
    assert "jax_plugins/hlo_passes_xla_pass.py" in names  # HLO_PASSES=... (docs/xla-pass.md)
    assert not [n for n in names if n.startswith(("tests/", "examples/", "benchmarks/"))]
    with tarfile.open(sdist) as tar:
        assert f"hlo_passes-{__version__}/LICENSE" in tar.getnames()


def test_the_wheel_installed_in_a_fresh_environment_works_outside_the_checkout(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _fresh_venv(venv)
    (wheel,) = dist.glob("*.whl")
    _pip(venv / "bin" / "python", str(wheel))
    _check_installed(venv, tmp_path)


def test_the_example_workflows_install_line_works(sources: Path, tmp_path: Path) -> None:
    """examples/ci/hlo-lint.yml installs hlo_passes from a git URL and a tag (a repository variable
    it names); that line, with the URL of a git repository of these sources, installs a working
    hlo_passes."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    (job,) = workflow["jobs"].values()
    (install,) = [s for s in job["steps"] if s.get("name") == "Install hlo_passes"]
    spec_expr = install["env"]["HLO_PASSES"]
    assert spec_expr == "${{ vars.HLO_PASSES }}", spec_expr
    (line,) = [ln.strip() for ln in install["run"].splitlines() if "pip install" in ln]
    assert line == 'pip install "$HLO_PASSES"'
    assert "pip install . hlo_passes" not in WORKFLOW.read_text()
    # What the workflow's comment tells the user to set it to, for this release.
    assert 'hlo_passes @ git+https://<host>/<owner>/hlo_passes@<commit>' in WORKFLOW.read_text()
    venv = tmp_path / "venv"
    python = _fresh_venv(venv)
    # The README's git line (issue 47: it named a tag that does not exist), pointed at a git repository
    # of these sources and at its head commit: what a fresh machine runs.
    (readme_line,) = [ln.strip() for ln in (REPO_ROOT / "README.md").read_text().splitlines()
                      if ln.startswith("pip install") and "git+" in ln]
    head = _run(["git", "rev-parse", "HEAD"], cwd=sources).stdout.strip()
    spec = readme_line.removeprefix("pip install ").strip('"')
    spec = spec.replace("https://<host>/<owner>/hlo_passes", f"file://localhost{sources}")  # PEP 508 needs a host
    spec = spec.replace("<commit>", head)
    assert "<" not in spec and head in spec, spec
    # The step's own command, with pip being this environment's pip installing into the fresh one
    # (from the local repository: no dependencies, no build isolation, nothing downloaded).
    pip = (f'pip() {{ "{sys.executable}" -m pip --python "{python}" "$@" --quiet --no-deps '
           f'--no-build-isolation --no-index; }}')
    _run(["bash", "-c", f"{pip}\n{line}"], env={**_clean_env(), "HLO_PASSES": spec})
    _check_installed(venv, tmp_path)
    # Without the variable the step stops, saying what to set.
    unset = subprocess.run(["bash", "-c", install["run"]], env=_clean_env(), capture_output=True, text=True)
    assert unset.returncode != 0 and "HLO_PASSES" in unset.stdout + unset.stderr
