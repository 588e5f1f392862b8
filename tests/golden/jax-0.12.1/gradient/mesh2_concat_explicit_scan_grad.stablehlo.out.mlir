module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
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
      %22:8 = sdy.manual_computation(%iterArg_16, %iterArg_18, %20, %21) in_shardings=[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
        %v35.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
        %v36.hp2 = "stablehlo.all_gather"(%v35.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
        %40 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %41 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %42 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %43 = stablehlo.subtract %42, %arg4 : tensor<4xi32>
        %44 = stablehlo.broadcast_in_dim %42, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %45 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %46 = stablehlo.compare LE, %45, %41, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %47 = stablehlo.compare LT, %41, %44, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %48 = stablehlo.and %46, %47 : tensor<4x64x64xi1>
        %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %49 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %50 = stablehlo.select %48, %40, %49 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %51 = stablehlo.dot_general %50, %v36.hp2, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %52 = stablehlo.slice %51 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %53 = stablehlo.slice %51 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %54:3 = func.call @silu(%52) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
        %55 = stablehlo.multiply %54#0, %53 : tensor<64x32xf32>
        %56 = stablehlo.broadcast_in_dim %55, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %57 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %58 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %59 = stablehlo.subtract %58, %arg4 : tensor<4xi32>
        %60 = stablehlo.broadcast_in_dim %58, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %61 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %62 = stablehlo.compare LE, %61, %57, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %63 = stablehlo.compare LT, %57, %60, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %64 = stablehlo.and %62, %63 : tensor<4x64x32xi1>
        %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %65 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %66 = stablehlo.select %64, %56, %65 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %67 = stablehlo.dot_general %66, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        sdy.return %67, %v36.hp2, %54#1, %54#2, %52, %53, %54#0, %55 : tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
      } : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
      %23 = stablehlo.add %iterArg_18, %22#0 : tensor<64x64xf32>
      %24 = func.call @dynamic_update_index_in_dim(%iterArg_19, %22#1, %iterArg_17) : (tensor<2x32x64x64xf32>, tensor<32x64x64xf32>, tensor<i32>) -> tensor<2x32x64x64xf32>
      %25 = func.call @dynamic_update_index_in_dim_1(%iterArg_20, %iterArg_18, %iterArg_17) : (tensor<2x64x64xf32>, tensor<64x64xf32>, tensor<i32>) -> tensor<2x64x64xf32>
      %26 = func.call @dynamic_update_index_in_dim_2(%iterArg_21, %22#2, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %27 = func.call @dynamic_update_index_in_dim_2(%iterArg_22, %22#3, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %28 = func.call @dynamic_update_index_in_dim_2(%iterArg_23, %22#4, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %29 = func.call @dynamic_update_index_in_dim_2(%iterArg_24, %22#5, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %30 = func.call @dynamic_update_index_in_dim_2(%iterArg_25, %22#6, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %31 = func.call @dynamic_update_index_in_dim_2(%iterArg_26, %22#7, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %32 = stablehlo.add %iterArg_17, %c_27 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %32, %23, %24, %25, %26, %27, %28, %29, %30, %31 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
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
      %cst_30 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %31 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
      %32 = stablehlo.divide %iterArg_25, %31 : tensor<64x64xf32>
      %33:3 = sdy.manual_computation(%32, %22, %iterArg_23, %23, %24, %25, %26, %27, %28, %29, %30) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4x64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x64xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<64x32xf32>, %arg13: tensor<4x32x64xf32>, %arg14: tensor<64x32xf32>) {
        %38 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %39 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %40 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %41 = stablehlo.subtract %40, %arg6 : tensor<4xi32>
        %42 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %43 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %44 = stablehlo.compare LE, %43, %39, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %45 = stablehlo.compare LT, %39, %42, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %46 = stablehlo.and %44, %45 : tensor<4x64x32xi1>
        %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %47 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %48 = stablehlo.select %46, %38, %47 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %49 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %50 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %51 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %52 = stablehlo.subtract %51, %arg6 : tensor<4xi32>
        %53 = stablehlo.broadcast_in_dim %51, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %54 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %55 = stablehlo.compare LE, %54, %50, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %56 = stablehlo.compare LT, %50, %53, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %57 = stablehlo.and %55, %56 : tensor<4x64x64xi1>
        %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %58 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %59 = stablehlo.select %57, %49, %58 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %60 = stablehlo.dot_general %48, %59, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
        %61 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %62 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %63 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %64 = stablehlo.subtract %63, %arg6 : tensor<4xi32>
        %65 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %66 = stablehlo.broadcast_in_dim %64, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %67 = stablehlo.compare LE, %66, %62, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %68 = stablehlo.compare LT, %62, %65, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %69 = stablehlo.and %67, %68 : tensor<4x64x64xi1>
        %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %70 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %71 = stablehlo.select %69, %61, %70 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %72 = stablehlo.dot_general %71, %arg13, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
        %73 = stablehlo.multiply %arg12, %72 : tensor<64x32xf32>
        %74 = stablehlo.multiply %72, %arg11 : tensor<64x32xf32>
        %75 = func.call @silu_6(%arg8, %arg9, %arg10, %74) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %76 = stablehlo.pad %73, %cst_35, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
        %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %77 = stablehlo.pad %75, %cst_36, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
        %78 = stablehlo.add %76, %77 : tensor<64x64xf32>
        %79 = stablehlo.broadcast_in_dim %arg7, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %80 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %81 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %82 = stablehlo.subtract %81, %arg6 : tensor<4xi32>
        %83 = stablehlo.broadcast_in_dim %81, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %84 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %85 = stablehlo.compare LE, %84, %80, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %86 = stablehlo.compare LT, %80, %83, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %87 = stablehlo.and %85, %86 : tensor<4x64x64xi1>
        %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %88 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %89 = stablehlo.select %87, %79, %88 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %90 = stablehlo.broadcast_in_dim %78, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %91 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %92 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %93 = stablehlo.subtract %92, %arg6 : tensor<4xi32>
        %94 = stablehlo.broadcast_in_dim %92, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %95 = stablehlo.broadcast_in_dim %93, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %96 = stablehlo.compare LE, %95, %91, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %97 = stablehlo.compare LT, %91, %94, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %98 = stablehlo.and %96, %97 : tensor<4x64x64xi1>
        %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %99 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %100 = stablehlo.select %98, %90, %99 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %101 = stablehlo.dot_general %89, %100, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %v118.hp3 = "stablehlo.reduce_scatter"(%101) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %125 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %125 : tensor<f32>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
        %v119.hp4 = "stablehlo.reduce_scatter"(%v118.hp3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %125 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %125 : tensor<f32>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
        %102 = stablehlo.broadcast_in_dim %78, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %103 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %104 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %105 = stablehlo.subtract %104, %arg6 : tensor<4xi32>
        %106 = stablehlo.broadcast_in_dim %104, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %107 = stablehlo.broadcast_in_dim %105, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %108 = stablehlo.compare LE, %107, %103, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %109 = stablehlo.compare LT, %103, %106, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %110 = stablehlo.and %108, %109 : tensor<4x64x64xi1>
        %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %111 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %112 = stablehlo.select %110, %102, %111 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %113 = stablehlo.dot_general %112, %arg5, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %123 = "stablehlo.all_reduce"(%113) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %125 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %125 : tensor<f32>
        }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
        %124 = "stablehlo.all_reduce"(%60) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %125 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %125 : tensor<f32>
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        sdy.return %123, %v119.hp4, %124 : tensor<64x64xf32>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
      } : (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %34 = stablehlo.add %iterArg_25, %33#0 : tensor<64x64xf32>
      %35 = func.call @dynamic_update_index_in_dim_7(%iterArg_26, %33#1, %21) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %36 = func.call @dynamic_update_index_in_dim_8(%iterArg_27, %33#2, %21) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_31 = stablehlo.constant dense<1> : tensor<i32>
      %37 = stablehlo.add %iterArg_24, %c_31 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %37, %34, %35, %36 : tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %1 = stablehlo.negate %arg0 : tensor<64x32xf32>
    %2 = stablehlo.exponential %1 : tensor<64x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<64x32xf32>
    %4 = stablehlo.divide %0, %3 : tensor<64x32xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<64x32xf32>
    %7 = stablehlo.multiply %4, %6 : tensor<64x32xf32>
    %8 = stablehlo.multiply %arg0, %4 : tensor<64x32xf32>
    return %8, %7, %4 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
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
  func.func private @silu_6(%arg0: tensor<64x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<64x32xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<64x32xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<64x32xf32>
    %3 = stablehlo.add %1, %2 : tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
  func.func private @dynamic_update_index_in_dim_7(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<4x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    return %1 : tensor<2x4x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_8(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x32x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    return %1 : tensor<2x4x32x64xf32>
  }
}
