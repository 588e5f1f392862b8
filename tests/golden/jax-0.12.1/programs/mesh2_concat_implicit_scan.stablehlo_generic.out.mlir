"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp", "fsdp_transpose"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> tensor<64x64xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<2x4x64x64xf32>, %arg11: tensor<2x4x32x64xf32>):
    %21 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %22:5 = "stablehlo.while"(%arg10, %arg11, %arg9, %21, %arg8) ({
    ^bb0(%arg22: tensor<2x4x64x64xf32>, %arg23: tensor<2x4x32x64xf32>, %arg24: tensor<4xi32>, %arg25: tensor<i32>, %arg26: tensor<64x64xf32>):
      %70 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %71 = "stablehlo.compare"(%arg25, %70) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%71) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg12: tensor<2x4x64x64xf32>, %arg13: tensor<2x4x32x64xf32>, %arg14: tensor<4xi32>, %arg15: tensor<i32>, %arg16: tensor<64x64xf32>):
      %23 = "func.call"(%arg12, %arg15) <{callee = @dynamic_index_in_dim}> : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %v26.hp1 = "sdy.sharding_constraint"(%23) <{sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v27.hp2 = "stablehlo.optimization_barrier"(%v26.hp1) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v28.hp3 = "sdy.sharding_constraint"(%v27.hp2) <{sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v29.hp4 = "sdy.sharding_constraint"(%v28.hp3) <{sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %24 = "func.call"(%arg13, %arg15) <{callee = @dynamic_index_in_dim_0}> : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %35 = "sdy.manual_computation"(%arg16, %arg14, %v29.hp4, %24) <{manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
      ^bb0(%arg17: tensor<64x64xf32>, %arg18: tensor<4xi32>, %arg19: tensor<4x64x64xf32>, %arg20: tensor<4x64x32xf32>, %arg21: tensor<4x32x64xf32>):
        %40 = "stablehlo.broadcast_in_dim"(%arg17) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
        %41 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
        %42 = "func.call"(%arg18) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %43 = "stablehlo.subtract"(%42, %arg18) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %44 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %45 = "stablehlo.broadcast_in_dim"(%43) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
        %46 = "stablehlo.compare"(%45, %41) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %47 = "stablehlo.compare"(%41, %44) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
        %48 = "stablehlo.and"(%46, %47) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
        %49 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
        %50 = "stablehlo.broadcast_in_dim"(%49) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
        %51 = "stablehlo.select"(%48, %40, %50) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
        %52 = "stablehlo.dot_general"(%51, %arg19) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
        %53 = "stablehlo.slice"(%52) <{limit_indices = array<i64: 64, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %54 = "stablehlo.slice"(%52) <{limit_indices = array<i64: 64, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<64x64xf32>) -> tensor<64x32xf32>
        %55 = "func.call"(%53) <{callee = @silu}> : (tensor<64x32xf32>) -> tensor<64x32xf32>
        %56 = "stablehlo.multiply"(%55, %54) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %57 = "stablehlo.broadcast_in_dim"(%56) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
        %58 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
        %59 = "func.call"(%arg18) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %60 = "stablehlo.subtract"(%59, %arg18) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %61 = "stablehlo.broadcast_in_dim"(%59) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %62 = "stablehlo.broadcast_in_dim"(%60) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
        %63 = "stablehlo.compare"(%62, %58) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %64 = "stablehlo.compare"(%58, %61) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
        %65 = "stablehlo.and"(%63, %64) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
        %66 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
        %67 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
        %68 = "stablehlo.select"(%65, %57, %67) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
        %69 = "stablehlo.dot_general"(%68, %arg21) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
        "sdy.return"(%69) : (tensor<64x64xf32>) -> ()
      }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      %36 = "stablehlo.add"(%arg16, %35) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      %37 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %38 = "stablehlo.add"(%arg15, %37) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg12, %arg13, %arg14, %38, %36) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>) -> ()
    }) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>) -> (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<4xi32>, tensor<i32>, tensor<64x64xf32>)
    "func.return"(%22#4) : (tensor<64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<2x4x64x64xf32>, %arg7: tensor<i32>):
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.dynamic_slice"(%arg6, %arg7, %16, %17, %18) <{slice_sizes = array<i64: 1, 4, 64, 64>}> : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %20 = "stablehlo.reshape"(%19) : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    "func.return"(%20) : (tensor<4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<2x4x32x64xf32>, %arg5: tensor<i32>):
    %11 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %12 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.dynamic_slice"(%arg4, %arg5, %11, %12, %13) <{slice_sizes = array<i64: 1, 4, 32, 64>}> : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %15 = "stablehlo.reshape"(%14) : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    "func.return"(%15) : (tensor<4x32x64xf32>) -> ()
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
