module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<2x4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x64x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x64x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8:13 = stablehlo.while(%iterArg = %arg2, %iterArg_15 = %arg3, %iterArg_16 = %arg1, %iterArg_17 = %c, %iterArg_18 = %arg0, %iterArg_19 = %0, %iterArg_20 = %1, %iterArg_21 = %2, %iterArg_22 = %3, %iterArg_23 = %4, %iterArg_24 = %5, %iterArg_25 = %6, %iterArg_26 = %7) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    cond {
      %c_27 = stablehlo.constant dense<2> : tensor<i32>
      %20 = stablehlo.compare LT, %iterArg_17, %c_27, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %20 : tensor<i1>
    } do {
      %20 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_17) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %21 = func.call @dynamic_index_in_dim_0(%iterArg_15, %iterArg_17) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %22:9 = func.call @closed_call(%iterArg_16, %iterArg_18, %20, %21) : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
      %23 = func.call @dynamic_update_index_in_dim(%iterArg_19, %22#1, %iterArg_17) : (tensor<2x32x64x64xf32>, tensor<32x64x64xf32>, tensor<i32>) -> tensor<2x32x64x64xf32>
      %24 = func.call @dynamic_update_index_in_dim_1(%iterArg_20, %22#2, %iterArg_17) : (tensor<2x64x64xf32>, tensor<64x64xf32>, tensor<i32>) -> tensor<2x64x64xf32>
      %25 = func.call @dynamic_update_index_in_dim_2(%iterArg_21, %22#3, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %26 = func.call @dynamic_update_index_in_dim_2(%iterArg_22, %22#4, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %27 = func.call @dynamic_update_index_in_dim_2(%iterArg_23, %22#5, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %28 = func.call @dynamic_update_index_in_dim_2(%iterArg_24, %22#6, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %29 = func.call @dynamic_update_index_in_dim_2(%iterArg_25, %22#7, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %30 = func.call @dynamic_update_index_in_dim_2(%iterArg_26, %22#8, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %31 = stablehlo.add %iterArg_17, %c_27 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %31, %22#0, %23, %24, %25, %26, %27, %28, %29, %30 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    }
    %9 = chlo.square %8#4 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %11 = stablehlo.multiply %10, %8#4 : tensor<64x64xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%9 init: %cst_8) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_9 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %13 = stablehlo.divide %12, %cst_9 : tensor<f32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_11 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %14 = stablehlo.divide %cst_10, %cst_11 : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %16 = stablehlo.multiply %15, %11 : tensor<64x64xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %19:14 = stablehlo.while(%iterArg = %8#5, %iterArg_15 = %8#6, %iterArg_16 = %8#7, %iterArg_17 = %8#8, %iterArg_18 = %8#9, %iterArg_19 = %8#10, %iterArg_20 = %8#11, %iterArg_21 = %arg3, %iterArg_22 = %8#12, %iterArg_23 = %arg1, %iterArg_24 = %c_14, %iterArg_25 = %16, %iterArg_26 = %17, %iterArg_27 = %18) : tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    cond {
      %c_28 = stablehlo.constant dense<2> : tensor<i32>
      %20 = stablehlo.compare LT, %iterArg_24, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %20 : tensor<i1>
    } do {
      %c_28 = stablehlo.constant dense<2> : tensor<i32>
      %20 = stablehlo.subtract %c_28, %iterArg_24 : tensor<i32>
      %c_29 = stablehlo.constant dense<1> : tensor<i32>
      %21 = stablehlo.subtract %20, %c_29 : tensor<i32>
      %22 = func.call @dynamic_index_in_dim_3(%iterArg, %21) : (tensor<2x32x64x64xf32>, tensor<i32>) -> tensor<32x64x64xf32>
      %23 = func.call @dynamic_index_in_dim_4(%iterArg_15, %21) : (tensor<2x64x64xf32>, tensor<i32>) -> tensor<64x64xf32>
      %24 = func.call @dynamic_index_in_dim_5(%iterArg_16, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %25 = func.call @dynamic_index_in_dim_5(%iterArg_17, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %26 = func.call @dynamic_index_in_dim_5(%iterArg_18, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %27 = func.call @dynamic_index_in_dim_5(%iterArg_19, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %28 = func.call @dynamic_index_in_dim_5(%iterArg_20, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %29 = func.call @dynamic_index_in_dim_0(%iterArg_21, %21) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %30 = func.call @dynamic_index_in_dim_5(%iterArg_22, %21) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %31:3 = func.call @closed_call_6(%iterArg_23, %iterArg_25, %22, %23, %24, %25, %26, %27, %28, %29, %30) : (tensor<4xi32>, tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %32 = func.call @dynamic_update_index_in_dim_8(%iterArg_26, %31#1, %21) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %33 = func.call @dynamic_update_index_in_dim_9(%iterArg_27, %31#2, %21) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_30 = stablehlo.constant dense<1> : tensor<i32>
      %34 = stablehlo.add %iterArg_24, %c_30 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %34, %31#0, %32, %33 : tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    }
    return %13, %19#12, %19#13 : tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
  func.func private @closed_call(%arg0: tensor<4xi32>, %arg1: tensor<64x64xf32>, %arg2: tensor<4x64x64xf32>, %arg3: tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v2.hp2 = "stablehlo.optimization_barrier"(%v1.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v3.hp3 = "sdy.sharding_constraint"(%v2.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v4.hp4 = "sdy.sharding_constraint"(%v3.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %10:8 = "sdy.manual_computation"(%arg0, %arg1, %v4.hp4, %arg3) ({
    ^bb0(%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %13 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %14 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %15 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %16 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %17 = stablehlo.slice %16 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %18 = stablehlo.slice %15 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %19 = stablehlo.concatenate %17, %18, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %20 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %21 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %22 = stablehlo.compare LE, %21, %14, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %23 = stablehlo.compare LT, %14, %20, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %24 = stablehlo.and %22, %23 : tensor<4x64x64xi1>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %26 = stablehlo.select %24, %13, %25 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %27 = stablehlo.dot_general %26, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %28 = stablehlo.slice %27 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %29 = stablehlo.slice %27 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %30:3 = func.call @silu(%28) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %31 = stablehlo.multiply %30#0, %29 : tensor<64x32xf32>
      %32 = stablehlo.broadcast_in_dim %31, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %33 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %34 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %35 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %36 = stablehlo.slice %35 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %37 = stablehlo.slice %34 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %38 = stablehlo.concatenate %36, %37, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %39 = stablehlo.broadcast_in_dim %34, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %40 = stablehlo.broadcast_in_dim %38, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %41 = stablehlo.compare LE, %40, %33, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %42 = stablehlo.compare LT, %33, %39, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %43 = stablehlo.and %41, %42 : tensor<4x64x32xi1>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %44 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %45 = stablehlo.select %43, %32, %44 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %46 = stablehlo.dot_general %45, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %arg6, %30#1, %30#2, %28, %29, %30#0, %31, %46 : tensor<4x64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<32x64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %11 = stablehlo.add %arg1, %10#7 : tensor<64x64xf32>
    return %11, %10#0, %arg1, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6 : tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>
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
  func.func private @silu(%arg0: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<64x32xf32>
    %1 = stablehlo.exponential %0 : tensor<64x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %3 = stablehlo.add %2, %1 : tensor<64x32xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %5 = stablehlo.divide %4, %3 : tensor<64x32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<64x32xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<64x32xf32>
    %9 = stablehlo.multiply %arg0, %5 : tensor<64x32xf32>
    return %9, %8, %5 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x32x64x64xf32>, %arg1: tensor<32x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x32x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x64x64xf32>) -> tensor<1x32x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x64x64xf32>, tensor<1x32x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xf32>
    return %1 : tensor<2x32x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_1(%arg0: tensor<2x64x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<i32>) -> tensor<2x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<1x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x64x64xf32>, tensor<1x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x64xf32>
    return %1 : tensor<2x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_2(%arg0: tensor<2x512x32xf32>, %arg1: tensor<512x32xf32>, %arg2: tensor<i32>) -> tensor<2x512x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<512x32xf32>) -> tensor<1x512x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x512x32xf32>, tensor<1x512x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x512x32xf32>
    return %1 : tensor<2x512x32xf32>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<2x32x64x64xf32>, %arg1: tensor<i32>) -> tensor<32x64x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 64, 64] : (tensor<2x32x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x64x64xf32>) -> tensor<32x64x64xf32>
    return %1 : tensor<32x64x64xf32>
  }
  func.func private @dynamic_index_in_dim_4(%arg0: tensor<2x64x64xf32>, %arg1: tensor<i32>) -> tensor<64x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 64] : (tensor<2x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
    return %1 : tensor<64x64xf32>
  }
  func.func private @dynamic_index_in_dim_5(%arg0: tensor<2x512x32xf32>, %arg1: tensor<i32>) -> tensor<512x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 512, 32] : (tensor<2x512x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x512x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x512x32xf32>) -> tensor<512x32xf32>
    return %1 : tensor<512x32xf32>
  }
  func.func private @closed_call_6(%arg0: tensor<4xi32>, %arg1: tensor<64x64xf32>, %arg2: tensor<32x64x64xf32>, %arg3: tensor<64x64xf32>, %arg4: tensor<512x32xf32>, %arg5: tensor<512x32xf32>, %arg6: tensor<512x32xf32>, %arg7: tensor<512x32xf32>, %arg8: tensor<512x32xf32>, %arg9: tensor<4x32x64xf32>, %arg10: tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) {
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %1 = stablehlo.divide %arg1, %0 : tensor<64x64xf32>
    %2:3 = "sdy.manual_computation"(%1, %arg2, %arg0, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10) ({
    ^bb0(%arg11: tensor<64x64xf32>, %arg12: tensor<4x64x64xf32>, %arg13: tensor<4xi32>, %arg14: tensor<64x64xf32>, %arg15: tensor<64x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<4x32x64xf32>, %arg21: tensor<64x32xf32>):
      %15 = stablehlo.broadcast_in_dim %arg21, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %16 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %17 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %18 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %19 = stablehlo.slice %18 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %20 = stablehlo.slice %17 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %21 = stablehlo.concatenate %19, %20, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %22 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %23 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %24 = stablehlo.compare LE, %23, %16, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %25 = stablehlo.compare LT, %16, %22, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %26 = stablehlo.and %24, %25 : tensor<4x64x32xi1>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %27 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %28 = stablehlo.select %26, %15, %27 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %29 = stablehlo.broadcast_in_dim %arg11, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %30 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %31 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %32 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %33 = stablehlo.slice %32 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %34 = stablehlo.slice %31 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %35 = stablehlo.concatenate %33, %34, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %36 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %38 = stablehlo.compare LE, %37, %30, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %39 = stablehlo.compare LT, %30, %36, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %40 = stablehlo.and %38, %39 : tensor<4x64x64xi1>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %41 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %42 = stablehlo.select %40, %29, %41 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %43 = stablehlo.dot_general %28, %42, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %44 = stablehlo.broadcast_in_dim %arg11, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %45 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %46 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %47 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %48 = stablehlo.slice %47 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %49 = stablehlo.slice %46 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %50 = stablehlo.concatenate %48, %49, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %51 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %52 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %53 = stablehlo.compare LE, %52, %45, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %54 = stablehlo.compare LT, %45, %51, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %55 = stablehlo.and %53, %54 : tensor<4x64x64xi1>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %56 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %57 = stablehlo.select %55, %44, %56 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %58 = stablehlo.dot_general %57, %arg20, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %59 = stablehlo.multiply %arg19, %58 : tensor<64x32xf32>
      %60 = stablehlo.multiply %58, %arg18 : tensor<64x32xf32>
      %61 = func.call @silu_7(%arg15, %arg16, %arg17, %60) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %62 = stablehlo.pad %59, %cst_7, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %63 = stablehlo.pad %61, %cst_8, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %64 = stablehlo.add %62, %63 : tensor<64x64xf32>
      %65 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %66 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %67 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_9 = stablehlo.constant dense<0> : tensor<i32>
      %68 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %69 = stablehlo.slice %68 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %70 = stablehlo.slice %67 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %71 = stablehlo.concatenate %69, %70, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %72 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %73 = stablehlo.broadcast_in_dim %71, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %74 = stablehlo.compare LE, %73, %66, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %75 = stablehlo.compare LT, %66, %72, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %76 = stablehlo.and %74, %75 : tensor<4x64x64xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %77 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %78 = stablehlo.select %76, %65, %77 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %79 = stablehlo.broadcast_in_dim %64, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %80 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %81 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_11 = stablehlo.constant dense<0> : tensor<i32>
      %82 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %83 = stablehlo.slice %82 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %84 = stablehlo.slice %81 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %85 = stablehlo.concatenate %83, %84, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %86 = stablehlo.broadcast_in_dim %81, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %87 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %88 = stablehlo.compare LE, %87, %80, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %89 = stablehlo.compare LT, %80, %86, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %90 = stablehlo.and %88, %89 : tensor<4x64x64xi1>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %91 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %92 = stablehlo.select %90, %79, %91 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %93 = stablehlo.dot_general %78, %92, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v112.hp5 = "stablehlo.all_reduce"(%93) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %115 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %115 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %94 = stablehlo.broadcast_in_dim %64, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %95 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %96 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_13 = stablehlo.constant dense<0> : tensor<i32>
      %97 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %98 = stablehlo.slice %97 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %99 = stablehlo.slice %96 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %100 = stablehlo.concatenate %98, %99, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %101 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %102 = stablehlo.broadcast_in_dim %100, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %103 = stablehlo.compare LE, %102, %95, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %104 = stablehlo.compare LT, %95, %101, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %105 = stablehlo.and %103, %104 : tensor<4x64x64xi1>
      %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %106 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %107 = stablehlo.select %105, %94, %106 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %108 = stablehlo.dot_general %107, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %111 = "stablehlo.all_reduce"(%108) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %115 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %115 : tensor<f32>
      }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %114 = "stablehlo.all_reduce"(%43) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %115 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %115 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%111, %v112.hp5, %114) : (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %v9.hp6 = "sdy.sharding_constraint"(%2#1) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v10.hp7 = "sdy.sharding_constraint"(%v9.hp6) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v11.hp8 = "stablehlo.optimization_barrier"(%v10.hp7) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v12.hp9 = "sdy.sharding_constraint"(%v11.hp8) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %3 = stablehlo.add %arg1, %2#0 : tensor<64x64xf32>
    return %3, %v12.hp9, %2#2 : tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
  }
  func.func private @silu_7(%arg0: tensor<64x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<64x32xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<64x32xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<64x32xf32>
    %3 = stablehlo.add %1, %2 : tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
  func.func private @dynamic_update_index_in_dim_8(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<4x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    return %1 : tensor<2x4x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_9(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x32x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    return %1 : tensor<2x4x32x64xf32>
  }
}
