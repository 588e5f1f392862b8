"""What `make demo` runs: parse a bundled MoE module, show what hlo_passes sees,
fuse its split weight gathers, and print what changed.

    python examples/demo.py [FILE ...]     (default: examples/data/moe_mesh2_concat.{hlo,mlir})

The bundled files are the lowering of examples/moe.py's `concat` variant on a
two-axis FSDP mesh (fsdp=2 x fsdp_transpose=4): W[4, 64, 64] is sliced into
gate and up halves, each half is all-gathered in two stages, and the halves
are concatenated again before the grouped matmul.
"""
from __future__ import annotations

import difflib
import sys
from collections import Counter
from pathlib import Path

import hlo_passes
from hlo_passes.passes import run_passes

HERE = Path(__file__).resolve().parent
DEFAULT_FILES = [HERE / "data" / "moe_mesh2_concat.hlo", HERE / "data" / "moe_mesh2_concat.mlir"]
INTERESTING = ("all-gather", "slice", "concatenate", "dot", "ragged-dot", "sdy.manual_computation")


def show(path: Path) -> None:
    text = path.read_text()
    module = hlo_passes.parse_file(path)
    ops = Counter(i.opcode for i in module.instructions())
    print(f"== {path.name}: {module.dialect}, {len(module.computations)} computations, "
          f"{sum(ops.values())} instructions")
    print("   " + ", ".join(f"{op} x{ops[op]}" for op in INTERESTING if ops[op]))
    assert module.to_text() == text
    print("   prints back byte-identical: yes")

    result = run_passes(module)
    for site in result.sites:
        print(f"   {site.location}: {site.rule} [{site.form}] all-gathers "
              f"{site.before.count} -> {site.after.count}, saves {site.bytes_saved:,} bytes per device")
    for miss in result.near_misses:
        print(f"   near miss: {miss}")
    new_text = result.module.to_text()
    diff = difflib.unified_diff(
        text.splitlines(keepends=True), new_text.splitlines(keepends=True),
        fromfile=path.name, tofile=path.name + " (rewritten)", n=0,
    )
    sys.stdout.writelines(diff)
    print()


def main(argv: list[str]) -> int:
    for name in argv or DEFAULT_FILES:
        show(Path(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
