"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh_0"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<4x64x64xf32>, %arg11: tensor<4x32x64xf32>):
    %21:7 = "sdy.manual_computation"(%arg8, %arg9, %arg10, %arg11) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>}> ({
    ^bb0(%arg34: tensor<64x64xf32>, %arg35: tensor<4xi32>, %arg36: tensor<4x8x64xf32>, %arg37: tensor<4x32x64xf32>):
      %v148.hp1 = "stablehlo.all_gather"(%arg36) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
      %v149.hp2 = "stablehlo.all_gather"(%v148.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
      %152 = "stablehlo.broadcast_in_dim"(%arg34) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %153 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %154 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %155 = "stablehlo.subtract"(%154, %arg35) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %156 = "stablehlo.broadcast_in_dim"(%154) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %157 = "stablehlo.broadcast_in_dim"(%155) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %158 = "stablehlo.compare"(%157, %153) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %159 = "stablehlo.compare"(%153, %156) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %160 = "stablehlo.and"(%158, %159) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %161 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %162 = "stablehlo.broadcast_in_dim"(%161) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %163 = "stablehlo.select"(%160, %152, %162) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v164.hp3 = "stablehlo.dot_general"(%163, %v149.hp2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp4 = "stablehlo.slice"(%v164.hp3) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp5 = "stablehlo.slice"(%v164.hp3) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %178:3 = "func.call"(%slice.hp4) <{callee = @silu}> : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %179 = "stablehlo.multiply"(%178#0, %slice.hp5) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %180 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %181 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %182 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %183 = "stablehlo.subtract"(%182, %arg35) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %184 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %185 = "stablehlo.broadcast_in_dim"(%183) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %186 = "stablehlo.compare"(%185, %181) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %187 = "stablehlo.compare"(%181, %184) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %188 = "stablehlo.and"(%186, %187) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %189 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %190 = "stablehlo.broadcast_in_dim"(%189) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %191 = "stablehlo.select"(%188, %180, %190) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %192 = "stablehlo.dot_general"(%191, %arg37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      "sdy.return"(%192, %178#1, %178#2, %slice.hp4, %slice.hp5, %178#0, %179) : (tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>)
    %22 = "chlo.square"(%21#0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %23 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %25 = "stablehlo.multiply"(%24, %21#0) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.reduce"(%22, %26) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
      %145 = "stablehlo.add"(%arg32, %arg33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%145) : (tensor<f32>) -> ()
    }) : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %28 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %29 = "stablehlo.divide"(%27, %28) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %30 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %31 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %32 = "stablehlo.divide"(%30, %31) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %34 = "stablehlo.multiply"(%33, %25) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %35 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %36 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %37 = "stablehlo.divide"(%34, %36) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %38:2 = "sdy.manual_computation"(%37, %arg8, %arg9, %21#1, %21#2, %21#3, %21#4, %21#5, %arg11, %21#6) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
    ^bb0(%arg12: tensor<64x64xf32>, %arg13: tensor<64x64xf32>, %arg14: tensor<4xi32>, %arg15: tensor<64x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<4x32x64xf32>, %arg21: tensor<64x32xf32>):
      %39 = "stablehlo.broadcast_in_dim"(%arg21) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %40 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %41 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %42 = "stablehlo.subtract"(%41, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %43 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %44 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %45 = "stablehlo.compare"(%44, %40) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %46 = "stablehlo.compare"(%40, %43) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %47 = "stablehlo.and"(%45, %46) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %48 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %49 = "stablehlo.broadcast_in_dim"(%48) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %50 = "stablehlo.select"(%47, %39, %49) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %51 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %52 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %53 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %54 = "stablehlo.subtract"(%53, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %55 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %56 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %57 = "stablehlo.compare"(%56, %52) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %58 = "stablehlo.compare"(%52, %55) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %59 = "stablehlo.and"(%57, %58) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %60 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %61 = "stablehlo.broadcast_in_dim"(%60) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %62 = "stablehlo.select"(%59, %51, %61) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %63 = "stablehlo.dot_general"(%50, %62) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %64 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %65 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %66 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %67 = "stablehlo.subtract"(%66, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %68 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %69 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %70 = "stablehlo.compare"(%69, %65) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %71 = "stablehlo.compare"(%65, %68) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %72 = "stablehlo.and"(%70, %71) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %73 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %75 = "stablehlo.select"(%72, %64, %74) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %76 = "stablehlo.dot_general"(%75, %arg20) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %77 = "stablehlo.multiply"(%arg19, %76) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %78 = "stablehlo.multiply"(%76, %arg18) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %79 = "func.call"(%arg15, %arg16, %arg17, %78) <{callee = @silu_0}> : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %105 = "stablehlo.broadcast_in_dim"(%arg13) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %106 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %107 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %108 = "stablehlo.subtract"(%107, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %109 = "stablehlo.broadcast_in_dim"(%107) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %110 = "stablehlo.broadcast_in_dim"(%108) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %111 = "stablehlo.compare"(%110, %106) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %112 = "stablehlo.compare"(%106, %109) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %113 = "stablehlo.and"(%111, %112) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %114 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %116 = "stablehlo.select"(%113, %105, %115) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %119 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %120 = "stablehlo.subtract"(%119, %arg14) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %126 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %v122.hp6 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v118.hp7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v123.hp8 = "stablehlo.compare"(%v122.hp6, %v118.hp7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v118.hp9 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v121.hp10 = "stablehlo.broadcast_in_dim"(%119) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v124.hp11 = "stablehlo.compare"(%v118.hp9, %v121.hp10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v125.hp12 = "stablehlo.and"(%v123.hp8, %v124.hp11) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp13 = "stablehlo.concatenate"(%79, %77) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v117.hp14 = "stablehlo.broadcast_in_dim"(%concatenate.hp13) <{broadcast_dimensions = array<i64: 1, 2>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v127.hp15 = "stablehlo.broadcast_in_dim"(%126) <{broadcast_dimensions = array<i64>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v128.hp16 = "stablehlo.select"(%v125.hp12, %v117.hp14, %v127.hp15) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v129.hp17 = "stablehlo.dot_general"(%116, %v128.hp16) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v132.hp18 = "stablehlo.reduce_scatter"(%v129.hp17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>):
        %142 = "stablehlo.add"(%arg26, %arg27) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%142) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %v133.hp19 = "stablehlo.reduce_scatter"(%v132.hp18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp_transpose">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %141 = "stablehlo.add"(%arg24, %arg25) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%141) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
      %139 = "stablehlo.all_reduce"(%63) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">, #stablehlo.axis_ref<name = "fsdp_transpose">]>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %140 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%140) : (tensor<f32>) -> ()
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v133.hp19, %139) : (tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<4xi32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<4x32x64xf32>, tensor<512x32xf32>) -> (tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    "func.return"(%29, %38#0, %38#1) : (tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<4xi32>):
    %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %19 = "stablehlo.reduce_window"(%arg5, %18) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg6: tensor<i32>, %arg7: tensor<i32>):
      %20 = "stablehlo.add"(%arg6, %arg7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%20) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%19) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>), res_attrs = [{}, {}, {}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<64x32xf32>):
    %4 = "stablehlo.negate"(%arg4) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %5 = "stablehlo.exponential"(%4) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %6 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %8 = "stablehlo.add"(%7, %5) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %9 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %11 = "stablehlo.divide"(%10, %8) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %12 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x32xf32>
    %14 = "stablehlo.subtract"(%13, %11) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %15 = "stablehlo.multiply"(%11, %14) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    %16 = "stablehlo.multiply"(%arg4, %11) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    "func.return"(%16, %15, %11) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> ()
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
