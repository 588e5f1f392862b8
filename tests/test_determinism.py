"""The rewritten text depends only on the input text and the options.

Not on hash seeds, set or dict iteration order, object ids, time, or the
process: in a multi-host job every process rewrites the same module and the
results must be the same bytes.  Every module the tests and examples produce
is rewritten (both kernel options), reported and linted in two fresh
interpreters with different ``PYTHONHASHSEED`` and in opposite orders, and
the outputs are compared byte for byte.
"""
from __future__ import annotations

import difflib
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from programs import OwnText

REPO = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().with_name("rewrite_worker.py")
SEEDS = ("1", "4242")
TIMEOUT_S = 600


def _is_module(path: Path) -> bool:
    if path.suffix in (".mlir", ".hlo"):
        return True
    if path.suffix != ".txt":
        return False
    with open(path, "rb") as f:
        return f.read(64).lstrip().startswith(b"HloModule")


def determinism_inputs(scratch: Path, shared_dir: Path, own_texts: Mapping[tuple[str, str], OwnText],
                       own_dump_dir: Path) -> list[Path]:
    """Every module the tests and examples produce, as files.

    The bundled examples (examples/data), the shared samples, the project's
    programs (examples/moe.py) in every text form jax and XLA write, and XLA's
    dumps of them.  (When tests/golden lands, its inputs are this list.)
    """
    paths = sorted((REPO / "examples" / "data").iterdir())
    paths += sorted(p for p in (shared_dir / "samples").rglob("*") if p.is_file() and _is_module(p))
    scratch.mkdir(parents=True, exist_ok=True)
    for (program, form), own in sorted(own_texts.items()):
        path = scratch / f"{program}.{form}.{'hlo' if own.dialect == 'hlo' else 'mlir'}"
        path.write_text(own.text)
        paths.append(path)
    paths += sorted(p for p in own_dump_dir.rglob("*.txt") if _is_module(p))
    return paths


def _newer_dump_not_read_yet(path: Path, status: str) -> bool:
    import jaxlib

    newer = tuple(int(x) for x in jaxlib.__version__.split(".")[:2]) >= (0, 12)
    return newer and path.name.startswith("module_") and "#" in status and "as an instruction name" in status


def _run_workers(inputs: Path, outs: list[Path]) -> None:
    """Both interpreters at once (they are independent), each under the deadline."""
    procs = []
    try:
        for k, (seed, out) in enumerate(zip(SEEDS, outs)):
            env = {key: v for key, v in os.environ.items() if key != "XLA_FLAGS"}
            env["PYTHONHASHSEED"] = seed
            cmd = [sys.executable, str(WORKER), str(inputs), str(out)] + (["--reverse"] if k else [])
            procs.append(subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        for p in procs:
            output, _ = p.communicate(timeout=TIMEOUT_S)
            assert p.returncode == 0, output.decode(errors="replace")[-4000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_rewrites_are_the_same_bytes_in_any_interpreter(tmp_path: Path, shared_dir: Path, own_texts,
                                                       own_dump_dir: Path) -> None:
    paths = determinism_inputs(tmp_path / "inputs", shared_dir, own_texts, own_dump_dir)
    assert len(paths) >= 80, len(paths)
    listing = tmp_path / "inputs.txt"
    listing.write_text("".join(f"{p}\n" for p in paths))
    outs = [tmp_path / f"seed{seed}" for seed in SEEDS]
    _run_workers(listing, outs)

    first, second = ({p.name: p.read_bytes() for p in out.iterdir()} for out in outs)
    assert sorted(first) == sorted(second)
    for name in sorted(first):
        if first[name] != second[name]:
            number = int(name.split(".")[0])
            diff = "".join(difflib.unified_diff(
                first[name].decode(errors="replace").splitlines(True),
                second[name].decode(errors="replace").splitlines(True),
                fromfile=f"PYTHONHASHSEED={SEEDS[0]}", tofile=f"PYTHONHASHSEED={SEEDS[1]}, reversed", n=1))
            pytest.fail(f"{name} ({paths[number]}) differs between interpreters:\n{diff[:4000]}")
    # The comparison is about rewrites: most inputs were rewritten, and every one was handled.
    statuses = [first[f"{i:04d}.xla.status"].decode() for i in range(len(paths))]
    failed = [(paths[i], s[:300]) for i, s in enumerate(statuses) if not s.startswith("exit 0")]
    # jaxlib >= 0.12 writes dumps with tuple-element operands (%t#0) that the HLO
    # parser does not read yet (issue 13); they fail alike in both interpreters.
    assert all(_newer_dump_not_read_yet(p, s) for p, s in failed), failed
    rewritten = sum(b'"changed": true' in first.get(f"{i:04d}.xla.json", b"") for i in range(len(paths)))
    lowered = sum(b'"changed": true' in first.get(f"{i:04d}.cpu-ffi.json", b"") for i in range(len(paths)))
    assert rewritten >= len(paths) // 3 and lowered > rewritten, (rewritten, lowered, len(paths))
