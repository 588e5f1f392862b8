"""MaxText's own MoE layer through MOE003 (``make check-maxtext``; not in CI).

MaxText's ``RoutedMoE`` with its default ``prefuse_moe_weights=False`` keeps
gate and up as two weights ``wi_0``, ``wi_1`` and (FSDP over 8 CPU devices)
gathers each on its own.  This builds the layer from MaxText's own config
(``maxtext==0.2.5``, small sizes), lowers it as a forward pass and as the
gradient of a loss, and reports what ``hlo-lint`` and ``moe-pair-gather-fusion``
find; then it runs the layer under ``hlo_passes.jit`` with the rule and under
``jax.jit`` and compares the outputs, and counts the compiled all-gathers of
both.  Nothing here is shaped for the rule: the program is MaxText's.

    python tools/check_maxtext.py [--dtype float32|bfloat16] [--out DIR]

Exit status 0 when the layer ran through both and the outputs agree (whatever
the rule found: what it found is the result this reports), 1 otherwise.
"""
from __future__ import annotations

import os
import sys

_flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in _flags:
    os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlo_passes  # noqa: E402

RULE = "moe-pair-gather-fusion"
_ALL_GATHER = re.compile(r"\ball-gather(?:-start)?\(")


def maxtext_layer(dtype: str):
    """MaxText's RoutedMoE and its mesh, from MaxText's base config with small sizes."""
    import maxtext
    from flax import nnx
    from jax.sharding import Mesh
    from maxtext.configs import pyconfig
    from maxtext.layers import moe
    from maxtext.layers.initializers import nd_dense_init
    from maxtext.utils import maxtext_utils

    base = Path(maxtext.__file__).parent / "configs" / "base.yml"
    cfg = pyconfig.initialize(
        [None, str(base)], run_name="hlo_passes_check", enable_checkpointing=False,
        model_name="mixtral-8x7b", override_model_config=True, base_emb_dim=64, base_mlp_dim=32,
        base_moe_mlp_dim=32, num_experts=8, num_experts_per_tok=2, dtype=dtype, weight_dtype="float32",
        megablox=False, sparse_matmul=True, prefuse_moe_weights=False, per_device_batch_size=1,
        max_target_length=16, ici_fsdp_parallelism=8, float32_gate_logits=True,
    )
    mesh = Mesh(maxtext_utils.create_device_mesh(cfg), cfg.mesh_axes)
    layer = moe.RoutedMoE(
        config=cfg, num_experts=cfg.num_experts, num_experts_per_tok=cfg.num_experts_per_tok, mesh=mesh,
        kernel_init=nd_dense_init(1.0, "fan_in", "truncated_normal"), kernel_axes=("embed", "mlp"),
        dtype=cfg.dtype, rngs=nnx.Rngs(params=0),
    )
    return cfg, mesh, layer


def programs(cfg, mesh, layer):
    """(forward, loss-gradient) as functions of (params, rest, x), their arguments, placed:
    the gradient is taken of the layer's ``nnx.Param``s (the rest holds its RNG keys)."""
    from flax import nnx
    from flax.linen import partitioning as nn_partitioning

    graphdef, params, rest = nnx.split(layer, nnx.Param, ...)
    with nn_partitioning.axis_rules(cfg.logical_axis_rules):
        place = lambda tree: jax.device_put(tree, jax.tree.map(  # noqa: E731
            lambda s: jax.sharding.NamedSharding(mesh, s), nnx.get_partition_spec(tree)))
        params, rest = place(params), place(rest)
    batch = int(cfg.per_device_batch_size) * jax.device_count()
    x = jax.random.uniform(jax.random.PRNGKey(1), (batch, cfg.max_target_length, cfg.base_emb_dim),
                           dtype=cfg.dtype)

    def forward(params, rest, x):
        out = nnx.merge(graphdef, params, rest)(x)
        return out[0] if isinstance(out, tuple) else out

    def grad(params, rest, x):
        return jax.grad(lambda p: jnp.mean(jnp.square(forward(p, rest, x).astype(jnp.float32))))(params)

    return {"forward": forward, "grad": grad}, (params, rest, x)


def compiled_all_gathers(compiled) -> int:
    return len(_ALL_GATHER.findall(compiled.as_text()))


def check(name: str, fn, args, mesh, cfg, out: Path | None) -> bool:
    from flax.linen import partitioning as nn_partitioning

    with mesh, nn_partitioning.axis_rules(cfg.logical_axis_rules):
        lowered = jax.jit(fn).lower(*args)
        # Lowered for TPU the grouped matmuls stay `chlo.ragged_dot` (for CPU jax decomposes
        # them into masked dense dots, which no MoE rule reads; hlo_passes.jit lowers them whole).
        text = jax.jit(fn).trace(*args).lower(lowering_platforms=("tpu",)).as_text()
        module = hlo_passes.parse(text, dialect="stablehlo")
        result = hlo_passes.run_passes(module, [RULE])
        findings = hlo_passes.lint(module)
        print(f"[{name}] lint: {len(findings)} finding(s)")
        for f in findings:
            print(f"  {f.rule} {f.message}")
        print(f"[{name}] {RULE}: {sum(s.rewritten for s in result.sites)} site(s) rewritten, "
              f"{len(result.near_misses)} near miss(es)")
        for s in result.sites:
            print(f"  site: {s}")
        for m in result.near_misses:
            print(f"  near miss: {m}")
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"maxtext_{name}.mlir").write_text(text)
            (out / f"maxtext_{name}.rewritten.mlir").write_text(result.module.to_text())
        want = jax.jit(fn)(*args)
        # The same GMM kernel without the rule: what is left of a difference is the rewrite's.
        plain = hlo_passes.jit(fn, passes=[])(*args)
        rewritten = hlo_passes.jit(fn, passes=[RULE])
        got = rewritten(*args)
        before = compiled_all_gathers(lowered.compile())
        after = compiled_all_gathers(rewritten.lower(*args).compile())
    print(f"[{name}] compiled all-gathers: jax.jit {before}, hlo_passes.jit {after}")
    tol = dict(rtol=2 ** -7, atol=2 ** -7) if cfg.dtype == jnp.bfloat16 else dict(rtol=1e-6, atol=1e-6)
    ok = True
    for label, ref in (("hlo_passes.jit without the rule", plain), ("jax.jit", want)):
        diffs = [float(np.max(np.abs(np.asarray(a, np.float32) - np.asarray(b, np.float32)), initial=0.0))
                 for a, b in zip(jax.tree.leaves(ref), jax.tree.leaves(got))]
        close = all(np.allclose(np.asarray(a, np.float32), np.asarray(b, np.float32), **tol)
                    for a, b in zip(jax.tree.leaves(ref), jax.tree.leaves(got)))
        ok &= close
        print(f"[{name}] against {label}: {'agree' if close else 'DIFFER'} over {len(diffs)} arrays, "
              f"max |diff| {max(diffs):.3g}{' (bit-identical)' if max(diffs) == 0 else ''}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    parser.add_argument("--out", type=Path, default=None, help="write the lowered and rewritten texts here")
    args = parser.parse_args(argv)
    if RULE not in hlo_passes.available_passes():
        print(f"{RULE} is not a registered pass in this hlo_passes", file=sys.stderr)
        return 1
    cfg, mesh, layer = maxtext_layer(args.dtype)
    fns, fn_args = programs(cfg, mesh, layer)
    ok = True
    for name, fn in fns.items():
        ok &= check(name, fn, fn_args, mesh, cfg, args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
