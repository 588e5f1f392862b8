"""What a pass found: rewritten sites, near misses, and what each one costs.

A ``Site`` is a place a rule rewrote (or, in detect-only mode, would
rewrite); a ``NearMiss`` is a place that looked like the pattern but failed a
legality check, with the check's name and the reason.  Both carry a
``Location`` (path:line:col plus the op_name from metadata) so the CLI, the
lint and the jit hook can all point at the source.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .ir import Instruction

COLLECTIVE_OPCODES = frozenset(
    {
        "all-gather", "all-gather-start", "all-reduce", "all-reduce-start",
        "reduce-scatter", "all-to-all", "collective-permute", "collective-permute-start",
    }
)


@dataclass(frozen=True)
class Location:
    path: str | None
    line: int
    column: int
    op_name: str | None = None
    computation: str | None = None

    def __str__(self) -> str:
        where = f"{self.path or '<string>'}:{self.line}:{self.column}"
        return f"{where} ({self.op_name})" if self.op_name else where


def op_name_of(instr: Instruction) -> str | None:
    """The framework-level name of an op (HLO ``metadata.op_name``; MLIR location name)."""
    if "metadata" in instr.attributes:
        try:
            meta = instr.attributes["metadata"]
        except ValueError:
            meta = None
        if isinstance(meta, dict) and meta.get("op_name"):
            return str(meta["op_name"])
    name = instr.dialect_data.get("loc_name")
    return str(name) if name else None


def location_of(instr: Instruction) -> Location:
    module = instr.module
    return Location(
        path=module.path if module is not None else None,
        line=instr.line,
        column=instr.column,
        op_name=op_name_of(instr),
        computation=instr.computation.name if instr.computation is not None else None,
    )


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


@dataclass
class Site:
    rule: str
    form: str
    location: Location
    before: CollectiveCost
    after: CollectiveCost
    bytes_saved: int
    rewritten: bool = True
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["location"] = asdict(self.location)
        return d


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
        d["location"] = asdict(self.location)
        return d


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
    import traceback

    where = "?"
    for frame in traceback.extract_tb(err.__traceback__):
        path = frame.filename.replace("\\", "/")
        k = path.rfind("/hlo_passes/")
        if k >= 0:
            where = f"{path[k + 1:]}:{frame.lineno}"
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
