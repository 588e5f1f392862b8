module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg2 : (tensor<4x64x64xf32>) -> tensor<4x64x64xbf16>
    %v2.hp1 = "sdy.sharding_constraint"(%0) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16>
    %v3.hp2 = "stablehlo.optimization_barrier"(%v2.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16>
    %v4.hp3 = "sdy.sharding_constraint"(%v3.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16>
    %v5.hp4 = "sdy.sharding_constraint"(%v4.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16>
    %11 = "sdy.manual_computation"(%arg0, %arg1, %v5.hp4, %arg3) ({
    ^bb0(%arg4: tensor<64x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xbf16>, %arg8: tensor<4x32x64xf32>):
      %13 = "chlo.ragged_dot"(%arg4, %arg6, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x64xbf16>, tensor<4x64x64xbf16>, tensor<4xi32>) -> tensor<64x64xbf16>
      %14 = stablehlo.slice %13 [0:64, 0:32] : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %15 = stablehlo.slice %13 [0:64, 32:64] : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %16 = stablehlo.convert %arg8 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
      %17 = func.call @silu(%14) : (tensor<64x32xbf16>) -> tensor<64x32xbf16>
      %18 = stablehlo.multiply %17, %15 : tensor<64x32xbf16>
      %19 = "chlo.ragged_dot"(%18, %16, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x32xbf16>, tensor<4x32x64xbf16>, tensor<4xi32>) -> tensor<64x64xbf16>
      sdy.return %19 : tensor<64x64xbf16>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xbf16>, tensor<4xi32>, tensor<4x64x64xbf16>, tensor<4x32x64xf32>) -> tensor<64x64xbf16>
    return %11 : tensor<64x64xbf16>
  }
  func.func private @silu(%arg0: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<64x32xbf16>
    %1 = stablehlo.negate %arg0 : tensor<64x32xbf16>
    %2 = stablehlo.exponential %1 : tensor<64x32xbf16>
    %3 = stablehlo.add %0, %2 : tensor<64x32xbf16>
    %4 = stablehlo.divide %0, %3 : tensor<64x32xbf16>
    %5 = stablehlo.multiply %arg0, %4 : tensor<64x32xbf16>
    return %5 : tensor<64x32xbf16>
  }
}
