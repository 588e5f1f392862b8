module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v3.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %6 = "chlo.ragged_dot"(%arg4, %v3.hp1, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4xi32>) -> tensor<64x64xf32>
      %7 = stablehlo.slice %6 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %8 = stablehlo.slice %6 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %9 = func.call @silu(%7) : (tensor<64x32xf32>) -> tensor<64x32xf32>
      %10 = stablehlo.multiply %9, %8 : tensor<64x32xf32>
      %11 = "chlo.ragged_dot"(%10, %arg7, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x32xf32>, tensor<4x32x64xf32>, tensor<4xi32>) -> tensor<64x64xf32>
      sdy.return %11 : tensor<64x64xf32>
    } : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
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
