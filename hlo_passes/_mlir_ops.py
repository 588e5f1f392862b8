"""The op names and custom-call targets of an MLIR module, for the jit hook's pre-scan.

Printing a lowered module as text costs about as much per op as a fast
parse; walking its ops in place and reading each name costs a tenth of that.
What the pre-scan (``prescan.may_have_sites``) looks for are op names
(``stablehlo.all_gather``, ``sdy.sharding_constraint``, ...) and custom-call
targets (``Sharding``, ...), so those are all it is given.  Uses the MLIR
bindings jax exports publicly (``jax.extend.mlir.ir``).
"""
from __future__ import annotations

from jax.extend.mlir import ir

__all__ = ["op_spellings"]


def op_spellings(module: ir.Module) -> str | None:
    """Every op name in ``module`` (nested regions included), and every custom-call
    target, one per line; None when these bindings cannot walk a module."""
    walk_result = getattr(ir, "WalkResult", None)
    if walk_result is None or not hasattr(module.operation, "walk"):
        return None
    names: set[str] = set()
    targets: set[str] = set()

    def visit(op):
        op = getattr(op, "operation", op)
        name = op.name
        names.add(name)
        if name.endswith("custom_call"):
            attrs = op.attributes
            if "call_target_name" in attrs:
                targets.add(str(attrs["call_target_name"]))
        return walk_result.ADVANCE

    module.operation.walk(visit)
    return "\n".join(sorted(names | targets))
