"""The diagnostic: one thing to tell the user, whatever prints it.

A site a rule found (rewritten or not), a near miss, a file that could not be linted: each
becomes one ``Diagnostic`` (code, ``path:line:col``, message, notes, the fix's summary), and
each output format is one emitter over diagnostics (``text``, ``json_list``, ``github``,
``sarif``, and ``lines`` for the console scripts' and the jit hook's own lines).  What a rule
says about itself (code, summary, how its message reads) comes from its ``RuleMeta``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..checks import meaning
from ..passes import available_passes, rule_meta
from ..report import AS_WRITTEN, PLAIN_WORDING, Location, NearMiss, Site, Wording, shown_source

__all__ = ["Diagnostic", "ERROR_RULES", "NEAR_MISS", "Sighting", "SiteRecord", "fix_summary", "from_near_miss",
           "from_site", "has_source", "record_of", "rule_id", "saving", "wording_of"]

# What a file that could not be linted is reported under (``lint`` names each one).
ERROR_RULES = ("parse-error", "internal-error", "no-such-file", "no-match", "no-modules", "not-readable",
               "too-large")
# The prefix of a near miss's message (hlo-lint --explain tells whether it printed any by it).
NEAR_MISS = "near miss: "


def rule_id(pass_name: str) -> str:
    """The code a pass reports under: its metadata's, else (an older plugin) its name."""
    meta = rule_meta(pass_name)
    return meta.code if meta is not None else pass_name


def wording_of(rule: str | None) -> Wording:
    """How the findings of ``rule`` (a pass name, or the code of a finding made without one) read:
    its ``RuleMeta.wording``; plain for a pass without metadata."""
    meta = rule_meta(rule) if rule else None
    if meta is None and rule:
        meta = next((m for n in available_passes() if (m := rule_meta(n)) is not None and m.code == rule), None)
    return meta.wording if meta is not None else PLAIN_WORDING


@dataclass(frozen=True)
class Sighting:
    """The same site in another stage of the module (a folded finding's other places)."""

    stage: str
    path: str
    line: int
    column: int

    def __str__(self) -> str:
        named = self.stage and not self.path.endswith(self.stage)  # a file beside the dump: its name says it
        return f"{self.path}:{self.line}:{self.column}" + (f" ({self.stage})" if named else "")


# Diagnostic fields the JSON output leaves out (what only this process's emitters read).
_NOT_JSON = frozenset({"picture", "fold_group", "fold_shape", "record"})


@dataclass(frozen=True)
class Diagnostic:
    """One unfused pattern, near miss, or file that could not be linted (``lint.Finding``).

    ``line``/``column`` are 1-based positions in ``path`` (0 when unknown);
    ``op_name`` and ``source`` (``file:line`` of the framework code) come from
    the op's metadata or MLIR location when the text carries them;
    ``bytes_saved`` is what the rewrite saves per device; ``fix`` what the rewrite does
    there (``collectives 4 -> 2, saves 73,728 bytes per device``), None when nothing can.
    """

    rule: str
    path: str
    line: int
    column: int
    message: str
    op_name: str | None = None
    source: str | None = None
    bytes_saved: int = 0
    # "warning" for findings, "error" for files that failed, "note" (near misses, files skipped, -v)
    severity: str = "warning"
    pass_name: str | None = None
    form: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    # Identical copies of the module (the dump folders of N hosts, compared
    # without locations): the finding is reported once, at the first path in
    # sorted order; ``paths`` lists every copy (empty: just ``path``).
    copies: int = 1
    paths: tuple[str, ...] = ()
    # Where the weight is cut into halves (source file:line when known), or how to get locations.
    notes: tuple[str, ...] = ()
    fix: str | None = None
    picture: Any = field(default=None, compare=False, repr=False)  # report.SitePicture
    # What stage folding compares beyond the rule and form (``report.SiteDetails.fold_group`` and
    # ``fold_shape``): the rule's to say, not the emitters'; not part of the JSON.
    fold_group: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    fold_shape: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    # The function of the frame ``source`` was chosen from (``source_frames.user_frame``).
    source_function: str | None = None
    # The same site in the module's other dump stages, folded into this finding (``fold``).
    stages: tuple[Sighting, ...] = ()
    # A site's record (``record_of``): what every entry point shows of it; None for a near miss or
    # a file that could not be linted.  Its fields are the JSON's form, source, details.
    record: "SiteRecord | None" = field(default=None, compare=False, repr=False)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def is_note(self) -> bool:
        return self.severity == "note"

    @property
    def all_paths(self) -> tuple[str, ...]:
        return self.paths or (self.path,)

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.column, self.op_name, source=self.source,
                        function=self.source_function)

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in _NOT_JSON}
        d["notes"] = list(self.notes)
        d["paths"] = list(self.all_paths)
        d["stages"] = [asdict(s) for s in self.stages]
        return d

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.rule} {self.message}"
        extras = [x for x in (self.op_name, self.source) if x]
        return text + (f" [{' @ '.join(extras)}]" if extras else "")


def saving(d: Diagnostic) -> str:
    """What fixing ``d`` gains, in its rule's words (``Wording.gain_line``): ``fusing saves 73,728
    bytes per device``."""
    return wording_of(d.pass_name or d.rule).gain_line(d.bytes_saved)


def fix_summary(site: Site) -> str:
    """What fixing ``site`` does, in its rule's words: ``collectives 4 -> 2, saves 73,728 bytes per device``."""
    fix = wording_of(site.rule).fix_summary(site.before.count, site.after.count, int(site.bytes_saved))
    notes = [n for n in (site.details.fix_note(), AS_WRITTEN if site.details.collectives_as_written else None) if n]
    return f"{fix} ({'; '.join(notes)})" if notes else fix


def has_source(site: Site) -> bool:
    """Whether the text gave the site, or where its halves start, a source line."""
    return bool(site.shown_at.source) or any(p.source for p in site.pieces)


def _site_notes(site: Site, where: str, hint: str | None) -> tuple[str, ...]:
    """Where the site's pieces start (the user's fix is there, not at the meeting op); that its
    collectives are the text's, where XLA may combine them (``SiteDetails.collectives_as_written``)."""
    notes = []
    if site.details.collectives_as_written:
        notes.append(f"collectives {site.before.count} -> {site.after.count} {site.details.collectives_as_written}")
    piece_word = wording_of(site.rule).piece
    for k, piece in enumerate(site.pieces, 1):
        text = f"{piece_word} {k} starts at {where}:{piece.line}:{piece.column}"
        if piece.op_name:
            text += f" ({piece.op_name})"
        if piece.source:
            text += f", from {shown_source(piece.source)}"
        notes.append(text)
    if hint is not None and not has_source(site):
        notes.append(hint)
    return tuple(notes)


@dataclass(frozen=True)
class SiteRecord:
    """One site, as every entry point shows it (``hlo_passes.jit``'s report and ``explain()``,
    ``hlo-lint`` in each format, ``hlo-rewrite``, ``install()`` and ``installed_report()``): the rule's
    code, the form and source place as the program has them (``Site.written`` where the text is
    optimized HLO whose meeting op XLA fused away), the collectives before -> after, the bytes the
    fix saves per device, the platform the verdict was priced for, and the verdict (whether the
    fix pays).  Text positions (line, column) are not in it: each entry point reads its own text.
    ``as_written``: the collectives are the text's, not held against the compiled program, where
    XLA's combiners may merge them (``SiteDetails.collectives_as_written``); False: as it runs them."""

    rule: str
    form: str
    collectives: tuple[int, int]
    bytes_saved: int
    priced_for: str | None
    pays: bool
    source: str | None
    as_written: bool = False


def record_of(site: Site) -> SiteRecord:
    """The record of ``site`` (``SiteRecord``)."""
    loc = site.shown_at
    return SiteRecord(rule_id(site.rule), site.written.form if site.written is not None else site.form,
                      (site.before.count, site.after.count), int(site.bytes_saved), site.details.priced_for,
                      site.pays, loc.source, site.details.collectives_as_written is not None)


def _message(site: Site) -> str:
    meta = rule_meta(site.rule)
    if meta is None:  # a pass registered without metadata: its name and form
        return f"{site.rule} (form {site.form})"
    return meta.site_message(site)


def from_site(site: Site, path: str | None = None, hint: str | None = None) -> Diagnostic:
    """The diagnostic of a site; ``path`` (default: the site's) names the file, ``hint``
    (``report.source_hint``; None: no note) says how to get source lines when the text has none."""
    # Where the program has the site (``Site.written``), which every entry point shows alike.
    loc = site.shown_at
    where = path or loc.path or "<string>"
    details = {"collectives_before": site.before.count, "collectives_after": site.after.count,
               "bytes_moved_before": site.before.bytes_moved, "bytes_moved_after": site.after.bytes_moved,
               "rewritten": site.rewritten, **site.details.to_json(),
               **{k: v for k, v in (("priced_for", site.details.priced_for),
                                    ("platform_assumed", site.details.platform_assumed)) if v is not None},
               "pieces": [{"line": p.line, "column": p.column, "op_name": p.op_name, "source": p.source}
                          for p in site.pieces]}
    return Diagnostic(
        rule=rule_id(site.rule), path=where, line=loc.line, column=loc.column, message=_message(site),
        op_name=loc.op_name, source=loc.source, bytes_saved=int(site.bytes_saved), pass_name=site.rule,
        form=site.written.form if site.written is not None else site.form, details=details, notes=_site_notes(site, where, hint), fix=fix_summary(site),
        picture=site.picture, source_function=loc.function,
        fold_group=site.details.fold_group(), fold_shape=site.details.fold_shape(), record=record_of(site),
    )


def from_near_miss(miss: NearMiss, path: str | None = None) -> Diagnostic:
    """A near miss as a note: the check that refused and why (in ``details`` too)."""
    loc = miss.location
    return Diagnostic(
        rule=rule_id(miss.rule), path=path or loc.path or "<string>", line=loc.line, column=loc.column,
        severity="note", message=f"{NEAR_MISS}refused ({miss.check}): {miss.reason}",
        op_name=loc.op_name, source=loc.source, pass_name=miss.rule,
        details={"check": miss.check, "reason": miss.reason,
                 **({"meaning": meaning(miss.check)} if meaning(miss.check) else {})},
        source_function=loc.function,
    )
