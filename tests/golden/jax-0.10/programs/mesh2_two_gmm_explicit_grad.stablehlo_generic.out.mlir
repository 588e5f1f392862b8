"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=2, "fsdp_transpose"=4]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 2 : i64}, {name = "fsdp_transpose", size = 4 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}], function_type = (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<f32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<64x64xf32>, %arg9: tensor<4xi32>, %arg10: tensor<4x64x64xf32>, %arg11: tensor<4x32x64xf32>):
    %21:7 = "sdy.manual_computation"(%arg8, %arg9, %arg10, %arg11) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}]>]>}> ({
    ^bb0(%arg34: tensor<64x64xf32>, %arg35: tensor<4xi32>, %arg36: tensor<4x8x64xf32>, %arg37: tensor<4x32x64xf32>):
      %v176.hp1 = "stablehlo.all_gather"(%arg36) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xf32>) -> tensor<4x32x64xf32>
      %v177.hp2 = "stablehlo.all_gather"(%v176.hp1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x64x64xf32>
      %180 = "stablehlo.broadcast_in_dim"(%arg34) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %181 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %182 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %183 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %184 = "stablehlo.broadcast_in_dim"(%183) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %185 = "stablehlo.slice"(%184) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %186 = "stablehlo.slice"(%182) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %187 = "stablehlo.concatenate"(%185, %186) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %188 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %189 = "stablehlo.broadcast_in_dim"(%187) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %190 = "stablehlo.compare"(%189, %181) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %191 = "stablehlo.compare"(%181, %188) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %192 = "stablehlo.and"(%190, %191) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %193 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %194 = "stablehlo.broadcast_in_dim"(%193) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %195 = "stablehlo.select"(%192, %180, %194) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v196.hp3 = "stablehlo.dot_general"(%195, %v177.hp2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<64x64xf32>
      %slice.hp4 = "stablehlo.slice"(%v196.hp3) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 64, 32>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %slice.hp5 = "stablehlo.slice"(%v196.hp3) {start_indices = array<i64: 0, 32>, limit_indices = array<i64: 64, 64>, strides = array<i64: 1, 1>, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<64x64xf32>) -> tensor<64x32xf32>
      %214:3 = "func.call"(%slice.hp4) <{callee = @silu}> : (tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      %215 = "stablehlo.multiply"(%214#0, %slice.hp5) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %216 = "stablehlo.broadcast_in_dim"(%215) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %217 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %218 = "func.call"(%arg35) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %219 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %220 = "stablehlo.broadcast_in_dim"(%219) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %221 = "stablehlo.slice"(%220) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %222 = "stablehlo.slice"(%218) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %223 = "stablehlo.concatenate"(%221, %222) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %224 = "stablehlo.broadcast_in_dim"(%218) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %225 = "stablehlo.broadcast_in_dim"(%223) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %226 = "stablehlo.compare"(%225, %217) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %227 = "stablehlo.compare"(%217, %224) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %228 = "stablehlo.and"(%226, %227) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %229 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %230 = "stablehlo.broadcast_in_dim"(%229) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %231 = "stablehlo.select"(%228, %216, %230) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %232 = "stablehlo.dot_general"(%231, %arg37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<64x64xf32>
      "sdy.return"(%214#1, %214#2, %slice.hp4, %slice.hp5, %214#0, %215, %232) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x64xf32>) -> ()
    }) : (tensor<64x64xf32>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<512x32xf32>, tensor<64x64xf32>)
    %22 = "chlo.square"(%21#6) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %23 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %25 = "stablehlo.multiply"(%24, %21#6) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.reduce"(%22, %26) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
      %173 = "stablehlo.add"(%arg32, %arg33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%173) : (tensor<f32>) -> ()
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
    %38:2 = "sdy.manual_computation"(%37, %arg8, %arg9, %21#0, %21#1, %21#2, %21#3, %21#4, %arg11, %21#5) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"fsdp", "fsdp_transpose"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp", "fsdp_transpose"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
    ^bb0(%arg12: tensor<64x64xf32>, %arg13: tensor<64x64xf32>, %arg14: tensor<4xi32>, %arg15: tensor<64x32xf32>, %arg16: tensor<64x32xf32>, %arg17: tensor<64x32xf32>, %arg18: tensor<64x32xf32>, %arg19: tensor<64x32xf32>, %arg20: tensor<4x32x64xf32>, %arg21: tensor<64x32xf32>):
      %39 = "stablehlo.broadcast_in_dim"(%arg21) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x32xf32>) -> tensor<4x64x32xf32>
      %40 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x32xi32>
      %41 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %42 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %44 = "stablehlo.slice"(%43) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %45 = "stablehlo.slice"(%41) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %46 = "stablehlo.concatenate"(%44, %45) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %47 = "stablehlo.broadcast_in_dim"(%41) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %48 = "stablehlo.broadcast_in_dim"(%46) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x32xi32>
      %49 = "stablehlo.compare"(%48, %40) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %50 = "stablehlo.compare"(%40, %47) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x32xi32>, tensor<4x64x32xi32>) -> tensor<4x64x32xi1>
      %51 = "stablehlo.and"(%49, %50) : (tensor<4x64x32xi1>, tensor<4x64x32xi1>) -> tensor<4x64x32xi1>
      %52 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %53 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x32xf32>
      %54 = "stablehlo.select"(%51, %39, %53) : (tensor<4x64x32xi1>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
      %55 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %56 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %57 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %58 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %60 = "stablehlo.slice"(%59) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %61 = "stablehlo.slice"(%57) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %62 = "stablehlo.concatenate"(%60, %61) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %63 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %64 = "stablehlo.broadcast_in_dim"(%62) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %65 = "stablehlo.compare"(%64, %56) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %66 = "stablehlo.compare"(%56, %63) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %67 = "stablehlo.and"(%65, %66) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %68 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %69 = "stablehlo.broadcast_in_dim"(%68) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %70 = "stablehlo.select"(%67, %55, %69) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %71 = "stablehlo.dot_general"(%54, %70) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x32xf32>, tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %72 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %73 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %74 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %75 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %76 = "stablehlo.broadcast_in_dim"(%75) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %77 = "stablehlo.slice"(%76) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %78 = "stablehlo.slice"(%74) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %79 = "stablehlo.concatenate"(%77, %78) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %80 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %81 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %82 = "stablehlo.compare"(%81, %73) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %83 = "stablehlo.compare"(%73, %80) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %84 = "stablehlo.and"(%82, %83) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %85 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %86 = "stablehlo.broadcast_in_dim"(%85) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %87 = "stablehlo.select"(%84, %72, %86) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %88 = "stablehlo.dot_general"(%87, %arg20) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> tensor<64x32xf32>
      %89 = "stablehlo.multiply"(%arg19, %88) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %90 = "stablehlo.multiply"(%88, %arg18) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %91 = "func.call"(%arg15, %arg16, %arg17, %90) <{callee = @silu_0}> : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
      %125 = "stablehlo.broadcast_in_dim"(%arg13) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %126 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x64x64xi32>
      %127 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %128 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %129 = "stablehlo.broadcast_in_dim"(%128) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %130 = "stablehlo.slice"(%129) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %131 = "stablehlo.slice"(%127) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %132 = "stablehlo.concatenate"(%130, %131) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %133 = "stablehlo.broadcast_in_dim"(%127) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %134 = "stablehlo.broadcast_in_dim"(%132) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %135 = "stablehlo.compare"(%134, %126) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %136 = "stablehlo.compare"(%126, %133) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %137 = "stablehlo.and"(%135, %136) : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %138 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %139 = "stablehlo.broadcast_in_dim"(%138) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x64x64xf32>
      %140 = "stablehlo.select"(%137, %125, %139) : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %143 = "func.call"(%arg14) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %144 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %145 = "stablehlo.broadcast_in_dim"(%144) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %146 = "stablehlo.slice"(%145) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %147 = "stablehlo.slice"(%143) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %148 = "stablehlo.concatenate"(%146, %147) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %154 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %v150.hp6 = "stablehlo.broadcast_in_dim"(%148) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v142.hp7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v151.hp8 = "stablehlo.compare"(%v150.hp6, %v142.hp7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v142.hp9 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : () -> tensor<4x64x64xi32>
      %v149.hp10 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64: 0>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4xi32>) -> tensor<4x64x64xi32>
      %v152.hp11 = "stablehlo.compare"(%v142.hp9, %v149.hp10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
      %v153.hp12 = "stablehlo.and"(%v151.hp8, %v152.hp11) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xi1>) -> tensor<4x64x64xi1>
      %concatenate.hp13 = "stablehlo.concatenate"(%91, %89) {dimension = 1 : i64, mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
      %v141.hp14 = "stablehlo.broadcast_in_dim"(%concatenate.hp13) <{broadcast_dimensions = array<i64: 1, 2>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
      %v155.hp15 = "stablehlo.broadcast_in_dim"(%154) <{broadcast_dimensions = array<i64>}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<f32>) -> tensor<4x64x64xf32>
      %v156.hp16 = "stablehlo.select"(%v153.hp12, %v141.hp14, %v155.hp15) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xi1>, tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v157.hp17 = "stablehlo.dot_general"(%140, %v156.hp16) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
      %v160.hp18 = "stablehlo.reduce_scatter"(%v157.hp17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg26: tensor<f32>, %arg27: tensor<f32>):
        %170 = "stablehlo.add"(%arg26, %arg27) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%170) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xf32>) -> tensor<4x32x64xf32>
      %v161.hp19 = "stablehlo.reduce_scatter"(%v160.hp18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg24: tensor<f32>, %arg25: tensor<f32>):
        %169 = "stablehlo.add"(%arg24, %arg25) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%169) : (tensor<f32>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x32x64xf32>) -> tensor<4x8x64xf32>
      %167 = "stablehlo.all_reduce"(%71) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
        %168 = "stablehlo.add"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%168) : (tensor<f32>) -> ()
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%v161.hp19, %167) : (tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
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
