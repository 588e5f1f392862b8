module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %0:7 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v14.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
      %v15.hp2 = "stablehlo.all_gather"(%v14.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
      %19 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %20 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %21 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %22 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %23 = stablehlo.slice %22 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %24 = stablehlo.slice %21 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %25 = stablehlo.concatenate %23, %24, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %26 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %27 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %28 = stablehlo.compare LE, %27, %20, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %29 = stablehlo.compare LT, %20, %26, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %30 = stablehlo.and %28, %29 : tensor<4x64x64xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %31 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %32 = stablehlo.select %30, %19, %31 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %33 = stablehlo.dot_general %32, %v15.hp2, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %34 = stablehlo.slice %33 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %35 = stablehlo.slice %33 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %36:3 = func.call @silu(%34) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %37 = stablehlo.multiply %36#0, %35 : tensor<64x32xf32>
      %38 = stablehlo.broadcast_in_dim %37, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %39 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %40 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c_6 = stablehlo.constant dense<0> : tensor<i32>
      %41 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %42 = stablehlo.slice %41 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %43 = stablehlo.slice %40 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %44 = stablehlo.concatenate %42, %43, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %45 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %46 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %47 = stablehlo.compare LE, %46, %39, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %48 = stablehlo.compare LT, %39, %45, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %49 = stablehlo.and %47, %48 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %51 = stablehlo.select %49, %38, %50 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %52 = stablehlo.dot_general %51, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %36#1, %36#2, %34, %35, %36#0, %37, %52 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    } : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %1 = chlo.square %0#6 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %3 = stablehlo.multiply %2, %0#6 : tensor<64x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %5 = stablehlo.divide %4, %cst_1 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %6 = stablehlo.divide %cst_2, %cst_3 : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %8 = stablehlo.multiply %7, %3 : tensor<64x64xf32>
    %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %10 = stablehlo.divide %8, %9 : tensor<64x64xf32>
    %11:2 = sdy.manual_computation(%10, %arg0, %arg1, %0#0, %0#1, %0#2, %0#3, %0#4, %arg3, %0#5) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] out_shardings=[<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>) {
      %12 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %13 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %14 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %16 = stablehlo.slice %15 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %17 = stablehlo.slice %14 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %18 = stablehlo.concatenate %16, %17, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %19 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %20 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %21 = stablehlo.compare LE, %20, %13, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %22 = stablehlo.compare LT, %13, %19, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %23 = stablehlo.and %21, %22 : tensor<4x64x32xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %25 = stablehlo.select %23, %12, %24 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %26 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %27 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %28 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_6 = stablehlo.constant dense<0> : tensor<i32>
      %29 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %30 = stablehlo.slice %29 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %31 = stablehlo.slice %28 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %32 = stablehlo.concatenate %30, %31, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %33 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %34 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %35 = stablehlo.compare LE, %34, %27, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %36 = stablehlo.compare LT, %27, %33, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %37 = stablehlo.and %35, %36 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %38 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %39 = stablehlo.select %37, %26, %38 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %40 = stablehlo.dot_general %25, %39, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %41 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %42 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %43 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %44 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %45 = stablehlo.slice %44 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %46 = stablehlo.slice %43 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %47 = stablehlo.concatenate %45, %46, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %48 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %50 = stablehlo.compare LE, %49, %42, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %51 = stablehlo.compare LT, %42, %48, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %52 = stablehlo.and %50, %51 : tensor<4x64x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %54 = stablehlo.select %52, %41, %53 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %55 = stablehlo.dot_general %54, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %56 = stablehlo.multiply %arg11, %55 : tensor<64x32xf32>
      %57 = stablehlo.multiply %55, %arg10 : tensor<64x32xf32>
      %58 = func.call @silu_0(%arg7, %arg8, %arg9, %57) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %59 = stablehlo.pad %56, %cst_10, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %60 = stablehlo.pad %58, %cst_11, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %61 = stablehlo.add %59, %60 : tensor<64x64xf32>
      %62 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %63 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %64 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_12 = stablehlo.constant dense<0> : tensor<i32>
      %65 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %66 = stablehlo.slice %65 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %67 = stablehlo.slice %64 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %68 = stablehlo.concatenate %66, %67, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %69 = stablehlo.broadcast_in_dim %64, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %70 = stablehlo.broadcast_in_dim %68, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %71 = stablehlo.compare LE, %70, %63, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %72 = stablehlo.compare LT, %63, %69, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %73 = stablehlo.and %71, %72 : tensor<4x64x64xi1>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %74 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %75 = stablehlo.select %73, %62, %74 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %76 = stablehlo.broadcast_in_dim %61, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %77 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %78 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_14 = stablehlo.constant dense<0> : tensor<i32>
      %79 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %80 = stablehlo.slice %79 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %81 = stablehlo.slice %78 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %82 = stablehlo.concatenate %80, %81, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %83 = stablehlo.broadcast_in_dim %78, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %84 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %85 = stablehlo.compare LE, %84, %77, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %86 = stablehlo.compare LT, %77, %83, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %87 = stablehlo.and %85, %86 : tensor<4x64x64xi1>
      %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %88 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %89 = stablehlo.select %87, %76, %88 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %90 = stablehlo.dot_general %75, %89, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v95.hp3 = "stablehlo.reduce_scatter"(%90) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %101 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %101 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %v96.hp4 = "stablehlo.reduce_scatter"(%v95.hp3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %101 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %101 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
      %100 = "stablehlo.all_reduce"(%40) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %101 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %101 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %v96.hp4, %100 : tensor<4x8x64xf32>, tensor<4x32x64xf32>
    } : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    return %5, %11#0, %11#1 : tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
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
  func.func private @silu_0(%arg0: tensor<64x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<64x32xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<64x32xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<64x32xf32>
    %3 = stablehlo.add %1, %2 : tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
}
