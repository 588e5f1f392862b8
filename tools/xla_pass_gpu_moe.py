"""The MOE rules inside XLA:GPU's pipeline (issue 31), for tools/gpu_check.sh on a one-GPU machine.

The training step of examples/moe_trainer.py needs 8 devices; jax's mock GPU topology
(``jax_mock_gpu_topology``, mock NCCL) lets one GPU *compile* it for 8 — nothing is run (mock
collectives move no data).  Compiled once with the pass off and once with
``install(mode="rewrite", platforms="cuda")``; prints the collectives each compiled program holds
(async ``*-start`` ops counted as one), the report (sites, near misses, fallbacks) and the rewritten
module's first site lines, and writes both compiled texts to ``$OUT`` for reading afterwards.  What
XLA:GPU's optimized module looks like (async pairs, combined gathers) is what this is for: the CPU
tests cover the rules' execution.

    python tools/xla_pass_gpu_moe.py [--out DIR] [--layout prefused|pair]
    XLA_FLAGS=--xla_force_host_platform_device_count=8 python tools/xla_pass_gpu_moe.py --platform cpu
                                                       # the same here (tests/test_compiled_rewrite.py)

Exit status 0 when both compiles succeed and the pass did not fall back.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import jax  # noqa: E402

PLATFORM = "cpu" if "--platform" in sys.argv and sys.argv[sys.argv.index("--platform") + 1:][:1] == ["cpu"] \
    else "cuda"
if PLATFORM == "cuda":
    jax.config.update("jax_mock_gpu_topology", "1x1x8")  # before any backend starts

import hlo_passes  # noqa: E402
from examples import moe_trainer  # noqa: E402

_COLLECTIVE = re.compile(r"\s(all-gather|reduce-scatter|all-reduce|collective-permute)(-start)?\(")


def collectives(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in _COLLECTIVE.finditer(text):
        key = m.group(1) + ("(async)" if m.group(2) else "")
        counts[key] = counts.get(key, 0) + 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/hlo_passes_gpu_check")))
    ap.add_argument("--layout", default="prefused", choices=("prefused", "pair"))
    ap.add_argument("--platform", default="cuda", choices=("cuda", "cpu"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print("devices:", jax.devices())
    texts = {}
    passes = ["moe-gather-fusion", "moe-gradient-fusion"] + (
        ["moe-pair-gather-fusion", "moe-pair-gradient-fusion"] if args.layout == "pair" else [])
    for mode in ("off", "rewrite"):
        if mode == "rewrite":
            hlo_passes.install(mode="rewrite", platforms=args.platform, passes=passes)
        try:
            step, state = moe_trainer.build(args.layout, "one")
            texts[mode] = step.lower(*state).compile().as_text()
        finally:
            if mode == "rewrite":
                report = hlo_passes.installed_report()
                hlo_passes.uninstall()
        (args.out / f"moe_{args.layout}_{mode}.hlo.txt").write_text(texts[mode])
        print(f"pass {mode}: compiled collectives {collectives(texts[mode])}")
    print(report)
    for module in report.modules:
        for miss in module.near_misses:
            print(f"  near miss {miss.rule} {miss.check}: {miss.reason[:200]}")
    ok = not report.fallbacks
    print(f"xla_pass_gpu_moe: {'ok' if ok else 'FAILED'} ({report.sites_rewritten} site(s) rewritten)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
