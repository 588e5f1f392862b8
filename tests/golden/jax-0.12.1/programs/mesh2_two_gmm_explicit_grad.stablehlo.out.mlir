module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %0:7 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
      %v14.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
      %v15.hp2 = "stablehlo.all_gather"(%v14.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
      %18 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %19 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %20 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %21 = stablehlo.subtract %20, %arg5 : tensor<4xi32>
      %22 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %23 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %24 = stablehlo.compare LE, %23, %19, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %25 = stablehlo.compare LT, %19, %22, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %26 = stablehlo.and %24, %25 : tensor<4x64x64xi1>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %27 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %28 = stablehlo.select %26, %18, %27 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v29.hp3 = "stablehlo.dot_general"(%28, %v15.hp2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp4 = "stablehlo.slice"(%v29.hp3) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp5 = "stablehlo.slice"(%v29.hp3) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %42:3 = func.call @silu(%slice.hp4) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %43 = stablehlo.multiply %42#0, %slice.hp5 : tensor<64x32xf32>
      %44 = stablehlo.broadcast_in_dim %43, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %45 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %46 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %47 = stablehlo.subtract %46, %arg5 : tensor<4xi32>
      %48 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %50 = stablehlo.compare LE, %49, %45, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %51 = stablehlo.compare LT, %45, %48, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %52 = stablehlo.and %50, %51 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %54 = stablehlo.select %52, %44, %53 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %55 = stablehlo.dot_general %54, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %55, %42#1, %42#2, %slice.hp4, %slice.hp5, %42#0, %43 : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
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
    %11:2 = sdy.manual_computation(%10, %arg0, %arg1, %0#1, %0#2, %0#3, %0#4, %0#5, %arg3, %0#6) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] out_shardings=[<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>) {
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
      %v89.hp6 = "stablehlo.broadcast_in_dim"(%87) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v85.hp7 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v90.hp8 = "stablehlo.compare"(%v89.hp6, %v85.hp7) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v85.hp9 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v88.hp10 = "stablehlo.broadcast_in_dim"(%86) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v91.hp11 = "stablehlo.compare"(%v85.hp9, %v88.hp10) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v92.hp12 = "stablehlo.and"(%v90.hp8, %v91.hp11) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp13 = "stablehlo.concatenate"(%49, %47) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v84.hp14 = "stablehlo.broadcast_in_dim"(%concatenate.hp13) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v93.hp15 = "stablehlo.broadcast_in_dim"(%cst_11) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v94.hp16 = "stablehlo.select"(%v92.hp12, %v84.hp14, %v93.hp15) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v95.hp17 = "stablehlo.dot_general"(%83, %v94.hp16) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v98.hp18 = "stablehlo.reduce_scatter"(%v95.hp17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %104 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %104 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %v99.hp19 = "stablehlo.reduce_scatter"(%v98.hp18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %104 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %104 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
      %103 = "stablehlo.all_reduce"(%34) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %104 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %104 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %v99.hp19, %103 : tensor<4x8x64xf32>, tensor<4x32x64xf32>
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
