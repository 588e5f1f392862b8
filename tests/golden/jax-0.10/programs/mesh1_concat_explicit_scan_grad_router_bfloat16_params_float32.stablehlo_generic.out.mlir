"builtin.module"() <{sym_name = "jit_moe_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["fsdp"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}], function_type = (tensor<64x64xbf16>, tensor<64x4xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1][0]"}, {jax.result_info = "result[1][1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg174: tensor<64x64xbf16>, %arg175: tensor<64x4xbf16>, %arg176: tensor<2x4x64x64xf32>, %arg177: tensor<2x4x32x64xf32>):
    %462 = "func.call"() <{callee = @argsort}> : () -> tensor<128xi32>
    %463 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %464 = "stablehlo.broadcast_in_dim"(%463) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
    %465 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %466 = "func.call"(%465) <{callee = @clip}> : (tensor<i32>) -> tensor<i32>
    %467 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %468 = "stablehlo.broadcast_in_dim"(%467) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %469 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %470:2 = "func.call"(%469) <{callee = @floor_divide}> : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
    %471 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %472 = "stablehlo.broadcast_in_dim"(%471) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %473 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xui32>
    %474 = "stablehlo.reshape"(%473) : (tensor<128xui32>) -> tensor<128x1xui32>
    %475 = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
    %476 = "stablehlo.broadcast_in_dim"(%475) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %477 = "stablehlo.broadcast_in_dim"(%474) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<128x1xui32>) -> tensor<128x64xui32>
    %478 = "stablehlo.add"(%477, %476) : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xui32>
    %479 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %480 = "stablehlo.broadcast_in_dim"(%479) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %481 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %482 = "stablehlo.broadcast_in_dim"(%481) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<128x64xui32>
    %483 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %484 = "stablehlo.broadcast_in_dim"(%483) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %485 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %486 = "stablehlo.broadcast_in_dim"(%485) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %487 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %488 = "stablehlo.broadcast_in_dim"(%487) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x64x2x1xi32>
    %489 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %490 = "stablehlo.broadcast_in_dim"(%489) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x2xf32>
    %491 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %492 = "stablehlo.broadcast_in_dim"(%491) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x1xf32>
    %493 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %494 = "stablehlo.broadcast_in_dim"(%493) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x64x1xf32>
    %495 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %496 = "stablehlo.broadcast_in_dim"(%495) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %497 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %498 = "stablehlo.broadcast_in_dim"(%497) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x64x64xbf16>
    %499 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %500 = "stablehlo.broadcast_in_dim"(%499) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x4xi32>
    %501 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %502 = "stablehlo.broadcast_in_dim"(%501) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x128x64xbf16>
    %503 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %504 = "stablehlo.broadcast_in_dim"(%503) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %505 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %506 = "stablehlo.broadcast_in_dim"(%505) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %507 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %508 = "stablehlo.broadcast_in_dim"(%507) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %509 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %510 = "stablehlo.broadcast_in_dim"(%509) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %511 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %512 = "stablehlo.broadcast_in_dim"(%511) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %513 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %514 = "stablehlo.broadcast_in_dim"(%513) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x32x32x64xbf16>
    %515 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %516 = "stablehlo.broadcast_in_dim"(%515) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %517 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %518 = "stablehlo.broadcast_in_dim"(%517) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<2x128x64xi1>
    %519 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %520 = "stablehlo.broadcast_in_dim"(%519) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x128x1xi32>
    %521 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %522 = "stablehlo.broadcast_in_dim"(%521) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2xbf16>
    %523 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %524 = "stablehlo.broadcast_in_dim"(%523) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<2x64x2x64xbf16>
    %525 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %526:36 = "stablehlo.while"(%arg176, %arg177, %480, %arg175, %462, %478, %482, %484, %472, %486, %470#0, %470#1, %464, %466, %468, %525, %arg174, %488, %490, %492, %494, %496, %498, %500, %502, %504, %506, %508, %510, %512, %514, %516, %518, %520, %522, %524) ({
    ^bb0(%arg264: tensor<2x4x64x64xf32>, %arg265: tensor<2x4x32x64xf32>, %arg266: tensor<128x64xui32>, %arg267: tensor<64x4xbf16>, %arg268: tensor<128xi32>, %arg269: tensor<128x64xui32>, %arg270: tensor<128x64xui32>, %arg271: tensor<128x64xbf16>, %arg272: tensor<128x64xbf16>, %arg273: tensor<128x64xbf16>, %arg274: tensor<i32>, %arg275: tensor<i32>, %arg276: tensor<4xi32>, %arg277: tensor<i32>, %arg278: tensor<128xi32>, %arg279: tensor<i32>, %arg280: tensor<64x64xbf16>, %arg281: tensor<2x64x2x1xi32>, %arg282: tensor<2x64x2xf32>, %arg283: tensor<2x64x1xf32>, %arg284: tensor<2x64x1xf32>, %arg285: tensor<2x128x1xi32>, %arg286: tensor<2x32x64x64xbf16>, %arg287: tensor<2x4xi32>, %arg288: tensor<2x128x64xbf16>, %arg289: tensor<2x1024x32xbf16>, %arg290: tensor<2x1024x32xbf16>, %arg291: tensor<2x1024x32xbf16>, %arg292: tensor<2x1024x32xbf16>, %arg293: tensor<2x1024x32xbf16>, %arg294: tensor<2x32x32x64xbf16>, %arg295: tensor<2x1024x32xbf16>, %arg296: tensor<2x128x64xi1>, %arg297: tensor<2x128x1xi32>, %arg298: tensor<2x64x2xbf16>, %arg299: tensor<2x64x2x64xbf16>):
      %603 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %604 = "stablehlo.compare"(%arg279, %603) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%604) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg228: tensor<2x4x64x64xf32>, %arg229: tensor<2x4x32x64xf32>, %arg230: tensor<128x64xui32>, %arg231: tensor<64x4xbf16>, %arg232: tensor<128xi32>, %arg233: tensor<128x64xui32>, %arg234: tensor<128x64xui32>, %arg235: tensor<128x64xbf16>, %arg236: tensor<128x64xbf16>, %arg237: tensor<128x64xbf16>, %arg238: tensor<i32>, %arg239: tensor<i32>, %arg240: tensor<4xi32>, %arg241: tensor<i32>, %arg242: tensor<128xi32>, %arg243: tensor<i32>, %arg244: tensor<64x64xbf16>, %arg245: tensor<2x64x2x1xi32>, %arg246: tensor<2x64x2xf32>, %arg247: tensor<2x64x1xf32>, %arg248: tensor<2x64x1xf32>, %arg249: tensor<2x128x1xi32>, %arg250: tensor<2x32x64x64xbf16>, %arg251: tensor<2x4xi32>, %arg252: tensor<2x128x64xbf16>, %arg253: tensor<2x1024x32xbf16>, %arg254: tensor<2x1024x32xbf16>, %arg255: tensor<2x1024x32xbf16>, %arg256: tensor<2x1024x32xbf16>, %arg257: tensor<2x1024x32xbf16>, %arg258: tensor<2x32x32x64xbf16>, %arg259: tensor<2x1024x32xbf16>, %arg260: tensor<2x128x64xi1>, %arg261: tensor<2x128x1xi32>, %arg262: tensor<2x64x2xbf16>, %arg263: tensor<2x64x2x64xbf16>):
      %579 = "func.call"(%arg228, %arg243) <{callee = @dynamic_index_in_dim}> : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %580 = "func.call"(%arg229, %arg243) <{callee = @dynamic_index_in_dim_0}> : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %581:20 = "func.call"(%arg230, %arg231, %arg232, %arg233, %arg234, %arg235, %arg236, %arg237, %arg238, %arg239, %arg240, %arg241, %arg242, %arg244, %579, %580) <{callee = @closed_call}> : (tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>)
      %582 = "func.call"(%arg245, %581#1, %arg243) <{callee = @dynamic_update_index_in_dim}> : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %583 = "func.call"(%arg246, %581#2, %arg243) <{callee = @dynamic_update_index_in_dim_4}> : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %584 = "func.call"(%arg247, %581#3, %arg243) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %585 = "func.call"(%arg248, %581#4, %arg243) <{callee = @dynamic_update_index_in_dim_5}> : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %586 = "func.call"(%arg249, %581#5, %arg243) <{callee = @dynamic_update_index_in_dim_6}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %587 = "func.call"(%arg250, %581#6, %arg243) <{callee = @dynamic_update_index_in_dim_7}> : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %588 = "func.call"(%arg251, %581#7, %arg243) <{callee = @dynamic_update_index_in_dim_8}> : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %589 = "func.call"(%arg252, %581#8, %arg243) <{callee = @dynamic_update_index_in_dim_9}> : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %590 = "func.call"(%arg253, %581#9, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %591 = "func.call"(%arg254, %581#10, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %592 = "func.call"(%arg255, %581#11, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %593 = "func.call"(%arg256, %581#12, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %594 = "func.call"(%arg257, %581#13, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %595 = "func.call"(%arg258, %581#14, %arg243) <{callee = @dynamic_update_index_in_dim_11}> : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %596 = "func.call"(%arg259, %581#15, %arg243) <{callee = @dynamic_update_index_in_dim_10}> : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %597 = "func.call"(%arg260, %581#16, %arg243) <{callee = @dynamic_update_index_in_dim_12}> : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %598 = "func.call"(%arg261, %581#17, %arg243) <{callee = @dynamic_update_index_in_dim_6}> : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %599 = "func.call"(%arg262, %581#18, %arg243) <{callee = @dynamic_update_index_in_dim_13}> : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %600 = "func.call"(%arg263, %581#19, %arg243) <{callee = @dynamic_update_index_in_dim_14}> : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %601 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %602 = "stablehlo.add"(%arg243, %601) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg228, %arg229, %arg230, %arg231, %arg232, %arg233, %arg234, %arg235, %arg236, %arg237, %arg238, %arg239, %arg240, %arg241, %arg242, %602, %581#0, %582, %583, %584, %585, %586, %587, %588, %589, %590, %591, %592, %593, %594, %595, %596, %597, %598, %599, %600) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> ()
    }) : (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>) -> (tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>)
    %527 = "stablehlo.convert"(%526#16) : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    %528 = "chlo.square"(%527) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %529 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %530 = "stablehlo.broadcast_in_dim"(%529) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %531 = "stablehlo.multiply"(%530, %527) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %532 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %533 = "stablehlo.reduce"(%528, %532) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg226: tensor<f32>, %arg227: tensor<f32>):
      %578 = "stablehlo.add"(%arg226, %arg227) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%578) : (tensor<f32>) -> ()
    }) : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %534 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %535 = "stablehlo.divide"(%533, %534) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %536 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %537 = "stablehlo.constant"() <{value = dense<4.096000e+03> : tensor<f32>}> : () -> tensor<f32>
    %538 = "stablehlo.divide"(%536, %537) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %539 = "stablehlo.broadcast_in_dim"(%538) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x64xf32>
    %540 = "stablehlo.multiply"(%539, %531) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %541 = "stablehlo.convert"(%540) : (tensor<64x64xf32>) -> tensor<64x64xbf16>
    %542 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %543 = "stablehlo.broadcast_in_dim"(%542) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %544 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %545 = "stablehlo.broadcast_in_dim"(%544) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %546 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %547:24 = "stablehlo.while"(%526#17, %526#18, %526#19, %526#20, %526#21, %526#22, %526#23, %526#24, %526#25, %526#26, %526#27, %526#28, %526#29, %526#30, %526#31, %526#32, %526#33, %526#34, %526#35, %arg175, %546, %541, %543, %545) ({
    ^bb0(%arg202: tensor<2x64x2x1xi32>, %arg203: tensor<2x64x2xf32>, %arg204: tensor<2x64x1xf32>, %arg205: tensor<2x64x1xf32>, %arg206: tensor<2x128x1xi32>, %arg207: tensor<2x32x64x64xbf16>, %arg208: tensor<2x4xi32>, %arg209: tensor<2x128x64xbf16>, %arg210: tensor<2x1024x32xbf16>, %arg211: tensor<2x1024x32xbf16>, %arg212: tensor<2x1024x32xbf16>, %arg213: tensor<2x1024x32xbf16>, %arg214: tensor<2x1024x32xbf16>, %arg215: tensor<2x32x32x64xbf16>, %arg216: tensor<2x1024x32xbf16>, %arg217: tensor<2x128x64xi1>, %arg218: tensor<2x128x1xi32>, %arg219: tensor<2x64x2xbf16>, %arg220: tensor<2x64x2x64xbf16>, %arg221: tensor<64x4xbf16>, %arg222: tensor<i32>, %arg223: tensor<64x64xbf16>, %arg224: tensor<2x4x64x64xf32>, %arg225: tensor<2x4x32x64xf32>):
      %576 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %577 = "stablehlo.compare"(%arg222, %576) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%577) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg178: tensor<2x64x2x1xi32>, %arg179: tensor<2x64x2xf32>, %arg180: tensor<2x64x1xf32>, %arg181: tensor<2x64x1xf32>, %arg182: tensor<2x128x1xi32>, %arg183: tensor<2x32x64x64xbf16>, %arg184: tensor<2x4xi32>, %arg185: tensor<2x128x64xbf16>, %arg186: tensor<2x1024x32xbf16>, %arg187: tensor<2x1024x32xbf16>, %arg188: tensor<2x1024x32xbf16>, %arg189: tensor<2x1024x32xbf16>, %arg190: tensor<2x1024x32xbf16>, %arg191: tensor<2x32x32x64xbf16>, %arg192: tensor<2x1024x32xbf16>, %arg193: tensor<2x128x64xi1>, %arg194: tensor<2x128x1xi32>, %arg195: tensor<2x64x2xbf16>, %arg196: tensor<2x64x2x64xbf16>, %arg197: tensor<64x4xbf16>, %arg198: tensor<i32>, %arg199: tensor<64x64xbf16>, %arg200: tensor<2x4x64x64xf32>, %arg201: tensor<2x4x32x64xf32>):
      %548 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %549 = "stablehlo.subtract"(%548, %arg198) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %550 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %551 = "stablehlo.subtract"(%549, %550) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %552 = "func.call"(%arg178, %551) <{callee = @dynamic_index_in_dim_15}> : (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>
      %553 = "func.call"(%arg179, %551) <{callee = @dynamic_index_in_dim_16}> : (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>
      %554 = "func.call"(%arg180, %551) <{callee = @dynamic_index_in_dim_17}> : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %555 = "func.call"(%arg181, %551) <{callee = @dynamic_index_in_dim_17}> : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %556 = "func.call"(%arg182, %551) <{callee = @dynamic_index_in_dim_18}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %557 = "func.call"(%arg183, %551) <{callee = @dynamic_index_in_dim_19}> : (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>
      %558 = "func.call"(%arg184, %551) <{callee = @dynamic_index_in_dim_20}> : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
      %559 = "func.call"(%arg185, %551) <{callee = @dynamic_index_in_dim_21}> : (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>
      %560 = "func.call"(%arg186, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %561 = "func.call"(%arg187, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %562 = "func.call"(%arg188, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %563 = "func.call"(%arg189, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %564 = "func.call"(%arg190, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %565 = "func.call"(%arg191, %551) <{callee = @dynamic_index_in_dim_23}> : (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>
      %566 = "func.call"(%arg192, %551) <{callee = @dynamic_index_in_dim_22}> : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %567 = "func.call"(%arg193, %551) <{callee = @dynamic_index_in_dim_24}> : (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>
      %568 = "func.call"(%arg194, %551) <{callee = @dynamic_index_in_dim_18}> : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %569 = "func.call"(%arg195, %551) <{callee = @dynamic_index_in_dim_25}> : (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>
      %570 = "func.call"(%arg196, %551) <{callee = @dynamic_index_in_dim_26}> : (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>
      %571:3 = "func.call"(%arg197, %arg199, %552, %553, %554, %555, %556, %557, %558, %559, %560, %561, %562, %563, %564, %565, %566, %567, %568, %569, %570) <{callee = @closed_call_27}> : (tensor<64x4xbf16>, tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>) -> (tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %572 = "func.call"(%arg200, %571#1, %551) <{callee = @dynamic_update_index_in_dim_29}> : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %573 = "func.call"(%arg201, %571#2, %551) <{callee = @dynamic_update_index_in_dim_30}> : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %574 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %575 = "stablehlo.add"(%arg198, %574) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg178, %arg179, %arg180, %arg181, %arg182, %arg183, %arg184, %arg185, %arg186, %arg187, %arg188, %arg189, %arg190, %arg191, %arg192, %arg193, %arg194, %arg195, %arg196, %arg197, %575, %571#0, %572, %573) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
    }) : (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> (tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>)
    "func.return"(%535, %547#22, %547#23) : (tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [], function_type = () -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort", sym_visibility = "private"}> ({
    %461 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<128xi32>
    "func.return"(%461) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg173: tensor<i32>):
    %460 = "stablehlo.convert"(%arg173) : (tensor<i32>) -> tensor<i32>
    "func.return"(%460) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<i32>) -> (tensor<i32>, tensor<i32>), res_attrs = [{}, {}], sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg172: tensor<i32>):
    %458 = "stablehlo.convert"(%arg172) : (tensor<i32>) -> tensor<i32>
    %459 = "stablehlo.sign"(%458) : (tensor<i32>) -> tensor<i32>
    "func.return"(%459, %458) : (tensor<i32>, tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg170: tensor<2x4x64x64xf32>, %arg171: tensor<i32>):
    %453 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %454 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %455 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %456 = "stablehlo.dynamic_slice"(%arg170, %arg171, %453, %454, %455) <{slice_sizes = array<i64: 1, 4, 64, 64>}> : (tensor<2x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x64x64xf32>
    %457 = "stablehlo.reshape"(%456) : (tensor<1x4x64x64xf32>) -> tensor<4x64x64xf32>
    "func.return"(%457) : (tensor<4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg168: tensor<2x4x32x64xf32>, %arg169: tensor<i32>):
    %448 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %449 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %450 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %451 = "stablehlo.dynamic_slice"(%arg168, %arg169, %448, %449, %450) <{slice_sizes = array<i64: 1, 4, 32, 64>}> : (tensor<2x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x32x64xf32>
    %452 = "stablehlo.reshape"(%451) : (tensor<1x4x32x64xf32>) -> tensor<4x32x64xf32>
    "func.return"(%452) : (tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>), res_attrs = [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg138: tensor<128x64xui32>, %arg139: tensor<64x4xbf16>, %arg140: tensor<128xi32>, %arg141: tensor<128x64xui32>, %arg142: tensor<128x64xui32>, %arg143: tensor<128x64xbf16>, %arg144: tensor<128x64xbf16>, %arg145: tensor<128x64xbf16>, %arg146: tensor<i32>, %arg147: tensor<i32>, %arg148: tensor<4xi32>, %arg149: tensor<i32>, %arg150: tensor<128xi32>, %arg151: tensor<64x64xbf16>, %arg152: tensor<4x64x64xf32>, %arg153: tensor<4x32x64xf32>):
    %334 = "stablehlo.dot_general"(%arg151, %arg139) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
    %335 = "stablehlo.convert"(%334) : (tensor<64x4xbf16>) -> tensor<64x4xf32>
    %336:2 = "chlo.top_k"(%335) <{k = 2 : i64}> : (tensor<64x4xf32>) -> (tensor<64x2xf32>, tensor<64x2xi32>)
    %337 = "stablehlo.reshape"(%336#1) : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
    %338 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %339 = "stablehlo.reduce"(%336#0, %338) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg166: tensor<f32>, %arg167: tensor<f32>):
      %447 = "stablehlo.maximum"(%arg166, %arg167) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%447) : (tensor<f32>) -> ()
    }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %340 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %341 = "stablehlo.broadcast_in_dim"(%340) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64xf32>
    %342 = "stablehlo.maximum"(%341, %339) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %343 = "stablehlo.broadcast_in_dim"(%342) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
    %344 = "stablehlo.broadcast_in_dim"(%343) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %345 = "stablehlo.subtract"(%336#0, %344) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %346 = "stablehlo.exponential"(%345) : (tensor<64x2xf32>) -> tensor<64x2xf32>
    %347 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %348 = "stablehlo.reduce"(%346, %347) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg164: tensor<f32>, %arg165: tensor<f32>):
      %446 = "stablehlo.add"(%arg164, %arg165) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%446) : (tensor<f32>) -> ()
    }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %349 = "stablehlo.broadcast_in_dim"(%348) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x1xf32>
    %350 = "stablehlo.broadcast_in_dim"(%349) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %351 = "stablehlo.divide"(%346, %350) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %352 = "stablehlo.multiply"(%349, %349) : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
    %353 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %354 = "stablehlo.broadcast_in_dim"(%353) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x1xf32>
    %355 = "stablehlo.divide"(%354, %352) : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
    %356 = "stablehlo.convert"(%351) : (tensor<64x2xf32>) -> tensor<64x2xbf16>
    %357 = "stablehlo.reshape"(%336#1) : (tensor<64x2xi32>) -> tensor<128xi32>
    %358 = "func.call"(%357, %arg140) <{callee = @argsort_1}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %359 = "func.call"(%357, %arg149) <{callee = @clip_2}> : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
    %360 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %361 = "stablehlo.broadcast_in_dim"(%360) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %362 = "stablehlo.compare"(%359, %361) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %363 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %364 = "stablehlo.broadcast_in_dim"(%363) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %365 = "stablehlo.add"(%359, %364) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %366 = "stablehlo.select"(%362, %365, %359) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %367 = "stablehlo.broadcast_in_dim"(%366) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %368 = "stablehlo.scatter"(%arg148, %367, %arg150) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg162: tensor<i32>, %arg163: tensor<i32>):
      %445 = "stablehlo.add"(%arg162, %arg163) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%445) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
    %369 = "func.call"(%358, %arg146, %arg147) <{callee = @floor_divide_3}> : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
    %370 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %371 = "stablehlo.broadcast_in_dim"(%370) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %372 = "stablehlo.compare"(%369, %371) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %373 = "stablehlo.constant"() <{value = dense<64> : tensor<i32>}> : () -> tensor<i32>
    %374 = "stablehlo.broadcast_in_dim"(%373) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %375 = "stablehlo.add"(%369, %374) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %376 = "stablehlo.select"(%372, %375, %369) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %377 = "stablehlo.broadcast_in_dim"(%376) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %378 = "stablehlo.gather"(%arg151, %377) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
    %379:9 = "sdy.manual_computation"(%378, %368, %arg152, %arg153) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}]>]>}> ({
    ^bb0(%arg158: tensor<128x64xbf16>, %arg159: tensor<4xi32>, %arg160: tensor<4x8x64xf32>, %arg161: tensor<4x32x64xf32>):
      %400 = "stablehlo.convert"(%arg160) : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
      %v404.hp1 = "stablehlo.all_gather"(%400) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
      %401 = "stablehlo.convert"(%arg161) : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
      %407 = "stablehlo.broadcast_in_dim"(%arg158) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %408 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %409 = "func.call"(%arg159) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %410 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %411 = "stablehlo.broadcast_in_dim"(%410) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %412 = "stablehlo.slice"(%411) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %413 = "stablehlo.slice"(%409) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %414 = "stablehlo.concatenate"(%412, %413) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %415 = "stablehlo.broadcast_in_dim"(%409) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %416 = "stablehlo.broadcast_in_dim"(%414) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %417 = "stablehlo.compare"(%416, %408) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %418 = "stablehlo.compare"(%408, %415) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %419 = "stablehlo.and"(%417, %418) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %420 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %421 = "stablehlo.broadcast_in_dim"(%420) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %422 = "stablehlo.select"(%419, %407, %421) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %423 = "stablehlo.dot_general"(%422, %v404.hp1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
      %424 = "stablehlo.slice"(%423) <{limit_indices = array<i64: 128, 32>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
      %425 = "stablehlo.slice"(%423) <{limit_indices = array<i64: 128, 64>, start_indices = array<i64: 0, 32>, strides = array<i64: 1, 1>}> : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
      %426:3 = "func.call"(%424) <{callee = @silu}> : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
      %427 = "stablehlo.multiply"(%426#0, %425) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
      %428 = "stablehlo.broadcast_in_dim"(%427) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
      %429 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
      %430 = "func.call"(%arg159) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %431 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %432 = "stablehlo.broadcast_in_dim"(%431) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %433 = "stablehlo.slice"(%432) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %434 = "stablehlo.slice"(%430) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %435 = "stablehlo.concatenate"(%433, %434) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %436 = "stablehlo.broadcast_in_dim"(%430) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %437 = "stablehlo.broadcast_in_dim"(%435) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %438 = "stablehlo.compare"(%437, %429) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %439 = "stablehlo.compare"(%429, %436) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %440 = "stablehlo.and"(%438, %439) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
      %441 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %442 = "stablehlo.broadcast_in_dim"(%441) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
      %443 = "stablehlo.select"(%440, %428, %442) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
      %444 = "stablehlo.dot_general"(%443, %401) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [1, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
      "sdy.return"(%v404.hp1, %426#1, %426#2, %424, %425, %426#0, %401, %427, %444) : (tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>, tensor<128x64xbf16>) -> ()
    }) : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xbf16>)
    %380 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %381 = "stablehlo.broadcast_in_dim"(%380) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %382 = "stablehlo.compare"(%358, %381) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %383 = "stablehlo.constant"() <{value = dense<128> : tensor<i32>}> : () -> tensor<i32>
    %384 = "stablehlo.broadcast_in_dim"(%383) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %385 = "stablehlo.add"(%358, %384) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %386 = "stablehlo.select"(%382, %385, %358) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %387 = "stablehlo.broadcast_in_dim"(%386) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %388 = "stablehlo.scatter"(%arg138, %387, %arg141) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg156: tensor<ui32>, %arg157: tensor<ui32>):
      "stablehlo.return"(%arg157) : (tensor<ui32>) -> ()
    }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
    %389 = "stablehlo.gather"(%388, %387) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
    %390 = "stablehlo.compare"(%388, %arg142) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %391 = "stablehlo.select"(%390, %arg144, %arg143) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %392 = "stablehlo.compare"(%arg141, %389) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %393 = "stablehlo.select"(%392, %379#8, %arg145) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %394 = "stablehlo.compare"(%arg141, %389) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %395 = "stablehlo.scatter"(%391, %387, %393) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg154: tensor<bf16>, %arg155: tensor<bf16>):
      %399 = "stablehlo.add"(%arg154, %arg155) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      "stablehlo.return"(%399) : (tensor<bf16>) -> ()
    }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %396 = "stablehlo.reshape"(%395) : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
    %397 = "stablehlo.dot_general"(%396, %356) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
    %398 = "stablehlo.add"(%arg151, %397) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    "func.return"(%398, %337, %346, %349, %355, %377, %379#0, %368, %378, %379#1, %379#2, %379#3, %379#4, %379#5, %379#6, %379#7, %394, %387, %356, %396) : (tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "argsort_1", sym_visibility = "private"}> ({
  ^bb0(%arg132: tensor<128xi32>, %arg133: tensor<128xi32>):
    %332:2 = "stablehlo.sort"(%arg132, %arg133) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg134: tensor<i32>, %arg135: tensor<i32>, %arg136: tensor<i32>, %arg137: tensor<i32>):
      %333 = "stablehlo.compare"(%arg134, %arg135) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%333) : (tensor<i1>) -> ()
    }) : (tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>)
    "func.return"(%332#1) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "clip_2", sym_visibility = "private"}> ({
  ^bb0(%arg130: tensor<128xi32>, %arg131: tensor<i32>):
    %330 = "stablehlo.broadcast_in_dim"(%arg131) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %331 = "stablehlo.maximum"(%330, %arg130) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%331) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "floor_divide_3", sym_visibility = "private"}> ({
  ^bb0(%arg127: tensor<128xi32>, %arg128: tensor<i32>, %arg129: tensor<i32>):
    %315 = "stablehlo.broadcast_in_dim"(%arg129) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %316 = "stablehlo.divide"(%arg127, %315) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %317 = "stablehlo.sign"(%arg127) : (tensor<128xi32>) -> tensor<128xi32>
    %318 = "stablehlo.broadcast_in_dim"(%arg128) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %319 = "stablehlo.compare"(%317, %318) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %320 = "stablehlo.broadcast_in_dim"(%arg129) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %321 = "stablehlo.remainder"(%arg127, %320) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %322 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %323 = "stablehlo.broadcast_in_dim"(%322) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %324 = "stablehlo.compare"(%321, %323) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %325 = "stablehlo.and"(%319, %324) : (tensor<128xi1>, tensor<128xi1>) -> tensor<128xi1>
    %326 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %327 = "stablehlo.broadcast_in_dim"(%326) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128xi32>
    %328 = "stablehlo.subtract"(%316, %327) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %329 = "func.call"(%325, %328, %316) <{callee = @_where}> : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%329) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg124: tensor<128xi1>, %arg125: tensor<128xi32>, %arg126: tensor<128xi32>):
    %314 = "stablehlo.select"(%arg124, %arg125, %arg126) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "func.return"(%314) : (tensor<128xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg121: tensor<4xi32>):
    %310 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %311 = "stablehlo.broadcast_in_dim"(%310) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<i32>
    %312 = "stablehlo.reduce_window"(%arg121, %311) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg122: tensor<i32>, %arg123: tensor<i32>):
      %313 = "stablehlo.add"(%arg122, %arg123) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%313) : (tensor<i32>) -> ()
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    "func.return"(%312) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>), res_attrs = [{}, {}, {}], sym_name = "silu", sym_visibility = "private"}> ({
  ^bb0(%arg120: tensor<128x32xbf16>):
    %297 = "stablehlo.negate"(%arg120) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %298 = "stablehlo.exponential"(%297) : (tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %299 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %300 = "stablehlo.broadcast_in_dim"(%299) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %301 = "stablehlo.add"(%300, %298) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %302 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %303 = "stablehlo.broadcast_in_dim"(%302) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %304 = "stablehlo.divide"(%303, %301) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %305 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %306 = "stablehlo.broadcast_in_dim"(%305) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x32xbf16>
    %307 = "stablehlo.subtract"(%306, %304) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %308 = "stablehlo.multiply"(%304, %307) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %309 = "stablehlo.multiply"(%arg120, %304) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%309, %308, %304) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg117: tensor<2x64x2x1xi32>, %arg118: tensor<64x2x1xi32>, %arg119: tensor<i32>):
    %292 = "stablehlo.broadcast_in_dim"(%arg118) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x1xi32>) -> tensor<1x64x2x1xi32>
    %293 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %294 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %295 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %296 = "stablehlo.dynamic_update_slice"(%arg117, %292, %arg119, %293, %294, %295) : (tensor<2x64x2x1xi32>, tensor<1x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x1xi32>
    "func.return"(%296) : (tensor<2x64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_4", sym_visibility = "private"}> ({
  ^bb0(%arg114: tensor<2x64x2xf32>, %arg115: tensor<64x2xf32>, %arg116: tensor<i32>):
    %288 = "stablehlo.broadcast_in_dim"(%arg115) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xf32>) -> tensor<1x64x2xf32>
    %289 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %290 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %291 = "stablehlo.dynamic_update_slice"(%arg114, %288, %arg116, %289, %290) : (tensor<2x64x2xf32>, tensor<1x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xf32>
    "func.return"(%291) : (tensor<2x64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_5", sym_visibility = "private"}> ({
  ^bb0(%arg111: tensor<2x64x1xf32>, %arg112: tensor<64x1xf32>, %arg113: tensor<i32>):
    %284 = "stablehlo.broadcast_in_dim"(%arg112) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x1xf32>) -> tensor<1x64x1xf32>
    %285 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %286 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %287 = "stablehlo.dynamic_update_slice"(%arg111, %284, %arg113, %285, %286) : (tensor<2x64x1xf32>, tensor<1x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x1xf32>
    "func.return"(%287) : (tensor<2x64x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_6", sym_visibility = "private"}> ({
  ^bb0(%arg108: tensor<2x128x1xi32>, %arg109: tensor<128x1xi32>, %arg110: tensor<i32>):
    %280 = "stablehlo.broadcast_in_dim"(%arg109) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x1xi32>) -> tensor<1x128x1xi32>
    %281 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %282 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %283 = "stablehlo.dynamic_update_slice"(%arg108, %280, %arg110, %281, %282) : (tensor<2x128x1xi32>, tensor<1x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x1xi32>
    "func.return"(%283) : (tensor<2x128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_7", sym_visibility = "private"}> ({
  ^bb0(%arg105: tensor<2x32x64x64xbf16>, %arg106: tensor<32x64x64xbf16>, %arg107: tensor<i32>):
    %275 = "stablehlo.broadcast_in_dim"(%arg106) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x64x64xbf16>) -> tensor<1x32x64x64xbf16>
    %276 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %277 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %278 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %279 = "stablehlo.dynamic_update_slice"(%arg105, %275, %arg107, %276, %277, %278) : (tensor<2x32x64x64xbf16>, tensor<1x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xbf16>
    "func.return"(%279) : (tensor<2x32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_8", sym_visibility = "private"}> ({
  ^bb0(%arg102: tensor<2x4xi32>, %arg103: tensor<4xi32>, %arg104: tensor<i32>):
    %272 = "stablehlo.broadcast_in_dim"(%arg103) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1x4xi32>
    %273 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %274 = "stablehlo.dynamic_update_slice"(%arg102, %272, %arg104, %273) : (tensor<2x4xi32>, tensor<1x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x4xi32>
    "func.return"(%274) : (tensor<2x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_9", sym_visibility = "private"}> ({
  ^bb0(%arg99: tensor<2x128x64xbf16>, %arg100: tensor<128x64xbf16>, %arg101: tensor<i32>):
    %268 = "stablehlo.broadcast_in_dim"(%arg100) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<1x128x64xbf16>
    %269 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %270 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %271 = "stablehlo.dynamic_update_slice"(%arg99, %268, %arg101, %269, %270) : (tensor<2x128x64xbf16>, tensor<1x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xbf16>
    "func.return"(%271) : (tensor<2x128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_10", sym_visibility = "private"}> ({
  ^bb0(%arg96: tensor<2x1024x32xbf16>, %arg97: tensor<1024x32xbf16>, %arg98: tensor<i32>):
    %264 = "stablehlo.broadcast_in_dim"(%arg97) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<1024x32xbf16>) -> tensor<1x1024x32xbf16>
    %265 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %266 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %267 = "stablehlo.dynamic_update_slice"(%arg96, %264, %arg98, %265, %266) : (tensor<2x1024x32xbf16>, tensor<1x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1024x32xbf16>
    "func.return"(%267) : (tensor<2x1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_11", sym_visibility = "private"}> ({
  ^bb0(%arg93: tensor<2x32x32x64xbf16>, %arg94: tensor<32x32x64xbf16>, %arg95: tensor<i32>):
    %259 = "stablehlo.broadcast_in_dim"(%arg94) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<32x32x64xbf16>) -> tensor<1x32x32x64xbf16>
    %260 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %261 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %262 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %263 = "stablehlo.dynamic_update_slice"(%arg93, %259, %arg95, %260, %261, %262) : (tensor<2x32x32x64xbf16>, tensor<1x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32x64xbf16>
    "func.return"(%263) : (tensor<2x32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_12", sym_visibility = "private"}> ({
  ^bb0(%arg90: tensor<2x128x64xi1>, %arg91: tensor<128x64xi1>, %arg92: tensor<i32>):
    %255 = "stablehlo.broadcast_in_dim"(%arg91) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xi1>) -> tensor<1x128x64xi1>
    %256 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %257 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %258 = "stablehlo.dynamic_update_slice"(%arg90, %255, %arg92, %256, %257) : (tensor<2x128x64xi1>, tensor<1x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xi1>
    "func.return"(%258) : (tensor<2x128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_13", sym_visibility = "private"}> ({
  ^bb0(%arg87: tensor<2x64x2xbf16>, %arg88: tensor<64x2xbf16>, %arg89: tensor<i32>):
    %251 = "stablehlo.broadcast_in_dim"(%arg88) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<64x2xbf16>) -> tensor<1x64x2xbf16>
    %252 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %253 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %254 = "stablehlo.dynamic_update_slice"(%arg87, %251, %arg89, %252, %253) : (tensor<2x64x2xbf16>, tensor<1x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xbf16>
    "func.return"(%254) : (tensor<2x64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_14", sym_visibility = "private"}> ({
  ^bb0(%arg84: tensor<2x64x2x64xbf16>, %arg85: tensor<64x2x64xbf16>, %arg86: tensor<i32>):
    %246 = "stablehlo.broadcast_in_dim"(%arg85) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<64x2x64xbf16>) -> tensor<1x64x2x64xbf16>
    %247 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %248 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %249 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %250 = "stablehlo.dynamic_update_slice"(%arg84, %246, %arg86, %247, %248, %249) : (tensor<2x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x64xbf16>
    "func.return"(%250) : (tensor<2x64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_15", sym_visibility = "private"}> ({
  ^bb0(%arg82: tensor<2x64x2x1xi32>, %arg83: tensor<i32>):
    %241 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %242 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %243 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %244 = "stablehlo.dynamic_slice"(%arg82, %arg83, %241, %242, %243) <{slice_sizes = array<i64: 1, 64, 2, 1>}> : (tensor<2x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x1xi32>
    %245 = "stablehlo.reshape"(%244) : (tensor<1x64x2x1xi32>) -> tensor<64x2x1xi32>
    "func.return"(%245) : (tensor<64x2x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_16", sym_visibility = "private"}> ({
  ^bb0(%arg80: tensor<2x64x2xf32>, %arg81: tensor<i32>):
    %237 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %238 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %239 = "stablehlo.dynamic_slice"(%arg80, %arg81, %237, %238) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xf32>
    %240 = "stablehlo.reshape"(%239) : (tensor<1x64x2xf32>) -> tensor<64x2xf32>
    "func.return"(%240) : (tensor<64x2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_17", sym_visibility = "private"}> ({
  ^bb0(%arg78: tensor<2x64x1xf32>, %arg79: tensor<i32>):
    %233 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %234 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %235 = "stablehlo.dynamic_slice"(%arg78, %arg79, %233, %234) <{slice_sizes = array<i64: 1, 64, 1>}> : (tensor<2x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x1xf32>
    %236 = "stablehlo.reshape"(%235) : (tensor<1x64x1xf32>) -> tensor<64x1xf32>
    "func.return"(%236) : (tensor<64x1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_18", sym_visibility = "private"}> ({
  ^bb0(%arg76: tensor<2x128x1xi32>, %arg77: tensor<i32>):
    %229 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %230 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %231 = "stablehlo.dynamic_slice"(%arg76, %arg77, %229, %230) <{slice_sizes = array<i64: 1, 128, 1>}> : (tensor<2x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x1xi32>
    %232 = "stablehlo.reshape"(%231) : (tensor<1x128x1xi32>) -> tensor<128x1xi32>
    "func.return"(%232) : (tensor<128x1xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_19", sym_visibility = "private"}> ({
  ^bb0(%arg74: tensor<2x32x64x64xbf16>, %arg75: tensor<i32>):
    %224 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %225 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %226 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %227 = "stablehlo.dynamic_slice"(%arg74, %arg75, %224, %225, %226) <{slice_sizes = array<i64: 1, 32, 64, 64>}> : (tensor<2x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xbf16>
    %228 = "stablehlo.reshape"(%227) : (tensor<1x32x64x64xbf16>) -> tensor<32x64x64xbf16>
    "func.return"(%228) : (tensor<32x64x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_20", sym_visibility = "private"}> ({
  ^bb0(%arg72: tensor<2x4xi32>, %arg73: tensor<i32>):
    %221 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %222 = "stablehlo.dynamic_slice"(%arg72, %arg73, %221) <{slice_sizes = array<i64: 1, 4>}> : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x4xi32>
    %223 = "stablehlo.reshape"(%222) : (tensor<1x4xi32>) -> tensor<4xi32>
    "func.return"(%223) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_21", sym_visibility = "private"}> ({
  ^bb0(%arg70: tensor<2x128x64xbf16>, %arg71: tensor<i32>):
    %217 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %218 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %219 = "stablehlo.dynamic_slice"(%arg70, %arg71, %217, %218) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xbf16>
    %220 = "stablehlo.reshape"(%219) : (tensor<1x128x64xbf16>) -> tensor<128x64xbf16>
    "func.return"(%220) : (tensor<128x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_22", sym_visibility = "private"}> ({
  ^bb0(%arg68: tensor<2x1024x32xbf16>, %arg69: tensor<i32>):
    %213 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %214 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %215 = "stablehlo.dynamic_slice"(%arg68, %arg69, %213, %214) <{slice_sizes = array<i64: 1, 1024, 32>}> : (tensor<2x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1024x32xbf16>
    %216 = "stablehlo.reshape"(%215) : (tensor<1x1024x32xbf16>) -> tensor<1024x32xbf16>
    "func.return"(%216) : (tensor<1024x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_23", sym_visibility = "private"}> ({
  ^bb0(%arg66: tensor<2x32x32x64xbf16>, %arg67: tensor<i32>):
    %208 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %209 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %210 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %211 = "stablehlo.dynamic_slice"(%arg66, %arg67, %208, %209, %210) <{slice_sizes = array<i64: 1, 32, 32, 64>}> : (tensor<2x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32x64xbf16>
    %212 = "stablehlo.reshape"(%211) : (tensor<1x32x32x64xbf16>) -> tensor<32x32x64xbf16>
    "func.return"(%212) : (tensor<32x32x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_24", sym_visibility = "private"}> ({
  ^bb0(%arg64: tensor<2x128x64xi1>, %arg65: tensor<i32>):
    %204 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %205 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %206 = "stablehlo.dynamic_slice"(%arg64, %arg65, %204, %205) <{slice_sizes = array<i64: 1, 128, 64>}> : (tensor<2x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xi1>
    %207 = "stablehlo.reshape"(%206) : (tensor<1x128x64xi1>) -> tensor<128x64xi1>
    "func.return"(%207) : (tensor<128x64xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_25", sym_visibility = "private"}> ({
  ^bb0(%arg62: tensor<2x64x2xbf16>, %arg63: tensor<i32>):
    %200 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %201 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %202 = "stablehlo.dynamic_slice"(%arg62, %arg63, %200, %201) <{slice_sizes = array<i64: 1, 64, 2>}> : (tensor<2x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xbf16>
    %203 = "stablehlo.reshape"(%202) : (tensor<1x64x2xbf16>) -> tensor<64x2xbf16>
    "func.return"(%203) : (tensor<64x2xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_26", sym_visibility = "private"}> ({
  ^bb0(%arg60: tensor<2x64x2x64xbf16>, %arg61: tensor<i32>):
    %195 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %196 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %197 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %198 = "stablehlo.dynamic_slice"(%arg60, %arg61, %195, %196, %197) <{slice_sizes = array<i64: 1, 64, 2, 64>}> : (tensor<2x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x64xbf16>
    %199 = "stablehlo.reshape"(%198) : (tensor<1x64x2x64xbf16>) -> tensor<64x2x64xbf16>
    "func.return"(%199) : (tensor<64x2x64xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<64x4xbf16>, tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>) -> (tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>), res_attrs = [{}, {}, {}], sym_name = "closed_call_27", sym_visibility = "private"}> ({
  ^bb0(%arg10: tensor<64x4xbf16>, %arg11: tensor<64x64xbf16>, %arg12: tensor<64x2x1xi32>, %arg13: tensor<64x2xf32>, %arg14: tensor<64x1xf32>, %arg15: tensor<64x1xf32>, %arg16: tensor<128x1xi32>, %arg17: tensor<32x64x64xbf16>, %arg18: tensor<4xi32>, %arg19: tensor<128x64xbf16>, %arg20: tensor<1024x32xbf16>, %arg21: tensor<1024x32xbf16>, %arg22: tensor<1024x32xbf16>, %arg23: tensor<1024x32xbf16>, %arg24: tensor<1024x32xbf16>, %arg25: tensor<32x32x64xbf16>, %arg26: tensor<1024x32xbf16>, %arg27: tensor<128x64xi1>, %arg28: tensor<128x1xi32>, %arg29: tensor<64x2xbf16>, %arg30: tensor<64x2x64xbf16>):
    %14 = "stablehlo.dot_general"(%arg11, %arg30) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
    %15 = "stablehlo.dot_general"(%arg11, %arg29) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
    %16 = "stablehlo.transpose"(%15) <{permutation = array<i64: 0, 2, 1>}> : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
    %17 = "stablehlo.reshape"(%16) : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
    %18 = "stablehlo.constant"() <{value = dense<127> : tensor<1xi32>}> : () -> tensor<1xi32>
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<128x1xi32>
    %21 = "stablehlo.compare"(%arg28, %20) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
    %22 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64: 1>}> : (tensor<1xi32>) -> tensor<1x1xi32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xi32>) -> tensor<128x1xi32>
    %24 = "stablehlo.compare"(%arg28, %23) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
    %25 = "stablehlo.and"(%21, %24) : (tensor<128x1xi1>, tensor<128x1xi1>) -> tensor<128x1xi1>
    %26 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %27 = "stablehlo.reduce"(%25, %26) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg58: tensor<i1>, %arg59: tensor<i1>):
      %194 = "stablehlo.and"(%arg58, %arg59) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%194) : (tensor<i1>) -> ()
    }) : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
    %28 = "stablehlo.gather"(%17, %arg28) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
    %29 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 0>}> : (tensor<128xi1>) -> tensor<128x64xi1>
    %30 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %32 = "stablehlo.select"(%29, %28, %31) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %33 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %35 = "stablehlo.select"(%arg27, %32, %34) : (tensor<128x64xi1>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %36 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<128x64xbf16>
    %38 = "stablehlo.divide"(%35, %37) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %39:3 = "sdy.manual_computation"(%38, %arg17, %arg18, %arg19, %arg20, %arg21, %arg22, %arg23, %arg24, %arg25, %arg26) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>]>, manual_axes = #sdy<manual_axes{"fsdp"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>]>}> ({
    ^bb0(%arg39: tensor<128x64xbf16>, %arg40: tensor<4x64x64xbf16>, %arg41: tensor<4xi32>, %arg42: tensor<128x64xbf16>, %arg43: tensor<128x32xbf16>, %arg44: tensor<128x32xbf16>, %arg45: tensor<128x32xbf16>, %arg46: tensor<128x32xbf16>, %arg47: tensor<128x32xbf16>, %arg48: tensor<4x32x64xbf16>, %arg49: tensor<128x32xbf16>):
      %69 = "stablehlo.broadcast_in_dim"(%arg49) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
      %70 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x32xi32>
      %71 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %72 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %73 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %74 = "stablehlo.slice"(%73) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %75 = "stablehlo.slice"(%71) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %76 = "stablehlo.concatenate"(%74, %75) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %77 = "stablehlo.broadcast_in_dim"(%71) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %78 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %79 = "stablehlo.compare"(%78, %70) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %80 = "stablehlo.compare"(%70, %77) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %81 = "stablehlo.and"(%79, %80) : (tensor<4x128x32xi1>, tensor<4x128x32xi1>) -> tensor<4x128x32xi1>
      %82 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %83 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x32xbf16>
      %84 = "stablehlo.select"(%81, %69, %83) : (tensor<4x128x32xi1>, tensor<4x128x32xbf16>, tensor<4x128x32xbf16>) -> tensor<4x128x32xbf16>
      %85 = "stablehlo.broadcast_in_dim"(%arg39) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %86 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %87 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %88 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %89 = "stablehlo.broadcast_in_dim"(%88) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %90 = "stablehlo.slice"(%89) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %91 = "stablehlo.slice"(%87) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %92 = "stablehlo.concatenate"(%90, %91) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %93 = "stablehlo.broadcast_in_dim"(%87) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %94 = "stablehlo.broadcast_in_dim"(%92) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %95 = "stablehlo.compare"(%94, %86) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %96 = "stablehlo.compare"(%86, %93) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %97 = "stablehlo.and"(%95, %96) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %98 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %100 = "stablehlo.select"(%97, %85, %99) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %101 = "stablehlo.dot_general"(%84, %100) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
      %102 = "stablehlo.broadcast_in_dim"(%arg39) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %103 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %104 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %105 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %106 = "stablehlo.broadcast_in_dim"(%105) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %107 = "stablehlo.slice"(%106) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %108 = "stablehlo.slice"(%104) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %109 = "stablehlo.concatenate"(%107, %108) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %110 = "stablehlo.broadcast_in_dim"(%104) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %111 = "stablehlo.broadcast_in_dim"(%109) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %112 = "stablehlo.compare"(%111, %103) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %113 = "stablehlo.compare"(%103, %110) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %114 = "stablehlo.and"(%112, %113) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %115 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %116 = "stablehlo.broadcast_in_dim"(%115) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %117 = "stablehlo.select"(%114, %102, %116) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %118 = "stablehlo.dot_general"(%117, %arg48) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
      %119 = "stablehlo.multiply"(%arg47, %118) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
      %120 = "stablehlo.multiply"(%118, %arg46) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
      %121 = "func.call"(%arg43, %arg44, %arg45, %120) <{callee = @silu_28}> : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
      %122 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %123 = "stablehlo.pad"(%119, %122) <{edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 32>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
      %124 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %125 = "stablehlo.pad"(%121, %124) <{edge_padding_high = array<i64: 0, 32>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
      %126 = "stablehlo.add"(%123, %125) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %127 = "stablehlo.broadcast_in_dim"(%arg42) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %128 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %129 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %130 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %131 = "stablehlo.broadcast_in_dim"(%130) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %132 = "stablehlo.slice"(%131) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %133 = "stablehlo.slice"(%129) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %134 = "stablehlo.concatenate"(%132, %133) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %135 = "stablehlo.broadcast_in_dim"(%129) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %136 = "stablehlo.broadcast_in_dim"(%134) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %137 = "stablehlo.compare"(%136, %128) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %138 = "stablehlo.compare"(%128, %135) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %139 = "stablehlo.and"(%137, %138) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %140 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %141 = "stablehlo.broadcast_in_dim"(%140) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %142 = "stablehlo.select"(%139, %127, %141) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %143 = "stablehlo.broadcast_in_dim"(%126) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %144 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %145 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %146 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %147 = "stablehlo.broadcast_in_dim"(%146) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %148 = "stablehlo.slice"(%147) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %149 = "stablehlo.slice"(%145) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %150 = "stablehlo.concatenate"(%148, %149) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %151 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %152 = "stablehlo.broadcast_in_dim"(%150) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %153 = "stablehlo.compare"(%152, %144) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %154 = "stablehlo.compare"(%144, %151) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %155 = "stablehlo.and"(%153, %154) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %156 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %157 = "stablehlo.broadcast_in_dim"(%156) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %158 = "stablehlo.select"(%155, %143, %157) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %159 = "stablehlo.dot_general"(%142, %158) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
      %v180.hp2 = "stablehlo.reduce_scatter"(%159) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg54: tensor<bf16>, %arg55: tensor<bf16>):
        %192 = "stablehlo.add"(%arg54, %arg55) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%192) : (tensor<bf16>) -> ()
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
      %160 = "stablehlo.broadcast_in_dim"(%126) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %161 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x128x64xi32>
      %162 = "func.call"(%arg41) <{callee = @cumsum}> : (tensor<4xi32>) -> tensor<4xi32>
      %163 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %164 = "stablehlo.broadcast_in_dim"(%163) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %165 = "stablehlo.slice"(%164) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
      %166 = "stablehlo.slice"(%162) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
      %167 = "stablehlo.concatenate"(%165, %166) <{dimension = 0 : i64}> : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %168 = "stablehlo.broadcast_in_dim"(%162) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %169 = "stablehlo.broadcast_in_dim"(%167) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %170 = "stablehlo.compare"(%169, %161) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %171 = "stablehlo.compare"(%161, %168) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %172 = "stablehlo.and"(%170, %171) : (tensor<4x128x64xi1>, tensor<4x128x64xi1>) -> tensor<4x128x64xi1>
      %173 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
      %174 = "stablehlo.broadcast_in_dim"(%173) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %175 = "stablehlo.select"(%172, %160, %174) : (tensor<4x128x64xi1>, tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x128x64xbf16>
      %176 = "stablehlo.dot_general"(%175, %arg40) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 0], rhs_contracting_dimensions = [2, 0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
      %186 = "stablehlo.convert"(%101) : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
      %187 = "stablehlo.convert"(%v180.hp2) : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
      %188 = "stablehlo.all_reduce"(%176) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg52: tensor<bf16>, %arg53: tensor<bf16>):
        %191 = "stablehlo.add"(%arg52, %arg53) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%191) : (tensor<bf16>) -> ()
      }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %189 = "stablehlo.all_reduce"(%186) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg50: tensor<f32>, %arg51: tensor<f32>):
        %190 = "stablehlo.add"(%arg50, %arg51) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%190) : (tensor<f32>) -> ()
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      "sdy.return"(%188, %187, %189) : (tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>) -> ()
    }) : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %40 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<bf16>}> : () -> tensor<bf16>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64>}> : (tensor<bf16>) -> tensor<64x64xbf16>
    %42 = "stablehlo.scatter"(%41, %arg16, %39#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg37: tensor<bf16>, %arg38: tensor<bf16>):
      %68 = "stablehlo.add"(%arg37, %arg38) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      "stablehlo.return"(%68) : (tensor<bf16>) -> ()
    }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
    %43 = "stablehlo.add"(%arg11, %42) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %44 = "stablehlo.convert"(%14) : (tensor<64x2xbf16>) -> tensor<64x2xf32>
    %45 = "stablehlo.broadcast_in_dim"(%arg15) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %46 = "stablehlo.multiply"(%44, %45) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %47 = "stablehlo.multiply"(%46, %arg13) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %48 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %49 = "stablehlo.reduce"(%47, %48) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg35: tensor<f32>, %arg36: tensor<f32>):
      %67 = "stablehlo.add"(%arg35, %arg36) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%67) : (tensor<f32>) -> ()
    }) : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %50 = "stablehlo.reshape"(%49) : (tensor<64xf32>) -> tensor<64x1xf32>
    %51 = "stablehlo.negate"(%50) : (tensor<64x1xf32>) -> tensor<64x1xf32>
    %52 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %53 = "stablehlo.divide"(%44, %52) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %54 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %55 = "stablehlo.reduce"(%51, %54) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg33: tensor<f32>, %arg34: tensor<f32>):
      %66 = "stablehlo.add"(%arg33, %arg34) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%66) : (tensor<f32>) -> ()
    }) : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
    %56 = "stablehlo.broadcast_in_dim"(%55) <{broadcast_dimensions = array<i64: 0>}> : (tensor<64xf32>) -> tensor<64x2xf32>
    %57 = "stablehlo.add"(%53, %56) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %58 = "stablehlo.multiply"(%57, %arg13) : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
    %59 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %60 = "stablehlo.broadcast_in_dim"(%59) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<64x4xf32>
    %61 = "stablehlo.scatter"(%60, %arg12, %58) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %65 = "stablehlo.add"(%arg31, %arg32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%65) : (tensor<f32>) -> ()
    }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
    %62 = "stablehlo.convert"(%61) : (tensor<64x4xf32>) -> tensor<64x4xbf16>
    %63 = "stablehlo.dot_general"(%62, %arg10) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
    %64 = "stablehlo.add"(%43, %63) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    "func.return"(%64, %39#1, %39#2) : (tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>, res_attrs = [{}], sym_name = "silu_28", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<128x32xbf16>, %arg7: tensor<128x32xbf16>, %arg8: tensor<128x32xbf16>, %arg9: tensor<128x32xbf16>):
    %10 = "stablehlo.multiply"(%arg8, %arg9) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %11 = "stablehlo.multiply"(%arg9, %arg7) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %12 = "stablehlo.multiply"(%10, %arg6) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    %13 = "stablehlo.add"(%11, %12) : (tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
    "func.return"(%13) : (tensor<128x32xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_29", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2x4x64x64xf32>, %arg4: tensor<4x64x64xf32>, %arg5: tensor<i32>):
    %5 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %6 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.dynamic_update_slice"(%arg3, %5, %arg5, %6, %7, %8) : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    "func.return"(%9) : (tensor<2x4x64x64xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim_30", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %3 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %4 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %1, %2, %3) : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    "func.return"(%4) : (tensor<2x4x32x64xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
