"""A text pre-scan that tells when a module cannot hold a site of the built-in rules.

Parsing a large module costs far more than searching its text, and most
modules a jit hook sees (helpers, single-device programs, inference steps
without FSDP) have nothing the MoE rules could fuse.  The scan is
conservative: it answers ``False`` only when parsing and running the rules
could not find a site, never the other way round.

Why a substring search is enough: every site of ``moe-gather-fusion`` and
``moe-gradient-fusion`` has at least one chain that *communicates*
(``_split_fusion._chain_below`` returns no chain otherwise, and the optimized
HLO detector starts from a collective).  A communicating step is one of

* a collective: HLO ``all-gather`` / ``all-reduce`` / ``reduce-scatter``,
  MLIR ``*.all_gather`` / ``*.all_reduce`` / ``*.reduce_scatter``;
* a sharding change Shardy or GSPMD turns into one: ``sdy.sharding_constraint``,
  entering an ``sdy.manual_computation``, or a custom call to ``Sharding``,
  ``SPMDFullToShardShape``, ``SPMDShardToFullShape`` or
  ``xla.sdy.GlobalToLocalShape``.

Each is spelled in the text with one of ``MARKERS`` (an op name or a
custom-call target cannot be written without its letters), so a text with
none of them has no site.  The markers are deliberately looser than the
rules (``all_reduce`` also matches ``mhlo.all_reduce_start``...): a false
"maybe" only costs the parse that would have happened anyway.

Rules other than the built-in ones (plugins) have no markers: with any of
them selected the answer is always ``True``.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["BUILTIN_RULES", "MARKERS", "may_have_sites"]

# Spellings of the communicating steps (see the module docstring), in both
# dialects: HLO opcodes use dashes, MLIR op names underscores.
MARKERS: tuple[str, ...] = (
    "all-gather", "all_gather",
    "all-reduce", "all_reduce",
    "reduce-scatter", "reduce_scatter",
    "sharding_constraint",
    "manual_computation",
    "Sharding",  # custom_call_target="Sharding" / @Sharding
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "GlobalToLocalShape",
)

BUILTIN_RULES = frozenset({"moe-gather-fusion", "moe-gradient-fusion"})


def may_have_sites(text: str, passes: Sequence[str] | None = None) -> bool:
    """False only when no rule in ``passes`` (None: every registered rule) can
    find a site in ``text``; True means "parse and look"."""
    if passes is None:
        from .passes import available_passes

        passes = list(available_passes())
    if any(p not in BUILTIN_RULES for p in passes):
        return True
    if not passes:
        return False
    return any(m in text for m in MARKERS)
