"""Write XLA dumps of a few MoE programs: ``python examples/dump_programs.py OUT``.

XLA's dump flags are read once per process, so dumps are made in a process
of their own (this script).  Per program, ``OUT/<program name>/`` keeps the
HLO modules XLA wrote (before optimizations, after Shardy import, after SPMD
partitioning, after optimizations) and the StableHLO jax lowered (pretty,
generic and with debug info, ``*.mlir``); everything else XLA dumps (LLVM IR,
object files, buffer assignments) is deleted.  ``OUT/manifest.json`` maps
each program to ``{stage: relative path}``.

The programs span what the rules handle, in the jax version that runs this:
one- and two-stage FSDP, explicit and Shardy-implicit gathers, forward and
training step, scan, f32 weights computed in bf16, a mesh whose devices are
not in id order, and the scanned implicit training step.
"""
from __future__ import annotations

import os
import sys

DUMP_FLAGS = ("--xla_dump_hlo_as_text", "--xla_dump_hlo_pass_re=spmd")

if __name__ == "__main__":  # pragma: no cover - flags must precede the jax import
    _flags = os.environ.get("XLA_FLAGS", "").split()
    if not any(f.startswith("--xla_force_host_platform_device_count") for f in _flags):
        _flags.append("--xla_force_host_platform_device_count=8")
    os.environ["XLA_FLAGS"] = " ".join(_flags + [f for f in DUMP_FLAGS if f not in _flags])
    if not __package__:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import json
import re
from pathlib import Path

from examples.moe import MoEConfig, ProgramSpec, lower

BF16_F32_PARAMS = MoEConfig(dtype="bfloat16", param_dtype="float32")

# Small on purpose: the test session runs this once per environment on 2 cores.
DUMP_PROGRAMS: dict[str, ProgramSpec] = {
    spec.name: spec
    for spec in (
        ProgramSpec(variant="concat", mesh="mesh2", form="explicit", mode="forward"),
        ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="grad"),
        ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="forward", cfg=BF16_F32_PARAMS),
        ProgramSpec(variant="concat", mesh="mesh1", form="implicit", mode="grad"),
        ProgramSpec(variant="two_gmm", mesh="mesh2", form="implicit", mode="scan", cfg=BF16_F32_PARAMS),
        # The scanned implicit training step: w sliced outside the shard_map,
        # concatenated inside; devices not in id order.
        ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan_grad", device_order="permuted"),
    )
}

# Form → file name suffix of the StableHLO jax lowers (written by this script).
LOWERED_FORMS: dict[str, str] = {
    "stablehlo": ".stablehlo.mlir",
    "stablehlo_generic": ".stablehlo.generic.mlir",
    "stablehlo_debuginfo": ".stablehlo.debuginfo.mlir",
}

# Stage → pattern of the dump file name (XLA's spelling, CPU backend).
DUMP_STAGES: dict[str, str] = {
    "before_optimizations": r"\.before_optimizations\.txt$",
    "after_shardy": r"\.after_shardy-xla\.before_spmd-partitioning\.txt$",
    "after_spmd_partitioning": r"\.after_spmd-partitioning\.[^/]*\.txt$",
    "after_optimizations": r"\.cpu_after_optimizations\.txt$",
}


def _is_hlo_module(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(9) == b"HloModule"


def dump(out: Path, names: list[str] | None = None) -> dict[str, dict[str, str]]:
    """Compile each program with ``xla_dump_to=out/<name>``; return the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict[str, str]] = {}
    for name in names or list(DUMP_PROGRAMS):
        folder = out / name
        lowered = lower(DUMP_PROGRAMS[name])
        lowered.compile(compiler_options={"xla_dump_to": str(folder)})
        stages: dict[str, str] = {}
        texts = {
            "stablehlo": lowered.as_text(),
            "stablehlo_generic": lowered.compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=True),
            "stablehlo_debuginfo": lowered.as_text(debug_info=True),
        }
        for form, suffix in LOWERED_FORMS.items():
            path = folder / f"{name}{suffix}"
            path.write_text(texts[form])
            stages[form] = str(path.relative_to(out))
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            if path.suffix == ".mlir":
                continue
            if not (path.suffix == ".txt" and _is_hlo_module(path)):
                path.unlink()
                continue
            for stage, pattern in DUMP_STAGES.items():
                if re.search(pattern, path.name):
                    stages[stage] = str(path.relative_to(out))
        for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
            if not any(sub.iterdir()):
                sub.rmdir()
        missing = set(DUMP_STAGES) - set(stages)
        if missing:
            raise RuntimeError(f"{name}: XLA wrote no dump for {sorted(missing)} in {folder}")
        manifest[name] = stages
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the dumps into")
    parser.add_argument("--program", action="append", choices=sorted(DUMP_PROGRAMS), help="only these (repeatable)")
    args = parser.parse_args(argv)
    flags = os.environ.get("XLA_FLAGS", "")
    if not all(f in flags for f in DUMP_FLAGS):
        parser.error("run this file as a script: the dump flags must be set before jax is imported")
    manifest = dump(args.out, args.program)
    for name, stages in manifest.items():
        print(f"{name}: {len(stages)} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
