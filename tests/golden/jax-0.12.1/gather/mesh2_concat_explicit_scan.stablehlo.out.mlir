module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=2, "fsdp_transpose"=4]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp", "fsdp_transpose"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<64x64xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg2, %iterArg_0 = %arg3, %iterArg_1 = %arg1, %iterArg_2 = %c, %iterArg_3 = %arg0) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>
    cond {
      %c_4 = stablehlo.constant dense<2> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_2, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %2 = func.call @dynamic_index_in_dim_0(%iterArg_0, %iterArg_2) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %3 = sdy.manual_computation(%iterArg_3, %iterArg_1, %1, %2) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"fsdp", "fsdp_transpose"} (%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
        %v8.hp1 = "stablehlo.all_gather"(%arg6) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
        %v9.hp2 = "stablehlo.all_gather"(%v8.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
        %13 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %14 = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
        %15 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %16 = stablehlo.subtract %15, %arg5 : tensor<4xi32>
        %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %18 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %19 = stablehlo.compare LE, %18, %14, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %20 = stablehlo.compare LT, %14, %17, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %21 = stablehlo.and %19, %20 : tensor<4x64x64xi1>
        %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %22 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
        %23 = stablehlo.select %21, %13, %22 : tensor<4x64x64xi1>, tensor<4x64x64xf32>
        %24 = stablehlo.dot_general %23, %v9.hp2, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %25 = stablehlo.slice %24 [0:64, 0:32] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %26 = stablehlo.slice %24 [0:64, 32:64] : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %27 = func.call @silu(%25) : (tensor<64x32xf32>) -> tensor<64x32xf32>
        %28 = stablehlo.multiply %27, %26 : tensor<64x32xf32>
        %29 = stablehlo.broadcast_in_dim %28, dims = [1, 2] : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %30 = stablehlo.iota dim = 1 : tensor<4x64x32xi32>
        %31 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %32 = stablehlo.subtract %31, %arg5 : tensor<4xi32>
        %33 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %34 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %35 = stablehlo.compare LE, %34, %30, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %36 = stablehlo.compare LT, %30, %33, SIGNED : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %37 = stablehlo.and %35, %36 : tensor<4x64x32xi1>
        %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %38 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x64x32xf32>
        %39 = stablehlo.select %37, %29, %38 : tensor<4x64x32xi1>, tensor<4x64x32xf32>
        %40 = stablehlo.dot_general %39, %arg7, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        sdy.return %40 : tensor<64x64xf32>
      } : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      %4 = stablehlo.add %iterArg_3, %3 : tensor<64x64xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_2, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %5, %4 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>
    }
    return %0#4 : tensor<64x64xf32>
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
  func.func private @silu(%arg0: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %1 = stablehlo.negate %arg0 : tensor<64x32xf32>
    %2 = stablehlo.exponential %1 : tensor<64x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<64x32xf32>
    %4 = stablehlo.divide %0, %3 : tensor<64x32xf32>
    %5 = stablehlo.multiply %arg0, %4 : tensor<64x32xf32>
    return %5 : tensor<64x32xf32>
  }
}
