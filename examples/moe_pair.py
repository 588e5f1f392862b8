"""MoE feed-forward programs whose gate and up weights are two arrays (MOE003 / MOE004).

Most MoE code keeps gate and up as two parameters ``wi_0[E, D, F]`` and
``wi_1[E, D, F]``, both FSDP-sharded on ``D`` the same way, and gathers each on
its own (``docs/weight-forms.md``, "Gate and up stored as two
weights").  The forms, as public libraries write them:

* ``explicit`` — inside ``jax.shard_map`` (often under ``jax.checkpoint``):
  ``jax.lax.all_gather`` of each weight over the FSDP axes (one stage or two),
  each feeding its own ``ragged_dot`` on the same tokens and group sizes (a
  drop-free MoE layer of a public training library);
* ``implicit`` — the two weights enter the ``shard_map`` as two operands whose
  sharding constraints (MaxText's constraint → optimization_barrier →
  constraint on two axes) or replicated ``in_specs`` drop the FSDP axes; two
  GMMs inside (MaxText with its default ``prefuse_moe_weights=False``), their
  lhs optionally two identical ``pad``s of the tokens (``lhs="padded_twice"``);
* ``concat_inside`` — TransformerEngine's JAX MoE block: replicated
  ``in_specs`` for both weights, ``jnp.concatenate([wi_0, wi_1], axis=-1)``
  inside, one grouped matmul, ``jnp.split`` of its output.

``variant="pair"`` is the program as those libraries write it;
``variant="fused"`` is what hlo_passes rewrites it into, written by hand: the
two *shards* concatenated along ``F`` (no communication), one gather, one GMM,
a split of its output.  Both compute the same function; the parameters stay
two arrays in both.

Modes as in ``examples.moe``: ``forward``, ``grad`` (``jax.value_and_grad``
w.r.t. ``wi_0``, ``wi_1`` and ``wo``), ``scan`` (``lax.scan`` over stacked
layers with a residual), ``scan_grad``.  ``checkpoint=True`` wraps the layer
in ``jax.checkpoint``, so a training step gathers the weights again for the
backward.

``tensor=n`` (``mesh1`` only) adds a tensor-parallel mesh axis ``tensor`` of size
``n`` that splits ``F`` of both weights (and of ``wo``) and stays on it into the
shard_map (its output is ``psum``-ed over it): the mesh is ``fsdp`` (devices / n)
× ``tensor`` (n).  ``tensor=1`` is an FSDP-only mesh whose weights still name the
tensor axis on ``F`` (MaxText's sharding rules do), an axis of size 1.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from examples.moe import (MESHES, MODES, MoEConfig, _drop_fsdp, _ffn_tail, _gather, fsdp_axes, gather_stages,
                          gmm, make_group_sizes, make_mesh, mesh_shape)

PAIR_FORMS: tuple[str, ...] = ("explicit", "implicit", "concat_inside")
PAIR_VARIANTS: tuple[str, ...] = ("pair", "fused")
LHS_KINDS: tuple[str, ...] = ("shared", "padded_twice")
PAD_ROWS = 8  # padded_twice: rows of zeros appended to the tokens (an empty tail group)


@dataclass(frozen=True)
class PairSpec:
    """One program of two gate/up weights: variant, mesh, form, mode and options."""

    variant: str = "pair"
    mesh: str = "mesh1"
    num_devices: int = 8
    form: str = "explicit"
    mode: str = "forward"
    checkpoint: bool = False
    lhs: str = "shared"
    # implicit form: how the FSDP axes are dropped ("wsc", "reshard", "in_specs"; see examples.moe)
    constraint: str = "wsc"
    device_order: str = "iota"
    cfg: MoEConfig = field(default_factory=MoEConfig)
    tensor: int = 0  # size of a tensor-parallel mesh axis on F (0: none)

    def __post_init__(self) -> None:
        for value, allowed, what in ((self.variant, PAIR_VARIANTS, "variant"), (self.mesh, MESHES, "mesh"),
                                     (self.form, PAIR_FORMS, "form"), (self.mode, MODES, "mode"),
                                     (self.lhs, LHS_KINDS, "lhs")):
            if value not in allowed:
                raise ValueError(f"unknown {what} {value!r}; expected one of {allowed}")
        if self.lhs != "shared" and self.form != "implicit":
            raise ValueError("lhs='padded_twice' is a form of the implicit programs")
        if self.tensor and (self.mesh != "mesh1" or self.num_devices % self.tensor or self.cfg.mlp % self.tensor
                            or (self.variant == "fused" and self.form != "explicit" and self.tensor > 1)):
            raise ValueError(f"tensor={self.tensor}: mesh1 only, dividing the devices and F (and no hand-fused "
                             "global concatenation: it would pair the wrong F shards)")
        if self.cfg.embed % int(np.prod(mesh_shape(self.mesh, self.num_devices))):
            raise ValueError(f"embed={self.cfg.embed} is not divisible by {self.num_devices} devices")

    @property
    def stacked(self) -> bool:
        return self.mode in ("scan", "scan_grad")

    @property
    def name(self) -> str:
        """A short id for tests and file names, e.g. ``pair_mesh1_explicit_forward``."""
        parts = [self.variant, self.mesh, self.form, self.mode]
        if self.checkpoint:
            parts.append("remat")
        if self.lhs != "shared":
            parts.append(self.lhs)
        if self.form == "implicit" and self.constraint != "wsc":
            parts.append(self.constraint)
        if self.tensor:
            parts.append(f"tp{self.tensor}")
        if self.num_devices != 8:
            parts.append(f"d{self.num_devices}")
        if self.device_order != "iota":
            parts.append(self.device_order)
        if self.cfg.dtype != "float32":
            parts.append(self.cfg.dtype)
        return "_".join(parts)

    def replace(self, **changes: Any) -> "PairSpec":
        return dataclasses.replace(self, **changes)


def host_inputs(spec: PairSpec) -> tuple[np.ndarray, ...]:
    """``(x [T, D], gs [E], wi_0 [E, D, F], wi_1 [E, D, F], wo [E, F, D])``, deterministic in
    ``cfg.seed`` (scan modes stack the weights on a leading layer axis)."""
    cfg = spec.cfg
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    rng = np.random.default_rng(cfg.seed)
    lead = (cfg.layers,) if spec.stacked else ()
    x = rng.standard_normal((t, d), dtype=np.float32)
    wi_0 = rng.standard_normal(lead + (e, d, f), dtype=np.float32) / np.sqrt(d)
    wi_1 = rng.standard_normal(lead + (e, d, f), dtype=np.float32) / np.sqrt(d)
    wo = rng.standard_normal(lead + (e, f, d), dtype=np.float32) / np.sqrt(f)
    return (x.astype(cfg.jdtype), make_group_sizes(cfg), wi_0.astype(cfg.jparam_dtype),
            wi_1.astype(cfg.jparam_dtype), wo.astype(cfg.jparam_dtype))


TENSOR = "tensor"


def _tp(spec: PairSpec) -> str | None:
    return TENSOR if spec.tensor else None


def in_specs(spec: PairSpec) -> tuple[P, ...]:
    """Global partition specs of the arguments: both weights sharded on ``D`` (and ``F`` on the
    tensor axis), ``wo`` on ``F`` with them, the rest replicated."""
    lead = (None,) if spec.stacked else ()
    w_spec = P(*lead, None, fsdp_axes(spec.mesh, spec.device_order), _tp(spec))
    return (P(), P(), w_spec, w_spec, P(*lead, None, _tp(spec), None))


def program_mesh(spec: PairSpec) -> Mesh:
    if spec.tensor:
        return jax.make_mesh((spec.num_devices // spec.tensor, spec.tensor), ("fsdp", TENSOR),
                             axis_types=(jax.sharding.AxisType.Auto,) * 2, devices=jax.devices()[:spec.num_devices])
    explicit = spec.form == "implicit" and spec.constraint == "reshard"
    return make_mesh(spec.mesh, spec.num_devices, explicit=explicit, device_order=spec.device_order)


def _tail(spec: PairSpec, gate: jax.Array, up: jax.Array, gs: jax.Array, wo: jax.Array) -> jax.Array:
    """The down projection; with F split over the tensor axis, its partial sums added up."""
    out = _ffn_tail(gate, up, gs, wo.astype(spec.cfg.jdtype))
    return jax.lax.psum(out, TENSOR) if spec.tensor else out


def inputs(spec: PairSpec, mesh: Mesh | None = None) -> tuple[jax.Array, ...]:
    mesh = mesh if mesh is not None else program_mesh(spec)
    return tuple(jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(host_inputs(spec), in_specs(spec)))


# --------------------------------------------------------------------------
# The bodies


def _gate_up(x: jax.Array, gs: jax.Array, w0: jax.Array, w1: jax.Array, f: int, *, fused: bool,
             concat: bool, lhs: str = "shared") -> tuple[jax.Array, jax.Array]:
    """Gate and up activations from the two gathered weights (``fused``: ``w0`` is both)."""
    if fused or concat:
        w = w0 if fused else jnp.concatenate([w0, w1], axis=-1)
        h = gmm(x, w, gs)
        gate, up = jnp.split(h, [f], axis=-1)
        return gate, up
    if lhs == "padded_twice":
        # Two structurally identical pads of the tokens: the same lhs written twice.
        pad = lambda a: jnp.pad(a, ((0, PAD_ROWS), (0, 0)))  # noqa: E731
        gs_pad = gs.at[-1].add(PAD_ROWS)
        gate, up = gmm(pad(x), w0, gs_pad), gmm(pad(x), w1, gs_pad)
        return gate[:x.shape[0]], up[:x.shape[0]]
    return gmm(x, w0, gs), gmm(x, w1, gs)


def _explicit_ffn(spec: PairSpec, mesh: Mesh) -> Callable:
    cfg = spec.cfg
    stages = gather_stages(spec.mesh, spec.device_order)
    wspec = P(None, fsdp_axes(spec.mesh, spec.device_order), _tp(spec))
    fused = spec.variant == "fused"

    def body(x, gs, wi_0, wi_1, wo):
        wi_0, wi_1 = wi_0.astype(cfg.jdtype), wi_1.astype(cfg.jdtype)
        if fused:
            # The shards side by side along F, then one gather of both.
            w = _gather(jnp.concatenate([wi_0, wi_1], axis=-1), stages)
            gate, up = _gate_up(x, gs, w, w, cfg.mlp // (spec.tensor or 1), fused=True, concat=False)
        else:
            gate, up = _gate_up(x, gs, _gather(wi_0, stages), _gather(wi_1, stages), cfg.mlp // (spec.tensor or 1),
                                fused=False, concat=False)
        return _tail(spec, gate, up, gs, wo)

    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), wspec, wspec, P(None, _tp(spec), None)),
                         out_specs=P(), check_vma=False)


def _implicit_ffn(spec: PairSpec, mesh: Mesh) -> Callable:
    cfg = spec.cfg
    fused = spec.variant == "fused"
    concat = spec.form == "concat_inside"

    f_local = cfg.mlp // (spec.tensor or 1)

    def body(x, gs, w0, w1, wo):
        gate, up = _gate_up(x, gs, w0, w1, f_local, fused=fused, concat=concat, lhs=spec.lhs)
        return _tail(spec, gate, up, gs, wo)

    w_in = P(None, None, _tp(spec))  # F stays on the tensor axis
    in_specs_ = (P(), P(), w_in, P(None, _tp(spec), None)) if fused else \
        (P(), P(), w_in, w_in, P(None, _tp(spec), None))
    mapped = jax.shard_map(body if not fused else (lambda x, gs, w, wo: body(x, gs, w, w, wo)), mesh=mesh,
                           in_specs=in_specs_, out_specs=P(), check_vma=False)
    # TransformerEngine's block drops the FSDP axes by its in_specs alone.
    drop_by = spec if not concat else spec.replace(constraint="in_specs")
    if spec.tensor and not concat:
        # Drop FSDP and keep F on the tensor axis.
        _drop = lambda w, *_: jax.lax.with_sharding_constraint(w, NamedSharding(mesh, w_in))  # noqa: E731
    else:
        _drop = _drop_fsdp

    def ffn(x, gs, wi_0, wi_1, wo):
        wi_0, wi_1 = wi_0.astype(cfg.jdtype), wi_1.astype(cfg.jdtype)
        if fused:
            # One concatenate of the two sharded globals (same sharding: the partitioner
            # concatenates the shards locally), one constraint chain, one operand.
            return mapped(x, gs, _drop(jnp.concatenate([wi_0, wi_1], axis=-1), drop_by, mesh), wo)
        return mapped(x, gs, _drop(wi_0, drop_by, mesh), _drop(wi_1, drop_by, mesh), wo)

    return ffn


def _loss(out: jax.Array) -> jax.Array:
    return jnp.mean(jnp.square(out.astype(jnp.float32)))


def program_fn(spec: PairSpec, mesh: Mesh | None = None) -> Callable:
    """The whole program as a function of ``inputs(spec)`` (not yet jitted)."""
    mesh = mesh if mesh is not None else program_mesh(spec)
    layer = _explicit_ffn(spec, mesh) if spec.form == "explicit" else _implicit_ffn(spec, mesh)
    if spec.checkpoint:
        layer = jax.checkpoint(layer)
    if spec.stacked:

        def forward(x, gs, wi_0, wi_1, wo):
            def step(h, weights):
                return h + layer(h, gs, *weights), None

            return jax.lax.scan(step, x, (wi_0, wi_1, wo))[0]

    else:
        forward = layer
    if spec.mode in ("grad", "scan_grad"):

        def train(x, gs, wi_0, wi_1, wo):
            return jax.value_and_grad(lambda *ws: _loss(forward(x, gs, *ws)), argnums=(0, 1, 2))(wi_0, wi_1, wo)

        return train
    return forward


def build(spec: PairSpec) -> tuple[Callable, tuple[jax.Array, ...]]:
    """``(jitted_fn, device_args)``; the jitted function is named ``moe_pair`` (modules ``jit_moe_pair``)."""
    mesh = program_mesh(spec)
    fn = program_fn(spec, mesh)

    def moe_pair(x, gs, wi_0, wi_1, wo):
        return fn(x, gs, wi_0, wi_1, wo)

    return jax.jit(moe_pair), inputs(spec, mesh)


def lower(spec: PairSpec, *, platforms: Sequence[str] | None = None) -> jax.stages.Lowered:
    """Lower a program; ``platforms=("tpu",)`` keeps ``ragged_dot`` a ``chlo.ragged_dot``."""
    fn, args = build(spec)
    if platforms is None:
        return fn.lower(*args)
    return fn.trace(*args).lower(lowering_platforms=tuple(platforms))


def run(spec: PairSpec) -> Any:
    fn, args = build(spec)
    return jax.tree.map(np.asarray, fn(*args))


def reference(spec: PairSpec) -> np.ndarray:
    """The forward value (or loss) on one device without a mesh: plain jnp."""
    cfg = spec.cfg
    x, gs, wi_0, wi_1, wo = (jnp.asarray(a) for a in host_inputs(spec))

    def layer(h, w0, w1, wo_):
        gate, up = gmm(h, w0.astype(cfg.jdtype), gs), gmm(h, w1.astype(cfg.jdtype), gs)
        return _ffn_tail(gate, up, gs, wo_.astype(cfg.jdtype))

    if spec.stacked:
        out = x
        for i in range(cfg.layers):
            out = out + layer(out, wi_0[i], wi_1[i], wo[i])
    else:
        out = layer(x, wi_0, wi_1, wo)
    return np.asarray(_loss(out)) if spec.mode in ("grad", "scan_grad") else np.asarray(out)


def all_specs(*, meshes: Sequence[str] = MESHES, forms: Sequence[str] = PAIR_FORMS,
              modes: Sequence[str] = MODES, variants: Sequence[str] = ("pair",),
              cfg: MoEConfig | None = None) -> list[PairSpec]:
    cfg = cfg or MoEConfig()
    return [PairSpec(variant=v, mesh=m, form=fo, mode=mo, cfg=cfg)
            for v, m, fo, mo in itertools.product(variants, meshes, forms, modes)]


def train_program(spec: PairSpec, learning_rate: float = 1e-3) -> tuple[Callable, dict, Any, jax.Array, jax.Array]:
    """One training step of the layer (scan modes: of the stacked layers): loss, gradients of
    ``wi_0``, ``wi_1`` and ``wo``, an optax adam update.  ``(step, params, opt_state, x, gs)``,
    the arrays placed; ``step(params, opt_state, x, gs) -> (params, opt_state, loss)``, not jitted."""
    import optax  # a test and benchmark dependency, not the package's

    mesh = program_mesh(spec)
    forward = program_fn(spec.replace(mode="scan" if spec.stacked else "forward"), mesh)
    optimizer = optax.adam(learning_rate)

    def step(params, opt_state, x, gs):
        def loss(p):
            return _loss(forward(x, gs, p["wi_0"], p["wi_1"], p["wo"]))

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    x, gs, wi_0, wi_1, wo = inputs(spec, mesh)
    params = {"wi_0": wi_0, "wi_1": wi_1, "wo": wo}
    return step, params, optimizer.init(params), x, gs
