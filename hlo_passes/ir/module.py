"""The module graph: one IR for HLO and StableHLO.

A ``Module`` holds ``Computation``s (HLO computations; MLIR functions and
regions); a computation holds ``Instruction``s in program order.  The def→use
structure of the whole module is a ``networkx.MultiDiGraph`` whose nodes are
the instructions and whose edges run from an operand to its user, keyed by the
operand's position, so ``add(x, x)`` has two edges and order is never lost.
The graph is built on its first use (``Module.graph``): a parse that is only
printed again, as a pre-scanned file that needs no rewrite, never pays for it.

Both parsers normalise to one vocabulary so that a rewrite is written once:

* ``Instruction.opcode`` is HLO's spelling (``all-gather``, ``ragged-dot``)
  where the op has an HLO twin, otherwise the MLIR name
  (``sdy.manual_computation``); ``Instruction.source_op`` keeps the spelling
  of the source text.
* ``Instruction.attributes`` maps HLO attribute names to decoded Python
  values (see ``ATTRIBUTE_VALUES`` below); the exact source text of every
  attribute stays available through ``Attributes.raw``.
* ``Shape`` uses HLO element-type names (``s32``, ``pred``, ``f8e4m3fn``).

Every mutation goes through this module's API, which keeps the graph in step
and marks what changed, so the printer rewrites only the changed lines.
"""
from __future__ import annotations

import copy
import itertools
import re
import weakref
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Self

import networkx as nx

from .._gc import collector_paused
from ..errors import VerificationError
from .verify import verify_module

# Bits per element, in HLO spelling.  Sub-byte types are what they say; XLA
# packs them, so byte sizes round up per array, not per element.
ELEMENT_BITS: dict[str, int] = {
    "pred": 8,
    "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "c64": 64, "c128": 128,
    "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8,
    "f8e5m2fnuz": 8, "f8e4m3fnuz": 8, "f8e3m4": 8, "f8e8m0fnu": 8,
    "f4e2m1fn": 4, "f6e2m3fn": 6, "f6e3m2fn": 6, "e8m0fnu": 8,
    "token": 0, "opaque": 0, "tuple": 0,
}

# What ``Instruction.attributes[name]`` decodes to, in both dialects.  Parsers
# keep every other attribute as its source text (a ``str``).
ATTRIBUTE_VALUES: dict[str, str] = {
    "dimensions": "tuple[int, ...]",
    "slice": "tuple[tuple[int, int, int], ...]  (start, limit, stride) per dim",
    "padding": "tuple[tuple[int, int, int], ...]  (low, high, interior) per dim",
    "replica_groups": "tuple[tuple[int, ...], ...]  (iota and mesh forms expanded)",
    "channel_id": "int",
    "use_global_device_ids": "bool",
    "lhs_contracting_dims / rhs_contracting_dims / lhs_batch_dims / "
    "rhs_batch_dims / lhs_ragged_dims / rhs_group_dims / rhs_contracting_dims": "tuple[int, ...]",
    "index": "int  (get-tuple-element)",
    "to_apply / condition / body / calls / branch_computations": "names of called computations",
    "sharding": "Sharding  (see the Sharding class below)",
    "metadata": "dict[str, str | int]",
    "frontend_attributes": "dict[str, str]",
    "custom_call_target": "str",
}


@dataclass(frozen=True, slots=True)
class Shape:
    """An array, tuple or token shape.

    ``dims[i]`` is the size (the bound, for a bounded dynamic dimension;
    ``-1`` for an unbounded one); ``dynamic[i]`` says whether it is dynamic.
    ``layout`` and ``text`` are the source spelling and take no part in
    equality: two shapes are equal when their types and sizes are.
    """

    element_type: str
    dims: tuple[int, ...] = ()
    dynamic: tuple[bool, ...] = ()
    tuple_shapes: tuple["Shape", ...] = ()
    layout: str | None = field(default=None, compare=False)
    text: str | None = field(default=None, compare=False)

    @staticmethod
    def array(element_type: str, dims: Iterable[int]) -> "Shape":
        d = tuple(int(x) for x in dims)
        return Shape(element_type, d, (False,) * len(d))

    @staticmethod
    def tuple_of(shapes: Iterable["Shape"]) -> "Shape":
        return Shape("tuple", tuple_shapes=tuple(shapes))

    @property
    def is_tuple(self) -> bool:
        return self.element_type == "tuple"

    @property
    def is_array(self) -> bool:
        return self.element_type not in ("tuple", "token", "opaque")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.dims:
            n *= max(d, 0)
        return n

    @property
    def byte_size(self) -> int:
        """Bytes of the array (tuples: the sum of their elements); ceiling for sub-byte types."""
        if self.is_tuple:
            return sum(s.byte_size for s in self.tuple_shapes)
        bits = ELEMENT_BITS.get(self.element_type, 0)
        return (self.num_elements * bits + 7) // 8

    @property
    def layout_text(self) -> str:
        """The layout as XLA reads it: the one given, else XLA's default (minor to major from the
        last dimension), so shapes printed with and without a default layout compare equal."""
        return self.layout or "{" + ",".join(str(d) for d in reversed(range(self.rank))) + "}"

    def with_element_type(self, element_type: str) -> "Shape":
        return replace(self, element_type=element_type, text=None, layout=None)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        if self.is_tuple:
            return "(" + ", ".join(str(s) for s in self.tuple_shapes) + ")"
        if not self.is_array:
            return self.element_type
        dims = ",".join(
            ("<=" + str(d) if dyn and d >= 0 else "?" if d < 0 else str(d))
            for d, dyn in zip(self.dims, self.dynamic or (False,) * len(self.dims))
        )
        return f"{self.element_type}[{dims}]{self.layout or ''}"


@dataclass(frozen=True, slots=True)
class Sharding:
    """An HLO sharding (``sharding={...}``), decoded.

    ``kind`` is ``replicated``, ``manual``, ``unknown``, ``maximal`` (on
    ``devices[0]``), ``tiled`` (``tile_shape`` with ``devices`` the tile
    assignment, flattened, iota forms expanded) or ``tuple`` (one sharding per
    tuple element in ``tuple_shardings``).  ``iota`` keeps the compact
    ``[..]<=[..]T(..)`` spelling when the source used it; ``metadata`` is the
    source text of a ``metadata={...}`` field; ``shard_group`` is
    (``shard_as``/``shard_like``, id).  ``named`` is the text inside the
    braces of a sharding written over a mesh (jax 0.12's XLA:
    ``{mesh['x'=2], [{}, {'x'}]}``, ``{mesh[], replicated}``); ``kind`` then
    says only ``manual``, ``replicated``, ``maximal`` or ``tiled``.
    """

    kind: str
    tile_shape: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    last_tile_dim_replicate: bool = False
    last_tile_dims: tuple[str, ...] = ()
    tuple_shardings: tuple["Sharding", ...] = ()
    metadata: str | None = None
    shard_group: tuple[str, int] | None = None
    iota: str | None = None
    named: str | None = None

    def __str__(self) -> str:
        """HLO spelling, as in ``sharding=<this>``."""
        if self.named is not None:
            return "{" + self.named + "}"
        if self.kind == "tuple":
            return "{" + ", ".join(str(s) for s in self.tuple_shardings) + "}"
        parts: list[str] = []
        if self.kind == "maximal":
            parts.append(f"maximal device={self.devices[0]}")
        elif self.kind == "tiled":
            dims = ",".join(str(d) for d in self.tile_shape)
            if self.iota is not None:
                parts.append(f"devices={self.iota}")
            else:
                parts.append(f"devices=[{dims}]" + ",".join(str(d) for d in self.devices))
            if self.last_tile_dim_replicate:
                parts.append("last_tile_dim_replicate")
            if self.last_tile_dims:
                parts.append("last_tile_dims={" + ", ".join(self.last_tile_dims) + "}")
        elif self.kind != "unknown" or self.shard_group is None:
            parts.append(self.kind)
        if self.shard_group is not None:
            parts.append(f"{self.shard_group[0]} {self.shard_group[1]}")
        if self.metadata is not None:
            parts.append(f"metadata={self.metadata}")
        return "{" + " ".join(parts) + "}"


class Attributes(MutableMapping[str, Any]):
    """An instruction's attributes: decoded on first access, source text kept.

    Parsers hand in the source text of each attribute and a decoder; decoding
    happens when a pass asks (or up front with ``parse(..., validate=True)``),
    which keeps parsing fast.  Assigning a value drops its source text and
    marks the owning instruction changed, so the printer re-prints its line.
    ``_decoded`` stays None until a value is decoded or set: most attributes
    of a large module are never read, and an empty dict per instruction
    would cost more than the rest of the object.
    """

    __slots__ = ("_raw", "_decoded", "_decode", "_owner")

    def __init__(
        self,
        raw: dict[str, str] | None = None,
        decode: Callable[[str, Any], Any] | None = None,  # (name, source text or None)
        owner: "Instruction | None" = None,
    ) -> None:
        self._raw: dict[str, str | None] = dict(raw) if raw else {}
        self._decoded: dict[str, Any] | None = None
        self._decode = decode
        self._owner = owner

    def __getitem__(self, key: str) -> Any:
        decoded = self._decoded
        if decoded is None:
            decoded = self._decoded = {}
        else:
            try:
                return decoded[key]
            except KeyError:
                pass
        text = self._raw[key]  # KeyError for unknown names, as a dict would
        value = text if self._decode is None else self._decode(key, text)
        decoded[key] = value
        return value

    def decoded(self, key: str) -> Any:
        """The decoded value of ``key``, or None where there is none or its text does not decode
        (a rule that reads a malformed attribute refuses the site; it never raises)."""
        if key not in self._raw:
            return None
        try:
            return self[key]
        except ValueError:
            return None

    def set_decoded(self, key: str, value: Any) -> None:
        """Record the decoded value of an attribute whose source text stays (parsers)."""
        if self._decoded is None:
            self._decoded = {}
        self._decoded[key] = value

    def __setitem__(self, key: str, value: Any) -> None:
        self.set_decoded(key, value)
        self._raw[key] = None
        if self._owner is not None:
            self._owner.mark_changed()

    def __delitem__(self, key: str) -> None:
        del self._raw[key]
        if self._decoded is not None:
            self._decoded.pop(key, None)
        if self._owner is not None:
            self._owner.mark_changed()

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    @classmethod
    def of_source(cls, raw: dict[str, str | None], decode: Callable[[str, str], Any] | None,
                  owner: "Instruction | None" = None) -> "Attributes":
        """The parsers' constructor: ``raw`` is adopted, not copied (one dict per instruction
        of a large module is what parsing allocates most)."""
        attributes = cls.__new__(cls)
        attributes._raw = raw
        attributes._decoded = None
        attributes._decode = decode
        attributes._owner = owner
        return attributes

    def adopt_source(self, raw: dict[str, str | None], decode: Callable[[str, str], Any]) -> None:
        """Take ``raw`` (not copied) and its decoder, in place of an empty set (parsers that
        create the instruction before its attributes are read)."""
        self._raw = raw
        self._decode = decode

    def raw(self, key: str) -> str | None:
        """The attribute's exact source text, or None if it was set by a pass."""
        return self._raw[key]

    def source_texts(self) -> dict[str, str | None]:
        """Every attribute's source text by name (None: set by a pass); the dict itself, to
        read, for the parsers' checks and the printers."""
        return self._raw

    def decode_all(self) -> None:
        """Decode every attribute now (``validate=True``); raises what the decoder raises."""
        for key in self._raw:
            self[key]

    def copy(self, owner: "Instruction | None" = None) -> "Attributes":
        new = Attributes(None, self._decode, owner)
        new._raw = dict(self._raw)
        new._decoded = None if self._decoded is None else dict(self._decoded)
        return new

    def __repr__(self) -> str:
        return f"Attributes({dict(self._raw)!r})"


class Value(NamedTuple):
    """One result of an op, as an operand reads it: the op, and which of its results (0 for an
    op with one; MLIR's ``%op#2`` is ``Value(op, 2)``).  A plain ``(op, result)`` pair reads the
    same, so code that kept the two apart reads a ``Value`` unchanged."""

    op: Instruction
    result: int = 0

    @property
    def shape(self) -> Shape:
        return self.op.result_shape(self.result)

    @property
    def ref(self) -> str:
        """As the source spells the use (``%15#1`` for a result of a multi-result MLIR op)."""
        return self.op.ref + (f"#{self.result}" if self.op.num_results > 1 else "")


class Instruction:
    """One HLO instruction or MLIR operation: a node of ``Module.graph``.

    ``operands`` are the defining instructions in order; ``operand_results``
    says which result of each was used (MLIR ``%op#2``; always 0 in HLO).
    ``line``/``column`` are 1-based positions in the source (0 for new ones).
    ``dialect_data`` holds what a dialect's printer needs to re-print the op
    in its own spelling (e.g. MLIR result names, location, pretty form).
    ``span`` is (start, end) of the instruction's text in the source;
    ``lead`` is where the source text that goes with it starts (the end of
    the previous instruction's line, so comments and blank lines above it
    stay with it), None for new or nested ones.

    Memory: a large module has 10^5-10^6 of these, so ``operand_results``,
    ``called_computations`` and ``dialect_data`` are created on first access
    (most instructions never need one) and every field is a slot.
    """

    __slots__ = (
        "name", "opcode", "source_op", "shape", "operands", "_operand_results",
        "attributes", "_called_computations", "computation", "line", "column",
        "span", "lead", "changed", "_dialect_data", "num_results", "__weakref__",
    )

    def __init__(
        self,
        name: str,
        opcode: str,
        shape: Shape,
        operands: list["Instruction"] | None = None,
        attributes: Attributes | dict[str, Any] | None = None,
        *,
        source_op: str | None = None,
        line: int = 0,
        column: int = 0,
        span: tuple[int, int] | None = None,
        num_results: int = 1,
    ) -> None:
        self.name = name
        self.opcode = opcode
        self.source_op = source_op or opcode
        self.shape = shape
        self.operands: list[Instruction] = list(operands) if operands else []
        self._operand_results: list[int] | None = None
        if isinstance(attributes, Attributes):
            attributes._owner = self
            self.attributes = attributes
        else:
            self.attributes = Attributes(owner=self)
            for k, v in (attributes or {}).items():
                self.attributes._raw[k] = None
                self.attributes.set_decoded(k, v)
        self._called_computations: list[Computation] | None = None
        self.computation: Computation | None = None
        self.line = line
        self.column = column
        self.span = span
        self.lead: int | None = None
        # New instructions have no source text to reuse: they are "changed".
        self.changed = span is None
        self._dialect_data: dict[str, Any] | None = None
        self.num_results = num_results

    @classmethod
    def parsed(cls, name: str, opcode: str, source_op: str, shape: Shape, operands: list["Instruction"],
               attributes: Attributes, line: int, column: int, span: tuple[int, int], num_results: int,
               dialect_data: dict[str, Any] | None) -> Self:
        """An instruction as a parser reads it (unchanged, with its source span), the lists and
        dicts handed in adopted: ``__init__`` without its checks and copies, for the parsers'
        hot loops (a tenth of the time of a one-line op)."""
        self = cls.__new__(cls)
        self.name = name
        self.opcode = opcode
        self.source_op = source_op
        self.shape = shape
        self.operands = operands
        self._operand_results = None
        attributes._owner = self
        self.attributes = attributes
        self._called_computations = None
        self.computation = None
        self.line = line
        self.column = column
        self.span = span
        self.lead = None
        self.changed = False
        self._dialect_data = dialect_data
        self.num_results = num_results
        return self

    # Created on first access; assignment replaces them as with plain fields.
    @property
    def operand_results(self) -> list[int]:
        r = self._operand_results
        if r is None:
            r = self._operand_results = [0] * len(self.operands)
        return r

    @operand_results.setter
    def operand_results(self, value: list[int]) -> None:
        self._operand_results = value

    @property
    def operand_values(self) -> list[Value]:
        """The operands as typed values: each defining op with the result of it read."""
        r = self._operand_results
        if r is None:
            return [Value(op) for op in self.operands]
        return [Value(op, k) for op, k in zip(self.operands, r)]

    @property
    def called_computations(self) -> list["Computation"]:
        c = self._called_computations
        if c is None:
            c = self._called_computations = []
        return c

    @called_computations.setter
    def called_computations(self, value: list["Computation"]) -> None:
        self._called_computations = value

    @property
    def dialect_data(self) -> dict[str, Any]:
        d = self._dialect_data
        if d is None:
            d = self._dialect_data = {}
        return d

    @dialect_data.setter
    def dialect_data(self, value: dict[str, Any]) -> None:
        self._dialect_data = value

    # ---- what rules and reports read of the dialect's data ----------------
    def marked(self, key: str) -> Any:
        """What a rule noted of this op under ``key`` (``Rewriter.mark``), or None."""
        dd = self._dialect_data
        return dd.get(key) if dd is not None else None

    @property
    def mlir_loc(self) -> str | None:
        """The op's MLIR location as its text writes it (``loc(#loc12)``, or inline), None for
        an HLO op or an op written without one.  Aliases are the reader's to expand."""
        dd = self._dialect_data
        loc = dd.get("loc") if dd is not None else None
        return loc if isinstance(loc, str) and loc else None

    def take_location(self, source: "Instruction") -> None:
        """Point this (new) op at ``source``'s MLIR location, as an op that stands for it."""
        dd = source._dialect_data
        if dd is not None and "loc" in dd:
            self.dialect_data["loc"] = dd["loc"]

    @property
    def is_terminator(self) -> bool:
        """Whether the op ends its MLIR block (``return``, ``stablehlo.return``, ...): the last op of
        a region, which the rules never remove or move.  False for HLO."""
        dd = self._dialect_data
        return bool(dd is not None and dd.get("terminator"))

    @property
    def mlir_pretty_value(self) -> str | None:
        """What an MLIR op in pretty form writes between its name and its ' : ' (``dense<0>`` of
        ``stablehlo.constant dense<0> : tensor<i32>``), as the source has it; None for an op not
        read from MLIR pretty text."""
        dd = self._dialect_data
        module = self.module
        if dd is None or module is None or self.span is None or "body_start" not in dd or "colon" not in dd:
            return None
        return module.source[dd["body_start"]:dd["colon"]].strip()

    @property
    def compare_direction(self) -> str | None:
        """A compare's direction (``LT``, ...): the ``direction`` attribute HLO and MLIR's generic
        form decode it into, or the leading word of MLIR's pretty form (``stablehlo.compare LT,
        %a, %b, SIGNED``), which only the parser's data holds; None for another op."""
        if self.opcode != "compare":
            return None
        direction = self.attributes.get("direction")
        if direction is None:
            words = (self._dialect_data or {}).get("words") or []
            direction = words[0] if words else None
        return str(direction) if direction is not None else None

    @property
    def compare_type(self) -> str | None:
        """A compare's type (``SIGNED``, ``FLOAT``, ``TOTALORDER``, ...): the ``type`` attribute, or
        the second word of MLIR's pretty form; None for another op or when not written."""
        if self.opcode != "compare":
            return None
        kind = self.attributes.get("type")
        if kind is None:
            words = (self._dialect_data or {}).get("words") or []
            kind = words[1] if len(words) > 1 else None
        return str(kind) if kind is not None else None

    @property
    def mlir_arg_attrs(self) -> str | None:
        """A function argument's own attribute dictionary as text (``{mhlo.sharding = ...}``),
        where the pretty form writes it on the argument; None otherwise."""
        dd = self._dialect_data
        return dd.get("arg_attrs") if dd is not None else None

    def __repr__(self) -> str:
        return f"<{self.opcode} {self.name}: {self.shape}>"

    # ---- graph queries -------------------------------------------------
    @property
    def module(self) -> "Module | None":
        return self.computation.module if self.computation is not None else None

    @property
    def users(self) -> list["Instruction"]:
        """Instructions that use this one, each once, in program order of their uses."""
        module = self.module
        if module is None:
            return []
        g = module.graph
        if type(g) is nx.MultiDiGraph:
            # Its adjacency (the layout fill_graph builds): users in the order of their first
            # use, as out_edges gives them, without building a view per call (the rules ask
            # for users tens of thousands of times a module: a fifth of a rewrite went there).
            return list(g._succ.get(self, ()))
        seen: dict[Instruction, None] = {}
        for _, user in g.out_edges(self):
            seen[user] = None
        return list(seen)

    @property
    def ref(self) -> str:
        """The name as the source spells a use of it (``%0`` in MLIR, ``add.1`` in HLO)."""
        module = self.module
        return "%" + self.name if module is not None and module.dialect == "stablehlo" else self.name

    def result_shape(self, result: int) -> Shape:
        """The shape of result ``result``: its element of a multi-result op's tuple shape,
        else the op's shape."""
        if self.num_results > 1 and self.shape.is_tuple:
            return self.shape.tuple_shapes[result]
        return self.shape

    @property
    def is_root(self) -> bool:
        return self.computation is not None and self.computation.root is self

    def mark_changed(self) -> None:
        self.changed = True
        if self.computation is not None:
            self.computation.changed = True

    # ---- mutation ------------------------------------------------------
    def set_operand(self, index: int, new: "Instruction", result: int = 0) -> None:
        """Make operand ``index`` be ``new`` (result ``result`` of it)."""
        old = self.operands[index]
        module = self.module
        if module is not None:
            module.graph.remove_edge(old, self, key=index)
            module.graph.add_edge(new, self, key=index)
        self.operands[index] = new
        self.operand_results[index] = result
        self.mark_changed()

    def remove_operand(self, index: int) -> "Instruction":
        """Drop operand ``index`` (later operands move down one place); returns it."""
        module = self.module
        if module is not None:
            g = module.graph
            g.remove_edges_from([(op, self, k) for k, op in enumerate(self.operands)])
        self.operand_results.pop(index)  # first: created on first use from the operand count
        old = self.operands.pop(index)
        if module is not None:
            g.add_edges_from((op, self, k) for k, op in enumerate(self.operands))
        self.mark_changed()
        return old

    def set_shape(self, shape: Shape) -> None:
        self.shape = shape
        self.mark_changed()


class Computation:
    """An HLO computation, or an MLIR function or region body.

    ``instructions`` are in program order; ``root`` is the HLO ROOT (for MLIR,
    the terminator's operand when there is one).  ``parent`` is the
    instruction that owns a region (``None`` for top-level computations).
    """

    def __init__(self, name: str, *, line: int = 0, column: int = 0) -> None:
        self.name = name
        self.instructions: list[Instruction] = []
        self.root: Instruction | None = None
        self.module: Module | None = None
        self.parent: Instruction | None = None
        self.line = line
        self.column = column
        self.changed = False
        self.dialect_data: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<Computation {self.name}: {len(self.instructions)} instructions>"

    @property
    def parameters(self) -> list[Instruction]:
        params = [i for i in self.instructions if i.opcode == "parameter"]
        params.sort(key=lambda i: i.attributes.get("parameter_number", 0))
        return params

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    @property
    def func_op(self) -> Instruction | None:
        """The ``func.func`` op of an MLIR function (its attributes: ``arg_attrs``, ...); None for a
        region, an HLO computation or a function a pass made."""
        return self.dialect_data.get("func")

    def append(self, instr: Instruction) -> Instruction:
        """Add a parsed instruction at the end (parsers use this; passes use ``add``)."""
        module = self.module
        if module is not None:
            module.graph  # noqa: B018 - built from what is there before this instruction joins
        instr.computation = self
        self.instructions.append(instr)
        if module is not None:
            module._register(instr)
        return instr

    def add(
        self,
        opcode: str,
        shape: Shape,
        operands: Iterable[Instruction] = (),
        attributes: dict[str, Any] | None = None,
        *,
        name_hint: str | None = None,
        before: Instruction | None = None,
        after: Instruction | None = None,
        source_op: str | None = None,
    ) -> Instruction:
        """Create an instruction with a fresh unique name and insert it.

        It goes right before ``before`` or right after ``after``, else at the
        end (before the terminator, for MLIR).
        """
        assert self.module is not None, "computation is not part of a module"
        self.module.graph  # noqa: B018 - built from what is there before this instruction joins
        name = self.module.fresh_name(name_hint or opcode.replace("-", "_"))
        instr = Instruction(name, opcode, shape, list(operands), attributes, source_op=source_op)
        if before is not None:
            pos = self.instructions.index(before)
        elif after is not None:
            pos = self.instructions.index(after) + 1
        else:
            pos = len(self.instructions)
            last = self.instructions[-1] if self.instructions else None
            if last is not None and last.dialect_data.get("terminator"):
                pos -= 1
        instr.computation = self
        self.instructions.insert(pos, instr)
        self.module._register(instr)
        self.changed = True
        return instr

    def remove(self, instr: Instruction) -> None:
        """Remove an instruction that nothing uses any more."""
        if instr.users:
            raise ValueError(f"cannot remove {instr.name}: still used by {[u.name for u in instr.users]}")
        if instr is self.root:
            raise ValueError(f"cannot remove {instr.name}: it is the root of {self.name}")
        self.instructions.remove(instr)
        if self.module is not None:
            self.module._unregister(instr)
        instr.computation = None
        self.changed = True

    def remove_parameter(self, param: Instruction) -> None:
        """Remove an unused parameter; the ones after it are renumbered down."""
        number = param.attributes["parameter_number"]
        self.remove(param)
        for p in self.instructions:
            if p.opcode == "parameter" and p.attributes["parameter_number"] > number:
                p.attributes["parameter_number"] = p.attributes["parameter_number"] - 1

    def set_root(self, instr: Instruction) -> None:
        self.root = instr
        self.changed = True
        if instr.computation is not self and self.module is not None:
            # A root from another computation: replace_all_uses must still find it.
            self.module._foreign_roots.add(self)


class Module:
    """A parsed module: computations, the def→use graph and the source text.

    ``dialect`` is ``"hlo"`` or ``"stablehlo"``.  ``source`` is the text it was
    parsed from; ``to_text()`` returns it unchanged when nothing changed and
    otherwise re-prints only what changed.
    """

    def __init__(self, name: str, dialect: str, source: str = "", path: str | None = None) -> None:
        self.name = name
        self.dialect = dialect
        self.source = source
        self.path = path
        self.computations: dict[str, Computation] = {}
        self.entry: Computation | None = None
        # The def→use graph, built on first use (``graph``).
        self._graph: nx.MultiDiGraph | None = None
        self.attributes: dict[str, Any] = {}
        self.dialect_data: dict[str, Any] = {}
        self.structure_changed = False
        # What ``verify_module`` found when the parser was asked to validate
        # (None: not checked).  The parser reports these rather than rejecting
        # the text, because XLA's parser accepts verifier-invalid modules.
        self.shape_problems: list[str] | None = None
        # Names in use, for fresh_name; built on its first call (parsing a
        # large module should not pay for a set that most callers never use).
        self._names: set[str] | None = None
        self._counter = itertools.count(1)
        # Computations whose root (set by set_root) is not one of their own
        # instructions; every other root lives in its own computation, so
        # replace_all_uses looks only there and here, not at every computation.
        self._foreign_roots: set[Computation] = set()
        # Set by the dialect's parser: Module -> text, (module, regenerate) -> str.
        self.printer: Callable[["Module", bool], str] | None = None

    def __repr__(self) -> str:
        n = sum(len(c.instructions) for c in self.computations.values())
        return f"<Module {self.name} ({self.dialect}): {len(self.computations)} computations, {n} instructions>"

    @property
    def scheduled(self) -> bool:
        """Whether this is a program XLA compiled (optimized HLO: its header's ``is_scheduled=true``):
        its collectives are what runs, and the rules' default set is the pass inside XLA's."""
        return self.dialect == "hlo" and str(self.attributes.get("is_scheduled", "")) == "true"

    @property
    def declared_devices(self) -> tuple[int, int]:
        """(replicas, partitions) the module says it runs on: HLO's header ``replica_count`` and
        ``num_partitions``, StableHLO's ``mhlo.num_replicas`` and ``mhlo.num_partitions`` (``8 : i32``);
        1 for each that is absent or unreadable.  The one reading of it for every caller."""
        names = ("replica_count", "num_partitions") if self.dialect == "hlo" else ("mhlo.num_replicas",
                                                                                  "mhlo.num_partitions")
        replicas, partitions = (_count_attribute(self.attributes.get(n)) for n in names)
        return replicas, partitions

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The def→use graph of every instruction, built on first use from the computations.

        A mutation builds it first (``_register``'s callers), so the graph and the order of
        its nodes and edges are those of a graph kept up to date from the parse on.
        """
        g = self._graph
        if g is None:
            # Paused collector, as for a parse (_gc): the graph is as many objects as the
            # instructions, and a collector running meanwhile rescanned the module's heap
            # (the build took 0.2 s instead of 0.03 s on 4 MB of StableHLO), then kept
            # rescanning what it left young through the rewrite that follows.
            with collector_paused():
                g = self._graph = nx.MultiDiGraph()
                fill_graph(self, self.computations.values())
        return g

    @graph.setter
    def graph(self, g: nx.MultiDiGraph | None) -> None:
        self._graph = g

    # ---- building ------------------------------------------------------
    def add_computation(self, comp: Computation, *, before: Computation | None = None) -> Computation:
        """Add ``comp`` at the end, or right before ``before`` (HLO text must define a
        callee ahead of its callers)."""
        self.graph  # noqa: B018 - built from what is there before ``comp`` joins
        comp.module = self
        if before is None:
            self.computations[comp.name] = comp
        else:
            if self.computations.get(before.name) is not before:
                raise ValueError(f"cannot add {comp.name} before {before.name}: not a computation of this module")
            # Taken off the end down to ``before`` and put back after ``comp``: what is added goes
            # before the entry (the last) or a loop's body near it, so this touches a few
            # computations, where rebuilding the dict touched all (per fusion the pass builds).
            tail: list[tuple[str, Computation]] = []
            while not tail or tail[-1][1] is not before:
                tail.append(self.computations.popitem())
            self.computations[comp.name] = comp
            self.computations.update(reversed(tail))
        for instr in comp.instructions:
            self._register(instr)
        return comp

    def remove_computation(self, comp: Computation, *, fused_body_of: Instruction | None = None) -> None:
        """Remove a computation nothing calls any more, with the regions of its ops.

        ``fused_body_of``: the fusion, already erased, whose fused computation ``comp`` is.  A
        fused computation has that one caller (XLA's invariant, which its verifier checks), so
        the module is not searched for others: inlining each of n fusions would otherwise
        search the whole module n times."""
        if fused_body_of is not None and (fused_body_of.computation is not None
                                          or comp not in fused_body_of.called_computations):
            raise ValueError(f"cannot remove computation {comp.name}: {fused_body_of.name} is not an erased "
                             "fusion calling it")
        callers = [] if fused_body_of is not None else [
            i.name for i in self.instructions()
            if comp in i.called_computations and i.computation is not None
            and i.computation.module is self and not is_inside(i.computation, comp)]
        if callers:
            raise ValueError(f"cannot remove computation {comp.name}: called by {callers}")
        if comp is self.entry:
            raise ValueError(f"cannot remove computation {comp.name}: it is the entry")
        for c in _with_regions(comp):
            if self.computations.get(c.name) is not c:
                continue
            del self.computations[c.name]
            for instr in c.instructions:
                self._unregister(instr)
            c.module = None
        self.structure_changed = True

    def _register(self, instr: Instruction) -> None:
        g = self.graph
        g.add_node(instr)
        if self._names is not None:
            self._names.add(instr.name)
        for i, op in enumerate(instr.operands):
            g.add_edge(op, instr, key=i)

    def _unregister(self, instr: Instruction) -> None:
        if self._graph is not None:  # (else the graph, when built, will not have it)
            self._graph.remove_node(instr)
        if self._names is not None:
            self._names.discard(instr.name)

    def clone(self) -> "Module":
        """A copy that shares no mutable state with this module, made without printing and
        parsing (``run_passes`` works on one).

        Instructions, computations, attribute and dialect-data containers are copied, and
        every reference between them points into the copy; shapes, shardings, the source text
        and the attribute decoders are shared (immutable, or stateless).  Like a fresh parse
        of the printed text, the copy's fresh names start again from 1 (they never collide).
        """
        # Paused collector, as for a parse (_gc): a clone builds as many objects as one.
        with collector_paused():
            return _clone_module(self)

    def release(self) -> None:
        """Break the module's reference cycles, leaving it empty, so that reference counting
        frees it the moment its last reference goes: for a module parsed for one call and
        dropped (the pass inside XLA parses one per compile).

        Instructions and computations refer to each other (an op to its computation and its
        attributes' owner back, a computation to its module and to the op owning it), so a
        dropped module is garbage only the cyclic collector can free: a full collection, a
        fifth of a second on a large heap, that then lands inside some later compile (_gc).
        Released, it costs only the deallocation, paid here.  Nothing may use the module or
        its instructions afterwards (reports hold names and lines, not ops)."""
        seen: dict[int, Computation] = {}
        for top in self.computations.values():
            seen.update((id(c), c) for c in _with_regions(top))  # MLIR regions too
        for comp in seen.values():
            for instr in comp.instructions:
                instr.attributes._owner = None
                instr.computation = None
                instr._called_computations = None
                instr._dialect_data = None
            comp.instructions = []
            comp.root = comp.parent = comp.module = None
            comp.dialect_data = {}
        if self._graph is not None:
            self._graph.clear()
            self._graph = None
        self.computations = {}
        self.entry = None
        self.dialect_data = {}
        self._foreign_roots = set()
        self._names = None

    def fresh_name(self, hint: str) -> str:
        """A name used by no instruction of the module, derived from ``hint``."""
        base = re.sub(r"(\.hp\d+)*(\.\d+)?$", "", hint) or "v"
        # MLIR value names that start with a digit must be all digits.
        if not (base[0].isalpha() or base[0] == "_"):
            base = "v" + base
        names = self._names
        if names is None:
            names = self._names = {i.name for i in self.instructions()}
        while True:
            name = f"{base}.hp{next(self._counter)}"
            if name not in names:
                names.add(name)
                return name

    # ---- queries -------------------------------------------------------
    @property
    def stack_tables(self) -> list[tuple[str, Any, tuple[int, int]]]:
        """The HLO text's stack-frame tables (``FileNames``, ``FunctionNames``, ``FileLocations``,
        ``StackFrames``: name, entries, span), as the parser read them; empty when it has none."""
        return self.dialect_data.get("stack_tables") or []

    def instructions(self) -> Iterator[Instruction]:
        """Every instruction of every computation, computations in module order."""
        for comp in self.computations.values():
            yield from comp.instructions

    @property
    def call_graph(self) -> nx.DiGraph:
        """Computation → computations its instructions call (by name)."""
        g = nx.DiGraph()
        for comp in self.computations.values():
            g.add_node(comp.name)
            for instr in comp.instructions:
                for callee in instr.called_computations:
                    g.add_edge(comp.name, callee.name)
        return g

    @property
    def changed(self) -> bool:
        return self.structure_changed or any(c.changed for c in self.computations.values())

    # ---- mutation ------------------------------------------------------
    def replace_all_uses(self, old: Instruction, new: Instruction, result: int = 0) -> int:
        """Point every use of ``old`` at ``new`` (roots included); returns the count."""
        uses = [(user, key) for _, user, key in self.graph.out_edges(old, keys=True)]
        for user, key in uses:
            if user is not new:
                user.set_operand(key, new, result)
        home = old.computation
        if home is None or home.module is not self:
            candidates: Iterable[Computation] = list(self.computations.values())
        else:
            candidates = [home, *self._foreign_roots] if self._foreign_roots else [home]
        for comp in candidates:
            if comp.root is old and self.computations.get(comp.name) is comp:
                comp.set_root(new)
        return len(uses)

    # ---- output --------------------------------------------------------
    def to_text(self, regenerate: bool = False) -> str:
        """The module as text in its own dialect.

        Unchanged modules print back byte-identical; changed ones re-print
        only the changed instructions.  ``regenerate=True`` prints every
        instruction from its parsed fields, ignoring the stored source.
        """
        if not regenerate and not self.changed:
            return self.source
        if self.printer is None:
            raise RuntimeError("module has no printer (it was not built by a parser)")
        text = self.printer(self, regenerate)
        source = self.source
        if "\r\n" in source and source.count("\n") == source.count("\r\n"):
            # The printers write '\n'; a text of CRLF lines stays one (not a mix of both).
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return text

    def verify(self) -> None:
        """Raise ``VerificationError`` listing every structural or shape problem."""
        problems = verify_module(self)
        if problems:
            raise VerificationError(problems)


_PARTITIONED: "weakref.WeakKeyDictionary[Module, bool]" = weakref.WeakKeyDictionary()
# Custom calls that exist only before SPMD partitioning.
_UNPARTITIONED_CALLS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
                        "xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape")


def _count_attribute(value: object) -> int:
    """``8`` of a module attribute ``8`` or ``8 : i32``; 1 when absent or unreadable."""
    if value is None:
        return 1
    try:
        return max(int(str(value).split(":", 1)[0].strip()), 1)
    except ValueError:
        return 1


def is_partitioned(module: Module | None) -> bool:
    """Whether ``module`` is HLO after SPMD partitioning (an after-SPMD dump, optimized HLO,
    ``compiled.as_text()``): every shape in it is what one device holds.  Before partitioning
    the text still says how values are split: sharding custom calls, Shardy's manual regions,
    or (after Shardy's import) a ``sharding`` on ops other than the entry's parameters and root."""
    if module is None or module.dialect != "hlo":
        return False
    found = _PARTITIONED.get(module)
    if found is None:
        found = _partitioned(module)
        _PARTITIONED[module] = found
    return found


def _partitioned(module: Module) -> bool:
    entry = module.entry
    assert entry is not None, "a parsed module has an entry"
    for instr in module.instructions():
        if instr.opcode == "custom-call" and instr.attributes.get("custom_call_target") in _UNPARTITIONED_CALLS:
            return False
        # (Optimized HLO keeps a parameter's sharding on a copy of it inside a fusion.)
        if "sharding" in instr.attributes and instr.computation is entry and instr.opcode != "parameter" \
                and instr is not entry.root:
            return False
    return True


def _with_regions(comp: Computation) -> list[Computation]:
    """``comp`` and the regions nested in its ops (an op owns a region it calls whose ``parent``
    it is): found from ``comp`` down, not by asking every computation of the module whether it
    is inside (removing each of n fused bodies would cost n passes over the module)."""
    found = [comp]
    for c in found:
        found.extend(callee for i in c.instructions for callee in i.called_computations if callee.parent is i)
    return found


def is_inside(comp: Computation, outer: Computation) -> bool:
    """Whether ``comp`` is ``outer`` or a region nested in one of its ops."""
    while comp is not outer:
        if comp.parent is None or comp.parent.computation is None:
            return False
        comp = comp.parent.computation
    return True


# The frontend attribute naming the rule (or lowering) that created an op: the rewrites and the
# lowering tag what they add, and the lowering tells a GMM a rewrite made from one in the input.
CREATED_BY = "hlo_passes.rule"


def tag_created(instr: Instruction, rule: str) -> None:
    """Mark an op a rule created, in the text too (a frontend attribute survives XLA's passes)."""
    instr.dialect_data["created_by"] = rule
    attrs = dict(instr.attributes["frontend_attributes"]) if "frontend_attributes" in instr.attributes else {}
    attrs[CREATED_BY] = rule
    instr.attributes["frontend_attributes"] = attrs


def created_by(instr: Instruction) -> str | None:
    """The rule that created ``instr`` in this process (``tag_created``), or None."""
    data = instr._dialect_data
    return data.get("created_by") if data else None


class _NoData(dict[str, Any]):
    """The attribute dict of every node and edge ``fill_graph`` adds.

    The IR keeps nothing on graph nodes or edges (an instruction carries its
    own fields), and one empty dict per node and per edge was a sixth of a
    large module's memory, so they all share this one; writing to it raises
    instead of reaching every node at once.  networkx's own updates with no
    attributes (``add_node`` of a node already there) pass.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("nodes and edges of a parsed module's graph carry no attributes; "
                        "keep per-instruction data on the Instruction")

    __setitem__ = __delitem__ = setdefault = pop = popitem = clear = __ior__ = _refuse  # type: ignore[assignment]

    def update(self, *args: Any, **kwargs: Any) -> None:
        if kwargs or any(args):
            self._refuse()


_NO_DATA = _NoData()


def fill_graph(module: Module, computations: Iterable[Computation]) -> None:
    """Add the instructions of ``computations`` (already in ``module``) to its graph, with
    their def→use edges, in bulk.

    networkx's add_node/add_edge cost ~10 µs a node, a tenth of a parse; filling its
    adjacency dicts directly (the layout add_edge builds) gives the same graph several times
    faster on modules of 10^5 instructions, and without an edge list (a list of 10^5 edge
    tuples would be a fifth of a parse's peak memory).  An operand may live in an enclosing
    region or be defined later (a use before its definition in another block): its node is
    created where add_edge would have created it.  A graph of another type gets the
    ordinary calls.
    """
    g = module.graph
    if type(g) is not nx.MultiDiGraph:
        for comp in computations:
            for instr in comp.instructions:
                g.add_node(instr)
                for i, op in enumerate(instr.operands):
                    g.add_edge(op, instr, key=i)
        return
    succ, pred, attrs = g._succ, g._pred, g._node
    none = _NO_DATA
    for comp in computations:
        for instr in comp.instructions:
            preds = pred.get(instr)
            if preds is None:
                succ[instr] = {}
                preds = pred[instr] = {}
                attrs[instr] = none
            key = 0
            for op in instr.operands:
                out = succ.get(op)
                if out is None:
                    out = succ[op] = {}
                    pred[op] = {}
                    attrs[op] = none
                keydict = out.get(instr)
                if keydict is None:
                    keydict = out[instr] = preds[op] = {}
                keydict[key] = none
                key += 1
    nx._clear_cache(g)


# ---- Module.clone -----------------------------------------------------------------
# Values held as they are: immutable ones, whose copy could not differ.
_ATOMS = frozenset({str, int, float, bool, type(None), bytes, Shape, Sharding})
_ATOMS_OR_TUPLE = _ATOMS | {tuple}


def _clone_value(value: Any, memo: dict[int, Any]) -> Any:
    """``value`` with containers copied and IR objects mapped to their clones (``memo``: id of
    an original → its copy, so a container shared by several ops stays shared in the copy);
    a tuple of atoms is kept.  Other objects get ``copy.deepcopy`` with the same memo."""
    t = type(value)
    if t in _ATOMS:
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    if t is tuple or t is list:
        # Most containers hold atoms, or tuples of atoms (result groups, positions): told
        # apart with C-level passes over them, and their tuples shared.
        types = set(map(type, value))
        flat = types <= _ATOMS or (types <= _ATOMS_OR_TUPLE and set(
            map(type, itertools.chain.from_iterable([v for v in value if type(v) is tuple]))) <= _ATOMS)
        if flat:
            if t is tuple:
                return value
            out: Any = value[:]
        else:
            out = [v if type(v) in _ATOMS else _clone_value(v, memo) for v in value]
            if t is tuple:
                out = tuple(out)
    elif t is dict:
        out = dict(value)
        for k, v in out.items():
            if type(v) not in _ATOMS:
                out[k] = _clone_value(v, memo)
    elif isinstance(value, Instruction):
        # An op kept outside every computation (a StableHLO func.func, in its body's
        # dialect_data): copied where it is met.
        out = memo[id(value)] = Instruction.__new__(Instruction)
        _clone_instruction(value, out, memo)
        return out
    elif isinstance(value, (Computation, Module)):
        raise ValueError(f"{value!r} is referenced by the module but not part of it: cannot clone")
    else:
        return copy.deepcopy(value, memo)
    memo[id(value)] = out
    return out


def _clone_module(module: Module) -> Module:
    memo: dict[int, Any] = {}
    new = Module.__new__(Module)
    memo[id(module)] = new
    comps = list(module.computations.values())
    new_comps = []
    for comp in comps:
        c = Computation.__new__(Computation)
        memo[id(comp)] = c
        new_comps.append(c)
        for instr in comp.instructions:
            i = Instruction.__new__(Instruction)
            memo[id(instr)] = i
    for comp, c in zip(comps, new_comps):
        for key, value in comp.__dict__.items():
            if key == "instructions":
                c.instructions = [memo[id(i)] for i in value]
            elif key == "module":
                c.module = new
            else:
                setattr(c, key, _clone_value(value, memo))
        for instr in comp.instructions:
            _clone_instruction(instr, memo[id(instr)], memo)
    for key, value in module.__dict__.items():
        if key == "_graph":
            # Built on the copy's first use, like a parse's (a graph of another type: now).
            new._graph = None if value is None or type(value) is nx.MultiDiGraph else type(value)()
        elif key == "computations":
            new.computations = {name: memo[id(comp)] for name, comp in value.items()}
        elif key == "_names":
            new._names = None
        elif key == "_counter":
            new._counter = itertools.count(1)
        elif key == "printer":
            new.printer = value
        elif key == "_foreign_roots":
            new._foreign_roots = {memo[id(c)] for c in value}
        else:
            setattr(new, key, _clone_value(value, memo))
    if new._graph is not None:
        fill_graph(new, new_comps)
    return new


def _clone_instruction(instr: Instruction, new: Instruction, memo: dict[int, Any]) -> None:
    new.name, new.opcode, new.source_op, new.shape = instr.name, instr.opcode, instr.source_op, instr.shape
    try:
        new.operands = [memo[id(op)] for op in instr.operands]
    except KeyError:  # an operand outside every computation
        new.operands = [_clone_value(op, memo) for op in instr.operands]
    r = instr._operand_results
    new._operand_results = None if r is None else list(r)
    attrs = instr.attributes
    copied = Attributes.__new__(Attributes)
    copied._raw = dict(attrs._raw)
    copied._decoded = None if attrs._decoded is None else _clone_value(attrs._decoded, memo)
    decode = attrs._decode
    # A decoder bound to one instruction (it names it in errors) is bound to its clone.
    rebind = getattr(decode, "rebind", None)
    copied._decode = rebind(new) if rebind is not None else decode
    copied._owner = new
    new.attributes = copied
    called = instr._called_computations
    # (A computation a rewrite removed stays itself: only an op gone with it calls it, the old
    # root the printer keeps to compare with.)
    new._called_computations = None if called is None else [memo.get(id(c), c) for c in called]
    new.computation = memo[id(instr.computation)] if instr.computation is not None else None
    new.line, new.column, new.span, new.lead = instr.line, instr.column, instr.span, instr.lead
    new.changed = instr.changed
    dd = instr._dialect_data
    new._dialect_data = None if dd is None else _clone_value(dd, memo)
    new.num_results = instr.num_results
