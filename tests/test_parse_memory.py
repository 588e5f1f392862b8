"""Parsing module after module in one long-running process keeps its memory bounded.

Parsed modules are full of reference cycles that only the cyclic collector
frees, and the parsers move what they built straight to the collector's
oldest generation (hlo_passes/_gc.py).  Before issue 19 nothing counted
those objects, so the oldest generation was never collected: 40 rounds over 31
model modules grew a process to 2.4 GB.  Each test runs in a fresh
interpreter, parses and drops 250 modules without ever calling gc.collect()
itself, and bounds the growth of its resident memory.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from programs import REPO_ROOT

_CHILD = r"""
import json, sys
sys.path.insert(0, "benchmarks")
from parse_speed import generated_hlo
from _stablehlo_speed import generated_stablehlo
import hlo_passes

dialect, n = sys.argv[1], int(sys.argv[2])
text = (generated_hlo if dialect == "hlo" else generated_stablehlo)(0.1)

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

rss = []
for i in range(n):
    module = hlo_passes.parse(text, dialect=dialect)
    assert module.computations
    del module
    rss.append(rss_mb())
print(json.dumps(rss))
"""

PARSES = 250
# A 0.1 MB module costs about 2 MB of objects; 250 of them leaked would be 500 MB.
MAX_GROWTH_MB = 100  # from the 10th parse to the last: the garbage allowed before a collection, and slack
MAX_PLATEAU_GROWTH_MB = 20  # over the second half: no trend left once the bound is reached


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["stablehlo", "hlo"])
def test_parse_and_drop_250_modules_in_one_process_stays_bounded(dialect: str) -> None:
    proc = subprocess.run([sys.executable, "-c", _CHILD, dialect, str(PARSES)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rss = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(rss) == PARSES
    growth = rss[-1] - rss[9]
    plateau = rss[-1] - rss[PARSES // 2]
    assert growth <= MAX_GROWTH_MB, f"{dialect}: grew {growth:.0f} MB over {PARSES - 10} parses"
    assert plateau <= MAX_PLATEAU_GROWTH_MB, f"{dialect}: still growing, {plateau:.0f} MB over the second half"


_FROZEN_CHILD = r"""
import gc, json, sys
sys.path.insert(0, "benchmarks")
from _stablehlo_speed import generated_stablehlo
import hlo_passes

keep = [[i] for i in range(1000)]
gc.freeze()  # an application that keeps its start-up objects frozen (as pre-fork servers do)
frozen = gc.get_freeze_count()
text = generated_stablehlo(0.05)
for _ in range(20):
    hlo_passes.parse(text)
print(json.dumps([frozen, gc.get_freeze_count()]))
"""


def test_objects_the_application_froze_stay_frozen() -> None:
    proc = subprocess.run([sys.executable, "-c", _FROZEN_CHILD], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = json.loads(proc.stdout.strip().splitlines()[-1])
    assert before > 1000 and after == before
