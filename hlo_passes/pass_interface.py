"""The one interface every pipeline stage has: ``Pass.run(module, rewriter, context) -> Changes``.

As XLA's ``HloPassInterface`` is for its pipelines, this is what ``passes.Pipeline`` runs and
nothing else: the rules (``rule.Rule``, ``rule.PatternRule``), and the stages that are no rule —
``fuse_again`` (the pass inside XLA, after the rules), the runtime's preparations of a text for
running, the GMM lowering.  A pass

* changes the module only through the ``rewriter`` it is handed (a ``DryRunRewriter``, which
  refuses every change, when the pipeline only reports): the pipeline reads what changed from
  that rewriter's journal, verifies the computations it touched, and holds the pass's claim
  (``Changes.claims_change``) to it;
* reads what the run is for from ``context`` (``PassContext``: the platform sites are priced
  for, whether they get pictures, the GMM kernel the program's ragged-dots will run on), which
  the pipeline holds and hands over — no pass reads a process-wide or context-local setting;
* returns its sites and near misses (``Changes``).

A pass is told its rewriter and context in the call; the pipeline never looks at a pass's
signature to choose how to call it.  An older plugin that only has ``apply(module, *,
rewrite)`` (no rewriter) is adapted once, by ``as_pass`` (the registry does it), into a pass
whose changes are not journaled (``Changes.journaled`` False: the pipeline then verifies the
whole module and believes its sites).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .cost_model import DEFAULT_PLATFORM, PLATFORMS, Platform, platform_for
from .gmm.target import GmmTarget
from .ir import Module
from .ir.rewriter import Rewriter
from .report import NearMiss, Site

__all__ = ["ApplyOnly", "Changes", "Pass", "PassContext", "Stage", "as_pass"]


@dataclass(frozen=True)
class PassContext:
    """What a pipeline's passes run for, handed to each explicitly (``Pipeline`` holds it).

    ``platform``: the platform sites are priced for (``cost_model``), and that the fused-FFN rule
    emits its kernel for; ``platform_assumed``: nobody named it (the default pricing, said beside
    a finding); ``pictures``: whether sites get their picture (the pass inside XLA shows none, and
    drawing was a tenth of the rules' time there); ``gmm_target``: the platform and GMM kernel
    the program's ragged-dots will run on once the passes are done (``gmm.target``: what a rule
    whose legality rests on that kernel asks, the row-mask rule), None where no entry point
    named one.  Kept apart from ``platform``: a run priced for the default, assumed TPU names
    no kernel.  ``dots_round_by_shape``: the backend that will run the program was seen (by the
    entry point that knows it: ``hlo_passes.jit`` probes its device once per process,
    ``_jax_compat.dots_round_by_shape``) to sum a batched dot in an order that depends on the
    dot's shape (XLA:CPU's YNNPACK dots, jax >= 0.12.1): one GMM on a joined operand is then not
    bit-equal to the halves' GMMs, and the split rules merge only the collectives, keeping each
    GMM as written.  False where nobody checked (the text tools), as before; in optimized HLO the
    module says it itself (a dot's ``__ynn_fusion``)."""

    platform: Platform = PLATFORMS[DEFAULT_PLATFORM]
    platform_assumed: bool = True
    pictures: bool = True
    gmm_target: GmmTarget | None = None
    dots_round_by_shape: bool = False

    @classmethod
    def for_platform(cls, name: str | None, *, pictures: bool = True,
                     gmm_target: GmmTarget | None = None, dots_round_by_shape: bool = False) -> PassContext:
        """The context of a run priced for platform ``name`` (a backend name such as ``cuda`` is
        read as its platform; None: the default, assumed), its ragged-dots run as ``gmm_target``
        says (``lowering.target_for(kernel, platform)``; None: not known), its dots rounding by
        their shape where ``dots_round_by_shape``.  ``ValueError`` for a name the cost model has
        no figures for."""
        if name is None:
            return cls(pictures=pictures, gmm_target=gmm_target, dots_round_by_shape=dots_round_by_shape)
        known = platform_for(name)
        if known is None:
            raise ValueError(f"unknown platform {name!r}; known: {', '.join(PLATFORMS)}")
        return cls(PLATFORMS[known], False, pictures, gmm_target, dots_round_by_shape)


@dataclass
class Changes:
    """What one round of a pass did: its sites (rewritten or not) and near misses.

    ``changed``: what a stage that reports no sites claims (it rewrote something); None for a
    rule, whose claim is its sites (``Site.rewritten``).  ``journaled``: False only for an
    adapted older plugin, which changes the module without the rewriter it was handed."""

    sites: list[Site] = field(default_factory=list)
    near_misses: list[NearMiss] = field(default_factory=list)
    changed: bool | None = None
    journaled: bool = True

    @property
    def claims_change(self) -> bool:
        return self.changed if self.changed is not None else any(s.rewritten for s in self.sites)


@runtime_checkable
class Pass(Protocol):
    """A pipeline stage: finds what it is for, checks legality, rewrites (or only reports)
    through ``rewriter``, for what ``context`` says."""

    @property
    def name(self) -> str: ...

    @property
    def tag(self) -> str | None:
        """What the ops it creates are tagged with (``ir.tag_created``: a rule's name); None for
        a stage whose new ops stand for no rule's (``fuse_again``'s fusions, a text prepared for
        running)."""

    @property
    def repeats(self) -> bool:
        """Whether a round that changed the module is followed by another (a rule: to its fixed
        point); False for a stage that does all its work in one round."""

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes: ...


class Stage(ABC):
    """A base for the pipeline stages that are no rule: ``name`` (what the pipeline says of it:
    a crash, an invariant it broke) and ``run``; the ops it creates carry no rule's tag.  It
    reports no sites: ``Changes(changed=...)`` says whether it rewrote."""

    name: str = "stage"
    tag: str | None = None
    repeats: bool = True

    def __repr__(self) -> str:
        return f"<stage {self.name}>"

    @abstractmethod
    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        """One round: rewrite through ``rewriter``; ``Changes(changed=...)``."""


ApplyFn = Callable[..., tuple[list[Site], list[NearMiss]]]


class ApplyOnly:
    """An older plugin (``name`` and ``apply(module, *, rewrite) -> (sites, near misses)``, no
    rewriter) as a pass: it changes the module itself when the rewriter is no dry run, and its
    sites say what it changed."""

    def __init__(self, plugin: Any) -> None:
        self.plugin = plugin

    @property
    def name(self) -> str:
        return str(self.plugin.name)

    @property
    def tag(self) -> str | None:
        return self.name

    repeats = True

    def __repr__(self) -> str:
        return f"ApplyOnly({self.plugin!r})"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        apply: ApplyFn = self.plugin.apply
        sites, misses = apply(module, rewrite=not rewriter.dry_run)
        return Changes(list(sites), list(misses), journaled=False)


def as_pass(obj: Any) -> Pass:
    """``obj`` as a pipeline stage: itself when it has ``run`` (every ``rule.Rule``), else an
    older plugin with only ``apply`` adapted (``ApplyOnly``)."""
    if isinstance(obj, Pass):
        return obj
    if callable(getattr(obj, "apply", None)) and not hasattr(obj, "run"):
        return ApplyOnly(obj)
    missing = [m for m in ("name", "tag", "repeats", "run") if not hasattr(obj, m)]
    raise TypeError(f"{obj!r} is no pass: it lacks {', '.join(missing)} (a pass has name, tag, repeats and "
                    "run(module, rewriter, context); an older plugin, apply(module, *, rewrite))")
