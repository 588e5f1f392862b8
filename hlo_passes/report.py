"""What a pass found: rewritten sites, near misses, and what each one costs.

A ``Site`` is a place a rule rewrote (or, in detect-only mode, would
rewrite); a ``NearMiss`` is a place that looked like the pattern but failed a
legality check, with the check's name and the reason.  Both carry a
``Location`` (path:line:col plus the op_name from metadata) so the CLI, the
lint and the jit hook can all point at the source.
"""
from __future__ import annotations

import os
import re
import string
import traceback
import weakref
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from .cost_model import Platform, Price, price
from .ir import Instruction
from .source_frames import Frame, frame_table, mlir_frames, user_frame

@dataclass(frozen=True)
class Location:
    """Where an op is: ``path:line:col`` in the text, its framework ``op_name`` and the
    ``source`` (``file:line`` of the framework code) when metadata or MLIR locations have them,
    with the ``function`` of the frame it was chosen from when the text names it."""

    path: str | None
    line: int
    column: int
    op_name: str | None = None
    computation: str | None = None
    source: str | None = None
    function: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The report's location object (``hlo-rewrite --report``): path, line, column, op_name,
        computation, source; the frame's function is the lint's (``source_function``)."""
        d = asdict(self)
        del d["function"]
        return d

    def __str__(self) -> str:
        where = f"{self.path or '<string>'}:{self.line}:{self.column}"
        extras = [x for x in (self.op_name, shown_source(self.source)) if x]
        return f"{where} ({', '.join(extras)})" if extras else where


def shown_source(source: str | None) -> str | None:
    """``file:line`` as a user reads it: relative to the working directory when the file is under it
    (jax records absolute paths)."""
    if not source or not os.path.isabs(source):
        return source
    cwd = os.getcwd()
    if source.startswith(cwd + os.sep):
        return source[len(cwd) + 1:]
    return source


_MLIR_ALIAS_DEF = re.compile(r"^#(loc\w*)\s*=\s*(loc\(.*\))\s*$", re.M)
_MLIR_LOC_REF = re.compile(r"#(loc\w*)")
_MLIR_NAME = re.compile(r'loc\(\s*"((?:[^"\\]|\\.)*)"\s*\(')
# Per module: its MLIR location aliases (#loc12 = loc(...)), read from the text once.
_ALIASES: "weakref.WeakKeyDictionary[Any, dict[str, str]]" = weakref.WeakKeyDictionary()


def _alias_table(module: Any) -> dict[str, str]:
    table = _ALIASES.get(module)
    if table is None:
        source = getattr(module, "source", "") or ""
        table = dict(_MLIR_ALIAS_DEF.findall(source)) if "#loc" in source else {}
        _ALIASES[module] = table
    return table


# A whole traceback nests an alias per frame (jax keeps up to 100 frames; each is a name around
# a file location, inside a callsite): enough rounds for that, and a bound on rounds and length
# keeps a malformed cycle from looping or growing without end.
_EXPAND_ROUNDS = 512
_EXPAND_CHARS = 1 << 20


def _expand(loc: str, table: dict[str, str]) -> str:
    for _ in range(_EXPAND_ROUNDS):
        new = _MLIR_LOC_REF.sub(lambda m: table.get(m.group(1), m.group(0)), loc)
        if new == loc or len(new) > _EXPAND_CHARS:
            break
        loc = new
    return loc


def _metadata(instr: Any) -> Any:
    """An HLO op's decoded ``metadata`` (None when it has none or it does not decode)."""
    if "metadata" not in instr.attributes:
        return None
    try:
        return instr.attributes["metadata"]
    except ValueError:
        return None


def frame_info(instr: Any) -> tuple[str | None, Frame | None]:
    """``(op_name, frame)`` of the framework code an op came from, each None when the text does
    not say: HLO ``metadata={op_name=... stack_frame_id=N}`` resolved through the module's
    stack-frame tables to the user's innermost frame (``source_frames``), or older XLA's
    ``source_file=... source_line=...``; MLIR ``loc("name"("file":line:col))`` and callsite
    locations (location aliases followed), the same frame chosen."""
    op_name: str | None = None
    frame: Frame | None = None
    meta = _metadata(instr)
    if isinstance(meta, dict):
        if meta.get("op_name"):
            op_name = str(meta["op_name"])
        frame_id = meta.get("stack_frame_id")
        if isinstance(frame_id, int) and frame_id > 0 and instr.module is not None:
            frame = frame_table(instr.module).user_frame(frame_id)
        if frame is None and meta.get("source_file"):
            line = meta.get("source_line")
            frame = Frame(str(meta["source_file"]), line if isinstance(line, int) else 0)
    loc = instr.mlir_loc
    if loc is not None and (op_name is None or frame is None):
        module = instr.module
        loc = _expand(loc, _alias_table(module)) if module is not None and "#loc" in loc else loc
        if op_name is None:
            m = _MLIR_NAME.search(loc)
            op_name = m.group(1) if m else None
        if frame is None:
            frame = user_frame(mlir_frames(loc, op_name))
    return op_name, frame


# Why a module's findings have no source line, and how to get one (``source_hint``).
_NO_MLIR_LOCATIONS = ("this text has no source locations: print it with `lowered.as_text(debug_info=True)` "
                      "(jax) to see the file:line of each op")
_NO_HLO_METADATA = ("this text has no op metadata: print it with `lowered.as_text(dialect=\"hlo\", debug_info=True)` "
                    "(jax); XLA's dumps (`--xla_dump_to=DIR --xla_dump_hlo_as_text`, unless "
                    "`--xla_dump_disable_metadata`) and `compiled.as_text()` keep it")
_NO_HLO_LINES = ("this text's op metadata has op names but no source lines (no `stack_frame_id` or "
                 "`source_file`): jax leaves them out when `jax_traceback_in_locations_limit` is 0")
_NO_HLO_TABLES = ("this text's op metadata points into stack-frame tables (`stack_frame_id`) that it does not "
                  "hold: XLA prints them (`FileNames` ... `StackFrames`) after the `HloModule` line; keep the "
                  "module's whole text")
_MLIR_FILE_LOCATION = re.compile(r'"(?:[^"\\\n]|\\.)*":\d+:\d+')


def source_hint(module: Any) -> str | None:
    """Why no op of ``module`` has a source line and which flag or call keeps them; None when
    the text has source lines (a site without one then just has none: XLA made its ops)."""
    text = getattr(module, "source", None) or ""
    if module.dialect != "hlo":
        return None if _MLIR_FILE_LOCATION.search(text) else _NO_MLIR_LOCATIONS
    if "source_file=" in text or frame_table(module):
        return None
    if "stack_frame_id=" in text:
        return _NO_HLO_TABLES
    return _NO_HLO_LINES if "metadata={" in text else _NO_HLO_METADATA


def stack_of(instr: Any) -> tuple[Frame, ...]:
    """Every frame the text gives for an op, innermost first (``frame_info`` picks the user's):
    HLO's stack-frame tables through ``stack_frame_id``, MLIR's callsite locations."""
    meta = _metadata(instr)
    if isinstance(meta, dict) and isinstance(meta.get("stack_frame_id"), int) and instr.module is not None:
        return frame_table(instr.module).stack(meta["stack_frame_id"])
    loc = instr.mlir_loc
    if loc is not None:
        module = instr.module
        return mlir_frames(_expand(loc, _alias_table(module)) if module is not None else loc, None)
    return ()


# How far ``with_users_source`` looks: users of users, a few ops in all.
_USER_DEPTH = 3
_USER_OPS = 32
_FUSED_DEPTH = 8


def _first_reader(starts: list[Any], decide: Callable[[Any, set[int]], Any], limit: int | None = _USER_OPS,
                  depth: int = _USER_DEPTH) -> Any:
    """The first answer ``decide(user, seen)`` gives (not None) over what reads ``starts``, breadth
    first, up to ``depth`` steps and ``limit`` ops; a user it answers None for is walked past.
    None when no user answers."""
    seen = {id(op) for op in starts}
    layer = list(starts)
    for _ in range(depth):
        nxt = []
        for op in layer:
            for user in op.users:
                if id(user) in seen or (limit is not None and len(seen) >= limit):
                    continue
                seen.add(id(user))
                found = decide(user, seen)
                if found is not None:
                    return found
                nxt.append(user)
        layer = nxt
    return None
# Per module: its instructions by (line, column), built when a location asks. The values are weak
# references: an instruction refers to its module, so a strong one would keep the key alive forever.
_AT: "weakref.WeakKeyDictionary[Any, dict[tuple[int, int], weakref.ref[Any]]]" = weakref.WeakKeyDictionary()


def with_users_source(module: Any, location: Location) -> Location:
    """``location`` with the source line of the nearest op that uses its op's value, when the op
    has none of its own: XLA makes ops without one (the all-gathers SPMD partitioning inserts
    for a sharded parameter carry the parameter's name only), and the user's line that consumes
    what such an op makes is where its site is in the program.  Unchanged when nothing is found."""
    if location.source or module.dialect != "hlo":
        return location
    instr = _instruction_at(module, location)
    if instr is None:
        return location
    frame = _first_reader([instr], lambda user, _seen: frame_info(user)[1])
    return replace(location, source=frame.source, function=frame.function) if frame is not None else location


def location_of(instr: Instruction, provenance: Instruction | None = None) -> Location:
    """Where ``instr`` is in the text, and where the framework code it came from is;
    ``provenance``: the op whose metadata says the latter when it is not ``instr`` (an
    op inside a fusion of optimized HLO, reported at the fusion)."""
    module = instr.module
    op_name, frame = frame_info(provenance if provenance is not None else instr)
    return Location(
        path=module.path if module is not None else None,
        line=instr.line,
        column=instr.column,
        op_name=op_name,
        computation=instr.computation.name if instr.computation is not None else None,
        source=frame.source if frame is not None else None,
        function=frame.function if frame is not None else None,
    )


@dataclass(frozen=True)
class Written:
    """A site as the user's program has it where the text shows it otherwise: in optimized HLO XLA
    has fused the op where a site's pieces meet (the concatenate, the pad + add) into the fusion
    that reads them, and a rule sees only the pieces' collectives (forms ``split_gather``,
    ``split_reduction``).  ``form``: the form of the program (``concat``, ``pad_add``, ``two_gmm``),
    ``location``: the op where the pieces meet or are read (the fusion, whose metadata names the
    user's line), so that every entry point shows one record of the site (``diagnostics.record_of``)."""

    form: str
    location: Location


def _instruction_at(module: Any, location: Location) -> Any:
    """The instruction of ``module`` at ``location``'s line and column (None when none is)."""
    at = _AT.get(module)
    if at is None:
        at = _AT[module] = {(i.line, i.column): weakref.ref(i) for i in module.instructions()}
    found = at.get((location.line, location.column))
    return found() if found is not None else None


def as_written(module: Any, site: Site) -> Written | None:
    """``site`` (of optimized HLO, at one of its pieces' collectives: ``location`` is there) as the
    program has it (``program_meeting``); None when nothing is found."""
    anchor = _instruction_at(module, site.location)
    found = program_meeting(anchor) if anchor is not None else None
    if found is None:
        return None
    form, reader = found
    return Written(form, location_of(reader, _fused_reader(reader, anchor)))


def _fused_reader(fusion: Any, anchor: Any) -> Any:
    """Inside ``fusion`` (a fusion of optimized HLO reading a piece's collective ``anchor``, perhaps
    through copies): the first op reading that operand's parameter that is the user's own (its op
    name is not the collective's), whose metadata names where the pieces meet when XLA fused that
    op into another one's fusion (a pad + add into a scan's dynamic-update-slice); None otherwise."""
    if fusion.opcode != "fusion" or not fusion.called_computations:
        return None
    own = frame_info(anchor)[0]
    reached = {id(op) for op in _walk_down(anchor)}
    numbers = [k for k, o in enumerate(fusion.operands) if id(o) in reached]
    params = [i for i in fusion.called_computations[0].instructions
              if i.opcode == "parameter" and i.attributes.get("parameter_number") in numbers]

    def users_own(user: Any, _seen: set[int]) -> Any:
        name = frame_info(user)[0]
        return user if name is not None and name != own else None

    # (Inside a fusion XLA's float normalization puts converts, which name nothing, between a
    # piece and the op that reads it: bf16 -> f32 -> bf16 around a pad is 4 steps from the parameter.)
    return _first_reader(params, users_own, limit=None, depth=_FUSED_DEPTH)


def _walk_down(op: Any, depth: int = _USER_DEPTH) -> list[Any]:
    """``op`` and what reads it through single-operand steps."""
    out, layer = [op], [op]
    for _ in range(depth):
        layer = [u for x in layer for u in x.users if len(u.operands) == 1]
        out.extend(layer)
    return out


def program_meeting(anchor: Any) -> tuple[str, Any] | None:
    """(form, op) of the program where a piece's collective ``anchor`` of optimized HLO is read:
    the first op reading its value that is the user's own (whose op name is not the collective's:
    XLA's copies and bitcasts of the value carry the collective's), past up to a few such steps.
    A reader that also reads another piece's collective (same opcode and shape) is where the
    pieces meet: a concatenate (``concat``; every gather meeting) or jax's transpose of a slice
    (``pad_add``); pieces read apart are the two-GMM form (``two_gmm``).  None when none is found."""
    own = frame_info(anchor)[0]

    def meeting(user: Any, seen: set[int]) -> tuple[str, Any] | None:
        name = frame_info(user)[0]
        if name == own or (name is not None and name.rsplit("/", 1)[-1] == "shard_map"):
            # XLA's copy of the value: walked past; so is a copy into a shard_map's body, which
            # jax >= 0.11 names after the shard_map (its line is the call, not where the halves meet).
            return None
        others = [o for o in user.operands if id(o) not in seen
                  and any(s is not anchor and getattr(s, "opcode", None) == anchor.opcode
                          and s.shape == anchor.shape for s in _reached(o))]
        if name is None:
            # A fusion XLA names nothing (a scan's dynamic-update-slice of the layer's gradient) that
            # reads another piece too is where they meet: the user's op fused into it says how.
            inner = _fused_reader(user, anchor) if others else None
            name = frame_info(inner)[0] if inner is not None else None
            if name is None:
                return None  # XLA's copy of the value: walked past
        if not others:
            return "two_gmm", user
        if anchor.opcode.startswith("all-gather") or name.rsplit("/", 1)[-1].startswith("concatenate"):
            return "concat", user
        pad = user if user.opcode == "pad" else _fused_reader(user, anchor)
        return ("interleaved_pad_add" if pad is not None and _interior_padding(pad) else "pad_add"), user

    found: tuple[str, Any] | None = _first_reader([anchor], meeting)
    return found


def _interior_padding(op: Any) -> bool:
    """A ``pad`` with interior padding (``lo_hi_interior`` per dimension): jax's transpose of a
    strided slice, the interleaved halves' pad + add."""
    if op.opcode != "pad" or "padding" not in op.attributes:
        return False
    return any(interior for _lo, _hi, interior in op.attributes["padding"])


def _reached(op: Any, depth: int = _USER_DEPTH) -> list[Any]:
    """``op`` and what it reads through single-operand steps."""
    out, layer = [op], [op]
    for _ in range(depth):
        layer = [o for x in layer if len(x.operands) == 1 for o in x.operands]
        out.extend(layer)
    return out


@dataclass
class CollectiveCost:
    """Collectives of a site: how many, and bytes each device receives."""

    count: int = 0
    bytes_moved: int = 0

    def add(self, instr: Instruction) -> None:
        self.count += 1
        self.bytes_moved += collective_bytes(instr)


def collective_bytes(instr: Instruction) -> int:
    """Bytes one device receives for a collective (result minus what it already held)."""
    return bytes_received(instr.opcode, instr.shape.byte_size, sum(op.shape.byte_size for op in instr.operands))


def bytes_received(opcode: str, result_bytes: int, operand_bytes: int) -> int:
    """The same, from sizes alone (for collectives a rewrite is about to create)."""
    if opcode.startswith("all-gather"):
        return max(result_bytes - operand_bytes, 0)
    if opcode.startswith(("reduce-scatter", "all-reduce")):
        # A ring reduction moves about the operand's size per device.
        return operand_bytes
    return result_bytes


@dataclass(frozen=True)
class PictureNode:
    id: str
    label: str  # lines separated by "\n"
    kind: str  # weight, slice, collective, step, boundary, meet, gmm, use


@dataclass(frozen=True)
class PictureEdge:
    src: str
    dst: str
    label: str  # the value on the edge: shape and bytes


@dataclass(frozen=True)
class Subgraph:
    nodes: tuple[PictureNode, ...]
    edges: tuple[PictureEdge, ...]


@dataclass(frozen=True)
class SitePicture:
    """A site's ops before the rewrite and the ops it puts there (``hlo_passes.graph`` draws it)."""

    title: str
    before: Subgraph
    after: Subgraph


# The fields of ``SiteDetails`` every site may have (set by the engine that finds and prices it),
# in the order the JSON report gives them after a rule's own.
_PRICING = ("picture_error", "pays", "price", "not_rewritten", "collectives_as_written")
# Said by the findings (``diagnostics.from_site``: the lint's JSON and SARIF), not in ``to_json``:
# the price names the platform already, and hlo-rewrite says on stderr when it was assumed.
_PLATFORM = ("priced_for", "platform_assumed")


@dataclass(kw_only=True)
class SiteDetails:
    """What a site says beyond its costs, typed: the JSON report's and the lint's ``details``.

    Every site may say whether its fix pays and at what ``price`` (as the rule priced it when it
    found the site), why it was ``not_rewritten`` (optimized HLO, a fix that does not pay), and
    why its picture could not be drawn; None is "not said" and stays out of the JSON.  A rule with
    facts of its own subclasses this (keyword-only fields): its fields go to the JSON first, and
    ``message_fields`` (by default, its own fields) are what its message template may name."""

    picture_error: str | None = None
    pays: bool | None = None
    price: str | None = None
    # The platform the verdict was priced for, and whether it was assumed (nothing said where the
    # program runs) rather than known: every entry point shows the same pricing.
    priced_for: str | None = None
    platform_assumed: bool | None = None
    not_rewritten: str | None = None
    # Set where the site's "collectives A -> B" is the text's and XLA's combiners may change it in
    # the compiled program (a gradient's reductions, ``RuleMeta.combinable``, on a text before
    # optimization that no compiled module was held against): ``AS_WRITTEN`` and why it was not
    # checked.  None: the count is as the compiled program runs it (held against it, read off it,
    # or of a rule whose collectives no combiner merges).
    collectives_as_written: str | None = None

    def fix_note(self) -> str | None:
        """One line on how the fix differs from the rule's usual one (said after it, wherever
        the fix is shown); None: it does not."""
        return None

    def own_fields(self) -> dict[str, Any]:
        """The rule's own facts (a subclass's fields), by name, in their order."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _PRICING + _PLATFORM}

    def to_json(self) -> dict[str, Any]:
        d = self.own_fields()
        d.update((k, getattr(self, k)) for k in _PRICING if getattr(self, k) is not None)
        return d

    @classmethod
    def template_fields(cls) -> frozenset[str]:
        """The names ``message_fields`` gives (checked when a rule's template is defined)."""
        return frozenset(f.name for f in fields(cls) if f.name not in _PRICING + _PLATFORM)

    def message_fields(self) -> dict[str, Any]:
        """What a rule's message template may say about the site beyond its costs and form."""
        return self.own_fields()

    def fold_group(self) -> tuple[Any, ...]:
        """What two findings of one rule in two stages of a module must share to be one site
        (``diagnostics.fold``): nothing beyond the rule, by default."""
        return ()

    def fold_shape(self) -> tuple[Any, ...]:
        """What the site's shape is beyond its form and collective counts, compared between stages
        when nothing says where a finding is (``diagnostics.fold``)."""
        return ()


@dataclass(frozen=True)
class Wording:
    """How a rule's findings read around their one-line message (``RuleMeta.wording``): what
    fixing a site saves, what the fix does, what a site's pieces are called, what fixes it.  The
    emitters (text, JSON, GitHub, SARIF, the console scripts' and the jit hook's lines) read these
    and hold no rule's words.  ``str.format`` templates: ``saves``/``costs`` (a saving of zero or
    more bytes, a negative one) over ``bytes`` (an int: ``{bytes:,}``); ``fix`` over ``before``,
    ``after`` (collective counts) and ``saving``; ``gain``/``gain_when_costs`` over ``saving``.
    ``fixed_by``: what fixes such a finding, said after it in the jit hook's warning (empty:
    nothing said, for a rule that only reports)."""

    saves: str = "saves {bytes:,} bytes per device"
    costs: str = "copies {bytes:,} more bytes per device"
    fix: str = "collectives {before} -> {after}, {saving}"
    gain: str = "the fix {saving}"
    gain_when_costs: str = "the fix {saving}"
    piece: str = "piece"
    fixed_by: str = ""

    def __post_init__(self) -> None:
        allowed = {"saves": {"bytes"}, "costs": {"bytes"}, "fix": {"before", "after", "saving"},
                   "gain": {"saving"}, "gain_when_costs": {"saving"}}
        for name, names in allowed.items():
            problem = template_problem(getattr(self, name), names)
            if problem:
                raise ValueError(f"wording {name}: {problem}")

    def saving(self, bytes_saved: int) -> str:
        """``saves N bytes per device``, or for a fix that adds copies ``copies N more bytes per device``."""
        return (self.saves if bytes_saved >= 0 else self.costs).format(bytes=abs(int(bytes_saved)))

    def fix_summary(self, before: int, after: int, bytes_saved: int) -> str:
        """What the fix does: ``collectives 4 -> 2, saves 73,728 bytes per device``."""
        return self.fix.format(before=before, after=after, saving=self.saving(bytes_saved))

    def gain_line(self, bytes_saved: int) -> str:
        """What fixing the site gains, said under a finding."""
        template = self.gain if bytes_saved >= 0 else self.gain_when_costs
        return template.format(saving=self.saving(bytes_saved))


def template_problem(template: str, allowed: Iterable[str]) -> str | None:
    """Why ``template`` is not a ``str.format`` template over ``allowed``; None when it is."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as err:
        return f"template {template!r}: {err}"
    allowed = set(allowed)
    unknown = sorted(n for n in names if n not in allowed)
    if unknown:
        return f"template names {', '.join(unknown)}; it may use {', '.join(sorted(allowed))}"
    return None


# How a site of a rule that says nothing of its wording reads (a pass registered without metadata).
PLAIN_WORDING = Wording()


@dataclass
class Site:
    """A place a rule found: what it costs now and fused (per device: docs/cost-model.md).

    ``bytes_saved`` = ``copies_removed`` - ``copies_added`` + the drop in collective bytes;
    ``gmm_launches_saved``: grouped matmuls the fix runs as one.  ``rewritten`` is False where
    the site was only detected (``details.not_rewritten`` says why: optimized HLO, or a fix
    that does not pay by the cost model, ``details.pays`` False)."""

    rule: str
    form: str
    location: Location
    before: CollectiveCost
    after: CollectiveCost
    bytes_saved: int
    rewritten: bool = True
    details: SiteDetails = field(default_factory=SiteDetails)
    # Where the pieces are cut off the weight (the slices; for gradients, the GMMs).
    pieces: list[Location] = field(default_factory=list)
    picture: SitePicture | None = field(default=None, compare=False, repr=False)
    # The site as the user's program has it, where the text shows it otherwise (``as_written``:
    # optimized HLO, the op where the pieces meet fused away); None: as the text shows it.  What
    # every entry point shows of the site (``diagnostics.record_of``); not in the report's JSON.
    written: Written | None = field(default=None, compare=False, repr=False)
    copies_removed: int = 0
    copies_added: int = 0
    gmm_launches_saved: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.details, SiteDetails):
            raise TypeError(f"Site.details is a report.SiteDetails (a subclass for a rule's own facts), "
                            f"not {type(self.details).__name__}")

    def price(self, platform: Platform | None = None) -> Price:
        """What the fix saves per device on ``platform`` (default: ``cost_model.DEFAULT_PLATFORM``'s;
        the rule driver prices for its pipeline's)."""
        return price(copies_removed=self.copies_removed, copies_added=self.copies_added,
                     bytes_before=self.before.bytes_moved, bytes_after=self.after.bytes_moved,
                     collectives_before=self.before.count, collectives_after=self.after.count,
                     gmm_launches_saved=self.gmm_launches_saved, platform=platform)

    @property
    def shown_at(self) -> Location:
        """Where every entry point places the site: as the program has it (``written``) where the
        text shows it otherwise, else where the rule found it."""
        return self.written.location if self.written is not None else self.location

    @property
    def pays(self) -> bool:
        """Whether the fix pays, as the rule priced it when it found the site."""
        return self.details.pays is not False

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("picture", "written")}
        d["details"] = self.details.to_json()
        # The site as every entry point shows it (``written``: as the program has it).
        if self.written is not None:
            d["form"] = self.written.form
        d["location"] = self.shown_at.to_json()
        d["pieces"] = [p.to_json() for p in self.pieces]
        return d

    def __str__(self) -> str:
        from_to = f"collectives {self.before.count} -> {self.after.count}"
        if not self.rewritten:
            return (f"{self.location}: {self.rule} [{self.form}] {from_to}, detected, not rewritten: "
                    f"{self.details.not_rewritten or 'detect-only run'}")
        note = self.details.fix_note()
        return (f"{self.location}: {self.rule} [{self.form}] {from_to}, {PLAIN_WORDING.saving(self.bytes_saved)}"
                + (f" ({note})" if note else ""))


@dataclass
class NearMiss:
    rule: str
    check: str
    reason: str
    location: Location

    def __str__(self) -> str:
        return f"{self.location}: {self.rule}: refused ({self.check}): {self.reason}"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["location"] = self.location.to_json()
        return d


DOES_NOT_PAY = "does-not-pay"
# What a site's claim says where it is the text's, not checked against a compiled program
# (``SiteDetails.collectives_as_written``).
AS_WRITTEN = "as written; XLA may combine"


def does_not_pay(site: Site) -> NearMiss:
    """The near miss a site whose fix does not pay stands for, with its numbers."""
    launches = site.gmm_launches_saved
    saved = f", {launches} GMM launch{'es' if launches > 1 else ''} saved" if launches else ""
    reason = (f"the fix does not pay by the cost model: collectives {site.before.count} -> {site.after.count} "
              f"({site.before.bytes_moved:,} -> {site.after.bytes_moved:,} bytes received per device), "
              f"copies {site.copies_removed:,} bytes removed and {site.copies_added:,} added per device{saved}: "
              f"it {site.details.price or site.price()}")
    note = site.details.fix_note()
    if note:  # how the fix differs from the rule's usual one: why it copies what it does
        reason += f" ({note})"
    return NearMiss(site.rule, DOES_NOT_PAY, reason, site.location)


# ---- internal errors: a rule that raised ------------------------------------
INTERNAL_ERROR = "internal-error"
_NOTED = "_hlo_passes_instruction"


def note_instruction(err: BaseException, instr: Any) -> None:
    """Remember on ``err`` (the innermost call wins) which instruction a rule was looking at."""
    if getattr(err, _NOTED, None) is None:
        try:
            setattr(err, _NOTED, instr)
        except (AttributeError, TypeError):
            pass


def internal_error(rule: str, err: BaseException, module: Any) -> NearMiss:
    """The near miss that stands for a rule that raised: the rule refuses this module."""
    where = "?"
    # The innermost frame in this package (not one of a checkout that happens to be named hlo_passes).
    package = os.path.dirname(os.path.abspath(__file__))
    for frame in traceback.extract_tb(err.__traceback__):
        path = os.path.abspath(frame.filename)
        if path.startswith(package + os.sep):
            where = f"hlo_passes/{os.path.relpath(path, package).replace(os.sep, '/')}:{frame.lineno}"
    instr = getattr(err, _NOTED, None)
    if instr is not None:
        location = location_of(instr)
        at = f" while looking at {getattr(instr, 'ref', instr)}"
    else:
        location = Location(getattr(module, "path", None), 0, 0)
        at = ""
    message = str(err).splitlines()[0][:200] if str(err) else ""
    reason = (f"internal error in {rule}{at}: {type(err).__name__}"
              f"{': ' + message if message else ''} (raised at {where}); the rule leaves this module as it is")
    return NearMiss(rule, INTERNAL_ERROR, reason, location)
