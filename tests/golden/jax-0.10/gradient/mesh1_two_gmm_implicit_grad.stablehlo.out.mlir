module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %4:7 = "sdy.manual_computation"(%arg0, %arg1, %v1.hp1, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %21 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %22 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %23 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %24 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %25 = stablehlo.slice %24 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %26 = stablehlo.slice %23 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %27 = stablehlo.concatenate %25, %26, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %28 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %29 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %30 = stablehlo.compare LE, %29, %22, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %31 = stablehlo.compare LT, %22, %28, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %32 = stablehlo.and %30, %31 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %34 = stablehlo.select %32, %21, %33 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v35.hp2 = "stablehlo.dot_general"(%34, %arg6) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp3 = "stablehlo.slice"(%v35.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp4 = "stablehlo.slice"(%v35.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %51:3 = func.call @silu(%slice.hp3) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %52 = stablehlo.multiply %51#0, %slice.hp4 : tensor<64x32xf32>
      %53 = stablehlo.broadcast_in_dim %52, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %54 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %55 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %56 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %57 = stablehlo.slice %56 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %58 = stablehlo.slice %55 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %59 = stablehlo.concatenate %57, %58, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %60 = stablehlo.broadcast_in_dim %55, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %61 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %62 = stablehlo.compare LE, %61, %54, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %63 = stablehlo.compare LT, %54, %60, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %64 = stablehlo.and %62, %63 : tensor<4x64x32xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %66 = stablehlo.select %64, %53, %65 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %67 = stablehlo.dot_general %66, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %51#1, %51#2, %slice.hp3, %slice.hp4, %51#0, %52, %67 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %5 = chlo.square %4#6 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %7 = stablehlo.multiply %6, %4#6 : tensor<64x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %9 = stablehlo.divide %8, %cst_1 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %10 = stablehlo.divide %cst_2, %cst_3 : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %12 = stablehlo.multiply %11, %7 : tensor<64x64xf32>
    %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %14 = stablehlo.divide %12, %13 : tensor<64x64xf32>
    %15:2 = "sdy.manual_computation"(%14, %arg0, %arg1, %4#0, %4#1, %4#2, %4#3, %4#4, %arg3, %4#5) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>):
      %21 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %22 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %23 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %24 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %25 = stablehlo.slice %24 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %26 = stablehlo.slice %23 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %27 = stablehlo.concatenate %25, %26, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %28 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %29 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %30 = stablehlo.compare LE, %29, %22, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %31 = stablehlo.compare LT, %22, %28, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %32 = stablehlo.and %30, %31 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %34 = stablehlo.select %32, %21, %33 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %35 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %36 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %37 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %38 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %39 = stablehlo.slice %38 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %40 = stablehlo.slice %37 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %41 = stablehlo.concatenate %39, %40, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %42 = stablehlo.broadcast_in_dim %37, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %43 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %44 = stablehlo.compare LE, %43, %36, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %45 = stablehlo.compare LT, %36, %42, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %46 = stablehlo.and %44, %45 : tensor<4x64x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %47 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %48 = stablehlo.select %46, %35, %47 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %49 = stablehlo.dot_general %34, %48, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %50 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %51 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %52 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %53 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %54 = stablehlo.slice %53 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %55 = stablehlo.slice %52 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %56 = stablehlo.concatenate %54, %55, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %57 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %58 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %59 = stablehlo.compare LE, %58, %51, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %60 = stablehlo.compare LT, %51, %57, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %61 = stablehlo.and %59, %60 : tensor<4x64x64xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %62 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %63 = stablehlo.select %61, %50, %62 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %64 = stablehlo.dot_general %63, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %65 = stablehlo.multiply %arg11, %64 : tensor<64x32xf32>
      %66 = stablehlo.multiply %64, %arg10 : tensor<64x32xf32>
      %67 = func.call @silu_0(%arg7, %arg8, %arg9, %66) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %97 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
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
      %113 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %c_18 = stablehlo.constant dense<0> : tensor<i32>
      %114 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %115 = stablehlo.slice %114 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %116 = stablehlo.slice %113 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %117 = stablehlo.concatenate %115, %116, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v119.hp5 = "stablehlo.broadcast_in_dim"(%117) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v112.hp6 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v120.hp7 = "stablehlo.compare"(%v119.hp5, %v112.hp6) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v112.hp8 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v118.hp9 = "stablehlo.broadcast_in_dim"(%113) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v121.hp10 = "stablehlo.compare"(%v112.hp8, %v118.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v122.hp11 = "stablehlo.and"(%v120.hp7, %v121.hp10) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp12 = "stablehlo.concatenate"(%67, %65) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v111.hp13 = "stablehlo.broadcast_in_dim"(%concatenate.hp12) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v123.hp14 = "stablehlo.broadcast_in_dim"(%cst_19) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v124.hp15 = "stablehlo.select"(%v122.hp11, %v111.hp13, %v123.hp14) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v125.hp16 = "stablehlo.dot_general"(%110, %v124.hp15) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v126.hp17 = "stablehlo.all_reduce"(%v125.hp16) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %129 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %129 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %128 = "stablehlo.all_reduce"(%49) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %129 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %129 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v126.hp17, %128) : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %v18.hp18 = "sdy.sharding_constraint"(%15#0) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    return %9, %v18.hp18, %15#1 : tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
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
