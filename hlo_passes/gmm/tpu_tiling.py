"""What runs a grouped matmul on TPU by default: XLA's ragged-dot, or megablox at a searched tiling.

``choice(spec)`` is the one place the TPU default is decided (the GMM lowering and
``hlo_passes.jit`` ask it): megablox only where the tile table below holds the problem
``(mode, E, m, K, N, dtype)`` with a tiling measured on the chip faster than XLA:TPU's own
``ragged_dot`` by at least ``MARGIN``; everywhere else XLA's ragged-dot stays.  The table is
what ``benchmarks/tpu_kernels.py --search`` measured (``benchmarks/results/tpu_kernels.md``:
date, jax/libtpu versions, every candidate's time); ``tiling(spec)`` gives the searched tiling
of a problem for ``--kernel pallas`` (which splices megablox wherever it can), or None (the
project's fixed tiling, ``megablox.tiling_for``).  jax-free.
"""
from __future__ import annotations

from dataclasses import dataclass

from .megablox import GmmSpec

# A tiling must beat XLA by this much on the chip to be the default (run-to-run noise is ~2 %).
MARGIN = 1.08

# (mode, E, m, K, N, dtype) -> ((tm, tk, tn), measured speed-up over XLA's ragged-dot).
# Measured on a TPU v5e chip (benchmarks/tpu_kernels.py --search; see its results fragment).
# Searched 2026-12-05 22:35 UTC, jax/jaxlib 0.10.2, libtpu 0.0.42.1, 8 candidate tilings each;
# bf16, top-2 uneven groups (benchmarks/tpu_kernels.py's group_sizes).  Problems not listed were
# not searched: XLA's ragged-dot stays there.  The speed-up kept is the least of the runs on record
# (the search, 2026-12-05 22:57 and 2026-12-06 03:15 UTC), since a default must hold in every run:
# gmm E 8, m 4096, K = N = 1024 (0.14 ms a call) measured 1.19x, 1.07x and 0.89x, so XLA stays there.
TABLE: dict[tuple[str, int, int, int, int, str], tuple[tuple[int, int, int], float]] = {
    ("gmm", 8, 4096, 1024, 1024, "bf16"): ((512, 512, 1024), 0.89),
    ("tgmm", 8, 4096, 1024, 1024, "bf16"): ((512, 512, 1024), 0.923),
    ("gmm", 8, 4096, 2048, 2048, "bf16"): ((256, 2048, 1024), 1.104),
    ("tgmm", 8, 4096, 2048, 2048, "bf16"): ((512, 512, 2048), 0.925),
    ("gmm", 8, 4096, 2048, 4096, "bf16"): ((256, 2048, 1024), 0.926),
    ("tgmm", 8, 4096, 2048, 4096, "bf16"): ((512, 1024, 1024), 0.935),
    ("gmm", 8, 4096, 4096, 4096, "bf16"): ((256, 1024, 2048), 1.053),
    ("tgmm", 8, 4096, 4096, 4096, "bf16"): ((512, 1024, 1024), 0.878),
    ("gmm", 8, 16384, 1024, 1024, "bf16"): ((512, 1024, 1024), 0.876),
}


@dataclass(frozen=True)
class Choice:
    """``kernel``: ``"xla"`` (keep the ragged-dot) or ``"megablox"`` (splice it at ``tiling``);
    ``why``: the measurement behind it."""

    kernel: str
    tiling: tuple[int, int, int] | None
    why: str


def key(spec: GmmSpec) -> tuple[str, int, int, int, int, str] | None:
    """The table's key of a canonical problem (operands in megablox's order), or None."""
    if spec.lhs_perm != tuple(range(len(spec.lhs_perm))) or spec.rhs_perm != tuple(range(len(spec.rhs_perm))):
        return None
    m, k = spec.lhs_shape
    e = spec.groups_shape[0]
    n = spec.rhs_shape[-1]
    return (spec.mode, e, m, k, n, spec.lhs_dtype)


def tiling(spec: GmmSpec) -> tuple[int, int, int] | None:
    """The searched tiling of ``spec`` (whether or not it beats XLA), or None."""
    k = key(spec)
    found = TABLE.get(k) if k is not None else None
    return found[0] if found else None


def choice(spec: GmmSpec) -> Choice:
    """What TPU runs ``spec`` with by default: megablox where measured faster than XLA's
    ragged-dot by ``MARGIN``, else XLA's ragged-dot."""
    k = key(spec)
    found = TABLE.get(k) if k is not None else None
    if found is None:
        return Choice("xla", None, "no tiling in the TPU tile table for this shape: XLA's ragged-dot stays")
    tiles, speedup = found
    if speedup >= MARGIN:
        return Choice("megablox", tiles, f"megablox at {tiles} measured {speedup:.2f}x XLA's ragged-dot on a v5e")
    return Choice("xla", tiles, f"the best megablox tiling {tiles} measured {speedup:.2f}x XLA's ragged-dot on a "
                                f"v5e (under {MARGIN}x): XLA's ragged-dot stays")


def choice_for(mode: str, experts: int, m: int, k: int, n: int, dtype: str) -> Choice:
    """``choice`` of the canonical problem ``mode`` (``"gmm"``: ``[m, k] x [experts, k, n]``;
    ``"tgmm"``: ``[m, k] x [m, n] -> [experts, k, n]``) in ``dtype`` (``"bf16"``, ``"f32"``),
    operands and result of one type."""
    rhs = (experts, k, n) if mode == "gmm" else (m, n)
    spec = GmmSpec(mode, (m, k), dtype, rhs, dtype, (experts,), "s32", dtype, (0, 1), tuple(range(len(rhs))))
    return choice(spec)
