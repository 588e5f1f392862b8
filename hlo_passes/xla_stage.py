"""The optimized-HLO stage: the rules of the pass inside XLA run on a module XLA hands over.

Two callers share it: ``xla_pass.install()`` (every module XLA compiles in the process) and
``hlo_passes.jit``'s own compile (``Stage``: the one module that compile makes, issue 46).  Some
fixes exist only in optimized HLO: the kept weight-gradient GMMs' two reduce-scatters become one
combined (variadic) reduce-scatter there (``rewrites.split.held.combine``), where StableHLO's
reduce_scatter takes one operand.  The jit's rewrite of the lowered StableHLO runs first; then,
for the duration of its ``compile()`` call, a module transformation is registered that acts on
that compile's module only:

* the module to compile carries a module frontend attribute ``hlo_passes_stage`` whose value is a
  token made of this release, the passes and a fingerprint of the program (``stage_token``); the
  transformation acts on a module that carries a pending token, and hands every other module
  (other compiles of the process, other threads) back untouched.  XLA compiles on threads of its
  own, so the thread that called ``compile()`` says nothing about the module;
* the attribute is part of the module jax serializes, so jax's persistent compilation cache keys
  the executable on it: a plain ``jax.jit`` of the same program (no attribute) never loads the
  stage's executable, nor the jit one compiled without it; the token names the release and the
  passes, as ``xla_pass``'s part of the cache key does;
* it is registered under its own name (``HOOK_NAME``) for the compile's platform while at least
  one such compile is under way, and cleared after the last one.

``why_not`` says where the stage does not run: the pass installed (``install()``,
``HLO_PASSES``: it rewrites the module already; no double rewrite), a compile for a topology's
compile-only devices (``xla_pass.compile_only_action``: XLA:TPU's never returns with a
transformation registered), a multi-process job (each optimized module would need the
processes' agreement, which the installed pass makes), and platforms where the pass is not known
sound (only XLA:CPU is tested with the rewrite inside XLA, docs/xla-pass.md "Platforms").
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import _jax_compat as compat
from ._version import __version__
from .gmm.target import GmmTarget, gmm_target
from .pass_interface import PassContext
from .passes import available_passes, loaded_plugins
from .passes.compiled import passes_key, rewrite_compiled_text
from .passes.prescan import markers_for, may_have_sites
from .report import NearMiss, Site

__all__ = [
    "HOOK_NAME",
    "STAGE_ATTRIBUTE",
    "STAGE_PLATFORMS",
    "Stage",
    "StageOutcome",
    "compiling",
    "marked",
    "proto_may_have_sites",
    "read_module",
    "rewrite_module_text",
    "set_installed_probe",
    "stage_token",
    "why_not",
    "with_parameter_shardings",
]

HOOK_NAME = "hlo_passes.jit"
STAGE_ATTRIBUTE = "hlo_passes_stage"
# The platforms where the rewrite inside XLA is known sound (tested bit-equal, docs/xla-pass.md).
STAGE_PLATFORMS = frozenset({"cpu"})


# ---------------------------------------------------------------------------
# Reading a module XLA hands over (both callers)


def marker_core(marker: str) -> bytes:
    """The longest run of name characters of a pre-scan marker (``"add("`` → ``add``)."""
    return max(re.findall(r"[\w.\-]+", marker) or [""], key=len).encode()


def proto_may_have_sites(serialized: bytes, passes: Sequence[str] | None) -> bool:
    """``may_have_sites`` on the serialized proto, before printing it: False only when no rule of
    ``passes`` can have a site.  Every marker spells an opcode, a custom-call target or a name,
    which the proto holds as the same UTF-8 string; a marker's text syntax (a parenthesis) is not
    in the proto, so its longest run of name characters is what is looked for (looser: a false
    "maybe" costs the print and the text scan that follow)."""
    looked: set[bytes] = set()  # the rules share their markers: each searched for once
    for name in (list(available_passes()) if passes is None else passes):
        markers = markers_for(name)
        if markers is None:
            return True
        for core in {marker_core(m) for m in markers} - looked:
            if core in serialized:
                return True
            looked.add(core)
    return False


_ENTRY_PARAMETER = re.compile(r"^(\s*%?[\w.\-]+ = .*? parameter\((\d+)\))(.*)$")


def with_parameter_shardings(text: str, shardings: Sequence[str]) -> str:
    """``text`` with each entry parameter that states no sharding given the one the partitioner
    recorded for it (``shardings``, by parameter number).  jax >= 0.12's XLA prints none on an
    optimized module's parameters, where jax 0.10/0.11's printed them; without them no rule can
    tell a replicated weight from a split one (issue 43: a replicated weight's reduction read as
    one worth fusing).  Text whose parameters state theirs, or a module never partitioned (no
    recorded shardings), is returned as it is."""
    if not shardings:
        return text
    lines = text.split("\n")
    entry = next((n for n, line in enumerate(lines) if line.startswith("ENTRY ")), None)
    if entry is None:
        return text
    for n in range(entry + 1, len(lines)):
        if lines[n].startswith("}"):
            break
        found = _ENTRY_PARAMETER.match(lines[n])
        if found is None or "sharding=" in found.group(3):
            continue
        number = int(found.group(2))
        if number < len(shardings):
            lines[n] = f"{found.group(1)}, sharding={shardings[number]}{found.group(3)}"
    return "\n".join(lines)


def read_module(serialized: bytes, passes: Sequence[str] | None) -> tuple[str, str] | None:
    """``(name, text)`` of the module XLA handed over, its entry parameters' shardings stated; None
    when the pre-scans show that no rule of ``passes`` can have a site (most compiled modules:
    device_put, small helpers; no parse for them, for most not even the print to text)."""
    if not proto_may_have_sites(serialized, passes):
        return None
    hlo = compat.hlo_module_from_proto(serialized)
    text = hlo.to_string()
    if not may_have_sites(text, passes):
        return None
    try:
        recorded = compat.parameter_shardings(hlo)
    except compat.UnsupportedJaxError:  # a jaxlib without them: the text as XLA prints it
        recorded = []
    return str(hlo.name), with_parameter_shardings(text, recorded)


def xla_own(priced: str | None) -> GmmTarget:
    """Inside XLA every ragged-dot is XLA's own (no kernel lowering runs here), on the callback's
    backend: a rule resting on what the GMM kernel writes past its groups refuses (gmm.target)."""
    return gmm_target(priced, "xla")


def dots_round_by_shape(priced: str | None) -> bool:
    """What was found of the backend's dots (``_jax_compat.dots_round_by_shape``, asked before the
    compile: the callback must not compile); False where it was not asked (the plugin, installed
    before any backend exists): the module's own markings (a GMM's ``__ynn_fusion``) then decide."""
    return priced is not None and bool(compat.known_dots_round_by_shape(priced))


def rewrite_module_text(name: str, text: str, priced: str | None, passes: Sequence[str] | None,
                        hints: list[str] | None = None) -> tuple[bytes | None, str | None, list[Site], list[NearMiss]]:
    """The rules on an optimized module (``passes.compiled.rewrite_compiled_text``), priced for
    ``priced``: ``(proto for XLA or None when nothing changed, its text, sites, near misses)``.
    Raises what the rules and XLA's parser raise (the caller's fallback)."""
    context = PassContext.for_platform(priced, pictures=False, gmm_target=xla_own(priced),
                                       dots_round_by_shape=dots_round_by_shape(priced))
    new_text, sites, near = rewrite_compiled_text(text, name, passes, hints, context=context)
    if new_text is None:
        return None, None, sites, near
    return compat.hlo_text_to_proto(new_text), new_text, sites, near


# ---------------------------------------------------------------------------
# hlo_passes.jit's own compile


# ``xla_pass.installed`` (set when that module is imported: it sits above this one); None: nothing
# installed.  The stage never runs while the pass is installed: it rewrites every module already.
_installed_probe: list[Callable[[], str | None]] = [lambda: None]


def set_installed_probe(probe: Callable[[], str | None]) -> None:
    _installed_probe[0] = probe


def stage_token(program: str, passes: Sequence[str] | None) -> str:
    """What the module to compile carries (``STAGE_ATTRIBUTE``): this release, the passes (and the
    plugins loaded: a plugin rule changes what is compiled) and a fingerprint of ``program``.
    Deterministic, so that jax's persistent cache finds the executable again in the next process."""
    digest = hashlib.sha256(program.encode()).hexdigest()[:24]
    return f"hlo_passes={__version__};passes={passes_key(passes)};plugins={','.join(loaded_plugins())};program={digest}"


def why_not(platform: str | None, *, compile_only: bool, multi_process: bool) -> str | None:
    """Why the stage does not run for a compile on ``platform`` (None: it runs)."""
    mode = _installed_probe[0]()
    if mode is not None:
        # In every mode: rewriting, the installed pass rewrites the module (once, not twice); linting,
        # it reports on the module XLA makes, which a second transformation would change under it.
        return f"the pass is installed (install(mode={mode!r}), HLO_PASSES): it sees every compiled module itself"
    if platform not in STAGE_PLATFORMS:
        return (f"the rewrite inside XLA is tested on {', '.join(sorted(STAGE_PLATFORMS))} only, not on "
                f"{platform or 'this platform'} (docs/xla-pass.md, 'Platforms')")
    if compile_only:
        return ("a compile for a topology's compile-only devices (with a module transformation registered, "
                "XLA:TPU's never returns: docs/xla-pass.md, 'Compiles for a topology')")
    if multi_process:
        return ("a multi-process job: each optimized module would need the processes' agreement "
                "(HLO_PASSES=rewrite makes it)")
    return None


@dataclass
class StageOutcome:
    """What the stage did with the module of one compile."""

    reached: bool = False  # XLA handed the module over (False: e.g. an executable from jax's cache)
    module_name: str = ""  # the name XLA gave the module
    handed: str | None = None  # XLA's optimized text, before the stage (shardings stated); None: skipped
    rewritten: bool = False  # XLA was handed the rewritten module
    sites: list[Site] = field(default_factory=list)
    near_misses: list[NearMiss] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    error: str | None = None  # why XLA's module was kept although the stage tried


class Stage:
    """One compile's stage: the token its module carries, the platform, the passes and what came of it."""

    def __init__(self, token: str, platform: str, passes: Sequence[str] | None) -> None:
        self.token, self.platform, self.passes = token, platform, passes
        self.marker = token.encode()
        self.outcome = StageOutcome()

    def transform(self, serialized: bytes) -> bytes | None:
        """The module of this compile, rewritten (None: XLA keeps its own); never raises."""
        out = self.outcome
        out.reached = True
        try:
            read = read_module(serialized, self.passes)
            if read is None:
                return None
            out.module_name, out.handed = read
            new, _, sites, near = rewrite_module_text(read[0], read[1], self.platform, self.passes, out.hints)
            out.sites, out.near_misses = sites, near
            out.rewritten = new is not None
            return new
        except Exception as err:  # noqa: BLE001 - a bug of ours must not break the user's compile
            out.error = f"{type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"
            out.sites, out.near_misses, out.rewritten = [], [], False
            return None


_lock = threading.Lock()
_ATTRIBUTE_BYTES = STAGE_ATTRIBUTE.encode()  # in the proto of every module a stage marked
_pending: dict[bytes, list[Stage]] = {}  # marker -> the stages compiling a module that carries it
_registered: dict[str, int] = {}  # platform -> compiles with a stage under way


def _on_compile(serialized: bytes) -> bytes | None:
    # XLA calls this from inside every compile on the platform while a stage is pending: None keeps
    # its module.  Only a module that carries a pending marker is ours.
    if _ATTRIBUTE_BYTES not in serialized:
        return None
    with _lock:
        stage = next((s for marker, stages in _pending.items() if stages and marker in serialized
                      for s in stages if not s.outcome.reached), None)
        if stage is None:
            return None
        stage.outcome.reached = True  # one module per stage: a second compile of it is not this one's
    return stage.transform(serialized)


@contextmanager
def compiling(stage: Stage | None) -> Iterator[None]:
    """Inside it, XLA's compile of the module that carries ``stage``'s token goes through the stage
    (``stage`` None: nothing is registered)."""
    if stage is None:
        yield
        return
    with _lock:
        _pending.setdefault(stage.marker, []).append(stage)
        if not _registered.get(stage.platform):
            compat.register_module_transformation(_on_compile, HOOK_NAME, [stage.platform])
        _registered[stage.platform] = _registered.get(stage.platform, 0) + 1
    try:
        yield
    finally:
        with _lock:
            _pending[stage.marker].remove(stage)
            if not _pending[stage.marker]:
                del _pending[stage.marker]
            _registered[stage.platform] -= 1
            if not _registered[stage.platform]:
                del _registered[stage.platform]
                compat.clear_module_transformation(HOOK_NAME, [stage.platform])


def marked(lowered: Any, passes: Sequence[str] | None) -> tuple[Any, str]:
    """A copy of jax's ``Lowered`` whose module carries its token (``STAGE_ATTRIBUTE``,
    ``stage_token``), and the token; ``lowered`` and its module are left as they are (jax may share
    them with plain ``jax.jit``)."""
    made: list[str] = []

    def token(program: str) -> str:
        made.append(stage_token(program, passes))
        return made[0]

    copy = compat.lowered_with_frontend_attribute(lowered, STAGE_ATTRIBUTE, token)
    return copy, made[0]
