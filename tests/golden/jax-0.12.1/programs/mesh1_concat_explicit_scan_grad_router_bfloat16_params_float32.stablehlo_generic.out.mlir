"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh_0"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}], function_type = (tensor<64x64xbf16>, tensor<64x4xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg89: tensor<64x64xbf16>, %arg90: tensor<64x4xbf16>, %arg91: tensor<2x4x64x64xf32>, %arg92: tensor<2x4x32x64xf32>):
    %157 = "func.call"() <{callee = @argsort}> : () -> tensor<128xi32>
    %158 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %159 = "stablehlo.broadcast_in_dim"(%158) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %160 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %161 = "func.call"(%160) <{callee = @clip}> : (tensor<i32>) -> tensor<i32>
    %162 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %163 = "stablehlo.broadcast_in_dim"(%162) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %164 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %165:2 = "func.call"(%164) <{callee = @floor_divide}> : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
    %166 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %167 = "stablehlo.broadcast_in_dim"(%166) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %168 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xui32>
    %169 = "stablehlo.reshape"(%168) : (tensor<128xui32>) -> tensor<128x1xui32>
    %170 = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
    %171 = "stablehlo.broadcast_in_dim"(%170) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %172 = "stablehlo.broadcast_in_dim"(%169) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<128x1xui32>) -> tensor<128x64xui32>
    %173 = "stablehlo.add"(%172, %171) : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xui32>
    %174 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %175 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %176 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %177 = "stablehlo.broadcast_in_dim"(%176) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %178 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %179 = "stablehlo.broadcast_in_dim"(%178) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %180 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %181 = "stablehlo.broadcast_in_dim"(%180) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %182 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %183 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x64x2x1xi32>
    %184 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %185 = "stablehlo.broadcast_in_dim"(%184) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x2xf32>
    %186 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %187 = "stablehlo.broadcast_in_dim"(%186) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %188 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %189 = "stablehlo.broadcast_in_dim"(%188) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x64x64xbf16>
    %190 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %191 = "stablehlo.broadcast_in_dim"(%190) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4xi32>
    %192 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %193 = "stablehlo.broadcast_in_dim"(%192) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x128x64xbf16>
    %194 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %195 = "stablehlo.broadcast_in_dim"(%194) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %196 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %197 = "stablehlo.broadcast_in_dim"(%196) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %198 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %199 = "stablehlo.broadcast_in_dim"(%198) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %200 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %201 = "stablehlo.broadcast_in_dim"(%200) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %202 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %203 = "stablehlo.broadcast_in_dim"(%202) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %204 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %205 = "stablehlo.broadcast_in_dim"(%204) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x32x64xbf16>
    %206 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %207 = "stablehlo.broadcast_in_dim"(%206) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %208 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %209 = "stablehlo.broadcast_in_dim"(%208) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<2x128x64xi1>
    %210 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %212 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %213 = "stablehlo.broadcast_in_dim"(%212) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2xbf16>
    %214 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %215 = "stablehlo.broadcast_in_dim"(%214) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2x64xbf16>
    %216 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %217:34 = "stablehlo.while"(%arg91, %arg92, %175, %arg90, %157, %173, %177, %179, %167, %181, %165#0, %165#1, %159, %161, %163, %216, %arg89, %183, %185, %187, %189, %191, %193, %195, %197, %199, %201, %203, %205, %207, %209, %211, %213, %215) ({
    ^bb0(%arg216: tensor<2x4x64x64xf32>, %arg217: tensor<2x4x32x64xf32>, %arg218: tensor<128x64xui32>, %arg219: tensor<64x4xbf16>, %arg220: tensor<128xi32>, %arg221: tensor<128x64xui32>, %arg222: tensor<128x64xui32>, %arg223: tensor<128x64xbf16>, %arg224: tensor<128x64xbf16>, %arg225: tensor<128x64xbf16>, %arg226: tensor<i32>, %arg227: tensor<i32>, %arg228: tensor<4xi32>, %arg229: tensor<i32>, %arg230: tensor<128xi32>, %arg231: tensor<i32>, %arg232: tensor<64x64xbf16>, %arg233: tensor<2x64x2x1xi32>, %arg234: tensor<2x64x2xf32>, %arg235: tensor<2x128x1xi32>, %arg236: tensor<2x32x64x64xbf16>, %arg237: tensor<2x4xi32>, %arg238: tensor<2x128x64xbf16>, %arg239: tensor<2x1024x32xbf16>, %arg240: tensor<2x1024x32xbf16>, %arg241: tensor<2x1024x32xbf16>, %arg242: tensor<2x1024x32xbf16>, %arg243: tensor<2x1024x32xbf16>, %arg244: tensor<2x32x32x64xbf16>, %arg245: tensor<2x1024x32xbf16>, %arg246: tensor<2x128x64xi1>, %arg247: tensor<2x128x1xi32>, %arg248: tensor<2x64x2xbf16>, %arg249: tensor<2x64x2x64xbf16>):
      %543 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %544 = "stablehlo.compare"(%arg231, %543) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%544) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg168: tensor<2x4x64x64xf32>, %arg169: tensor<2x4x32x64xf32>, %arg170: tensor<128x64xui32>, %arg171: tensor<64x4xbf16>, %arg172: tensor<128xi32>, %arg173: tensor<128x64xui32>, %arg174: tensor<128x64xui32>, %arg175: tensor<128x64xbf16>, %arg176: tensor<128x64xbf16>, %arg177: tensor<128x64xbf16>, %arg178: tensor<i32>, %arg179: tensor<i32>, %arg180: tensor<4xi32>, %arg181: tensor<i32>, %arg182: tensor<128xi32>, %arg183: tensor<i32>, %arg184: tensor<64x64xbf16>, %arg185: tensor<2x64x2x1xi32>, %arg186: tensor<2x64x2xf32>, %arg187: tensor<2x128x1xi32>, %arg188: tensor<2x32x64x64xbf16>, %arg189: tensor<2x4xi32>, %arg190: tensor<2x128x64xbf16>, %arg191: tensor<2x1024x32xbf16>, %arg192: tensor<2x1024x32xbf16>, %arg193: tensor<2x1024x32xbf16>, %arg194: tensor<2x1024x32xbf16>, %arg195: tensor<2x1024x32xbf16>, %arg196: tensor<2x32x32x64xbf16>, %arg197: tensor<2x1024x32xbf16>, %arg198: tensor<2x128x64xi1>, %arg199: tensor<2x128x1xi32>, %arg200: tensor<2x64x2xbf16>, %arg201: tensor<2x64x2x64xbf16>):
      %420 = "func.call"(%arg168, %arg183) <{callee = @dynamic_index_in_dim}> : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %421 = "func.call"(%arg169, %arg183) <{callee = @dynamic_index_in_dim_0}> : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %422 = "stablehlo.dot_general"(%arg184, %arg171) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
      %423 = "stablehlo.convert"(%422) : (tensor<64x4xbf16>) -> tensor<64x4xf32>
      %424:2 = "chlo.top_k"(%423) <{is_stable = true, k = 2 : i64}> : (tensor<64x4xf32>) -> (tensor<64x2xf32>, tensor<64x2xi32>)
      %425 = "stablehlo.reshape"(%424#1) : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
      %426 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
      %427 = "stablehlo.reduce"(%424#0, %426) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg214: tensor<f32>, %arg215: tensor<f32>):
        %542 = "stablehlo.maximum"(%arg214, %arg215) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%542) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %428 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
      %429 = "stablehlo.broadcast_in_dim"(%428) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64xf32>
      %430 = "stablehlo.maximum"(%429, %427) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
      %431 = "stablehlo.broadcast_in_dim"(%430) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
      %432 = "stablehlo.broadcast_in_dim"(%431) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %433 = "stablehlo.subtract"(%424#0, %432) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %434 = "stablehlo.exponential"(%433) : (tensor<64x2xf32>) -> tensor<64x2xf32>
      %435 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %436 = "stablehlo.reduce"(%434, %435) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg212: tensor<f32>, %arg213: tensor<f32>):
        %541 = "stablehlo.add"(%arg212, %arg213) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%541) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %437 = "stablehlo.broadcast_in_dim"(%436) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
      %438 = "stablehlo.broadcast_in_dim"(%437) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %439 = "stablehlo.divide"(%434, %438) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %440 = "stablehlo.convert"(%439) : (tensor<64x2xf32>) -> tensor<64x2xbf16>
      %441 = "stablehlo.reshape"(%424#1) : (tensor<64x2xi32>) -> tensor<128xi32>
      %442 = "func.call"(%441, %arg172) <{callee = @argsort_1}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %443 = "func.call"(%441, %arg181) <{callee = @clip_2}> : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
      %444 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %445 = "stablehlo.broadcast_in_dim"(%444) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %446 = "stablehlo.compare"(%443, %445) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %447 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %448 = "stablehlo.broadcast_in_dim"(%447) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %449 = "stablehlo.add"(%443, %448) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %450 = "stablehlo.select"(%446, %449, %443) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %451 = "stablehlo.broadcast_in_dim"(%450) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %452 = "stablehlo.scatter"(%arg180, %451, %arg182) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg210: tensor<i32>, %arg211: tensor<i32>):
        %540 = "stablehlo.add"(%arg210, %arg211) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%540) : (tensor<i32>) -> ()
      }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
      %453 = "func.call"(%442, %arg178, %arg179) <{callee = @floor_divide_3}> : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
      %454 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %455 = "stablehlo.broadcast_in_dim"(%454) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %456 = "stablehlo.compare"(%453, %455) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %457 = "stablehlo.constant"() <{value = dense<64> : tensor<i32>}> : () -> tensor<i32>
      %458 = "stablehlo.broadcast_in_dim"(%457) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %459 = "stablehlo.add"(%453, %458) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %460 = "stablehlo.select"(%456, %459, %453) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %461 = "stablehlo.broadcast_in_dim"(%460) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %462 = "stablehlo.gather"(%arg184, %461) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %463:9 = "sdy.manual_computation"(%462, %452, %420, %421) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>}> ({
      ^bb0(%arg206: tensor<128x64xbf16>, %arg207: tensor<4xi32>, %arg208: tensor<4x8x64xf32>, %arg209: tensor<4x32x64xf32>):
        %503 = "stablehlo.convert"(%arg208) : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
        %v507.hp1 = "stablehlo.all_gather"(%503) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
        %504 = "stablehlo.convert"(%arg209) : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
        %510 = "stablehlo.broadcast_in_dim"(%arg206) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %511 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %512 = "func.call"(%arg207) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %513 = "stablehlo.subtract"(%512, %arg207) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %514 = "stablehlo.broadcast_in_dim"(%512) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %515 = "stablehlo.broadcast_in_dim"(%513) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %516 = "stablehlo.compare"(%515, %511) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %517 = "stablehlo.compare"(%511, %514) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %518 = "stablehlo.and"(%516, %517) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %519 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %520 = "stablehlo.broadcast_in_dim"(%519) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %521 = "stablehlo.select"(%518, %510, %520) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %522 = "stablehlo.dot_general"(%521, %v507.hp1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %523 = "stablehlo.slice"(%522) <{limit_indices = array<i64: 128, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %524 = "stablehlo.slice"(%522) <{limit_indices = array<i64: 128, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %525:3 = "func.call"(%523) <{callee = @silu}> : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
        %526 = "stablehlo.multiply"(%525#0, %524) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %527 = "stablehlo.broadcast_in_dim"(%526) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %528 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
        %529 = "func.call"(%arg207) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %530 = "stablehlo.subtract"(%529, %arg207) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %531 = "stablehlo.broadcast_in_dim"(%529) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %532 = "stablehlo.broadcast_in_dim"(%530) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %533 = "stablehlo.compare"(%532, %528) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %534 = "stablehlo.compare"(%528, %531) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %535 = "stablehlo.and"(%533, %534) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
        %536 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %537 = "stablehlo.broadcast_in_dim"(%536) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %538 = "stablehlo.select"(%535, %527, %537) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
        %539 = "stablehlo.dot_general"(%538, %504) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
        "sdy.return"(%539, %v507.hp1, %525#1, %525#2, %523, %524, %525#0, %504, %526) : (tensor<128x64xbf16>, tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>) -> ()
      }) : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>)
      %464 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %465 = "stablehlo.broadcast_in_dim"(%464) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %466 = "stablehlo.compare"(%442, %465) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %467 = "stablehlo.constant"() <{value = dense<128> : tensor<i32>}> : () -> tensor<i32>
      %468 = "stablehlo.broadcast_in_dim"(%467) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
      %469 = "stablehlo.add"(%442, %468) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %470 = "stablehlo.select"(%466, %469, %442) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %471 = "stablehlo.broadcast_in_dim"(%470) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
      %472 = "stablehlo.scatter"(%arg170, %471, %arg173) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg204: tensor<ui32>, %arg205: tensor<ui32>):
        "stablehlo.return"(%arg205) : (tensor<ui32>) -> ()
      }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
      %473 = "stablehlo.gather"(%472, %471) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
      %474 = "stablehlo.compare"(%472, %arg174) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %475 = "stablehlo.select"(%474, %arg176, %arg175) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %476 = "stablehlo.compare"(%arg173, %473) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %477 = "stablehlo.select"(%476, %463#0, %arg177) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %478 = "stablehlo.compare"(%arg173, %473) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %479 = "stablehlo.scatter"(%475, %471, %477) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg202: tensor<bf16>, %arg203: tensor<bf16>):
        %502 = "stablehlo.add"(%arg202, %arg203) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%502) : (tensor<bf16>) -> ()
      }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %480 = "stablehlo.reshape"(%479) : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
      %481 = "stablehlo.dot_general"(%480, %440) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
      %482 = "stablehlo.add"(%arg184, %481) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %483 = "func.call"(%arg185, %425, %arg183) <{callee = @dynamic_update_index_in_dim}> : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %484 = "func.call"(%arg186, %439, %arg183) <{callee = @dynamic_update_index_in_dim_4}> : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %485 = "func.call"(%arg187, %461, %arg183) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %486 = "func.call"(%arg188, %463#1, %arg183) <{callee = @dynamic_update_index_in_dim_6}> : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %487 = "func.call"(%arg189, %452, %arg183) <{callee = @dynamic_update_index_in_dim_7}> : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %488 = "func.call"(%arg190, %462, %arg183) <{callee = @dynamic_update_index_in_dim_8}> : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %489 = "func.call"(%arg191, %463#2, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %490 = "func.call"(%arg192, %463#3, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %491 = "func.call"(%arg193, %463#4, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %492 = "func.call"(%arg194, %463#5, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %493 = "func.call"(%arg195, %463#6, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %494 = "func.call"(%arg196, %463#7, %arg183) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %495 = "func.call"(%arg197, %463#8, %arg183) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %496 = "func.call"(%arg198, %478, %arg183) <{callee = @dynamic_update_index_in_dim_11}> : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %497 = "func.call"(%arg199, %471, %arg183) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %498 = "func.call"(%arg200, %440, %arg183) <{callee = @dynamic_update_index_in_dim_12}> : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %499 = "func.call"(%arg201, %480, %arg183) <{callee = @dynamic_update_index_in_dim_13}> : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %500 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %501 = "stablehlo.add"(%arg183, %500) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg168, %arg169, %arg170, %arg171, %arg172, %arg173, %arg174, %arg175, %arg176, %arg177, %arg178, %arg179, %arg180, %arg181, %arg182, %501, %482, %483, %484, %485, %486, %487, %488, %489, %490, %491, %492, %493, %494, %495, %496, %497, %498, %499) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> ()
    }) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>)
    %218 = "stablehlo.convert"(%217#16) : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    %219 = "chlo.square"(%218) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %220 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %221 = "stablehlo.broadcast_in_dim"(%220) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %222 = "stablehlo.multiply"(%221, %218) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %223 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %224 = "stablehlo.reduce"(%219, %223) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg166: tensor<f32>, %arg167: tensor<f32>):
      %419 = "stablehlo.add"(%arg166, %arg167) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%419) : (tensor<f32>) -> ()
    }) : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %225 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %226 = "stablehlo.divide"(%224, %225) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %227 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %228 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %229 = "stablehlo.divide"(%227, %228) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %230 = "stablehlo.broadcast_in_dim"(%229) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %231 = "stablehlo.multiply"(%230, %222) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %232 = "stablehlo.convert"(%231) : (tensor<64x64xf32>) -> tensor<64x64xbf16>
    %233 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %234 = "stablehlo.broadcast_in_dim"(%233) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %235 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %236 = "stablehlo.broadcast_in_dim"(%235) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %237 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %238:22 = "stablehlo.while"(%217#17, %217#18, %217#19, %217#20, %217#21, %217#22, %217#23, %217#24, %217#25, %217#26, %217#27, %217#28, %217#29, %217#30, %217#31, %217#32, %217#33, %arg90, %237, %232, %234, %236) ({
    ^bb0(%arg144: tensor<2x64x2x1xi32>, %arg145: tensor<2x64x2xf32>, %arg146: tensor<2x128x1xi32>, %arg147: tensor<2x32x64x64xbf16>, %arg148: tensor<2x4xi32>, %arg149: tensor<2x128x64xbf16>, %arg150: tensor<2x1024x32xbf16>, %arg151: tensor<2x1024x32xbf16>, %arg152: tensor<2x1024x32xbf16>, %arg153: tensor<2x1024x32xbf16>, %arg154: tensor<2x1024x32xbf16>, %arg155: tensor<2x32x32x64xbf16>, %arg156: tensor<2x1024x32xbf16>, %arg157: tensor<2x128x64xi1>, %arg158: tensor<2x128x1xi32>, %arg159: tensor<2x64x2xbf16>, %arg160: tensor<2x64x2x64xbf16>, %arg161: tensor<64x4xbf16>, %arg162: tensor<i32>, %arg163: tensor<64x64xbf16>, %arg164: tensor<2x4x64x64xf32>, %arg165: tensor<2x4x32x64xf32>):
      %417 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %418 = "stablehlo.compare"(%arg162, %417) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%418) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg93: tensor<2x64x2x1xi32>, %arg94: tensor<2x64x2xf32>, %arg95: tensor<2x128x1xi32>, %arg96: tensor<2x32x64x64xbf16>, %arg97: tensor<2x4xi32>, %arg98: tensor<2x128x64xbf16>, %arg99: tensor<2x1024x32xbf16>, %arg100: tensor<2x1024x32xbf16>, %arg101: tensor<2x1024x32xbf16>, %arg102: tensor<2x1024x32xbf16>, %arg103: tensor<2x1024x32xbf16>, %arg104: tensor<2x32x32x64xbf16>, %arg105: tensor<2x1024x32xbf16>, %arg106: tensor<2x128x64xi1>, %arg107: tensor<2x128x1xi32>, %arg108: tensor<2x64x2xbf16>, %arg109: tensor<2x64x2x64xbf16>, %arg110: tensor<64x4xbf16>, %arg111: tensor<i32>, %arg112: tensor<64x64xbf16>, %arg113: tensor<2x4x64x64xf32>, %arg114: tensor<2x4x32x64xf32>):
      %239 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %240 = "stablehlo.subtract"(%239, %arg111) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %241 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %242 = "stablehlo.subtract"(%240, %241) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %243 = "func.call"(%arg93, %242) <{callee = @dynamic_index_in_dim_14}> : (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>
      %244 = "func.call"(%arg94, %242) <{callee = @dynamic_index_in_dim_15}> : (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>
      %245 = "func.call"(%arg95, %242) <{callee = @dynamic_index_in_dim_16}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %246 = "func.call"(%arg96, %242) <{callee = @dynamic_index_in_dim_17}> : (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>
      %247 = "func.call"(%arg97, %242) <{callee = @dynamic_index_in_dim_18}> : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
      %248 = "func.call"(%arg98, %242) <{callee = @dynamic_index_in_dim_19}> : (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>
      %249 = "func.call"(%arg99, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %250 = "func.call"(%arg100, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %251 = "func.call"(%arg101, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %252 = "func.call"(%arg102, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %253 = "func.call"(%arg103, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %254 = "func.call"(%arg104, %242) <{callee = @dynamic_index_in_dim_21}> : (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>
      %255 = "func.call"(%arg105, %242) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %256 = "func.call"(%arg106, %242) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>
      %257 = "func.call"(%arg107, %242) <{callee = @dynamic_index_in_dim_16}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %258 = "func.call"(%arg108, %242) <{callee = @dynamic_index_in_dim_23}> : (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>
      %259 = "func.call"(%arg109, %242) <{callee = @dynamic_index_in_dim_24}> : (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>
      %260 = "stablehlo.dot_general"(%arg112, %259) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
      %261 = "stablehlo.dot_general"(%arg112, %258) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
      %262 = "stablehlo.transpose"(%261) <{permutation = array<i64: 0, 2, 1>}> : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
      %263 = "stablehlo.reshape"(%262) : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
      %264 = "stablehlo.constant"() <{value = dense<127> : tensor<1xi32>}> : () -> tensor<1xi32>
      %265 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %266 = "stablehlo.broadcast_in_dim"(%265) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128x1xi32>
      %267 = "stablehlo.compare"(%257, %266) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %268 = "stablehlo.broadcast_in_dim"(%264) <{broadcast_dimensions = array<i64: 1>}> : (tensor<1xi32>) -> tensor<1x1xi32>
      %269 = "stablehlo.broadcast_in_dim"(%268) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xi32>) -> tensor<128x1xi32>
      %270 = "stablehlo.compare"(%257, %269) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %271 = "stablehlo.and"(%267, %270) : (tensor<128x1xi1>, tensor<128x1xi1>) -> tensor<128x1xi1>
      %272 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
      %273 = "stablehlo.reduce"(%271, %272) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg142: tensor<i1>, %arg143: tensor<i1>):
        %416 = "stablehlo.and"(%arg142, %arg143) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%416) : (tensor<i1>) -> ()
      }) : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
      %274 = "stablehlo.gather"(%263, %257) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %275 = "stablehlo.broadcast_in_dim"(%273) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi1>) -> tensor<128x64xi1>
      %276 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %277 = "stablehlo.broadcast_in_dim"(%276) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %278 = "stablehlo.select"(%275, %274, %277) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %279 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %280 = "stablehlo.broadcast_in_dim"(%279) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %281 = "stablehlo.select"(%256, %278, %280) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %282 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %283 = "stablehlo.broadcast_in_dim"(%282) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
      %284 = "stablehlo.divide"(%281, %283) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %285:3 = "sdy.manual_computation"(%284, %246, %247, %248, %249, %250, %251, %252, %253, %254, %255) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
      ^bb0(%arg123: tensor<128x64xbf16>, %arg124: tensor<4x64x64xbf16>, %arg125: tensor<4xi32>, %arg126: tensor<128x64xbf16>, %arg127: tensor<128x32xbf16>, %arg128: tensor<128x32xbf16>, %arg129: tensor<128x32xbf16>, %arg130: tensor<128x32xbf16>, %arg131: tensor<128x32xbf16>, %arg132: tensor<4x32x64xbf16>, %arg133: tensor<128x32xbf16>):
        %315 = "stablehlo.broadcast_in_dim"(%arg133) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %316 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
        %317 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %318 = "stablehlo.subtract"(%317, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %319 = "stablehlo.broadcast_in_dim"(%317) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %320 = "stablehlo.broadcast_in_dim"(%318) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %321 = "stablehlo.compare"(%320, %316) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %322 = "stablehlo.compare"(%316, %319) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %323 = "stablehlo.and"(%321, %322) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
        %324 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %325 = "stablehlo.broadcast_in_dim"(%324) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %326 = "stablehlo.select"(%323, %315, %325) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
        %327 = "stablehlo.broadcast_in_dim"(%arg123) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %328 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %329 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %330 = "stablehlo.subtract"(%329, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %331 = "stablehlo.broadcast_in_dim"(%329) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %332 = "stablehlo.broadcast_in_dim"(%330) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %333 = "stablehlo.compare"(%332, %328) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %334 = "stablehlo.compare"(%328, %331) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %335 = "stablehlo.and"(%333, %334) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %336 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %337 = "stablehlo.broadcast_in_dim"(%336) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %338 = "stablehlo.select"(%335, %327, %337) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %339 = "stablehlo.dot_general"(%326, %338) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
        %340 = "stablehlo.broadcast_in_dim"(%arg123) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %341 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %342 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %343 = "stablehlo.subtract"(%342, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %344 = "stablehlo.broadcast_in_dim"(%342) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %345 = "stablehlo.broadcast_in_dim"(%343) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %346 = "stablehlo.compare"(%345, %341) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %347 = "stablehlo.compare"(%341, %344) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %348 = "stablehlo.and"(%346, %347) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %349 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %350 = "stablehlo.broadcast_in_dim"(%349) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %351 = "stablehlo.select"(%348, %340, %350) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %352 = "stablehlo.dot_general"(%351, %arg132) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
        %353 = "stablehlo.multiply"(%arg131, %352) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %354 = "stablehlo.multiply"(%352, %arg130) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %355 = "func.call"(%arg127, %arg128, %arg129, %354) <{callee = @silu_25}> : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %356 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %357 = "stablehlo.pad"(%353, %356) <{edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 32>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %358 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %359 = "stablehlo.pad"(%355, %358) <{edge_padding_high = array<i64: 0, 32>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %360 = "stablehlo.add"(%357, %359) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %361 = "stablehlo.broadcast_in_dim"(%arg126) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %362 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %363 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %364 = "stablehlo.subtract"(%363, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %365 = "stablehlo.broadcast_in_dim"(%363) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %366 = "stablehlo.broadcast_in_dim"(%364) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %367 = "stablehlo.compare"(%366, %362) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %368 = "stablehlo.compare"(%362, %365) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %369 = "stablehlo.and"(%367, %368) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %370 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %371 = "stablehlo.broadcast_in_dim"(%370) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %372 = "stablehlo.select"(%369, %361, %371) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %373 = "stablehlo.broadcast_in_dim"(%360) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %374 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %375 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %376 = "stablehlo.subtract"(%375, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %377 = "stablehlo.broadcast_in_dim"(%375) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %378 = "stablehlo.broadcast_in_dim"(%376) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %379 = "stablehlo.compare"(%378, %374) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %380 = "stablehlo.compare"(%374, %377) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %381 = "stablehlo.and"(%379, %380) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %382 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %383 = "stablehlo.broadcast_in_dim"(%382) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %384 = "stablehlo.select"(%381, %373, %383) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %385 = "stablehlo.dot_general"(%372, %384) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
        %v402.hp2 = "stablehlo.reduce_scatter"(%385) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg138: tensor<bf16>, %arg139: tensor<bf16>):
          %414 = "stablehlo.add"(%arg138, %arg139) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
          "stablehlo.return"(%414) : (tensor<bf16>) -> ()
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
        %386 = "stablehlo.broadcast_in_dim"(%360) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %387 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
        %388 = "func.call"(%arg125) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
        %389 = "stablehlo.subtract"(%388, %arg125) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
        %390 = "stablehlo.broadcast_in_dim"(%388) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %391 = "stablehlo.broadcast_in_dim"(%389) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %392 = "stablehlo.compare"(%391, %387) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %393 = "stablehlo.compare"(%387, %390) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %394 = "stablehlo.and"(%392, %393) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
        %395 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
        %396 = "stablehlo.broadcast_in_dim"(%395) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %397 = "stablehlo.select"(%394, %386, %396) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
        %398 = "stablehlo.dot_general"(%397, %arg124) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %408 = "stablehlo.convert"(%339) : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
        %409 = "stablehlo.convert"(%v402.hp2) : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
        %410 = "stablehlo.all_reduce"(%398) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg136: tensor<bf16>, %arg137: tensor<bf16>):
          %413 = "stablehlo.add"(%arg136, %arg137) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
          "stablehlo.return"(%413) : (tensor<bf16>) -> ()
        }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %411 = "stablehlo.all_reduce"(%408) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg134: tensor<f32>, %arg135: tensor<f32>):
          %412 = "stablehlo.add"(%arg134, %arg135) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%412) : (tensor<f32>) -> ()
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        "sdy.return"(%410, %409, %411) : (tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
      }) : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %286 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %287 = "stablehlo.broadcast_in_dim"(%286) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<64x64xbf16>
      %288 = "stablehlo.scatter"(%287, %245, %285#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg121: tensor<bf16>, %arg122: tensor<bf16>):
        %314 = "stablehlo.add"(%arg121, %arg122) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%314) : (tensor<bf16>) -> ()
      }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
      %289 = "stablehlo.add"(%arg112, %288) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %290 = "stablehlo.convert"(%260) : (tensor<64x2xbf16>) -> tensor<64x2xf32>
      %291 = "stablehlo.multiply"(%244, %290) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %292 = "stablehlo.negate"(%291) : (tensor<64x2xf32>) -> tensor<64x2xf32>
      %293 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %294 = "stablehlo.reduce"(%292, %293) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg119: tensor<f32>, %arg120: tensor<f32>):
        %313 = "stablehlo.add"(%arg119, %arg120) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%313) : (tensor<f32>) -> ()
      }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %295 = "stablehlo.reshape"(%294) : (tensor<64xf32>) -> tensor<64x1xf32>
      %296 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %297 = "stablehlo.reduce"(%295, %296) <{dimensions = array<i64: 1>}> ({
      ^bb0(%arg117: tensor<f32>, %arg118: tensor<f32>):
        %312 = "stablehlo.add"(%arg117, %arg118) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%312) : (tensor<f32>) -> ()
      }) : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
      %298 = "stablehlo.broadcast_in_dim"(%297) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x2xf32>
      %299 = "stablehlo.multiply"(%244, %298) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %300 = "stablehlo.add"(%291, %299) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
      %301 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %302 = "stablehlo.broadcast_in_dim"(%301) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x4xf32>
      %303 = "stablehlo.scatter"(%302, %243, %300) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
      ^bb0(%arg115: tensor<f32>, %arg116: tensor<f32>):
        %311 = "stablehlo.add"(%arg115, %arg116) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%311) : (tensor<f32>) -> ()
      }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
      %304 = "stablehlo.convert"(%303) : (tensor<64x4xf32>) -> tensor<64x4xbf16>
      %305 = "stablehlo.dot_general"(%304, %arg110) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
      %306 = "stablehlo.add"(%289, %305) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
      %307 = "func.call"(%arg113, %285#1, %242) <{callee = @dynamic_update_index_in_dim_26}> : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %308 = "func.call"(%arg114, %285#2, %242) <{callee = @dynamic_update_index_in_dim_27}> : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %309 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %310 = "stablehlo.add"(%arg111, %309) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg93, %arg94, %arg95, %arg96, %arg97, %arg98, %arg99, %arg100, %arg101, %arg102, %arg103, %arg104, %arg105, %arg106, %arg107, %arg108, %arg109, %arg110, %310, %306, %307, %308) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
    }) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>)
    "func.return"(%226, %238#20, %238#21) : (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [], function_type = () -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort", sym_visibility = "private"}> ({
    %156 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xi32>
    "func.return"(%156) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg88: tensor<i32>):
    %155 = "stablehlo.convert"(%arg88) : (tensor<i32>) -> tensor<i32>
    "func.return"(%155) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> (tensor<i32>, tensor<i32>), res_attrs = [{}, {}], sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg87: tensor<i32>):
    %153 = "stablehlo.convert"(%arg87) : (tensor<i32>) -> tensor<i32>
    %154 = "stablehlo.sign"(%153) : (tensor<i32>) -> tensor<i32>
    "func.return"(%154, %153) : (tensor<i32>, tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg85: tensor<2x4x64x64xf32>, %arg86: tensor<i32>):
    %148 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %149 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %150 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %151 = "stablehlo.dynamic_slice"(%arg85, %arg86, %148, %149, %150) <{slice_sizes = array<i64: 1, 4, 64, 64>}> : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %152 = "stablehlo.reshape"(%151) : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    "func.return"(%152) : (tensor<4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg83: tensor<2x4x32x64xf32>, %arg84: tensor<i32>):
    %143 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %144 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %145 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %146 = "stablehlo.dynamic_slice"(%arg83, %arg84, %143, %144, %145) <{slice_sizes = array<i64: 1, 4, 32, 64>}> : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %147 = "stablehlo.reshape"(%146) : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    "func.return"(%147) : (tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort_1", sym_visibility = "private"}> ({
  ^bb0(%arg77: tensor<128xi32>, %arg78: tensor<128xi32>):
    %141:2 = "stablehlo.sort"(%arg77, %arg78) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg79: tensor<i32>, %arg80: tensor<i32>, %arg81: tensor<i32>, %arg82: tensor<i32>):
      %142 = "stablehlo.compare"(%arg79, %arg80) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%142) : (tensor<i1>) -> ()
    }) : (tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>)
    "func.return"(%141#1) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "clip_2", sym_visibility = "private"}> ({
  ^bb0(%arg75: tensor<128xi32>, %arg76: tensor<i32>):
    %139 = "stablehlo.broadcast_in_dim"(%arg76) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %140 = "stablehlo.maximum"(%139, %arg75) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%140) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "floor_divide_3", sym_visibility = "private"}> ({
  ^bb0(%arg72: tensor<128xi32>, %arg73: tensor<i32>, %arg74: tensor<i32>):
    %124 = "stablehlo.broadcast_in_dim"(%arg74) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %125 = "stablehlo.divide"(%arg72, %124) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %126 = "stablehlo.sign"(%arg72) : (tensor<128xi32>) -> tensor<128xi32>
    %127 = "stablehlo.broadcast_in_dim"(%arg73) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %128 = "stablehlo.compare"(%126, %127) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %129 = "stablehlo.broadcast_in_dim"(%arg74) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %130 = "stablehlo.remainder"(%arg72, %129) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %131 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %132 = "stablehlo.broadcast_in_dim"(%131) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %133 = "stablehlo.compare"(%130, %132) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %134 = "stablehlo.and"(%128, %133) : (tensor<128xi1>, tensor<128xi1>) -> tensor<128xi1>
    %135 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %136 = "stablehlo.broadcast_in_dim"(%135) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %137 = "stablehlo.subtract"(%125, %136) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %138 = "func.call"(%134, %137, %125) <{callee = @_where}> : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%138) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg69: tensor<128xi1>, %arg70: tensor<128xi32>, %arg71: tensor<128xi32>):
    %123 = "stablehlo.select"(%arg69, %arg70, %arg71) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%123) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg66: tensor<4xi32>):
    %119 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %120 = "stablehlo.broadcast_in_dim"(%119) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %121 = "stablehlo.reduce_window"(%arg66, %120) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg67: tensor<i32>, %arg68: tensor<i32>):
      %122 = "stablehlo.add"(%arg67, %arg68) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%122) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%121) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>), res_attrs = [{}, {}, {}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg65: tensor<128x32xbf16>):
    %108 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %109 = "stablehlo.broadcast_in_dim"(%108) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %110 = "stablehlo.negate"(%arg65) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %111 = "stablehlo.exponential"(%110) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %112 = "stablehlo.add"(%109, %111) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %113 = "stablehlo.divide"(%109, %112) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %114 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %115 = "stablehlo.broadcast_in_dim"(%114) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %116 = "stablehlo.subtract"(%115, %113) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %117 = "stablehlo.multiply"(%113, %116) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %118 = "stablehlo.multiply"(%arg65, %113) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%118, %117, %113) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg62: tensor<2x64x2x1xi32>, %arg63: tensor<64x2x1xi32>, %arg64: tensor<i32>):
    %103 = "stablehlo.broadcast_in_dim"(%arg63) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x1xi32>) -> tensor<1x64x2x1xi32>
    %104 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %105 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %106 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %107 = "stablehlo.dynamic_update_slice"(%arg62, %103, %arg64, %104, %105, %106) : (tensor<2x64x2x1xi32>, tensor<1x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x1xi32>
    "func.return"(%107) : (tensor<2x64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_4", sym_visibility = "private"}> ({
  ^bb0(%arg59: tensor<2x64x2xf32>, %arg60: tensor<64x2xf32>, %arg61: tensor<i32>):
    %99 = "stablehlo.broadcast_in_dim"(%arg60) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xf32>) -> tensor<1x64x2xf32>
    %100 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %101 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %102 = "stablehlo.dynamic_update_slice"(%arg59, %99, %arg61, %100, %101) : (tensor<2x64x2xf32>, tensor<1x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xf32>
    "func.return"(%102) : (tensor<2x64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_5", sym_visibility = "private"}> ({
  ^bb0(%arg56: tensor<2x128x1xi32>, %arg57: tensor<128x1xi32>, %arg58: tensor<i32>):
    %95 = "stablehlo.broadcast_in_dim"(%arg57) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x1xi32>) -> tensor<1x128x1xi32>
    %96 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %97 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %98 = "stablehlo.dynamic_update_slice"(%arg56, %95, %arg58, %96, %97) : (tensor<2x128x1xi32>, tensor<1x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x1xi32>
    "func.return"(%98) : (tensor<2x128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_6", sym_visibility = "private"}> ({
  ^bb0(%arg53: tensor<2x32x64x64xbf16>, %arg54: tensor<32x64x64xbf16>, %arg55: tensor<i32>):
    %90 = "stablehlo.broadcast_in_dim"(%arg54) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x64x64xbf16>) -> tensor<1x32x64x64xbf16>
    %91 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %92 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %93 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %94 = "stablehlo.dynamic_update_slice"(%arg53, %90, %arg55, %91, %92, %93) : (tensor<2x32x64x64xbf16>, tensor<1x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xbf16>
    "func.return"(%94) : (tensor<2x32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_7", sym_visibility = "private"}> ({
  ^bb0(%arg50: tensor<2x4xi32>, %arg51: tensor<4xi32>, %arg52: tensor<i32>):
    %87 = "stablehlo.broadcast_in_dim"(%arg51) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1x4xi32>
    %88 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %89 = "stablehlo.dynamic_update_slice"(%arg50, %87, %arg52, %88) : (tensor<2x4xi32>, tensor<1x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x4xi32>
    "func.return"(%89) : (tensor<2x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_8", sym_visibility = "private"}> ({
  ^bb0(%arg47: tensor<2x128x64xbf16>, %arg48: tensor<128x64xbf16>, %arg49: tensor<i32>):
    %83 = "stablehlo.broadcast_in_dim"(%arg48) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<1x128x64xbf16>
    %84 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %85 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %86 = "stablehlo.dynamic_update_slice"(%arg47, %83, %arg49, %84, %85) : (tensor<2x128x64xbf16>, tensor<1x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xbf16>
    "func.return"(%86) : (tensor<2x128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_9", sym_visibility = "private"}> ({
  ^bb0(%arg44: tensor<2x1024x32xbf16>, %arg45: tensor<1024x32xbf16>, %arg46: tensor<i32>):
    %79 = "stablehlo.broadcast_in_dim"(%arg45) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<1024x32xbf16>) -> tensor<1x1024x32xbf16>
    %80 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %81 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %82 = "stablehlo.dynamic_update_slice"(%arg44, %79, %arg46, %80, %81) : (tensor<2x1024x32xbf16>, tensor<1x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1024x32xbf16>
    "func.return"(%82) : (tensor<2x1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_10", sym_visibility = "private"}> ({
  ^bb0(%arg41: tensor<2x32x32x64xbf16>, %arg42: tensor<32x32x64xbf16>, %arg43: tensor<i32>):
    %74 = "stablehlo.broadcast_in_dim"(%arg42) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x32x64xbf16>) -> tensor<1x32x32x64xbf16>
    %75 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %76 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %77 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %78 = "stablehlo.dynamic_update_slice"(%arg41, %74, %arg43, %75, %76, %77) : (tensor<2x32x32x64xbf16>, tensor<1x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32x64xbf16>
    "func.return"(%78) : (tensor<2x32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_11", sym_visibility = "private"}> ({
  ^bb0(%arg38: tensor<2x128x64xi1>, %arg39: tensor<128x64xi1>, %arg40: tensor<i32>):
    %70 = "stablehlo.broadcast_in_dim"(%arg39) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xi1>) -> tensor<1x128x64xi1>
    %71 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %72 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %73 = "stablehlo.dynamic_update_slice"(%arg38, %70, %arg40, %71, %72) : (tensor<2x128x64xi1>, tensor<1x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xi1>
    "func.return"(%73) : (tensor<2x128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_12", sym_visibility = "private"}> ({
  ^bb0(%arg35: tensor<2x64x2xbf16>, %arg36: tensor<64x2xbf16>, %arg37: tensor<i32>):
    %66 = "stablehlo.broadcast_in_dim"(%arg36) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xbf16>) -> tensor<1x64x2xbf16>
    %67 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %68 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %69 = "stablehlo.dynamic_update_slice"(%arg35, %66, %arg37, %67, %68) : (tensor<2x64x2xbf16>, tensor<1x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xbf16>
    "func.return"(%69) : (tensor<2x64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_13", sym_visibility = "private"}> ({
  ^bb0(%arg32: tensor<2x64x2x64xbf16>, %arg33: tensor<64x2x64xbf16>, %arg34: tensor<i32>):
    %61 = "stablehlo.broadcast_in_dim"(%arg33) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x64xbf16>) -> tensor<1x64x2x64xbf16>
    %62 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %63 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %64 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %65 = "stablehlo.dynamic_update_slice"(%arg32, %61, %arg34, %62, %63, %64) : (tensor<2x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x64xbf16>
    "func.return"(%65) : (tensor<2x64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_14", sym_visibility = "private"}> ({
  ^bb0(%arg30: tensor<2x64x2x1xi32>, %arg31: tensor<i32>):
    %56 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %57 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %58 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %59 = "stablehlo.dynamic_slice"(%arg30, %arg31, %56, %57, %58) <{slice_sizes = array<i64: 1, 64, 2, 1>}> : (tensor<2x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x1xi32>
    %60 = "stablehlo.reshape"(%59) : (tensor<1x64x2x1xi32>) -> tensor<64x2x1xi32>
    "func.return"(%60) : (tensor<64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_15", sym_visibility = "private"}> ({
  ^bb0(%arg28: tensor<2x64x2xf32>, %arg29: tensor<i32>):
    %52 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %53 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %54 = "stablehlo.dynamic_slice"(%arg28, %arg29, %52, %53) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xf32>
    %55 = "stablehlo.reshape"(%54) : (tensor<1x64x2xf32>) -> tensor<64x2xf32>
    "func.return"(%55) : (tensor<64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_16", sym_visibility = "private"}> ({
  ^bb0(%arg26: tensor<2x128x1xi32>, %arg27: tensor<i32>):
    %48 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %49 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %50 = "stablehlo.dynamic_slice"(%arg26, %arg27, %48, %49) <{slice_sizes = array<i64: 1, 128, 1>}> : (tensor<2x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x1xi32>
    %51 = "stablehlo.reshape"(%50) : (tensor<1x128x1xi32>) -> tensor<128x1xi32>
    "func.return"(%51) : (tensor<128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_17", sym_visibility = "private"}> ({
  ^bb0(%arg24: tensor<2x32x64x64xbf16>, %arg25: tensor<i32>):
    %43 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %44 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %45 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %46 = "stablehlo.dynamic_slice"(%arg24, %arg25, %43, %44, %45) <{slice_sizes = array<i64: 1, 32, 64, 64>}> : (tensor<2x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xbf16>
    %47 = "stablehlo.reshape"(%46) : (tensor<1x32x64x64xbf16>) -> tensor<32x64x64xbf16>
    "func.return"(%47) : (tensor<32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_18", sym_visibility = "private"}> ({
  ^bb0(%arg22: tensor<2x4xi32>, %arg23: tensor<i32>):
    %40 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %41 = "stablehlo.dynamic_slice"(%arg22, %arg23, %40) <{slice_sizes = array<i64: 1, 4>}> : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x4xi32>
    %42 = "stablehlo.reshape"(%41) : (tensor<1x4xi32>) -> tensor<4xi32>
    "func.return"(%42) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_19", sym_visibility = "private"}> ({
  ^bb0(%arg20: tensor<2x128x64xbf16>, %arg21: tensor<i32>):
    %36 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %37 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %38 = "stablehlo.dynamic_slice"(%arg20, %arg21, %36, %37) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xbf16>
    %39 = "stablehlo.reshape"(%38) : (tensor<1x128x64xbf16>) -> tensor<128x64xbf16>
    "func.return"(%39) : (tensor<128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_20", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<2x1024x32xbf16>, %arg19: tensor<i32>):
    %32 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %33 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %34 = "stablehlo.dynamic_slice"(%arg18, %arg19, %32, %33) <{slice_sizes = array<i64: 1, 1024, 32>}> : (tensor<2x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1024x32xbf16>
    %35 = "stablehlo.reshape"(%34) : (tensor<1x1024x32xbf16>) -> tensor<1024x32xbf16>
    "func.return"(%35) : (tensor<1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_21", sym_visibility = "private"}> ({
  ^bb0(%arg16: tensor<2x32x32x64xbf16>, %arg17: tensor<i32>):
    %27 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %28 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %29 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %30 = "stablehlo.dynamic_slice"(%arg16, %arg17, %27, %28, %29) <{slice_sizes = array<i64: 1, 32, 32, 64>}> : (tensor<2x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32x64xbf16>
    %31 = "stablehlo.reshape"(%30) : (tensor<1x32x32x64xbf16>) -> tensor<32x32x64xbf16>
    "func.return"(%31) : (tensor<32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_22", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<2x128x64xi1>, %arg15: tensor<i32>):
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %25 = "stablehlo.dynamic_slice"(%arg14, %arg15, %23, %24) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xi1>
    %26 = "stablehlo.reshape"(%25) : (tensor<1x128x64xi1>) -> tensor<128x64xi1>
    "func.return"(%26) : (tensor<128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_23", sym_visibility = "private"}> ({
  ^bb0(%arg12: tensor<2x64x2xbf16>, %arg13: tensor<i32>):
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %21 = "stablehlo.dynamic_slice"(%arg12, %arg13, %19, %20) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xbf16>
    %22 = "stablehlo.reshape"(%21) : (tensor<1x64x2xbf16>) -> tensor<64x2xbf16>
    "func.return"(%22) : (tensor<64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_24", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<2x64x2x64xbf16>, %arg11: tensor<i32>):
    %14 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.dynamic_slice"(%arg10, %arg11, %14, %15, %16) <{slice_sizes = array<i64: 1, 64, 2, 64>}> : (tensor<2x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x64xbf16>
    %18 = "stablehlo.reshape"(%17) : (tensor<1x64x2x64xbf16>) -> tensor<64x2x64xbf16>
    "func.return"(%18) : (tensor<64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>, res_attrs = [{}], sym_name = "silu_25", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<128x32xbf16>, %arg7: tensor<128x32xbf16>, %arg8: tensor<128x32xbf16>, %arg9: tensor<128x32xbf16>):
    %10 = "stablehlo.multiply"(%arg8, %arg9) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %11 = "stablehlo.multiply"(%arg9, %arg7) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %12 = "stablehlo.multiply"(%10, %arg6) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %13 = "stablehlo.add"(%11, %12) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%13) : (tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_26", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2x4x64x64xf32>, %arg4: tensor<4x64x64xf32>, %arg5: tensor<i32>):
    %5 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %6 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.dynamic_update_slice"(%arg3, %5, %arg5, %6, %7, %8) : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    "func.return"(%9) : (tensor<2x4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_27", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %3 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %1, %2, %3) : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    "func.return"(%4) : (tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
