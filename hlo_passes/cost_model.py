"""Whether a site's fix pays: its figures (per device) priced on a platform.

A site's figures come from the engine (``rewrites/split/cost.py``), the same in every text form of
a program: the collectives before and after (count and bytes each device receives), the bytes
of copies the rewrite removes and adds, and the grouped-matmul launches it saves.  Here they
are priced in time on one device of a platform::

    saved = (copies removed - copies added) * 2 / memory bandwidth     (a copy reads and writes)
          + (bytes received before - after) / link bandwidth
          + (collectives before - after) * collective latency
          + GMM launches saved * kernel launch latency

and the fix pays when ``saved > 0``.  The platforms' figures are round, public orders of
magnitude for one device (docs/cost-model.md says where each comes from); what matters is
their ratio: a collective launch is worth ~8 MB of copying on a TPU, so only a fix that adds
more copying than that does not pay.  ``DEFAULT_PLATFORM`` prices sites whose platform
nobody named; a pipeline names one for its passes (``pass_interface.PassContext``: the console
scripts' ``--platform``, the jit's backend), handed to each pass with its rewriter.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_PLATFORM", "PLATFORMS", "Platform", "Price", "platform_for", "price"]


@dataclass(frozen=True)
class Platform:
    """What one device of a platform does per second, and what starting an op costs it."""

    name: str
    memory_bytes_per_s: float  # HBM (or DRAM) bandwidth
    link_bytes_per_s: float  # what one device receives per second in a collective
    collective_latency_s: float  # the fixed cost of one collective, however small
    kernel_latency_s: float  # the fixed cost of one kernel (a GMM) launch


PLATFORMS: dict[str, Platform] = {
    # TPU v5e: 819 GB/s HBM, ICI ~100 GB/s per chip, ~10 us per small collective, ~2 us per op.
    "tpu": Platform("tpu", 8.19e11, 1.0e11, 1.0e-5, 2.0e-6),
    # H100 SXM: 3.35 TB/s HBM, NVLink 450 GB/s per direction, ~15 us per NCCL call, ~5 us per launch.
    "gpu": Platform("gpu", 3.35e12, 4.5e11, 1.5e-5, 5.0e-6),
    # A CPU socket shared by XLA:CPU's devices: ~20 GB/s of copy, rendezvous of threads per collective.
    "cpu": Platform("cpu", 2.0e10, 1.0e10, 2.0e-5, 1.0e-6),
}
DEFAULT_PLATFORM = "tpu"
# Other names the console scripts' --platform takes for these.
_ALIASES = {"cuda": "gpu", "rocm": "gpu"}

def platform_for(backend: str | None) -> str | None:
    """The platform a jax backend's sites are priced for (``cuda`` and ``rocm``: ``gpu``); None for
    a backend the cost model has no figures for (the default pricing, assumed)."""
    name = _ALIASES.get(backend, backend) if backend is not None else None
    return name if name in PLATFORMS else None


@dataclass(frozen=True)
class Price:
    """A site's figures priced on ``platform``: seconds saved per device, and how."""

    platform: str
    saved_s: float
    copies_s: float
    transfer_s: float
    collectives_s: float
    launches_s: float

    @property
    def pays(self) -> bool:
        return self.saved_s > 0

    def __str__(self) -> str:
        parts = [f"{name} {_us(value)}" for name, value in (
            ("copies", self.copies_s), ("transfers", self.transfer_s),
            ("collective launches", self.collectives_s), ("GMM launches", self.launches_s)) if value]
        verdict = "saves" if self.pays else "costs"
        return (f"{verdict} {_us(abs(self.saved_s))[1:]} per device on {self.platform}"
                + (f" ({', '.join(parts)})" if parts else ""))


def _us(seconds: float) -> str:
    return f"{'+' if seconds >= 0 else '-'}{abs(seconds) * 1e6:.3g} us"


def price(*, copies_removed: int, copies_added: int, bytes_before: int, bytes_after: int,
          collectives_before: int, collectives_after: int, gmm_launches_saved: int,
          platform: Platform | None = None) -> Price:
    """The time a site's fix saves per device on ``platform`` (default: ``DEFAULT_PLATFORM``'s)."""
    p = platform or PLATFORMS[DEFAULT_PLATFORM]
    copies = (copies_removed - copies_added) * 2 / p.memory_bytes_per_s
    transfer = (bytes_before - bytes_after) / p.link_bytes_per_s
    collectives = (collectives_before - collectives_after) * p.collective_latency_s
    launches = gmm_launches_saved * p.kernel_latency_s
    return Price(p.name, copies + transfer + collectives + launches, copies, transfer, collectives, launches)
