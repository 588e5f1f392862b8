module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %0:7 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v14.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %17 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %18 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %19 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %20 = stablehlo.subtract %19, %arg5 : tensor<4xi32>
      %21 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %22 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %23 = stablehlo.compare LE, %22, %18, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %24 = stablehlo.compare LT, %18, %21, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %25 = stablehlo.and %23, %24 : tensor<4x64x64xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %26 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %27 = stablehlo.select %25, %17, %26 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %28 = stablehlo.dot_general %27, %v14.hp1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %29 = stablehlo.slice %28 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %30 = stablehlo.slice %28 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %31:3 = func.call @silu(%29) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %32 = stablehlo.multiply %31#0, %30 : tensor<64x32xf32>
      %33 = stablehlo.broadcast_in_dim %32, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %35 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %36 = stablehlo.subtract %35, %arg5 : tensor<4xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %38 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %39 = stablehlo.compare LE, %38, %34, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %40 = stablehlo.compare LT, %34, %37, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %41 = stablehlo.and %39, %40 : tensor<4x64x32xi1>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %43 = stablehlo.select %41, %33, %42 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %44 = stablehlo.dot_general %43, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %44, %31#1, %31#2, %29, %30, %31#0, %32 : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
    } : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
    %1 = chlo.square %0#0 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %3 = stablehlo.multiply %2, %0#0 : tensor<64x64xf32>
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
    %11:2 = sdy.manual_computation(%10, %arg0, %arg1, %0#1, %0#2, %0#3, %0#4, %0#5, %arg3, %0#6) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>) {
      %12 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %13 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %14 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %15 = stablehlo.subtract %14, %arg6 : tensor<4xi32>
      %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %18 = stablehlo.compare LE, %17, %13, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %19 = stablehlo.compare LT, %13, %16, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %20 = stablehlo.and %18, %19 : tensor<4x64x32xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %22 = stablehlo.select %20, %12, %21 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %23 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %24 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %25 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %26 = stablehlo.subtract %25, %arg6 : tensor<4xi32>
      %27 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %28 = stablehlo.broadcast_in_dim %26, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %29 = stablehlo.compare LE, %28, %24, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %30 = stablehlo.compare LT, %24, %27, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %31 = stablehlo.and %29, %30 : tensor<4x64x64xi1>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %32 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %33 = stablehlo.select %31, %23, %32 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %34 = stablehlo.dot_general %22, %33, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %35 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %36 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %37 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %38 = stablehlo.subtract %37, %arg6 : tensor<4xi32>
      %39 = stablehlo.broadcast_in_dim %37, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %40 = stablehlo.broadcast_in_dim %38, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %41 = stablehlo.compare LE, %40, %36, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %42 = stablehlo.compare LT, %36, %39, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %43 = stablehlo.and %41, %42 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %44 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %45 = stablehlo.select %43, %35, %44 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %46 = stablehlo.dot_general %45, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %47 = stablehlo.multiply %arg11, %46 : tensor<64x32xf32>
      %48 = stablehlo.multiply %46, %arg10 : tensor<64x32xf32>
      %49 = func.call @silu_0(%arg7, %arg8, %arg9, %48) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %50 = stablehlo.pad %47, %cst_8, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %51 = stablehlo.pad %49, %cst_9, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %52 = stablehlo.add %50, %51 : tensor<64x64xf32>
      %53 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %54 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %55 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %56 = stablehlo.subtract %55, %arg6 : tensor<4xi32>
      %57 = stablehlo.broadcast_in_dim %55, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %58 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %59 = stablehlo.compare LE, %58, %54, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %60 = stablehlo.compare LT, %54, %57, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %61 = stablehlo.and %59, %60 : tensor<4x64x64xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %62 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %63 = stablehlo.select %61, %53, %62 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %64 = stablehlo.broadcast_in_dim %52, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %65 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %66 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %67 = stablehlo.subtract %66, %arg6 : tensor<4xi32>
      %68 = stablehlo.broadcast_in_dim %66, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %69 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %70 = stablehlo.compare LE, %69, %65, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %71 = stablehlo.compare LT, %65, %68, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %72 = stablehlo.and %70, %71 : tensor<4x64x64xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %73 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %74 = stablehlo.select %72, %64, %73 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %75 = stablehlo.dot_general %63, %74, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v79.hp2 = "stablehlo.reduce_scatter"(%75) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %84 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %84 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x8x64xf32>
      %83 = "stablehlo.all_reduce"(%34) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %84 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %84 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %v79.hp2, %83 : tensor<4x8x64xf32>, tensor<4x32x64xf32>
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
  func.func private @silu_0(%arg0: tensor<64x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<64x32xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<64x32xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<64x32xf32>
    %3 = stablehlo.add %1, %2 : tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
}
