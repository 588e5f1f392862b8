"""benchmarks/ffn_fusion.py runs in its smoke mode and says what it measured (no timing is checked)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_quick_run_prints_both_tables() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, str(REPO / "benchmarks" / "ffn_fusion.py"), "--quick"], cwd=REPO,
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    assert "## MOE005: the expert FFN as one kernel (XLA:CPU)" in out
    assert "| tokens | E | D | F | dtype | fused ms | two-GMM ms | ragged_dot ms | fused / two-GMM |" in out
    rows = [line for line in out.splitlines() if line.startswith("| forward ") or line.startswith("| remat ")]
    assert len(rows) == 2, out
