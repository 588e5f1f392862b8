module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %v1.hp1 = "sdy.sharding_constraint"(%arg2) {sharding = #sdy.sharding<@mesh, [{}, {}, {}]>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %4:7 = "sdy.manual_computation"(%arg0, %arg1, %v1.hp1, %arg3) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg8: tensor<4x32x64xf32>):
      %21 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %22 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %23 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %24 = stablehlo.subtract %23, %arg5 : tensor<4xi32>
      %25 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %26 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %27 = stablehlo.compare LE, %26, %22, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %28 = stablehlo.compare LT, %22, %25, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %29 = stablehlo.and %27, %28 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %30 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %31 = stablehlo.select %29, %21, %30 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v32.hp2 = "stablehlo.dot_general"(%31, %arg6) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp3 = "stablehlo.slice"(%v32.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp4 = "stablehlo.slice"(%v32.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %45:3 = func.call @silu(%slice.hp3) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %46 = stablehlo.multiply %45#0, %slice.hp4 : tensor<64x32xf32>
      %47 = stablehlo.broadcast_in_dim %46, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %48 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %49 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %50 = stablehlo.subtract %49, %arg5 : tensor<4xi32>
      %51 = stablehlo.broadcast_in_dim %49, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %52 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %53 = stablehlo.compare LE, %52, %48, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %54 = stablehlo.compare LT, %48, %51, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %55 = stablehlo.and %53, %54 : tensor<4x64x32xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %56 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %57 = stablehlo.select %55, %47, %56 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %58 = stablehlo.dot_general %57, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %58, %45#1, %45#2, %slice.hp3, %slice.hp4, %45#0, %46 : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
    %5 = chlo.square %4#0 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %7 = stablehlo.multiply %6, %4#0 : tensor<64x64xf32>
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
    %15:2 = "sdy.manual_computation"(%14, %arg0, %arg1, %4#1, %4#2, %4#3, %4#4, %4#5, %arg3, %4#6) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>):
      %21 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %22 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %23 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %24 = stablehlo.subtract %23, %arg6 : tensor<4xi32>
      %25 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %26 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %27 = stablehlo.compare LE, %26, %22, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %28 = stablehlo.compare LT, %22, %25, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %29 = stablehlo.and %27, %28 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %30 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %31 = stablehlo.select %29, %21, %30 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %32 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %33 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %34 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %35 = stablehlo.subtract %34, %arg6 : tensor<4xi32>
      %36 = stablehlo.broadcast_in_dim %34, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %38 = stablehlo.compare LE, %37, %33, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %39 = stablehlo.compare LT, %33, %36, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %40 = stablehlo.and %38, %39 : tensor<4x64x64xi1>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %41 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %42 = stablehlo.select %40, %32, %41 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %43 = stablehlo.dot_general %31, %42, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %44 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %45 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %46 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %47 = stablehlo.subtract %46, %arg6 : tensor<4xi32>
      %48 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %50 = stablehlo.compare LE, %49, %45, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %51 = stablehlo.compare LT, %45, %48, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %52 = stablehlo.and %50, %51 : tensor<4x64x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %54 = stablehlo.select %52, %44, %53 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %55 = stablehlo.dot_general %54, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %56 = stablehlo.multiply %arg11, %55 : tensor<64x32xf32>
      %57 = stablehlo.multiply %55, %arg10 : tensor<64x32xf32>
      %58 = func.call @silu_0(%arg7, %arg8, %arg9, %57) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %82 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %83 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %84 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %85 = stablehlo.subtract %84, %arg6 : tensor<4xi32>
      %86 = stablehlo.broadcast_in_dim %84, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %87 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %88 = stablehlo.compare LE, %87, %83, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %89 = stablehlo.compare LT, %83, %86, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %90 = stablehlo.and %88, %89 : tensor<4x64x64xi1>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %91 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %92 = stablehlo.select %90, %82, %91 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %95 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %96 = stablehlo.subtract %95, %arg6 : tensor<4xi32>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v98.hp5 = "stablehlo.broadcast_in_dim"(%96) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v94.hp6 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v99.hp7 = "stablehlo.compare"(%v98.hp5, %v94.hp6) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v94.hp8 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v97.hp9 = "stablehlo.broadcast_in_dim"(%95) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v100.hp10 = "stablehlo.compare"(%v94.hp8, %v97.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v101.hp11 = "stablehlo.and"(%v99.hp7, %v100.hp10) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp12 = "stablehlo.concatenate"(%58, %56) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v93.hp13 = "stablehlo.broadcast_in_dim"(%concatenate.hp12) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v102.hp14 = "stablehlo.broadcast_in_dim"(%cst_13) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v103.hp15 = "stablehlo.select"(%v101.hp11, %v93.hp13, %v102.hp14) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v104.hp16 = "stablehlo.dot_general"(%92, %v103.hp15) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v105.hp17 = "stablehlo.all_reduce"(%v104.hp16) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %108 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %108 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %107 = "stablehlo.all_reduce"(%43) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %108 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %108 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v105.hp17, %107) : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
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
