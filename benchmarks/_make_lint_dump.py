"""Write an XLA dump folder of the project's MoE programs: ``python benchmarks/_make_lint_dump.py OUT N``.

XLA reads its dump flags once per process, so this runs as a script of its
own, with the flags set before jax is imported.  Programs are compiled one
after another with ``xla_dump_to=OUT/<program>`` until at least N HLO modules
(the stages XLA dumps: before optimizations, after Shardy import, after SPMD
partitioning, after optimizations) are there; everything else XLA writes is
deleted and the N first modules (by path) are kept.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # the flags must precede the jax import
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from examples.dump_programs import DUMP_FLAGS

    _flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if not f.startswith("--xla_dump")]
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in _flags):
        _flags.append("--xla_force_host_platform_device_count=8")
    os.environ["XLA_FLAGS"] = " ".join(_flags + list(DUMP_FLAGS))

from pathlib import Path  # noqa: E402


def programs():
    """The programs dumped, in order: every variant, mesh, form and mode of the FFN
    layer (the cross product, alternating), then the router layer."""
    from examples import moe

    specs = moe.all_specs()
    specs = specs[::2] + specs[1::2]
    specs += moe.all_specs(layers=("router",), variants=("concat", "fused"), modes=("forward", "grad"))
    return specs


def _is_hlo_module(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(9) == b"HloModule"


def make(out: Path, n: int) -> list[Path]:
    from examples import moe

    out.mkdir(parents=True, exist_ok=True)
    kept: list[Path] = []
    for spec in programs():
        if len(kept) >= n:
            break
        folder = out / spec.name
        moe.lower(spec).compile(compiler_options={"xla_dump_to": str(folder)})
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            if path.suffix == ".txt" and _is_hlo_module(path):
                kept.append(path)
            else:
                path.unlink()
    if len(kept) < n:
        raise RuntimeError(f"only {len(kept)} HLO modules from every program; {n} wanted")
    kept.sort()
    for extra in kept[n:]:
        extra.unlink()
    for sub in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
        if not any(sub.iterdir()):
            sub.rmdir()
    return kept[:n]


if __name__ == "__main__":
    files = make(Path(sys.argv[1]), int(sys.argv[2]))
    print(f"{len(files)} modules in {sys.argv[1]}")
