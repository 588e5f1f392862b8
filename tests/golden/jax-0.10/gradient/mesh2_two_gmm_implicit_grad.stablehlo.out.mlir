module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v2.hp2 = "stablehlo.optimization_barrier"(%v1.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v3.hp3 = "sdy.sharding_constraint"(%v2.hp2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v4.hp4 = "sdy.sharding_constraint"(%v3.hp3) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %10:7 = "sdy.manual_computation"(%arg0, %arg1, %v4.hp4, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %33 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %35 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %36 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %37 = stablehlo.slice %36 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %38 = stablehlo.slice %35 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %39 = stablehlo.concatenate %37, %38, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %40 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %41 = stablehlo.broadcast_in_dim %39, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %42 = stablehlo.compare LE, %41, %34, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %43 = stablehlo.compare LT, %34, %40, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %44 = stablehlo.and %42, %43 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %46 = stablehlo.select %44, %33, %45 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v47.hp5 = "stablehlo.dot_general"(%46, %arg6) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp6 = "stablehlo.slice"(%v47.hp5) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp7 = "stablehlo.slice"(%v47.hp5) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %63:3 = func.call @silu(%slice.hp6) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %64 = stablehlo.multiply %63#0, %slice.hp7 : tensor<64x32xf32>
      %65 = stablehlo.broadcast_in_dim %64, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %66 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %67 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %68 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %69 = stablehlo.slice %68 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %70 = stablehlo.slice %67 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %71 = stablehlo.concatenate %69, %70, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %72 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %73 = stablehlo.broadcast_in_dim %71, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %74 = stablehlo.compare LE, %73, %66, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %75 = stablehlo.compare LT, %66, %72, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %76 = stablehlo.and %74, %75 : tensor<4x64x32xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %77 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %78 = stablehlo.select %76, %65, %77 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %79 = stablehlo.dot_general %78, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %63#1, %63#2, %slice.hp6, %slice.hp7, %63#0, %64, %79 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
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
      %109 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %110 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %111 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_16 = stablehlo.constant dense<0> : tensor<i32>
      %112 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %113 = stablehlo.slice %112 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %114 = stablehlo.slice %111 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %115 = stablehlo.concatenate %113, %114, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %116 = stablehlo.broadcast_in_dim %111, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %117 = stablehlo.broadcast_in_dim %115, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %118 = stablehlo.compare LE, %117, %110, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %119 = stablehlo.compare LT, %110, %116, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %120 = stablehlo.and %118, %119 : tensor<4x64x64xi1>
      %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %121 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %122 = stablehlo.select %120, %109, %121 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %125 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_18 = stablehlo.constant dense<0> : tensor<i32>
      %126 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %127 = stablehlo.slice %126 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %128 = stablehlo.slice %125 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %129 = stablehlo.concatenate %127, %128, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v131.hp8 = "stablehlo.broadcast_in_dim"(%129) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v124.hp9 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v132.hp10 = "stablehlo.compare"(%v131.hp8, %v124.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v124.hp11 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v130.hp12 = "stablehlo.broadcast_in_dim"(%125) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v133.hp13 = "stablehlo.compare"(%v124.hp11, %v130.hp12) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v134.hp14 = "stablehlo.and"(%v132.hp10, %v133.hp13) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp15 = "stablehlo.concatenate"(%79, %77) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v123.hp16 = "stablehlo.broadcast_in_dim"(%concatenate.hp15) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v135.hp17 = "stablehlo.broadcast_in_dim"(%cst_19) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v136.hp18 = "stablehlo.select"(%v134.hp14, %v123.hp16, %v135.hp17) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v137.hp19 = "stablehlo.dot_general"(%122, %v136.hp18) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v138.hp20 = "stablehlo.all_reduce"(%v137.hp19) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %141 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %141 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %140 = "stablehlo.all_reduce"(%61) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %141 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %141 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v138.hp20, %140) : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %v27.hp21 = "sdy.sharding_constraint"(%21#0) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v28.hp22 = "sdy.sharding_constraint"(%v27.hp21) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v29.hp23 = "stablehlo.optimization_barrier"(%v28.hp22) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %v30.hp24 = "sdy.sharding_constraint"(%v29.hp23) {sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    return %15, %v30.hp24, %21#1 : tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
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
