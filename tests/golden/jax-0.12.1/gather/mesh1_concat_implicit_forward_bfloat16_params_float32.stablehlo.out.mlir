module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<64x64xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg2 : (tensor<4x64x64xf32>) -> tensor<4x64x64xbf16>
    %v2.hp1 = "sdy.sharding_constraint"(%0) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16>
    %5 = "sdy.manual_computation"(%arg0, %arg1, %v2.hp1, %arg3) ({
    ^bb0(%arg4: tensor<64x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xbf16>, %arg8: tensor<4x32x64xf32>):
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
      %18 = stablehlo.dot_general %17, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xbf16>, tensor<4x64x64xbf16>) -> tensor<64x64xbf16>
      %19 = stablehlo.slice %18 [0:64, 0:32] : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %20 = stablehlo.slice %18 [0:64, 32:64] : (tensor<64x64xbf16>) -> tensor<64x32xbf16>
      %21 = stablehlo.convert %arg8 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
      %22 = func.call @silu(%19) : (tensor<64x32xbf16>) -> tensor<64x32xbf16>
      %23 = stablehlo.multiply %22, %20 : tensor<64x32xbf16>
      %24 = stablehlo.broadcast_in_dim %23, dims = [1, 2] : (tensor<64x32xbf16>) -> tensor<4x64x32xbf16>
      %25 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %26 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %27 = stablehlo.subtract %26, %arg5 : tensor<4xi32>
      %28 = stablehlo.broadcast_in_dim %26, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %29 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %30 = stablehlo.compare LE, %29, %25, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %31 = stablehlo.compare LT, %25, %28, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %32 = stablehlo.and %30, %31 : tensor<4x64x32xi1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %33 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<4x64x32xbf16>
      %34 = stablehlo.select %32, %24, %33 : tensor<4x64x32xi1>, tensor<4x64x32xbf16>
      %35 = stablehlo.dot_general %34, %21, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xbf16>, tensor<4x32x64xbf16>) -> tensor<64x64xbf16>
      sdy.return %35 : tensor<64x64xbf16>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xbf16>, tensor<4xi32>, tensor<4x64x64xbf16>, tensor<4x32x64xf32>) -> tensor<64x64xbf16>
    return %5 : tensor<64x64xbf16>
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
