module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v2.hp2 = "stablehlo.optimization_barrier"(%v1.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v3.hp3 = "sdy.sharding_constraint"(%v2.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v4.hp4 = "sdy.sharding_constraint"(%v3.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %10 = "sdy.manual_computation"(%arg0, %arg1, %v4.hp4, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %12 = "chlo.ragged_dot"(%arg4, %arg6, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4xi32>) -> tensor<64x64xf32>
      %13 = stablehlo.slice %12 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %14 = stablehlo.slice %12 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %15 = func.call @silu(%13) : (tensor<64x32xf32>) -> tensor<64x32xf32>
      %16 = stablehlo.multiply %15, %14 : tensor<64x32xf32>
      %17 = "chlo.ragged_dot"(%16, %arg8, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x32xf32>, tensor<4x32x64xf32>, tensor<4xi32>) -> tensor<64x64xf32>
      sdy.return %17 : tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
    return %10 : tensor<64x64xf32>
  }
  func.func private @silu(%arg0: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %1 = stablehlo.abs %arg0 : tensor<64x32xf32>
    %2 = stablehlo.negate %1 : tensor<64x32xf32>
    %3 = stablehlo.exponential %2 : tensor<64x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %5 = stablehlo.compare GE, %arg0, %4, FLOAT : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xi1>
    %6 = stablehlo.select %5, %0, %3 : tensor<64x32xi1>, tensor<64x32xf32>
    %7 = stablehlo.add %0, %3 : tensor<64x32xf32>
    %8 = stablehlo.divide %6, %7 : tensor<64x32xf32>
    %9 = stablehlo.multiply %arg0, %8 : tensor<64x32xf32>
    return %9 : tensor<64x32xf32>
  }
}
