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
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...ir import Computation, Instruction, Module, Shape, Sharding, is_partitioned
from ...dialects.split import split_top_level
from ...dialects.shardy import SdySharding, decode, mesh_axes

if TYPE_CHECKING:  # a value a fusion computes, which has no layout left to read
    from .fusions import FusedValue



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
    """The collectives the partitioner emits to go from one layout to the next: ``count`` of
    ``opcode`` (an all-gather per dimension that loses shards), receiving ``bytes_moved`` per
    device in all."""

    opcode: str
    bytes_moved: int  # bytes each device receives
    count: int = 1


# Per module, what is read once: axis sizes, partitioned or not, the computations one device runs.
_MESHES: "weakref.WeakKeyDictionary[Module, dict[str, int]]" = weakref.WeakKeyDictionary()
_LOCAL: "weakref.WeakKeyDictionary[Module, frozenset[int]]" = weakref.WeakKeyDictionary()
# ``sdy.mesh @mesh = <["x"=8]>`` and the generic ``"sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, ...}>``.
_SDY_MESH_LINE = re.compile(r"sdy\.mesh\b[^\n]*")


def _mesh_sizes(module: Module | None) -> dict[str, int]:
    """Axis name → size, from the module's ``sdy.mesh`` ops (pretty or generic) or ``xla.sdy.meshes``."""
    if module is None:
        return {}
    found = _MESHES.get(module)
    if found is not None:
        return dict(found)
    attrs = getattr(module, "attributes", None) or {}
    texts = list((attrs.get("sdy.meshes") or {}).values()) + [str(attrs.get("frontend_attributes") or "")]
    if module.dialect == "stablehlo" and not attrs.get("sdy.meshes"):
        # The generic form declares its meshes in ops the parser keeps no symbol table of.
        texts += _SDY_MESH_LINE.findall(module.source or "")
    sizes: dict[str, int] = {}
    for text in texts:
        for name, size in mesh_axes(text):
            sizes.setdefault(name, size)
    _MESHES[module] = sizes
    return dict(sizes)


def holds_local(instr: Instruction) -> bool:
    """Whether ``instr``'s shape is one device's piece of the value (inside a shard_map body, or
    in a partitioned module), not the global array a partitioner still has to split."""
    module = getattr(instr, "module", None)
    comp = getattr(instr, "computation", None)
    if module is None or comp is None:
        return True  # a fusion's value of optimized HLO (_fusions.FusedValue)
    if is_partitioned(module) or _is_manual(instr):
        return True
    local = _LOCAL.get(module)
    if local is None:
        local = _local_computations(module)
        _LOCAL[module] = local
    return id(comp) in local


def _local_computations(module: Module) -> frozenset[int]:
    """The computations one device runs on its own pieces: shard_map bodies (StableHLO regions
    of ``sdy.manual_computation``; HLO ``manual_computation_body`` calls; after Shardy's import,
    computations of ``sharding={manual}`` ops) and whatever they call or hold."""
    local: set[int] = set()
    work = []
    for comp in module.computations.values():
        parent = comp.parent
        if parent is not None and parent.opcode == "sdy.manual_computation":
            work.append(comp)
        elif module.dialect == "hlo" and "manual_computation_body" in comp.name:
            work.append(comp)
        elif module.dialect == "hlo" and comp.parameters and all(_is_manual(i) for i in comp.parameters):
            work.append(comp)
    while work:
        comp = work.pop()
        if id(comp) in local:
            continue
        local.add(id(comp))
        for instr in comp.instructions:
            work.extend(instr.called_computations)
    if module.dialect == "stablehlo":
        # Nested regions (a while inside a shard_map body) hang off their op, not a call.
        for comp in module.computations.values():
            cur = comp.parent
            while cur is not None and id(comp) not in local:
                if cur.computation is not None and id(cur.computation) in local:
                    local.add(id(comp))
                cur = cur.computation.parent if cur.computation is not None else None
    return frozenset(local)


def _is_manual(instr: Instruction) -> bool:
    sharding = instr.attributes.decoded("sharding")
    return isinstance(sharding, Sharding) and sharding.kind == "manual"


def shards_of(instr: Instruction, layout: "Layout | None" = None, callers: dict[str, list[Instruction]] | None = None,
              result: int = 0) -> int:
    """Into how many pieces ``instr``'s value is split across devices: 1 where its shape is
    already one device's (``holds_local``), else the shard count of its own annotation, of
    ``layout`` (what the caller knows it is), or of where it comes from (``source_layout``,
    out of loops and calls given ``callers``)."""
    if holds_local(instr):
        return 1
    if instr.shape.is_array and not result:
        own = stated_layout(instr, instr.shape.rank)
        if own is not None and own.shards:
            return own.shards
    if layout is not None and layout.shards:
        return layout.shards
    found = source_layout(instr, callers, result)
    return found.shards if found is not None and found.shards else 1


def layout_of(sharding: SdySharding, rank: int, module: Module | None) -> Layout | None:
    """The layout a Shardy sharding states for a rank-``rank`` array (None: it names another
    number of dimensions).  A sharding that carries its mesh (jax 0.12's ``{mesh['x'=8,'y'=1],
    [{}, {'y'}]}``) gives the axes' sizes itself: an axis of size 1 splits nothing, whatever the
    module declares."""
    if sharding.replicated_all:
        return Layout(((),) * rank, (1,) * rank)
    if len(sharding.dims) != rank:
        return None
    axes = tuple(tuple(str(axis) for axis in dim.axes) for dim in sharding.dims)
    return Layout(axes, sharding.shards(rank, _mesh_sizes(module)))


def layout_from_text(text: str, rank: int, module: Module | None) -> Layout | None:
    """The layout the first Shardy sharding in ``text`` states (``shardy.decode``), if any."""
    sharding = decode(text)
    return None if sharding is None else layout_of(sharding, rank, module)


def layout_from_sharding(sharding: Sharding, rank: int, module: Module | None) -> Layout | None:
    """The layout an HLO ``sharding={...}`` states (None: manual, maximal, unknown)."""
    if sharding.named is not None:
        # ``mesh['x'=8], [{}, {'x'}, {}]`` or ``mesh[], replicated`` (jax 0.12's XLA)
        return layout_from_text("{" + sharding.named + "}", rank, module)
    if sharding.kind == "replicated":
        return Layout(((),) * rank, (1,) * rank)
    if sharding.kind == "tiled" and len(sharding.tile_shape) >= rank:
        return Layout(None, tuple(sharding.tile_shape[:rank]))
    return None


def _frontend(instr: Instruction) -> dict[Any, Any]:
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
    arg_attrs = _arg_attrs(instr) if instr.opcode == "parameter" else None
    if isinstance(arg_attrs, str) and "sdy.sharding" in arg_attrs:
        return layout_from_text(arg_attrs[arg_attrs.find("sdy.sharding"):], rank, module)
    sharding = instr.attributes.decoded("sharding")
    if isinstance(sharding, Sharding):
        return layout_from_sharding(sharding, rank, module)
    return None


def _arg_attrs(param: Instruction) -> str | None:
    """A function argument's attributes as text: on the argument (pretty form) or, in the
    generic form, entry ``parameter_number`` of its ``func.func``'s ``arg_attrs``."""
    own = param.mlir_arg_attrs
    if own is not None or param.computation is None:
        return own
    func = param.computation.func_op
    number = param.attributes.get("parameter_number")
    if func is None or not isinstance(number, int) or "arg_attrs" not in func.attributes:
        return None
    text = func.attributes.raw("arg_attrs") or ""
    start, end = text.find("["), text.rfind("]")
    entries = split_top_level(text[start + 1:end]) if 0 <= start < end else []
    return entries[number] if number < len(entries) else None


# Ops a value's layout passes through unchanged on its way from the weight to its slice.
_LAYOUT_KEEPING = frozenset({"convert", "copy", "bitcast", "opt-barrier", "slice"})


def source_layout(value: Instruction | FusedValue, callers: dict[str, list[Instruction]] | None = None,
                  result: int = 0) -> Layout | None:
    """How ``value`` is laid out: the first annotation found going up through ops that keep
    the layout (a weight cast to the compute dtype is laid out as the weight) and, given
    ``callers`` (computation name → its callers), out of the function or loop body it is
    computed in: a scanned weight is one step of a stacked array (``dynamic_index_in_dim``:
    a dynamic-slice of the leading dimension, reshaped without it, in a function of its
    own, in the loop's body), laid out as the stack without its leading dimensions.  ``result``:
    which result of a multi-result op (a barrier's, a tuple's element) the value is."""
    if not isinstance(value, Instruction):
        return None  # an array a fusion computes (_fusions.FusedValue): no annotations left to read
    shape = value.shape.tuple_shapes[result] if value.shape.is_tuple and result < len(value.shape.tuple_shapes) \
        else value.shape
    if not shape.is_array or (result and not value.shape.is_tuple and value.num_results <= result):
        return None
    rank = shape.rank
    cur, dropped = value, 0  # dropped: leading dimensions of cur that value lacks
    for _ in range(32):
        if result == 0 and cur.shape.is_array:
            found = stated_layout(cur, rank + dropped)
            if found is not None:
                return _without_leading(found, dropped)
        if cur.opcode in _LAYOUT_KEEPING and result == 0 and not (cur.opcode == "opt-barrier"
                                                                  and len(cur.operands) != 1):
            if len(cur.operands) != 1 or result_shape_of(cur.operands[0], cur.operand_results[0]).rank != rank + dropped:
                return None
            cur, result = cur.operands[0], cur.operand_results[0]
            continue
        if callers is None:
            return None
        up = _one_step_up(cur, result, dropped, callers)
        if up is None:
            return None
        cur, result, dropped = up
    return None


def result_shape_of(value: Instruction, result: int) -> Shape:
    """The shape of result ``result`` of ``value`` (an element of a tuple-shaped op)."""
    shape = value.shape
    return shape.tuple_shapes[result] if shape.is_tuple and result < len(shape.tuple_shapes) else shape


def _without_leading(layout: Layout, dropped: int) -> Layout | None:
    """``layout`` of a stack, for one of its elements: its leading ``dropped`` dimensions,
    which must be whole on every device, left out."""
    if not dropped:
        return layout
    if (layout.axes is not None and any(layout.axes[:dropped])) or (
            layout.counts is not None and any(n != 1 for n in layout.counts[:dropped])):
        return None
    return Layout(layout.axes[dropped:] if layout.axes is not None else None,
                  layout.counts[dropped:] if layout.counts is not None else None)


def _one_step_up(cur: Instruction, result: int, dropped: int,
                 callers: dict[str, list[Instruction]]) -> tuple[Instruction, int, int] | None:
    """Where the value (result ``result`` of ``cur``) comes from, one op, call or loop up."""
    if cur.opcode == "reshape" and len(cur.operands) == 1:
        # Only a reshape that drops leading dimensions of size 1 (the scanned step's index).
        dims, below = cur.shape.dims, cur.operands[0].shape.dims
        extra = len(below) - len(dims)
        if extra <= 0 or tuple(below[extra:]) != tuple(dims) or any(n != 1 for n in below[:extra]):
            return None
        return cur.operands[0], cur.operand_results[0], dropped + extra
    if cur.opcode == "dynamic-slice" and cur.operands:
        # Cutting only dimensions the value leaves out anyway.
        below = cur.operands[0].shape.dims
        if len(below) != len(cur.shape.dims) or any(
                a != b for d, (a, b) in enumerate(zip(below, cur.shape.dims)) if d >= dropped):
            return None
        return cur.operands[0], cur.operand_results[0], dropped
    if cur.opcode == "get-tuple-element" and cur.operands and result == 0:
        index = cur.attributes.get("index")
        return (cur.operands[0], index, dropped) if isinstance(index, int) else None
    if cur.opcode == "tuple":
        return (cur.operands[result], cur.operand_results[result], dropped) if result < len(cur.operands) else None
    if cur.opcode == "opt-barrier":  # a barrier of several values (jax.checkpoint's): each as it went in
        if len(cur.operands) == 1 and cur.shape.is_tuple:  # HLO: one tuple through
            return cur.operands[0], result, dropped
        if result < len(cur.operands):
            return cur.operands[result], cur.operand_results[result], dropped
        return None
    if cur.opcode in ("call", "while"):
        if cur.opcode == "while":  # a value the loop carries: laid out as it went in
            if cur.shape.is_tuple and len(cur.operands) == 1:  # HLO: one carried tuple
                return cur.operands[0], result, dropped
            if result >= len(cur.operands):
                return None
            return cur.operands[result], cur.operand_results[result], dropped
        callee = cur.called_computations[0] if len(cur.called_computations) == 1 else None
        returned = _returned(callee, result) if callee is not None else None
        return (returned[0], returned[1], dropped) if returned is not None else None
    if cur.opcode == "parameter":
        comp = cur.computation
        number = cur.attributes.get("parameter_number")
        if comp is None or not isinstance(number, int):
            return None
        sites = [comp.parent] if comp.parent is not None else callers.get(comp.name, [])
        if len(sites) != 1 or sites[0].opcode not in ("call", "while"):
            return None
        site = sites[0]
        if site.opcode == "while" and comp.parent is None:
            # HLO: the loop's body and condition take its one operand, the carried tuple.
            number = 0
        if number >= len(site.operands):
            return None
        # ``result`` (an element of a tuple parameter) carries on to the operand fed in.
        fed, fed_result = site.operands[number], site.operand_results[number]
        return (fed, fed_result if not result else result, dropped) if not (result and fed_result) else None
    return None


def _returned(callee: Computation, result: int) -> tuple[Instruction, int] | None:
    """(value, result) a called computation returns as its result ``result``."""
    root = callee.root
    if root is None:
        return None
    if root.opcode in ("tuple", "func.return", "stablehlo.return", "return"):
        if result >= len(root.operands):
            return None
        return root.operands[result], root.operand_results[result]
    return (root, 0) if result == 0 else None


def _dim_change(old_axes: tuple[str, ...] | None, new_axes: tuple[str, ...] | None, old_count: int | None,
                new_count: int | None) -> str:
    """``same``, ``gathered`` (fewer shards: new axes a prefix of old), ``sliced`` (more) or
    ``moved``; where the mesh's sizes are known an axis of size 1 splits nothing."""
    if old_count is not None and new_count is not None:
        if old_count == new_count:
            return "same" if old_count == 1 or old_axes is None or old_axes == new_axes else "moved"
        if old_axes is None or new_axes is None:
            return "gathered" if old_count % new_count == 0 else "sliced" if new_count % old_count == 0 else "moved"
        if new_count == 1 or old_axes[:len(new_axes)] == new_axes:
            return "gathered" if old_count > new_count else "moved"
        if old_count == 1 or new_axes[:len(old_axes)] == old_axes:
            return "sliced" if new_count > old_count else "moved"
        return "moved"
    if old_axes == new_axes:
        return "same"
    assert old_axes is not None and new_axes is not None, "sizes or axes are known (reshard checks)"
    if old_axes[:len(new_axes)] == new_axes:
        return "gathered"
    if new_axes[:len(old_axes)] == old_axes:
        return "sliced"
    return "moved"


def reshard(old: Layout, new: Layout, global_bytes: int) -> Reshard | None:
    """The collectives the partitioner emits to take an array of ``global_bytes`` from
    ``old`` to ``new``: an all-gather per dimension that only loses (minor) axes, however
    many (XLA gathers one dimension at a time); nothing when they only gain some (each device
    slices what it holds); a collective-permute when shards move between devices.  None: no
    collective."""
    rank = len(old.axes if old.axes is not None else old.counts or ())
    if ((old.axes is None or new.axes is None) and (old.counts is None or new.counts is None)) or \
            rank != len(new.axes if new.axes is not None else new.counts or ()):
        return None if old == new else Reshard("all-gather", 0)  # unknown sizes: one, bytes unknown
    changes = [_dim_change(old.axes[d] if old.axes is not None and new.axes is not None else None,
                           new.axes[d] if old.axes is not None and new.axes is not None else None,
                           old.counts[d] if old.counts is not None and new.counts is not None else None,
                           new.counts[d] if old.counts is not None and new.counts is not None else None)
               for d in range(rank)]
    if set(changes) <= {"same", "sliced"}:
        return None
    before, after = old.shards, new.shards
    if "moved" in changes or "sliced" in changes:
        return Reshard("collective-permute", global_bytes // after if after else 0)
    received = global_bytes // after - global_bytes // before if before and after else 0
    return Reshard("all-gather", max(received, 0), changes.count("gathered"))


def slice_permutes(layout: Layout | None, dim: int, start: int, limit: int, size: int,
                   piece_bytes: int) -> Reshard | None:
    """The collective-permutes the partitioner emits to slice ``[start, limit)`` out of a
    dimension of ``size`` split into shards by ``layout``, the piece split the same way: each
    device must receive the part of its piece that another device holds, one collective-permute
    per distinct distance between holder and receiver (XLA's halo exchange), each moving one
    device's share of the piece (``piece_bytes`` is the whole piece's).  Exact for a dimension
    in 2 shards (MaxText's ``fsdp_transpose``-like axis on F); for more shards XLA sometimes
    moves the pieces another way and this is an estimate (docs/cost-model.md)."""
    if layout is None or layout.counts is None or dim >= len(layout.counts):
        return None
    n = layout.counts[dim]
    if n <= 1 or size % n or (limit - start) % n:
        return None
    held, wanted = size // n, (limit - start) // n
    offsets: set[int] = set()
    for i in range(n):
        lo, hi = start + i * wanted, start + (i + 1) * wanted
        offsets.update(src - i for src in range(lo // held, (hi - 1) // held + 1))
    offsets.discard(0)
    if not offsets:
        return None
    shards = layout.shards or n
    return Reshard("collective-permute", len(offsets) * (piece_bytes // shards), len(offsets))
