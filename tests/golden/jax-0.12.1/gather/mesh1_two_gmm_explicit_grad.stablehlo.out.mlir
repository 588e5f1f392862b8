module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %0:7 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v14.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %16 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %17 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %18 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %19 = stablehlo.subtract %18, %arg5 : tensor<4xi32>
      %20 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %21 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %22 = stablehlo.compare LE, %21, %17, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %23 = stablehlo.compare LT, %17, %20, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %24 = stablehlo.and %22, %23 : tensor<4x64x64xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %26 = stablehlo.select %24, %16, %25 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v27.hp2 = "stablehlo.dot_general"(%26, %v14.hp1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp3 = "stablehlo.slice"(%v27.hp2) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp4 = "stablehlo.slice"(%v27.hp2) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %40:3 = func.call @silu(%slice.hp3) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %41 = stablehlo.multiply %40#0, %slice.hp4 : tensor<64x32xf32>
      %42 = stablehlo.broadcast_in_dim %41, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %43 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %44 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %45 = stablehlo.subtract %44, %arg5 : tensor<4xi32>
      %46 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %47 = stablehlo.broadcast_in_dim %45, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %48 = stablehlo.compare LE, %47, %43, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %49 = stablehlo.compare LT, %43, %46, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %50 = stablehlo.and %48, %49 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %51 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %52 = stablehlo.select %50, %42, %51 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %53 = stablehlo.dot_general %52, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %53, %40#1, %40#2, %slice.hp3, %slice.hp4, %40#0, %41 : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
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
      %73 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %74 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %75 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %76 = stablehlo.subtract %75, %arg6 : tensor<4xi32>
      %77 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %78 = stablehlo.broadcast_in_dim %76, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %79 = stablehlo.compare LE, %78, %74, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %80 = stablehlo.compare LT, %74, %77, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %81 = stablehlo.and %79, %80 : tensor<4x64x64xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %82 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %83 = stablehlo.select %81, %73, %82 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %86 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %87 = stablehlo.subtract %86, %arg6 : tensor<4xi32>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v89.hp5 = "stablehlo.broadcast_in_dim"(%87) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v85.hp6 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v90.hp7 = "stablehlo.compare"(%v89.hp5, %v85.hp6) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v85.hp8 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v88.hp9 = "stablehlo.broadcast_in_dim"(%86) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v91.hp10 = "stablehlo.compare"(%v85.hp8, %v88.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v92.hp11 = "stablehlo.and"(%v90.hp7, %v91.hp10) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp12 = "stablehlo.concatenate"(%49, %47) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v84.hp13 = "stablehlo.broadcast_in_dim"(%concatenate.hp12) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v93.hp14 = "stablehlo.broadcast_in_dim"(%cst_11) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v94.hp15 = "stablehlo.select"(%v92.hp11, %v84.hp13, %v93.hp14) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v95.hp16 = "stablehlo.dot_general"(%83, %v94.hp15) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v97.hp17 = "stablehlo.reduce_scatter"(%v95.hp16) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %102 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %102 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x8x64xf32>
      %101 = "stablehlo.all_reduce"(%34) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %102 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %102 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %v97.hp17, %101 : tensor<4x8x64xf32>, tensor<4x32x64xf32>
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
