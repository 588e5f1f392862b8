"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh_0"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}], function_type = (tensor<64x64xbf16>, tensor<64x4xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg94: tensor<64x64xbf16>, %arg95: tensor<64x4xbf16>, %arg96: tensor<2x4x64x64xf32>, %arg97: tensor<2x4x32x64xf32>):
    %167 = "func.call"() <{callee = @argsort}> : () -> tensor<128xi32>
    %168 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %169 = "stablehlo.broadcast_in_dim"(%168) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %170 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %171 = "func.call"(%170) <{callee = @clip}> : (tensor<i32>) -> tensor<i32>
    %172 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %173 = "stablehlo.broadcast_in_dim"(%172) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %174 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %175:2 = "func.call"(%174) <{callee = @floor_divide}> : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
    %176 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %177 = "stablehlo.broadcast_in_dim"(%176) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %178 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xui32>
    %179 = "stablehlo.reshape"(%178) : (tensor<128xui32>) -> tensor<128x1xui32>
    %180 = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
    %181 = "stablehlo.broadcast_in_dim"(%180) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %182 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<128x1xui32>) -> tensor<128x64xui32>
    %183 = "stablehlo.add"(%182, %181) : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xui32>
    %184 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %185 = "stablehlo.broadcast_in_dim"(%184) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %186 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %187 = "stablehlo.broadcast_in_dim"(%186) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %188 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %189 = "stablehlo.broadcast_in_dim"(%188) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %190 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %191 = "stablehlo.broadcast_in_dim"(%190) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %192 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %193 = "stablehlo.broadcast_in_dim"(%192) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x64x2x1xi32>
    %194 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %195 = "stablehlo.broadcast_in_dim"(%194) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x2xf32>
    %196 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %197 = "stablehlo.broadcast_in_dim"(%196) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x1xf32>
    %198 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %199 = "stablehlo.broadcast_in_dim"(%198) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x1xf32>
    %200 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %201 = "stablehlo.broadcast_in_dim"(%200) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %202 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %203 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x64x64xbf16>
    %204 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %205 = "stablehlo.broadcast_in_dim"(%204) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4xi32>
    %206 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x128x64xbf16>
    %208 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %209 = "stablehlo.broadcast_in_dim"(%208) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %210 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %212 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %213 = "stablehlo.broadcast_in_dim"(%212) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %214 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %215 = "stablehlo.broadcast_in_dim"(%214) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %216 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %217 = "stablehlo.broadcast_in_dim"(%216) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %218 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %219 = "stablehlo.broadcast_in_dim"(%218) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x32x64xbf16>
    %220 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %221 = "stablehlo.broadcast_in_dim"(%220) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %222 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %223 = "stablehlo.broadcast_in_dim"(%222) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<2x128x64xi1>
    %224 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %225 = "stablehlo.broadcast_in_dim"(%224) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %226 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %227 = "stablehlo.broadcast_in_dim"(%226) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2xbf16>
    %228 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %229 = "stablehlo.broadcast_in_dim"(%228) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2x64xbf16>
    %230 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %231:36 = "stablehlo.while"(%arg96, %arg97, %185, %arg95, %167, %183, %187, %189, %177, %191, %175#0, %175#1, %169, %171, %173, %230, %arg94, %193, %195, %197, %199, %201, %203, %205, %207, %209, %211, %213, %215, %217, %219, %221, %223, %225, %227, %229) ({
    ^bb0(%arg227: tensor<2x4x64x64xf32>, %arg228: tensor<2x4x32x64xf32>, %arg229: tensor<128x64xui32>, %arg230: tensor<64x4xbf16>, %arg231: tensor<128xi32>, %arg232: tensor<128x64xui32>, %arg233: tensor<128x64xui32>, %arg234: tensor<128x64xbf16>, %arg235: tensor<128x64xbf16>, %arg236: tensor<128x64xbf16>, %arg237: tensor<i32>, %arg238: tensor<i32>, %arg239: tensor<4xi32>, %arg240: tensor<i32>, %arg241: tensor<128xi32>, %arg242: tensor<i32>, %arg243: tensor<64x64xbf16>, %arg244: tensor<2x64x2x1xi32>, %arg245: tensor<2x64x2xf32>, %arg246: tensor<2x64x1xf32>, %arg247: tensor<2x64x1xf32>, %arg248: tensor<2x128x1xi32>, %arg249: tensor<2x32x64x64xbf16>, %arg250: tensor<2x4xi32>, %arg251: tensor<2x128x64xbf16>, %arg252: tensor<2x1024x32xbf16>, %arg253: tensor<2x1024x32xbf16>, %arg254: tensor<2x1024x32xbf16>, %arg255: tensor<2x1024x32xbf16>, %arg256: tensor<2x1024x32xbf16>, %arg257: tensor<2x32x32x64xbf16>, %arg258: tensor<2x1024x32xbf16>, %arg259: tensor<2x128x64xi1>, %arg260: tensor<2x128x1xi32>, %arg261: tensor<2x64x2xbf16>, %arg262: tensor<2x64x2x64xbf16>):
      %569 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %570 = "stablehlo.compare"(%arg242, %569) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%570) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg177: tensor<2x4x64x64xf32>, %arg178: tensor<2x4x32x64xf32>, %arg179: tensor<128x64xui32>, %arg180: tensor<64x4xbf16>, %arg181: tensor<128xi32>, %arg182: tensor<128x64xui32>, %arg183: tensor<128x64xui32>, %arg184: tensor<128x64xbf16>, %arg185: tensor<128x64xbf16>, %arg186: tensor<128x64xbf16>, %arg187: tensor<i32>, %arg188: tensor<i32>, %arg189: tensor<4xi32>, %arg190: tensor<i32>, %arg191: tensor<128xi32>, %arg192: tensor<i32>, %arg193: tensor<64x64xbf16>, %arg194: tensor<2x64x2x1xi32>, %arg195: tensor<2x64x2xf32>, %arg196: tensor<2x64x1xf32>, %arg197: tensor<2x64x1xf32>, %arg198: tensor<2x128x1xi32>, %arg199: tensor<2x32x64x64xbf16>, %arg200: tensor<2x4xi32>, %arg201: tensor<2x128x64xbf16>, %arg202: tensor<2x1024x32xbf16>, %arg203: tensor<2x1024x32xbf16>, %arg204: tensor<2x1024x32xbf16>, %arg205: tensor<2x1024x32xbf16>, %arg206: tensor<2x1024x32xbf16>, %arg207: tensor<2x32x32x64xbf16>, %arg208: tensor<2x1024x32xbf16>, %arg209: tensor<2x128x64xi1>, %arg210: tensor<2x128x1xi32>, %arg211: tensor<2x64x2xbf16>, %arg212: tensor<2x64x2x64xbf16>):
      %440 = "func.call"(%arg177, %arg192) <{callee = @dynamic_index_in_dim}> : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %441 = "func.call"(%arg178, %arg192) <{callee = @dynamic_index_in_dim_0}> : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %442 = "stablehlo.dot_general"(%arg193, %arg180) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
      %443 = "stablehlo.convert"(%442) : (tensor<64x4xbf16>) -> tensor<64x4xf32>
      %444:2 = "chlo.top_k"(%443) <{is_stable = true, k = 2 : i64}> : (tensor<64x4xf32>) -> (tensor<64x2xf32>, tensor<64x2xi32>)
      %445 = "stablehlo.reshape"(%444#1) : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
      %446 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
      %447 = "stablehlo.reduce"(%444#0, %446) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg225: tensor<f32>, %arg226: tensor<f32>):
        %568 = "stablehlo.maximum"(%arg225, %arg226) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%568) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %448 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
      %449 = "stablehlo.broadcast_in_dim"(%448) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64xf32>
      %450 = "stablehlo.maximum"(%449, %447) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
      %451 = "stablehlo.broadcast_in_dim"(%450) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
      %452 = "stablehlo.broadcast_in_dim"(%451) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %453 = "stablehlo.subtract"(%444#0, %452) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %454 = "stablehlo.exponential"(%453) : (tensor<64x2xf32>) -> tensor<64x2xf32>
      %455 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %456 = "stablehlo.reduce"(%454, %455) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg223: tensor<f32>, %arg224: tensor<f32>):
        %567 = "stablehlo.add"(%arg223, %arg224) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%567) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %457 = "stablehlo.broadcast_in_dim"(%456) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
      %458 = "stablehlo.broadcast_in_dim"(%457) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %459 = "stablehlo.divide"(%454, %458) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %460 = "stablehlo.multiply"(%457, %457) : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
      %461 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %462 = "stablehlo.broadcast_in_dim"(%461) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x1xf32>
      %463 = "stablehlo.divide"(%462, %460) : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
      %464 = "stablehlo.convert"(%459) : (tensor<64x2xf32>) -> tensor<64x2xbf16>
      %465 = "stablehlo.reshape"(%444#1) : (tensor<64x2xi32>) -> tensor<128xi32>
      %466 = "func.call"(%465, %arg181) <{callee = @argsort_1}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %467 = "func.call"(%465, %arg190) <{callee = @clip_2}> : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
      %468 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %469 = "stablehlo.broadcast_in_dim"(%468) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %470 = "stablehlo.compare"(%467, %469) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %471 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %472 = "stablehlo.broadcast_in_dim"(%471) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %473 = "stablehlo.add"(%467, %472) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %474 = "stablehlo.select"(%470, %473, %467) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %475 = "stablehlo.broadcast_in_dim"(%474) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %476 = "stablehlo.scatter"(%arg189, %475, %arg191) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg221: tensor<i32>, %arg222: tensor<i32>):
        %566 = "stablehlo.add"(%arg221, %arg222) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%566) : (tensor<i32>) -> ()
      }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
      %477 = "func.call"(%466, %arg187, %arg188) <{callee = @floor_divide_3}> : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
      %478 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %479 = "stablehlo.broadcast_in_dim"(%478) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %480 = "stablehlo.compare"(%477, %479) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %481 = "stablehlo.constant"() <{value = dense<64> : tensor<i32>}> : () -> tensor<i32>
      %482 = "stablehlo.broadcast_in_dim"(%481) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %483 = "stablehlo.add"(%477, %482) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %484 = "stablehlo.select"(%480, %483, %477) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %485 = "stablehlo.broadcast_in_dim"(%484) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %486 = "stablehlo.gather"(%arg193, %485) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %487:9 = "sdy.manual_computation"(%486, %476, %440, %441) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>}> ({
      ^bb0(%arg217: tensor<128x64xbf16>, %arg218: tensor<4xi32>, %arg219: tensor<4x8x64xf32>, %arg220: tensor<4x32x64xf32>):
        %529 = "stablehlo.convert"(%arg219) : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
        %v533.hp1 = "stablehlo.all_gather"(%529) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
        %530 = "stablehlo.convert"(%arg220) : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
        %536 = "stablehlo.broadcast_in_dim"(%arg217) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %537 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %538 = "func.call"(%arg218) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %539 = "stablehlo.subtract"(%538, %arg218) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %540 = "stablehlo.broadcast_in_dim"(%538) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %541 = "stablehlo.broadcast_in_dim"(%539) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %542 = "stablehlo.compare"(%541, %537) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %543 = "stablehlo.compare"(%537, %540) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %544 = "stablehlo.and"(%542, %543) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %545 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %546 = "stablehlo.broadcast_in_dim"(%545) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %547 = "stablehlo.select"(%544, %536, %546) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %548 = "stablehlo.dot_general"(%547, %v533.hp1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %549 = "stablehlo.slice"(%548) <{limit_indices = array<i64: 128, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %550 = "stablehlo.slice"(%548) <{limit_indices = array<i64: 128, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %551:3 = "func.call"(%549) <{callee = @silu}> : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
        %552 = "stablehlo.multiply"(%551#0, %550) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %553 = "stablehlo.broadcast_in_dim"(%552) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %554 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
        %555 = "func.call"(%arg218) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %556 = "stablehlo.subtract"(%555, %arg218) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %557 = "stablehlo.broadcast_in_dim"(%555) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %558 = "stablehlo.broadcast_in_dim"(%556) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %559 = "stablehlo.compare"(%558, %554) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %560 = "stablehlo.compare"(%554, %557) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %561 = "stablehlo.and"(%559, %560) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
        %562 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %563 = "stablehlo.broadcast_in_dim"(%562) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %564 = "stablehlo.select"(%561, %553, %563) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
        %565 = "stablehlo.dot_general"(%564, %530) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
        "sdy.return"(%565, %v533.hp1, %551#1, %551#2, %549, %550, %551#0, %530, %552) : (tensor<128x64xbf16>, tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>) -> ()
      }) : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>)
      %488 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %489 = "stablehlo.broadcast_in_dim"(%488) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %490 = "stablehlo.compare"(%466, %489) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %491 = "stablehlo.constant"() <{value = dense<128> : tensor<i32>}> : () -> tensor<i32>
      %492 = "stablehlo.broadcast_in_dim"(%491) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %493 = "stablehlo.add"(%466, %492) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %494 = "stablehlo.select"(%490, %493, %466) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %495 = "stablehlo.broadcast_in_dim"(%494) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %496 = "stablehlo.scatter"(%arg179, %495, %arg182) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg215: tensor<ui32>, %arg216: tensor<ui32>):
        "stablehlo.return"(%arg216) : (tensor<ui32>) -> ()
      }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
      %497 = "stablehlo.gather"(%496, %495) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
      %498 = "stablehlo.compare"(%496, %arg183) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %499 = "stablehlo.select"(%498, %arg185, %arg184) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %500 = "stablehlo.compare"(%arg182, %497) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %501 = "stablehlo.select"(%500, %487#0, %arg186) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %502 = "stablehlo.compare"(%arg182, %497) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %503 = "stablehlo.scatter"(%499, %495, %501) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg213: tensor<bf16>, %arg214: tensor<bf16>):
        %528 = "stablehlo.add"(%arg213, %arg214) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%528) : (tensor<bf16>) -> ()
      }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %504 = "stablehlo.reshape"(%503) : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
      %505 = "stablehlo.dot_general"(%504, %464) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
      %506 = "stablehlo.add"(%arg193, %505) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %507 = "func.call"(%arg194, %445, %arg192) <{callee = @dynamic_update_index_in_dim}> : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %508 = "func.call"(%arg195, %454, %arg192) <{callee = @dynamic_update_index_in_dim_4}> : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %509 = "func.call"(%arg196, %457, %arg192) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %510 = "func.call"(%arg197, %463, %arg192) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %511 = "func.call"(%arg198, %485, %arg192) <{callee = @dynamic_update_index_in_dim_6}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %512 = "func.call"(%arg199, %487#1, %arg192) <{callee = @dynamic_update_index_in_dim_7}> : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %513 = "func.call"(%arg200, %476, %arg192) <{callee = @dynamic_update_index_in_dim_8}> : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %514 = "func.call"(%arg201, %486, %arg192) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %515 = "func.call"(%arg202, %487#2, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %516 = "func.call"(%arg203, %487#3, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %517 = "func.call"(%arg204, %487#4, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %518 = "func.call"(%arg205, %487#5, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %519 = "func.call"(%arg206, %487#6, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %520 = "func.call"(%arg207, %487#7, %arg192) <{callee = @dynamic_update_index_in_dim_11}> : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %521 = "func.call"(%arg208, %487#8, %arg192) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %522 = "func.call"(%arg209, %502, %arg192) <{callee = @dynamic_update_index_in_dim_12}> : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %523 = "func.call"(%arg210, %495, %arg192) <{callee = @dynamic_update_index_in_dim_6}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %524 = "func.call"(%arg211, %464, %arg192) <{callee = @dynamic_update_index_in_dim_13}> : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %525 = "func.call"(%arg212, %504, %arg192) <{callee = @dynamic_update_index_in_dim_14}> : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %526 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %527 = "stablehlo.add"(%arg192, %526) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg177, %arg178, %arg179, %arg180, %arg181, %arg182, %arg183, %arg184, %arg185, %arg186, %arg187, %arg188, %arg189, %arg190, %arg191, %527, %506, %507, %508, %509, %510, %511, %512, %513, %514, %515, %516, %517, %518, %519, %520, %521, %522, %523, %524, %525) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> ()
    }) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>)
    %232 = "stablehlo.convert"(%231#16) : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    %233 = "chlo.square"(%232) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %234 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %235 = "stablehlo.broadcast_in_dim"(%234) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %236 = "stablehlo.multiply"(%235, %232) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %237 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %238 = "stablehlo.reduce"(%233, %237) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg175: tensor<f32>, %arg176: tensor<f32>):
      %439 = "stablehlo.add"(%arg175, %arg176) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%439) : (tensor<f32>) -> ()
    }) : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %239 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %240 = "stablehlo.divide"(%238, %239) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %241 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %242 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %243 = "stablehlo.divide"(%241, %242) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %244 = "stablehlo.broadcast_in_dim"(%243) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %245 = "stablehlo.multiply"(%244, %236) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %246 = "stablehlo.convert"(%245) : (tensor<64x64xf32>) -> tensor<64x64xbf16>
    %247 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %248 = "stablehlo.broadcast_in_dim"(%247) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %249 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %250 = "stablehlo.broadcast_in_dim"(%249) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %251 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %252:24 = "stablehlo.while"(%231#17, %231#18, %231#19, %231#20, %231#21, %231#22, %231#23, %231#24, %231#25, %231#26, %231#27, %231#28, %231#29, %231#30, %231#31, %231#32, %231#33, %231#34, %231#35, %arg95, %251, %246, %248, %250) ({
    ^bb0(%arg151: tensor<2x64x2x1xi32>, %arg152: tensor<2x64x2xf32>, %arg153: tensor<2x64x1xf32>, %arg154: tensor<2x64x1xf32>, %arg155: tensor<2x128x1xi32>, %arg156: tensor<2x32x64x64xbf16>, %arg157: tensor<2x4xi32>, %arg158: tensor<2x128x64xbf16>, %arg159: tensor<2x1024x32xbf16>, %arg160: tensor<2x1024x32xbf16>, %arg161: tensor<2x1024x32xbf16>, %arg162: tensor<2x1024x32xbf16>, %arg163: tensor<2x1024x32xbf16>, %arg164: tensor<2x32x32x64xbf16>, %arg165: tensor<2x1024x32xbf16>, %arg166: tensor<2x128x64xi1>, %arg167: tensor<2x128x1xi32>, %arg168: tensor<2x64x2xbf16>, %arg169: tensor<2x64x2x64xbf16>, %arg170: tensor<64x4xbf16>, %arg171: tensor<i32>, %arg172: tensor<64x64xbf16>, %arg173: tensor<2x4x64x64xf32>, %arg174: tensor<2x4x32x64xf32>):
      %437 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %438 = "stablehlo.compare"(%arg171, %437) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%438) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg98: tensor<2x64x2x1xi32>, %arg99: tensor<2x64x2xf32>, %arg100: tensor<2x64x1xf32>, %arg101: tensor<2x64x1xf32>, %arg102: tensor<2x128x1xi32>, %arg103: tensor<2x32x64x64xbf16>, %arg104: tensor<2x4xi32>, %arg105: tensor<2x128x64xbf16>, %arg106: tensor<2x1024x32xbf16>, %arg107: tensor<2x1024x32xbf16>, %arg108: tensor<2x1024x32xbf16>, %arg109: tensor<2x1024x32xbf16>, %arg110: tensor<2x1024x32xbf16>, %arg111: tensor<2x32x32x64xbf16>, %arg112: tensor<2x1024x32xbf16>, %arg113: tensor<2x128x64xi1>, %arg114: tensor<2x128x1xi32>, %arg115: tensor<2x64x2xbf16>, %arg116: tensor<2x64x2x64xbf16>, %arg117: tensor<64x4xbf16>, %arg118: tensor<i32>, %arg119: tensor<64x64xbf16>, %arg120: tensor<2x4x64x64xf32>, %arg121: tensor<2x4x32x64xf32>):
      %253 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %254 = "stablehlo.subtract"(%253, %arg118) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %255 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %256 = "stablehlo.subtract"(%254, %255) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %257 = "func.call"(%arg98, %256) <{callee = @dynamic_index_in_dim_15}> : (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>
      %258 = "func.call"(%arg99, %256) <{callee = @dynamic_index_in_dim_16}> : (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>
      %259 = "func.call"(%arg100, %256) <{callee = @dynamic_index_in_dim_17}> : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %260 = "func.call"(%arg101, %256) <{callee = @dynamic_index_in_dim_17}> : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %261 = "func.call"(%arg102, %256) <{callee = @dynamic_index_in_dim_18}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %262 = "func.call"(%arg103, %256) <{callee = @dynamic_index_in_dim_19}> : (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>
      %263 = "func.call"(%arg104, %256) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
      %264 = "func.call"(%arg105, %256) <{callee = @dynamic_index_in_dim_21}> : (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>
      %265 = "func.call"(%arg106, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %266 = "func.call"(%arg107, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %267 = "func.call"(%arg108, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %268 = "func.call"(%arg109, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %269 = "func.call"(%arg110, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %270 = "func.call"(%arg111, %256) <{callee = @dynamic_index_in_dim_23}> : (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>
      %271 = "func.call"(%arg112, %256) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %272 = "func.call"(%arg113, %256) <{callee = @dynamic_index_in_dim_24}> : (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>
      %273 = "func.call"(%arg114, %256) <{callee = @dynamic_index_in_dim_18}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %274 = "func.call"(%arg115, %256) <{callee = @dynamic_index_in_dim_25}> : (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>
      %275 = "func.call"(%arg116, %256) <{callee = @dynamic_index_in_dim_26}> : (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>
      %276 = "stablehlo.dot_general"(%arg119, %275) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
      %277 = "stablehlo.dot_general"(%arg119, %274) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
      %278 = "stablehlo.transpose"(%277) <{permutation = array<i64: 0, 2, 1>}> : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
      %279 = "stablehlo.reshape"(%278) : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
      %280 = "stablehlo.constant"() <{value = dense<127> : tensor<1xi32>}> : () -> tensor<1xi32>
      %281 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %282 = "stablehlo.broadcast_in_dim"(%281) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128x1xi32>
      %283 = "stablehlo.compare"(%273, %282) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %284 = "stablehlo.broadcast_in_dim"(%280) <{broadcast_dimensions = array<i64: 1>}> : (tensor<1xi32>) -> tensor<1x1xi32>
      %285 = "stablehlo.broadcast_in_dim"(%284) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xi32>) -> tensor<128x1xi32>
      %286 = "stablehlo.compare"(%273, %285) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %287 = "stablehlo.and"(%283, %286) : (tensor<128x1xi1>, tensor<128x1xi1>) -> tensor<128x1xi1>
      %288 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
      %289 = "stablehlo.reduce"(%287, %288) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg149: tensor<i1>, %arg150: tensor<i1>):
        %436 = "stablehlo.and"(%arg149, %arg150) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%436) : (tensor<i1>) -> ()
      }) : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
      %290 = "stablehlo.gather"(%279, %273) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %291 = "stablehlo.broadcast_in_dim"(%289) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi1>) -> tensor<128x64xi1>
      %292 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %293 = "stablehlo.broadcast_in_dim"(%292) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %294 = "stablehlo.select"(%291, %290, %293) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %295 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %296 = "stablehlo.broadcast_in_dim"(%295) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %297 = "stablehlo.select"(%272, %294, %296) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %298 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %299 = "stablehlo.broadcast_in_dim"(%298) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %300 = "stablehlo.divide"(%297, %299) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %301:3 = "sdy.manual_computation"(%300, %262, %263, %264, %265, %266, %267, %268, %269, %270, %271) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
      ^bb0(%arg130: tensor<128x64xbf16>, %arg131: tensor<4x64x64xbf16>, %arg132: tensor<4xi32>, %arg133: tensor<128x64xbf16>, %arg134: tensor<128x32xbf16>, %arg135: tensor<128x32xbf16>, %arg136: tensor<128x32xbf16>, %arg137: tensor<128x32xbf16>, %arg138: tensor<128x32xbf16>, %arg139: tensor<4x32x64xbf16>, %arg140: tensor<128x32xbf16>):
        %335 = "stablehlo.broadcast_in_dim"(%arg140) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %336 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
        %337 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %338 = "stablehlo.subtract"(%337, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %339 = "stablehlo.broadcast_in_dim"(%337) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %340 = "stablehlo.broadcast_in_dim"(%338) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %341 = "stablehlo.compare"(%340, %336) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %342 = "stablehlo.compare"(%336, %339) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %343 = "stablehlo.and"(%341, %342) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
        %344 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %345 = "stablehlo.broadcast_in_dim"(%344) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %346 = "stablehlo.select"(%343, %335, %345) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
        %347 = "stablehlo.broadcast_in_dim"(%arg130) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %348 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %349 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %350 = "stablehlo.subtract"(%349, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %351 = "stablehlo.broadcast_in_dim"(%349) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %352 = "stablehlo.broadcast_in_dim"(%350) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %353 = "stablehlo.compare"(%352, %348) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %354 = "stablehlo.compare"(%348, %351) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %355 = "stablehlo.and"(%353, %354) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %356 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %357 = "stablehlo.broadcast_in_dim"(%356) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %358 = "stablehlo.select"(%355, %347, %357) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %359 = "stablehlo.dot_general"(%346, %358) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
        %360 = "stablehlo.broadcast_in_dim"(%arg130) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %361 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %362 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %363 = "stablehlo.subtract"(%362, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %364 = "stablehlo.broadcast_in_dim"(%362) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %365 = "stablehlo.broadcast_in_dim"(%363) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %366 = "stablehlo.compare"(%365, %361) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %367 = "stablehlo.compare"(%361, %364) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %368 = "stablehlo.and"(%366, %367) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %369 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %370 = "stablehlo.broadcast_in_dim"(%369) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %371 = "stablehlo.select"(%368, %360, %370) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %372 = "stablehlo.dot_general"(%371, %arg139) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
        %373 = "stablehlo.multiply"(%arg138, %372) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %374 = "stablehlo.multiply"(%372, %arg137) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %375 = "func.call"(%arg134, %arg135, %arg136, %374) <{callee = @silu_27}> : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %376 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %377 = "stablehlo.pad"(%373, %376) <{edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 32>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %378 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %379 = "stablehlo.pad"(%375, %378) <{edge_padding_high = array<i64: 0, 32>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %380 = "stablehlo.add"(%377, %379) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %381 = "stablehlo.broadcast_in_dim"(%arg133) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %382 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %383 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %384 = "stablehlo.subtract"(%383, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %385 = "stablehlo.broadcast_in_dim"(%383) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %386 = "stablehlo.broadcast_in_dim"(%384) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %387 = "stablehlo.compare"(%386, %382) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %388 = "stablehlo.compare"(%382, %385) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %389 = "stablehlo.and"(%387, %388) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %390 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %391 = "stablehlo.broadcast_in_dim"(%390) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %392 = "stablehlo.select"(%389, %381, %391) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %393 = "stablehlo.broadcast_in_dim"(%380) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %394 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %395 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %396 = "stablehlo.subtract"(%395, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %397 = "stablehlo.broadcast_in_dim"(%395) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %398 = "stablehlo.broadcast_in_dim"(%396) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %399 = "stablehlo.compare"(%398, %394) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %400 = "stablehlo.compare"(%394, %397) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %401 = "stablehlo.and"(%399, %400) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %402 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %403 = "stablehlo.broadcast_in_dim"(%402) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %404 = "stablehlo.select"(%401, %393, %403) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %405 = "stablehlo.dot_general"(%392, %404) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
        %v422.hp2 = "stablehlo.reduce_scatter"(%405) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg145: tensor<bf16>, %arg146: tensor<bf16>):
          %434 = "stablehlo.add"(%arg145, %arg146) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
          "stablehlo.return"(%434) : (tensor<bf16>) -> ()
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
        %406 = "stablehlo.broadcast_in_dim"(%380) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %407 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %408 = "func.call"(%arg132) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %409 = "stablehlo.subtract"(%408, %arg132) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %410 = "stablehlo.broadcast_in_dim"(%408) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %411 = "stablehlo.broadcast_in_dim"(%409) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %412 = "stablehlo.compare"(%411, %407) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %413 = "stablehlo.compare"(%407, %410) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %414 = "stablehlo.and"(%412, %413) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %415 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %416 = "stablehlo.broadcast_in_dim"(%415) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %417 = "stablehlo.select"(%414, %406, %416) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %418 = "stablehlo.dot_general"(%417, %arg131) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %428 = "stablehlo.convert"(%359) : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
        %429 = "stablehlo.convert"(%v422.hp2) : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
        %430 = "stablehlo.all_reduce"(%418) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg143: tensor<bf16>, %arg144: tensor<bf16>):
          %433 = "stablehlo.add"(%arg143, %arg144) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
          "stablehlo.return"(%433) : (tensor<bf16>) -> ()
        }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %431 = "stablehlo.all_reduce"(%428) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg141: tensor<f32>, %arg142: tensor<f32>):
          %432 = "stablehlo.add"(%arg141, %arg142) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%432) : (tensor<f32>) -> ()
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        "sdy.return"(%430, %429, %431) : (tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
      }) : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %302 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %303 = "stablehlo.broadcast_in_dim"(%302) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<64x64xbf16>
      %304 = "stablehlo.scatter"(%303, %261, %301#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg128: tensor<bf16>, %arg129: tensor<bf16>):
        %334 = "stablehlo.add"(%arg128, %arg129) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%334) : (tensor<bf16>) -> ()
      }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
      %305 = "stablehlo.add"(%arg119, %304) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %306 = "stablehlo.convert"(%276) : (tensor<64x2xbf16>) -> tensor<64x2xf32>
      %307 = "stablehlo.broadcast_in_dim"(%260) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %308 = "stablehlo.multiply"(%306, %307) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %309 = "stablehlo.multiply"(%308, %258) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %310 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %311 = "stablehlo.reduce"(%309, %310) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg126: tensor<f32>, %arg127: tensor<f32>):
        %333 = "stablehlo.add"(%arg126, %arg127) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%333) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %312 = "stablehlo.reshape"(%311) : (tensor<64xf32>) -> tensor<64x1xf32>
      %313 = "stablehlo.negate"(%312) : (tensor<64x1xf32>) -> tensor<64x1xf32>
      %314 = "stablehlo.broadcast_in_dim"(%259) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %315 = "stablehlo.divide"(%306, %314) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %316 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %317 = "stablehlo.reduce"(%313, %316) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg124: tensor<f32>, %arg125: tensor<f32>):
        %332 = "stablehlo.add"(%arg124, %arg125) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%332) : (tensor<f32>) -> ()
      }) : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
      %318 = "stablehlo.broadcast_in_dim"(%317) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x2xf32>
      %319 = "stablehlo.add"(%315, %318) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %320 = "stablehlo.multiply"(%319, %258) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %321 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %322 = "stablehlo.broadcast_in_dim"(%321) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x4xf32>
      %323 = "stablehlo.scatter"(%322, %257, %320) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
      ^bb0(%arg122: tensor<f32>, %arg123: tensor<f32>):
        %331 = "stablehlo.add"(%arg122, %arg123) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%331) : (tensor<f32>) -> ()
      }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
      %324 = "stablehlo.convert"(%323) : (tensor<64x4xf32>) -> tensor<64x4xbf16>
      %325 = "stablehlo.dot_general"(%324, %arg117) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
      %326 = "stablehlo.add"(%305, %325) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %327 = "func.call"(%arg120, %301#1, %256) <{callee = @dynamic_update_index_in_dim_28}> : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %328 = "func.call"(%arg121, %301#2, %256) <{callee = @dynamic_update_index_in_dim_29}> : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %329 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %330 = "stablehlo.add"(%arg118, %329) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg98, %arg99, %arg100, %arg101, %arg102, %arg103, %arg104, %arg105, %arg106, %arg107, %arg108, %arg109, %arg110, %arg111, %arg112, %arg113, %arg114, %arg115, %arg116, %arg117, %330, %326, %327, %328) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
    }) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>)
    "func.return"(%240, %252#22, %252#23) : (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [], function_type = () -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort", sym_visibility = "private"}> ({
    %166 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xi32>
    "func.return"(%166) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg93: tensor<i32>):
    %165 = "stablehlo.convert"(%arg93) : (tensor<i32>) -> tensor<i32>
    "func.return"(%165) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> (tensor<i32>, tensor<i32>), res_attrs = [{}, {}], sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg92: tensor<i32>):
    %163 = "stablehlo.convert"(%arg92) : (tensor<i32>) -> tensor<i32>
    %164 = "stablehlo.sign"(%163) : (tensor<i32>) -> tensor<i32>
    "func.return"(%164, %163) : (tensor<i32>, tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg90: tensor<2x4x64x64xf32>, %arg91: tensor<i32>):
    %158 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %159 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %160 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %161 = "stablehlo.dynamic_slice"(%arg90, %arg91, %158, %159, %160) <{slice_sizes = array<i64: 1, 4, 64, 64>}> : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %162 = "stablehlo.reshape"(%161) : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    "func.return"(%162) : (tensor<4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg88: tensor<2x4x32x64xf32>, %arg89: tensor<i32>):
    %153 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %154 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %155 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %156 = "stablehlo.dynamic_slice"(%arg88, %arg89, %153, %154, %155) <{slice_sizes = array<i64: 1, 4, 32, 64>}> : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %157 = "stablehlo.reshape"(%156) : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    "func.return"(%157) : (tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort_1", sym_visibility = "private"}> ({
  ^bb0(%arg82: tensor<128xi32>, %arg83: tensor<128xi32>):
    %151:2 = "stablehlo.sort"(%arg82, %arg83) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg84: tensor<i32>, %arg85: tensor<i32>, %arg86: tensor<i32>, %arg87: tensor<i32>):
      %152 = "stablehlo.compare"(%arg84, %arg85) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%152) : (tensor<i1>) -> ()
    }) : (tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>)
    "func.return"(%151#1) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "clip_2", sym_visibility = "private"}> ({
  ^bb0(%arg80: tensor<128xi32>, %arg81: tensor<i32>):
    %149 = "stablehlo.broadcast_in_dim"(%arg81) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %150 = "stablehlo.maximum"(%149, %arg80) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%150) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "floor_divide_3", sym_visibility = "private"}> ({
  ^bb0(%arg77: tensor<128xi32>, %arg78: tensor<i32>, %arg79: tensor<i32>):
    %134 = "stablehlo.broadcast_in_dim"(%arg79) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %135 = "stablehlo.divide"(%arg77, %134) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %136 = "stablehlo.sign"(%arg77) : (tensor<128xi32>) -> tensor<128xi32>
    %137 = "stablehlo.broadcast_in_dim"(%arg78) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %138 = "stablehlo.compare"(%136, %137) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %139 = "stablehlo.broadcast_in_dim"(%arg79) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %140 = "stablehlo.remainder"(%arg77, %139) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %141 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %142 = "stablehlo.broadcast_in_dim"(%141) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %143 = "stablehlo.compare"(%140, %142) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %144 = "stablehlo.and"(%138, %143) : (tensor<128xi1>, tensor<128xi1>) -> tensor<128xi1>
    %145 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %146 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %147 = "stablehlo.subtract"(%135, %146) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %148 = "func.call"(%144, %147, %135) <{callee = @_where}> : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%148) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg74: tensor<128xi1>, %arg75: tensor<128xi32>, %arg76: tensor<128xi32>):
    %133 = "stablehlo.select"(%arg74, %arg75, %arg76) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%133) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg71: tensor<4xi32>):
    %129 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %130 = "stablehlo.broadcast_in_dim"(%129) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %131 = "stablehlo.reduce_window"(%arg71, %130) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg72: tensor<i32>, %arg73: tensor<i32>):
      %132 = "stablehlo.add"(%arg72, %arg73) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%132) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%131) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>), res_attrs = [{}, {}, {}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg70: tensor<128x32xbf16>):
    %116 = "stablehlo.negate"(%arg70) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %117 = "stablehlo.exponential"(%116) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %118 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %119 = "stablehlo.broadcast_in_dim"(%118) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %120 = "stablehlo.add"(%119, %117) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %121 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %122 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %123 = "stablehlo.divide"(%122, %120) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %124 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %125 = "stablehlo.broadcast_in_dim"(%124) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %126 = "stablehlo.subtract"(%125, %123) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %127 = "stablehlo.multiply"(%123, %126) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %128 = "stablehlo.multiply"(%arg70, %123) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%128, %127, %123) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg67: tensor<2x64x2x1xi32>, %arg68: tensor<64x2x1xi32>, %arg69: tensor<i32>):
    %111 = "stablehlo.broadcast_in_dim"(%arg68) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x1xi32>) -> tensor<1x64x2x1xi32>
    %112 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %113 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %114 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %115 = "stablehlo.dynamic_update_slice"(%arg67, %111, %arg69, %112, %113, %114) : (tensor<2x64x2x1xi32>, tensor<1x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x1xi32>
    "func.return"(%115) : (tensor<2x64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_4", sym_visibility = "private"}> ({
  ^bb0(%arg64: tensor<2x64x2xf32>, %arg65: tensor<64x2xf32>, %arg66: tensor<i32>):
    %107 = "stablehlo.broadcast_in_dim"(%arg65) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xf32>) -> tensor<1x64x2xf32>
    %108 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %109 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %110 = "stablehlo.dynamic_update_slice"(%arg64, %107, %arg66, %108, %109) : (tensor<2x64x2xf32>, tensor<1x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xf32>
    "func.return"(%110) : (tensor<2x64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_5", sym_visibility = "private"}> ({
  ^bb0(%arg61: tensor<2x64x1xf32>, %arg62: tensor<64x1xf32>, %arg63: tensor<i32>):
    %103 = "stablehlo.broadcast_in_dim"(%arg62) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x1xf32>) -> tensor<1x64x1xf32>
    %104 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %105 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %106 = "stablehlo.dynamic_update_slice"(%arg61, %103, %arg63, %104, %105) : (tensor<2x64x1xf32>, tensor<1x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x1xf32>
    "func.return"(%106) : (tensor<2x64x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_6", sym_visibility = "private"}> ({
  ^bb0(%arg58: tensor<2x128x1xi32>, %arg59: tensor<128x1xi32>, %arg60: tensor<i32>):
    %99 = "stablehlo.broadcast_in_dim"(%arg59) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x1xi32>) -> tensor<1x128x1xi32>
    %100 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %101 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %102 = "stablehlo.dynamic_update_slice"(%arg58, %99, %arg60, %100, %101) : (tensor<2x128x1xi32>, tensor<1x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x1xi32>
    "func.return"(%102) : (tensor<2x128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_7", sym_visibility = "private"}> ({
  ^bb0(%arg55: tensor<2x32x64x64xbf16>, %arg56: tensor<32x64x64xbf16>, %arg57: tensor<i32>):
    %94 = "stablehlo.broadcast_in_dim"(%arg56) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x64x64xbf16>) -> tensor<1x32x64x64xbf16>
    %95 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %96 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %97 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %98 = "stablehlo.dynamic_update_slice"(%arg55, %94, %arg57, %95, %96, %97) : (tensor<2x32x64x64xbf16>, tensor<1x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xbf16>
    "func.return"(%98) : (tensor<2x32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_8", sym_visibility = "private"}> ({
  ^bb0(%arg52: tensor<2x4xi32>, %arg53: tensor<4xi32>, %arg54: tensor<i32>):
    %91 = "stablehlo.broadcast_in_dim"(%arg53) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1x4xi32>
    %92 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %93 = "stablehlo.dynamic_update_slice"(%arg52, %91, %arg54, %92) : (tensor<2x4xi32>, tensor<1x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x4xi32>
    "func.return"(%93) : (tensor<2x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_9", sym_visibility = "private"}> ({
  ^bb0(%arg49: tensor<2x128x64xbf16>, %arg50: tensor<128x64xbf16>, %arg51: tensor<i32>):
    %87 = "stablehlo.broadcast_in_dim"(%arg50) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<1x128x64xbf16>
    %88 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %89 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %90 = "stablehlo.dynamic_update_slice"(%arg49, %87, %arg51, %88, %89) : (tensor<2x128x64xbf16>, tensor<1x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xbf16>
    "func.return"(%90) : (tensor<2x128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_10", sym_visibility = "private"}> ({
  ^bb0(%arg46: tensor<2x1024x32xbf16>, %arg47: tensor<1024x32xbf16>, %arg48: tensor<i32>):
    %83 = "stablehlo.broadcast_in_dim"(%arg47) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<1024x32xbf16>) -> tensor<1x1024x32xbf16>
    %84 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %85 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %86 = "stablehlo.dynamic_update_slice"(%arg46, %83, %arg48, %84, %85) : (tensor<2x1024x32xbf16>, tensor<1x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1024x32xbf16>
    "func.return"(%86) : (tensor<2x1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_11", sym_visibility = "private"}> ({
  ^bb0(%arg43: tensor<2x32x32x64xbf16>, %arg44: tensor<32x32x64xbf16>, %arg45: tensor<i32>):
    %78 = "stablehlo.broadcast_in_dim"(%arg44) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x32x64xbf16>) -> tensor<1x32x32x64xbf16>
    %79 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %80 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %81 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %82 = "stablehlo.dynamic_update_slice"(%arg43, %78, %arg45, %79, %80, %81) : (tensor<2x32x32x64xbf16>, tensor<1x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32x64xbf16>
    "func.return"(%82) : (tensor<2x32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_12", sym_visibility = "private"}> ({
  ^bb0(%arg40: tensor<2x128x64xi1>, %arg41: tensor<128x64xi1>, %arg42: tensor<i32>):
    %74 = "stablehlo.broadcast_in_dim"(%arg41) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xi1>) -> tensor<1x128x64xi1>
    %75 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %76 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %77 = "stablehlo.dynamic_update_slice"(%arg40, %74, %arg42, %75, %76) : (tensor<2x128x64xi1>, tensor<1x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xi1>
    "func.return"(%77) : (tensor<2x128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_13", sym_visibility = "private"}> ({
  ^bb0(%arg37: tensor<2x64x2xbf16>, %arg38: tensor<64x2xbf16>, %arg39: tensor<i32>):
    %70 = "stablehlo.broadcast_in_dim"(%arg38) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xbf16>) -> tensor<1x64x2xbf16>
    %71 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %72 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %73 = "stablehlo.dynamic_update_slice"(%arg37, %70, %arg39, %71, %72) : (tensor<2x64x2xbf16>, tensor<1x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xbf16>
    "func.return"(%73) : (tensor<2x64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_14", sym_visibility = "private"}> ({
  ^bb0(%arg34: tensor<2x64x2x64xbf16>, %arg35: tensor<64x2x64xbf16>, %arg36: tensor<i32>):
    %65 = "stablehlo.broadcast_in_dim"(%arg35) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x64xbf16>) -> tensor<1x64x2x64xbf16>
    %66 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %67 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %68 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %69 = "stablehlo.dynamic_update_slice"(%arg34, %65, %arg36, %66, %67, %68) : (tensor<2x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x64xbf16>
    "func.return"(%69) : (tensor<2x64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_15", sym_visibility = "private"}> ({
  ^bb0(%arg32: tensor<2x64x2x1xi32>, %arg33: tensor<i32>):
    %60 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %61 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %62 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %63 = "stablehlo.dynamic_slice"(%arg32, %arg33, %60, %61, %62) <{slice_sizes = array<i64: 1, 64, 2, 1>}> : (tensor<2x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x1xi32>
    %64 = "stablehlo.reshape"(%63) : (tensor<1x64x2x1xi32>) -> tensor<64x2x1xi32>
    "func.return"(%64) : (tensor<64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_16", sym_visibility = "private"}> ({
  ^bb0(%arg30: tensor<2x64x2xf32>, %arg31: tensor<i32>):
    %56 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %57 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %58 = "stablehlo.dynamic_slice"(%arg30, %arg31, %56, %57) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xf32>
    %59 = "stablehlo.reshape"(%58) : (tensor<1x64x2xf32>) -> tensor<64x2xf32>
    "func.return"(%59) : (tensor<64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_17", sym_visibility = "private"}> ({
  ^bb0(%arg28: tensor<2x64x1xf32>, %arg29: tensor<i32>):
    %52 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %53 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %54 = "stablehlo.dynamic_slice"(%arg28, %arg29, %52, %53) <{slice_sizes = array<i64: 1, 64, 1>}> : (tensor<2x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x1xf32>
    %55 = "stablehlo.reshape"(%54) : (tensor<1x64x1xf32>) -> tensor<64x1xf32>
    "func.return"(%55) : (tensor<64x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_18", sym_visibility = "private"}> ({
  ^bb0(%arg26: tensor<2x128x1xi32>, %arg27: tensor<i32>):
    %48 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %49 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %50 = "stablehlo.dynamic_slice"(%arg26, %arg27, %48, %49) <{slice_sizes = array<i64: 1, 128, 1>}> : (tensor<2x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x1xi32>
    %51 = "stablehlo.reshape"(%50) : (tensor<1x128x1xi32>) -> tensor<128x1xi32>
    "func.return"(%51) : (tensor<128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_19", sym_visibility = "private"}> ({
  ^bb0(%arg24: tensor<2x32x64x64xbf16>, %arg25: tensor<i32>):
    %43 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %44 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %45 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %46 = "stablehlo.dynamic_slice"(%arg24, %arg25, %43, %44, %45) <{slice_sizes = array<i64: 1, 32, 64, 64>}> : (tensor<2x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xbf16>
    %47 = "stablehlo.reshape"(%46) : (tensor<1x32x64x64xbf16>) -> tensor<32x64x64xbf16>
    "func.return"(%47) : (tensor<32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_20", sym_visibility = "private"}> ({
  ^bb0(%arg22: tensor<2x4xi32>, %arg23: tensor<i32>):
    %40 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %41 = "stablehlo.dynamic_slice"(%arg22, %arg23, %40) <{slice_sizes = array<i64: 1, 4>}> : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x4xi32>
    %42 = "stablehlo.reshape"(%41) : (tensor<1x4xi32>) -> tensor<4xi32>
    "func.return"(%42) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_21", sym_visibility = "private"}> ({
  ^bb0(%arg20: tensor<2x128x64xbf16>, %arg21: tensor<i32>):
    %36 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %37 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %38 = "stablehlo.dynamic_slice"(%arg20, %arg21, %36, %37) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xbf16>
    %39 = "stablehlo.reshape"(%38) : (tensor<1x128x64xbf16>) -> tensor<128x64xbf16>
    "func.return"(%39) : (tensor<128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_22", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<2x1024x32xbf16>, %arg19: tensor<i32>):
    %32 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %33 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %34 = "stablehlo.dynamic_slice"(%arg18, %arg19, %32, %33) <{slice_sizes = array<i64: 1, 1024, 32>}> : (tensor<2x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1024x32xbf16>
    %35 = "stablehlo.reshape"(%34) : (tensor<1x1024x32xbf16>) -> tensor<1024x32xbf16>
    "func.return"(%35) : (tensor<1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_23", sym_visibility = "private"}> ({
  ^bb0(%arg16: tensor<2x32x32x64xbf16>, %arg17: tensor<i32>):
    %27 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %28 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %29 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %30 = "stablehlo.dynamic_slice"(%arg16, %arg17, %27, %28, %29) <{slice_sizes = array<i64: 1, 32, 32, 64>}> : (tensor<2x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32x64xbf16>
    %31 = "stablehlo.reshape"(%30) : (tensor<1x32x32x64xbf16>) -> tensor<32x32x64xbf16>
    "func.return"(%31) : (tensor<32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_24", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<2x128x64xi1>, %arg15: tensor<i32>):
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %25 = "stablehlo.dynamic_slice"(%arg14, %arg15, %23, %24) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xi1>
    %26 = "stablehlo.reshape"(%25) : (tensor<1x128x64xi1>) -> tensor<128x64xi1>
    "func.return"(%26) : (tensor<128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_25", sym_visibility = "private"}> ({
  ^bb0(%arg12: tensor<2x64x2xbf16>, %arg13: tensor<i32>):
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %21 = "stablehlo.dynamic_slice"(%arg12, %arg13, %19, %20) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xbf16>
    %22 = "stablehlo.reshape"(%21) : (tensor<1x64x2xbf16>) -> tensor<64x2xbf16>
    "func.return"(%22) : (tensor<64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_26", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<2x64x2x64xbf16>, %arg11: tensor<i32>):
    %14 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.dynamic_slice"(%arg10, %arg11, %14, %15, %16) <{slice_sizes = array<i64: 1, 64, 2, 64>}> : (tensor<2x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x64xbf16>
    %18 = "stablehlo.reshape"(%17) : (tensor<1x64x2x64xbf16>) -> tensor<64x2x64xbf16>
    "func.return"(%18) : (tensor<64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>, res_attrs = [{}], sym_name = "silu_27", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<128x32xbf16>, %arg7: tensor<128x32xbf16>, %arg8: tensor<128x32xbf16>, %arg9: tensor<128x32xbf16>):
    %10 = "stablehlo.multiply"(%arg8, %arg9) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %11 = "stablehlo.multiply"(%arg9, %arg7) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %12 = "stablehlo.multiply"(%10, %arg6) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %13 = "stablehlo.add"(%11, %12) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%13) : (tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_28", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2x4x64x64xf32>, %arg4: tensor<4x64x64xf32>, %arg5: tensor<i32>):
    %5 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %6 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.dynamic_update_slice"(%arg3, %5, %arg5, %6, %7, %8) : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    "func.return"(%9) : (tensor<2x4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_29", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %3 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %1, %2, %3) : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    "func.return"(%4) : (tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
