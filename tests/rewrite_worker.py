"""Rewrite and lint a list of modules as a user would: ``python tests/rewrite_worker.py LIST OUT [--reverse]``.

LIST holds one input path per line.  For input number i (its line in LIST)
this writes, into OUT: ``i.<kernel>.out`` (the rewritten module, from
``hlo-rewrite -o``), ``i.<kernel>.json`` (``--report``), ``i.<kernel>.status``
(exit status and stderr) for each kernel option, and ``i.lint.json``
(``hlo-lint --format json``).  ``--reverse`` handles the inputs in the other
order (state carried from one module to the next would show).
tests/test_determinism.py runs it in fresh interpreters with different hash
seeds and compares their outputs byte for byte.
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hlo_passes import cli  # noqa: E402

# The rewrite options that change what is written: the passes alone, and with
# the grouped matmuls handed to a kernel (pure graph edits, no jax).
KERNELS = ("xla", "cpu-ffi")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--reverse", action="store_true")
    args = ap.parse_args(argv)
    paths = [line for line in args.inputs.read_text().splitlines() if line]
    args.out.mkdir(parents=True, exist_ok=True)
    order = list(enumerate(paths))
    for i, path in (reversed(order) if args.reverse else order):
        for kernel in KERNELS:
            stem = args.out / f"{i:04d}.{kernel}"
            err = io.StringIO()
            code = cli.rewrite_main([path, "-o", f"{stem}.out", "--report", f"{stem}.json", "--kernel", kernel],
                                    stdout=io.StringIO(), stderr=err)
            Path(f"{stem}.status").write_text(f"exit {code}\n{err.getvalue()}")
        lint = io.StringIO()
        cli.lint_main([path, "--format", "json", "-j", "1", "--no-progress"], stdout=lint, stderr=io.StringIO())
        (args.out / f"{i:04d}.lint.json").write_text(lint.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
