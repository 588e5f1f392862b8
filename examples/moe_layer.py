"""A MaxText-like MoE layer (router, top-k, sort, FFN, unsort) in each variant.

    python examples/moe_layer.py [--mesh mesh2] [--form implicit] [--mode grad] [--dtype bfloat16]

Runs the layer as ``concat``, ``two_gmm`` and ``fused`` on 8 fake CPU devices,
checks that they agree, and prints how many collectives XLA kept in each
compiled program: the cost hlo_passes' rewrite removes.  ``--show`` prints
the StableHLO of the ``concat`` program, the form the rewrite looks for.

Also importable (``from examples import moe_layer``) with the repository
root on ``sys.path``.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - flags must precede the jax import
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()
    if not __package__:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
from collections import Counter

import numpy as np

from examples.moe import FORMS, MESHES, MODES, VARIANTS, MoEConfig, ProgramSpec, build, check_variants_agree
from hlo_passes.runtime import count_collectives, count_ops


def collective_counts(spec: ProgramSpec) -> tuple[Counter[str], int]:
    """Collectives and concatenates XLA keeps in the compiled program."""
    fn, args = build(spec)
    text = fn.lower(*args).compile().as_text()
    return count_collectives(text), count_ops(text)["concatenate"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mesh", choices=MESHES, default="mesh1")
    parser.add_argument("--form", choices=FORMS, default="explicit")
    parser.add_argument("--mode", choices=MODES, default="forward")
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--show", action="store_true", help="print the concat program's StableHLO")
    args = parser.parse_args(argv)

    cfg = MoEConfig(dtype=args.dtype)
    common = dict(mesh=args.mesh, form=args.form, mode=args.mode, layer="router", cfg=cfg, num_devices=args.devices)
    if args.show:
        fn, arrays = build(ProgramSpec(variant="concat", **common))
        print(fn.lower(*arrays).as_text())
        return 0
    results = check_variants_agree(**common)
    value = results["fused"][0] if args.mode.endswith("grad") else results["fused"]
    print(f"router layer, {args.mesh}, {args.form}, {args.mode}, {args.dtype}: variants agree "
          f"(|out| max {float(np.max(np.abs(np.asarray(value, np.float32)))):.4g})")
    for variant in VARIANTS:
        collectives, concats = collective_counts(ProgramSpec(variant=variant, **common))
        shown = ", ".join(f"{k} {v}" for k, v in sorted(collectives.items())) or "none"
        print(f"  {variant:8} collectives: {shown}; concatenates: {concats}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
