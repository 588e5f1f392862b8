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
      %v23.hp1 = "sdy.sharding_constraint"(%20) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v24.hp2 = "stablehlo.optimization_barrier"(%v23.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v25.hp3 = "sdy.sharding_constraint"(%v24.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v26.hp4 = "sdy.sharding_constraint"(%v25.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %21 = func.call @dynamic_index_in_dim_0(%iterArg_15, %iterArg_17) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %32:8 = "sdy.manual_computation"(%iterArg_16, %iterArg_18, %v26.hp4, %21) ({
      ^bb0(%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
        %44 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %45 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %46 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %47 = stablehlo.subtract %46, %arg4 : tensor<4xi32>
        %48 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %50 = stablehlo.compare LE, %49, %45, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %51 = stablehlo.compare LT, %45, %48, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %52 = stablehlo.and %50, %51 : tensor<4x64x64xi1>
        %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %53 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %54 = stablehlo.select %52, %44, %53 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %55 = stablehlo.dot_general %54, %arg6, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %56 = stablehlo.slice %55 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %57 = stablehlo.slice %55 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %58:3 = func.call @silu(%56) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
        %59 = stablehlo.multiply %58#0, %57 : tensor<64x32xf32>
        %60 = stablehlo.broadcast_in_dim %59, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %61 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %62 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %63 = stablehlo.subtract %62, %arg4 : tensor<4xi32>
        %64 = stablehlo.broadcast_in_dim %62, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %65 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %66 = stablehlo.compare LE, %65, %61, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %67 = stablehlo.compare LT, %61, %64, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %68 = stablehlo.and %66, %67 : tensor<4x64x32xi1>
        %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %69 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %70 = stablehlo.select %68, %60, %69 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %71 = stablehlo.dot_general %70, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        sdy.return %71, %arg6, %58#1, %58#2, %56, %57, %58#0, %59 : tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
      }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
      %33 = stablehlo.add %iterArg_18, %32#0 : tensor<64x64xf32>
      %34 = func.call @dynamic_update_index_in_dim(%iterArg_19, %32#1, %iterArg_17) : (tensor<2x32x64x64xf32>, tensor<32x64x64xf32>, tensor<i32>) -> tensor<2x32x64x64xf32>
      %35 = func.call @dynamic_update_index_in_dim_1(%iterArg_20, %iterArg_18, %iterArg_17) : (tensor<2x64x64xf32>, tensor<64x64xf32>, tensor<i32>) -> tensor<2x64x64xf32>
      %36 = func.call @dynamic_update_index_in_dim_2(%iterArg_21, %32#2, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %37 = func.call @dynamic_update_index_in_dim_2(%iterArg_22, %32#3, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %38 = func.call @dynamic_update_index_in_dim_2(%iterArg_23, %32#4, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %39 = func.call @dynamic_update_index_in_dim_2(%iterArg_24, %32#5, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %40 = func.call @dynamic_update_index_in_dim_2(%iterArg_25, %32#6, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %41 = func.call @dynamic_update_index_in_dim_2(%iterArg_26, %32#7, %iterArg_17) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %42 = stablehlo.add %iterArg_17, %c_27 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %42, %33, %34, %35, %36, %37, %38, %39, %40, %41 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
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
      %33:3 = "sdy.manual_computation"(%32, %22, %iterArg_23, %23, %24, %25, %26, %27, %28, %29, %30) ({
      ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4x64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x64xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<64x32xf32>, %arg13: tensor<4x32x64xf32>, %arg14: tensor<64x32xf32>):
        %49 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %50 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %51 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %52 = stablehlo.subtract %51, %arg6 : tensor<4xi32>
        %53 = stablehlo.broadcast_in_dim %51, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %54 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %55 = stablehlo.compare LE, %54, %50, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %56 = stablehlo.compare LT, %50, %53, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %57 = stablehlo.and %55, %56 : tensor<4x64x32xi1>
        %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %58 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %59 = stablehlo.select %57, %49, %58 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %60 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %61 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %62 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %63 = stablehlo.subtract %62, %arg6 : tensor<4xi32>
        %64 = stablehlo.broadcast_in_dim %62, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %65 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %66 = stablehlo.compare LE, %65, %61, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %67 = stablehlo.compare LT, %61, %64, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %68 = stablehlo.and %66, %67 : tensor<4x64x64xi1>
        %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %69 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %70 = stablehlo.select %68, %60, %69 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %71 = stablehlo.dot_general %59, %70, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
        %72 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %73 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %74 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %75 = stablehlo.subtract %74, %arg6 : tensor<4xi32>
        %76 = stablehlo.broadcast_in_dim %74, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %77 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %78 = stablehlo.compare LE, %77, %73, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %79 = stablehlo.compare LT, %73, %76, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %80 = stablehlo.and %78, %79 : tensor<4x64x64xi1>
        %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %81 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %82 = stablehlo.select %80, %72, %81 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %83 = stablehlo.dot_general %82, %arg13, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
        %84 = stablehlo.multiply %arg12, %83 : tensor<64x32xf32>
        %85 = stablehlo.multiply %83, %arg11 : tensor<64x32xf32>
        %86 = func.call @silu_6(%arg8, %arg9, %arg10, %85) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %87 = stablehlo.pad %84, %cst_37, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
        %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %88 = stablehlo.pad %86, %cst_38, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x64xf32>
        %89 = stablehlo.add %87, %88 : tensor<64x64xf32>
        %90 = stablehlo.broadcast_in_dim %arg7, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %91 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %92 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %93 = stablehlo.subtract %92, %arg6 : tensor<4xi32>
        %94 = stablehlo.broadcast_in_dim %92, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %95 = stablehlo.broadcast_in_dim %93, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %96 = stablehlo.compare LE, %95, %91, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %97 = stablehlo.compare LT, %91, %94, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %98 = stablehlo.and %96, %97 : tensor<4x64x64xi1>
        %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %99 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %100 = stablehlo.select %98, %90, %99 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %101 = stablehlo.broadcast_in_dim %89, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %102 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %103 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %104 = stablehlo.subtract %103, %arg6 : tensor<4xi32>
        %105 = stablehlo.broadcast_in_dim %103, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %106 = stablehlo.broadcast_in_dim %104, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %107 = stablehlo.compare LE, %106, %102, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %108 = stablehlo.compare LT, %102, %105, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %109 = stablehlo.and %107, %108 : tensor<4x64x64xi1>
        %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %110 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %111 = stablehlo.select %109, %101, %110 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %112 = stablehlo.dot_general %100, %111, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %v128.hp5 = "stablehlo.all_reduce"(%112) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %131 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %131 : tensor<f32>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %113 = stablehlo.broadcast_in_dim %89, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %114 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %115 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %116 = stablehlo.subtract %115, %arg6 : tensor<4xi32>
        %117 = stablehlo.broadcast_in_dim %115, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %118 = stablehlo.broadcast_in_dim %116, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %119 = stablehlo.compare LE, %118, %114, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %120 = stablehlo.compare LT, %114, %117, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %121 = stablehlo.and %119, %120 : tensor<4x64x64xi1>
        %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %122 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %123 = stablehlo.select %121, %113, %122 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %124 = stablehlo.dot_general %123, %arg5, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %127 = "stablehlo.all_reduce"(%124) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %131 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %131 : tensor<f32>
        }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
        %130 = "stablehlo.all_reduce"(%71) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %131 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %131 : tensor<f32>
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        "sdy.return"(%127, %v128.hp5, %130) : (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
      }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<32x64x64xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %v40.hp6 = "sdy.sharding_constraint"(%33#1) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v41.hp7 = "sdy.sharding_constraint"(%v40.hp6) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v42.hp8 = "stablehlo.optimization_barrier"(%v41.hp7) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v43.hp9 = "sdy.sharding_constraint"(%v42.hp8) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %34 = stablehlo.add %iterArg_25, %33#0 : tensor<64x64xf32>
      %46 = func.call @dynamic_update_index_in_dim_7(%iterArg_26, %v43.hp9, %21) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %47 = func.call @dynamic_update_index_in_dim_8(%iterArg_27, %33#2, %21) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_33 = stablehlo.constant dense<1> : tensor<i32>
      %48 = stablehlo.add %iterArg_24, %c_33 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %48, %34, %46, %47 : tensor<2x32x64x64xf32>, tensor<2x64x64xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
