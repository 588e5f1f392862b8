"""Delta debugging: the smallest text that still gives the same finding.

``reduce(text, still_fails)`` runs Zeller's ddmin (remove ever smaller
chunks while the predicate holds) over lines, then over tokens, then halves
every long token (a 4,400-digit number, a 60 KB identifier) while it still
fails.  The predicate is "the oracle gives the same signature", run in a
worker like any input; trials are bounded in number and time, and the best
text so far is returned when the budget runs out.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from .mutators import TOKEN_RE


class _Budget(Exception):
    pass


class _Predicate:
    def __init__(self, test: Callable[[str], bool], max_trials: int, max_seconds: float) -> None:
        self.test = test
        self.trials = 0
        self.max_trials = max_trials
        self.stop = time.monotonic() + max_seconds
        self.seen: dict[str, bool] = {}

    def __call__(self, text: str) -> bool:
        hit = self.seen.get(text)
        if hit is not None:
            return hit
        if self.trials >= self.max_trials or time.monotonic() > self.stop:
            raise _Budget
        self.trials += 1
        ok = self.seen[text] = bool(self.test(text))
        return ok


def _ddmin(items: list[str], holds: _Predicate) -> list[str]:
    n = 2
    while len(items) >= 2:
        size = -(-len(items) // n)
        reduced = False
        for start in range(0, len(items), size):
            rest = items[:start] + items[start + size:]
            if rest and holds("".join(rest)):
                items = rest
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return items


def _shrink_long_tokens(text: str, holds: _Predicate, longer_than: int = 64) -> str:
    toks = TOKEN_RE.findall(text)
    for i in range(len(toks)):
        while len(toks[i]) > longer_than:
            tok = toks[i]
            half = tok[: len(tok) // 2] if not tok.startswith('"') else tok[: len(tok) // 2] + '"'
            trial = toks[:i] + [half] + toks[i + 1:]
            if not holds("".join(trial)):
                break
            toks = trial
    return "".join(toks)


def reduce(text: str, still_fails: Callable[[str], bool], max_trials: int = 400,
           max_seconds: float = 120.0) -> tuple[str, int]:
    """(reduced text, trials run); ``still_fails(text)`` must hold for ``text`` itself."""
    holds = _Predicate(still_fails, max_trials, max_seconds)
    best = text
    try:
        best = "".join(_ddmin(best.splitlines(keepends=True), holds))
        best = "".join(_ddmin(TOKEN_RE.findall(best), holds))
        best = _shrink_long_tokens(best, holds)
        best = "".join(_ddmin(TOKEN_RE.findall(best), holds))
    except _Budget:
        # Every accepted step was recorded in ``seen``: the shortest text that held is the best so far.
        held = [t for t, ok in holds.seen.items() if ok]
        if held:
            best = min(held + [best], key=len)
    return best, holds.trials
