module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xbf16> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %1 = stablehlo.convert %arg6 : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
      %v5.hp1 = "stablehlo.all_gather"(%1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
      %2 = stablehlo.convert %arg7 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
      %7 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xbf16>) -> tensor<4x64x64xbf16>
      %8 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %9 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %10 = stablehlo.subtract %9, %arg5 : tensor<4xi32>
      %11 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %13 = stablehlo.compare LE, %12, %8, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %14 = stablehlo.compare LT, %8, %11, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %15 = stablehlo.and %13, %14 : tensor<4x64x64xi1>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x64x64xbf16>
      %17 = stablehlo.select %15, %7, %16 : tensor<4x64x64xi1>, tensor<4x64x64xbf16>
      %v18.hp2 = "stablehlo.dot_general"(%17, %v5.hp1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>, tensor<4x64x64xbf16>) -> tensor<64x64xbf16>
      %slice.hp3 = "stablehlo.slice"(%v18.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %slice.hp4 = "stablehlo.slice"(%v18.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %31 = func.call @silu(%slice.hp3) : (tensor<64x32xbf16>) -> tensor<64x32xbf16>
      %32 = stablehlo.multiply %31, %slice.hp4 : tensor<64x32xbf16>
      %33 = stablehlo.broadcast_in_dim %32, dims = [1, 2] : (tensor<64x32xbf16>) -> tensor<4x64x32xbf16>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %35 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %36 = stablehlo.subtract %35, %arg5 : tensor<4xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %38 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %39 = stablehlo.compare LE, %38, %34, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %40 = stablehlo.compare LT, %34, %37, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %41 = stablehlo.and %39, %40 : tensor<4x64x32xi1>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %42 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<4x64x32xbf16>
      %43 = stablehlo.select %41, %33, %42 : tensor<4x64x32xi1>, tensor<4x64x32xbf16>
      %44 = stablehlo.dot_general %43, %2, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xbf16>, tensor<4x32x64xbf16>) -> tensor<64x64xbf16>
      sdy.return %44 : tensor<64x64xbf16>
    } : (tensor<64x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xbf16>
    return %0 : tensor<64x64xbf16>
  }
  func.func private @cumsum(%arg0: tensor<4xi32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    return %1 : tensor<4xi32>
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
