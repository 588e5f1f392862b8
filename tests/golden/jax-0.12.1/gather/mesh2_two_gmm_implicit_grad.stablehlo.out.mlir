module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
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
      %36 = stablehlo.subtract %35, %arg5 : tensor<4xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %38 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %39 = stablehlo.compare LE, %38, %34, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %40 = stablehlo.compare LT, %34, %37, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %41 = stablehlo.and %39, %40 : tensor<4x64x64xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %43 = stablehlo.select %41, %33, %42 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %v44.hp5 = "stablehlo.dot_general"(%43, %arg6) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp6 = "stablehlo.slice"(%v44.hp5) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp7 = "stablehlo.slice"(%v44.hp5) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %57:3 = func.call @silu(%slice.hp6) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %58 = stablehlo.multiply %57#0, %slice.hp7 : tensor<64x32xf32>
      %59 = stablehlo.broadcast_in_dim %58, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %60 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %61 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
      %62 = stablehlo.subtract %61, %arg5 : tensor<4xi32>
      %63 = stablehlo.broadcast_in_dim %61, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %64 = stablehlo.broadcast_in_dim %62, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %65 = stablehlo.compare LE, %64, %60, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %66 = stablehlo.compare LT, %60, %63, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %67 = stablehlo.and %65, %66 : tensor<4x64x32xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %68 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %69 = stablehlo.select %67, %59, %68 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %70 = stablehlo.dot_general %69, %arg8, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      sdy.return %70, %57#1, %57#2, %slice.hp6, %slice.hp7, %57#0, %58 : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
    }) {out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>} : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
    %11 = chlo.square %10#0 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %13 = stablehlo.multiply %12, %10#0 : tensor<64x64xf32>
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
    %21:2 = "sdy.manual_computation"(%20, %arg0, %arg1, %10#1, %10#2, %10#3, %10#4, %10#5, %arg3, %10#6) ({
    ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x32xf32>, %arg8: tensor<64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<4x32x64xf32>, %arg13: tensor<64x32xf32>):
      %33 = stablehlo.broadcast_in_dim %arg13, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %34 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
      %35 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %36 = stablehlo.subtract %35, %arg6 : tensor<4xi32>
      %37 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %38 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %39 = stablehlo.compare LE, %38, %34, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %40 = stablehlo.compare LT, %34, %37, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %41 = stablehlo.and %39, %40 : tensor<4x64x32xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
      %43 = stablehlo.select %41, %33, %42 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
      %44 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %45 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %46 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %47 = stablehlo.subtract %46, %arg6 : tensor<4xi32>
      %48 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %50 = stablehlo.compare LE, %49, %45, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %51 = stablehlo.compare LT, %45, %48, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %52 = stablehlo.and %50, %51 : tensor<4x64x64xi1>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %54 = stablehlo.select %52, %44, %53 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %55 = stablehlo.dot_general %43, %54, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %56 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %57 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %58 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %59 = stablehlo.subtract %58, %arg6 : tensor<4xi32>
      %60 = stablehlo.broadcast_in_dim %58, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %61 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %62 = stablehlo.compare LE, %61, %57, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %63 = stablehlo.compare LT, %57, %60, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %64 = stablehlo.and %62, %63 : tensor<4x64x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %66 = stablehlo.select %64, %56, %65 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %67 = stablehlo.dot_general %66, %arg12, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %68 = stablehlo.multiply %arg11, %67 : tensor<64x32xf32>
      %69 = stablehlo.multiply %67, %arg10 : tensor<64x32xf32>
      %70 = func.call @silu_0(%arg7, %arg8, %arg9, %69) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %94 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %95 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
      %96 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %97 = stablehlo.subtract %96, %arg6 : tensor<4xi32>
      %98 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %99 = stablehlo.broadcast_in_dim %97, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %100 = stablehlo.compare LE, %99, %95, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %101 = stablehlo.compare LT, %95, %98, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %102 = stablehlo.and %100, %101 : tensor<4x64x64xi1>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %103 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
      %104 = stablehlo.select %102, %94, %103 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
      %107 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
      %108 = stablehlo.subtract %107, %arg6 : tensor<4xi32>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %v110.hp8 = "stablehlo.broadcast_in_dim"(%108) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v106.hp9 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v111.hp10 = "stablehlo.compare"(%v110.hp8, %v106.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v106.hp11 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v109.hp12 = "stablehlo.broadcast_in_dim"(%107) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v112.hp13 = "stablehlo.compare"(%v106.hp11, %v109.hp12) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v113.hp14 = "stablehlo.and"(%v111.hp10, %v112.hp13) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp15 = "stablehlo.concatenate"(%70, %68) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v105.hp16 = "stablehlo.broadcast_in_dim"(%concatenate.hp15) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v114.hp17 = "stablehlo.broadcast_in_dim"(%cst_13) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v115.hp18 = "stablehlo.select"(%v113.hp14, %v105.hp16, %v114.hp17) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v116.hp19 = "stablehlo.dot_general"(%104, %v115.hp18) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v117.hp20 = "stablehlo.all_reduce"(%v116.hp19) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %120 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %120 : tensor<f32>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %119 = "stablehlo.all_reduce"(%55) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
      ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
        %120 = stablehlo.add %arg14, %arg15 : tensor<f32>
        stablehlo.return %120 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v117.hp20, %119) : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
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
