"""What the benchmark scripts share: where fragments go, the machine, medians, subprocess timers."""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# Where fragments (and PNGs) go; run_all.py --quick points this at a scratch folder
# so that a smoke run never overwrites the committed figures.
RESULTS_DIR = Path(os.environ.get("HLO_PASSES_BENCH_RESULTS") or BENCH_DIR / "results")
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def shared_dir() -> Path:
    """``$HLO_PASSES_SHARED``, else ``../shared`` beside the repository, else /work/shared."""
    env = os.environ.get("HLO_PASSES_SHARED")
    for p in (Path(env) if env else None, REPO.parent / "shared", Path("/work/shared")):
        if p is not None and p.is_dir():
            return p
    raise FileNotFoundError("shared data folder not found (set HLO_PASSES_SHARED)")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def versions() -> dict[str, str]:
    """Python, jax and jaxlib versions, read without importing jax."""
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("jax", "jaxlib", "matplotlib"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def machine_line() -> str:
    v = versions()
    mem = memory_gib()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu_model()}, {os.cpu_count()} cores, {mem} GiB; Python {v['python']}, jax {v['jax']}, "
            f"jaxlib {v['jaxlib']}; load average at the end {load:.1f}")


def utc_now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt(x: float | int | None, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"


def md_table(cols: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return out


def write_fragment(name: str, lines: Sequence[str]) -> Path:
    """``benchmarks/results/<name>.md`` (run_all.py puts every fragment into RESULTS.md)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path


def run_json(code: str, *args: str, timeout: float = 1800, env: dict[str, str] | None = None) -> object:
    """Run ``code`` in a fresh interpreter; the JSON its last stdout line holds."""
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                       env=env, cwd=REPO)
    if r.returncode != 0:
        raise RuntimeError(f"timer subprocess failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


# The start of a child script that runs in another checkout (its first argument): that tree's
# hlo_passes, not this one's; the script's own arguments follow in ``args``.
IN_TREE = r'''
import sys
root, *args = sys.argv[1:]
sys.path.insert(0, root)
import hlo_passes
assert hlo_passes.__file__.startswith(root), hlo_passes.__file__
'''


@contextmanager
def base_worktree(rev: str, folder: Path) -> Iterator[Path]:
    """``rev`` checked out into ``folder/base`` (a detached git worktree), removed afterwards."""
    base = folder / "base"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(base), rev], check=True)
    try:
        yield base
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], check=False)


def interleaved(trees: dict[str, Path], rounds: int, measure: Callable[[Path], list[float]]) -> dict[str, list[list[float]]]:
    """``measure(tree)`` of every tree in each round, the order flipping each round (so that a
    machine getting busier or idler favours neither)."""
    out: dict[str, list[list[float]]] = {name: [] for name in trees}
    names = list(trees)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            out[name].append(measure(trees[name]))
        print(f"round {r + 1}: " + ", ".join(f"{n} {out[n][-1]}" for n in names), flush=True)
    return out
