module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<2x4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x64x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x64x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x32x64x32xf32>
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
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9:14 = stablehlo.while(%iterArg = %arg2, %iterArg_16 = %arg3, %iterArg_17 = %arg1, %iterArg_18 = %c, %iterArg_19 = %arg0, %iterArg_20 = %0, %iterArg_21 = %1, %iterArg_22 = %2, %iterArg_23 = %3, %iterArg_24 = %4, %iterArg_25 = %5, %iterArg_26 = %6, %iterArg_27 = %7, %iterArg_28 = %8) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    cond {
      %c_29 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.compare LT, %iterArg_18, %c_29, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %21 : tensor<i1>
    } do {
      %21 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_18) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %22 = func.call @dynamic_index_in_dim_0(%iterArg_16, %iterArg_18) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %23:10 = func.call @closed_call(%iterArg_17, %iterArg_19, %21, %22) : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
      %24 = func.call @dynamic_update_index_in_dim(%iterArg_20, %23#1, %iterArg_18) : (tensor<2x32x64x32xf32>, tensor<32x64x32xf32>, tensor<i32>) -> tensor<2x32x64x32xf32>
      %25 = func.call @dynamic_update_index_in_dim_1(%iterArg_21, %23#2, %iterArg_18) : (tensor<2x64x64xf32>, tensor<64x64xf32>, tensor<i32>) -> tensor<2x64x64xf32>
      %26 = func.call @dynamic_update_index_in_dim(%iterArg_22, %23#3, %iterArg_18) : (tensor<2x32x64x32xf32>, tensor<32x64x32xf32>, tensor<i32>) -> tensor<2x32x64x32xf32>
      %27 = func.call @dynamic_update_index_in_dim_2(%iterArg_23, %23#4, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %28 = func.call @dynamic_update_index_in_dim_2(%iterArg_24, %23#5, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %29 = func.call @dynamic_update_index_in_dim_2(%iterArg_25, %23#6, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %30 = func.call @dynamic_update_index_in_dim_2(%iterArg_26, %23#7, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %31 = func.call @dynamic_update_index_in_dim_2(%iterArg_27, %23#8, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %32 = func.call @dynamic_update_index_in_dim_2(%iterArg_28, %23#9, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %c_29 = stablehlo.constant dense<1> : tensor<i32>
      %33 = stablehlo.add %iterArg_18, %c_29 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_16, %iterArg_17, %33, %23#0, %24, %25, %26, %27, %28, %29, %30, %31, %32 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    }
    %10 = chlo.square %9#4 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %12 = stablehlo.multiply %11, %9#4 : tensor<64x64xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_9) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_10 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %14 = stablehlo.divide %13, %cst_10 : tensor<f32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_12 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %15 = stablehlo.divide %cst_11, %cst_12 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<64x64xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %20:15 = stablehlo.while(%iterArg = %9#5, %iterArg_16 = %9#6, %iterArg_17 = %9#7, %iterArg_18 = %9#8, %iterArg_19 = %9#9, %iterArg_20 = %9#10, %iterArg_21 = %9#11, %iterArg_22 = %9#12, %iterArg_23 = %arg3, %iterArg_24 = %9#13, %iterArg_25 = %arg1, %iterArg_26 = %c_15, %iterArg_27 = %17, %iterArg_28 = %18, %iterArg_29 = %19) : tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    cond {
      %c_30 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.compare LT, %iterArg_26, %c_30, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %21 : tensor<i1>
    } do {
      %c_30 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.subtract %c_30, %iterArg_26 : tensor<i32>
      %c_31 = stablehlo.constant dense<1> : tensor<i32>
      %22 = stablehlo.subtract %21, %c_31 : tensor<i32>
      %23 = func.call @dynamic_index_in_dim_3(%iterArg, %22) : (tensor<2x32x64x32xf32>, tensor<i32>) -> tensor<32x64x32xf32>
      %24 = func.call @dynamic_index_in_dim_4(%iterArg_16, %22) : (tensor<2x64x64xf32>, tensor<i32>) -> tensor<64x64xf32>
      %25 = func.call @dynamic_index_in_dim_3(%iterArg_17, %22) : (tensor<2x32x64x32xf32>, tensor<i32>) -> tensor<32x64x32xf32>
      %26 = func.call @dynamic_index_in_dim_5(%iterArg_18, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %27 = func.call @dynamic_index_in_dim_5(%iterArg_19, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %28 = func.call @dynamic_index_in_dim_5(%iterArg_20, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %29 = func.call @dynamic_index_in_dim_5(%iterArg_21, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %30 = func.call @dynamic_index_in_dim_5(%iterArg_22, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %31 = func.call @dynamic_index_in_dim_0(%iterArg_23, %22) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %32 = func.call @dynamic_index_in_dim_5(%iterArg_24, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %33:3 = func.call @closed_call_6(%iterArg_25, %iterArg_27, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32) : (tensor<4xi32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %34 = func.call @dynamic_update_index_in_dim_8(%iterArg_28, %33#1, %22) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %35 = func.call @dynamic_update_index_in_dim_9(%iterArg_29, %33#2, %22) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_32 = stablehlo.constant dense<1> : tensor<i32>
      %36 = stablehlo.add %iterArg_26, %c_32 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %36, %33#0, %34, %35 : tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    }
    return %14, %20#13, %20#14 : tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
  func.func private @closed_call(%arg0: tensor<4xi32>, %arg1: tensor<64x64xf32>, %arg2: tensor<4x64x64xf32>, %arg3: tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>) {
    %0:9 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v4.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %slice.hp6 = "stablehlo.slice"(%v4.hp1) {start_indices = array<i64: 0, 0, 32>, limit_indices = array<i64: 4, 64, 64>, strides = array<i64: 1, 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x32xf32>
      %slice.hp5 = "stablehlo.slice"(%v4.hp1) {start_indices = array<i64: 0, 0, 0>, limit_indices = array<i64: 4, 64, 32>, strides = array<i64: 1, 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x32xf32>
      %6 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %7 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %8 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
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
      %v20.hp2 = "stablehlo.dot_general"(%19, %v4.hp1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp3 = "stablehlo.slice"(%v20.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp4 = "stablehlo.slice"(%v20.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %36:3 = func.call @silu(%slice.hp3) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %37 = stablehlo.multiply %36#0, %slice.hp4 : tensor<64x32xf32>
      %38 = stablehlo.broadcast_in_dim %37, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %39 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %40 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %41 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %42 = stablehlo.slice %41 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %43 = stablehlo.slice %40 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %44 = stablehlo.concatenate %42, %43, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %45 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %46 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %47 = stablehlo.compare LE, %46, %39, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %48 = stablehlo.compare LT, %39, %45, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %49 = stablehlo.and %47, %48 : tensor<4x64x32xi1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %51 = stablehlo.select %49, %38, %50 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %52 = stablehlo.dot_general %51, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %slice.hp5, %slice.hp6, %36#1, %36#2, %slice.hp3, %slice.hp4, %36#0, %37, %52 : tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    } : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<32x64x32xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %1 = stablehlo.add %arg1, %0#8 : tensor<64x64xf32>
    return %1, %0#0, %arg1, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7 : tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>
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
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x32x64x32xf32>, %arg1: tensor<32x64x32xf32>, %arg2: tensor<i32>) -> tensor<2x32x64x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x64x32xf32>) -> tensor<1x32x64x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x64x32xf32>, tensor<1x32x64x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x32xf32>
    return %1 : tensor<2x32x64x32xf32>
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
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<2x32x64x32xf32>, %arg1: tensor<i32>) -> tensor<32x64x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 64, 32] : (tensor<2x32x64x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x64x32xf32>) -> tensor<32x64x32xf32>
    return %1 : tensor<32x64x32xf32>
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
  func.func private @closed_call_6(%arg0: tensor<4xi32>, %arg1: tensor<64x64xf32>, %arg2: tensor<32x64x32xf32>, %arg3: tensor<64x64xf32>, %arg4: tensor<32x64x32xf32>, %arg5: tensor<512x32xf32>, %arg6: tensor<512x32xf32>, %arg7: tensor<512x32xf32>, %arg8: tensor<512x32xf32>, %arg9: tensor<512x32xf32>, %arg10: tensor<4x32x64xf32>, %arg11: tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) {
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %1 = stablehlo.divide %arg1, %0 : tensor<64x64xf32>
    %2:3 = sdy.manual_computation(%1, %arg2, %arg0, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg12: tensor<64x64xf32>, %arg13: tensor<4x64x32xf32>, %arg14: tensor<4xi32>, %arg15: tensor<64x64xf32>, %arg16: tensor<4x64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<64x32xf32>, %arg21: tensor<64x32xf32>, %arg22: tensor<4x32x64xf32>, %arg23: tensor<64x32xf32>) {
      %4 = stablehlo.broadcast_in_dim %arg23, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %5 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %6 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
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
      %18 = stablehlo.broadcast_in_dim %arg12, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %19 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %20 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
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
      %33 = stablehlo.broadcast_in_dim %arg12, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %35 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
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
      %47 = stablehlo.dot_general %46, %arg22, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %48 = stablehlo.multiply %arg21, %47 : tensor<64x32xf32>
      %49 = stablehlo.multiply %47, %arg20 : tensor<64x32xf32>
      %50 = func.call @silu_7(%arg17, %arg18, %arg19, %49) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %80 = stablehlo.broadcast_in_dim %48, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %81 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %82 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
      %c_9 = stablehlo.constant dense<0> : tensor<i32>
      %83 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %84 = stablehlo.slice %83 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %85 = stablehlo.slice %82 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %86 = stablehlo.concatenate %84, %85, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %87 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %88 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %89 = stablehlo.compare LE, %88, %81, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %90 = stablehlo.compare LT, %81, %87, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %91 = stablehlo.and %89, %90 : tensor<4x64x32xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %92 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %93 = stablehlo.select %91, %80, %92 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %94 = stablehlo.dot_general %93, %arg16, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<64x64xf32>
      %95 = stablehlo.broadcast_in_dim %arg15, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %96 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %97 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
      %c_11 = stablehlo.constant dense<0> : tensor<i32>
      %98 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %99 = stablehlo.slice %98 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %100 = stablehlo.slice %97 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %101 = stablehlo.concatenate %99, %100, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %102 = stablehlo.broadcast_in_dim %97, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %103 = stablehlo.broadcast_in_dim %101, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %104 = stablehlo.compare LE, %103, %96, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %105 = stablehlo.compare LT, %96, %102, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %106 = stablehlo.and %104, %105 : tensor<4x64x64xi1>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %107 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %108 = stablehlo.select %106, %95, %107 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %111 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
      %c_13 = stablehlo.constant dense<0> : tensor<i32>
      %112 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %113 = stablehlo.slice %112 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %114 = stablehlo.slice %111 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %115 = stablehlo.concatenate %113, %114, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v117.hp7 = "stablehlo.broadcast_in_dim"(%115) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v110.hp8 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v118.hp9 = "stablehlo.compare"(%v117.hp7, %v110.hp8) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v110.hp10 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v116.hp11 = "stablehlo.broadcast_in_dim"(%111) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v119.hp12 = "stablehlo.compare"(%v110.hp10, %v116.hp11) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v120.hp13 = "stablehlo.and"(%v118.hp9, %v119.hp12) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp14 = "stablehlo.concatenate"(%50, %48) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v109.hp15 = "stablehlo.broadcast_in_dim"(%concatenate.hp14) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v121.hp16 = "stablehlo.broadcast_in_dim"(%cst_14) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v122.hp17 = "stablehlo.select"(%v120.hp13, %v109.hp15, %v121.hp16) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v123.hp18 = "stablehlo.dot_general"(%108, %v122.hp17) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v141.hp19 = "stablehlo.reduce_scatter"(%v123.hp18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %147 = stablehlo.add %arg24, %arg25 : tensor<f32>
        stablehlo.return %147 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x8x64xf32>
      %124 = stablehlo.broadcast_in_dim %50, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %125 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %126 = func.call @cumsum(%arg14) : (tensor<4xi32>) -> tensor<4xi32>
      %c_15 = stablehlo.constant dense<0> : tensor<i32>
      %127 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %128 = stablehlo.slice %127 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %129 = stablehlo.slice %126 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %130 = stablehlo.concatenate %128, %129, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %131 = stablehlo.broadcast_in_dim %126, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %132 = stablehlo.broadcast_in_dim %130, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %133 = stablehlo.compare LE, %132, %125, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %134 = stablehlo.compare LT, %125, %131, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %135 = stablehlo.and %133, %134 : tensor<4x64x32xi1>
      %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %136 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %137 = stablehlo.select %135, %124, %136 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %138 = stablehlo.dot_general %137, %arg13, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<64x64xf32>
      %139 = stablehlo.add %94, %138 : tensor<64x64xf32>
      %145 = "stablehlo.all_reduce"(%139) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %147 = stablehlo.add %arg24, %arg25 : tensor<f32>
        stablehlo.return %147 : tensor<f32>
      }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %146 = "stablehlo.all_reduce"(%32) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %147 = stablehlo.add %arg24, %arg25 : tensor<f32>
        stablehlo.return %147 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %145, %v141.hp19, %146 : tensor<64x64xf32>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
    } : (tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
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
