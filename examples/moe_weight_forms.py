"""Layouts of a fused gate/up weight that public MoE code uses besides MaxText's ``[gate | up]``
(issue 32; ``docs/weight-forms.md`` shows the text each lowers to).

* ``up_first`` — a prefused ``W[E, D, 2F]`` with **up** in the first ``F`` columns and gate in
  the second (flashinfer's gated layout).  The program slices ``up = W[..., :F]`` and
  ``gate = W[..., F:]`` out of its local FSDP shard, gathers each inside ``jax.shard_map`` and
  either runs one GMM per half (``two_gmm``) or concatenates them back ``[up | gate]`` and
  runs one GMM (``concat``); then ``silu(gate) * up``.
* ``up_first_pair`` — up and gate stored as two weights ``w_up``, ``w_gate`` ``[E, D, F]``;
  TransformerEngine-style block: replicated ``in_specs`` drop the FSDP axes (Shardy inserts the
  gathers), the body concatenates ``[w_up | w_gate]``, one GMM, ``jnp.split`` of its output.
* ``size2`` — ``W[E, 2, D, F]`` (tpu-inference's ``w1.shape == (E, 2, H, I)``; tokamax's
  gated-linear-unit ``(K, 2, N)``), gate at index 0 and up at 1 of the size-2 axis, ``D``
  sharded over FSDP.  The program takes ``W[:, 0]`` and ``W[:, 1]`` of its shard before the
  gather and runs two GMMs.
* ``interleaved`` — ``W[E, D, 2F]`` with gate and up interleaved column by column (vLLM-style
  ``w13`` checkpoints): ``gate = W[..., ::2]``, ``up = W[..., 1::2]``, gathered apart, two GMMs.

``variant="split"`` is the program as written (halves cut before the gather);
``variant="fused"`` is its already-fused twin, written by hand: the weight gathered once, one
GMM, its output split in the layout's order (for ``size2`` the gathered ``[E, 2, D, F]`` seen as
``[E, D, 2F]``).  Both compute the same function; no rule may report a site in a twin.

Modes: ``forward``, ``scan`` (``lax.scan`` over stacked layers with a residual) and ``grad``
(``jax.value_and_grad`` of a loss w.r.t. the weights: the backward of each layout, where the
rules must find no false site); ``checkpoint=True`` wraps the layer in ``jax.checkpoint``.  Meshes as in ``examples.moe``
(``mesh1``: ``fsdp``; ``mesh2``: ``fsdp`` × ``fsdp_transpose``, gathered in two stages).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from examples.moe import MESHES, MoEConfig, _ffn_tail, _gather, fsdp_axes, gather_stages, gmm, make_group_sizes, \
    make_mesh

WEIGHT_FORMS: tuple[str, ...] = ("up_first", "up_first_pair", "size2", "interleaved")
FORM_VARIANTS: tuple[str, ...] = ("split", "fused")
FORM_MODES: tuple[str, ...] = ("forward", "scan", "grad")
MEETS: tuple[str, ...] = ("two_gmm", "concat")
COLLECTIVES: tuple[str, ...] = ("explicit", "implicit")


@dataclass(frozen=True)
class FormSpec:
    """One program of a weight layout: form, variant, how the halves meet, mesh, mode."""

    form: str = "up_first"
    variant: str = "split"
    meet: str = "two_gmm"  # up_first only: one GMM per half, or concatenated back first
    mesh: str = "mesh1"
    mode: str = "forward"
    # explicit: all_gather inside the shard_map; implicit: the halves of the global weight
    # replicated by sharding constraints before it (MaxText's way; Shardy inserts the gathers)
    collectives: str = "explicit"
    checkpoint: bool = False
    num_devices: int = 8
    cfg: MoEConfig = field(default_factory=MoEConfig)

    def __post_init__(self) -> None:
        for value, allowed, what in ((self.form, WEIGHT_FORMS, "form"), (self.variant, FORM_VARIANTS, "variant"),
                                     (self.meet, MEETS, "meet"), (self.mesh, MESHES, "mesh"),
                                     (self.mode, FORM_MODES, "mode"), (self.collectives, COLLECTIVES, "collectives")):
            if value not in allowed:
                raise ValueError(f"unknown {what} {value!r}; expected one of {allowed}")
        if self.meet == "concat" and self.form != "up_first":
            raise ValueError("meet='concat' is a form of the up_first programs")
        if self.collectives == "implicit" and (self.form == "up_first_pair" or self.meet != "two_gmm"):
            raise ValueError("collectives='implicit' is a form of the one-weight layouts met at two GMMs "
                             "(up_first_pair is implicit already)")

    @property
    def stacked(self) -> bool:
        return self.mode == "scan"

    @property
    def name(self) -> str:
        """A short id for tests and file names, e.g. ``size2_split_mesh1_forward``."""
        parts = [self.form, self.variant, self.mesh, self.mode]
        if self.meet != "two_gmm":
            parts.append(self.meet)
        if self.collectives != "explicit":
            parts.append(self.collectives)
        if self.checkpoint:
            parts.append("remat")
        if self.cfg.dtype != "float32":
            parts.append(self.cfg.dtype)
        return "_".join(parts)

    def replace(self, **changes: Any) -> "FormSpec":
        return dataclasses.replace(self, **changes)


# --------------------------------------------------------------------------
# The weights in each layout, from one pair of gate and up weights


def _gate_up_weights(spec: FormSpec) -> tuple[np.ndarray, np.ndarray]:
    cfg = spec.cfg
    rng = np.random.default_rng(cfg.seed)
    lead = (cfg.layers,) if spec.stacked else ()
    shape = lead + (cfg.experts, cfg.embed, cfg.mlp)
    # Drawn apart, so that a program that swapped gate and up would compute something else.
    return (rng.standard_normal(shape, dtype=np.float32) / np.sqrt(cfg.embed),
            rng.standard_normal(shape, dtype=np.float32) / np.sqrt(cfg.embed) + 0.5)


def layout(spec: FormSpec, gate: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, ...]:
    """The stored weight(s) of the form, holding ``gate`` and ``up`` (``[..., E, D, F]`` each)."""
    if spec.form == "up_first":
        return (np.concatenate([up, gate], axis=-1),)
    if spec.form == "up_first_pair":
        return (up, gate)
    if spec.form == "size2":
        return (np.stack([gate, up], axis=-3),)
    return (np.stack([gate, up], axis=-1).reshape(*gate.shape[:-1], 2 * gate.shape[-1]),)


def host_inputs(spec: FormSpec) -> tuple[np.ndarray, ...]:
    """``(x [T, D], gs [E], *weights, wo [E, F, D])`` (scan: weights stacked on a layer axis)."""
    cfg = spec.cfg
    rng = np.random.default_rng(cfg.seed + 7)
    lead = (cfg.layers,) if spec.stacked else ()
    x = rng.standard_normal((cfg.tokens, cfg.embed), dtype=np.float32)
    wo = rng.standard_normal(lead + (cfg.experts, cfg.mlp, cfg.embed), dtype=np.float32) / np.sqrt(cfg.mlp)
    weights = tuple(w.astype(cfg.jparam_dtype) for w in layout(spec, *_gate_up_weights(spec)))
    return (x.astype(cfg.jdtype), make_group_sizes(cfg), *weights, wo.astype(cfg.jparam_dtype))


def _weight_spec(spec: FormSpec) -> P:
    """``D`` sharded over the FSDP axes: dimension 1 of ``[E, D, ...]``, 2 of ``[E, 2, D, F]``."""
    lead = (None,) if spec.stacked else ()
    fsdp = fsdp_axes(spec.mesh)
    if spec.form == "size2":
        return P(*lead, None, None, fsdp, None)
    return P(*lead, None, fsdp, None)


def in_specs(spec: FormSpec) -> tuple[P, ...]:
    w = _weight_spec(spec)
    weights = (w, w) if spec.form == "up_first_pair" else (w,)
    return (P(), P(), *weights, P())


def program_mesh(spec: FormSpec) -> Mesh:
    # Auto axes: the pair form drops the FSDP axes through its shard_map's in_specs.
    return make_mesh(spec.mesh, spec.num_devices, explicit=False)


def inputs(spec: FormSpec, mesh: Mesh | None = None) -> tuple[jax.Array, ...]:
    mesh = mesh if mesh is not None else program_mesh(spec)
    return tuple(jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(host_inputs(spec), in_specs(spec)))


# --------------------------------------------------------------------------
# The layers


def _gather_along(w: jax.Array, stages: Sequence[str], axis: int) -> jax.Array:
    for name in stages:
        w = jax.lax.all_gather(w, name, axis=axis, tiled=True)
    return w


def _explicit_body(spec: FormSpec) -> Callable:
    """Per device: the local ``D`` shard of the weight, gathered here (as the public kernels'
    wrappers do), the gate/up GMMs, ``silu(gate) * up``, the down projection."""
    cfg = spec.cfg
    f, dtype = cfg.mlp, cfg.jdtype
    stages = gather_stages(spec.mesh)
    fused = spec.variant == "fused"

    def up_first(x, gs, w, wo):
        w = w.astype(dtype)
        if fused:
            h = gmm(x, _gather(w, stages), gs)
            up, gate = h[:, :f], h[:, f:]
        else:
            up_w, gate_w = _gather(w[..., :f], stages), _gather(w[..., f:], stages)
            if spec.meet == "concat":
                h = gmm(x, jnp.concatenate([up_w, gate_w], axis=-1), gs)
                up, gate = h[:, :f], h[:, f:]
            else:
                # The gate GMM first, as the activation reads it.
                gate = gmm(x, gate_w, gs)
                up = gmm(x, up_w, gs)
        return _ffn_tail(gate, up, gs, wo.astype(dtype))

    def size2(x, gs, w, wo):
        w = w.astype(dtype)
        if fused:
            g = _gather_along(w, stages, 2)  # [E, 2, D, F]
            e, _, d, _ = g.shape
            h = gmm(x, jnp.transpose(g, (0, 2, 1, 3)).reshape(e, d, 2 * f), gs)
            gate, up = h[:, :f], h[:, f:]
        else:
            gate = gmm(x, _gather(w[:, 0], stages), gs)
            up = gmm(x, _gather(w[:, 1], stages), gs)
        return _ffn_tail(gate, up, gs, wo.astype(dtype))

    def interleaved(x, gs, w, wo):
        w = w.astype(dtype)
        if fused:
            h = gmm(x, _gather(w, stages), gs)
            gate, up = h[:, ::2], h[:, 1::2]
        else:
            gate = gmm(x, _gather(w[..., ::2], stages), gs)
            up = gmm(x, _gather(w[..., 1::2], stages), gs)
        return _ffn_tail(gate, up, gs, wo.astype(dtype))

    return {"up_first": up_first, "size2": size2, "interleaved": interleaved}[spec.form]


def _halves(spec: FormSpec) -> Callable[[jax.Array], tuple[jax.Array, jax.Array]]:
    """(gate, up) cut out of the layout's weight."""
    f = spec.cfg.mlp
    return {"up_first": lambda w: (w[..., f:], w[..., :f]),
            "size2": lambda w: (w[:, 0], w[:, 1]),
            "interleaved": lambda w: (w[..., ::2], w[..., 1::2])}[spec.form]


def _fused_gate_up(spec: FormSpec, x: jax.Array, gs: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(gate, up) activations from one GMM on the whole gathered weight, split in its layout."""
    f = spec.cfg.mlp
    if spec.form == "size2":
        e, _, d, _ = w.shape
        h = gmm(x, jnp.transpose(w, (0, 2, 1, 3)).reshape(e, d, 2 * f), gs)
        return h[:, :f], h[:, f:]
    h = gmm(x, w, gs)
    return (h[:, f:], h[:, :f]) if spec.form == "up_first" else (h[:, ::2], h[:, 1::2])


def _implicit_layer(spec: FormSpec, mesh: Mesh) -> Callable:
    """MaxText's way: the halves cut out of the global weight and replicated by sharding
    constraints before a shard_map whose body runs the GMMs (the twin: the whole weight)."""
    dtype = spec.cfg.jdtype
    replicate = lambda a: jax.lax.with_sharding_constraint(a, NamedSharding(mesh, P()))  # noqa: E731
    if spec.variant == "fused":
        body = lambda x, gs, w, wo: _ffn_tail(*_fused_gate_up(spec, x, gs, w), gs, wo)  # noqa: E731
        mapped = jax.shard_map(body, mesh=mesh, in_specs=(P(),) * 4, out_specs=P(), check_vma=False)
        return lambda x, gs, w, wo: mapped(x, gs, replicate(w.astype(dtype)), wo.astype(dtype))

    def two(x, gs, gate_w, up_w, wo):
        return _ffn_tail(gmm(x, gate_w, gs), gmm(x, up_w, gs), gs, wo)

    mapped = jax.shard_map(two, mesh=mesh, in_specs=(P(),) * 5, out_specs=P(), check_vma=False)

    def layer(x, gs, w, wo):
        gate_w, up_w = _halves(spec)(w.astype(dtype))
        return mapped(x, gs, replicate(gate_w), replicate(up_w), wo.astype(dtype))

    return layer


def _layer(spec: FormSpec, mesh: Mesh) -> Callable:
    wspec = _weight_spec(spec.replace(mode="forward"))
    if spec.collectives == "implicit":
        return _implicit_layer(spec, mesh)
    if spec.form != "up_first_pair":
        return jax.shard_map(_explicit_body(spec), mesh=mesh, in_specs=(P(), P(), wspec, P()), out_specs=P(),
                             check_vma=False)
    cfg = spec.cfg

    def body(x, gs, w_up, w_gate, wo):
        # TransformerEngine's block: the weights arrive replicated, concatenated here [up | gate].
        h = gmm(x, jnp.concatenate([w_up, w_gate], axis=-1), gs)
        up, gate = jnp.split(h, [cfg.mlp], axis=-1)
        return _ffn_tail(gate, up, gs, wo)

    if spec.variant == "fused":
        mapped = jax.shard_map(lambda x, gs, w, wo: body(x, gs, w[..., :cfg.mlp], w[..., cfg.mlp:], wo), mesh=mesh,
                               in_specs=(P(), P(), P(), P()), out_specs=P(), check_vma=False)

        def fused_layer(x, gs, w_up, w_gate, wo):
            # The shards side by side along F (no communication), one operand gathered once.
            w = jnp.concatenate([w_up.astype(cfg.jdtype), w_gate.astype(cfg.jdtype)], axis=-1)
            return mapped(x, gs, w, wo.astype(cfg.jdtype))

        return fused_layer
    mapped = jax.shard_map(body, mesh=mesh, in_specs=(P(), P(), P(), P(), P()), out_specs=P(), check_vma=False)
    return lambda x, gs, w_up, w_gate, wo: mapped(x, gs, w_up.astype(cfg.jdtype), w_gate.astype(cfg.jdtype),
                                                  wo.astype(cfg.jdtype))


def program_fn(spec: FormSpec, mesh: Mesh | None = None) -> Callable:
    """The whole program as a function of ``inputs(spec)`` (not yet jitted)."""
    mesh = mesh if mesh is not None else program_mesh(spec)
    layer = _layer(spec, mesh)
    if spec.checkpoint:
        layer = jax.checkpoint(layer)
    if spec.mode == "grad":

        def train(x, gs, *weights):
            loss = lambda ws: jnp.mean(jnp.square(layer(x, gs, *ws)))  # noqa: E731
            return jax.value_and_grad(loss)(weights)

        return train
    if not spec.stacked:
        return layer

    def forward(x, gs, *weights):
        def step(h, ws):
            return h + layer(h, gs, *ws), None

        return jax.lax.scan(step, x, weights)[0]

    return forward


def build(spec: FormSpec) -> tuple[Callable, tuple[jax.Array, ...]]:
    """``(jitted_fn, device_args)``; the modules are named ``jit_moe_forms``."""
    mesh = program_mesh(spec)
    fn = program_fn(spec, mesh)

    def moe_forms(*args):
        return fn(*args)

    return jax.jit(moe_forms), inputs(spec, mesh)


def lower(spec: FormSpec, *, platforms: Sequence[str] | None = None) -> jax.stages.Lowered:
    fn, args = build(spec)
    if platforms is None:
        return fn.lower(*args)
    return fn.trace(*args).lower(lowering_platforms=tuple(platforms))


def run(spec: FormSpec) -> np.ndarray:
    fn, args = build(spec)
    return np.asarray(fn(*args))


def reference(spec: FormSpec) -> np.ndarray:
    """The forward value on one device, from gate and up as two plain arrays: ``silu(gate) * up``."""
    cfg = spec.cfg
    x, gs, *_, wo = (jnp.asarray(a) for a in host_inputs(spec))
    gate, up = (jnp.asarray(w.astype(cfg.jparam_dtype)).astype(cfg.jdtype) for w in _gate_up_weights(spec))

    def layer(h, g, u, o):
        return _ffn_tail(gmm(h, g, gs), gmm(h, u, gs), gs, o.astype(cfg.jdtype))

    if not spec.stacked:
        return np.asarray(layer(x, gate, up, wo))
    out = x
    for i in range(cfg.layers):
        out = out + layer(out, gate[i], up[i], wo[i])
    return np.asarray(out)
