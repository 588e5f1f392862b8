"""Replica groups in every spelling XLA and StableHLO write, as one value.

``{{0,1},{2,3}}`` lists the groups; ``[2,4]<=[4,2]T(1,0)`` reshapes a
transposed iota of device ids into groups; ``mesh['a'=2,'b'=4] {'b'}`` (HLO)
and ``#stablehlo.replica_group_mesh_axes<mesh = ..., axes = [...]>`` group
the devices of a mesh that differ only along the named axes (or sub-axes
``'a':(pre)size``), optionally through ``device_ids=(...)`` (a list or an
iota).  ``DeviceGroups`` is the decoded value of all of them: a sequence of
device-id tuples, so that collectives whose groups are written differently
but mean the same devices compare equal.

The compact forms are checked for their own arithmetic and capped at
``MAX_DEVICES`` devices before anything is expanded, and they are expanded
only when the groups are first read; explicit lists are taken as written
(XLA's own tests omit ``num_partitions``, so nothing is checked against the
module header).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

MAX_DEVICES = 1 << 20


class DeviceGroupsError(ValueError):
    """Compact groups whose arithmetic does not hold, or that are too large to expand."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Groups = tuple[tuple[int, ...], ...]
# Groups of at most this many devices in all are shown in full by repr().
_SHOWN_DEVICES = 64


class DeviceGroups(Sequence[Any]):
    """Device-id groups, expanded on first use.

    ``num_groups`` and ``group_size`` (None for explicit groups of different
    sizes) are known without expanding; ``form`` is ``explicit``, ``iota`` or
    ``mesh``.  Equal to another ``DeviceGroups`` or to a tuple of tuples when
    the groups are the same, in any spelling.
    """

    __slots__ = ("num_groups", "group_size", "form", "_build", "_groups")

    def __init__(self, num_groups: int, group_size: int | None, form: str,
                 build: Callable[[], Groups] | None = None, groups: Groups | None = None) -> None:
        self.num_groups = num_groups
        self.group_size = group_size
        self.form = form
        self._build = build
        self._groups = groups

    @property
    def groups(self) -> Groups:
        if self._groups is None:
            assert self._build is not None
            self._groups = self._build()
            self._build = None
        return self._groups

    @property
    def num_devices(self) -> int:
        if self.group_size is not None:
            return self.num_groups * self.group_size
        return sum(len(g) for g in self.groups)

    def __len__(self) -> int:
        return self.num_groups

    def __getitem__(self, index: Any) -> Any:
        return self.groups[index]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self.groups)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DeviceGroups):
            if (self.num_groups, self.group_size) != (other.num_groups, other.group_size) \
                    and None not in (self.group_size, other.group_size):
                return False
            return self.groups == other.groups
        if isinstance(other, (tuple, list)):
            try:
                return self.groups == tuple(tuple(g) for g in other)
            except TypeError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.groups)

    def __repr__(self) -> str:
        # A function of the value alone, never of whether it was expanded yet:
        # messages and reports must not depend on what ran before (goldens,
        # and the processes of a multi-host job, compare them byte for byte).
        if self.num_groups * (self.group_size or 1) <= _SHOWN_DEVICES:
            return f"DeviceGroups({self.groups!r})"
        return f"DeviceGroups({self.form}: {self.num_groups} groups of {self.group_size})"


# ---- builders ---------------------------------------------------------------
def explicit(groups: Sequence[Sequence[int]]) -> DeviceGroups:
    """``{{0,1},{2,3}}``: the groups as written."""
    g = tuple(tuple(int(x) for x in grp) for grp in groups)
    sizes = {len(x) for x in g}
    return DeviceGroups(len(g), sizes.pop() if len(sizes) == 1 else (0 if not g else None), "explicit", groups=g)


def _product(sizes: Sequence[int], what: str) -> int:
    n = 1
    for s in sizes:
        if s < 0:
            raise DeviceGroupsError(f"negative {what} {s}")
        n *= s
        if n > MAX_DEVICES:
            raise DeviceGroupsError(
                f"{what}s {list(sizes)} describe more than {MAX_DEVICES} devices (2**20), more than "
                "hlo_passes expands")
    return n


def iota_devices(dims: Sequence[int], perm: Sequence[int] | None) -> tuple[int, Callable[[], list[int]]]:
    """Size and a lazy flattening of ``iota(dims).transpose(perm)`` (``[4,2]T(1,0)``)."""
    dims = list(dims)
    perm = list(range(len(dims))) if perm is None else list(perm)
    if sorted(perm) != list(range(len(dims))):
        raise DeviceGroupsError(f"iota transpose {perm} is not a permutation of {len(dims)} dimensions")
    total = _product(dims, "iota dimension")
    return total, lambda: transposed_iota(dims, perm)


def transposed_iota(dims: Sequence[int], perm: Sequence[int]) -> list[int]:
    """Flattened ``iota(dims).transpose(perm)``."""
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    values = [0]
    for p in perm:
        size, stride = dims[p], strides[p]
        values = [v + k * stride for v in values for k in range(size)]
    return values


def iota(shape: Sequence[int], dims: Sequence[int], perm: Sequence[int] | None) -> DeviceGroups:
    """``[groups,size]<=[dims]T(perm)``: the transposed iota, cut into groups.

    XLA 0.10.2 takes the first groups*size devices when the iota holds more;
    fewer than that is no grouping at all.
    """
    if len(shape) != 2:
        raise DeviceGroupsError("iota replica groups need a [groups,group_size] shape")
    n_groups, size = shape
    wanted = _product(shape, "iota replica group dimension")
    total, devices = iota_devices(dims, perm)
    if wanted > total:
        raise DeviceGroupsError(f"iota replica groups [{n_groups},{size}] need {wanted} devices, "
                                f"the iota {list(dims)} has {total}")

    def build() -> Groups:
        flat = devices()
        return tuple(tuple(flat[i * size:(i + 1) * size]) for i in range(n_groups))

    return DeviceGroups(n_groups, size, "iota", build)


AxisRef = tuple[str, int | None, int | None]  # (axis name or index, sub-axis pre-size, size)


def mesh(axes: Sequence[tuple[str, int]], refs: Sequence[AxisRef],
         device_ids: Sequence[int] | tuple[Sequence[int], Sequence[int] | None] | None = None) -> DeviceGroups:
    """Groups of the devices of a mesh that differ only along ``refs``.

    ``axes`` are (name, size), major to minor; a ref names an axis (or its
    index, as digits) and, for a sub-axis ``'a':(pre)size``, its pre-size
    and size.  ``device_ids`` is the device at each mesh position, as a list
    or as an iota ``(dims, perm)``; default: the position itself.
    """
    names = [n for n, _ in axes]
    sizes = [s for _, s in axes]
    for n, s in axes:
        if s < 1:
            raise DeviceGroupsError(f"mesh axis {n!r} has size {s}")
    if len(set(names)) != len(names):
        raise DeviceGroupsError(f"mesh axis names repeat: {names}")
    total = _product(sizes, "mesh axis size")
    ids = _mesh_device_ids(device_ids, total)
    resolved = [_resolve_ref(ref, names, sizes) for ref in refs]  # (axis, pre, size) per ref
    factors = _mesh_factors(names, sizes, resolved)
    selected: list[int] = []
    for a, pre, size in resolved:
        picked = [k for k, (fa, fpre, _) in enumerate(factors) if fa == a and pre <= fpre < pre * size]
        if any(k in selected for k in picked):
            raise DeviceGroupsError(f"axis {names[a]!r} is referred to twice")
        selected.extend(picked)
    others = [k for k in range(len(factors)) if k not in selected]
    group = 1
    for k in selected:
        group *= factors[k][2]
    factor_sizes = [f[2] for f in factors]

    def build() -> Groups:
        # A factor's position in the row-major mesh: factors are in the mesh's order.
        flat = transposed_iota(factor_sizes, others + selected)
        if ids is not None:
            table = ids()
            flat = [table[i] for i in flat]
        return tuple(tuple(flat[k:k + group]) for k in range(0, len(flat), group))

    return DeviceGroups(total // group, group, "mesh", build)


def _mesh_device_ids(device_ids: Any, total: int) -> Callable[[], list[int]] | None:
    """The device at each mesh position, computed when asked (None: the position itself)."""
    if device_ids is None:
        return None
    if isinstance(device_ids, tuple) and len(device_ids) == 2 and isinstance(device_ids[0], (list, tuple)) \
            and (device_ids[1] is None or isinstance(device_ids[1], (list, tuple))):
        n, ids = iota_devices(*device_ids)
        if n != total:
            raise DeviceGroupsError(f"mesh has {total} devices but device_ids lists {n}")
        return ids
    listed = [int(x) for x in device_ids]
    if len(listed) != total:
        raise DeviceGroupsError(f"mesh has {total} devices but device_ids lists {len(listed)}")
    return lambda: listed


def _resolve_ref(ref: AxisRef, names: list[str], sizes: list[int]) -> tuple[int, int, int]:
    """(axis index, pre-size, size) of an axis or sub-axis reference, checked against the mesh."""
    name, pre, size = ref
    if name in names:
        a = names.index(name)
    elif name.isdigit():
        a = int(name)
        if a >= len(names):
            raise DeviceGroupsError(f"axis index {a} is out of bounds for mesh with {len(names)} axes")
    else:
        raise DeviceGroupsError(f"{name!r} is not a valid axis name or index")
    full = sizes[a]
    if pre is None:
        return a, 1, full
    if pre < 1 or size is None or size < 1:
        raise DeviceGroupsError(f"sub-axis {name}:({pre}){size} needs positive sizes")
    if size >= full:
        raise DeviceGroupsError(f"sub-axis size must be strictly less than the full axis size "
                                f"({name}:({pre}){size} of an axis of {full})")
    if full % (pre * size):
        raise DeviceGroupsError(f"sub-axis {name}:({pre}){size} does not divide the axis size {full}")
    return a, pre, size


def _mesh_factors(names: list[str], sizes: list[int], resolved: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Each axis cut at the sub-axis boundaries the refs use: factors (axis, pre, size), major to minor."""
    cuts: list[set[int]] = [{1, s} for s in sizes]
    for a, pre, size in resolved:
        cuts[a].update((pre, pre * size))
    factors: list[tuple[int, int, int]] = []
    for a, points in enumerate(cuts):
        ordered = sorted(points)
        for lo, hi in zip(ordered, ordered[1:]):
            if hi % lo:
                raise DeviceGroupsError(f"sub-axes of {names[a]!r} overlap")
            factors.append((a, lo, hi // lo))
    return factors
