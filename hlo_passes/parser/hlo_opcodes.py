"""HLO opcode spellings and the operand counts XLA's parser insists on."""
from __future__ import annotations

UNARY = frozenset(
    """abs acos acosh asin asinh atan atanh cosh sinh cbrt ceil clz count-leading-zeros copy cosine erf exponential exponential-minus-one floor imag is-finite
    log log-plus-one logistic negate not popcnt real reduce-precision round-nearest-afz
    round-nearest-even rsqrt sign sine sqrt opt-barrier tan tanh convert bitcast bitcast-convert broadcast
    reshape reverse slice transpose copy-start copy-done get-tuple-element cholesky fft
    stochastic-convert-unused exp2 log2 shuffle""".split()
)
BINARY = frozenset(
    """add atan2 compare complex divide maximum minimum multiply power remainder subtract
    and or xor shift-left shift-right-arithmetic shift-right-logical dot triangular-solve
    pad stochastic-convert add-dependency mulhi""".split()
)
TERNARY = frozenset("select clamp dynamic-update-slice-unused".split())
NULLARY = frozenset("parameter constant iota partition-id replica-id rng-get-and-update-state".split())

OTHER = frozenset(
    """after-all all-gather all-gather-start all-gather-done all-reduce all-reduce-start
    all-reduce-done all-to-all ragged-all-to-all async-start async-update async-done
    batch-norm-grad batch-norm-inference batch-norm-training call collective-broadcast
    collective-permute collective-permute-start collective-permute-done collective-reduce concatenate
    conditional convolution custom-call domain dynamic-reshape dynamic-slice
    dynamic-update-slice fusion gather get-dimension-size set-dimension-size infeed map
    outfeed ragged-dot scaled-dot scan recv recv-done reduce reduce-scatter reduce-window
    rng rng-bit-generator scatter select-and-scatter send send-done sort topk tuple while
    composite""".split()
)

OPCODES = (UNARY | BINARY | TERNARY | NULLARY | OTHER) - {
    "stochastic-convert-unused", "dynamic-update-slice-unused", "composite",
}

# Fixed operand counts XLA's parser checks while building each instruction.
OPERAND_COUNT: dict[str, int] = {op: 1 for op in UNARY - {"stochastic-convert-unused"}}
OPERAND_COUNT.update({op: 2 for op in BINARY})
OPERAND_COUNT.update({"select": 3, "clamp": 3, "parameter": 0, "constant": 0, "iota": 0,
                      "partition-id": 0, "replica-id": 0, "rng-get-and-update-state": 0,
                      "recv-done": 1, "send-done": 1, "get-dimension-size": 1,
                      "set-dimension-size": 2, "batch-norm-inference": 5,
                      "batch-norm-training": 3, "batch-norm-grad": 5, "rng-bit-generator": 1})
# ``copy-start`` and a few others take an optional extra operand in newer XLA.
for _op in ("copy-start", "fft", "triangular-solve", "cholesky", "stochastic-convert"):
    OPERAND_COUNT.pop(_op, None)

# Ops with a native -start/-done pair; any other ``X-start`` is async sugar.
NATIVE_ASYNC = frozenset(
    """all-gather-start all-gather-done all-reduce-start all-reduce-done collective-permute-start
    collective-permute-done copy-start copy-done async-start async-update async-done
    send-done recv-done""".split()
)


# These have their own async forms (or none), so ``all-reduce-update`` is no opcode.
_NO_SUGAR = frozenset("async all-reduce all-gather collective-permute copy send recv".split())


def async_sugar(opcode: str) -> tuple[str, str] | None:
    """(``async-start``/``-update``/``-done``, wrapped opcode) for sugar like ``custom-call-start``."""
    for suffix, kind in (("-start", "async-start"), ("-update", "async-update"), ("-done", "async-done")):
        if opcode.endswith(suffix):
            base = opcode[: -len(suffix)]
            if base in OPCODES and opcode not in NATIVE_ASYNC and base not in _NO_SUGAR:
                return kind, base
    return None


def known_invalid(opcode: str) -> bool:
    """``X-start``/``-update``/``-done`` of a known op that has no such form
    (``all-reduce-update``, ``send-start``): XLA refuses it; it is no newer opcode."""
    for suffix in ("-start", "-update", "-done"):
        if opcode.endswith(suffix) and opcode not in OPCODES:
            base = opcode[: -len(suffix)]
            return base in OPCODES or base in _NO_SUGAR
    return False


# Ops that XLA's parser requires to be written with a shape: it has no rule to
# infer theirs ("cannot infer shape for opcode").  Async sugar (``call-start``)
# counts as its async op.
NO_INFERENCE = frozenset(
    """async-start async-update async-done all-gather all-gather-start all-gather-done
    all-reduce all-reduce-start all-reduce-done all-to-all collective-broadcast
    collective-permute collective-permute-start collective-permute-done copy-done copy-start
    dynamic-reshape dynamic-slice dynamic-update-slice ragged-all-to-all recv recv-done
    reduce-scatter send send-done slice bitcast bitcast-convert constant convert custom-call
    fusion infeed iota outfeed parameter reduce-precision reshape rng rng-bit-generator
    rng-get-and-update-state stochastic-convert""".split()
)


# Attribute names XLA's parser knows on some instruction: the union of the
# "Allowed attributes" jaxlib 0.10.2 and 0.12 list for each opcode, and the
# names their tests and dumps use.  With ``validate=True`` any other name is
# refused, as XLA refuses an attribute it does not know; without, it is
# carried through as text.
KNOWN_ATTRIBUTES = frozenset(
    """algorithm api_version async_execution_thread backend_config batch_group_count block_scaling_config
    body branch_computations called_computations calls channel_id collapsed_slice_dims comparison_type
    concat_dimension condition constrain_layout control-predecessors convolution_kind
    cross_program_prefetch_index custom_call_has_side_effect custom_call_schedule custom_call_target
    delta dim_labels dimensions direction distribution domain dynamic_slice_sizes epsilon
    execution_thread exponent_bits false_computation feature_group_count feature_index fft_length
    fft_type frontend_attributes has_dynamic_root index index_vector_dim indices_are_sorted inferred_dimension infeed_config
    input_batching_dims inserted_window_dims iota_dimension is_associative is_composite
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

# Attributes whose value names the computations an instruction calls (one table for
# the parser, the printer and the kernel-call reader); select-and-scatter's two are
# named like attributes of other ops, so they count only there.
CALL_ATTRS = frozenset(
    "to_apply condition body calls branch_computations true_computation false_computation "
    "called_computations async_wrapped_computation".split()
)
SELECT_SCATTER_CALLS = frozenset(("select", "scatter"))
