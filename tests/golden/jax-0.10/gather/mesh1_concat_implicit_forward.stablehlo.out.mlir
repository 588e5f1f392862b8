module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %4 = "sdy.manual_computation"(%arg0, %arg1, %v1.hp1, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %6 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %7 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %8 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %10 = stablehlo.slice %9 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %11 = stablehlo.slice %8 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %12 = stablehlo.concatenate %10, %11, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %13 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %14 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %15 = stablehlo.compare LE, %14, %7, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %16 = stablehlo.compare LT, %7, %13, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %17 = stablehlo.and %15, %16 : tensor<4x64x64xi1>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %19 = stablehlo.select %17, %6, %18 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %20 = stablehlo.dot_general %19, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %21 = stablehlo.slice %20 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %22 = stablehlo.slice %20 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %23 = func.call @silu(%21) : (tensor<64x32xf32>) -> tensor<64x32xf32>
      %24 = stablehlo.multiply %23, %22 : tensor<64x32xf32>
      %25 = stablehlo.broadcast_in_dim %24, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %26 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %27 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %28 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %29 = stablehlo.slice %28 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %30 = stablehlo.slice %27 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %31 = stablehlo.concatenate %29, %30, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %32 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %33 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %34 = stablehlo.compare LE, %33, %26, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %35 = stablehlo.compare LT, %26, %32, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %36 = stablehlo.and %34, %35 : tensor<4x64x32xi1>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %37 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %38 = stablehlo.select %36, %25, %37 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %39 = stablehlo.dot_general %38, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %39 : tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
    return %4 : tensor<64x64xf32>
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
    %0 = stablehlo.negate %arg0 : tensor<64x32xf32>
    %1 = stablehlo.exponential %0 : tensor<64x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %3 = stablehlo.add %2, %1 : tensor<64x32xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %5 = stablehlo.divide %4, %3 : tensor<64x32xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<64x32xf32>
    return %6 : tensor<64x32xf32>
  }
}
