"""The cyclic garbage collector around a parse: paused while it runs, and the
objects it built put where the collector will still find them.

A parse allocates hundreds of thousands of objects and frees none of them;
with the collector running it would rescan the growing heap again and again
(a third of the parse time, and super-linear), so it is paused.  Afterwards
all of the module sits in the youngest generation, where the first
allocation after ``gc.enable()`` would traverse all of it (10-15 % of a
parse, paid by whatever runs next).  ``gc.freeze()`` + ``gc.unfreeze()``
moves it to the oldest generation in constant time instead.

But CPython decides when to collect the oldest generation from the objects
that *reached* it through the younger ones: objects moved there by
``unfreeze`` are never counted, so a process that parses modules one after
another and drops them (the jit hook, ``install()``, ``hlo-lint`` over a
large dump folder) never collects them.  Modules are full of reference
cycles (graph nodes and instructions refer to each other), so only the
collector can free them.  This module keeps the count CPython does not: the
objects promoted since the last full collection, and runs one itself before
the next parse once they reach a quarter of what the last full collection
kept alive (CPython's own rule for the oldest generation), or ``_FLOOR``
while the heap is small.  Memory stays bounded by the live heap plus that
much garbage, and a process that keeps its modules pays one full collection
per geometric growth step, as it would without the promotion.
"""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# About 40 MB of parsed modules (some 170 bytes per tracked object): below
# this, garbage is left for the next check rather than collected.
_FLOOR = 250_000

_lock = threading.Lock()
_promoted = 0  # objects moved to the oldest generation since the last full collection
_alive = 0  # tracked objects the last full collection run here left alive
_full_collections_seen = -1  # gc.get_stats()[2]["collections"] when _promoted was last reset


def _full_collections() -> int:
    return gc.get_stats()[2]["collections"]


def collect_if_due() -> bool:
    """Run a full collection if enough promoted objects may be garbage; whether it ran."""
    global _promoted, _alive, _full_collections_seen
    with _lock:
        full = _full_collections()
        if full != _full_collections_seen:
            # The interpreter collected the oldest generation itself: it has looked at
            # everything promoted so far.
            _full_collections_seen = full
            _promoted = 0
        if _promoted <= max(_FLOOR, _alive // 4):
            return False
        gc.collect()
        _alive = _tracked_objects()
        _promoted = 0
        _full_collections_seen = _full_collections()
        return True


def _tracked_objects() -> int:
    """How many objects the collector tracks (constant time: freeze counts them as it moves them)."""
    if gc.get_freeze_count() != 0:
        return _alive  # the application keeps objects frozen: leave them so
    gc.freeze()
    n = gc.get_freeze_count()
    gc.unfreeze()
    return n


def promote_young_objects() -> None:
    """Move every tracked object to the oldest generation, and count them (see above).

    Skipped when the application keeps objects frozen itself (unfreeze would
    release those too).
    """
    global _promoted
    if gc.get_freeze_count() != 0:
        return
    # The youngest generation's count: objects allocated (less those freed) since
    # its last collection, i.e. while the collector was paused.  freeze() moves
    # the older generations too, but those were counted when they got there.
    young = gc.get_count()[0]
    gc.freeze()
    gc.unfreeze()
    with _lock:
        _promoted += young


@contextmanager
def collector_paused(promote: bool = True) -> Iterator[None]:
    """The collector paused for a parse; afterwards what it built promoted (``promote``)
    or left in the youngest generation.  A full collection runs first when due."""
    was_enabled = gc.isenabled()
    if was_enabled:
        collect_if_due()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if promote:
                promote_young_objects()
            gc.enable()
