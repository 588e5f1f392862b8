"""Small MoE feed-forward programs in JAX, in every form hlo_passes must handle.

The weight ``w`` is ``[E, D, 2F]``: gate in ``w[..., :F]``, up in
``w[..., F:]``, sharded on ``D`` over the FSDP mesh axis (or axes).  Three
variants compute the same function and differ only in how ``w`` reaches the
grouped matmul (GMM, ``jax.lax.ragged_dot``):

* ``concat``  — slice ``w`` into halves, gather each half, concatenate, one GMM
  (what models lower today; the pattern hlo_passes rewrites),
* ``two_gmm`` — gather each half, one GMM per half,
* ``fused``   — gather ``w`` once, one GMM, split the activations (the target).

Axes of a program (see ``ProgramSpec``):

* ``mesh``: ``mesh1`` = one axis ``fsdp`` (1–8 devices); ``mesh2`` =
  ``fsdp`` × ``fsdp_transpose`` with ``w`` sharded on ``D`` over both, gathered
  in two stages (``fsdp_transpose`` first, then ``fsdp``).
* ``form``: ``explicit`` = ``jax.shard_map`` whose body calls
  ``jax.lax.all_gather`` (StableHLO carries ``all_gather`` ops); ``implicit`` =
  the halves are sliced from the global ``w`` and their FSDP sharding dropped
  by sharding annotations (``jax.sharding.reshard`` on an Explicit mesh, or
  ``with_sharding_constraint`` on an Auto mesh — MaxText's form, two-stage on
  ``mesh2`` with an ``optimization_barrier`` between the stages; or by the
  ``shard_map``'s replicated ``in_specs`` alone) before a
  ``shard_map`` whose body concatenates; Shardy inserts the gathers while
  partitioning, so the StableHLO has none.
* ``mode``: ``forward``; ``grad`` (``jax.value_and_grad`` of a loss w.r.t.
  ``w`` and ``wo``); ``scan`` (``lax.scan`` over stacked layers, residual
  connection); ``scan_grad`` (both).
* ``device_order``: ``iota`` (mesh devices in id order) or ``permuted``: the
  mesh's devices are not in id order (``mesh2``: ``arange(n).reshape(n // 2,
  2).T``, ``mesh1``: reversed), and on ``mesh2`` ``D`` is sharded over the
  FSDP axes minor first (``fsdp_transpose``, ``fsdp``), so that the devices
  holding consecutive shards of ``w`` are not in the mesh's order either:
  XLA then writes the gathers' replica groups as a mesh with
  ``device_ids=(...)`` (jax 0.10.2) or with the axes out of order
  (``{'fsdp_transpose','fsdp'}``, jax 0.12).
* ``layer``: ``ffn`` (tokens already sorted by expert, group sizes given) or
  ``router`` (a MaxText-like layer: router logits, top-k, sort tokens by expert,
  FFN, unsort and combine with the routing weights).

Group sizes may contain zeros (empty experts); the defaults do.

Importing: the repository root must be on ``sys.path`` (pytest's
``tests/conftest.py`` puts it there); then ``from examples import moe``.  Run
``python examples/moe.py`` to check numerically that the variants agree on 8
fake CPU devices (the script sets ``XLA_FLAGS`` itself when run directly).
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # pragma: no cover - only when run as a script
    # Device count is fixed when jax initialises its backend, so this must
    # precede the jax import; as a library the caller decides.
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_force_host_platform_device_count=8").strip()

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

VARIANTS: tuple[str, ...] = ("concat", "two_gmm", "fused")
MESHES: tuple[str, ...] = ("mesh1", "mesh2")
FORMS: tuple[str, ...] = ("explicit", "implicit")
MODES: tuple[str, ...] = ("forward", "grad", "scan", "scan_grad")
LAYERS: tuple[str, ...] = ("ffn", "router")
CONSTRAINTS: tuple[str, ...] = ("wsc", "reshard", "in_specs")
DEVICE_ORDERS: tuple[str, ...] = ("iota", "permuted")

FSDP = "fsdp"
FSDP_T = "fsdp_transpose"


@dataclass(frozen=True)
class MoEConfig:
    """Sizes and dtypes of one MoE FFN.  Defaults match ../shared/samples."""

    experts: int = 4  # E
    embed: int = 64  # D
    mlp: int = 32  # F
    tokens: int = 64  # T (before top-k expansion for the router layer)
    top_k: int = 2  # router layer only
    dtype: str = "float32"  # activations and the matmuls
    param_dtype: str | None = None  # weights as stored; None = dtype
    layers: int = 2  # stacked layers for the scan modes
    empty_groups: bool = True  # force at least one expert with no tokens
    seed: int = 0

    @property
    def jdtype(self) -> jnp.dtype:
        return jnp.dtype(self.dtype)

    @property
    def jparam_dtype(self) -> jnp.dtype:
        return jnp.dtype(self.param_dtype or self.dtype)


@dataclass(frozen=True)
class ProgramSpec:
    """One program: which variant, on which mesh, in which form and mode."""

    variant: str = "concat"
    mesh: str = "mesh1"
    num_devices: int = 8
    form: str = "explicit"
    mode: str = "forward"
    layer: str = "ffn"
    # Implicit form only, how the FSDP axes are dropped: "wsc"
    # (with_sharding_constraint, Auto mesh), "reshard" (Explicit mesh), or
    # "in_specs" (no annotation: the shard_map's replicated in_specs do it).
    constraint: str = "wsc"
    device_order: str = "iota"
    cfg: MoEConfig = field(default_factory=MoEConfig)

    def __post_init__(self) -> None:
        for value, allowed, what in (
            (self.variant, VARIANTS, "variant"),
            (self.mesh, MESHES, "mesh"),
            (self.form, FORMS, "form"),
            (self.mode, MODES, "mode"),
            (self.layer, LAYERS, "layer"),
            (self.constraint, CONSTRAINTS, "constraint"),
            (self.device_order, DEVICE_ORDERS, "device_order"),
        ):
            if value not in allowed:
                raise ValueError(f"unknown {what} {value!r}; expected one of {allowed}")
        shape = mesh_shape(self.mesh, self.num_devices)
        if self.cfg.embed % int(np.prod(shape)):
            raise ValueError(f"embed={self.cfg.embed} is not divisible by {self.num_devices} devices")

    @property
    def name(self) -> str:
        """A short id for tests and file names, e.g. ``mesh1_concat_explicit_forward``."""
        parts = [self.mesh, self.variant, self.form, self.mode]
        if self.layer != "ffn":
            parts.append(self.layer)
        if self.form == "implicit" and self.constraint != "wsc":
            parts.append(self.constraint)
        if self.num_devices != 8:
            parts.append(f"d{self.num_devices}")
        if self.device_order != "iota":
            parts.append(self.device_order)
        if self.cfg.dtype != "float32":
            parts.append(self.cfg.dtype)
        if self.cfg.param_dtype not in (None, self.cfg.dtype):
            parts.append(f"params_{self.cfg.param_dtype}")
        if self.cfg != MoEConfig(dtype=self.cfg.dtype, param_dtype=self.cfg.param_dtype):
            c = self.cfg
            parts.append(
                f"E{c.experts}D{c.embed}F{c.mlp}T{c.tokens}k{c.top_k}L{c.layers}"
                f"{'' if c.empty_groups else 'full'}s{c.seed}"
            )
        return "_".join(parts)

    def replace(self, **changes: Any) -> "ProgramSpec":
        return dataclasses.replace(self, **changes)


# --------------------------------------------------------------------------
# Mesh and inputs


def mesh_shape(kind: str, num_devices: int) -> tuple[int, ...]:
    """``mesh1`` → ``(n,)``; ``mesh2`` → ``(2, n // 2)`` (``fsdp`` × ``fsdp_transpose``)."""
    if not 1 <= num_devices <= 8:
        raise ValueError(f"num_devices must be 1..8, got {num_devices}")
    if kind == "mesh1":
        return (num_devices,)
    if kind == "mesh2":
        if num_devices % 2:
            raise ValueError(f"mesh2 needs an even device count, got {num_devices}")
        return (2, num_devices // 2)
    raise ValueError(f"unknown mesh {kind!r}")


def make_mesh(kind: str = "mesh1", num_devices: int = 8, *, explicit: bool = True,
              device_order: str = "iota") -> Mesh:
    """The mesh of a program over the first ``num_devices`` local devices.

    ``explicit=False`` gives Auto axes, which ``with_sharding_constraint``
    (MaxText's style) needs; ``reshard`` needs Explicit ones.
    ``device_order="permuted"`` puts the devices in another order than
    their ids (see the module docstring).
    """
    shape = mesh_shape(kind, num_devices)
    names = (FSDP,) if kind == "mesh1" else (FSDP, FSDP_T)
    devices = jax.devices()
    if len(devices) < num_devices:
        raise RuntimeError(
            f"{num_devices} devices needed, {len(devices)} present; set "
            "XLA_FLAGS=--xla_force_host_platform_device_count=8 before importing jax"
        )
    axis_type = AxisType.Explicit if explicit else AxisType.Auto
    chosen = devices[:num_devices]
    if device_order == "permuted":
        order = np.arange(num_devices)[::-1] if kind == "mesh1" else \
            np.arange(num_devices).reshape(num_devices // 2, 2).T.reshape(-1)
        return Mesh(np.array(chosen, dtype=object)[order].reshape(shape), names,
                    axis_types=(axis_type,) * len(names))
    return jax.make_mesh(shape, names, axis_types=(axis_type,) * len(names), devices=chosen)


def fsdp_axes(kind: str, device_order: str = "iota") -> tuple[str, ...]:
    """Mesh axes that shard ``D`` of the weight, major to minor."""
    if kind == "mesh1":
        return (FSDP,)
    return (FSDP_T, FSDP) if device_order == "permuted" else (FSDP, FSDP_T)


def gather_stages(kind: str, device_order: str = "iota") -> tuple[str, ...]:
    """Axes gathered over, in order: the minor axis first, as MaxText does."""
    return tuple(reversed(fsdp_axes(kind, device_order)))


def make_group_sizes(cfg: MoEConfig, tokens: int | None = None) -> np.ndarray:
    """Deterministic int32 ``[E]`` summing to ``tokens``, with an empty expert if asked."""
    t = cfg.tokens if tokens is None else tokens
    rng = np.random.default_rng(cfg.seed + 1)
    cuts = np.sort(rng.integers(0, t + 1, size=cfg.experts - 1))
    sizes = np.diff(np.concatenate([[0], cuts, [t]])).astype(np.int32)
    if cfg.empty_groups and cfg.experts > 1 and not (sizes == 0).any():
        # Hand expert 1's tokens to expert 0 so ragged_dot sees an empty group.
        sizes[0] += sizes[1]
        sizes[1] = 0
    return sizes


def host_inputs(spec: ProgramSpec) -> tuple[np.ndarray, ...]:
    """Host (numpy) arguments of the program, deterministic in ``cfg.seed``.

    ``ffn`` layer: ``(x [T, D], gs [E], w [E, D, 2F], wo [E, F, D])``;
    ``router``: ``(x [T, D], w_router [D, E], w, wo)``.  Scan modes stack
    ``w`` and ``wo`` on a leading layer axis.
    """
    cfg = spec.cfg
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    rng = np.random.default_rng(cfg.seed)
    stacked = spec.mode in ("scan", "scan_grad")
    lead = (cfg.layers,) if stacked else ()
    x = rng.standard_normal((t, d), dtype=np.float32)
    w = rng.standard_normal(lead + (e, d, 2 * f), dtype=np.float32) / np.sqrt(d)
    wo = rng.standard_normal(lead + (e, f, d), dtype=np.float32) / np.sqrt(f)
    x = _cast(x, cfg.jdtype)
    w = _cast(w, cfg.jparam_dtype)
    wo = _cast(wo, cfg.jparam_dtype)
    if spec.layer == "router":
        w_router = _cast(rng.standard_normal((d, e), dtype=np.float32), cfg.jdtype)
        return (x, w_router, w, wo)
    return (x, make_group_sizes(cfg), w, wo)


def _cast(a: np.ndarray, dtype: jnp.dtype) -> np.ndarray:
    return np.asarray(a).astype(dtype)


def in_specs(spec: ProgramSpec) -> tuple[P, ...]:
    """Global partition specs of the arguments: ``w`` sharded on ``D``, the rest replicated."""
    stacked = spec.mode in ("scan", "scan_grad")
    lead = (None,) if stacked else ()
    w_spec = P(*lead, None, fsdp_axes(spec.mesh, spec.device_order), None)
    wo_spec = P(*lead, None, None, None)
    return (P(), P(), w_spec, wo_spec)


def inputs(spec: ProgramSpec, mesh: Mesh | None = None) -> tuple[jax.Array, ...]:
    """Device arguments, each placed with the sharding the program expects."""
    mesh = mesh if mesh is not None else program_mesh(spec)
    return tuple(
        jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(host_inputs(spec), in_specs(spec))
    )


def program_mesh(spec: ProgramSpec) -> Mesh:
    # Explicit axes refuse implicit resharding (a constraint or a shard_map
    # in_spec that disagrees with the argument) and add a result sharding the
    # shared samples lack; only reshard wants them.
    explicit = spec.form == "implicit" and spec.constraint == "reshard"
    return make_mesh(spec.mesh, spec.num_devices, explicit=explicit, device_order=spec.device_order)


# --------------------------------------------------------------------------
# The FFN body: what runs per device inside shard_map


def gmm(lhs: jax.Array, rhs: jax.Array, group_sizes: jax.Array) -> jax.Array:
    """Grouped matmul ``[M, K] x [E, K, N] -> [M, N]``: rows of group g use ``rhs[g]``."""
    return jax.lax.ragged_dot(lhs, rhs, group_sizes)


def _gather(w: jax.Array, stages: Sequence[str]) -> jax.Array:
    for axis in stages:
        w = jax.lax.all_gather(w, axis, axis=1, tiled=True)
    return w


def _up_projection(variant: str, x: jax.Array, gs: jax.Array, halves_or_w, f: int):
    """Gate and up activations ``[T, F]`` each, from gathered weights."""
    if variant == "two_gmm":
        w0, w1 = halves_or_w
        return gmm(x, w0, gs), gmm(x, w1, gs)
    if variant == "concat":
        w = jnp.concatenate(halves_or_w, axis=2)
    else:
        w = halves_or_w
    h = gmm(x, w, gs)
    return h[:, :f], h[:, f:]


def _ffn_tail(gate: jax.Array, up: jax.Array, gs: jax.Array, wo: jax.Array) -> jax.Array:
    return gmm(jax.nn.silu(gate) * up, wo, gs)


def explicit_body(variant: str, stages: Sequence[str], f: int, dtype: jnp.dtype) -> Callable:
    """Per-device FFN: ``w`` arrives as its local ``D`` shard and is gathered here."""

    def body(x, gs, w, wo):
        w = w.astype(dtype)
        wo = wo.astype(dtype)
        if variant == "fused":
            gathered = _gather(w, stages)
        else:
            # Both slices before either gather: the order jax emits for user
            # code that splits first (and the shared samples show).
            halves = (w[..., :f], w[..., f:])
            gathered = tuple(_gather(h, stages) for h in halves)
        gate, up = _up_projection(variant, x, gs, gathered, f)
        return _ffn_tail(gate, up, gs, wo)

    return body


def implicit_body(variant: str, f: int, dtype: jnp.dtype) -> Callable:
    """Per-device FFN on weights that arrive already gathered (by the partitioner)."""

    def body(x, gs, w0, w1, wo):
        halves_or_w = w0 if variant == "fused" else (w0, w1)
        gate, up = _up_projection(variant, x, gs, halves_or_w, f)
        return _ffn_tail(gate, up, gs, wo.astype(dtype))

    return body


def _drop_fsdp(w: jax.Array, spec: ProgramSpec, mesh: Mesh) -> jax.Array:
    """Replicate ``w`` across the FSDP axes through sharding annotations alone."""
    if spec.constraint == "in_specs":
        return w  # the shard_map's replicated in_specs drop the axes instead
    if spec.constraint == "reshard":
        return jax.sharding.reshard(w, NamedSharding(mesh, P()))
    constrain = lambda a, s: jax.lax.with_sharding_constraint(a, NamedSharding(mesh, s))
    if spec.mesh == "mesh2":
        # MaxText's two-stage form: drop the minor axis, fence so XLA keeps the
        # stages apart, then drop the major one.
        w = constrain(w, P(None, fsdp_axes(spec.mesh, spec.device_order)[0], None))
        w = jax.lax.optimization_barrier(w)
        w = constrain(w, P(None, None, None))
    return constrain(w, P())


def ffn_fn(spec: ProgramSpec, mesh: Mesh) -> Callable:
    """``(x [T, D], gs [E], w [E, D, 2F], wo [E, F, D]) -> [T, D]`` on global arrays."""
    cfg = spec.cfg
    f, dtype = cfg.mlp, cfg.jdtype
    wspec = P(None, fsdp_axes(spec.mesh, spec.device_order), None)
    if spec.form == "explicit":
        body = explicit_body(spec.variant, gather_stages(spec.mesh, spec.device_order), f, dtype)
        return jax.shard_map(
            body, mesh=mesh, in_specs=(P(), P(), wspec, P()), out_specs=P(), check_vma=False
        )

    body = implicit_body(spec.variant, f, dtype)
    mapped = jax.shard_map(
        body, mesh=mesh, in_specs=(P(), P(), P(), P(), P()), out_specs=P(), check_vma=False
    )

    def ffn(x, gs, w, wo):
        w = w.astype(dtype)  # MaxText casts before slicing; a no-op unless param_dtype differs
        if spec.variant == "fused":
            w0 = _drop_fsdp(w, spec, mesh)
            return mapped(x, gs, w0, w0, wo)
        w0 = _drop_fsdp(w[..., :f], spec, mesh)
        w1 = _drop_fsdp(w[..., f:], spec, mesh)
        return mapped(x, gs, w0, w1, wo)

    return ffn


def router_layer(ffn: Callable, cfg: MoEConfig) -> Callable:
    """MaxText-like MoE layer around ``ffn``: route, sort by expert, FFN, unsort, combine.

    ``(x [T, D], w_router [D, E], w, wo) -> [T, D]``.
    """
    k, e = cfg.top_k, cfg.experts

    def layer(x, w_router, w, wo):
        t = x.shape[0]
        logits = (x @ w_router).astype(jnp.float32)
        weights, experts = jax.lax.top_k(logits, k)
        weights = jax.nn.softmax(weights, axis=-1).astype(x.dtype)
        flat = experts.reshape(-1)
        order = jnp.argsort(flat, stable=True)
        gs = jnp.bincount(flat, length=e).astype(jnp.int32)
        xs = x[order // k]
        ys = ffn(xs, gs, w, wo)
        unsorted = jnp.zeros_like(ys).at[order].set(ys).reshape(t, k, -1)
        return jnp.einsum("tkd,tk->td", unsorted, weights)

    return layer


def _loss(out: jax.Array) -> jax.Array:
    return jnp.mean(jnp.square(out.astype(jnp.float32)))


def program_fn(spec: ProgramSpec, mesh: Mesh | None = None) -> Callable:
    """The whole program as a function of the ``inputs(spec)`` (not yet jitted)."""
    mesh = mesh if mesh is not None else program_mesh(spec)
    ffn = ffn_fn(spec, mesh)
    layer = router_layer(ffn, spec.cfg) if spec.layer == "router" else ffn

    if spec.mode in ("scan", "scan_grad"):

        def forward(x, a, w, wo):
            def step(h, weights):
                wl, wol = weights
                return h + layer(h, a, wl, wol), None

            out, _ = jax.lax.scan(step, x, (w, wo))
            return out

    else:
        forward = layer

    if spec.mode in ("grad", "scan_grad"):

        def train(x, a, w, wo):
            return jax.value_and_grad(lambda w_, wo_: _loss(forward(x, a, w_, wo_)), argnums=(0, 1))(w, wo)

        return train
    return forward


def build(spec: ProgramSpec) -> tuple[Callable, tuple[jax.Array, ...]]:
    """``(jitted_fn, device_args)``; the jitted function is named ``moe_body``
    so that lowered modules are ``jit_moe_body`` like the shared samples."""
    mesh = program_mesh(spec)
    fn = program_fn(spec, mesh)

    # Named parameters give the HLO parameters readable names (x.1, gs.1, ...).
    if spec.layer == "router":

        def moe_body(x, w_router, w, wo):
            return fn(x, w_router, w, wo)

    else:

        def moe_body(x, gs, w, wo):
            return fn(x, gs, w, wo)

    return jax.jit(moe_body), inputs(spec, mesh)


def lower(
    variant: str | ProgramSpec = "concat",
    *,
    platforms: Sequence[str] | None = None,
    **spec_fields: Any,
) -> jax.stages.Lowered:
    """Lower a program: ``lower("concat", mesh="mesh2", mode="grad")``.

    ``platforms=("tpu",)`` lowers for another platform from this machine
    (``ragged_dot`` then stays a ``chlo.ragged_dot`` instead of the CPU
    decomposition).  ``cfg=MoEConfig(...)`` changes sizes and dtypes.
    """
    spec = variant if isinstance(variant, ProgramSpec) else ProgramSpec(variant=variant, **spec_fields)
    if isinstance(variant, ProgramSpec) and spec_fields:
        spec = spec.replace(**spec_fields)
    fn, args = build(spec)
    if platforms is None:
        return fn.lower(*args)
    return fn.trace(*args).lower(lowering_platforms=tuple(platforms))


def run(spec: ProgramSpec) -> Any:
    """Run the program with jax.jit and return host (numpy) results."""
    fn, args = build(spec)
    return jax.tree.map(np.asarray, fn(*args))


def reference(spec: ProgramSpec) -> Any:
    """The forward value computed without any mesh or collectives (plain jnp on one device)."""
    cfg = spec.cfg
    args = host_inputs(spec)
    dtype = cfg.jdtype

    def ffn(x, gs, w, wo):
        h = gmm(x, w.astype(dtype), gs)
        return _ffn_tail(h[:, : cfg.mlp], h[:, cfg.mlp :], gs, wo.astype(dtype))

    layer = router_layer(ffn, cfg) if spec.layer == "router" else ffn
    if spec.mode in ("scan", "scan_grad"):
        h = jnp.asarray(args[0])
        for i in range(cfg.layers):
            h = h + layer(h, args[1], args[2][i], args[3][i])
        out = h
    else:
        out = layer(*args)
    if spec.mode in ("grad", "scan_grad"):
        return np.asarray(_loss(out))
    return np.asarray(out)


def all_specs(
    *,
    variants: Sequence[str] = VARIANTS,
    meshes: Sequence[str] = MESHES,
    forms: Sequence[str] = FORMS,
    modes: Sequence[str] = MODES,
    layers: Sequence[str] = ("ffn",),
    cfg: MoEConfig | None = None,
    num_devices: int = 8,
) -> list[ProgramSpec]:
    """The cross product of the chosen axes."""
    cfg = cfg or MoEConfig()
    return [
        ProgramSpec(variant=v, mesh=m, form=fo, mode=mo, layer=la, cfg=cfg, num_devices=num_devices)
        for v, m, fo, mo, la in itertools.product(variants, meshes, forms, modes, layers)
    ]


def check_variants_agree(
    *, mesh: str = "mesh1", form: str = "explicit", mode: str = "forward", layer: str = "ffn",
    cfg: MoEConfig | None = None, num_devices: int = 8,
) -> dict[str, Any]:
    """Run the three variants; raise ``AssertionError`` unless they agree.

    f32 forward results must be bit-identical; other modes and bf16 within
    a dtype-sized tolerance (XLA may fuse the backward differently per variant).
    Returns the per-variant results.
    """
    cfg = cfg or MoEConfig()
    results = {
        v: run(ProgramSpec(variant=v, mesh=mesh, form=form, mode=mode, layer=layer, cfg=cfg, num_devices=num_devices))
        for v in VARIANTS
    }
    exact = cfg.dtype == "float32" and mode in ("forward", "scan")
    base = results["fused"]
    for v in ("concat", "two_gmm"):
        for a, b in zip(jax.tree.leaves(results[v]), jax.tree.leaves(base)):
            a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
            if exact:
                np.testing.assert_array_equal(a, b, err_msg=f"{v} vs fused ({mesh}, {form}, {mode})")
            else:
                tol = 2e-2 if cfg.dtype == "bfloat16" else 1e-5
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=f"{v} vs fused ({mesh}, {form}, {mode})")
    return results


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", metavar="NAME", help="print the StableHLO of one program, e.g. mesh1_concat_explicit_forward")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    args = parser.parse_args(argv)
    cfg = MoEConfig(dtype=args.dtype)
    if args.print:
        for spec in all_specs(cfg=cfg, layers=LAYERS):
            if spec.name == args.print:
                print(lower(spec).as_text())
                return 0
        print(f"no program named {args.print!r}", file=sys.stderr)
        return 2
    for mesh, form, mode in itertools.product(MESHES, FORMS, MODES):
        check_variants_agree(mesh=mesh, form=form, mode=mode, cfg=cfg)
        print(f"ok  {mesh:6} {form:9} {mode:10} concat == two_gmm == fused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
