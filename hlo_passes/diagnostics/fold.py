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

from collections.abc import Iterator, Mapping, Sequence
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


# Kinds of evidence, strongest first (``_evidence``); all but "pieces" count within one form only.
_KINDS = ("pieces", "source", "piece names", "name")


def _key(kind: str, form: str | None) -> tuple[str, str | None]:
    # In another form of the pattern the anchor and the pieces are other ops (a GMM or an
    # all-gather inside a fusion; shard_map operands or parameters): their names and the
    # anchor's line say nothing of the other's.  The halves' source lines do.
    return (kind, None) if kind == "pieces" else (kind, form)


@dataclass
class _Anchor:
    """A reported finding, the stage of its file, the findings of other stages folded into it,
    and what they say of where the site is (per kind of evidence and form, the first said)."""

    finding: Diagnostic
    stage: Stage
    others: list[tuple[Stage, Diagnostic]] = field(default_factory=list)
    evidence: dict[tuple[str, str | None], Any] = field(default_factory=dict)
    joined: bool = True  # every finding of it is in a file joined to the module by name only

    def add(self, d: Diagnostic, stage: Stage, evidence: dict[str, Any]) -> None:
        for kind, value in evidence.items():
            self.evidence.setdefault(_key(kind, d.form), value)
        self.joined = self.joined and stage.joined

    def verdict(self, d: Diagnostic, evidence: dict[str, Any]) -> bool | None:
        """Whether ``d`` is this site by the strongest evidence both give; None: none comparable."""
        for kind in _KINDS:
            if kind in evidence:
                said = self.evidence.get(_key(kind, d.form))
                if said is not None:
                    same: bool = said == evidence[kind]
                    return same
        return None


class _Module:
    """The sites found so far in one module's stages, indexed by what says where they are."""

    def __init__(self) -> None:
        self.anchors: list[_Anchor] = []
        # (group, kind, form, value) -> anchors; group: rule, severity, check, halves
        self.by_evidence: dict[tuple[Any, ...], list[_Anchor]] = {}
        # (group, kind, form) -> how many anchors of the group say something of that kind
        self.saying: dict[tuple[Any, ...], int] = {}
        self.groups: dict[Any, list[_Anchor]] = {}

    def find(self, d: Diagnostic, stage: Stage, evidence: dict[str, Any], taken: _Taken) -> _Anchor | None:
        group = _group(d)
        for kind in _KINDS:  # one with the same evidence, by the index
            if kind in evidence:
                key = (group, *_key(kind, d.form), evidence[kind])
                for a in taken.untaken(key, self.by_evidence.get(key, ())):
                    if a.verdict(d, evidence):
                        return a
        anchors = self.groups.get(group, [])
        if any(self.saying.get((group, *_key(kind, d.form)), 0) == len(anchors) for kind in evidence):
            return None  # every site of the group says where it is, and none is this one
        # Nothing comparable says where: in order, between XLA's own stages of the module; with a
        # file joined to it by its module name alone, only the same shape of site.
        for a in taken.untaken(group, anchors):
            if a.verdict(d, evidence) is None and (not (a.joined or stage.joined) or _same_shape(a.finding, d)):
                return a
        return None

    def add(self, a: _Anchor, d: Diagnostic, stage: Stage, evidence: dict[str, Any]) -> None:
        group = _group(d)
        if not a.others and a.finding is d:
            self.anchors.append(a)
            self.groups.setdefault(group, []).append(a)
        before = set(a.evidence)
        a.add(d, stage, evidence)
        for key in set(a.evidence) - before:
            self.by_evidence.setdefault((group, *key, a.evidence[key]), []).append(a)
            self.saying[(group, *key)] = self.saying.get((group, *key), 0) + 1


class _Taken:
    """The sites a stage's findings folded into (one finding each), and, per list of sites
    scanned, how many at its start are taken (sites of one name are taken in order: a module
    of many alike sites is folded in linear time)."""

    def __init__(self) -> None:
        self.ids: set[int] = set()
        self.skip: dict[Any, int] = {}

    def untaken(self, key: Any, anchors: Sequence[_Anchor]) -> Iterator[_Anchor]:
        k = self.skip.get(key, 0)
        while k < len(anchors) and id(anchors[k]) in self.ids:
            k += 1
        self.skip[key] = k
        for a in anchors[k:]:
            if id(a) not in self.ids:
                yield a


def _group(d: Diagnostic) -> tuple[Any, ...]:
    return d.rule, d.severity, d.details.get("check"), d.fold_group


def _fold_module(files: list[tuple[Stage, str, list[Diagnostic]]], folded: dict[int, list[tuple[Stage, Diagnostic]]],
                 dropped: set[int]) -> None:
    """Fold the findings of one module's stage files (earliest stage first)."""
    def order(entry: tuple[Stage, str, list[Diagnostic]]) -> tuple[Any, ...]:
        stage, path, found = entry
        # Among files of one rank, the one whose findings have source lines is reported.
        return stage.rank, not any(d.source for d in found), path

    module = _Module()
    for stage, path, found in sorted(files, key=order):
        taken = _Taken()
        foldable = [(d, _evidence(d)) for d in found if d.pass_name is not None and not d.is_error]
        # Findings that say where they are choose first; those that say nothing take what is left.
        for d, evidence in sorted(foldable, key=lambda de: not de[1]):
            target = module.find(d, stage, evidence, taken)
            if target is None:
                target = _Anchor(d, stage)
            else:
                target.others.append((stage, d))
                dropped.add(id(d))
            module.add(target, d, stage, evidence)
            taken.ids.add(id(target))
    for a in module.anchors:
        if a.others:
            folded[id(a.finding)] = a.others


def _tail(op_name: str | None) -> str | None:
    """The op's own name, without the name stack (``jit(f)/jvp()/shard_map/concatenate``)."""
    return op_name.rsplit("/", 1)[-1] if op_name else None


def _pieces(d: Diagnostic, key: str) -> tuple[str, ...] | None:
    """Where the halves start (their sources, or op names), when the text says for every half."""
    pieces = d.details.get("pieces") or ()
    values = [(_tail(p.get(key)) if key == "op_name" else p.get(key)) for p in pieces]
    said = [v for v in values if v]
    return tuple(sorted(said)) if values and len(said) == len(values) else None


def _evidence(d: Diagnostic) -> dict[str, Any]:
    """What a finding's text says about where its site is, by kind (``_KINDS``); empty: nothing."""
    said = (("pieces", _pieces(d, "source")), ("source", d.source),
            ("piece names", _pieces(d, "op_name")), ("name", _tail(d.op_name)))
    return {kind: value for kind, value in said if value}


def _shape(d: Diagnostic) -> tuple[Any, ...]:
    """What a finding says of its site's shape, compared when nothing says where it is: its form,
    collective counts and what its rule says (``Diagnostic.fold_shape``)."""
    return d.form, d.details.get("collectives_before"), d.details.get("collectives_after"), d.fold_shape


def _same_shape(a: Diagnostic, b: Diagnostic) -> bool:
    return _shape(a) == _shape(b)
