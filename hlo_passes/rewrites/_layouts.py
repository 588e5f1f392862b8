"""How an array is laid out across devices, read from the shardings a partitioner sees.

Shardy's implicit gathers are no ops in the text: a sharding annotation (a
``sdy.sharding_constraint``, a ``Sharding`` custom call, the ``in_shardings``
of a shard_map) says how a value must be split, and the partitioner inserts
a collective only where that differs from how the value already is.  A
``Layout`` is that "how": per dimension the mesh axes it is split over
(Shardy's ``[{}, {"fsdp", "fsdp_transpose"}, {}]``), or only the number of
shards when the text has GSPMD's tile form (``{devices=[1,8,1]<=[8]}``).
``reshard`` says which collective going from one layout to another costs, as
XLA's SPMD partitioner emits it (before its combiners merge any).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..ir import Instruction, Module, Sharding
from ..parser.split import split_top_level

# ``<@mesh, [{}, {"a", "b"}, {}]...>`` (HLO frontend attributes and StableHLO alike);
# jax 0.12's HLO names the axes in single quotes.
_DIMS_RE = re.compile(r"\[((?:\{[^{}]*\}\s*,?\s*)*)\]")
_AXIS_RE = re.compile(r"""["']([^"']+)["'](?::\((\d+)\)(\d+))?""")
_NAMED_MESH_RE = re.compile(r"\s*mesh\[[^\]]*\]")
_MESH_AXIS_RE = re.compile(r"""["']([^"']+)["']\s*=\s*(\d+)""")


@dataclass(frozen=True)
class Layout:
    """Per dimension: the mesh axes it is split over (``axes``, None if unnamed) and
    the number of shards (``counts``, None when the mesh's sizes are unknown)."""

    axes: tuple[tuple[str, ...], ...] | None
    counts: tuple[int, ...] | None

    @property
    def shards(self) -> int | None:
        """Into how many pieces the whole array is cut (devices holding one piece each)."""
        return math.prod(self.counts) if self.counts is not None else None


@dataclass(frozen=True)
class Reshard:
    """A collective the partitioner emits to go from one layout to the next."""

    opcode: str
    bytes_moved: int  # bytes each device receives


def _mesh_sizes(module: Module | None) -> dict[str, int]:
    """Axis name → size, from the module's ``sdy.mesh`` ops or ``xla.sdy.meshes``."""
    if module is None:
        return {}
    attrs = getattr(module, "attributes", None) or {}
    texts = list((attrs.get("sdy.meshes") or {}).values()) + [str(attrs.get("frontend_attributes") or "")]
    sizes: dict[str, int] = {}
    for text in texts:
        for name, size in _MESH_AXIS_RE.findall(text):
            sizes.setdefault(name, int(size))
    return sizes


def _axis_name(name: str, pre: str | None, size: str | None) -> str:
    return f"{name}:({pre}){size}" if pre else name


def layout_from_text(text: str, rank: int, module: Module | None, mesh_text: str = "") -> Layout | None:
    """The layout a Shardy sharding text (``<@mesh, [{...}, ...]>``) states, if it names one
    per dimension of a rank-``rank`` array."""
    if mesh_text:
        text = text[len(mesh_text):]
    m = _DIMS_RE.search(text)
    if m is None:
        return None
    dims = [d.strip() for d in split_top_level(m.group(1))] if m.group(1).strip() else []
    if len(dims) != rank:
        return None
    sizes = _mesh_sizes(module)
    sizes.update((name, int(size)) for name, size in _MESH_AXIS_RE.findall(mesh_text))
    axes: list[tuple[str, ...]] = []
    counts: list[int] | None = []
    for dim in dims:
        names = tuple(_axis_name(*a) for a in _AXIS_RE.findall(dim))
        axes.append(names)
        if counts is None:
            continue
        n = 1
        for name, pre, size in _AXIS_RE.findall(dim):
            if pre:
                n *= int(size)
            elif name in sizes:
                n *= sizes[name]
            else:
                counts = None
                break
        if counts is not None:
            counts.append(n)
    return Layout(tuple(axes), tuple(counts) if counts is not None else None)


def layout_from_sharding(sharding: Sharding, rank: int, module: Module | None) -> Layout | None:
    """The layout an HLO ``sharding={...}`` states (None: manual, maximal, unknown)."""
    if sharding.named is not None:
        # ``mesh['x'=8], [{}, {'x'}, {}]`` or ``mesh[], replicated`` (jax 0.12's XLA)
        mesh = _NAMED_MESH_RE.match(sharding.named)
        rest = sharding.named[mesh.end():] if mesh else sharding.named
        if rest.strip(" ,") == "replicated":
            return Layout(((),) * rank, (1,) * rank)
        return layout_from_text(sharding.named, rank, module, mesh.group(0) if mesh else "")
    if sharding.kind == "replicated":
        return Layout(((),) * rank, (1,) * rank)
    if sharding.kind == "tiled" and len(sharding.tile_shape) >= rank:
        return Layout(None, tuple(sharding.tile_shape[:rank]))
    return None


def _frontend(instr: Instruction) -> dict:
    return instr.attributes["frontend_attributes"] if "frontend_attributes" in instr.attributes else {}


def stated_layout(instr: Instruction, rank: int) -> Layout | None:
    """The layout an op's own annotation states, Shardy's first (it names the axes)."""
    module = instr.module
    sdy = _frontend(instr).get("xla.sdy.sharding")
    if sdy:
        found = layout_from_text(str(sdy), rank, module)
        if found is not None:
            return found
    if instr.opcode == "sdy.sharding_constraint" and "sharding" in instr.attributes:
        return layout_from_text(instr.attributes.raw("sharding") or str(instr.attributes["sharding"]), rank, module)
    arg_attrs = instr.dialect_data.get("arg_attrs") if instr.opcode == "parameter" else None
    if isinstance(arg_attrs, str) and "sdy.sharding" in arg_attrs:
        return layout_from_text(arg_attrs[arg_attrs.find("sdy.sharding"):], rank, module)
    if "sharding" in instr.attributes:
        try:
            sharding = instr.attributes["sharding"]
        except ValueError:
            return None
        if isinstance(sharding, Sharding):
            return layout_from_sharding(sharding, rank, module)
    return None


# Ops a value's layout passes through unchanged on its way from the weight to its slice.
_LAYOUT_KEEPING = frozenset({"convert", "copy", "bitcast", "opt-barrier", "slice"})


def source_layout(value: Instruction) -> Layout | None:
    """How ``value`` is laid out: the first annotation found going up through ops that keep
    the layout (a weight cast to the compute dtype is laid out as the weight)."""
    if not isinstance(value, Instruction) or not value.shape.is_array:
        return None  # an array a fusion computes (_fusions.FusedValue): no annotations left to read
    rank = value.shape.rank
    cur = value
    for _ in range(16):
        found = stated_layout(cur, rank)
        if found is not None:
            return found
        if cur.opcode not in _LAYOUT_KEEPING or len(cur.operands) != 1 or cur.operands[0].shape.rank != rank:
            return None
        cur = cur.operands[0]
    return None


def _dim_change(old, new) -> str:
    """``same``, ``gathered`` (fewer shards: new is a prefix of old), ``sliced`` (more) or ``moved``."""
    if old == new:
        return "same"
    if isinstance(old, tuple):
        if old[:len(new)] == new:
            return "gathered"
        if new[:len(old)] == old:
            return "sliced"
        return "moved"
    if old % new == 0:
        return "gathered"
    if new % old == 0:
        return "sliced"
    return "moved"


def reshard(old: Layout, new: Layout, global_bytes: int) -> Reshard | None:
    """The collective the partitioner emits to take an array of ``global_bytes`` from
    ``old`` to ``new``: one all-gather when dimensions only lose (minor) axes, however
    many; nothing when they only gain some (each device slices what it holds); a
    collective-permute when shards move between devices.  None: no collective."""
    if old.axes is not None and new.axes is not None:
        pairs = list(zip(old.axes, new.axes))
    elif old.counts is not None and new.counts is not None:
        pairs = list(zip(old.counts, new.counts))
    else:
        return None if old == new else Reshard("all-gather", 0)  # unknown sizes: one, bytes unknown
    changes = {_dim_change(a, b) for a, b in pairs}
    if changes <= {"same", "sliced"}:
        return None
    before, after = old.shards, new.shards
    if "moved" in changes or "sliced" in changes:
        return Reshard("collective-permute", global_bytes // after if after else 0)
    received = global_bytes // after - global_bytes // before if before and after else 0
    return Reshard("all-gather", max(received, 0))
