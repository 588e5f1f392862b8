"""One text through the whole tool, and what in the result breaks the contract.

The contract (issue 21): ``parse`` returns a Module or raises ``ParseError``
located at a line and column; on a parsed module ``to_text`` and
``to_text(regenerate=True)`` return text (a ``ParseError`` from a lazily
decoded attribute is allowed, and counted as *late*), the regenerated text
parses again, ``parse(..., validate=True)`` gives a Module or a ParseError,
the verifier returns its findings, and ``run_passes(..., strict=True)``
rewrites or refuses (strict: an internal error in a rule is raised, not
turned into a near miss); CRLF input keeps CRLF line endings.  ``check``
returns a dict: ``outcome`` (``ok``, ``parse-error``, or a non-contract kind)
and, for a finding, ``signature`` — kind, stage, exception type and the
innermost ``hlo_passes`` frame — which is what the reducer preserves.
"""
from __future__ import annotations

import functools
import traceback
import warnings
from typing import Any

# Outcomes that break the contract (everything else is fine).
NON_CONTRACT = ("wrong-exception", "hang", "death", "unlocated-parse-error", "regen-unparseable", "crlf-mixed")
STAGES = ("parse", "to_text", "regenerate", "reparse", "validate", "verify", "run_passes", "print_result")


def innermost_frame(tb: Any) -> str:
    """``hlo_passes/x.py:123 func`` of the deepest frame inside the package (where it was raised)."""
    where = "?"
    for frame in traceback.extract_tb(tb):
        path = frame.filename.replace("\\", "/")
        k = path.rfind("/hlo_passes/")
        if k >= 0:
            where = f"{path[k + 1:]}:{frame.lineno} {frame.name}"
    return where


def _finding(kind: str, stage: str, exc: BaseException | None = None, detail: str = "") -> dict[str, Any]:
    etype = type(exc).__name__ if exc is not None else ""
    where = innermost_frame(exc.__traceback__) if exc is not None else ""
    message = (str(exc).splitlines() or [""])[0][:300] if exc is not None else detail
    return {"outcome": kind, "stage": stage, "type": etype, "where": where, "message": message,
            "signature": f"{kind}|{stage}|{etype}|{where}"}


def _masked(err: Any) -> bool:
    """A scanner invariant that broke, caught and reported as a ParseError."""
    return err.reason.startswith("malformed input")


def _unlocated(err: Any) -> bool:
    return err.line < 1 or err.column < 1 or (_masked(err) and (err.line, err.column) == (1, 1))


def _bare_newline(text: str) -> bool:
    return text.count("\n") != text.count("\r\n")


@functools.cache
def _strict_kwargs() -> tuple[tuple[str, Any], ...]:
    # The pre-fix commit (the rediscovery run) has no ``strict``; its rules raise anyway.
    import inspect

    from hlo_passes import passes
    kwargs: list[tuple[str, Any]] = [("strict", True)] if "strict" in inspect.signature(passes.run_passes).parameters else []
    # Every registered rule, the opt-in ones (MOE003, MOE004) too: the default list leaves them out.
    if hasattr(passes, "available_passes"):
        kwargs.append(("passes", tuple(passes.available_passes())))
    return tuple(kwargs)


def check(text: str, set_stage: Any = None) -> dict[str, Any]:
    """Run ``text`` through every stage; ``set_stage(i)`` is told which stage runs (for hang reports)."""
    import hlo_passes
    from hlo_passes import ParseError
    from hlo_passes.ir.verify import verify_module

    def stage(name: str) -> str:
        if set_stage is not None:
            set_stage(STAGES.index(name))
        return name

    crlf_only = "\r\n" in text and not _bare_newline(text)
    late: list[str] = []
    warnings.simplefilter("ignore")
    where = stage("parse")
    try:
        module = hlo_passes.parse(text)
    except ParseError as e:
        if _unlocated(e):
            return _finding("unlocated-parse-error", where, e)
        return {"outcome": "parse-error", "late": late, "masked": _masked(e)}
    except BaseException as e:  # noqa: BLE001 - naming every other exception is the point
        return _finding("wrong-exception", where, e)
    try:
        where = stage("to_text")
        module.to_text()
        where = stage("regenerate")
        try:
            regenerated = module.to_text(regenerate=True)
        except ParseError:
            late.append(where)
            regenerated = None
        if regenerated is not None:
            if crlf_only and _bare_newline(regenerated):
                return _finding("crlf-mixed", where, detail="regenerated text mixes \\r\\n and \\n")
            where = stage("reparse")
            try:
                hlo_passes.parse(regenerated, dialect=module.dialect)
            except ParseError as e:
                return _finding("regen-unparseable", where, e)
        where = stage("validate")
        try:
            hlo_passes.parse(text, validate=True)
        except ParseError:
            late.append(where)
        where = stage("verify")
        try:
            verify_module(module)
        except ParseError:
            late.append(where)
        where = stage("run_passes")
        try:
            # copy=False: the module is not used again (and the restart after a crashed rule is exercised).
            result = hlo_passes.run_passes(module, copy=False, **dict(_strict_kwargs()))
        except ParseError:
            late.append(where)
            result = None
        if result is not None:
            where = stage("print_result")
            out = result.module.to_text()
            if crlf_only and _bare_newline(out):
                return _finding("crlf-mixed", where, detail="rewritten text mixes \\r\\n and \\n")
    except BaseException as e:  # noqa: BLE001
        return _finding("wrong-exception", where, e)
    return {"outcome": "ok", "late": late}
