"""The pass inside XLA on a GPU (issue 31), for tools/gpu_check.sh: plain ``jax.jit`` of a forward
and a training step with ``install(mode="rewrite", platforms=PLATFORM)`` and the test rule
of tests/xla_pass_rules.py (XPA001: bit-equal operand reordering), against the pass off; Adam is
written out (the GPU machine may lack optax).

    python tools/xla_pass_gpu_check.py [--platform cuda]   # cpu: the same check here

Prints one line per program and the report; exit status 0 only if every program was rewritten
through XLA's plugin hook and computed the same bits as with the pass off.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402


def programs():
    w = jnp.linspace(-1.0, 1.0, 256 * 256, dtype=jnp.float32).reshape(256, 256)
    x = jnp.linspace(0.0, 1.0, 64 * 256, dtype=jnp.float32).reshape(64, 256)
    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w + 0.5) ** 2)

    def forward(w, x):
        h = x @ w
        return jnp.tanh(h + 0.5) + x + (x + h) * (0.25 + x)

    def train(w, state, x):
        # Adam written out (the GPU machine may lack optax).
        value, g = jax.value_and_grad(loss)(w, x)
        m, v, t = state
        m, v, t = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g, t + 1
        step = 1e-2 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        return w - step, (m, v, t), value

    state = (jnp.zeros_like(w), jnp.zeros_like(w), jnp.float32(0))
    return [("forward", forward, (w, x)), ("training step (adam)", train, (w, state, x))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default="cuda")
    args = ap.parse_args()
    device = jax.devices(args.platform)[0]
    hlo_passes.load_plugin(str(REPO / "tests" / "xla_pass_rules.py"))
    ok = True
    for name, fn, fargs in programs():
        fargs = jax.device_put(fargs, device)
        want = jax.jit(lambda *a: fn(*a))(*fargs)
        hlo_passes.install("rewrite", platforms=args.platform, passes=["XPA001"])
        try:
            got = jax.jit(lambda *a: fn(*a))(*fargs)
            report = hlo_passes.installed_report()
        finally:
            hlo_passes.uninstall()
        same = all(np.array_equal(np.asarray(g), np.asarray(w))
                   for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True))
        rewritten = report.sites_rewritten > 0 and not report.fallbacks
        ok &= same and rewritten
        print(f"{name} on {device}: {report.sites_rewritten} site(s) rewritten, "
              f"{len(report.fallbacks)} fallback(s), same bits as the pass off: {same}")
        print(str(report))
    print(f"xla_pass_gpu_check: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
