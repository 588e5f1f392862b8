"""HLO's view of the op table (``hlo_passes/ir/op_table.py``): its opcodes, async sugar
(``custom-call-start``) and the ops XLA's parser wants written with a shape."""
from __future__ import annotations

from ...ir.op_table import CALL_ATTRS, KNOWN_ATTRIBUTES, OPCODES, OPS, Trait, with_trait

__all__ = ["CALL_ATTRS", "KNOWN_ATTRIBUTES", "NATIVE_ASYNC", "NO_INFERENCE", "OPCODES", "SELECT_SCATTER_CALLS",
           "async_sugar", "known_invalid"]

# Ops with a native -start/-update/-done form; any other ``X-start`` is async sugar.
NATIVE_ASYNC = frozenset(n for n in OPCODES if n.endswith(("-start", "-update", "-done")))


# These have their own async forms (or none), so ``all-reduce-update`` is no opcode.
_NO_SUGAR = frozenset(n.rpartition("-")[0] for n in NATIVE_ASYNC)


def async_sugar(opcode: str) -> tuple[str, str] | None:
    """(``async-start``/``-update``/``-done``, wrapped opcode) for sugar like ``custom-call-start``."""
    for suffix, kind in (("-start", "async-start"), ("-update", "async-update"), ("-done", "async-done")):
        if opcode.endswith(suffix):
            base = opcode[: -len(suffix)]
            if base in OPCODES and opcode not in NATIVE_ASYNC and base not in _NO_SUGAR:
                return kind, base
    return None


def known_invalid(opcode: str) -> bool:
    """``X-start``/``-update``/``-done`` of a known op that has no such form
    (``all-reduce-update``, ``send-start``): XLA refuses it; it is no newer opcode."""
    for suffix in ("-start", "-update", "-done"):
        if opcode.endswith(suffix) and opcode not in OPCODES:
            base = opcode[: -len(suffix)]
            return base in OPCODES or base in _NO_SUGAR
    return False


# Ops that XLA's parser requires to be written with a shape: it has no rule to
# infer theirs ("cannot infer shape for opcode").  Async sugar (``call-start``)
# counts as its async op.
NO_INFERENCE = frozenset(d.name for d in with_trait(Trait.SHAPE_REQUIRED))

# select-and-scatter's two computations are named like attributes of other ops
# (the rest are ``CALL_ATTRS``, one table for the parser, the printer and the kernel-call reader).
SELECT_SCATTER_CALLS = frozenset(OPS["select-and-scatter"].calls) - CALL_ATTRS
