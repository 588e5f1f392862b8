"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh_0"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg4: tensor<64x64xf32>, %arg5: tensor<4xi32>, %arg6: tensor<4x64x64xf32>, %arg7: tensor<4x32x64xf32>):
    %11 = "sdy.manual_computation"(%arg4, %arg5, %arg6, %arg7) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}> ({
    ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<4x8x64xf32>, %arg11: tensor<4x32x64xf32>):
      %v14.hp1 = "stablehlo.all_gather"(%arg10) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x64x64xf32>
      %17 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %18 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %19 = "func.call"(%arg9) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %20 = "stablehlo.subtract"(%19, %arg9) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %21 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %22 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %23 = "stablehlo.compare"(%22, %18) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %24 = "stablehlo.compare"(%18, %21) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %25 = "stablehlo.and"(%23, %24) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %28 = "stablehlo.select"(%25, %17, %27) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %29 = "stablehlo.dot_general"(%28, %v14.hp1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %30 = "stablehlo.slice"(%29) <{limit_indices = array<i64: 64, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %31 = "stablehlo.slice"(%29) <{limit_indices = array<i64: 64, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %32 = "func.call"(%30) <{callee = @silu}> : (tensor<64x32xf32>) -> tensor<64x32xf32>
      %33 = "stablehlo.multiply"(%32, %31) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %35 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %36 = "func.call"(%arg9) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %37 = "stablehlo.subtract"(%36, %arg9) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %38 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %39 = "stablehlo.broadcast_in_dim"(%37) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %40 = "stablehlo.compare"(%39, %35) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %41 = "stablehlo.compare"(%35, %38) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %42 = "stablehlo.and"(%40, %41) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %43 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %44 = "stablehlo.broadcast_in_dim"(%43) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %45 = "stablehlo.select"(%42, %34, %44) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %46 = "stablehlo.dot_general"(%45, %arg11) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      "sdy.return"(%46) : (tensor<64x64xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
    "func.return"(%11) : (tensor<64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4xi32>):
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %9 = "stablehlo.reduce_window"(%arg1, %8) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %10 = "stablehlo.add"(%arg2, %arg3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%10) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%9) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<64x32xf32>) -> tensor<64x32xf32>, res_attrs = [{}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<64x32xf32>):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %2 = "stablehlo.negate"(%arg0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %3 = "stablehlo.exponential"(%2) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %4 = "stablehlo.add"(%1, %3) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %5 = "stablehlo.divide"(%1, %4) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %6 = "stablehlo.multiply"(%arg0, %5) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    "func.return"(%6) : (tensor<64x32xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
