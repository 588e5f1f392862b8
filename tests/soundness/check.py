"""One generated program, compiled with the pass and without it, outputs compared.

Entry points (``ENTRIES``):

* ``xla``: the pass inside XLA (``hlo_passes.install(mode="rewrite", passes=<every rule>)``, what
  ``HLO_PASSES=rewrite HLO_PASSES_PASSES=<every code>`` installs) around a fresh ``jax.jit``
  lowering and compile, then ``uninstall()``;
* ``jit``: ``hlo_passes.jit(fn, passes=<every rule>)`` (its kernel ``auto``).

Both are compared with ``jax.jit`` without anything installed, every output leaf: equal within
the compute dtype's rounding (``tolerance``), NaN where NaN.  An entry that fell back (kept XLA's
module, ran jax's program) is equal by construction and counted as such.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .programs import Spec, build

ENTRIES = ("xla", "jit")
# Rounding of one operation in the compute dtype, and how many of them an output may differ by:
# a rewrite regroups collectives, it does not reassociate sums, so outputs are expected bit-equal;
# the margin only covers XLA fusing a reshaped program differently (a few roundings).
EPS = {"float32": 2.0**-23, "bfloat16": 2.0**-8, "int8": 2.0**-8}
ROUNDINGS = 8


def every_rule() -> list[str]:
    from hlo_passes.passes import available_passes

    return list(available_passes())


@dataclass
class Outcome:
    spec: Spec
    entry: str
    ok: bool = True
    sites: list[str] = field(default_factory=list)  # rewritten sites (rule form)
    fallback: str | None = None
    changed: bool = False  # the entry changed the program (else it ran XLA's / jax's own)
    max_diff: float = 0.0
    scale: float = 0.0
    error: str | None = None  # the program itself failed (both ways): not a verdict on the pass
    seconds: float = 0.0

    def line(self) -> str:
        verdict = "ok" if self.ok else "DIFF"
        if self.error:
            verdict = "error"
        return (f"{verdict} entry={self.entry} sites={len(self.sites)}{' fallback' if self.fallback else ''}"
                f"{' changed' if self.changed else ''} "
                f"max_diff={self.max_diff:.3g} scale={self.scale:.3g} {self.spec.short()}"
                + (f" error={self.error}" if self.error else "")
                + (f" rewritten=[{'; '.join(self.sites)}]" if self.sites and not self.ok else ""))


def _leaves(tree: Any) -> list[np.ndarray]:
    import jax

    return [np.asarray(jax.device_get(a)).astype(np.float32) for a in jax.tree_util.tree_leaves(tree)]


def compare(spec: Spec, want: list[np.ndarray], got: list[np.ndarray]) -> tuple[bool, float, float]:
    """(equal within the rounding, largest difference, largest |output|)."""
    if len(want) != len(got):
        return False, float("inf"), 0.0
    worst, scale, ok = 0.0, 0.0, True
    for w, g in zip(want, got):
        if w.shape != g.shape:
            return False, float("inf"), 0.0
        if not np.array_equal(np.isnan(w), np.isnan(g)) or not np.array_equal(np.isinf(w), np.isinf(g)):
            ok = False
            worst = float("inf")
            continue
        finite = np.isfinite(w)
        if finite.any():
            top = float(np.abs(w[finite]).max())
            diff = float(np.abs(w[finite] - g[finite]).max())
            scale, worst = max(scale, top), max(worst, diff)
            if diff > ROUNDINGS * EPS[spec.dtype] * max(top, 1e-30):
                ok = False
        if not np.array_equal(w[~finite], g[~finite], equal_nan=True):
            ok = False
    return ok, worst, scale


def _fresh_run(fn: Any, args: tuple[Any, ...]) -> list[np.ndarray]:
    import jax

    # jax keeps executables by module: without this, the same program compiled again (with the
    # pass, or without it after it) would reuse the other compile's executable.
    jax.clear_caches()
    compiled = fn.lower(*args).compile()
    return _leaves(compiled(*args))


def run_one(spec: Spec, entries: tuple[str, ...] = ("xla",)) -> list[Outcome]:
    """``spec`` through each entry point.  The reference (``jax.jit``, nothing installed) is
    compiled only when an entry changed the program: where the pass kept XLA's module (or
    ``hlo_passes.jit`` kept jax's lowering) the same executable runs, equal by construction
    (``Outcome.changed`` False: the pass stayed out)."""
    import warnings

    import jax

    import hlo_passes
    from hlo_passes import xla_pass

    try:
        step, args, kwargs = build(spec)
    except Exception as err:  # noqa: BLE001 - the program itself: recorded, not a verdict
        return [Outcome(spec, e, error=f"build {type(err).__name__}: {str(err).splitlines()[0][:200]}")
                for e in entries]
    rules = every_rule()
    want: list[np.ndarray] | None = None
    outcomes = []
    for entry in entries:
        out = Outcome(spec, entry)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if entry == "xla":
                    xla_pass.install(mode="rewrite", passes=rules)
                    try:
                        got = _fresh_run(jax.jit(step, **kwargs), args)
                        report = xla_pass.installed_report()
                    finally:
                        xla_pass.uninstall()
                    out.sites = [f"{s.rule} {s.form}" for m in report.modules for s in m.sites if s.rewritten]
                    falls = [m.fallback for m in report.modules if m.fallback]
                    out.fallback = falls[0] if falls else None
                    out.changed = any(m.rewritten for m in report.modules) and not falls
                else:
                    jax.clear_caches()
                    jitted = hlo_passes.jit(step, passes=rules, **kwargs)
                    low = jitted.lower(*args)
                    out.sites = [f"{s.rule} {s.form}" for s in low.report if s.rewritten]
                    out.fallback = _why(low.error) if low.fell_back else None
                    out.changed = low.rewritten and not low.fell_back
                    got = _leaves(jitted(*args))
                if out.changed or out.sites:
                    if want is None:
                        want = _fresh_run(jax.jit(step, **kwargs), args)
                    out.ok, out.max_diff, out.scale = compare(spec, want, got)
        except Exception as err:  # noqa: BLE001 - a defect if the program runs without the pass
            out.error = f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = want if want is not None else _fresh_run(jax.jit(step, **kwargs), args)
                out.ok = False  # it runs without the pass, not with it
            except Exception:  # noqa: BLE001 - the program itself fails: no verdict on the pass
                out.error = f"program: {out.error}"
        out.seconds = time.perf_counter() - t0
        outcomes.append(out)
    return outcomes


def _why(err: BaseException | None) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0][:200]}" if err is not None else ""
