"""hlo_passes as a pass inside XLA's own pipeline: ``install()``.

Through jax's public compile hook (``jax.extend.xla.register_hlo_module_transformation``)
XLA hands every module it compiles in this process — optimized, before
scheduling — to ``_on_compile`` as a serialized ``HloModuleProto``:

* ``mode="warn"`` / ``"log"``: lint it, report each finding once (warning at the
  user's source line, or the ``hlo_passes`` logger); the module is never changed.
* ``mode="rewrite"``: rewrite it (``passes.compiled.rewrite_compiled_text``: the
  engine side), hand XLA the new module, log one INFO line per rewritten site.

What the callback guarantees (docs/xla-pass.md): a module with no collective is
skipped by a text scan before any parsing; None (XLA keeps its module) whenever
nothing changed; it never raises: any failure is None, one warning naming the
module and the reason, and the compile goes on; a multi-process job agrees
(``_multihost``) on every module the scan lets through, and any difference makes
every process keep XLA's module; with jax's persistent compilation cache the
rewrite is part of the cache key.  ``installed_report()`` says what happened.

``HLO_PASSES=rewrite|warn|log|lint`` activates it without code changes: jax
loads ``jax_plugins.hlo_passes_xla_pass`` when it discovers its plugins, which
calls ``activate_from_environment``.
"""
from __future__ import annotations

import atexit
import functools
import logging
import os
import sys
import re
import threading
import warnings
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from . import _jax_compat as compat
from . import _multihost
from ._version import __version__
from .cost_model import DEFAULT_PLATFORM, platform_for
from .diagnostics import from_site, hook_warning
from .errors import AgreementTimeoutError, ParseError
from .jax_hook import LintSkippedWarning, MoELintWarning
from .lint import Finding, compiled_program, lint_module
from .passes import (load_plugin, loaded_plugins, resolve_passes,
                     rule_meta)
from .passes.compiled import passes_inside_xla, passes_key, ragged_dots_lowered_by_xla
from .passes.prescan import markers_for
from .report import NearMiss, Site, shown_source
from .text import parsed_for_one_call
from . import xla_stage
# The optimized module's reading, shared with hlo_passes.jit's own stage (``xla_stage``).
from .xla_stage import dots_round_by_shape as _dots_round_by_shape
from .xla_stage import read_module, rewrite_module_text
from .xla_stage import with_parameter_shardings as with_parameter_shardings  # (its old home)
from .xla_stage import xla_own as _xla_own

__all__ = [
    "ENV",
    "MODES",
    "InstalledReport",
    "ModuleOutcome",
    "XlaPassFallbackWarning",
    "activate_from_environment",
    "install",
    "installed",
    "installed_findings",
    "installed_report",
    "uninstall",
]

log = logging.getLogger("hlo_passes")

MODES = ("warn", "log", "rewrite")
ENV = "HLO_PASSES"
# What $HLO_PASSES may say: a mode, or "lint" for the logging lint.
ENV_MODES = {"rewrite": "rewrite", "lint": "log", "log": "log", "warn": "warn"}
# Plugin rules to load (comma-separated dotted modules or .py files) and passes to run, for $HLO_PASSES.
PLUGINS_ENV = "HLO_PASSES_PLUGINS"
PASSES_ENV = "HLO_PASSES_PASSES"
_HOOK_NAME = "hlo_passes"
# The platforms of a hook registered while jax discovered its plugins ($HLO_PASSES).
EVERY_PLATFORM = "every platform jax loads"


class XlaPassFallbackWarning(UserWarning):
    """``install(mode="rewrite")`` kept XLA's module for a module it could not rewrite safely."""


@dataclass
class ModuleOutcome:
    """What the pass did with one module XLA compiled (passed the pre-filter)."""

    module: str
    rewritten: list[str] = field(default_factory=list)  # one line per rewritten site
    found: int = 0  # sites found (rewritten or not)
    fallback: str | None = None  # why XLA's module was kept although the pass tried
    sites: list[Site] = field(default_factory=list)  # the sites rewritten, with their figures
    near_misses: list[NearMiss] = field(default_factory=list)  # the rules' refusals, each with its check
    # Lint modes (warn, log): the findings reported for this module, in hook_warning's words.
    findings: list[str] | None = None

    def __str__(self) -> str:
        if self.findings is not None:
            n = len(self.findings)
            return f"{self.module}: linted, {n} finding{'s' * (n != 1)}"
        if self.fallback:
            return f"{self.module}: fell back ({self.fallback})"
        if self.rewritten:
            return f"{self.module}: {len(self.rewritten)} site(s) rewritten"
        return f"{self.module}: unchanged ({self.found} site(s) found, none rewritten)"


@dataclass
class InstalledReport:
    """``installed_report()``: the pass's mode and platforms, and per module what it did."""

    mode: str | None
    platforms: tuple[str, ...]
    modules: list[ModuleOutcome]
    skipped: int  # modules the pre-filter let go without parsing (no collective, no marker)
    cache_key: str  # what the pass adds to jax's persistent compilation cache key ("" when nothing)
    notes: list[str] = field(default_factory=list)  # what the pass could not look at, each said once

    @property
    def sites_rewritten(self) -> int:
        return sum(len(m.rewritten) for m in self.modules)

    @property
    def fallbacks(self) -> list[ModuleOutcome]:
        return [m for m in self.modules if m.fallback]

    @property
    def findings(self) -> int:
        """Findings the lint modes reported (each once, in the module it was first seen in)."""
        return sum(len(m.findings or ()) for m in self.modules)

    def __str__(self) -> str:
        did = (f"{self.findings} finding(s)" if self.mode in ("warn", "log") else
               f"{self.sites_rewritten} site(s) rewritten, {len(self.fallbacks)} fallback(s)")
        head = (f"hlo_passes.install(mode={self.mode!r}) on {', '.join(self.platforms) or 'no platform'}: "
                f"{len(self.modules)} module(s) looked at, {did}, {self.skipped} module(s) skipped by the pre-filter")
        return "\n".join([head, *(f"  {m}" for m in self.modules), *(f"    {line}" for m in self.modules
                                                                      for line in [*m.rewritten, *(m.findings or ())]),
                          *(f"  note: {note}" for note in self.notes)])


@dataclass
class _State:
    mode: str | None = None
    platforms: tuple[str, ...] = ()
    passes: list[str] | None = None
    modules: list[ModuleOutcome] = field(default_factory=list)
    skipped: int = 0
    reported: set[Hashable] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    callbacks: dict[str, Any] = field(default_factory=dict)  # platform -> the callback registered for it
    explicit: bool = False  # install(platforms=...) named the platforms
    notes: list[str] = field(default_factory=list)  # installed_report().notes, each said once


_lock = threading.Lock()
_state = _State()


def installed() -> str | None:
    """The mode ``install`` was called with, or None."""
    return _state.mode


def installed_findings() -> list[Finding]:
    """Every distinct finding reported since ``install()`` (lint modes)."""
    with _lock:
        return list(_state.findings)


def installed_report() -> InstalledReport:
    """What the installed pass did since ``install()``: per module it parsed, the sites it
    rewrote (or why it fell back); and how many modules the pre-filter skipped."""
    with _lock:
        return InstalledReport(_state.mode, _state.platforms, [replace(m, rewritten=list(m.rewritten), sites=list(m.sites),
                                                                       findings=None if m.findings is None else list(m.findings),
                                                                       near_misses=list(m.near_misses))
                                                               for m in _state.modules],
                               _state.skipped, _cache_key_part(), list(_state.notes))


def _cache_key_part() -> str:
    """What the rewrite adds to jax's persistent cache key: this release, the mode and the passes
    (a plugin rule changes what is compiled).  Nothing in the lint modes: they change no program."""
    if _state.mode != "rewrite":
        return ""
    return f"|hlo_passes={__version__};mode=rewrite;passes={passes_key(_state.passes)};plugins={','.join(loaded_plugins())}"


# ---------------------------------------------------------------------------
# The callback XLA calls


_calls = [0]  # how many modules XLA has handed the pass (a compile for a topology checks it reached it)


def _on_compile(serialized: bytes, platform: str | None = None) -> bytes | None:
    # XLA calls this from inside compilation: None keeps its module; it must never raise.
    _calls[0] += 1
    # ``platform``: the backend the callback was registered for (install binds it); its sites are
    # priced for it, as hlo_passes.jit prices for the backend it compiles for.
    try:
        return _transform(serialized, platform_for(platform))
    except Exception as err:  # noqa: BLE001 - a bug of ours must not break the user's compile
        _failed(serialized, err)
        return None


def _module_name(serialized: bytes) -> str:
    try:
        return str(compat.hlo_module_from_proto(serialized).name)
    except Exception:  # noqa: BLE001 - the name is only for the message
        return "a module"


def _reason(err: BaseException) -> str:
    reason = err.reason if isinstance(err, ParseError) else str(err).split("\n", 1)[0]
    return f"{type(err).__name__}: {reason[:300]}"


def _failed(serialized: bytes, err: Exception) -> None:
    """Say that a module went unlinted or unrewritten, once per reason: silence would read as "clean"."""
    name = _module_name(serialized)
    mode = _state.mode
    if mode == "rewrite":
        _fallback(name, _reason(err))
        return
    key = ("skipped", type(err).__name__, _reason(err))
    with _lock:
        if key in _state.reported:
            return
        _state.reported.add(key)
    message = (f"hlo_passes.install could not lint {name} ({_reason(err)}); "
               "unfused MoE patterns in it, and in later modules failing the same way, go unreported")
    if mode == "log":
        log.warning("%s", message)
    else:
        warnings.warn(message, LintSkippedWarning, stacklevel=2)


def _fallback(name: str, why: str, outcome: ModuleOutcome | None = None) -> None:
    """Record that XLA keeps its own ``name``; one warning per module and reason."""
    with _lock:
        if outcome is None:
            outcome = ModuleOutcome(name)
            _state.modules.append(outcome)
        outcome.fallback = why
        outcome.rewritten, outcome.sites = [], []
        key = ("fallback", name, why)
        if key in _state.reported:
            return
        _state.reported.add(key)
    message = (f"{_multihost.report_tag()}hlo_passes.install(mode='rewrite'): {name} compiled as XLA "
               f"optimized it, not rewritten ({why})")
    if _multihost.reports_here():
        warnings.warn(message, XlaPassFallbackWarning, stacklevel=2)
    else:
        log.debug("%s", message)


def _transform(serialized: bytes, priced: str | None) -> bytes | None:
    """``priced``: the platform sites are priced for (the callback's backend; None: not one the
    cost model knows, the default, assumed)."""
    mode = _state.mode
    if mode is None:
        return None
    if b"tpu_custom_call" in serialized and b"ragged_dot" in serialized:
        _note_kernels_of_xla(serialized)
    # Most compiled modules (device_put, small helpers) cannot hold a site: no parse for them, and
    # for most not even the print to text.  The scans read only the module, so every process of a
    # job skips the same modules.
    read = read_module(serialized, _state.passes)
    if read is None:
        with _lock:
            _state.skipped += 1
        return None
    name, text = read
    if mode == "rewrite":
        return _rewrite(name, text, priced)
    _lint(name, text, mode, priced)
    return None


def _note_kernels_of_xla(serialized: bytes) -> None:
    """Once per process: the ragged-dots the active rules would look at reached the pass already
    lowered by XLA:TPU to its own kernels (the pass sees nothing of them, and would say nothing)."""
    ragged = [getattr(rule_meta(name), "code", name)
              for name in passes_inside_xla(_state.passes)
              if "ragged-dot" in (markers_for(name) or ())]
    if not ragged or any(key == ("note", "tpu kernels") for key in _state.reported):
        return
    hlo = compat.hlo_module_from_proto(serialized)
    count = ragged_dots_lowered_by_xla(hlo.to_string())
    if not count:
        return
    with _lock:
        if ("note", "tpu kernels") in _state.reported:
            return
        _state.reported.add(("note", "tpu kernels"))
        note = (f"{hlo.name}: {count} ragged-dot(s) reached the pass already lowered by XLA:TPU to its own "
                f"kernels (custom-call tpu_custom_call), which {', '.join(ragged)} cannot look at: XLA:TPU "
                "lowers every ragged-dot so before the pass runs; run them before XLA's pipeline "
                "(hlo_passes.jit, or hlo-rewrite on the lowered module). Said once.")
        _state.notes.append(note)
    log.info("hlo_passes: %s", note)


def _without_metadata(text: str) -> str:
    # Stack frames carry absolute paths, which may differ per host: not part of what is compiled.
    return re.sub(r", metadata=\{[^{}]*\}", "", text)


def _rewrite(name: str, text: str, priced: str | None) -> bytes | None:
    outcome = ModuleOutcome(name)
    with _lock:
        _state.modules.append(outcome)
    new: bytes | None = None
    sites: list[Site] = []
    error: str | None = None
    hints: list[str] = []  # an opt-in pass that would act where the default set did nothing
    try:
        new, new_text, sites, near = rewrite_module_text(name, text, priced, _state.passes, hints)
        outcome.found, outcome.near_misses = len(sites), near
    except Exception as err:  # noqa: BLE001 - the module falls back, below, after the processes agree
        error, new_text = _reason(err), None
    job = _multihost.current_job()
    if job is not None and _devices_named(text) > compat.local_device_count():
        decision = (_multihost.FALLBACK if error else _multihost.REWRITE if new is not None
                    else _multihost.UNCHANGED)
        vote = _multihost.Vote(decision, _multihost.fingerprint(_without_metadata(new_text or text)),
                               _multihost.fingerprint(_without_metadata(text)))
        try:
            agreement = job.agree(job.round(f"xla-pass-{name}"), vote, what=f"hlo_passes.install: {name}")
        except AgreementTimeoutError as err:
            # The silent process decides alone whatever it decides; the others keep XLA's module.
            error = error or _reason(err)
        else:
            if not agreement.rewrite and new is not None:
                error = error or f"the processes of the job did not rewrite it alike: {agreement.why}"
    if error is not None:
        _fallback(name, error, outcome)
        return None
    for hint in hints:
        with _lock:
            seen = ("opt-in", name, hint) in _state.reported
            _state.reported.add(("opt-in", name, hint))
        if not seen and _multihost.reports_here():
            log.info("%s%s", _multihost.report_tag(), hint)
    if new is None:
        return None
    lines = [_site_line(name, s) for s in sites if s.rewritten]
    with _lock:
        outcome.rewritten = lines
        outcome.sites = [s for s in sites if s.rewritten]
    if _multihost.reports_here():
        for line in lines:
            log.info("%s%s", _multihost.report_tag(), line)
    return new


_GROUPS = re.compile(r"(?:replica_groups|source_target_pairs)=(\{[{}\d,\s]*\}|\[[\d,]+\]<=\[[\d,]+\]|mesh\[[^\]]*\]|\S*)")


def _product(numbers: list[int]) -> int:
    count = 1
    for n in numbers:
        count *= n
    return count


def _devices_named(text: str) -> int:
    """How many devices the module's collectives reach: the largest device id their groups name,
    plus one (``{{0,1},{2,3}}``), the iota's size (``[2,4]<=[8]``) or the mesh's (jax >= 0.12:
    ``mesh['fsdp'=2,'tp'=4] {'fsdp'}``); 0 without a collective.  Groups it cannot read, and
    ``{}`` (every device), count as unbounded: agreeing is the safe side.

    Only a module whose collectives reach beyond this process's devices needs the processes to
    agree: one that stays on them (a process's own computation) compiles alone, and waiting
    there for the others would wait for modules they never compile.
    """
    most = 0
    for groups in _GROUPS.findall(text):
        if groups.startswith("{"):
            ids = [int(i) for i in re.findall(r"\d+", groups)]
            count = max(ids) + 1 if ids else sys.maxsize
        elif "<=" in groups:
            count = _product([int(d) for d in groups.split("<=")[1].strip("[]").split(",") if d])
        elif groups.startswith("mesh["):
            sizes = [int(n) for n in re.findall(r"=(\d+)", groups)]
            count = _product(sizes) if sizes else sys.maxsize
        else:
            count = sys.maxsize
        most = max(most, count)
    return most


def _site_line(module: str, site: Site) -> str:
    """The site's record (``diagnostics.from_site``, as the lint and hlo_passes.jit show it): where,
    and what the fix does."""
    record = from_site(site)
    source = shown_source(record.source)
    where = (f"at {source}" if source else
             f"at line {record.line} of the optimized module (its metadata names no source line)")
    return f"hlo_passes: rewrote {site.rule} ({record.form}) in {module} ({record.fix}) {where}"


def _lint(name: str, text: str, mode: str, priced: str | None) -> None:
    with parsed_for_one_call(text, "hlo", f"<compiled {name}>") as module:
        # _on_compile's pricing; a platform the cost model does not know is named as its default.
        # The module is the program XLA compiles (its combiners have run): its counts are what runs.
        findings = lint_module(module, platform=priced or DEFAULT_PLATFORM, gmm_target=_xla_own(priced),
                               dots_round_by_shape=_dots_round_by_shape(priced), claims=compiled_program)
    # Once per job, not once per host: only process 0 reports (_multihost).
    reports = _multihost.reports_here()
    said: list[str] = []
    outcome = ModuleOutcome(name, found=len(findings), findings=said)  # installed_report() counts it
    with _lock:
        _state.modules.append(outcome)
    for finding in findings:
        key = (finding.rule, name, finding.op_name or f"{finding.line}:{finding.column}")
        with _lock:
            if key in _state.reported:
                continue
            _state.reported.add(key)
            _state.findings.append(finding)
        text_msg = hook_warning(finding, name, _multihost.report_tag())
        with _lock:
            said.append(text_msg)
        if not reports:
            log.debug("%s", text_msg)
        elif mode == "log":
            log.warning("%s", text_msg)
        else:
            _warn_at_source(text_msg, finding)


def _warn_at_source(message: str, finding: Finding) -> None:
    """A ``MoELintWarning`` that Python shows at the user's source line when the compiled text
    names it (``model.py:21: MoELintWarning: ...`` and the line), else at the caller."""
    file, _, line = (finding.source or "").rpartition(":")
    if file and line.isdigit():
        warnings.warn_explicit(message, MoELintWarning, file, int(line))
    else:
        warnings.warn(message, MoELintWarning, stacklevel=3)


# ---------------------------------------------------------------------------
# Compiles for a topology (ahead of time, compile-only devices): never hung, never silent

# The platforms whose compile for a topology runs the registered pass like any other compile:
# XLA:CPU (jax 0.11 and 0.12 compile for a CPU topology and call it; tests/test_xla_pass_topology.py).
COMPILE_ONLY_RUNS_THE_PASS = frozenset({"cpu"})
# XLA:TPU's compile for a topology through the chip's own client (jax's cross-compile, taken when a
# chip of the platform is present) never returns while a transformation is registered, a bare no-op
# one too, never called; through the topology's own compile-only client it calls the transformation
# and returns (TPU v5e, jax 0.10.2, libtpu 0.0.42.1, 2026-12-05: docs/xla-pass.md, "Compiles for a
# topology").  Such compiles go through that client.  Any other platform (GPU: untried) steps aside.
COMPILE_ONLY_ON_ITS_OWN_CLIENT = frozenset({"tpu"})
RUN, OWN_CLIENT, ASIDE = "run", "own-client", "aside"


def compile_only_action(platform: str, compile_only: bool, *, mode: str | None,
                        platforms: Sequence[str], explicit: bool) -> str | None:
    """What the installed pass does about a compile on ``platform``.

    ``compile_only``: the compile is for a topology's compile-only devices
    (``jax.experimental.topologies``).  ``mode``, ``platforms`` and ``explicit``: the
    installed pass's mode, the platforms it registered for, and whether the user named
    them.  None: nothing (not installed, or a platform the user named away); ``RUN``: an
    ordinary compile (the devices present, or XLA:CPU's compile for a topology);
    ``OWN_CLIENT``: compiled through the topology's own client, where the pass runs (TPU);
    ``ASIDE``: the hook taken off the platform around the compile, with one warning
    (``compile_only_reason``).
    """
    if mode is None:
        return None
    if not compile_only or platform in COMPILE_ONLY_RUNS_THE_PASS:
        return RUN
    if explicit and platform not in platforms:
        return None
    return OWN_CLIENT if platform in COMPILE_ONLY_ON_ITS_OWN_CLIENT else ASIDE


def compile_only_reason(platform: str) -> str:
    """The warning's reason when the pass steps aside for a compile for a ``platform`` topology."""
    return (f"compiled ahead of time for a {platform} topology (compile-only devices): XLA's compile for a "
            f"topology of {platform} is untried with a module transformation registered (XLA:TPU's through the "
            "chip's client never returns), so the pass stepped aside for it (docs/xla-pass.md, 'Compiles for a "
            "topology'); hlo_passes.jit rewrites the program before such a compile")


def not_reached_reason(platform: str) -> str:
    """The warning's reason when XLA compiled for a ``platform`` topology without calling the pass."""
    return (f"compiled ahead of time for a {platform} topology (compile-only devices) without the pass: XLA did "
            f"not hand it the module (its hook is registered on {platform} only once jax has started that "
            f"backend in this process); hlo_passes.jit rewrites the program before such a compile")


class _CompileGate:
    """Compiles of a platform wait while the pass is taken off it for a compile for a topology, and
    that compile waits for those under way: none of them compiles without the pass by accident."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running: dict[str, int] = {}
        self._aside: dict[str, threading.Thread] = {}

    @contextmanager
    def compiling(self, platform: str) -> Iterator[None]:
        me = threading.current_thread()
        with self._cond:
            self._cond.wait_for(lambda: self._aside.get(platform) in (None, me))
            self._running[platform] = self._running.get(platform, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                self._running[platform] -= 1
                self._cond.notify_all()

    @contextmanager
    def aside(self, platform: str) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: platform not in self._aside and not self._running.get(platform))
            self._aside[platform] = threading.current_thread()
        try:
            yield
        finally:
            with self._cond:
                del self._aside[platform]
                self._cond.notify_all()


_gate = _CompileGate()


@contextmanager
def _around_compile(platform: str, compile_only: bool, module_name: str) -> Iterator[None]:
    """What jax's every compile runs inside (``_jax_compat.wrap_backend_compile``)."""
    with _lock:
        mode, platforms, explicit = _state.mode, _state.platforms, _state.explicit
        callback = _state.callbacks.get(platform, _state.callbacks.get(EVERY_PLATFORM))
    action = compile_only_action(platform, compile_only, mode=mode, platforms=platforms, explicit=explicit)
    if action is None:
        yield
    elif action == RUN:
        with _gate.compiling(platform):
            yield
    elif action == OWN_CLIENT:
        calls = _calls[0]
        with _gate.compiling(platform), compat.compiling_on_the_topology_client():
            yield
        if _calls[0] == calls:  # never silent: XLA compiled it without asking the pass
            _stepped_aside(module_name, not_reached_reason(platform))
    else:
        _stepped_aside(module_name, compile_only_reason(platform))
        with _gate.aside(platform):
            if callback is None:  # registered for no such platform: nothing to take off
                yield
            else:
                with compat.suspend_module_transformation(_HOOK_NAME, platform, callback):
                    yield


def _stepped_aside(name: str, reason: str) -> None:
    """One warning: ``name`` is compiled as XLA makes it (rewrite mode) or goes unlinted."""
    if _state.mode == "rewrite":
        _fallback(name, reason)
        return
    key = ("aside", name, reason)
    with _lock:
        if key in _state.reported:
            return
        _state.reported.add(key)
    message = f"hlo_passes.install could not lint {name} ({reason})"
    if _state.mode == "log":
        log.warning("%s", message)
    else:
        warnings.warn(message, LintSkippedWarning, stacklevel=2)


# ---------------------------------------------------------------------------
# install / uninstall


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(map(repr, MODES))}")


def _key_the_cache(mode: str) -> None:
    """In rewrite mode the persistent compilation cache must not hand a run without the rewrite an
    executable compiled with it (or the reverse): hlo_passes' part goes into jax's cache key."""
    if mode != "rewrite":
        return
    try:
        compat.add_to_cache_key(_cache_key_part)
    except compat.UnsupportedJaxError as err:
        if compat.persistent_cache_dir() is not None:
            raise RuntimeError(
                "hlo_passes.install(mode='rewrite') refuses to run with jax's persistent compilation cache "
                f"({compat.persistent_cache_dir()}): this jax cannot key cached executables on the rewrite "
                f"({err}); disable the cache (jax_compilation_cache_dir) or use mode='warn'") from None


def _plugin_error(platform: str | None, err: BaseException) -> str:
    which, target = (f"the {platform}", platform) if platform else ("a", "it")
    return (f"hlo_passes.install: {which} PJRT plugin does not offer XLA's module-transformation "
            f"extension ({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}); modules compiled "
            f"for {target} are neither linted nor rewritten (update the plugin: jax >= 0.11 and its matching "
            "plugin release have it)")


def install(mode: str = "warn", *, platforms: str | Sequence[str] | None = None,
            passes: Sequence[str] | None = None) -> None:
    """Run hlo_passes on every module XLA compiles from now on (docs/xla-pass.md).

    ``mode="warn"`` issues a ``MoELintWarning`` per finding, ``"log"`` logs it
    on the ``hlo_passes`` logger; programs are never changed.  ``"rewrite"``
    rewrites each module XLA compiles (one INFO log line per rewritten site;
    ``installed_report()``).  ``platforms``: where (``"cpu"``, ``"cuda"``,
    ``"tpu"``, ...; default every backend this process has); a platform
    without a backend, or a plugin without XLA's module-transformation
    extension, named here raises ``RuntimeError`` (by default: a warning).
    ``passes``: pass names or rule codes, None the default set.  Calling it
    again changes the mode and passes (the platforms stay those of the first
    call: ``uninstall()`` first to change them); ``uninstall()`` removes the hook.
    """
    _check_mode(mode)
    resolved = resolve_passes(passes) if passes is not None else None
    explicit = platforms is not None
    wanted: list[str] | None = ([platforms] if isinstance(platforms, str) else
                                list(platforms) if platforms is not None else None)
    present = compat.backend_platforms()
    if wanted is not None:
        # "gpu" is jax's alias of whichever GPU platform this process has.
        gpus: list[str] = [g for g in ("cuda", "rocm") if g in present]
        wanted = [q for p in wanted for q in ((gpus or [p]) if p == "gpu" else [p])]
    with _lock:
        _key_the_cache(mode)
        already = _state.mode is not None
        _state.mode, _state.passes = mode, resolved
        if already:
            return
    targets = wanted if wanted is not None else present
    if explicit:
        missing = [p for p in targets if p not in present]
        if missing:
            with _lock:
                _state.mode = None
            raise RuntimeError(f"hlo_passes.install: no {', '.join(missing)} backend in this process "
                               f"(present: {', '.join(present)})")
    registered: list[str] = []
    callbacks: dict[str, Any] = {}
    for platform in targets:
        if platform == "cpu" and platform in present:
            # Whether its dots round by their shape, asked now, before the hook is there: a GMM
            # merge the module does not mark as inexact is then made on the collectives only.  Asked
            # of XLA:CPU, whose YNNPACK dots these are (as the text tools ask it, gmm.target).
            compat.dots_round_by_shape(platform)
        callback = functools.partial(_on_compile, platform=platform)
        try:
            compat.register_module_transformation(callback, _HOOK_NAME, [platform])
        except Exception as err:  # noqa: BLE001 - a plugin without the extension (jax >= 0.11 raises)
            if explicit:
                for done in registered:
                    compat.clear_module_transformation(_HOOK_NAME, [done])
                with _lock:
                    _state.mode = None
                raise RuntimeError(_plugin_error(platform, err)) from err
            warnings.warn(_plugin_error(platform, err), XlaPassFallbackWarning, stacklevel=2)
            continue
        registered.append(platform)
        callbacks[platform] = callback
    with _lock:
        _state.platforms, _state.callbacks, _state.explicit = tuple(registered), callbacks, explicit
    _guard_topology_compiles()


def _guard_topology_compiles() -> None:
    """Wrap jax's compiles (once), so that a compile for a topology never hangs on the pass."""
    try:
        compat.wrap_backend_compile(_around_compile)
    except compat.UnsupportedJaxError as err:
        warnings.warn(f"hlo_passes.install: {err}; an ahead-of-time compile for a TPU topology may then never "
                      "return with the pass installed (docs/xla-pass.md, 'Compiles for a topology')",
                      XlaPassFallbackWarning, stacklevel=3)


def uninstall() -> bool:
    """Remove the hook installed by ``install``; whether one was installed."""
    global _state
    with _lock:
        if _state.mode is None:
            return False
        if _state.platforms == (EVERY_PLATFORM,):  # registered during plugin discovery
            compat.clear_module_transformation(_HOOK_NAME)
        for platform in (p for p in _state.platforms if p != EVERY_PLATFORM):
            compat.clear_module_transformation(_HOOK_NAME, [platform])
        _state = _State()
        return True


def activate_from_environment(environ: dict[str, str] | None = None) -> str | None:
    """``$HLO_PASSES`` → the mode installed while jax discovers its plugins (None: not set).

    Called from ``jax_plugins.hlo_passes_xla_pass.initialize()``, inside jax's
    plugin discovery: the backends do not exist yet, so the hook is registered
    for XLA:CPU at once and for each PJRT plugin as jax loads it
    (``_jax_compat.register_module_transformation_during_discovery``).
    """
    env = environ if environ is not None else os.environ
    raw = env.get(ENV, "").strip().lower()
    if raw in ("", "0", "off", "false", "no"):
        return None
    if raw not in ENV_MODES:
        warnings.warn(f"${ENV}={raw!r} is not one of {', '.join(sorted(ENV_MODES))}: hlo_passes is off",
                      XlaPassFallbackWarning, stacklevel=2)
        return None
    mode = ENV_MODES[raw]
    try:
        for spec in filter(None, (s.strip() for s in env.get(PLUGINS_ENV, "").split(","))):
            load_plugin(spec)
        names = [n.strip() for n in env.get(PASSES_ENV, "").split(",") if n.strip()]
        passes = resolve_passes(names) if names else None
        with _lock:
            _key_the_cache(mode)
    except Exception as err:  # noqa: BLE001 - jax's plugin discovery must go on; hlo_passes stays off
        warnings.warn(f"${ENV}={raw}: {_reason(err)}; hlo_passes is off", XlaPassFallbackWarning, stacklevel=2)
        return None
    with _lock:
        _state.passes = passes
        if _state.mode is not None:
            _state.mode = mode
            return mode
        _state.mode = mode

    def on_plugin_error(err: BaseException) -> None:
        warnings.warn(_plugin_error(None, err), XlaPassFallbackWarning, stacklevel=2)

    try:
        compat.register_module_transformation_during_discovery(_on_compile, _HOOK_NAME, on_plugin_error)
    except Exception as err:  # noqa: BLE001 - jax's plugin discovery must go on; hlo_passes stays off
        with _lock:
            _state.mode = None
        warnings.warn(f"${ENV}={raw}: could not register the pass ({_reason(err)}); hlo_passes is off",
                      XlaPassFallbackWarning, stacklevel=2)
        return None
    with _lock:
        _state.platforms, _state.callbacks = (EVERY_PLATFORM,), {EVERY_PLATFORM: _on_compile}
    _guard_topology_compiles()
    _say_what_it_did()
    return mode


def _say_what_it_did() -> None:
    """Activated by the environment, in a program that configured no logging (yet): the INFO lines
    of the rewritten sites and a summary at exit go to stderr, as the user asked for the pass."""
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    atexit.register(lambda: log.info("%s", str(installed_report()).splitlines()[0]) if _state.mode else None)


# hlo_passes.jit's own optimized-HLO stage asks whether the pass is installed (it then steps aside).
xla_stage.set_installed_probe(installed)
