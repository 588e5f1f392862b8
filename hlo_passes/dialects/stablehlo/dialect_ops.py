"""The ops of the MLIR dialects hlo_passes reads, as jaxlib's MLIR bindings define them.

An op named in one of these dialects' namespaces but not listed is unknown: a misspelling
(``stablehlo.dot_genral``) or an op newer than this table.  The parser carries it through
as text (``hlo-lint -v`` names it) and refuses it with ``validate=True``, as XLA's parser
does and as unknown HLO opcodes are.  Ops of other dialects (arith, tensor, ...) are carried
as before.  Written by ``python tools/dialect_ops.py --write`` from the bindings of jaxlib
0.10.2, 0.12.0.1, 0.12.1 (the union); tests/test_mlir_dialects.py checks it against the installed one.
"""
from __future__ import annotations

JAXLIB_VERSIONS = ('0.10.2', '0.12.0.1', '0.12.1')

DIALECT_OPS: dict[str, frozenset[str]] = {
    "chlo": frozenset((
        "chlo._asin_acos_kernel", "chlo.acos", "chlo.acosh", "chlo.asin", "chlo.asinh", "chlo.atan",
        "chlo.atanh", "chlo.bessel_i1e", "chlo.broadcast_add", "chlo.broadcast_and", "chlo.broadcast_atan2",
        "chlo.broadcast_compare", "chlo.broadcast_complex", "chlo.broadcast_divide", "chlo.broadcast_maximum",
        "chlo.broadcast_minimum", "chlo.broadcast_multiply", "chlo.broadcast_next_after", "chlo.broadcast_or",
        "chlo.broadcast_polygamma", "chlo.broadcast_power", "chlo.broadcast_remainder", "chlo.broadcast_select",
        "chlo.broadcast_shift_left", "chlo.broadcast_shift_right_arithmetic",
        "chlo.broadcast_shift_right_logical", "chlo.broadcast_subtract", "chlo.broadcast_xor",
        "chlo.broadcast_zeta", "chlo.conj", "chlo.constant", "chlo.constant_like", "chlo.cosh", "chlo.digamma",
        "chlo.erf", "chlo.erf_inv", "chlo.erfc", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf",
        "chlo.lgamma", "chlo.mulhi", "chlo.next_after", "chlo.polygamma", "chlo.ragged_dot", "chlo.scan",
        "chlo.sinh", "chlo.square", "chlo.tan", "chlo.top_k", "chlo.zeta",
    )),
    "func": frozenset((
        "func.call", "func.call_indirect", "func.constant", "func.func", "func.return",
    )),
    "mhlo": frozenset((
        "mhlo.abs", "mhlo.acos", "mhlo.acosh", "mhlo.add", "mhlo.add_dependency", "mhlo.after_all",
        "mhlo.all_gather", "mhlo.all_reduce", "mhlo.all_to_all", "mhlo.and", "mhlo.asin", "mhlo.asinh",
        "mhlo.async_done", "mhlo.async_start", "mhlo.async_update", "mhlo.atan2", "mhlo.atanh",
        "mhlo.batch_norm_grad", "mhlo.batch_norm_inference", "mhlo.batch_norm_training", "mhlo.bitcast",
        "mhlo.bitcast_convert", "mhlo.broadcast", "mhlo.broadcast_in_dim", "mhlo.case", "mhlo.cbrt",
        "mhlo.ceil", "mhlo.cholesky", "mhlo.clamp", "mhlo.collective_broadcast", "mhlo.collective_permute",
        "mhlo.collective_reduce", "mhlo.compare", "mhlo.complex", "mhlo.composite", "mhlo.concatenate",
        "mhlo.constant", "mhlo.convert", "mhlo.convolution", "mhlo.copy", "mhlo.cosh", "mhlo.cosine",
        "mhlo.count_leading_zeros", "mhlo.create_token", "mhlo.cross-replica-sum", "mhlo.custom_call",
        "mhlo.divide", "mhlo.domain", "mhlo.dot", "mhlo.dot_general", "mhlo.dynamic_broadcast_in_dim",
        "mhlo.dynamic_conv", "mhlo.dynamic_gather", "mhlo.dynamic_iota", "mhlo.dynamic_pad",
        "mhlo.dynamic_reshape", "mhlo.dynamic_slice", "mhlo.dynamic_update_slice", "mhlo.einsum", "mhlo.erf",
        "mhlo.exp2", "mhlo.exponential", "mhlo.exponential_minus_one", "mhlo.fft", "mhlo.floor", "mhlo.fma",
        "mhlo.fusion", "mhlo.gather", "mhlo.get_dimension_size", "mhlo.get_tuple_element", "mhlo.if",
        "mhlo.imag", "mhlo.infeed", "mhlo.iota", "mhlo.is_finite", "mhlo.log", "mhlo.log2", "mhlo.log_plus_one",
        "mhlo.logistic", "mhlo.map", "mhlo.maximum", "mhlo.minimum", "mhlo.minimum_broadcast_shapes",
        "mhlo.mulhi", "mhlo.multiply", "mhlo.negate", "mhlo.not", "mhlo.optimization_barrier", "mhlo.or",
        "mhlo.outfeed", "mhlo.pad", "mhlo.partition_id", "mhlo.popcnt", "mhlo.power", "mhlo.ragged_dot",
        "mhlo.real", "mhlo.real_dynamic_slice", "mhlo.recv", "mhlo.reduce", "mhlo.reduce_precision",
        "mhlo.reduce_scatter", "mhlo.reduce_window", "mhlo.remainder", "mhlo.replica_id", "mhlo.reshape",
        "mhlo.return", "mhlo.reverse", "mhlo.rng", "mhlo.rng_bit_generator", "mhlo.round_nearest_afz",
        "mhlo.round_nearest_even", "mhlo.rsqrt", "mhlo.scan", "mhlo.scatter", "mhlo.select",
        "mhlo.select_and_scatter", "mhlo.send", "mhlo.set_dimension_size", "mhlo.shift_left",
        "mhlo.shift_right_arithmetic", "mhlo.shift_right_logical", "mhlo.sign", "mhlo.sine", "mhlo.sinh",
        "mhlo.slice", "mhlo.sort", "mhlo.sqrt", "mhlo.stochastic_convert", "mhlo.subtract", "mhlo.tan",
        "mhlo.tanh", "mhlo.topk", "mhlo.torch_index_select", "mhlo.trace", "mhlo.transpose",
        "mhlo.triangular_solve", "mhlo.tuple", "mhlo.uniform_dequantize", "mhlo.uniform_quantize", "mhlo.while",
        "mhlo.xla.rng_get_and_update_state", "mhlo.xor",
    )),
    "sdy": frozenset((
        "sdy.all_gather", "sdy.all_reduce", "sdy.all_slice", "sdy.all_to_all", "sdy.collective_permute",
        "sdy.constant", "sdy.data_flow_edge", "sdy.func_data_flow_edge", "sdy.manual_computation", "sdy.mesh",
        "sdy.named_computation", "sdy.propagation_barrier", "sdy.reduce_scatter", "sdy.replicated_to_unreduced",
        "sdy.reshard", "sdy.return", "sdy.sharded_to_unreduced", "sdy.sharding_constraint",
        "sdy.sharding_group",
    )),
    "stablehlo": frozenset((
        "stablehlo.abs", "stablehlo.add", "stablehlo.after_all", "stablehlo.all_gather", "stablehlo.all_reduce",
        "stablehlo.all_to_all", "stablehlo.and", "stablehlo.async_done", "stablehlo.async_start",
        "stablehlo.atan2", "stablehlo.batch_norm_grad", "stablehlo.batch_norm_inference",
        "stablehlo.batch_norm_training", "stablehlo.bitcast_convert", "stablehlo.broadcast",
        "stablehlo.broadcast_in_dim", "stablehlo.case", "stablehlo.cbrt", "stablehlo.ceil",
        "stablehlo.cholesky", "stablehlo.clamp", "stablehlo.collective_broadcast",
        "stablehlo.collective_permute", "stablehlo.collective_reduce", "stablehlo.compare", "stablehlo.complex",
        "stablehlo.composite", "stablehlo.concatenate", "stablehlo.constant", "stablehlo.convert",
        "stablehlo.convolution", "stablehlo.cosine", "stablehlo.count_leading_zeros", "stablehlo.create_token",
        "stablehlo.cross-replica-sum", "stablehlo.custom_call", "stablehlo.divide", "stablehlo.dot",
        "stablehlo.dot_general", "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_conv",
        "stablehlo.dynamic_gather", "stablehlo.dynamic_iota", "stablehlo.dynamic_pad",
        "stablehlo.dynamic_reshape", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
        "stablehlo.einsum", "stablehlo.exp2", "stablehlo.exponential", "stablehlo.exponential_minus_one",
        "stablehlo.fft", "stablehlo.floor", "stablehlo.fma", "stablehlo.gather", "stablehlo.get_dimension_size",
        "stablehlo.get_tuple_element", "stablehlo.if", "stablehlo.imag", "stablehlo.infeed", "stablehlo.iota",
        "stablehlo.is_finite", "stablehlo.log", "stablehlo.log2", "stablehlo.log_plus_one",
        "stablehlo.logistic", "stablehlo.map", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.multiply",
        "stablehlo.negate", "stablehlo.not", "stablehlo.optimization_barrier", "stablehlo.or",
        "stablehlo.outfeed", "stablehlo.pad", "stablehlo.partition_id", "stablehlo.popcnt", "stablehlo.power",
        "stablehlo.real", "stablehlo.real_dynamic_slice", "stablehlo.recv", "stablehlo.reduce",
        "stablehlo.reduce_precision", "stablehlo.reduce_scatter", "stablehlo.reduce_window",
        "stablehlo.remainder", "stablehlo.replica_id", "stablehlo.reshape", "stablehlo.return",
        "stablehlo.reverse", "stablehlo.rng", "stablehlo.rng_bit_generator", "stablehlo.round_nearest_afz",
        "stablehlo.round_nearest_even", "stablehlo.rsqrt", "stablehlo.scatter", "stablehlo.select",
        "stablehlo.select_and_scatter", "stablehlo.send", "stablehlo.set_dimension_size",
        "stablehlo.shift_left", "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical",
        "stablehlo.sign", "stablehlo.sine", "stablehlo.slice", "stablehlo.sort", "stablehlo.sqrt",
        "stablehlo.subtract", "stablehlo.tan", "stablehlo.tanh", "stablehlo.torch_index_select",
        "stablehlo.transpose", "stablehlo.triangular_solve", "stablehlo.tuple", "stablehlo.unary_einsum",
        "stablehlo.uniform_dequantize", "stablehlo.uniform_quantize", "stablehlo.while", "stablehlo.xor",
    )),
}


def is_unknown_op(name: str) -> bool:
    """Whether ``name`` is in the namespace of one of these dialects but no op of it."""
    known = DIALECT_OPS.get(name.partition(".")[0])
    return known is not None and name not in known
