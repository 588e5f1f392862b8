"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh_0"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<4x64x64xf32>, %arg11: tensor<4x32x64xf32>):
    %19:7 = "sdy.manual_computation"(%arg8, %arg9, %arg10, %arg11) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>}> ({
    ^bb0(%arg34: tensor<64x64xf32>, %arg35: tensor<4xi32>, %arg36: tensor<4x8x64xf32>, %arg37: tensor<4x32x64xf32>):
      %v146.hp1 = "stablehlo.all_gather"(%arg36) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
      %v147.hp2 = "stablehlo.all_gather"(%v146.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
      %150 = "stablehlo.broadcast_in_dim"(%arg34) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %151 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %152 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %153 = "stablehlo.subtract"(%152, %arg35) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %154 = "stablehlo.broadcast_in_dim"(%152) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %155 = "stablehlo.broadcast_in_dim"(%153) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %156 = "stablehlo.compare"(%155, %151) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %157 = "stablehlo.compare"(%151, %154) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %158 = "stablehlo.and"(%156, %157) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %159 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %160 = "stablehlo.broadcast_in_dim"(%159) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %161 = "stablehlo.select"(%158, %150, %160) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v162.hp3 = "stablehlo.dot_general"(%161, %v147.hp2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp4 = "stablehlo.slice"(%v162.hp3) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp5 = "stablehlo.slice"(%v162.hp3) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %176:3 = "func.call"(%slice.hp4) <{callee = @silu}> : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %177 = "stablehlo.multiply"(%176#0, %slice.hp5) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %178 = "stablehlo.broadcast_in_dim"(%177) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %179 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %180 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %181 = "stablehlo.subtract"(%180, %arg35) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %182 = "stablehlo.broadcast_in_dim"(%180) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %183 = "stablehlo.broadcast_in_dim"(%181) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %184 = "stablehlo.compare"(%183, %179) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %185 = "stablehlo.compare"(%179, %182) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %186 = "stablehlo.and"(%184, %185) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %187 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %188 = "stablehlo.broadcast_in_dim"(%187) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %189 = "stablehlo.select"(%186, %178, %188) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %190 = "stablehlo.dot_general"(%189, %arg37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      "sdy.return"(%190, %176#1, %176#2, %slice.hp4, %slice.hp5, %176#0, %177) : (tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
    %20 = "chlo.square"(%19#0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %21 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %23 = "stablehlo.multiply"(%22, %19#0) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %24 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %25 = "stablehlo.reduce"(%20, %24) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
      %143 = "stablehlo.add"(%arg32, %arg33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%143) : (tensor<f32>) -> ()
    }) : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %26 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.divide"(%25, %26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %28 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %29 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.divide"(%28, %29) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %32 = "stablehlo.multiply"(%31, %23) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %33 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %35 = "stablehlo.divide"(%32, %34) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %36:2 = "sdy.manual_computation"(%35, %arg8, %arg9, %19#1, %19#2, %19#3, %19#4, %19#5, %arg11, %19#6) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
    ^bb0(%arg12: tensor<64x64xf32>, %arg13: tensor<64x64xf32>, %arg14: tensor<4xi32>, %arg15: tensor<64x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<4x32x64xf32>, %arg21: tensor<64x32xf32>):
      %37 = "stablehlo.broadcast_in_dim"(%arg21) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %38 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %39 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %40 = "stablehlo.subtract"(%39, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %41 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %42 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %43 = "stablehlo.compare"(%42, %38) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %44 = "stablehlo.compare"(%38, %41) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %45 = "stablehlo.and"(%43, %44) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %46 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %47 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %48 = "stablehlo.select"(%45, %37, %47) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %49 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %50 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %51 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %52 = "stablehlo.subtract"(%51, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %53 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %54 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %55 = "stablehlo.compare"(%54, %50) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %56 = "stablehlo.compare"(%50, %53) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %57 = "stablehlo.and"(%55, %56) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %58 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %60 = "stablehlo.select"(%57, %49, %59) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %61 = "stablehlo.dot_general"(%48, %60) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %62 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %63 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %64 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %65 = "stablehlo.subtract"(%64, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %66 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %67 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %68 = "stablehlo.compare"(%67, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %69 = "stablehlo.compare"(%63, %66) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %70 = "stablehlo.and"(%68, %69) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %71 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %72 = "stablehlo.broadcast_in_dim"(%71) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %73 = "stablehlo.select"(%70, %62, %72) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %74 = "stablehlo.dot_general"(%73, %arg20) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %75 = "stablehlo.multiply"(%arg19, %74) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %76 = "stablehlo.multiply"(%74, %arg18) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %77 = "func.call"(%arg15, %arg16, %arg17, %76) <{callee = @silu_0}> : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %103 = "stablehlo.broadcast_in_dim"(%arg13) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %104 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %105 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %106 = "stablehlo.subtract"(%105, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %107 = "stablehlo.broadcast_in_dim"(%105) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %108 = "stablehlo.broadcast_in_dim"(%106) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %109 = "stablehlo.compare"(%108, %104) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %110 = "stablehlo.compare"(%104, %107) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %111 = "stablehlo.and"(%109, %110) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %112 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %113 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %114 = "stablehlo.select"(%111, %103, %113) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %117 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %118 = "stablehlo.subtract"(%117, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %124 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %v120.hp6 = "stablehlo.broadcast_in_dim"(%118) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v116.hp7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v121.hp8 = "stablehlo.compare"(%v120.hp6, %v116.hp7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v116.hp9 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v119.hp10 = "stablehlo.broadcast_in_dim"(%117) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v122.hp11 = "stablehlo.compare"(%v116.hp9, %v119.hp10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v123.hp12 = "stablehlo.and"(%v121.hp8, %v122.hp11) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp13 = "stablehlo.concatenate"(%77, %75) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v115.hp14 = "stablehlo.broadcast_in_dim"(%concatenate.hp13) <{broadcast_dimensions = array<i64: 1, 2>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v125.hp15 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v126.hp16 = "stablehlo.select"(%v123.hp12, %v115.hp14, %v125.hp15) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v127.hp17 = "stablehlo.dot_general"(%114, %v126.hp16) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v130.hp18 = "stablehlo.reduce_scatter"(%v127.hp17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>):
        %140 = "stablehlo.add"(%arg26, %arg27) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%140) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %v131.hp19 = "stablehlo.reduce_scatter"(%v130.hp18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %139 = "stablehlo.add"(%arg24, %arg25) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%139) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
      %137 = "stablehlo.all_reduce"(%61) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %138 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%138) : (tensor<f32>) -> ()
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v131.hp19, %137) : (tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    "func.return"(%27, %36#0, %36#1) : (tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<4xi32>):
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %17 = "stablehlo.reduce_window"(%arg5, %16) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg6: tensor<i32>, %arg7: tensor<i32>):
      %18 = "stablehlo.add"(%arg6, %arg7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%18) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%17) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>), res_attrs = [{}, {}, {}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<64x32xf32>):
    %4 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %6 = "stablehlo.negate"(%arg4) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %7 = "stablehlo.exponential"(%6) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %8 = "stablehlo.add"(%5, %7) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %9 = "stablehlo.divide"(%5, %8) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %10 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %12 = "stablehlo.subtract"(%11, %9) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %13 = "stablehlo.multiply"(%9, %12) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %14 = "stablehlo.multiply"(%arg4, %9) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    "func.return"(%14, %13, %9) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>, res_attrs = [{}], sym_name = "silu_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<64x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64x32xf32>, %arg3: tensor<64x32xf32>):
    %0 = "stablehlo.multiply"(%arg2, %arg3) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %1 = "stablehlo.multiply"(%arg3, %arg1) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %2 = "stablehlo.multiply"(%0, %arg0) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %3 = "stablehlo.add"(%1, %2) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    "func.return"(%3) : (tensor<64x32xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
