"""The generator: small FSDP programs over weights of every role, from a ``Spec``.

A ``Spec`` is a handful of choices (``FIELDS``); ``specs()`` is its Hypothesis strategy (it
shrinks field by field), ``spec_from_seed(seed)`` draws the same choices from a seed (the long
run: a failure is reported as its seed and its spec, both enough to rebuild the program).
``build(spec, devices)`` is ``(function, arguments, mesh size)``: the function jitted as jax.jit
would jit it (with shardings for partitioner-inserted gathers), its arguments, host arrays.

Families (each a layer ``h -> h + f(h)``; weights FSDP-sharded along one or two of their
dimensions, gathered before use):

* ``moe_prefused``: a ``[E, D, 2F]`` gate|up weight (layout ``b``: ``[E, 2F, D]``) sliced into its
  halves *before* the gather, two grouped matmuls (``ragged_dot``), silu-gated, a down GMM;
* ``moe_pair``: gate and up as two ``[E, D, F]`` weights;
* ``mlp_prefused`` / ``mlp_pair``: the same without experts (dense ``[D, 2F]`` / two ``[D, F]``);
* ``attention_kv``: q, k, v projections ``[D, H, K]`` (layout ``b``: ``[H, D, K]``) and the output
  projection, the K/V weights of the MoE weights' shapes;
* ``attention_kv_prefused``: k|v as one ``[D, H, 2K]`` weight sliced before the gather;
* ``block``: ``attention_kv`` then ``moe_pair`` in one layer (a Mixtral-like block: the K/V weights
  and the MoE weights in one module).

Gathers: explicit (``shard_map`` with ``all_gather`` per piece) or inserted by the partitioner
(``jax.jit`` with ``NamedSharding`` inputs; ``hint``: the sliced pieces constrained to their
sharding, or to replicated as FSDP libraries gather before use; ``tokens``: replicated or split
over the first mesh axis).

MoE families may mask the rows past ``sum(group_sizes)`` around their GMMs (``mask``); those
rows then hold large values (garbage a dropped token leaves).  ``int8`` weights are gathered as
int8 and dequantized by a per-weight scale (compute in bf16).
"""
from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import numpy as np

TOKENS = 16
LAYERS = 2  # stacked layers when scanned
DROPPED = 5  # rows past the groups when a mask is used

FIELDS: dict[str, tuple[Any, ...]] = {
    "family": ("moe_prefused", "moe_pair", "mlp_prefused", "mlp_pair", "attention_kv", "attention_kv_prefused",
               "block"),
    "mesh": ((1,), (2,), (4,), (8,), (2, 2), (2, 4), (4, 2)),
    # With two mesh axes: one weight dimension over both (``joint``), or two dimensions, one axis each.
    "axes_use": ("joint", "two_dims"),
    "shard": (0, 1, 2),  # the weight dimension FSDP shards (mod its rank)
    "gather": ("explicit", "partitioner"),
    # Partitioner-inserted gathers: the sliced pieces constrained to the weight's sharding, or to
    # replicated (an FSDP library's gather before use), or left to the partitioner.
    "hint": ("none", "constrain", "replicate"),
    # Partitioner-inserted gathers: the tokens replicated, or split over the first mesh axis.
    "tokens": ("replicated", "sharded"),
    "dtype": ("float32", "bfloat16", "int8"),
    "step": ("forward", "train"),
    "scan": ("none", "scan", "scan_remat"),
    # Dimension orders: MoE/MLP weights a [.., D, F] or b [.., F, D]; attention projections
    # a [D, H, K], b [H, D, K], c [H, K, D] (the model dimension last, as some codebases keep K/V).
    "layout": ("a", "b", "c"),
    "width": (8, 16, 32),  # F, or the head dimension K
    "model": (16, 32),  # D
    "groups": (2, 4),  # experts E, or heads H
    "mask": ("none", "lhs", "result", "both"),
    # Partitioner-inserted gathers of an FFN's weights: in the layer (``plain``), or at the entry of a
    # ``jax.shard_map`` the FFN runs in, which takes them whole (MaxText's and the test trainer's
    # form: under ``jax.checkpoint`` the recomputed forward's and the backward's shard_maps both take
    # the halves).  Last, so that a seed's other choices are the ones it drew before it was added.
    "ffn": ("plain", "shard_map"),
}


@dataclass(frozen=True)
class Spec:
    family: str
    mesh: tuple[int, ...]
    axes_use: str
    shard: int
    gather: str
    hint: str
    dtype: str
    step: str
    scan: str
    layout: str
    width: int
    model: int
    groups: int
    mask: str
    tokens: str
    seed: int
    ffn: str = "plain"  # (a result line written before the field was added spells none)

    @property
    def devices(self) -> int:
        return math.prod(self.mesh)

    @property
    def moe(self) -> bool:
        return self.family.startswith("moe") or self.family == "block"

    def short(self) -> str:
        d = asdict(self)
        return " ".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in d.items())


def normalize(spec: Spec, max_devices: int = 8) -> Spec:
    """The spec as it can run: a mask only on MoE families, a mesh within ``max_devices``."""
    mesh = spec.mesh if math.prod(spec.mesh) <= max_devices else (1,)
    moe = spec.family.startswith("moe") or spec.family == "block"
    return replace(spec, mesh=mesh, mask=spec.mask if moe else "none",
                   hint=spec.hint if spec.gather == "partitioner" else "none",
                   tokens=spec.tokens if spec.gather == "partitioner" and math.prod(mesh) > 1 else "replicated",
                   axes_use=spec.axes_use if len(mesh) == 2 else "joint",
                   ffn=spec.ffn if spec.gather == "partitioner" and math.prod(mesh) > 1
                   and not spec.family.startswith("attention") else "plain")


def spec_from_line(text: str) -> Spec:
    """The spec a result line or ``Spec.short()`` spells (``family=block mesh=4x2 ... seed=7``): what
    rebuilds a reported program whatever the generator's choices have become since."""
    fields = dict(part.split("=", 1) for part in text.split() if "=" in part and part.split("=", 1)[0] in
                  (*FIELDS, "seed"))
    kw: dict[str, Any] = {}
    for k, v in fields.items():
        if k == "mesh":
            kw[k] = tuple(int(n) for n in v.split("x"))
        elif k in ("shard", "width", "model", "groups", "seed"):
            kw[k] = int(v)
        else:
            kw[k] = v
    return Spec(**kw)


def spec_from_seed(seed: int, max_devices: int = 8) -> Spec:
    rng = random.Random(seed)
    fields = {k: rng.choice(v) for k, v in FIELDS.items()}
    return normalize(Spec(**fields, seed=seed), max_devices)


def specs(max_devices: int = 8) -> Any:
    """The Hypothesis strategy of specs (each field drawn from ``FIELDS``)."""
    from hypothesis import strategies as st

    fields = {k: st.sampled_from(v) for k, v in FIELDS.items()}
    return st.builds(lambda seed, **kw: normalize(Spec(**kw, seed=seed), max_devices),
                     seed=st.integers(0, 2**31 - 1), **fields)


# ---- the weights -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Weight:
    name: str
    dims: tuple[str, ...]  # logical dimension names: E, H, D, F, K, 2F, 2K
    split: int | None  # the dimension sliced into two halves before the gather (a prefused weight)


def weights_of(spec: Spec) -> list[Weight]:
    a = spec.layout != "b"
    f = spec.family
    if f == "moe_prefused":
        return [Weight("w_in", ("E", "D", "2F") if a else ("E", "2F", "D"), 2 if a else 1),
                Weight("w_out", ("E", "F", "D") if a else ("E", "D", "F"), None)]
    if f == "moe_pair":
        gate = ("E", "D", "F") if a else ("E", "F", "D")
        return [Weight("w_gate", gate, None), Weight("w_up", gate, None),
                Weight("w_out", ("E", "F", "D") if a else ("E", "D", "F"), None)]
    if f == "mlp_prefused":
        return [Weight("w_in", ("D", "2F") if a else ("2F", "D"), 1 if a else 0),
                Weight("w_out", ("F", "D") if a else ("D", "F"), None)]
    if f == "mlp_pair":
        gate = ("D", "F") if a else ("F", "D")
        return [Weight("w_gate", gate, None), Weight("w_up", gate, None),
                Weight("w_out", ("F", "D") if a else ("D", "F"), None)]
    if f == "block":  # attention (separate q, k, v, o) and a two-weight MoE FFN in one layer
        return weights_of(replace(spec, family="attention_kv")) + weights_of(replace(spec, family="moe_pair"))
    proj = {"a": ("D", "H", "K"), "b": ("H", "D", "K"), "c": ("H", "K", "D")}[spec.layout]
    out = ("D", "H", "K") if spec.layout == "b" else ("H", "K", "D")
    if f == "attention_kv":
        return [Weight("wq", proj, None), Weight("wk", proj, None), Weight("wv", proj, None), Weight("wo", out, None)]
    if f == "attention_kv_prefused":
        kv = tuple("2K" if d == "K" else d for d in proj)
        return [Weight("wq", proj, None), Weight("w_kv", kv, kv.index("2K")), Weight("wo", out, None)]
    raise ValueError(f"unknown family {f!r}")


def shard_plan(spec: Spec, w: Weight) -> list[tuple[int, tuple[str, ...]]]:
    """(dimension, mesh axes) each FSDP split of ``w`` takes; none on a mesh of one device."""
    if spec.devices == 1:
        return []
    rank = len(w.dims)
    first = spec.shard % rank
    names = tuple(f"a{i}" for i in range(len(spec.mesh)))
    if len(names) == 1 or spec.axes_use == "joint":
        return [(first, names)]
    return [(first, (names[0],)), ((first + 1) % rank, (names[1],))]


def sizes_of(spec: Spec) -> dict[str, int]:
    """Each logical dimension's size, rounded up so that every sharded dimension divides by its
    devices (a sliced one by twice: each half of a local shard whole)."""
    base = {"E": spec.groups, "H": spec.groups, "D": spec.model, "F": spec.width, "K": spec.width}
    axis_size = {f"a{i}": n for i, n in enumerate(spec.mesh)}
    for w in weights_of(spec):
        for dim, axes in shard_plan(spec, w):
            n = math.prod(axis_size[a] for a in axes)
            name = w.dims[dim].lstrip("2")  # 2F: each half of F columns splits by n
            base[name] = math.lcm(base[name], n)
    return base


def shape_of(w: Weight, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(2 * sizes[d[1:]] if d.startswith("2") else sizes[d] for d in w.dims)


# ---- the program -----------------------------------------------------------------------------

def _compute_dtype(spec: Spec) -> Any:
    import jax.numpy as jnp

    return jnp.float32 if spec.dtype == "float32" else jnp.bfloat16


def _pieces(spec: Spec, w: Weight, value: Any, scale: Any, gather: Any) -> list[Any]:
    """The weight as the layer uses it: split into halves (a prefused weight) before each half is
    gathered, dequantized after, and put in layout ``a``'s dimension order."""
    import jax.numpy as jnp

    c = _compute_dtype(spec)
    parts = jnp.split(value, 2, axis=w.split) if w.split is not None else [value]
    out = []
    for p in parts:
        p = gather(p, w)
        if spec.dtype == "int8":
            p = p.astype(c) * scale.astype(c)
        out.append(p)
    return out


def _layer(spec: Spec, h: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any], gather: Any,
           ffn_in: Any = None) -> Any:
    """One layer; ``ffn_in`` (``ffn=shard_map``): what runs the FFN in a shard_map taking its
    inputs whole (None: the FFN runs in the layer)."""
    ws = {w.name: w for w in weights_of(spec)}
    got = {n: _pieces(spec, ws[n], params[n], scales.get(n), gather) for n in params}
    if spec.family == "block":
        h = _attention(spec, h, got)
    if spec.moe:
        ffn = partial(_moe, spec)
    elif spec.family.startswith("mlp"):
        ffn = lambda h, gs, got: _mlp(spec, h, got)  # noqa: E731 - the FFN's one signature
    else:
        return _attention(spec, h, got)
    mine = {n: got[n] for n in got if n not in ("wq", "wk", "wv", "wo", "w_kv")}
    return (ffn_in(ffn) if ffn_in is not None else ffn)(h, gs, mine)


def _swap(spec: Spec) -> Any:
    import jax.numpy as jnp

    return (lambda t: t) if spec.layout != "b" else (lambda t: jnp.swapaxes(t, -1, -2))


def _moe(spec: Spec, h: Any, gs: Any, got: dict[str, list[Any]]) -> Any:
    import jax
    import jax.numpy as jnp

    c = _compute_dtype(spec)
    sw = _swap(spec)
    gate, up = got["w_in"] if "w_in" in got else (got["w_gate"][0], got["w_up"][0])
    gate, up, down = sw(gate), sw(up), sw(got["w_out"][0])
    live = jnp.arange(h.shape[0])[:, None] < jnp.sum(gs)
    x = jnp.where(live, h, 0) if spec.mask in ("lhs", "both") else h
    g1 = jax.lax.ragged_dot(x, gate, gs, preferred_element_type=c)
    g2 = jax.lax.ragged_dot(x, up, gs, preferred_element_type=c)
    y = jax.lax.ragged_dot(jax.nn.silu(g1) * g2, down, gs, preferred_element_type=c)
    if spec.mask in ("result", "both"):
        y = jnp.where(live, y, 0)
    return h + y


def _mlp(spec: Spec, h: Any, got: dict[str, list[Any]]) -> Any:
    import jax

    sw = _swap(spec)
    gate, up = got["w_in"] if "w_in" in got else (got["w_gate"][0], got["w_up"][0])
    gate, up, down = sw(gate), sw(up), sw(got["w_out"][0])
    return h + (jax.nn.silu(h @ gate) * (h @ up)) @ down


def _attention(spec: Spec, h: Any, got: dict[str, list[Any]]) -> Any:
    import jax
    import jax.numpy as jnp

    c = _compute_dtype(spec)
    wq = got["wq"][0]
    wk, wv = got["w_kv"] if "w_kv" in got else (got["wk"][0], got["wv"][0])
    proj = {"a": "td,dhk->thk", "b": "td,hdk->thk", "c": "td,hkd->thk"}[spec.layout]
    q, k, v = (jnp.einsum(proj, h, w) for w in (wq, wk, wv))
    s = jnp.einsum("thk,shk->hts", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    o = jnp.einsum("hts,shk->thk", jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(c), v)
    return h + jnp.einsum("thk,dhk->td" if spec.layout == "b" else "thk,hkd->td", o, got["wo"][0])


def _run_layers(spec: Spec, h: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any], gather: Any,
                ffn_in: Any = None) -> Any:
    import jax

    if spec.scan == "none":
        return _layer(spec, h, gs, params, scales, gather, ffn_in)

    def body(h: Any, layer: tuple[dict[str, Any], dict[str, Any]]) -> tuple[Any, None]:
        return _layer(spec, h, gs, layer[0], layer[1], gather, ffn_in), None

    if spec.scan == "scan_remat":
        body = jax.checkpoint(body)
    return jax.lax.scan(body, h, (params, scales))[0]


def build(spec: Spec) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """``(function, host arguments, jit keyword arguments)`` of the program ``spec`` on the first
    ``spec.devices`` devices: ``jax.jit(function, **kwargs)`` as a user writes it (the pass inside
    XLA, when installed, sees its modules; ``hlo_passes.jit`` takes the same arguments)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    rng = np.random.default_rng(spec.seed)
    c = _compute_dtype(spec)
    sizes = sizes_of(spec)
    ws = weights_of(spec)
    stacked = spec.scan != "none"
    lead = (LAYERS,) if stacked else ()
    params: dict[str, np.ndarray] = {}
    scales: dict[str, np.ndarray] = {}
    for w in ws:
        shape = lead + shape_of(w, sizes)
        if spec.dtype == "int8":
            params[w.name] = rng.integers(-127, 128, shape).astype(np.int8)
            scales[w.name] = (rng.uniform(0.5, 1.5, lead) / (127 * np.sqrt(shape[-2]))).astype(np.float32)
        else:
            params[w.name] = (rng.standard_normal(shape) / np.sqrt(shape[-2])).astype(c)
    h = rng.standard_normal((TOKENS, sizes["D"])).astype(np.float32)
    groups = sizes["E"]
    used = TOKENS - (DROPPED if spec.mask != "none" else 0)
    cuts = np.sort(rng.integers(0, used + 1, groups - 1))
    gs = np.diff(np.concatenate([[0], cuts, [used]])).astype(np.int32)
    if spec.mask != "none" and spec.family != "block":  # (attention would spread it over every token)
        h[used:] = rng.standard_normal((TOKENS - used, sizes["D"])) * 1e3  # what a dropped token leaves
    x = h.astype(c)

    mesh = Mesh(np.asarray(jax.devices()[:spec.devices]).reshape(spec.mesh),
                tuple(f"a{i}" for i in range(len(spec.mesh))))

    def spec_of(w: Weight) -> Any:
        entries: list[Any] = [None] * len(w.dims)
        for dim, axes in shard_plan(spec, w):
            entries[dim] = axes if len(axes) > 1 else axes[0]
        return P(*((None,) if stacked else ()), *entries)

    wspecs = {w.name: spec_of(w) for w in ws}
    sspecs = {n: P() for n in scales}

    def explicit_gather(p: Any, w: Weight) -> Any:
        for dim, axes in shard_plan(spec, w):
            p = jax.lax.all_gather(p, axes if len(axes) > 1 else axes[0], axis=dim, tiled=True)
        return p

    def constrained(p: Any, w: Weight) -> Any:
        if spec.hint == "constrain" and spec.devices > 1 and not stacked:
            p = jax.lax.with_sharding_constraint(p, NamedSharding(mesh, spec_of(w)))
        elif spec.hint == "replicate" and spec.devices > 1:  # gathered before use, as FSDP libraries do
            p = jax.lax.with_sharding_constraint(p, NamedSharding(mesh, P()))
        return p

    if spec.gather == "explicit" and spec.devices > 1:
        def forward(x: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any]) -> Any:
            body = jax.shard_map(partial(_run_layers, spec, gather=explicit_gather), mesh=mesh,
                                 in_specs=(P(), P(), wspecs, sspecs), out_specs=P(), check_vma=False)
            return body(x, gs, params, scales)
    else:
        def ffn_in(ffn: Any) -> Any:
            return jax.shard_map(ffn, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)

        def forward(x: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any]) -> Any:
            return _run_layers(spec, x, gs, params, scales, constrained,
                               ffn_in if spec.ffn == "shard_map" else None)

    if spec.step == "forward":
        step = forward
    else:
        def loss(x: Any, floats: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any]) -> Any:
            if spec.dtype == "int8":
                scales = floats
            else:
                params = floats
            out = forward(x, gs, params, scales).astype(jnp.float32)
            live = jnp.arange(out.shape[0])[:, None] < jnp.sum(gs)
            return jnp.sum(jnp.where(live, out, 0) ** 2) / out.size

        def step(x: Any, gs: Any, params: dict[str, Any], scales: dict[str, Any]) -> Any:
            floats = scales if spec.dtype == "int8" else params
            return jax.grad(loss, argnums=(0, 1))(x, floats, gs, params, scales)

    rep = NamedSharding(mesh, P())
    tokens = NamedSharding(mesh, P("a0")) if spec.tokens == "sharded" else rep
    in_shardings = (tokens, rep, {n: NamedSharding(mesh, s) for n, s in wspecs.items()},
                    {n: rep for n in scales})
    return step, (x, gs, params, scales), {"in_shardings": in_shardings}
