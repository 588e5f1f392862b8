module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %2 = "sdy.manual_computation"(%arg0, %arg1, %arg2, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %3 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %4 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %5 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %6 = stablehlo.subtract %5, %arg5 : tensor<4xi32>
      %7 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %9 = stablehlo.compare LE, %8, %4, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %10 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %11 = stablehlo.and %9, %10 : tensor<4x64x64xi1>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %13 = stablehlo.select %11, %3, %12 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v14.hp1 = "stablehlo.dot_general"(%13, %arg6) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp2 = "stablehlo.slice"(%v14.hp1) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp3 = "stablehlo.slice"(%v14.hp1) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %27 = func.call @silu(%slice.hp2) : (tensor<64x32xf32>) -> tensor<64x32xf32>
      %28 = stablehlo.multiply %27, %slice.hp3 : tensor<64x32xf32>
      %29 = stablehlo.broadcast_in_dim %28, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %30 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %31 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %32 = stablehlo.subtract %31, %arg5 : tensor<4xi32>
      %33 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %34 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %35 = stablehlo.compare LE, %34, %30, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %36 = stablehlo.compare LT, %30, %33, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %37 = stablehlo.and %35, %36 : tensor<4x64x32xi1>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %38 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %39 = stablehlo.select %37, %29, %38 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %40 = stablehlo.dot_general %39, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %40 : tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
    return %2 : tensor<64x64xf32>
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
  func.func private @silu(%arg0: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %1 = stablehlo.negate %arg0 : tensor<64x32xf32>
    %2 = stablehlo.exponential %1 : tensor<64x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<64x32xf32>
    %4 = stablehlo.divide %0, %3 : tensor<64x32xf32>
    %5 = stablehlo.multiply %arg0, %4 : tensor<64x32xf32>
    return %5 : tensor<64x32xf32>
  }
}
