"""One site, one finding: what the lint found in many files of one module, reported once.

One module appears in several files (``_copies``): the identical copies the N hosts of a job
dump, and the stages XLA dumps it at (StableHLO handed to XLA, before optimizations, after each
pass, after optimizations).  Each file's findings are the same sites seen again, and CI must
annotate each site once.  ``fold`` takes every linted file's findings and:

* gives a module's copies the findings of the one copy that was linted (``copies``, ``paths``);
* folds the findings of one module's stages that are the same site into one, reported at the
  earliest stage that has it, with the others in ``stages`` and as notes.

Two findings of different stages are the same site when they are of one rule (and, for a near
miss, one check) and the places the text gives agree, strongest evidence first: where the
halves start (the user's fix goes there), else the anchor's source line, else the op names (the
last part of the name stack).  Only the halves' source lines count between findings of two
forms: in another form the anchor and the halves' ops are other ops (an optimized module
reduces in a reduce-scatter where the unoptimized one adds pads, gathers inside a fusion where
it fed two GMMs, starts from parameters where it started from shard_map operands).  A finding whose
text says nothing of where (a lowering without locations) is matched in order with the
module's other stages; in a file joined to the module by its name alone (``Stage.joined``),
only with a finding of the same shape (form, split, collectives before and after).  Each site
of one stage folds with at most one of another stage, so two sites the text cannot tell apart
stay two.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._copies import Stage
from .model import Diagnostic, Sighting

__all__ = ["fold"]


def fold(per_file: Mapping[str, Sequence[Diagnostic]], copies: Sequence[Sequence[str]],
         stages: Mapping[str, Stage] | None) -> list[Diagnostic]:
    """Every file's findings, each site once: ``copies`` are the groups of identical files
    (the first linted, ``per_file`` holds its findings), ``stages`` each file's stage (None:
    stages are not folded).  Findings come in the order of the groups, then of each file's own."""
    linted = [(group[0], [_as_copies(d, group) for d in per_file[group[0]]]) for group in copies]
    if not stages:
        return [d for _, found in linted for d in found]
    folded: dict[int, list[tuple[Stage, Diagnostic]]] = {}  # id(reported) -> the others
    dropped: set[int] = set()
    by_module: dict[str, list[tuple[Stage, str, list[Diagnostic]]]] = {}
    for path, found in linted:
        stage = stages.get(path)
        if stage is not None:
            by_module.setdefault(stage.module, []).append((stage, path, found))
    for files in by_module.values():
        if len(files) > 1:
            _fold_module(files, folded, dropped)
    out = []
    for _, found in linted:
        for d in found:
            if id(d) in dropped:
                continue
            others = folded.get(id(d))
            out.append(_with_stages(d, others) if others else d)
    return out


def _as_copies(d: Diagnostic, group: Sequence[str]) -> Diagnostic:
    return d if len(group) == 1 else replace(d, copies=len(group), paths=tuple(group))


def _with_stages(d: Diagnostic, others: list[tuple[Stage, Diagnostic]]) -> Diagnostic:
    sightings = tuple(Sighting(stage.name, o.path, o.line, o.column)
                      for stage, o in sorted(others, key=lambda so: (so[0].rank, so[1].path)))
    return replace(d, stages=sightings, notes=d.notes + tuple(f"also at {s}" for s in sightings))


@dataclass
class _Anchor:
    """A reported finding, the stage of its file, and the findings of other stages folded into it."""

    finding: Diagnostic
    stage: Stage
    others: list[tuple[Stage, Diagnostic]] = field(default_factory=list)

    def takes(self, d: Diagnostic, stage: Stage) -> bool:
        """Whether ``d`` (of ``stage``) is this site: no finding of it says otherwise, and one
        says so — or, none saying anything comparable, in order (``_fold_module``)."""
        members = [(self.stage, self.finding), *self.others]
        verdicts = [_verdict(m, d) for _, m in members]
        if False in verdicts:
            return False
        if True in verdicts:
            return True
        # Nothing says where: between XLA's own stages of the module, in order; with a file joined
        # to it by its module name alone, only for the same shape of site.
        return any(not (s.joined or stage.joined) or _same_shape(m, d) for s, m in members)


def _fold_module(files: list[tuple[Stage, str, list[Diagnostic]]], folded: dict[int, list[tuple[Stage, Diagnostic]]],
                 dropped: set[int]) -> None:
    """Fold the findings of one module's stage files (earliest stage first)."""
    def order(entry: tuple[Stage, str, list[Diagnostic]]) -> tuple[Any, ...]:
        stage, path, found = entry
        # Among files of one rank, the one whose findings have source lines is reported.
        return stage.rank, not any(d.source for d in found), path

    anchors: list[_Anchor] = []
    for stage, path, found in sorted(files, key=order):
        taken: set[int] = set()  # the anchors a site of this file folded into (one each)
        foldable = [d for d in found if d.pass_name is not None and not d.is_error]
        # Findings that say where they are choose first; those that say nothing take what is left.
        for d in sorted(foldable, key=lambda d: _evidence(d) is None):
            target = next((a for a in anchors if id(a) not in taken and a.takes(d, stage)), None)
            if target is None:
                target = _Anchor(d, stage)
                anchors.append(target)
            else:
                target.others.append((stage, d))
                dropped.add(id(d))
            taken.add(id(target))
    for a in anchors:
        if a.others:
            folded[id(a.finding)] = a.others


def _tail(op_name: str | None) -> str | None:
    """The op's own name, without the name stack (``jit(f)/jvp()/shard_map/concatenate``)."""
    return op_name.rsplit("/", 1)[-1] if op_name else None


def _pieces(d: Diagnostic, key: str) -> tuple[str, ...] | None:
    """Where the halves start (their sources, or op names), when the text says for every half."""
    pieces = d.details.get("pieces") or ()
    values = [(_tail(p.get(key)) if key == "op_name" else p.get(key)) for p in pieces]
    return tuple(sorted(values)) if values and all(values) else None


def _evidence(d: Diagnostic) -> list[tuple[str, Any]] | None:
    """What a finding's text says about where its site is, strongest first; None: nothing."""
    evidence = [(kind, value) for kind, value in (
        ("pieces", _pieces(d, "source")), ("source", d.source),
        ("piece names", _pieces(d, "op_name")), ("name", _tail(d.op_name))) if value]
    return evidence or None


# What a finding says of its site's shape, compared when nothing says where it is.
_SHAPE = ("form", "split_dim", "split_sizes", "collectives_before", "collectives_after")


def _verdict(a: Diagnostic, b: Diagnostic) -> bool | None:
    """Whether ``a`` and ``b`` are one site, by the strongest evidence both give; None when
    nothing they say is comparable."""
    if (a.rule, a.severity, a.details.get("check"), a.details.get("halves")) != \
            (b.rule, b.severity, b.details.get("check"), b.details.get("halves")):
        return False
    ea, eb = dict(_evidence(a) or ()), dict(_evidence(b) or ())
    for kind in ("pieces", "source", "piece names", "name"):
        # In another form of the pattern the anchor and the pieces are other ops (a GMM or an
        # all-gather inside a fusion; shard_map operands or parameters): their names and the
        # anchor's line say nothing of the other's.  The halves' source lines do.
        comparable = kind == "pieces" or a.form == b.form
        if comparable and kind in ea and kind in eb:
            return ea[kind] == eb[kind]
    return None


# What a finding says of its site's shape, compared when nothing says where it is.
_SHAPE = ("form", "split_dim", "split_sizes", "collectives_before", "collectives_after")


def _same_shape(a: Diagnostic, b: Diagnostic) -> bool:
    return all(_get(a, k) == _get(b, k) for k in _SHAPE)


def _get(d: Diagnostic, key: str) -> Any:
    return d.form if key == "form" else d.details.get(key)
