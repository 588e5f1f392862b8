module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xbf16> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xbf16>, %arg7: tensor<4x32x64xbf16>) {
      %v3.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
      %v5.hp2 = "chlo.ragged_dot"(%arg4, %v3.hp1, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xbf16>, tensor<4x64x64xbf16>, tensor<4xi32>) -> tensor<64x64xbf16>
      %slice.hp3 = "stablehlo.slice"(%v5.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %slice.hp4 = "stablehlo.slice"(%v5.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %7 = func.call @silu(%slice.hp3) : (tensor<64x32xbf16>) -> tensor<64x32xbf16>
      %8 = stablehlo.multiply %7, %slice.hp4 : tensor<64x32xbf16>
      %9 = "chlo.ragged_dot"(%8, %arg7, %arg5) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x32xbf16>, tensor<4x32x64xbf16>, tensor<4xi32>) -> tensor<64x64xbf16>
      sdy.return %9 : tensor<64x64xbf16>
    } : (tensor<64x64xbf16>, tensor<4xi32>, tensor<4x64x64xbf16>, tensor<4x32x64xbf16>) -> tensor<64x64xbf16>
    return %0 : tensor<64x64xbf16>
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
