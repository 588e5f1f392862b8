module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<2x4x32x64xf32> {jax.result_info = "result[1][1]"}) {
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
    %0:8 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v4.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %7 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %8 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %9 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %11 = stablehlo.slice %10 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %12 = stablehlo.slice %9 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %13 = stablehlo.concatenate %11, %12, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %14 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %16 = stablehlo.compare LE, %15, %8, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %17 = stablehlo.compare LT, %8, %14, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %18 = stablehlo.and %16, %17 : tensor<4x64x64xi1>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %19 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %20 = stablehlo.select %18, %7, %19 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %21 = stablehlo.dot_general %20, %v4.hp1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %22 = stablehlo.slice %21 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %23 = stablehlo.slice %21 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %24:3 = func.call @silu(%22) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %25 = stablehlo.multiply %24#0, %23 : tensor<64x32xf32>
      %26 = stablehlo.broadcast_in_dim %25, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %27 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %28 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %29 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %30 = stablehlo.slice %29 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %31 = stablehlo.slice %28 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %32 = stablehlo.concatenate %30, %31, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %33 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %34 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %35 = stablehlo.compare LE, %34, %27, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %36 = stablehlo.compare LT, %27, %33, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %37 = stablehlo.and %35, %36 : tensor<4x64x32xi1>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %38 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %39 = stablehlo.select %37, %26, %38 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %40 = stablehlo.dot_general %39, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %v4.hp1, %24#1, %24#2, %22, %23, %24#0, %25, %40 : tensor<4x64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    } : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<32x64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %1 = stablehlo.add %arg1, %0#7 : tensor<64x64xf32>
    return %1, %0#0, %arg1, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6 : tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>
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
    %2:3 = sdy.manual_computation(%1, %arg2, %arg0, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg11: tensor<64x64xf32>, %arg12: tensor<4x64x64xf32>, %arg13: tensor<4xi32>, %arg14: tensor<64x64xf32>, %arg15: tensor<64x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<4x32x64xf32>, %arg21: tensor<64x32xf32>) {
      %4 = stablehlo.broadcast_in_dim %arg21, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %5 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %6 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %8 = stablehlo.slice %7 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %9 = stablehlo.slice %6 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %10 = stablehlo.concatenate %8, %9, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %11 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %13 = stablehlo.compare LE, %12, %5, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %14 = stablehlo.compare LT, %5, %11, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %15 = stablehlo.and %13, %14 : tensor<4x64x32xi1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %17 = stablehlo.select %15, %4, %16 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %18 = stablehlo.broadcast_in_dim %arg11, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %19 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %20 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %21 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %22 = stablehlo.slice %21 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %23 = stablehlo.slice %20 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %24 = stablehlo.concatenate %22, %23, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %25 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %26 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %27 = stablehlo.compare LE, %26, %19, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %28 = stablehlo.compare LT, %19, %25, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %29 = stablehlo.and %27, %28 : tensor<4x64x64xi1>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %30 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %31 = stablehlo.select %29, %18, %30 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %32 = stablehlo.dot_general %17, %31, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %33 = stablehlo.broadcast_in_dim %arg11, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %35 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %36 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %37 = stablehlo.slice %36 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %38 = stablehlo.slice %35 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %39 = stablehlo.concatenate %37, %38, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %40 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %41 = stablehlo.broadcast_in_dim %39, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %42 = stablehlo.compare LE, %41, %34, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %43 = stablehlo.compare LT, %34, %40, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %44 = stablehlo.and %42, %43 : tensor<4x64x64xi1>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %46 = stablehlo.select %44, %33, %45 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %47 = stablehlo.dot_general %46, %arg20, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %48 = stablehlo.multiply %arg19, %47 : tensor<64x32xf32>
      %49 = stablehlo.multiply %47, %arg18 : tensor<64x32xf32>
      %50 = func.call @silu_7(%arg15, %arg16, %arg17, %49) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %51 = stablehlo.pad %48, %cst_5, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %52 = stablehlo.pad %50, %cst_6, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %53 = stablehlo.add %51, %52 : tensor<64x64xf32>
      %54 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %55 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %56 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_7 = stablehlo.constant dense<0> : tensor<i32>
      %57 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %58 = stablehlo.slice %57 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %59 = stablehlo.slice %56 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %60 = stablehlo.concatenate %58, %59, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %61 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %62 = stablehlo.broadcast_in_dim %60, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %63 = stablehlo.compare LE, %62, %55, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %64 = stablehlo.compare LT, %55, %61, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %65 = stablehlo.and %63, %64 : tensor<4x64x64xi1>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %66 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %67 = stablehlo.select %65, %54, %66 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %68 = stablehlo.broadcast_in_dim %53, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %69 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %70 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_9 = stablehlo.constant dense<0> : tensor<i32>
      %71 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %72 = stablehlo.slice %71 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %73 = stablehlo.slice %70 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %74 = stablehlo.concatenate %72, %73, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %75 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %76 = stablehlo.broadcast_in_dim %74, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %77 = stablehlo.compare LE, %76, %69, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %78 = stablehlo.compare LT, %69, %75, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %79 = stablehlo.and %77, %78 : tensor<4x64x64xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %80 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %81 = stablehlo.select %79, %68, %80 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %82 = stablehlo.dot_general %67, %81, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v101.hp2 = "stablehlo.reduce_scatter"(%82) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %107 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %107 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x8x64xf32>
      %83 = stablehlo.broadcast_in_dim %53, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %84 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %85 = func.call @cumsum(%arg13) : (tensor<4xi32>) -> tensor<4xi32>
      %c_11 = stablehlo.constant dense<0> : tensor<i32>
      %86 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %87 = stablehlo.slice %86 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %88 = stablehlo.slice %85 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %89 = stablehlo.concatenate %87, %88, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %90 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %91 = stablehlo.broadcast_in_dim %89, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %92 = stablehlo.compare LE, %91, %84, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %93 = stablehlo.compare LT, %84, %90, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %94 = stablehlo.and %92, %93 : tensor<4x64x64xi1>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %95 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %96 = stablehlo.select %94, %83, %95 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %97 = stablehlo.dot_general %96, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %105 = "stablehlo.all_reduce"(%97) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %107 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %107 : tensor<f32>
      }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %106 = "stablehlo.all_reduce"(%32) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %107 = stablehlo.add %arg22, %arg23 : tensor<f32>
        stablehlo.return %107 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %105, %v101.hp2, %106 : tensor<64x64xf32>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
    } : (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %3 = stablehlo.add %arg1, %2#0 : tensor<64x64xf32>
    return %3, %2#1, %2#2 : tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
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
