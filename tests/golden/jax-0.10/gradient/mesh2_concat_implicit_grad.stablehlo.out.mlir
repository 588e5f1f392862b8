module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v2.hp2 = "stablehlo.optimization_barrier"(%v1.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v3.hp3 = "sdy.sharding_constraint"(%v2.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v4.hp4 = "sdy.sharding_constraint"(%v3.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %10:7 = "sdy.manual_computation"(%arg0, %arg1, %v4.hp4, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %34 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %35 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %36 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %37 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %38 = stablehlo.slice %37 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %39 = stablehlo.slice %36 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %40 = stablehlo.concatenate %38, %39, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %41 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %42 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %43 = stablehlo.compare LE, %42, %35, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %44 = stablehlo.compare LT, %35, %41, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %45 = stablehlo.and %43, %44 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %46 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %47 = stablehlo.select %45, %34, %46 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %48 = stablehlo.dot_general %47, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %49 = stablehlo.slice %48 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %50 = stablehlo.slice %48 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %51:3 = func.call @silu(%49) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %52 = stablehlo.multiply %51#0, %50 : tensor<64x32xf32>
      %53 = stablehlo.broadcast_in_dim %52, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %54 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %55 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %56 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %57 = stablehlo.slice %56 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %58 = stablehlo.slice %55 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %59 = stablehlo.concatenate %57, %58, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %60 = stablehlo.broadcast_in_dim %55, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %61 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %62 = stablehlo.compare LE, %61, %54, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %63 = stablehlo.compare LT, %54, %60, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %64 = stablehlo.and %62, %63 : tensor<4x64x32xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %66 = stablehlo.select %64, %53, %65 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %67 = stablehlo.dot_general %66, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %51#1, %51#2, %49, %50, %51#0, %52, %67 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %11 = chlo.square %10#6 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %13 = stablehlo.multiply %12, %10#6 : tensor<64x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%11 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %15 = stablehlo.divide %14, %cst_1 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %16 = stablehlo.divide %cst_2, %cst_3 : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %18 = stablehlo.multiply %17, %13 : tensor<64x64xf32>
    %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %20 = stablehlo.divide %18, %19 : tensor<64x64xf32>
    %21:2 = "sdy.manual_computation"(%20, %arg0, %arg1, %10#0, %10#1, %10#2, %10#3, %10#4, %arg3, %10#5) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>):
      %33 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %35 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %36 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %37 = stablehlo.slice %36 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %38 = stablehlo.slice %35 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %39 = stablehlo.concatenate %37, %38, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %40 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %41 = stablehlo.broadcast_in_dim %39, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %42 = stablehlo.compare LE, %41, %34, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %43 = stablehlo.compare LT, %34, %40, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %44 = stablehlo.and %42, %43 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %46 = stablehlo.select %44, %33, %45 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %47 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %48 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %49 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %50 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %51 = stablehlo.slice %50 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %52 = stablehlo.slice %49 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %53 = stablehlo.concatenate %51, %52, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %54 = stablehlo.broadcast_in_dim %49, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %55 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %56 = stablehlo.compare LE, %55, %48, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %57 = stablehlo.compare LT, %48, %54, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %58 = stablehlo.and %56, %57 : tensor<4x64x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %59 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %60 = stablehlo.select %58, %47, %59 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %61 = stablehlo.dot_general %46, %60, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %62 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %63 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %64 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %65 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %66 = stablehlo.slice %65 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %67 = stablehlo.slice %64 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %68 = stablehlo.concatenate %66, %67, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %69 = stablehlo.broadcast_in_dim %64, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %70 = stablehlo.broadcast_in_dim %68, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %71 = stablehlo.compare LE, %70, %63, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %72 = stablehlo.compare LT, %63, %69, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %73 = stablehlo.and %71, %72 : tensor<4x64x64xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %74 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %75 = stablehlo.select %73, %62, %74 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %76 = stablehlo.dot_general %75, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %77 = stablehlo.multiply %arg11, %76 : tensor<64x32xf32>
      %78 = stablehlo.multiply %76, %arg10 : tensor<64x32xf32>
      %79 = func.call @silu_0(%arg7, %arg8, %arg9, %78) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %80 = stablehlo.pad %77, %cst_12, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %81 = stablehlo.pad %79, %cst_13, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
      %82 = stablehlo.add %80, %81 : tensor<64x64xf32>
      %83 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %84 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %85 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_14 = stablehlo.constant dense<0> : tensor<i32>
      %86 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %87 = stablehlo.slice %86 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %88 = stablehlo.slice %85 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %89 = stablehlo.concatenate %87, %88, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %90 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %91 = stablehlo.broadcast_in_dim %89, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %92 = stablehlo.compare LE, %91, %84, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %93 = stablehlo.compare LT, %84, %90, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %94 = stablehlo.and %92, %93 : tensor<4x64x64xi1>
      %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %95 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %96 = stablehlo.select %94, %83, %95 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %97 = stablehlo.broadcast_in_dim %82, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %98 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %99 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_16 = stablehlo.constant dense<0> : tensor<i32>
      %100 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %101 = stablehlo.slice %100 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %102 = stablehlo.slice %99 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %103 = stablehlo.concatenate %101, %102, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %104 = stablehlo.broadcast_in_dim %99, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %105 = stablehlo.broadcast_in_dim %103, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %106 = stablehlo.compare LE, %105, %98, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %107 = stablehlo.compare LT, %98, %104, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %108 = stablehlo.and %106, %107 : tensor<4x64x64xi1>
      %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %109 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %110 = stablehlo.select %108, %97, %109 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %111 = stablehlo.dot_general %96, %110, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v114.hp5 = "stablehlo.all_reduce"(%111) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %117 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %117 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %116 = "stablehlo.all_reduce"(%61) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %117 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %117 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v114.hp5, %116) : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %v27.hp6 = "sdy.sharding_constraint"(%21#0) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v28.hp7 = "sdy.sharding_constraint"(%v27.hp6) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v29.hp8 = "stablehlo.optimization_barrier"(%v28.hp7) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v30.hp9 = "sdy.sharding_constraint"(%v29.hp8) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    return %15, %v30.hp9, %21#1 : tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
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
