module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg2, %iterArg_0 = %arg3, %iterArg_1 = %arg1, %iterArg_2 = %c, %iterArg_3 = %arg0) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>
    cond {
      %c_4 = stablehlo.constant dense<2> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_2, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %v4.hp1 = "sdy.sharding_constraint"(%1) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %2 = func.call @dynamic_index_in_dim_0(%iterArg_0, %iterArg_2) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %7 = "sdy.manual_computation"(%iterArg_3, %iterArg_1, %v4.hp1, %2) ({
      ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
        %11 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %12 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %13 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %14 = stablehlo.subtract %13, %arg5 : tensor<4xi32>
        %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %17 = stablehlo.compare LE, %16, %12, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %18 = stablehlo.compare LT, %12, %15, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %19 = stablehlo.and %17, %18 : tensor<4x64x64xi1>
        %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %21 = stablehlo.select %19, %11, %20 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %22 = stablehlo.dot_general %21, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %23 = stablehlo.slice %22 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %24 = stablehlo.slice %22 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %25 = func.call @silu(%23) : (tensor<64x32xf32>) -> tensor<64x32xf32>
        %26 = stablehlo.multiply %25, %24 : tensor<64x32xf32>
        %27 = stablehlo.broadcast_in_dim %26, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %28 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %29 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %30 = stablehlo.subtract %29, %arg5 : tensor<4xi32>
        %31 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %32 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %33 = stablehlo.compare LE, %32, %28, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %34 = stablehlo.compare LT, %28, %31, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %35 = stablehlo.and %33, %34 : tensor<4x64x32xi1>
        %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %36 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %37 = stablehlo.select %35, %27, %36 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %38 = stablehlo.dot_general %37, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        sdy.return %38 : tensor<64x64xf32>
      }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      %8 = stablehlo.add %iterArg_3, %7 : tensor<64x64xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_2, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %9, %8 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>
    }
    return %0#4 : tensor<64x64xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<i32>) -> tensor<4x64x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 4, 64, 64] : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    return %1 : tensor<4x64x64xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<i32>) -> tensor<4x32x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 4, 32, 64] : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    return %1 : tensor<4x32x64xf32>
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
