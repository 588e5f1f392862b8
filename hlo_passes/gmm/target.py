"""Where a program's grouped matmuls will run: the kernel each ragged-dot is lowered to.

What a grouped matmul does with the rows at or past ``sum(group_sizes)`` is not said by the op:
it is a property of the kernel that finally runs it.  A rule whose legality rests on it (a row
mask the GMM makes redundant) asks here, per ragged-dot, which kernel that is.  Each entry point
knows it and hands it to the passes it runs on their pipeline's context (``PassContext.gmm_target``,
a ``GmmTarget``: ``gmm_target`` here, ``lowering.target_for`` for a kernel the lowering picks); a
check reads it from the context the pipeline gives it, never from a process-wide or context-local
setting:

* ``hlo_passes.jit``: the platform it lowers for and its ``kernel`` (auto: cpu-ffi on CPU, XLA's
  own ragged-dot on TPU and GPU), with the lowering's own test of which ragged-dots it takes;
* ``hlo-rewrite``: ``--platform`` and ``--kernel``, the same way; ``hlo-lint``: ``--platform``,
  the kernel ``auto`` means there;
* the pass inside XLA: XLA's own ragged-dot, on the platform its hook was registered for.

With no entry point naming one (``run_passes`` called without a ``context`` that holds one),
nothing is known: ``None``.

The kernels known to write +0.0 to the rows past the groups of a ragged-rows GMM and to read no
lhs row there, and, in the weight-gradient form (the ragged dimension contracted), to read
neither operand's rows there (``ZEROING``; the row-mask rule's tests execute the first two with
NaN and Inf in those rows; ``docs/rules.md`` has the evidence).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ir import Instruction

__all__ = ["GmmTarget", "ZEROING", "dots_round_by_shape_here", "gmm_target", "past_groups_refusal"]

ZEROING: dict[str, str] = {
    # hlo_passes/kernels/cpu/grouped_matmul.cc: out rows past sum(group_sizes) are zero-filled, the
    # weight gradient sums only the rows of its groups.  Executed with NaN/Inf there (XLA:CPU).
    "cpu-ffi": "the cpu-ffi kernel zero-fills the rows past the groups and reads none of them",
    # hlo_passes/gmm/megablox.py: the spliced program clips the groups at m and selects +0 into every
    # row at or past their sum (megablox leaves them unwritten); interpret mode executed on CPU.
    "pallas": "the Pallas megablox kernel as hlo_passes emits it selects +0 into the rows past the groups",
    # hlo_passes/kernels/gpu/grouped_matmul.cu: the same contract as the CPU kernel (not executed here).
    "gpu-ffi": "the gpu-ffi kernel zero-fills the rows past the groups and reads none of them",
}

# Why XLA's own ragged-dot is not known to zero those rows, per platform (docs/rules.md, the row-mask rule).
_XLA_OWN: dict[str | None, str] = {
    "tpu": ("XLA:TPU's own ragged-dot leaves the rows past sum(group sizes) unspecified (measured on a "
            "v5e chip: values up to 4.1 written there whatever those lhs rows held, NaN at D = 2048)"),
    "gpu": ("XLA:GPU's own ragged-dot is not known to: its default expansion (ragged_dot_rewriter: a dense "
            "dot over a per-group select of the lhs) gives 0 * w there, NaN where a weight is Inf or NaN, and "
            "its cuDNN, hipBLASLt and Triton paths do not say what they write there"),
    "cpu": ("XLA:CPU compiles no ragged-dot of its own; expanded to a dense dot over a per-group select it "
            "gives 0 * w there, NaN where a weight is Inf or NaN"),
    None: ("no entry point named the platform or kernel the program runs on, so its ragged-dots are taken to "
           "stay XLA's own, which on TPU leaves those rows unspecified (name one: hlo_passes.jit knows its "
           "device; hlo-rewrite --platform/--kernel; hlo-lint --platform)"),
}
_ALIASES = {"cuda": "gpu", "rocm": "gpu"}


@dataclass(frozen=True)
class GmmTarget:
    """The platform a program runs on (None: not known) and the kernel its ragged-dots are
    lowered to (``xla``: XLA's own).  ``kept``: why that kernel would leave a given ragged-dot
    to XLA (its form, element types, operands split across devices), None when it takes it;
    None for the kernel ``xla``, which takes none."""

    platform: str | None
    kernel: str
    kept: Callable[[Instruction], str | None] | None = None

    def kernel_of(self, gmm: Instruction) -> tuple[str, str | None]:
        """(the kernel that will run ``gmm``, why the chosen kernel leaves it to XLA or None)."""
        if self.kernel == "xla":
            return "xla", None
        why = self.kept(gmm) if self.kept is not None else None
        return ("xla", why) if why is not None else (self.kernel, None)


def gmm_target(platform: str | None, kernel: str,
               kept: Callable[[Instruction], str | None] | None = None) -> GmmTarget:
    """The target of ragged-dots lowered to ``kernel`` on ``platform`` (a backend name such as
    ``cuda`` read as its platform), for a pipeline's context (``PassContext.gmm_target``)."""
    platform = _ALIASES.get(platform, platform) if platform is not None else None
    return GmmTarget(platform, kernel, kept)


def past_groups_refusal(gmm: Instruction, target: GmmTarget | None) -> str | None:
    """Why ``gmm`` is not known to write +0 to, and read nothing of, the rows at or past
    sum(group sizes) on ``target`` (the pipeline's, ``PassContext.gmm_target``; None: no entry
    point named one); None when its kernel is one of ``ZEROING``."""
    if target is None:
        return _XLA_OWN[None]
    kernel, why = target.kernel_of(gmm)
    if kernel in ZEROING:
        return None
    if kernel != "xla":
        return f"its kernel {kernel} is not known to zero the rows past the groups"
    own = _XLA_OWN.get(target.platform, _XLA_OWN[None])
    if why is not None:
        return f"the {target.kernel} kernel leaves it to XLA ({why}), and {own[0].lower()}{own[1:]}"
    return own


def dots_round_by_shape_here(platform: str | None) -> bool:
    """For a text whose backend is named (``--platform``, a dump's folder) but not at hand: whether
    that platform, as this process's jax compiles it, runs a GMM's dots through a library whose
    rounding depends on the dot's shape (``_jax_compat.dots_round_by_shape``: XLA:CPU's YNNPACK), so
    that the split rules keep the GMMs as written (``PassContext.dots_round_by_shape``).  Asked for
    CPU only, the backend every jax has here (a TPU or GPU program's is not in this process); False
    for another platform, for none, and where jax is not installed (the jax-free text tools: the
    merged-GMM rewrite, as before)."""
    if platform != "cpu":
        return False
    try:
        # Deferred: it imports jax, which the text tools do without (and a platform but cpu never asks).
        from .. import _jax_compat
    except ImportError:
        return False
    return _jax_compat.dots_round_by_shape("cpu")
