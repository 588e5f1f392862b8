"""What hlo_passes.jit tells its user: INFO lines for each site and fallback, report sites with
the framework source, a short summary one call away, and the one-time kernel build said out loud."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes import jax_hook
from programs import REPO_ROOT
from test_jax_hook import FUSED, UNFUSED, _program, exploding_pass  # noqa: F401  (a fixture)

# The jax-facing part of the suite: also run on jax 0.11.2 (see .ci/run).
pytestmark = pytest.mark.jax_facing

MOE_PY = REPO_ROOT / "examples" / "moe.py"
_SITE_LINE = re.compile(
    r"MOE001 moe-gather-fusion \[concat\] at (?P<source>\S+moe\.py:\d+) \((?P<op>[^)]*concatenate[^)]*)\): "
    r"collectives 4 -> 2, saves 73,728 bytes per device")


def _info(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hlo_passes" and r.levelno == logging.INFO]


def _source_line(source: str) -> str:
    path, line = source.rsplit(":", 1)
    assert Path(path).resolve() == MOE_PY.resolve(), path
    return MOE_PY.read_text().splitlines()[int(line) - 1]


def test_report_sites_carry_op_name_and_source_line() -> None:
    fn, args = _program(UNFUSED)
    (site,) = [s for s in hlo_passes.jit(fn, kernel="xla").lower(*args).report]
    loc = site.location
    assert loc.op_name and "concatenate" in loc.op_name
    assert loc.source and "jnp.concatenate" in _source_line(loc.source)
    assert loc.path and loc.path.startswith("<lowered ")
    # The pieces (the slices) carry theirs too: where the user's split is written.
    assert len(site.pieces) == 2 and all(p.source and re.search(r"moe\.py:\d+$", p.source) for p in site.pieces)


def test_each_site_is_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    fn, args = _program(UNFUSED)
    with caplog.at_level(logging.INFO, logger="hlo_passes"):
        hlo_passes.jit(fn, kernel="xla")(*args)
    lines = _info(caplog)
    assert any(line.endswith("rewritten: 1 site") for line in lines), lines
    (site_line,) = [line for line in lines if "MOE001" in line]
    m = _SITE_LINE.search(site_line)
    assert m, site_line
    assert "jnp.concatenate" in _source_line(m.group("source"))


def test_fallback_is_logged_at_info(exploding_pass: str, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    fn, args = _program(UNFUSED)
    fast = hlo_passes.jit(fn, passes=["moe-gather-fusion", exploding_pass], kernel="xla")
    with caplog.at_level(logging.INFO, logger="hlo_passes"), pytest.warns(jax_hook.RewriteFallbackWarning):
        fast(*args)
    assert any("a pass failed (RuntimeError: boom); running the original program" in line
               for line in _info(caplog)), _info(caplog)
    summary = fast.explain(*args)
    assert summary.startswith(f"hlo_passes.jit({fn.__name__}): fell back to jax's own program (RuntimeError: boom)")


def test_explain_is_a_short_summary_of_the_rewrite() -> None:
    fn, args = _program(UNFUSED)
    fast = hlo_passes.jit(fn, kernel="xla")
    summary = fast.explain(*args)
    lines = summary.splitlines()
    assert lines[0] == f"hlo_passes.jit({fn.__name__}): rewritten: 1 site"
    assert _SITE_LINE.search(lines[1]), lines[1]
    assert summary == str(fast.lower(*args))
    assert fast.cache_info().misses == 0  # explaining compiles nothing
    fused_fn, fused_args = _program(FUSED)
    assert hlo_passes.jit(fused_fn, kernel="xla").explain(*fused_args) == (
        f"hlo_passes.jit({fused_fn.__name__}): unchanged: no site")


_BUILD = """
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s", stream=sys.stderr)
import hlo_passes.kernels
"""


def test_the_kernel_build_is_one_info_line_and_the_cached_kernel_none(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "HLO_PASSES_CACHE_DIR": str(cache)}
    first = subprocess.run([sys.executable, "-c", _BUILD], capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    building = [line for line in first.stderr.splitlines() if "building" in line]
    assert len(building) == 1, first.stderr
    assert building[0].startswith("hlo_passes INFO building the CPU grouped-matmul kernel, once: compiling "
                                  "grouped_matmul.cc with ")
    assert building[0].endswith(f"cached in {cache}")
    assert re.search(r"^hlo_passes INFO built the CPU grouped-matmul kernel in \d+\.\d s: ", first.stderr, re.M)
    again = subprocess.run([sys.executable, "-c", _BUILD], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0 and "building" not in again.stderr and "built" not in again.stderr
