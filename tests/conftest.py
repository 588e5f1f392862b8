"""Shared test set-up: 8 fake CPU devices, Hypothesis profiles, paths.

XLA reads ``--xla_force_host_platform_device_count`` once, when jax creates
its CPU backend, so the flag is set here, before any test module can import
jax.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

# HLO_PASSES_TEST_TPU=1 (tools/tpu_check.sh, on a TPU machine): the tests marked ``tpu`` run the
# Mosaic-compiled kernels on the chip (placed on jax.devices("tpu") explicitly); every other test
# keeps the host CPU as jax's default backend, as in CI (8 fake CPU devices, the CPU FFI kernels,
# the interpret-mode twins), so that one process holds the chip and nothing else is compiled for it.
# Without the switch the ``tpu`` tests skip, saying so.
TEST_TPU = os.environ.get("HLO_PASSES_TEST_TPU") == "1"
if TEST_TPU and "JAX_PLATFORMS" not in os.environ:
    os.environ["JAX_PLATFORMS"] = "cpu,tpu"  # the first listed is jax's default backend

_flags = os.environ.get("XLA_FLAGS", "")
if "--xla_force_host_platform_device_count" not in _flags:
    os.environ["XLA_FLAGS"] = f"{_flags} --xla_force_host_platform_device_count=8".strip()

# Every run_passes in the suite runs the verifier after each rewriting pass (XLA's invariant
# checker): a rewrite that leaves a broken graph fails the test that made it.
os.environ.setdefault("HLO_PASSES_CHECK_INVARIANTS", "1")


# `make test` runs the tests marked ``jax_free`` once, in a pytest run of their own on Python 3.11
# with jax and jaxlib blocked here and in every Python process a test starts (no_jax/sitecustomize.py),
# so that a test marked so which reaches jax fails there instead of silently depending on the jax
# version; the other runs deselect them (docs/testing.md).
if os.environ.get("HLO_PASSES_TESTS_WITHOUT_JAX") == "1":
    import runpy

    _no_jax = str(Path(__file__).resolve().parent / "no_jax")
    runpy.run_path(str(Path(_no_jax) / "sitecustomize.py"))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_no_jax, os.environ.get("PYTHONPATH")) if p)

REPO_ROOT = Path(__file__).resolve().parent.parent
# ``from examples import moe`` (the repository's runnable programs).
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,  # the same examples on every CI run: a failure reproduces
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def shared_path() -> Path:
    """``$HLO_PASSES_SHARED``, else ``../shared`` beside the repository root."""
    env = os.environ.get("HLO_PASSES_SHARED")
    return Path(env).resolve() if env else REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    path = shared_path()
    if not path.is_dir():
        pytest.skip(f"shared directory {path} not found (set HLO_PASSES_SHARED)")
    return path


@pytest.fixture(scope="session")
def samples_dir(shared_dir: Path) -> Path:
    return shared_dir / "samples"


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpus"


@pytest.fixture(scope="session")
def trainer_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """The texts of examples/moe_trainer.py's training steps in every stage, by (program, stage):
    ``examples/dump_trainer_programs.py`` run once per session, in a process of its own."""
    from programs import run_dump_script

    out = tmp_path_factory.mktemp("trainer_dumps")
    manifest = run_dump_script(out, timeout=900, script="dump_trainer_programs.py")
    return {(p, s): (out / rel).read_text() for p, stages in manifest.items() for s, rel in stages.items()}


@pytest.fixture(scope="session")
def xla_reference(request):
    """XLA's HLO parser in restartable worker processes, one pool per session.

    Answers are cached under ``.pytest_cache`` (a fresh clone computes them
    once); ``HLO_PASSES_XLA_CACHE`` names another directory, or ``0`` for
    no cache.
    """
    from xla_reference import XlaReference

    if os.environ.get("HLO_PASSES_TESTS_WITHOUT_JAX") == "1":
        pytest.fail("xla_reference runs jaxlib's parser: a test that uses it is not jax_free")
    where = os.environ.get("HLO_PASSES_XLA_CACHE")
    if where == "0":
        cache_dir = None
    elif where:
        cache_dir = Path(where)
    elif getattr(request.config, "cache", None) is not None:  # absent under -p no:cacheprovider
        cache_dir = request.config.cache.mkdir("xla_reference")
    else:
        cache_dir = None
    with XlaReference(cache_dir) as ref:
        yield ref


def _installed_jaxlib() -> tuple[int, ...] | None:
    """jaxlib's version as numbers, read without importing jax (the fixture tests run without it)."""
    from importlib import metadata

    try:
        version = metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return None
    return tuple(int(p) for p in version.split("+")[0].split(".")[:3] if p.isdigit())


# Markers for tests that hold in one environment only.  They are deselected
# (never skipped) elsewhere, so a skip count never hides one; .ci/run runs the
# suite in both environments, so every test runs somewhere.
_ENVIRONMENT_MARKERS = {
    "jax010": ("needs jaxlib 0.10.x's own behaviour", lambda v: v is not None and v[:2] == (0, 10)),
    "jax012": ("needs jaxlib >= 0.12 (its parser reads the newer text forms)", lambda v: v is not None and v >= (0, 12)),
}


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "jax_free: needs neither jax nor jaxlib, in the test or in a process it starts: `make test` "
        "runs it once, on Python 3.11 with jax blocked (HLO_PASSES_TESTS_WITHOUT_JAX=1; docs/testing.md)")


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """The jax_free run imports only the test files that mark tests so (the others import jax)."""
    if (os.environ.get("HLO_PASSES_TESTS_WITHOUT_JAX") == "1" and collection_path.suffix == ".py"
            and collection_path.name.startswith("test_")
            and "pytest.mark.jax_free" not in collection_path.read_text(encoding="utf-8")):
        return True
    return None


def pytest_collection_modifyitems(config, items) -> None:
    # A jax_free test runs in one run only (Makefile): one that holds in one jax version only, or
    # that faces jax, would then run nowhere or not where it must.
    mixed = [item.nodeid for item in items if item.get_closest_marker("jax_free")
             and any(item.get_closest_marker(m) for m in (*_ENVIRONMENT_MARKERS, "jax_facing"))]
    if mixed:
        raise pytest.UsageError(f"marked jax_free and jax010/jax012/jax_facing: {mixed[:5]}")
    _skip_tpu_tests(items)
    version = _installed_jaxlib()
    kept, dropped = [], []
    for item in items:
        wrong = [m for m, (_, holds) in _ENVIRONMENT_MARKERS.items() if item.get_closest_marker(m) and not holds(version)]
        (dropped if wrong else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _skip_tpu_tests(items) -> None:
    """Tests marked ``tpu`` skip, with the reason, where they cannot reach a TPU chip."""
    marked = [item for item in items if item.get_closest_marker("tpu")]
    if not marked:
        return
    if not TEST_TPU:
        why = "needs the TPU chip: run with HLO_PASSES_TEST_TPU=1 on a TPU machine (bash tools/tpu_check.sh)"
    elif "tpu" not in os.environ.get("JAX_PLATFORMS", "tpu"):
        why = f"JAX_PLATFORMS={os.environ['JAX_PLATFORMS']} keeps this process off the TPU chip"
    else:
        return
    for item in marked:
        item.add_marker(pytest.mark.skip(reason=why))


def pytest_report_header(config) -> str:
    version = _installed_jaxlib()
    shown = ".".join(map(str, version)) if version else "not installed"
    off = [f"{m} ({why})" for m, (why, holds) in _ENVIRONMENT_MARKERS.items() if not holds(version)]
    return f"jaxlib {shown}; deselected here: " + (", ".join(off) if off else "nothing")


# The project's own programs (examples/moe.py) in every text form; see programs.py.
# Imported on first use, so that tests which need no jax (tests/test_rule_fixtures.py)
# run where jax cannot be imported.
@pytest.fixture(scope="session")
def own_texts():
    import programs

    return programs.own_texts()


@pytest.fixture(scope="session")
def own_dump_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import programs

    return programs.own_dump_dir(tmp_path_factory)


@pytest.fixture(scope="session")
def own_dumps(own_dump_dir: Path):
    import programs

    return programs.own_dumps(own_dump_dir)


@pytest.fixture(scope="session")
def pair_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """``{(program, stage): text}``: XLA's stages of the two-weight programs
    (``examples/dump_pair_programs.py``), dumped once per session in a fresh process."""
    import programs

    out = tmp_path_factory.mktemp("pair_dumps")
    manifest = programs.run_dump_script(out, script="dump_pair_programs.py")
    return {(p, s): (out / rel).read_text() for p, stages in manifest.items() for s, rel in stages.items()}


@pytest.fixture(scope="session")
def pair_grad_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """``{program: {stage: path}}``: the two-weight training steps of ``tests/pair_dumps_worker.py``
    before optimizations and after SPMD partitioning, dumped once per session in a fresh process."""
    import json
    import os
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("pair_grad_dumps")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, str(Path(__file__).parent / "pair_dumps_worker.py"), str(out)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads((out / "manifest.json").read_text())
