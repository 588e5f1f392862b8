"""hlo_passes inside jax: a ``jax.jit`` that rewrites, a lint for functions, and
a process-wide compile hook.

* ``jit(fun, *, passes=None, kernel=None, **jit_kwargs)`` — ``jax.jit`` with the
  rewrite passes run on the lowered StableHLO before XLA compiles it; the grouped matmuls stay
  XLA's unless ``kernel`` names another (``DROP_IN_KERNEL``), so the numbers are ``jax.jit``'s.  Arguments,
  pytrees, static and donated arguments and shardings are jax's own: the
  rewritten module is handed to jax's ``Lowered`` (through ``_jax_compat``)
  and jax compiles and calls it.  If a pass raises or XLA rejects the
  rewritten module, one ``RewriteFallbackWarning`` is issued and the original
  program runs: a rewrite can cost a warning, never a wrong result or a crash.
  In a multi-process job the processes agree on what they compile first
  (``_multihost``): one that would differ makes all compile the original.
  A trainer's ahead-of-time ``step.lower(*args).compile()`` puts its executable
  in the cache the calls use (one compile per signature, as with ``jax.jit``);
  ``jax.jit = hlo_passes.jit`` works (jax's own ``jit`` is kept from import time,
  ``_jax_compat.jax_jit``), and a call inside another trace is jax's nested jit.
* ``lint_fn(fun, *args)`` — the findings of ``fun``'s lowered program, for a
  model's unit tests (``assert not hlo_passes.lint_fn(step, *batch)``).

``install()`` / ``uninstall()`` (every module XLA compiles, linted or rewritten
inside XLA's pipeline) are in ``hlo_passes.xla_pass``; the warnings its lint
issues are defined here, with the others of the jax entry points.

Everything that reaches into jax internals is in ``_jax_compat``.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import logging
import re
import threading
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import jax
import numpy as np

from . import _jax_compat as compat
from . import _multihost
from .diagnostics import from_near_miss, from_site, jit_summary, record_of
from .diagnostics.lines import jit_site
from .claims import hold_against
from .lint import Finding, claims_to_hold, lint_module, mark_as_written
from .lowering import KERNELS, PLATFORMS, GmmLowering, lower_gmms, resolve_kernel, target_for
from .lowering.cpu_ffi import KERNELS_PACKAGE
from ._mlir_ops import op_spellings
from .pass_interface import PassContext
from .passes import Result, pipeline, resolve_passes, rule_meta
from .passes.prescan import may_have_sites
from .report import NearMiss, Site
from .text import parse, parsed_for_one_call
from . import xla_stage

# A custom call of one of the CUDA kernels ``kernels.gpu`` registers (their targets end in _cuda).
_CUDA_KERNEL_CALL = re.compile(r'"hlo_passes_\w+_cuda"')

__all__ = [
    "CacheInfo",
    "Jitted",
    "MoELintWarning",
    "ProcessesDisagreeWarning",
    "RewriteFallbackWarning",
    "RewrittenLowered",
    "RuleCannotActWarning",
    "jit",
    "lint_fn",
]

log = logging.getLogger("hlo_passes")

# The drop-in's GMMs (issue 47): by default ``hlo_passes.jit`` keeps the backend's own grouped
# matmul (XLA's ragged-dot, as ``jax.jit`` compiles it), so that its numbers are ``jax.jit``'s
# bit for bit, and applies every rewrite that is exact with it.  A kernel that rounds differently
# (``cpu-ffi``, ``pallas``, ``gpu-ffi``, or ``auto``: the platform's kernel,
# ``lowering.resolve_kernel``) is the caller's choice: ``kernel=...``.
DROP_IN_KERNEL = "xla"


def drop_in_kernel(kernel: str | None) -> str:
    """The kernel ``hlo_passes.jit(kernel=...)`` asks for: ``None`` (not given) is the backend's own
    GMM (``DROP_IN_KERNEL``); anything else as given (checked against ``KERNELS``)."""
    chosen = DROP_IN_KERNEL if kernel is None else kernel
    if chosen not in KERNELS:
        raise ValueError(f"unknown kernel {chosen!r}; expected one of {', '.join(KERNELS)}")
    return chosen


# Why a gradient site's claim is the lowered text's until the program is compiled (``lower()`` and
# ``explain()`` compile nothing; ``RewrittenLowered.check_claims`` holds it when it is compiled).
NOT_YET_COMPILED = "lower() and explain() compile nothing; compiling holds it against XLA's program"


class RewriteFallbackWarning(UserWarning):
    """A rewrite failed; the original program ran instead."""


class ProcessesDisagreeWarning(RewriteFallbackWarning):
    """The processes of a multi-process job did not rewrite alike; all run the original program."""


class RuleCannotActWarning(UserWarning):
    """``hlo_passes.jit(passes=[...])`` names a rule that cannot act with the kernel chosen (said
    once, where the jit is made, as ruff says of a selected rule that cannot apply)."""


def cannot_act(passes: Sequence[str], kernel: str) -> list[str]:
    """One line per rule of ``passes`` that cannot act with ``kernel``: why, and which ``kernel=``
    would let it act (``RuleMeta.needs_kernel``); empty when each can."""
    if kernel != "xla":
        return []
    lines = []
    for name in passes:
        meta = rule_meta(name)
        if meta is not None and meta.needs_kernel:
            lines.append(f"hlo_passes.jit: {meta.code} ({meta.pass_name}) cannot act with kernel='xla' (the default: "
                         f"XLA's own grouped matmul, jax.jit's numbers): {meta.needs_kernel}; kernel='auto' (the "
                         "platform's kernel: cpu-ffi, gpu-ffi or pallas) lets it act")
    return lines


def acting_passes(passes: Sequence[str] | None, kernel: str) -> Sequence[str] | None:
    """``passes`` without the rules that cannot act with ``kernel`` (``cannot_act``)."""
    if passes is None or kernel != "xla":
        return passes
    return tuple(p for p in passes if not getattr(rule_meta(p), "needs_kernel", ""))


class MoELintWarning(UserWarning):
    """``install()`` found an unfused MoE pattern in a module XLA compiled."""


class LintSkippedWarning(UserWarning):
    """``install()`` could not lint a module XLA compiled (said once per reason)."""


@dataclass(frozen=True)
class CacheInfo:
    hits: int
    misses: int
    size: int


class RewrittenLowered:
    """What ``Jitted.lower`` returns: like jax's ``Lowered``, with the rewritten program.

    ``as_text()`` is the rewritten StableHLO (the original when nothing was
    rewritten or the rewrite fell back), ``report`` the sites, ``compile()``
    a jax ``Compiled``.  ``original`` is jax's own ``Lowered``.
    """

    def __init__(self, original: Any, lowered: Any, result: Result | None, error: BaseException | None,
                 gmm_lowerings: list[GmmLowering] | None = None, name: str = "fun") -> None:
        self.original = original
        self._lowered = lowered
        self.result = result
        self.error = error
        self.name = name
        # What lower_gmms did with each grouped matmul (empty: kernel xla, or fell back).
        self.gmm_lowerings = list(gmm_lowerings or []) if error is None else []
        # The hlo_passes.jit that lowered it and the signature of the arguments (set by its
        # lower()): compile() puts the executable where that function's calls find it.
        self._owner: Jitted | None = None
        self._key: Hashable | None = None
        # XLA's optimized text of the original program, where ``check_claims`` compiled it (None: not).
        self.compiled_original_text: str | None = None
        # The optimized-HLO stage of its compile (``xla_stage``): what it did (None: it did not run,
        # ``stage_skipped`` says why where it was asked), and the sites and near misses it found
        # where the lowered text has none at their place (those it has are replaced in ``result``).
        self.stage: xla_stage.StageOutcome | None = None
        self.stage_skipped: str | None = None
        self.stage_sites: list[Site] = []
        self.stage_misses: list[NearMiss] = []
        # Set by the compile where the claims need XLA's compiled original (``defer_claims``).
        self._claims_deferred = False

    def summary_lines(self) -> list[str]:
        """What happened to this lowering, one line each: the verdict, then every site,
        near miss and grouped matmul (what ``explain`` returns and the log shows)."""
        done = sum(1 for s in self.report if s.rewritten)
        held = len(self.report) - done
        staged = self.stage is not None and self.stage.rewritten
        # The summary counts what the details below say: a site detected and not rewritten is
        # never counted as rewritten.
        also = f", {held} detected, not rewritten" if held else ""
        if self.error is not None:
            verdict = f"fell back to jax's own program ({_why(self.error)})"
        elif (self.rewritten or staged) and done:
            verdict = f"rewritten: {done} site{'s' * (done != 1)}{also}"
        elif self.rewritten:
            verdict = "GMMs lowered, no site rewritten" + (f" ({held} detected, not rewritten)" if held else "")
        elif self.result is None:
            verdict = "unchanged: no rule can match this program (not parsed)"
        elif held:
            verdict = f"unchanged: {held} site{'s' * (held != 1)} detected, not rewritten"
        else:
            verdict = "unchanged: no site"
        return jit_summary(self.name, verdict, [from_site(s) for s in self.report],
                           [from_near_miss(m) for m in self.near_misses],
                           _gmm_lines(self.gmm_lowerings) + self._stage_lines())

    def _stage_lines(self) -> list[str]:
        """What the optimized-HLO stage could not do (its sites are among the others)."""
        stage = self.stage
        if stage is None:
            return []
        if stage.error is not None:
            return [f"  optimized-HLO stage: XLA's module kept ({stage.error})"]
        if not stage.reached:
            return ["  optimized-HLO stage: XLA did not hand it the module (an executable from jax's persistent "
                    "compilation cache: what the stage did there is not recorded)"]
        return []

    def __str__(self) -> str:
        return "\n".join(self.summary_lines())

    def check_claims(self, compiled_original_text: str | None = None) -> list[NearMiss]:
        """Hold the "A -> B" claims of the gradient-reduction sites (``lint.claims_to_hold``)
        against XLA's compiled original (``compiled_original_text``; compiled here when not given),
        as every entry point holds them (``claims.hold_against``): a site whose halves XLA's combiner
        already reduces in one op (check ``xla-combined`` of the rule on the compiled module, at the
        same source place) saves no collective, and becomes that near miss instead of a site (the
        rewrite stays in the program: the same collectives run either way); one the compiled
        program reduces apart stands, checked.  The near misses made, in the order of the sites."""
        pending = self.pending_claims()
        if not pending or self.result is None:
            return []
        text = compiled_original_text if compiled_original_text is not None else self.original.compile().as_text()
        self.compiled_original_text = text  # what the claims were held against (a test compares with it)
        return hold_against(text, pending, self.result.sites, self.result.near_misses, pending[0].details.priced_for,
                            what="lowered text", name=f"<compiled {self.name}>")

    def pending_claims(self) -> list[Site]:
        """The sites whose "A -> B" is the lowered text's (``lint.claims_to_hold``); a site of the
        optimized-HLO stage is not one: its counts are the compiled module's."""
        if self.result is None:
            return []
        staged = {id(s) for s in self.stage.sites} if self.stage is not None else set()
        return [s for s in claims_to_hold(self.result.module, self.result.sites) if id(s) not in staged]

    def defer_claims(self) -> None:
        """Hold the claims against XLA's compiled original when they are first read (``report``,
        ``near_misses``), compiling it then."""
        self._claims_deferred = True

    def _held(self) -> None:
        if not self._claims_deferred:
            return
        self._claims_deferred = False
        try:
            self.check_claims()
        except Exception as error:  # noqa: BLE001 - the check reports; it never fails a read
            log.debug("hlo_passes.jit: the claims were not checked against XLA's program (%s)", _why(error))

    @property
    def report(self) -> list[Site]:
        self._held()
        return (list(self.result.sites) if self.result is not None else []) + self.stage_sites

    @property
    def near_misses(self) -> list[Any]:
        self._held()
        return (list(self.result.near_misses) if self.result is not None else []) + self.stage_misses

    def join_stage(self, outcome: xla_stage.StageOutcome) -> None:
        """One record per site: each site the optimized-HLO stage rewrote replaces the lowered text's
        record of the same rule at the same source place not rewritten there (the stage's fix is
        what the program runs, its counts the compiled module's), or joins the report (a site the
        lowered text's rewrite could not reach, its halves refused there); its near misses join
        where the lowered text says nothing of that rule at that place."""
        self.stage = outcome
        if outcome.error is not None or not outcome.rewritten:
            return
        sites = self.result.sites if self.result is not None else []
        places = {p for s in sites for p in _places(s)}
        places |= {(m.rule, m.location.source) for m in self.near_misses}
        for new in (s for s in outcome.sites if s.rewritten):
            at = next((n for n, s in enumerate(sites) if _places(s) & _places(new) and not s.rewritten), None)
            if at is not None:
                sites[at] = new
            else:
                self.stage_sites.append(new)
            places |= _places(new)
        for miss in outcome.near_misses:
            place = (miss.rule, miss.location.source)
            if place not in places:
                self.stage_misses.append(miss)
                places.add(place)

    @property
    def rewritten(self) -> bool:
        return self._lowered is not self.original

    @property
    def fell_back(self) -> bool:
        return self.error is not None

    def as_text(self, *args: Any, **kwargs: Any) -> str:
        return self._lowered.as_text(*args, **kwargs)

    def compile(self, *args: Any, **kwargs: Any) -> Any:
        """jax's ``Compiled`` of this program.  From ``hlo_passes.jit(f).lower(...)``: as a call
        compiles it (XLA rejecting the rewrite falls back to the original program, with one
        warning), and a later call of ``f`` with the same signature runs this executable:
        a trainer that compiles ahead of time compiles its step once."""
        if self._owner is None:
            return self._lowered.compile(*args, **kwargs)
        return self._owner._compiled_for(self, args, kwargs)

    def compiler_ir(self, *args: Any, **kwargs: Any) -> Any:
        return self._lowered.compiler_ir(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # in_tree, out_info, args_info, cost_analysis, ...: jax's, unchanged.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._lowered, name)


def _places(site: Site) -> set[tuple[str, str | None]]:
    """Where a site is, as (rule, source): its location's and its record's (the user's frame, which
    the lowered text and the optimized module may name apart for one site)."""
    return {(site.rule, site.location.source), (site.rule, record_of(site).source)}


def _kept_by_jax(gmms: list[GmmLowering], kept: GmmLowering) -> list[GmmLowering]:
    """The GMM records of a CPU program that runs as jax lowers it: none of them is lowered,
    the ones a kernel took say which one stays a ragged-dot."""
    why = f"{kept.location} stays a ragged-dot, which XLA:CPU cannot compile: jax's CPU program runs"
    return [replace(g, lowered=False, reason=why) if g.lowered else g for g in gmms]


def _why(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


def _gmm_lines(gmms: Sequence[GmmLowering]) -> list[str]:
    """Lowered GMMs one line per kernel (``GMMs: 3 gmm + 2 tgmm -> cpu-ffi``), kept ones each with why."""
    by_kernel: dict[str, dict[str, int]] = {}
    for g in gmms:
        if g.lowered:
            forms = by_kernel.setdefault(g.kernel, {})
            forms[g.form] = forms.get(g.form, 0) + 1
    lines = [f"  GMMs: {' + '.join(f'{n} {form}' for form, n in forms.items())} -> {kernel}"
             for kernel, forms in by_kernel.items()]
    return lines + [f"  {g}" for g in gmms if not g.lowered]


def site_summary(site: Site) -> str:
    """``MOE001 moe-gather-fusion [concat] at model.py:21 (concatenate): collectives 4 -> 2, ...``."""
    return jit_site(from_site(site))


def _rewrite(lowered: Any, passes: Sequence[str] | None, kernel: str = "xla",
             platform: str | None = None, path: str | None = None) -> tuple[Any, Result | None, list[GmmLowering]]:
    """jax's ``Lowered`` with the passes applied and grouped matmuls lowered to ``kernel``
    (the same object when nothing changed; result None when the pre-scan shows that no
    rule can fire and there is no ragged-dot to lower, so nothing was parsed)."""
    # The pre-scan reads op names off the module in place (no text printed), so
    # a module no rule can match costs next to nothing (benchmarks/hook_overhead.py).
    spellings = op_spellings(lowered.compiler_ir("stablehlo"))
    if spellings is not None:
        maybe, has_gmm = may_have_sites(spellings, passes), "ragged_dot" in spellings
        if not maybe and (kernel == "xla" or not has_gmm):
            return lowered, None, []
    # With debug info the locations (op names, source lines) survive into
    # the compiled program's metadata, as they do without the rewrite.
    text = lowered.as_text(debug_info=True)
    if spellings is None:
        # Without the in-place walk the text is scanned instead (looser: names in locations count too).
        maybe, has_gmm = may_have_sites(text, passes), "ragged_dot" in text
    lowering = kernel != "xla" and has_gmm
    if not lowering and not maybe:
        return lowered, None, []
    # The module is parsed for the passes alone: they may edit it in place.  strict: a
    # pass that raises makes the whole program fall back (one RewriteFallbackWarning)
    # rather than run with the other rules' rewrites and a near miss nobody reads.
    # Sites are priced for the platform the program is compiled for (a rule that emits a
    # platform's kernel emits that one; a fix that pays on TPU may not on CPU).
    # And a rule whose legality rests on the GMM kernel (a mask the GMM makes redundant) knows which
    # kernel lower_gmms below gives each ragged-dot.
    # And whether that backend sums a dot in an order that depends on its shape (XLA:CPU's YNNPACK),
    # asked of it once per process: the split rules then fuse the collectives and keep each GMM as
    # written, so that the program computes what jax.jit's does, bit for bit.
    context = PassContext.for_platform(platform, gmm_target=target_for(kernel, platform),
                                       dots_round_by_shape=platform is not None and compat.dots_round_by_shape(platform))
    result = pipeline(passes, strict=True, context=context).run(parse(text, dialect="stablehlo", path=path),
                                                                copy=False)
    # A gradient site's "A -> B" is the lowered text's until the compile holds it (``check_claims``).
    mark_as_written(claims_to_hold(result.module, result.sites), NOT_YET_COMPILED)
    gmms = lower_gmms(result.module, kernel, platform) if lowering else []
    if not result.changed and not any(g.lowered for g in gmms):
        return lowered, result, gmms
    text = result.module.to_text()
    if (kernel == "gpu-ffi" and any(g.lowered for g in gmms)) or _CUDA_KERNEL_CALL.search(text):
        # The GMM kernels, or a rule's call of a CUDA kernel (the fused expert FFN priced for GPU).
        # Builds with nvcc on first use; raises naming what is missing (nvcc, a CUDA device).
        importlib.import_module(KERNELS_PACKAGE + ".gpu").register()
    module = compat.parse_mlir(text)
    return compat.lowered_with_module(lowered, module), result, gmms


@dataclass
class _Entry:
    compiled: Any
    lowered: RewrittenLowered


class Jitted:
    """A ``jax.jit``-compatible callable that runs hlo_passes on its lowering."""

    def __init__(self, fun: Callable, passes: Sequence[str] | None, jit_kwargs: dict[str, Any],
                 kernel: str | None = None) -> None:
        kernel = drop_in_kernel(kernel)
        self._fun = fun
        self._kernel = kernel
        # Rule codes (MOE003) or pass names, checked here: a typo fails at the decorator.
        self._passes = tuple(resolve_passes(passes)) if passes is not None else None
        for line in cannot_act(self._passes or (), kernel):
            # At the caller of hlo_passes.jit (or of the decorator it returned).
            warnings.warn(line, RuleCannotActWarning, stacklevel=3)
        self._jit_kwargs = dict(jit_kwargs)
        # jax's own jit, kept from import time: jax.jit may be this module's jit by now.
        self._jitted = compat.jax_jit(fun, **jit_kwargs)
        self._static_nums, self._static_names = _static_arguments(fun, jit_kwargs)
        self._cache: dict[Hashable, _Entry] = {}
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        self._warned = False
        functools.update_wrapper(self, fun)

    # ---- jax.jit's surface -------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _traced(args, kwargs):
            # Called while another function is traced (jax.jit = hlo_passes.jit makes every
            # jitted helper one of these): jax's nested jit; the outer program is what is
            # rewritten when it is compiled.
            return self._jitted(*args, **kwargs)
        entry = self._entry(args, kwargs)
        dyn_args, dyn_kwargs = self._dynamic(args, kwargs)
        return entry.compiled(*dyn_args, **dyn_kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> RewrittenLowered:
        """Lower with jax, run the passes; nothing is compiled or logged.  Its ``compile()``
        gives the executable the calls with these arguments' signature then use."""
        low = self._lower(args, kwargs)
        if not _traced(args, kwargs):
            try:
                low._key = self._signature(args, kwargs)
            except ValueError:  # a static argument jax accepts and this cache cannot key on
                low._key = None
            low._owner = self
        return low

    def explain(self, *args: Any, **kwargs: Any) -> str:
        """What the rewrite does to the program for these arguments, in a few lines: each site
        with its source location and collectives before -> after, near misses, GMM kernels,
        or why it fell back.  After a call (or ``lower().compile()``) with these arguments' signature:
        what that compile made, its gradient claims held against XLA's program; else it lowers
        (nothing is compiled or run: such a claim says it is the lowered text's, ``as written``)."""
        try:
            key = self._signature(args, kwargs)
        except ValueError:  # a static argument this cache cannot key on
            key = None
        with self._lock:
            entry = self._cache.get(key) if key is not None else None
        return str(entry.lowered if entry is not None else self._lower(args, kwargs))

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.eval_shape(*args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.trace(*args, **kwargs)

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._cache))

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()
            self._hits = self._misses = 0

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # Decorating a method: bind like a function does.
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"hlo_passes.jit({getattr(self._fun, '__qualname__', self._fun)!r})"

    # ---- internals ------------------------------------------------------------
    @property
    def _name(self) -> str:
        return str(getattr(self._fun, "__name__", self._fun))

    def _lower(self, args: tuple, kwargs: dict) -> RewrittenLowered:
        traced = self._jitted.trace(*args, **kwargs)  # user errors surface here, as with jax.jit
        original = traced.lower()
        path = f"<lowered {self._name}>"
        try:
            platform = compat.lowering_platform(original)
            platform = platform if platform in PLATFORMS else None
            kernel = self._usable(resolve_kernel(self._kernel, platform))
            source = original
            if kernel != "xla" and platform == "cpu" and _uses_primitive(traced.jaxpr.jaxpr, "ragged_dot_general"):
                # jax lowers ragged_dot for CPU as a masked dense dot; a kernel needs the ragged-dot.
                source = compat.lower_keeping_ragged_dot(traced)
            # A rule that cannot act with XLA's grouped matmul (said when the jit was made) is not
            # run with it: it would swap in a kernel of its own, which the drop-in promises not to.
            passes = acting_passes(self._passes, kernel)
            lowered, result, gmms = _rewrite(source, passes, kernel, platform, path)
            kept = [g for g in gmms if not g.lowered and g.form != "kernel"]
            if source is not original and kept:
                # XLA:CPU cannot compile a ragged-dot, and one stays (its operands may be split
                # across devices, lowering/_placement.py, or no kernel form covers it): jax's own
                # CPU program runs, partitioned as jax.jit partitions it.
                lowered, result, _ = _rewrite(original, acting_passes(self._passes, "xla"), platform=platform,
                                              path=path)
                gmms = _kept_by_jax(gmms, kept[0])
        except Exception as err:
            # Said (warned and logged) when it is compiled, not each time it is explained.
            return RewrittenLowered(original, original, None, err, name=self._name)
        return RewrittenLowered(original, lowered, result, None, gmms, name=self._name)

    def _log(self, low: RewrittenLowered) -> None:
        """What the rewrite did to a program about to be compiled, on the ``hlo_passes`` logger
        (INFO; once per job, by process 0), and the fallback warning if a pass failed."""
        if low.error is not None:  # it fell back
            self._fallback(f"a pass failed ({_why(low.error)})", stacklevel=5)
        level = logging.INFO if _multihost.reports_here() else logging.DEBUG
        if not log.isEnabledFor(level):
            return  # (building the lines would hold the claims: a compile of the original)
        for line in low.summary_lines():
            log.log(level, "%s%s", _multihost.report_tag(), line.strip())

    def _entry(self, args: tuple, kwargs: dict) -> _Entry:
        key = self._signature(args, kwargs)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._hits += 1
                return entry
        low = self._lower(args, kwargs)
        low, compiled = self._compile(low)
        self._log(low)  # after the compile, which holds the sites' claims against XLA's program
        return self._remember(key, _Entry(compiled, low))

    def _remember(self, key: Hashable, entry: _Entry) -> _Entry:
        with self._lock:
            self._misses += 1
            return self._cache.setdefault(key, entry)

    def _compiled_for(self, low: RewrittenLowered, args: tuple, kwargs: dict) -> Any:
        """``low.compile(*args, **kwargs)`` for a lowering of this function: what a call with
        its signature would run, compiled once and kept for those calls."""
        key = low._key
        if key is not None and not args and not kwargs:
            with self._lock:
                entry = self._cache.get(key)
            if entry is not None:
                return entry.compiled
        done, compiled = self._compile(low, *args, **kwargs)
        self._log(done)
        if key is not None and not args and not kwargs:  # compiled as a call would compile it
            compiled = self._remember(key, _Entry(compiled, done)).compiled
        return compiled

    def _compile(self, low: RewrittenLowered, *options: Any, **kw_options: Any) -> tuple[RewrittenLowered, Any]:
        """Compile ``low``, or the original program if XLA rejects the rewrite.

        In a multi-process job (``_multihost``) the processes first agree on
        what they compile, and after compiling a rewrite on whether every XLA
        accepted it: a process never falls back alone.
        """
        job = _multihost.current_job()  # None in a single-process job: nothing is exchanged
        key = job.round(getattr(self._fun, "__qualname__", type(self._fun).__name__)) if job else ""
        if job is not None:
            low = self._agreed(job, key, low)
        try:
            compiled, err = self._compile_staged(low, options, kw_options), None
        except Exception as error:
            if not low.rewritten:
                raise  # jax's own program does not compile: jax.jit would raise too
            compiled, err = None, error
        if job is not None and low.rewritten:
            settled = job.agree_compiled(key, err, what=repr(self))
            if not settled.rewrite:
                err = _multihost.Disagreement(settled)
        if isinstance(err, _multihost.Disagreement):
            self._fallback(err.agreement.why, category=ProcessesDisagreeWarning, stacklevel=5,
                           then="every process runs the original program")
        elif err is not None:
            self._fallback(f"XLA rejected the rewritten module ({_why(err)})", stacklevel=5)
        if err is not None:
            low = RewrittenLowered(low.original, low.original, low.result, err, name=self._name)
            compiled = low.original.compile(*options, **kw_options)
        elif low.pending_claims():
            try:
                # XLA's program of the original: the module the optimized-HLO stage was handed where no
                # claim left is of a site rewritten before it (its reductions are the original's there:
                # no other compile); else nothing rewritten: the program just compiled, held against as
                # it is; else (a gradient site rewritten in the lowered text, whose halves the compiled
                # rewrite no longer has) the original is compiled to hold the claims against.
                handed = low.stage.handed if low.stage is not None else None
                if handed is not None and not any(s.rewritten for s in low.pending_claims()):
                    low.check_claims(handed)
                elif low.rewritten or (low.stage is not None and low.stage.rewritten):
                    # The original is compiled when the claims are first shown (``report``,
                    # ``explain()``, the INFO log), not by every compile: a program nobody asks
                    # about is compiled once, as jax.jit compiles it.
                    low.defer_claims()
                else:
                    low.check_claims(compiled.as_text())
            except Exception as error:  # noqa: BLE001 - the check reports; it never fails a compile
                log.debug("hlo_passes.jit: the claims were not checked against XLA's program (%s)", _why(error))
        return low, compiled

    def _compile_staged(self, low: RewrittenLowered, options: tuple, kw_options: dict) -> Any:
        """``low``'s program compiled with the optimized-HLO stage (``xla_stage``: the rules of the
        pass inside XLA on the module XLA makes of it, this compile's only) where it runs; what it did
        joins ``low``'s records, a fallback of it warned as the jit's others are."""
        stage = self._stage(low)
        if stage is None:
            return low._lowered.compile(*options, **kw_options)
        marked, request = stage
        try:
            with xla_stage.compiling(request):
                compiled = marked.compile(*options, **kw_options)
        except Exception as error:
            if not request.outcome.rewritten:
                raise  # the program without the stage fails alike (the caller's fallback)
            # XLA rejected the stage's module: the program as the lowered text's rewrite makes it.
            self._fallback(f"XLA rejected the optimized-HLO stage's module ({_why(error)})", stacklevel=6,
                           then="compiled without the stage")
            low.stage_skipped = f"XLA rejected its module ({_why(error)})"
            return low._lowered.compile(*options, **kw_options)
        outcome = request.outcome
        if outcome.error is not None:
            self._fallback(f"the optimized-HLO stage could not rewrite {outcome.module_name or 'the module'} "
                           f"({outcome.error})", stacklevel=6, then="XLA's module of the program runs")
        low.join_stage(outcome)
        return compiled

    def _stage(self, low: RewrittenLowered) -> tuple[Any, xla_stage.Stage] | None:
        """(the program to compile, marked for the stage, and the stage), or None where the stage
        does not run (``low.stage_skipped`` says why)."""
        if low.error is not None:
            low.stage_skipped = ("the lowered text's rewrite fell back: jax's own program is compiled as "
                                 "jax.jit compiles it")
            return None
        if self._kernel != "xla" and any(g.lowered for g in low.gmm_lowerings):
            # A kernel of the caller's choice: its GMMs are custom calls the rules inside XLA do not read.
            low.stage_skipped = f"kernel={self._kernel!r}: the lowered text's GMM kernels run"
            return None
        platform = compat.lowering_platform(low.original)
        try:
            compile_only = compat.lowered_compile_only(low._lowered)
        except compat.UnsupportedJaxError:
            compile_only = True
        why = xla_stage.why_not(platform, compile_only=compile_only,
                                multi_process=_multihost.current_job() is not None)
        if why is None:
            passes = acting_passes(self._passes, "xla")
            try:
                marked, token = xla_stage.marked(low._lowered, passes)
                return marked, xla_stage.Stage(token, str(platform), passes)
            except Exception as err:  # noqa: BLE001 - a jax without the means: compiled without the stage
                why = f"its module could not be marked ({_why(err)})"
        low.stage_skipped = why
        return None

    def _agreed(self, job: _multihost.Job, key: str, low: RewrittenLowered) -> RewrittenLowered:
        """``low`` if every process would compile the same, else jax's own program (in all of them)."""
        original = _multihost.fingerprint(low.original.as_text())
        decision = (_multihost.REWRITE if low.rewritten else
                    _multihost.FALLBACK if low.fell_back else _multihost.UNCHANGED)
        program = _multihost.fingerprint(low.as_text()) if low.rewritten else original
        agreement = job.agree(key, _multihost.Vote(decision, program, original), what=repr(self))
        if agreement.unanimous:
            return low
        self._fallback(f"the processes of this job did not rewrite alike ({agreement.why})",
                       category=ProcessesDisagreeWarning, stacklevel=6, then="every process runs the original program")
        return RewrittenLowered(low.original, low.original, low.result, _multihost.Disagreement(agreement),
                                name=self._name)

    def _usable(self, kernel: str) -> str:
        """``kernel``, with its handlers registered; for ``auto``, ``xla`` when they cannot be built."""
        if kernel != "cpu-ffi":
            return kernel
        try:
            importlib.import_module(KERNELS_PACKAGE)  # builds (once) and registers the CPU handlers
        except Exception as err:
            if self._kernel != "auto":
                raise
            # The rewrites still apply; the GMMs stay jax's own CPU program.
            log.info("hlo_passes.jit: the cpu-ffi kernel is unavailable (%s); kernel auto keeps XLA's", err)
            return "xla"
        return kernel

    def _fallback(self, why: str, category: type[Warning] = RewriteFallbackWarning, stacklevel: int = 4,
                  then: str = "running the original program") -> None:
        # Every fallback is logged, the warning issued once per function; both once per job
        # (process 0), not once per host (_multihost).
        reports = _multihost.reports_here()
        log.log(logging.INFO if reports else logging.DEBUG, "%shlo_passes.jit(%s): %s; %s",
                _multihost.report_tag(), self._name, why, then)
        if not self._warned and reports:
            self._warned = True
            warnings.warn(
                f"{_multihost.report_tag()}hlo_passes.jit({getattr(self._fun, '__name__', self._fun)}): "
                f"{why}; {then}",
                category,
                stacklevel=stacklevel,
            )

    def _dynamic(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if not self._static_nums and not self._static_names:
            return args, kwargs
        n = len(args)
        nums = {i % n for i in self._static_nums if -n <= i < n}
        return (tuple(a for i, a in enumerate(args) if i not in nums),
                {k: v for k, v in kwargs.items() if k not in self._static_names})

    def _signature(self, args: tuple, kwargs: dict) -> Hashable:
        """What jax.jit keys its executables on: structure, avals, shardings, static values."""
        n = len(args)
        nums = {i % n for i in self._static_nums if -n <= i < n}
        static = tuple((i, _hashable_static(a)) for i, a in enumerate(args) if i in nums)
        static += tuple(sorted((k, _hashable_static(v)) for k, v in kwargs.items() if k in self._static_names))
        dyn = ([a for i, a in enumerate(args) if i not in nums],
               {k: v for k, v in kwargs.items() if k not in self._static_names})
        leaves, tree = jax.tree_util.tree_flatten(dyn)
        return (tree, static, tuple(_leaf_signature(x) for x in leaves), bool(getattr(jax.config, "jax_enable_x64")))


def _traced(args: tuple, kwargs: dict) -> bool:
    """Whether any argument is a tracer: the call happens while another function is traced."""
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves((args, kwargs)))


def _uses_primitive(jaxpr: Any, name: str) -> bool:
    """Whether ``jaxpr`` or a jaxpr nested in it (jit, shard_map, scan, cond, ...) has a ``name`` equation."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == name:
            return True
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's Jaxpr, or the Jaxpr itself
                if hasattr(inner, "eqns") and _uses_primitive(inner, name):
                    return True
    return False


def _hashable_static(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError as err:
        raise ValueError(
            f"non-hashable static argument {value!r}: static arguments must be hashable, as for jax.jit"
        ) from err
    return (type(value), value)


def _leaf_signature(x: Any) -> Hashable:
    if isinstance(x, jax.Array):
        return ("array", x.shape, x.dtype, bool(getattr(x, "weak_type", False)), x.sharding,
                getattr(x, "committed", True))
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return ("numpy", x.shape, x.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return ("scalar", type(x))
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is not None and dtype is not None:
        return ("other", type(x), tuple(shape), str(dtype), getattr(x, "sharding", None))
    # Anything else jax.jit accepts is traced as a value of its type; keying
    # on the type alone could mix different avals, so key on identity.
    return ("object", type(x), id(x))


def _static_arguments(fun: Callable, kw: dict[str, Any]) -> tuple[set[int], set[str]]:
    """static_argnums and static_argnames completed from each other, as jax.jit does."""
    nums = kw.get("static_argnums")
    names = kw.get("static_argnames")
    nums_set = {nums} if isinstance(nums, int) else set(nums or ())
    names_set = {names} if isinstance(names, str) else set(names or ())
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return nums_set, names_set
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, p in enumerate(positional):
        if p.name in names_set and nums is None:
            nums_set.add(i)
        if (i in nums_set or i - len(positional) in nums_set) and names is None and p.kind != p.POSITIONAL_ONLY:
            names_set.add(p.name)
    return nums_set, names_set


def jit(fun: Callable | None = None, *, passes: Sequence[str] | None = None, kernel: str | None = None,
        **jit_kwargs: Any) -> Any:
    """``jax.jit`` with hlo_passes' rewrites; also usable as ``@jit(passes=[...])``.

    By default the grouped matmuls stay the backend's own (XLA's ragged-dot): the numbers are
    ``jax.jit``'s, bit for bit, with the rewrites applied.  ``kernel``
    (``hlo_passes.lowering.KERNELS``) opts in to a kernel that rounds differently, lowering the
    grouped matmuls (``jax.lax.ragged_dot``) after the rewrites: ``auto`` takes the platform's
    (``cpu-ffi`` on CPU; XLA's own ragged-dot on TPU and GPU), or name one.
    """
    if fun is None:
        return lambda f: Jitted(f, passes, jit_kwargs, kernel)
    return Jitted(fun, passes, jit_kwargs, kernel)


def lint_fn(fun: Callable, *args: Any, select: Sequence[str] | None = None,
            ignore: Sequence[str] | None = None, **kwargs: Any) -> list[Finding]:
    """Findings of ``fun``'s lowered program for these arguments (nothing runs).

    ``fun`` may be a plain function (jitted here without options), a
    ``jax.jit``-ed one or an ``hlo_passes.jit``-ed one (its original program
    is linted).
    """
    if isinstance(fun, Jitted):
        lowered = fun._jitted.lower(*args, **kwargs)
    elif hasattr(fun, "lower"):
        lowered = fun.lower(*args, **kwargs)
    else:
        lowered = compat.jax_jit(fun).lower(*args, **kwargs)
    text = lowered.as_text(debug_info=True)
    name = getattr(fun, "__name__", type(fun).__name__)
    path = f"<lowered {name}>"
    return lint_module(parse(text, dialect="stablehlo", path=path), path=path, select=select, ignore=ignore)
