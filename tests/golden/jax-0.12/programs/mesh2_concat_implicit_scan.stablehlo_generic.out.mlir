"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp", "fsdp_transpose"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> tensor<64x64xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<2x4x64x64xf32>, %arg11: tensor<2x4x32x64xf32>):
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24:5 = "stablehlo.while"(%arg10, %arg11, %arg9, %23, %arg8) ({
    ^bb0(%arg22: tensor<2x4x64x64xf32>, %arg23: tensor<2x4x32x64xf32>, %arg24: tensor<4xi32>, %arg25: tensor<i32>, %arg26: tensor<64x64xf32>):
      %72 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %73 = "stablehlo.compare"(%arg25, %72) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%73) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg12: tensor<2x4x64x64xf32>, %arg13: tensor<2x4x32x64xf32>, %arg14: tensor<4xi32>, %arg15: tensor<i32>, %arg16: tensor<64x64xf32>):
      %25 = "func.call"(%arg12, %arg15) <{callee = @dynamic_index_in_dim}> : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %v28.hp1 = "sdy.sharding_constraint"(%25) <{sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v29.hp2 = "stablehlo.optimization_barrier"(%v28.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v30.hp3 = "sdy.sharding_constraint"(%v29.hp2) <{sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v31.hp4 = "sdy.sharding_constraint"(%v30.hp3) <{sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %26 = "func.call"(%arg13, %arg15) <{callee = @dynamic_index_in_dim_0}> : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %37 = "sdy.manual_computation"(%arg16, %arg14, %v31.hp4, %26) <{manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
      ^bb0(%arg17: tensor<64x64xf32>, %arg18: tensor<4xi32>, %arg19: tensor<4x64x64xf32>, %arg20: tensor<4x64x32xf32>, %arg21: tensor<4x32x64xf32>):
        %42 = "stablehlo.broadcast_in_dim"(%arg17) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %43 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
        %44 = "func.call"(%arg18) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %45 = "stablehlo.subtract"(%44, %arg18) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %46 = "stablehlo.broadcast_in_dim"(%44) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %47 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %48 = "stablehlo.compare"(%47, %43) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %49 = "stablehlo.compare"(%43, %46) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %50 = "stablehlo.and"(%48, %49) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
        %51 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
        %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
        %53 = "stablehlo.select"(%50, %42, %52) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %54 = "stablehlo.dot_general"(%53, %arg19) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %55 = "stablehlo.slice"(%54) <{limit_indices = array<i64: 64, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %56 = "stablehlo.slice"(%54) <{limit_indices = array<i64: 64, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %57 = "func.call"(%55) <{callee = @silu}> : (tensor<64x32xf32>) -> tensor<64x32xf32>
        %58 = "stablehlo.multiply"(%57, %56) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %60 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
        %61 = "func.call"(%arg18) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %62 = "stablehlo.subtract"(%61, %arg18) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %63 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %64 = "stablehlo.broadcast_in_dim"(%62) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %65 = "stablehlo.compare"(%64, %60) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %66 = "stablehlo.compare"(%60, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %67 = "stablehlo.and"(%65, %66) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
        %68 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
        %69 = "stablehlo.broadcast_in_dim"(%68) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
        %70 = "stablehlo.select"(%67, %59, %69) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
        %71 = "stablehlo.dot_general"(%70, %arg21) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        "sdy.return"(%71) : (tensor<64x64xf32>) -> ()
      }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      %38 = "stablehlo.add"(%arg16, %37) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      %39 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %40 = "stablehlo.add"(%arg15, %39) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg12, %arg13, %arg14, %40, %38) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>) -> ()
    }) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>) -> (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>)
    "func.return"(%24#4) : (tensor<64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<2x4x64x64xf32>, %arg7: tensor<i32>):
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %21 = "stablehlo.dynamic_slice"(%arg6, %arg7, %18, %19, %20) <{slice_sizes = array<i64: 1, 4, 64, 64>}> : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %22 = "stablehlo.reshape"(%21) : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    "func.return"(%22) : (tensor<4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<2x4x32x64xf32>, %arg5: tensor<i32>):
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.dynamic_slice"(%arg4, %arg5, %13, %14, %15) <{slice_sizes = array<i64: 1, 4, 32, 64>}> : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %17 = "stablehlo.reshape"(%16) : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    "func.return"(%17) : (tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4xi32>):
    %9 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %11 = "stablehlo.reduce_window"(%arg1, %10) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %12 = "stablehlo.add"(%arg2, %arg3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%12) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%11) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<64x32xf32>) -> tensor<64x32xf32>, res_attrs = [{}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<64x32xf32>):
    %0 = "stablehlo.negate"(%arg0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %1 = "stablehlo.exponential"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %2 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %4 = "stablehlo.add"(%3, %1) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %5 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %7 = "stablehlo.divide"(%6, %4) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %8 = "stablehlo.multiply"(%arg0, %7) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    "func.return"(%8) : (tensor<64x32xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
