"""Whether a ragged-dot's operands are whole on each device, so a kernel call can take them.

The lowering runs before SPMD partitioning (``hlo_passes.jit`` hands it jax's
StableHLO).  XLA's partitioners see through a ragged-dot (its operands may stay
split: expert-sharded weights give each device its experts' rows), but not
through a custom call or a ``func.call`` to a Mosaic kernel: those they
replicate, gathering every operand that is split and adding collectives the
program did not have (issue 32: 3 → 5 all-gathers in an expert-sharded training
step).  A kernel therefore takes a ragged-dot only where nothing can be split:

* the module is partitioned HLO already (an after-SPMD dump, optimized HLO):
  every shape is what one device holds;
* no sharding in the module splits a value over more than one device (no mesh
  axis of size > 1 named in any sharding, no GSPMD tile over more than one
  device): propagation has nothing to spread, every value is replicated;
* the ragged-dot is inside a shard_map body (``sdy.manual_computation``, HLO's
  ``manual_computation_body``) that is manual over every mesh axis a sharding
  splits over: its values are the local pieces.

Anywhere else the ragged-dot stays XLA's, which partitions it as jax.jit does.  The GMM
lowerings ask this, and so does the fused expert-FFN rule, whose kernel call is placed
the same way.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

from ..ir import Computation, Instruction, Module, is_partitioned
from ..dialects.shardy import mesh_axes, unescaped

# The mesh declarations themselves (their axis names are not shardings).
_MESH_DECL = re.compile(r"""(?:sdy\.mesh\b[^\n]*|#sdy\.mesh<[^>]*>|mesh\[[^\]]*\])""")
# The braces a sharding names axes in (``[{"x", ?}, {}]``, ``{'x'}``, ``replicated={"y"}``,
# ``manual_axes={"x"}``), and a quoted axis name in them (sub-axes: ``"x":(1)2``).
_BRACES = re.compile(r"\{([^{}]*)\}")
_AXIS_USE = re.compile(r"""["']([^"']+)["']""")
# A GSPMD tile: ``devices=[8,1]<=[8]``, ``devices=[2,1,4]0,1,...last_tile_dim_replicate``.
_TILE = re.compile(r"devices=\[([\d,]+)\]([^}]*)")
_LAST_TILE_DIMS = re.compile(r"last_tile_dims=\{([^}]*)\}")
@dataclass(frozen=True)
class _Splits:
    """What splits values in a module: the mesh axes of size > 1 its shardings name, and
    whether a GSPMD tile splits over unnamed devices (neither: nothing is split); nothing
    is split either in a partitioned module, whose values are each device's pieces."""

    axes: frozenset[str]
    tiled: bool
    partitioned: bool

    @property
    def any(self) -> bool:
        """Whether some value may be split across devices where the module's ops run."""
        return not self.partitioned and (bool(self.axes) or self.tiled)


_SPLITS: "weakref.WeakKeyDictionary[Module, _Splits]" = weakref.WeakKeyDictionary()


def forget(module: Module) -> None:
    """Read ``module``'s shardings afresh at the next ``refusal`` (a lowering starts)."""
    _SPLITS.pop(module, None)


def refusal(instr: Instruction) -> str | None:
    """Why a kernel call cannot replace ``instr`` without the partitioner gathering its
    operands (they may be split across devices), or None when they are whole on each device."""
    module = instr.module
    if module is None:
        return None
    splits = _splits(module)
    if not splits.any:
        return None
    manual = _manual_axes(instr)
    if manual is not None and splits.axes <= manual and not splits.tiled:
        return None
    if splits.tiled:
        what = "a GSPMD sharding tiles values over several devices"
    else:
        axes = sorted(splits.axes - (manual or set()))
        what = f"shardings split values over mesh axis{'es' * (len(axes) > 1)} " + ", ".join(f'"{a}"' for a in axes)
    return (f"its operands may be split across devices ({what}): the partitioner would replicate a kernel "
            "call and gather them; it stays a ragged-dot, partitioned as jax.jit partitions it")


def _splits(module: Module) -> _Splits:
    found = _SPLITS.get(module)
    if found is None:
        found = _SPLITS[module] = _read_splits(module)
    return found


def _read_splits(module: Module) -> _Splits:
    if is_partitioned(module):
        return _Splits(frozenset(), False, True)
    # The text the module was read from: the passes before the lowering add no sharding that splits
    # (they keep those of the ops they replace), so it says no less, and nothing is printed for it.
    text = unescaped(module.source or module.to_text())
    sizes = {name: size for decl in _MESH_DECL.findall(text) for name, size in mesh_axes(decl)}
    shardings = _MESH_DECL.sub("", text)
    named = {a for braces in _BRACES.findall(shardings) for a in _AXIS_USE.findall(braces)}
    axes = frozenset(named & {name for name, size in sizes.items() if size > 1})
    # With a Shardy mesh, HLO's GSPMD shardings only restate Shardy's (which XLA reads back):
    # the axes decide.  Without one, a tile over several devices splits what it annotates.
    tiled = not sizes and any(_tile_splits(m) for m in _TILE.finditer(shardings))
    return _Splits(axes, tiled, False)


def _tile_splits(tile: re.Match[str]) -> bool:
    """Whether a GSPMD tile splits an array dimension (its trailing replicated / manual
    subgroup dimensions split nothing)."""
    dims = [int(d) for d in tile.group(1).split(",") if d]
    rest = tile.group(2)
    trailing = 0
    if "last_tile_dim_replicate" in rest:
        trailing = 1
    else:
        named = _LAST_TILE_DIMS.search(rest)
        if named:
            trailing = len([d for d in named.group(1).split(",") if d.strip()])
    return any(d > 1 for d in dims[:len(dims) - trailing])


def _manual_axes(instr: Instruction) -> set[str] | None:
    """The mesh axes manual where ``instr`` runs (the shard_map bodies around it), None outside any."""
    axes: set[str] = set()
    inside = False
    comp: Computation | None = instr.computation
    seen: set[int] = set()
    while comp is not None and id(comp) not in seen:
        seen.add(id(comp))
        parent = comp.parent
        if parent is not None:  # a StableHLO region
            if parent.opcode == "sdy.manual_computation":
                inside = True
                axes.update(str(a) for a in parent.attributes.get("manual_axes", ()))
            comp = parent.computation
            continue
        caller = _hlo_caller(comp)
        if caller is None:
            break
        if "manual_computation_body" in comp.name:
            inside = True
            axes.update(_hlo_manual_axes(caller))
        comp = caller.computation
    return axes if inside else None


def _hlo_caller(comp: Computation) -> Instruction | None:
    module = comp.module
    if module is None:
        return None
    for instr in module.instructions():
        if comp in instr.called_computations:
            return instr
    return None


def _hlo_manual_axes(call: Instruction) -> set[str]:
    """The manual axes of an HLO shard_map body's call: on the ``GlobalToLocalShape`` custom
    calls that feed it (Shardy's export: ``xla.sdy.manual_axes="#sdy<manual_axes{"x"}>"``)."""
    axes: set[str] = set()
    for operand in call.operands:
        if operand.opcode == "get-tuple-element" and operand.operands:  # of a multi-value GlobalToLocalShape
            operand = operand.operands[0]
        attrs = operand.attributes.get("frontend_attributes") if "frontend_attributes" in operand.attributes else None
        if attrs:
            text = unescaped(str(attrs.get("xla.sdy.manual_axes", "")))
            axes.update(re.findall(r'"([^"]+)"', text))
    return axes
