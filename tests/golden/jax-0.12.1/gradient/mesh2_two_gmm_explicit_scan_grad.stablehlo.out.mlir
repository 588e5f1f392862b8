module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<2x4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x64x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x64x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x32x64x32xf32>
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
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x512x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9:14 = stablehlo.while(%iterArg = %arg2, %iterArg_16 = %arg3, %iterArg_17 = %arg1, %iterArg_18 = %c, %iterArg_19 = %arg0, %iterArg_20 = %0, %iterArg_21 = %1, %iterArg_22 = %2, %iterArg_23 = %3, %iterArg_24 = %4, %iterArg_25 = %5, %iterArg_26 = %6, %iterArg_27 = %7, %iterArg_28 = %8) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    cond {
      %c_29 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.compare LT, %iterArg_18, %c_29, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %21 : tensor<i1>
    } do {
      %21 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_18) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %22 = func.call @dynamic_index_in_dim_0(%iterArg_16, %iterArg_18) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %23:9 = sdy.manual_computation(%iterArg_17, %iterArg_19, %21, %22) in_shardings=[<@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<4xi32>, %arg5: tensor<64x64xf32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
        %v37.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
        %v38.hp2 = "stablehlo.all_gather"(%v37.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
        %slice.hp7 = "stablehlo.slice"(%v38.hp2) {start_indices = array<i64: 0, 0, 32>, limit_indices = array<i64: 4, 64, 64>, strides = array<i64: 1, 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x32xf32>
        %slice.hp6 = "stablehlo.slice"(%v38.hp2) {start_indices = array<i64: 0, 0, 0>, limit_indices = array<i64: 4, 64, 32>, strides = array<i64: 1, 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x32xf32>
        %41 = stablehlo.broadcast_in_dim %arg5, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %42 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %43 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %44 = stablehlo.subtract %43, %arg4 : tensor<4xi32>
        %45 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %46 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %47 = stablehlo.compare LE, %46, %42, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %48 = stablehlo.compare LT, %42, %45, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %49 = stablehlo.and %47, %48 : tensor<4x64x64xi1>
        %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %50 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %51 = stablehlo.select %49, %41, %50 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %v52.hp3 = "stablehlo.dot_general"(%51, %v38.hp2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %slice.hp4 = "stablehlo.slice"(%v52.hp3) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %slice.hp5 = "stablehlo.slice"(%v52.hp3) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %65:3 = func.call @silu(%slice.hp4) : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
        %66 = stablehlo.multiply %65#0, %slice.hp5 : tensor<64x32xf32>
        %67 = stablehlo.broadcast_in_dim %66, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %68 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %69 = func.call @cumsum(%arg4) : (tensor<4xi32>) -> tensor<4xi32>
        %70 = stablehlo.subtract %69, %arg4 : tensor<4xi32>
        %71 = stablehlo.broadcast_in_dim %69, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %72 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %73 = stablehlo.compare LE, %72, %68, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %74 = stablehlo.compare LT, %68, %71, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %75 = stablehlo.and %73, %74 : tensor<4x64x32xi1>
        %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %76 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %77 = stablehlo.select %75, %67, %76 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %78 = stablehlo.dot_general %77, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        sdy.return %78, %slice.hp6, %slice.hp7, %65#1, %65#2, %slice.hp4, %slice.hp5, %65#0, %66 : tensor<64x64xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
      } : (tensor<4xi32>, tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
      %24 = stablehlo.add %iterArg_19, %23#0 : tensor<64x64xf32>
      %25 = func.call @dynamic_update_index_in_dim(%iterArg_20, %23#1, %iterArg_18) : (tensor<2x32x64x32xf32>, tensor<32x64x32xf32>, tensor<i32>) -> tensor<2x32x64x32xf32>
      %26 = func.call @dynamic_update_index_in_dim_1(%iterArg_21, %iterArg_19, %iterArg_18) : (tensor<2x64x64xf32>, tensor<64x64xf32>, tensor<i32>) -> tensor<2x64x64xf32>
      %27 = func.call @dynamic_update_index_in_dim(%iterArg_22, %23#2, %iterArg_18) : (tensor<2x32x64x32xf32>, tensor<32x64x32xf32>, tensor<i32>) -> tensor<2x32x64x32xf32>
      %28 = func.call @dynamic_update_index_in_dim_2(%iterArg_23, %23#3, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %29 = func.call @dynamic_update_index_in_dim_2(%iterArg_24, %23#4, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %30 = func.call @dynamic_update_index_in_dim_2(%iterArg_25, %23#5, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %31 = func.call @dynamic_update_index_in_dim_2(%iterArg_26, %23#6, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %32 = func.call @dynamic_update_index_in_dim_2(%iterArg_27, %23#7, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %33 = func.call @dynamic_update_index_in_dim_2(%iterArg_28, %23#8, %iterArg_18) : (tensor<2x512x32xf32>, tensor<512x32xf32>, tensor<i32>) -> tensor<2x512x32xf32>
      %c_29 = stablehlo.constant dense<1> : tensor<i32>
      %34 = stablehlo.add %iterArg_18, %c_29 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_16, %iterArg_17, %34, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>
    }
    %10 = chlo.square %9#4 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %12 = stablehlo.multiply %11, %9#4 : tensor<64x64xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_9) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_10 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %14 = stablehlo.divide %13, %cst_10 : tensor<f32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_12 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %15 = stablehlo.divide %cst_11, %cst_12 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<64x64xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %20:15 = stablehlo.while(%iterArg = %9#5, %iterArg_16 = %9#6, %iterArg_17 = %9#7, %iterArg_18 = %9#8, %iterArg_19 = %9#9, %iterArg_20 = %9#10, %iterArg_21 = %9#11, %iterArg_22 = %9#12, %iterArg_23 = %arg3, %iterArg_24 = %9#13, %iterArg_25 = %arg1, %iterArg_26 = %c_15, %iterArg_27 = %17, %iterArg_28 = %18, %iterArg_29 = %19) : tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    cond {
      %c_30 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.compare LT, %iterArg_26, %c_30, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %21 : tensor<i1>
    } do {
      %c_30 = stablehlo.constant dense<2> : tensor<i32>
      %21 = stablehlo.subtract %c_30, %iterArg_26 : tensor<i32>
      %c_31 = stablehlo.constant dense<1> : tensor<i32>
      %22 = stablehlo.subtract %21, %c_31 : tensor<i32>
      %23 = func.call @dynamic_index_in_dim_3(%iterArg, %22) : (tensor<2x32x64x32xf32>, tensor<i32>) -> tensor<32x64x32xf32>
      %24 = func.call @dynamic_index_in_dim_4(%iterArg_16, %22) : (tensor<2x64x64xf32>, tensor<i32>) -> tensor<64x64xf32>
      %25 = func.call @dynamic_index_in_dim_3(%iterArg_17, %22) : (tensor<2x32x64x32xf32>, tensor<i32>) -> tensor<32x64x32xf32>
      %26 = func.call @dynamic_index_in_dim_5(%iterArg_18, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %27 = func.call @dynamic_index_in_dim_5(%iterArg_19, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %28 = func.call @dynamic_index_in_dim_5(%iterArg_20, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %29 = func.call @dynamic_index_in_dim_5(%iterArg_21, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %30 = func.call @dynamic_index_in_dim_5(%iterArg_22, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %31 = func.call @dynamic_index_in_dim_0(%iterArg_23, %22) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %32 = func.call @dynamic_index_in_dim_5(%iterArg_24, %22) : (tensor<2x512x32xf32>, tensor<i32>) -> tensor<512x32xf32>
      %cst_32 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
      %34 = stablehlo.divide %iterArg_27, %33 : tensor<64x64xf32>
      %35:3 = sdy.manual_computation(%34, %23, %iterArg_25, %24, %25, %26, %27, %28, %29, %30, %31, %32) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4x64x32xf32>, %arg6: tensor<4xi32>, %arg7: tensor<64x64xf32>, %arg8: tensor<4x64x32xf32>, %arg9: tensor<64x32xf32>, %arg10: tensor<64x32xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<64x32xf32>, %arg13: tensor<64x32xf32>, %arg14: tensor<4x32x64xf32>, %arg15: tensor<64x32xf32>) {
        %40 = stablehlo.broadcast_in_dim %arg15, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %41 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %42 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %43 = stablehlo.subtract %42, %arg6 : tensor<4xi32>
        %44 = stablehlo.broadcast_in_dim %42, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %45 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %46 = stablehlo.compare LE, %45, %41, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %47 = stablehlo.compare LT, %41, %44, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %48 = stablehlo.and %46, %47 : tensor<4x64x32xi1>
        %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %49 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %50 = stablehlo.select %48, %40, %49 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %51 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %52 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %53 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %54 = stablehlo.subtract %53, %arg6 : tensor<4xi32>
        %55 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %56 = stablehlo.broadcast_in_dim %54, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %57 = stablehlo.compare LE, %56, %52, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %58 = stablehlo.compare LT, %52, %55, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %59 = stablehlo.and %57, %58 : tensor<4x64x64xi1>
        %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %60 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %61 = stablehlo.select %59, %51, %60 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %62 = stablehlo.dot_general %50, %61, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
        %63 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %64 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %65 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %66 = stablehlo.subtract %65, %arg6 : tensor<4xi32>
        %67 = stablehlo.broadcast_in_dim %65, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %68 = stablehlo.broadcast_in_dim %66, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %69 = stablehlo.compare LE, %68, %64, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %70 = stablehlo.compare LT, %64, %67, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %71 = stablehlo.and %69, %70 : tensor<4x64x64xi1>
        %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %72 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %73 = stablehlo.select %71, %63, %72 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %74 = stablehlo.dot_general %73, %arg14, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
        %75 = stablehlo.multiply %arg13, %74 : tensor<64x32xf32>
        %76 = stablehlo.multiply %74, %arg12 : tensor<64x32xf32>
        %77 = func.call @silu_6(%arg9, %arg10, %arg11, %76) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %101 = stablehlo.broadcast_in_dim %75, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %102 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %103 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %104 = stablehlo.subtract %103, %arg6 : tensor<4xi32>
        %105 = stablehlo.broadcast_in_dim %103, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %106 = stablehlo.broadcast_in_dim %104, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %107 = stablehlo.compare LE, %106, %102, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %108 = stablehlo.compare LT, %102, %105, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %109 = stablehlo.and %107, %108 : tensor<4x64x32xi1>
        %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %110 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %111 = stablehlo.select %109, %101, %110 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %112 = stablehlo.dot_general %111, %arg8, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<64x64xf32>
        %113 = stablehlo.broadcast_in_dim %arg7, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %114 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %115 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %116 = stablehlo.subtract %115, %arg6 : tensor<4xi32>
        %117 = stablehlo.broadcast_in_dim %115, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %118 = stablehlo.broadcast_in_dim %116, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %119 = stablehlo.compare LE, %118, %114, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %120 = stablehlo.compare LT, %114, %117, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %121 = stablehlo.and %119, %120 : tensor<4x64x64xi1>
        %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %122 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %123 = stablehlo.select %121, %113, %122 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %126 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %127 = stablehlo.subtract %126, %arg6 : tensor<4xi32>
        %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %v129.hp8 = "stablehlo.broadcast_in_dim"(%127) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %v125.hp9 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
        %v130.hp10 = "stablehlo.compare"(%v129.hp8, %v125.hp9) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %v125.hp11 = "stablehlo.iota"() {iota_dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
        %v128.hp12 = "stablehlo.broadcast_in_dim"(%126) {broadcast_dimensions = array<i64: 0>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %v131.hp13 = "stablehlo.compare"(%v125.hp11, %v128.hp12) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}, comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %v132.hp14 = "stablehlo.and"(%v130.hp10, %v131.hp13) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
        %concatenate.hp15 = "stablehlo.concatenate"(%77, %75) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
        %v124.hp16 = "stablehlo.broadcast_in_dim"(%concatenate.hp15) {broadcast_dimensions = array<i64: 1, 2>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %v133.hp17 = "stablehlo.broadcast_in_dim"(%cst_41) {broadcast_dimensions = array<i64>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
        %v134.hp18 = "stablehlo.select"(%v132.hp14, %v124.hp16, %v133.hp17) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %v135.hp19 = "stablehlo.dot_general"(%123, %v134.hp18) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %v151.hp20 = "stablehlo.reduce_scatter"(%v135.hp19) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
          %158 = stablehlo.add %arg16, %arg17 : tensor<f32>
          stablehlo.return %158 : tensor<f32>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
        %v152.hp21 = "stablehlo.reduce_scatter"(%v151.hp20) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
          %158 = stablehlo.add %arg16, %arg17 : tensor<f32>
          stablehlo.return %158 : tensor<f32>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
        %136 = stablehlo.broadcast_in_dim %77, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %137 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %138 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %139 = stablehlo.subtract %138, %arg6 : tensor<4xi32>
        %140 = stablehlo.broadcast_in_dim %138, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %141 = stablehlo.broadcast_in_dim %139, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %142 = stablehlo.compare LE, %141, %137, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %143 = stablehlo.compare LT, %137, %140, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %144 = stablehlo.and %142, %143 : tensor<4x64x32xi1>
        %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %145 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %146 = stablehlo.select %144, %136, %145 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %147 = stablehlo.dot_general %146, %arg5, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<64x64xf32>
        %148 = stablehlo.add %112, %147 : tensor<64x64xf32>
        %156 = "stablehlo.all_reduce"(%148) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
          %158 = stablehlo.add %arg16, %arg17 : tensor<f32>
          stablehlo.return %158 : tensor<f32>
        }) : (tensor<64x64xf32>) -> tensor<64x64xf32>
        %157 = "stablehlo.all_reduce"(%62) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
        ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
          %158 = stablehlo.add %arg16, %arg17 : tensor<f32>
          stablehlo.return %158 : tensor<f32>
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        sdy.return %156, %v152.hp21, %157 : tensor<64x64xf32>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
      } : (tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<4xi32>, tensor<64x64xf32>, tensor<32x64x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<64x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %36 = stablehlo.add %iterArg_27, %35#0 : tensor<64x64xf32>
      %37 = func.call @dynamic_update_index_in_dim_7(%iterArg_28, %35#1, %22) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %38 = func.call @dynamic_update_index_in_dim_8(%iterArg_29, %35#2, %22) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_33 = stablehlo.constant dense<1> : tensor<i32>
      %39 = stablehlo.add %iterArg_26, %c_33 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %39, %36, %37, %38 : tensor<2x32x64x32xf32>, tensor<2x64x64xf32>, tensor<2x32x64x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x512x32xf32>, tensor<2x4x32x64xf32>, tensor<2x512x32xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    }
    return %14, %20#13, %20#14 : tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x32x64x32xf32>, %arg1: tensor<32x64x32xf32>, %arg2: tensor<i32>) -> tensor<2x32x64x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x64x32xf32>) -> tensor<1x32x64x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x64x32xf32>, tensor<1x32x64x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x32xf32>
    return %1 : tensor<2x32x64x32xf32>
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
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<2x32x64x32xf32>, %arg1: tensor<i32>) -> tensor<32x64x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 64, 32] : (tensor<2x32x64x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x64x32xf32>) -> tensor<32x64x32xf32>
    return %1 : tensor<32x64x32xf32>
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
