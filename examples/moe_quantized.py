"""Quantized fused gate/up weights gathered over FSDP (issue 32, "Quantized weights";
``docs/weight-forms.md`` shows the text each program lowers to).

* ``form="maxtext"`` — MaxText's quantized all-gather over FSDP: the fused weight is stored as an
  int8 (or fp8 e4m3) ``qvalue`` ``W_q[E, D, 2F]`` with ``D`` sharded over ``fsdp``, and its
  per-channel scales.  Inside ``jax.shard_map`` each half's ``qvalue`` (``W_q[..., :F]``,
  ``W_q[..., F:]`` of the local shard) is all-gathered on its own, then dequantized
  (``q.astype(f32) * scale``, maybe cast to the compute dtype) and either concatenated back
  before one ``ragged_dot`` (``meet="concat"``) or fed to its own (``meet="two_gmm"``).
  The scales are kept apart from the ``qvalue``:

  - ``scale="replicated"``: one scale per output channel, ``s[E, 1, 2F]``, replicated; each half
    reads its own columns ``s[..., :F]``, ``s[..., F:]``, broadcast along ``D``.
  - ``scale="sharded"``: one scale per block of ``D`` rows and output channel (sub-channel
    quantization), ``s[E, D/2, 2F]`` sharded over ``fsdp`` like ``W_q`` (each device holds
    ``[E, 1, 2F]``, the scale of its two rows); each half's scale is gathered as its ``qvalue``
    is, and repeated over the rows of its block.

* ``form="collective_quantizer"`` — what XLA's ``CollectiveQuantizer`` makes of a gather of each
  slice of an f32 weight: a ``convert`` to ``f8e4m3fn`` before each half's gather and a
  ``convert`` back after it (the weight holds values fp8 represents exactly).

``variant="split"`` is the program as written (halves cut before the gathers); ``variant="fused"``
is its already-fused twin: the ``qvalue`` gathered once (and a sharded scale once), dequantized
whole, one GMM, its output split.  Both compute the same function; no rule may report a site in
a twin.  Sizes: ``E = 4``, ``D = 16``, ``F = 8``, ``T = 16``, 8 devices on one ``fsdp`` axis.
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

from examples.moe import FSDP, MoEConfig, _ffn_tail, gmm, make_group_sizes, make_mesh

QUANT_FORMS: tuple[str, ...] = ("maxtext", "collective_quantizer")
QTYPES: tuple[str, ...] = ("int8", "fp8")
SCALES: tuple[str, ...] = ("replicated", "sharded")
MEETS: tuple[str, ...] = ("concat", "two_gmm")
VARIANTS: tuple[str, ...] = ("split", "fused")
# Rows of D that share one scale where the scale is sharded (one block per device's shard).
BLOCK_ROWS = 2
_QDTYPES = {"int8": jnp.int8, "fp8": jnp.float8_e4m3fn}


def small_config() -> MoEConfig:
    return MoEConfig(experts=4, embed=16, mlp=8, tokens=16)


@dataclass(frozen=True)
class QuantSpec:
    """One quantized-weight program: form, quantized type, scale layout, meeting, variant."""

    form: str = "maxtext"
    qtype: str = "int8"
    scale: str = "replicated"  # maxtext only
    meet: str = "concat"
    variant: str = "split"
    dequant_dtype: str = "float32"  # what the dequantized weight is cast to (the GMM's dtype)
    num_devices: int = 8
    cfg: MoEConfig = field(default_factory=small_config)

    def __post_init__(self) -> None:
        for value, allowed, what in ((self.form, QUANT_FORMS, "form"), (self.qtype, QTYPES, "qtype"),
                                     (self.scale, SCALES, "scale"), (self.meet, MEETS, "meet"),
                                     (self.variant, VARIANTS, "variant"),
                                     (self.dequant_dtype, ("float32", "bfloat16"), "dequant_dtype")):
            if value not in allowed:
                raise ValueError(f"unknown {what} {value!r}; expected one of {allowed}")
        if self.form == "collective_quantizer" and (self.qtype, self.scale) != ("fp8", "replicated"):
            raise ValueError("the collective_quantizer form converts to fp8 and has no scale")
        if self.scale == "sharded" and self.cfg.embed != BLOCK_ROWS * self.num_devices:
            raise ValueError(f"a sharded scale holds one block of {BLOCK_ROWS} rows per device")

    @property
    def name(self) -> str:
        """A short id for tests and file names, e.g. ``maxtext_int8_replicated_concat_split``."""
        parts = [self.form, self.qtype]
        if self.form == "maxtext":
            parts.append(self.scale)
        parts += [self.meet, self.variant]
        if self.dequant_dtype != "float32":
            parts.append(self.dequant_dtype)
        return "_".join(parts)

    def replace(self, **changes: Any) -> "QuantSpec":
        return dataclasses.replace(self, **changes)


# --------------------------------------------------------------------------
# Inputs: a quantized fused weight and its scales


def quantized_weight(spec: QuantSpec) -> tuple[np.ndarray, np.ndarray]:
    """``(W_q [E, D, 2F], scale)``: integer values in int8's range (or values fp8 e4m3 holds
    exactly), gate and up drawn apart; scale ``[E, 1, 2F]`` or, sharded, ``[E, D/2, 2F]``."""
    cfg = spec.cfg
    e, d, f = cfg.experts, cfg.embed, cfg.mlp
    rng = np.random.default_rng(cfg.seed)
    q = rng.integers(-127, 128, size=(e, d, 2 * f)).astype(np.float32)
    if spec.qtype == "fp8":
        q = np.clip(np.round(q / 8), -15, 15)  # small integers: exact in e4m3
    rows = 1 if spec.scale == "replicated" else d // BLOCK_ROWS
    scale = (rng.uniform(0.5, 1.5, size=(e, rows, 2 * f)) / (127 * np.sqrt(d))).astype(np.float32)
    scale[..., f:] *= 2.0  # up's scales differ from gate's
    if spec.form == "collective_quantizer":
        return q, scale
    return q.astype(_QDTYPES[spec.qtype]), scale  # numpy (ml_dtypes' fp8): no jax computation here


def host_inputs(spec: QuantSpec) -> tuple[np.ndarray, ...]:
    """``(x [T, D], gs [E], W_q, scale, wo [E, F, D])`` (collective_quantizer: no scale)."""
    cfg = spec.cfg
    rng = np.random.default_rng(cfg.seed + 7)
    x = rng.standard_normal((cfg.tokens, cfg.embed)).astype(np.float32)
    wo = (rng.standard_normal((cfg.experts, cfg.mlp, cfg.embed)) / np.sqrt(cfg.mlp)).astype(np.float32)
    q, scale = quantized_weight(spec)
    weights = (q,) if spec.form == "collective_quantizer" else (q, scale)
    return (x, make_group_sizes(cfg), *weights, wo)


def in_specs(spec: QuantSpec) -> tuple[P, ...]:
    """``W_q`` sharded on ``D`` over ``fsdp``; a sharded scale likewise; the rest replicated."""
    w = P(None, FSDP, None)
    if spec.form == "collective_quantizer":
        return (P(), P(), w, P())
    return (P(), P(), w, w if spec.scale == "sharded" else P(), P())


def program_mesh(spec: QuantSpec) -> Mesh:
    return make_mesh("mesh1", spec.num_devices, explicit=False)


def inputs(spec: QuantSpec, mesh: Mesh | None = None) -> tuple[jax.Array, ...]:
    mesh = mesh if mesh is not None else program_mesh(spec)
    return tuple(jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(host_inputs(spec), in_specs(spec)))


# --------------------------------------------------------------------------
# The layer, per device inside the shard_map (MaxText's quantized all-gather)


def _all_gather(w: jax.Array) -> jax.Array:
    return jax.lax.all_gather(w, FSDP, axis=1, tiled=True)


def _dequantize(spec: QuantSpec, q: jax.Array, scale: jax.Array) -> jax.Array:
    """``q * scale`` in f32 (the scale repeated over the rows of its block where it is one per
    block), cast to the GMM's dtype."""
    if spec.scale == "sharded":
        e, blocks, f = scale.shape
        scale = jnp.broadcast_to(scale[:, :, None, :], (e, blocks, BLOCK_ROWS, f)).reshape(e, blocks * BLOCK_ROWS, f)
    return (q.astype(jnp.float32) * scale).astype(spec.dequant_dtype)


def _gate_up(spec: QuantSpec, x: jax.Array, gs: jax.Array, halves: Sequence[jax.Array]) -> tuple[jax.Array, ...]:
    f = spec.cfg.mlp
    if len(halves) == 1:  # the whole weight
        h = gmm(x, halves[0], gs)
        return h[:, :f], h[:, f:]
    if spec.meet == "concat":
        h = gmm(x, jnp.concatenate(halves, axis=-1), gs)
        return h[:, :f], h[:, f:]
    return gmm(x, halves[0], gs), gmm(x, halves[1], gs)


def _maxtext_body(spec: QuantSpec) -> Callable:
    f = spec.cfg.mlp
    gathered_scale = spec.scale == "sharded"

    def body(x, gs, w_q, scale, wo):
        x = x.astype(spec.dequant_dtype)
        if spec.variant == "fused":
            s = _all_gather(scale) if gathered_scale else scale
            halves = [_dequantize(spec, _all_gather(w_q), s)]
        else:
            halves = []
            for cols in (slice(None, f), slice(f, None)):
                s = scale[..., cols]
                s = _all_gather(s) if gathered_scale else s
                halves.append(_dequantize(spec, _all_gather(w_q[..., cols]), s))
        gate, up = _gate_up(spec, x, gs, halves)
        return _ffn_tail(gate, up, gs, wo.astype(spec.dequant_dtype)).astype(jnp.float32)

    return body


def _collective_quantizer_body(spec: QuantSpec) -> Callable:
    f = spec.cfg.mlp

    def through_fp8(w: jax.Array) -> jax.Array:
        # CollectiveQuantizer's form: the gather moves fp8, the value is converted back after it.
        return _all_gather(w.astype(jnp.float8_e4m3fn)).astype(jnp.float32)

    def body(x, gs, w, wo):
        if spec.variant == "fused":
            halves = [through_fp8(w)]
        else:
            halves = [through_fp8(w[..., :f]), through_fp8(w[..., f:])]
        return _ffn_tail(*_gate_up(spec, x, gs, halves), gs, wo)

    return body


def program_fn(spec: QuantSpec, mesh: Mesh | None = None) -> Callable:
    mesh = mesh if mesh is not None else program_mesh(spec)
    body = _maxtext_body(spec) if spec.form == "maxtext" else _collective_quantizer_body(spec)
    return jax.shard_map(body, mesh=mesh, in_specs=in_specs(spec), out_specs=P(), check_vma=False)


def build(spec: QuantSpec) -> tuple[Callable, tuple[jax.Array, ...]]:
    """``(jitted_fn, device_args)``; the modules are named ``jit_moe_quantized``."""
    mesh = program_mesh(spec)
    fn = program_fn(spec, mesh)

    def moe_quantized(*args):
        return fn(*args)

    return jax.jit(moe_quantized), inputs(spec, mesh)


def lower(spec: QuantSpec, *, platforms: Sequence[str] | None = None) -> jax.stages.Lowered:
    fn, args = build(spec)
    if platforms is None:
        return fn.lower(*args)
    return fn.trace(*args).lower(lowering_platforms=tuple(platforms))


def run(spec: QuantSpec) -> np.ndarray:
    fn, args = build(spec)
    return np.asarray(fn(*args))


def reference(spec: QuantSpec) -> np.ndarray:
    """On one device: the weight dequantized whole (numpy), ``silu(gate) * up``."""
    cfg = spec.cfg
    f = cfg.mlp
    x, gs, q, *rest = host_inputs(spec)
    w = np.asarray(q, np.float32)
    if spec.form == "maxtext":
        w = w * np.repeat(rest[0], w.shape[1] // rest[0].shape[1], axis=1)
    dtype = jnp.dtype(spec.dequant_dtype)
    w, xj = jnp.asarray(w).astype(dtype), jnp.asarray(x).astype(dtype)
    gate, up = gmm(xj, w[..., :f], gs), gmm(xj, w[..., f:], gs)
    return np.asarray(_ffn_tail(gate, up, gs, jnp.asarray(rest[-1]).astype(dtype)).astype(jnp.float32))


def all_specs() -> list[QuantSpec]:
    """Every program of the examples and tests: each form as written, and its fused twin."""
    split = [QuantSpec(qtype=q, scale=s, meet=m) for q in QTYPES for s in SCALES for m in MEETS]
    split.append(QuantSpec(qtype="fp8", meet="two_gmm", dequant_dtype="bfloat16"))
    split += [QuantSpec(form="collective_quantizer", qtype="fp8", meet=m) for m in MEETS]
    return split + [s.replace(variant="fused") for s in split]
