"""``python -m hlo_passes.cli rewrite|lint ...``: either console script without its launcher."""
from __future__ import annotations

import sys

from . import EXIT_USAGE, _guarded, lint_main, rewrite_main
from ..claims import host_devices_flag

if len(sys.argv) < 2 or sys.argv[1] not in ("rewrite", "lint"):
    print("usage: python -m hlo_passes.cli rewrite|lint ...", file=sys.stderr)
    sys.exit(EXIT_USAGE)
tool = sys.argv.pop(1)
host_devices_flag()  # before jax makes its CPU backend (if it is asked at all)
sys.exit(_guarded(f"hlo-{tool}", rewrite_main if tool == "rewrite" else lint_main, None))
