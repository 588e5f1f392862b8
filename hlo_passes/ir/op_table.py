"""One typed table of the ops hlo_passes knows: what each is called in HLO and in MLIR, how
many operands it takes, which attributes it must have and which name computations, and
its traits (collective, async start/update/done, side effects, ...).

Every other list of op facts is read from here: the HLO parser's opcode set, operand
counts, required attributes and call attributes (``dialects/hlo/opcodes.py``,
``dialects/hlo/checks.py``), the StableHLO names (``dialects/stablehlo/attrs.py``), the shape
inference's same-shape ops (``dialects/hlo/infer.py``), and every "is this a collective"
question (rules, the cost pictures, the runtime's counts).  ``tests/test_op_table.py``
compares the table with XLA's own opcode list and with the StableHLO ops of the corpus;
``docs/ops.md`` describes it.

An op missing from the table is not refused for that: unknown opcodes and attributes are
carried as raw text and printed back byte-identical (the parsers' ``validate=False``).

The table sits at the bottom of the package's layers (it imports nothing of it), so the
verifier, the IR, both dialects and the rules can all read it.
"""
from __future__ import annotations

import enum
from functools import cached_property
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "Arity", "AttrKind", "AttrDef", "Trait", "OpDef", "OPS", "BY_MLIR", "OPCODES", "COLLECTIVES",
    "CALL_ATTRS", "KNOWN_ATTRIBUTES", "collective_kind", "is_collective", "op",
]


class Trait(enum.Enum):
    """What an op is, as far as a parser, the verifier or a rule asks."""

    COLLECTIVE = "collective"  # communicates between devices (XLA's collective communication ops)
    ASYNC_START = "async-start"  # begins an asynchronous op; a ``-done`` (or update) finishes it
    ASYNC_UPDATE = "async-update"
    ASYNC_DONE = "async-done"
    ELEMENTWISE = "elementwise"  # each result element depends on the same-index operand elements
    SAME_SHAPE = "same-shape"  # the result has its operand's shape, type included (clamp: the middle one)
    # May have effects beyond its result (a custom-call unless it says otherwise; after-all
    # orders such ops through tokens): never removed for want of users, never duplicated.
    SIDE_EFFECTS = "side-effects"
    SHAPE_REQUIRED = "shape-required"  # XLA's parser cannot infer its shape: the text must write it
    RESULT_ACCURACY = "result-accuracy"  # accepts ``result_accuracy`` (transcendental unary ops)
    # Moves or repeats elements, and XLA emits it as a loop (inside a loop fusion) as it does the
    # element-wise ops: an op a pass leaves unfused in optimized HLO is put in a fusion of its own.
    DATA_MOVEMENT = "data-movement"


class AttrKind(enum.Enum):
    """What an attribute's value is (how ``dialects/hlo/attrs.py`` decodes it is its business)."""

    INT = "int"
    INTS = "ints"  # {1, 2}
    DIMS = "dims"  # dimension numbers: {0, 2}
    ONE_DIM = "one-dim"  # one dimension: a list of one in HLO (dimensions={1}), an integer in MLIR
    SLICE = "slice"  # {[lo:hi:step], ...}
    STRING = "string"
    COMPUTATION = "computation"  # %name or an inline {...} computation
    COMPUTATIONS = "computations"  # {%a, %b}


@dataclass(frozen=True)
class Arity:
    """How many operands an op takes: ``min`` to ``max`` (None: no upper bound)."""

    min: int
    max: int | None

    @property
    def fixed(self) -> int | None:
        """The one count this arity allows, or None where it allows a range."""
        return self.min if self.min == self.max else None

    def allows(self, n: int) -> bool:
        return n >= self.min and (self.max is None or n <= self.max)

    def __str__(self) -> str:
        if self.fixed is not None:
            return str(self.fixed)
        return f"{self.min}+" if self.max is None else f"{self.min}..{self.max}"


@dataclass(frozen=True)
class AttrDef:
    """One attribute an op declares: its name, its kind and whether XLA's parser requires it."""

    name: str
    kind: AttrKind
    required: bool = False


@dataclass(frozen=True)
class OpDef:
    """What hlo_passes knows of one op.

    ``name``: the HLO opcode.  ``mlir``: the MLIR ops that read as this op (the first is the
    one the StableHLO printer writes a new instruction as, unless that dialect names the op
    otherwise: a call; empty where StableHLO has no such op and the op stays in HLO text).  ``arity``: the operand
    count XLA's parser checks as it builds the op, None where it checks none (variadic ops,
    and ops XLA checks only in its verifier).  ``attributes``: those the op requires, those that
    name the computations it calls, and those whose value takes a form of its own on this op
    (one dimension); the other attribute names are ``KNOWN_ATTRIBUTES``, valid on any op as
    far as the parser checks.  ``wraps``: for a native ``-start`` /
    ``-update`` / ``-done`` op, the op it runs asynchronously.
    """

    name: str
    arity: Arity | None
    mlir: tuple[str, ...] = ()
    traits: frozenset[Trait] = frozenset()
    attributes: tuple[AttrDef, ...] = ()
    wraps: str | None = None

    def has(self, trait: Trait) -> bool:
        return trait in self.traits

    @cached_property
    def required(self) -> tuple[str, ...]:
        """The attributes XLA's parser refuses the op without."""
        return tuple(a.name for a in self.attributes if a.required)

    @cached_property
    def calls(self) -> tuple[str, ...]:
        """The attributes whose values name computations this op calls."""
        return tuple(a.name for a in self.attributes
                     if a.kind in (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS))


# ---- the rows ----------------------------------------------------------------------------
_C = Trait.COLLECTIVE
_EW = Trait.ELEMENTWISE
_SAME = Trait.SAME_SHAPE
_FX = Trait.SIDE_EFFECTS
_SR = Trait.SHAPE_REQUIRED
_ACC = Trait.RESULT_ACCURACY
_MOVE = Trait.DATA_MOVEMENT
_START, _UPDATE, _DONE = Trait.ASYNC_START, Trait.ASYNC_UPDATE, Trait.ASYNC_DONE


def _n(lo: int, hi: int | None = -1) -> Arity:
    return Arity(lo, lo if hi == -1 else hi)


_VARIADIC = None
_0, _1, _2, _3, _5 = _n(0), _n(1), _n(2), _n(3), _n(5)
_1_OR_MORE = _n(1, None)  # XLA's parser: "expects at least one operand"


def _calls(*names: str) -> tuple[AttrDef, ...]:
    return tuple(AttrDef(n, AttrKind.COMPUTATIONS if n in ("branch_computations", "called_computations", "calls")
                         else AttrKind.COMPUTATION) for n in names)


def _requires(name: str, kind: AttrKind) -> tuple[AttrDef, ...]:
    return (AttrDef(name, kind, required=True),)


def _sh(*names: str) -> tuple[str, ...]:
    return tuple(f"stablehlo.{n}" for n in names)


_ASYNC_CALLS = _calls("calls", "async_wrapped_computation")
_ONE_DIMENSION = (AttrDef("dimensions", AttrKind.ONE_DIM),)

_ROWS: tuple[OpDef, ...] = (
    OpDef("abs", _1, _sh("abs"), frozenset({_EW, _SAME})),
    OpDef("acos", _1, traits=frozenset({_EW})),
    OpDef("acosh", _1, traits=frozenset({_EW})),
    OpDef("add", _2, _sh("add"), frozenset({_EW, _SAME})),
    OpDef("add-dependency", _2),
    OpDef("after-all", _VARIADIC, _sh("after_all", "create_token"), frozenset({_FX})),
    OpDef("all-gather", _VARIADIC, _sh("all_gather"), frozenset({_C, _SR}), _ONE_DIMENSION),
    OpDef("all-gather-done", None, traits=frozenset({_C, _DONE, _SR}), wraps="all-gather"),
    OpDef("all-gather-start", _VARIADIC, traits=frozenset({_C, _START, _SR}), attributes=_ONE_DIMENSION,
          wraps="all-gather"),
    OpDef("all-reduce", _VARIADIC, _sh("all_reduce"), frozenset({_C, _SR}), _calls("to_apply")),
    OpDef("all-reduce-done", None, traits=frozenset({_C, _DONE, _SR}), wraps="all-reduce"),
    OpDef("all-reduce-start", _VARIADIC, traits=frozenset({_C, _START, _SR}), attributes=_calls("to_apply"),
          wraps="all-reduce"),
    OpDef("all-to-all", _VARIADIC, _sh("all_to_all"), frozenset({_C, _SR}), _ONE_DIMENSION),
    OpDef("and", _2, _sh("and"), frozenset({_EW, _SAME})),
    OpDef("asin", _1, traits=frozenset({_EW})),
    OpDef("asinh", _1, traits=frozenset({_EW})),
    OpDef("async-done", None, _sh("async_done"), frozenset({_DONE, _SR}), _ASYNC_CALLS),
    OpDef("async-start", _VARIADIC, _sh("async_start"), frozenset({_START, _SR}), _ASYNC_CALLS),
    OpDef("async-update", _VARIADIC, traits=frozenset({_UPDATE, _SR}), attributes=_ASYNC_CALLS),
    OpDef("atan", _1, traits=frozenset({_EW})),
    OpDef("atan2", _2, _sh("atan2"), frozenset({_EW, _SAME})),
    OpDef("atanh", _1, traits=frozenset({_EW})),
    OpDef("batch-norm-grad", _5, _sh("batch_norm_grad")),
    OpDef("batch-norm-inference", _5, _sh("batch_norm_inference")),
    OpDef("batch-norm-training", _3, _sh("batch_norm_training")),
    OpDef("bitcast", _1, traits=frozenset({_SR})),
    OpDef("bitcast-convert", _1, _sh("bitcast_convert"), frozenset({_SR})),
    OpDef("broadcast", _1, _sh("broadcast_in_dim"), frozenset({_MOVE}), attributes=_requires("dimensions", AttrKind.DIMS)),
    # A composite reads as a call of its decomposition; a new call is a function call, which
    # the StableHLO dialect names (its MLIR_OF): the op table holds no dialect's call syntax.
    OpDef("call", _VARIADIC, _sh("composite"), attributes=_calls("to_apply")),
    OpDef("cbrt", _1, _sh("cbrt"), frozenset({_EW, _SAME, _ACC})),
    OpDef("ceil", _1, _sh("ceil"), frozenset({_EW, _SAME})),
    # XLA checks cholesky's operand count in its verifier only (newer XLA adds an operand).
    OpDef("cholesky", None, _sh("cholesky")),
    OpDef("clamp", _3, _sh("clamp"), frozenset({_EW, _SAME})),
    OpDef("collective-broadcast", _VARIADIC, _sh("collective_broadcast"), frozenset({_C, _SR})),
    OpDef("collective-permute", _VARIADIC, _sh("collective_permute"), frozenset({_C, _SR})),
    OpDef("collective-permute-done", None, traits=frozenset({_C, _DONE, _SR}), wraps="collective-permute"),
    OpDef("collective-permute-start", _VARIADIC, traits=frozenset({_C, _START, _SR}), wraps="collective-permute"),
    OpDef("collective-reduce", _VARIADIC, traits=frozenset({_C}), attributes=_calls("to_apply")),
    OpDef("compare", _2, _sh("compare"), frozenset({_EW})),
    OpDef("complex", _2, _sh("complex"), frozenset({_EW})),
    OpDef("concatenate", _VARIADIC, _sh("concatenate"), frozenset({_MOVE}), attributes=_requires("dimensions", AttrKind.ONE_DIM)),
    OpDef("conditional", _1_OR_MORE, _sh("case", "if"),
          attributes=_calls("branch_computations", "true_computation", "false_computation")),
    OpDef("constant", _0, _sh("constant"), frozenset({_SR})),
    OpDef("convert", _1, _sh("convert"), frozenset({_EW, _SR})),
    OpDef("convolution", _VARIADIC, _sh("convolution")),
    OpDef("copy", _1, traits=frozenset({_EW, _SAME})),
    OpDef("copy-done", _1, traits=frozenset({_DONE, _SR}), wraps="copy"),
    # Newer XLA gives copy-start an optional second operand; the parser leaves the count alone.
    OpDef("copy-start", None, traits=frozenset({_START, _SR}), wraps="copy"),
    OpDef("cosh", _1, traits=frozenset({_EW})),
    OpDef("cosine", _1, _sh("cosine"), frozenset({_EW, _SAME, _ACC})),
    OpDef("count-leading-zeros", _1, _sh("count_leading_zeros"), frozenset({_EW, _SAME})),
    OpDef("custom-call", _VARIADIC, _sh("custom_call"), frozenset({_SR, _FX}),
          _requires("custom_call_target", AttrKind.STRING) + _calls("called_computations", "to_apply")),
    OpDef("divide", _2, _sh("divide"), frozenset({_EW, _SAME})),
    OpDef("domain", None),
    OpDef("dot", _2, _sh("dot_general", "dot")),
    OpDef("dynamic-reshape", _1_OR_MORE, traits=frozenset({_SR})),
    OpDef("dynamic-slice", _VARIADIC, _sh("dynamic_slice"), frozenset({_SR, _MOVE})),
    OpDef("dynamic-update-slice", _VARIADIC, _sh("dynamic_update_slice"), frozenset({_SR})),
    OpDef("erf", _1, ("chlo.erf",), frozenset({_EW, _SAME, _ACC})),
    OpDef("exp2", _1, traits=frozenset({_EW})),
    OpDef("exponential", _1, _sh("exponential"), frozenset({_EW, _SAME, _ACC})),
    OpDef("exponential-minus-one", _1, _sh("exponential_minus_one"), frozenset({_EW, _SAME, _ACC})),
    OpDef("fft", None, _sh("fft")),
    OpDef("floor", _1, _sh("floor"), frozenset({_EW, _SAME})),
    OpDef("fusion", _VARIADIC, traits=frozenset({_SR}), attributes=_calls("calls")),
    OpDef("gather", None, _sh("gather")),
    OpDef("get-dimension-size", _1, _sh("get_dimension_size"), attributes=_ONE_DIMENSION),
    OpDef("get-tuple-element", _1, _sh("get_tuple_element"), attributes=_requires("index", AttrKind.INT)),
    OpDef("imag", _1, _sh("imag"), frozenset({_EW})),
    OpDef("infeed", None, _sh("infeed"), frozenset({_SR, _FX})),
    OpDef("iota", _0, _sh("iota"), frozenset({_SR})),
    OpDef("is-finite", _1, _sh("is_finite"), frozenset({_EW})),
    OpDef("log", _1, _sh("log"), frozenset({_EW, _SAME, _ACC})),
    OpDef("log-plus-one", _1, _sh("log_plus_one"), frozenset({_EW, _SAME, _ACC})),
    OpDef("log2", _1, traits=frozenset({_EW})),
    OpDef("logistic", _1, _sh("logistic"), frozenset({_EW, _SAME, _ACC})),
    OpDef("map", _1_OR_MORE, _sh("map"), frozenset({_EW}), _calls("to_apply")),
    OpDef("maximum", _2, _sh("maximum"), frozenset({_EW, _SAME})),
    OpDef("minimum", _2, _sh("minimum"), frozenset({_EW, _SAME})),
    OpDef("mulhi", _2, traits=frozenset({_EW})),
    OpDef("multiply", _2, _sh("multiply"), frozenset({_EW, _SAME})),
    OpDef("negate", _1, _sh("negate"), frozenset({_EW, _SAME})),
    OpDef("not", _1, _sh("not"), frozenset({_EW, _SAME})),
    OpDef("opt-barrier", _1, _sh("optimization_barrier"), frozenset({_SAME})),
    OpDef("or", _2, _sh("or"), frozenset({_EW, _SAME})),
    OpDef("outfeed", None, _sh("outfeed"), frozenset({_SR, _FX})),
    OpDef("pad", _2, _sh("pad"), frozenset({_MOVE})),
    OpDef("parameter", _0, traits=frozenset({_SR})),
    OpDef("partition-id", _0, _sh("partition_id")),
    OpDef("popcnt", _1, _sh("popcnt"), frozenset({_EW, _SAME})),
    OpDef("power", _2, _sh("power"), frozenset({_EW, _SAME})),
    OpDef("ragged-all-to-all", None, traits=frozenset({_C, _SR})),
    OpDef("ragged-dot", None, ("chlo.ragged_dot", "mhlo.ragged_dot")),
    OpDef("real", _1, _sh("real"), frozenset({_EW})),
    OpDef("recv", None, _sh("recv"), frozenset({_SR, _FX})),
    OpDef("recv-done", _1, traits=frozenset({_DONE, _SR, _FX}), wraps="recv"),
    OpDef("reduce", _1_OR_MORE, _sh("reduce"), attributes=_requires("dimensions", AttrKind.DIMS) + _calls("to_apply")),
    OpDef("reduce-precision", _1, _sh("reduce_precision"), frozenset({_EW, _SAME, _SR})),
    OpDef("reduce-scatter", _VARIADIC, _sh("reduce_scatter"), frozenset({_C, _SR}),
          _ONE_DIMENSION + _calls("to_apply")),
    OpDef("reduce-window", _1_OR_MORE, _sh("reduce_window"), attributes=_calls("to_apply")),
    OpDef("remainder", _2, _sh("remainder"), frozenset({_EW, _SAME})),
    OpDef("replica-id", _0, _sh("replica_id")),
    OpDef("reshape", _1, _sh("reshape"), frozenset({_SR, _MOVE})),
    OpDef("reverse", _1, _sh("reverse"), frozenset({_MOVE}), attributes=_requires("dimensions", AttrKind.DIMS)),
    OpDef("rng", _VARIADIC, _sh("rng"), frozenset({_SR, _FX})),
    OpDef("rng-bit-generator", _1, _sh("rng_bit_generator"), frozenset({_SR})),
    OpDef("rng-get-and-update-state", _0, traits=frozenset({_SR, _FX})),
    OpDef("round-nearest-afz", _1, _sh("round_nearest_afz"), frozenset({_EW, _SAME})),
    OpDef("round-nearest-even", _1, _sh("round_nearest_even"), frozenset({_EW, _SAME})),
    OpDef("rsqrt", _1, _sh("rsqrt"), frozenset({_EW, _SAME, _ACC})),
    OpDef("scaled-dot", None),
    OpDef("scan", _VARIADIC, attributes=_calls("to_apply")),
    OpDef("scatter", _VARIADIC, _sh("scatter"), attributes=_calls("to_apply")),
    OpDef("select", _3, _sh("select"), frozenset({_EW})),
    OpDef("select-and-scatter", None, _sh("select_and_scatter"), attributes=_calls("select", "scatter")),
    OpDef("send", None, _sh("send"), frozenset({_SR, _FX})),
    OpDef("send-done", _1, traits=frozenset({_DONE, _SR, _FX}), wraps="send"),
    OpDef("set-dimension-size", _2, _sh("set_dimension_size"), attributes=_ONE_DIMENSION),
    OpDef("shift-left", _2, _sh("shift_left"), frozenset({_EW, _SAME})),
    OpDef("shift-right-arithmetic", _2, _sh("shift_right_arithmetic"), frozenset({_EW, _SAME})),
    OpDef("shift-right-logical", _2, _sh("shift_right_logical"), frozenset({_EW, _SAME})),
    OpDef("shuffle", _1),
    OpDef("sign", _1, _sh("sign"), frozenset({_EW, _SAME})),
    OpDef("sine", _1, _sh("sine"), frozenset({_EW, _SAME, _ACC})),
    OpDef("sinh", _1, traits=frozenset({_EW})),
    OpDef("slice", _1, _sh("slice"), frozenset({_SR, _MOVE}), _requires("slice", AttrKind.SLICE)),
    OpDef("sort", _1_OR_MORE, _sh("sort"), attributes=_calls("to_apply")),
    OpDef("sqrt", _1, _sh("sqrt"), frozenset({_EW, _SAME, _ACC})),
    # Newer XLA gives stochastic-convert an optional operand; the parser leaves the count alone.
    OpDef("stochastic-convert", None, traits=frozenset({_SR})),
    OpDef("subtract", _2, _sh("subtract"), frozenset({_EW, _SAME})),
    OpDef("tan", _1, _sh("tan"), frozenset({_EW, _SAME, _ACC})),
    OpDef("tanh", _1, _sh("tanh"), frozenset({_EW, _SAME, _ACC})),
    OpDef("topk", None, ("chlo.top_k",)),
    OpDef("transpose", _1, _sh("transpose"), frozenset({_MOVE}), attributes=_requires("dimensions", AttrKind.DIMS)),
    # Newer XLA gives triangular-solve an optional operand; the parser leaves the count alone.
    OpDef("triangular-solve", None, _sh("triangular_solve")),
    OpDef("tuple", _VARIADIC, _sh("tuple")),
    OpDef("while", None, _sh("while"), attributes=_calls("condition", "body")),
    OpDef("xor", _2, _sh("xor"), frozenset({_EW, _SAME})),
)

OPS: Mapping[str, OpDef] = MappingProxyType({d.name: d for d in _ROWS})
"""Every op by its HLO opcode."""

OPCODES: frozenset[str] = frozenset(OPS)

BY_MLIR: Mapping[str, OpDef] = MappingProxyType({m: d for d in _ROWS for m in d.mlir})
"""The op each MLIR op name reads as (``stablehlo.dot_general`` → dot)."""

COLLECTIVES: tuple[str, ...] = tuple(d.name for d in _ROWS if d.has(_C) and d.wraps is None)
"""The collective ops (not their ``-start``/``-done`` halves), in table order."""

# Attribute names that name called computations on any op.  select-and-scatter's two
# (``select``, ``scatter``) are also names of other ops' attributes, so they count only there.
CALL_ATTRS: frozenset[str] = frozenset(
    a for d in _ROWS if d.name != "select-and-scatter" for a in d.calls
)

# Attribute names XLA's parser knows on some instruction: the union of the "Allowed
# attributes" jaxlib 0.10.2 and 0.12 list for each opcode, and the names their tests and
# dumps use.  With ``validate=True`` any other name is refused, as XLA refuses an attribute
# it does not know; without, it is carried through as text.  Their values are decoded by
# ``dialects/hlo/attrs.py``.
KNOWN_ATTRIBUTES: frozenset[str] = frozenset(
    """algorithm api_version async_execution_thread backend_config batch_group_count block_scaling_config
    body branch_computations called_computations calls channel_id collapsed_slice_dims comparison_type
    concat_dimension condition constrain_layout control-predecessors convolution_kind
    cross_program_prefetch_index custom_call_has_side_effect custom_call_schedule custom_call_target
    delta dim_labels dimensions direction distribution domain dynamic_slice_sizes epsilon
    execution_thread exponent_bits false_computation feature_group_count feature_index fft_length
    fft_type frontend_attributes has_dynamic_root index index_vector_dim indices_are_sorted inferred_dimension
    infeed_config input_batching_dims inserted_window_dims iota_dimension is_associative is_composite
    is_cross_program_prefetch is_host_transfer is_reverse is_stable k kind largest left_side lhs_batch_dims
    lhs_contracting_dims lhs_ragged_dims literal lower mantissa_bits metadata mode num_carries
    offset_dims operand_batching_dims operand_layout_constraints operand_precision origin
    order original_value outfeed_config outfeed_shape output_to_operand_aliasing padding padding_type parameter_number
    parameter_replication precision_config replica_groups result_accuracy rhs_batch_dims
    rhs_contracting_dims rhs_group_dims rng_algorithm scan_dimension scatter
    scatter_dims_to_operand_dims scatter_indices_batching_dims schedule scheduling_name select
    sharding shifts slice slice_sizes source_target_pairs sparsity_config split_count split_dimension
    start_index_map start_indices_batching_dims statistics to_apply transpose_a true_computation type
    unique_indices unit_diagonal unreduced_dims update_window_dims use_global_device_ids window""".split()
)


def op(opcode: str) -> OpDef | None:
    """The table's row for an HLO opcode, or None for one it does not know."""
    return OPS.get(opcode)


def collective_kind(opcode: str) -> str | None:
    """The collective ``opcode`` is or is half of (``all-gather-start`` → all-gather), or None."""
    d = OPS.get(opcode)
    if d is None or _C not in d.traits:
        return None
    return d.wraps or d.name


def is_collective(opcode: str) -> bool:
    """Whether ``opcode`` communicates between devices (a collective or its start/done half)."""
    return collective_kind(opcode) is not None


def with_trait(trait: Trait) -> Iterator[OpDef]:
    """The rows that have ``trait``, in table order."""
    return (d for d in _ROWS if trait in d.traits)
