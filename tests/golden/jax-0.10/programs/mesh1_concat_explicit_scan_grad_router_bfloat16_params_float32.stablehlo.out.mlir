module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<64x4xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<2x4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"fsdp"}, {}]>}, %arg3: tensor<2x4x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x4x64x64xf32> {jax.result_info = "result[1][0]"}, tensor<2x4x32x64xf32> {jax.result_info = "result[1][1]"}) {
    %0 = call @argsort() : () -> tensor<128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %2 = call @clip(%c_0) : (tensor<i32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %4:2 = call @floor_divide(%c_2) : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %6 = stablehlo.iota dim = 0 : tensor<128xui32>
    %7 = stablehlo.reshape %6 : (tensor<128xui32>) -> tensor<128x1xui32>
    %c_3 = stablehlo.constant dense<1> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<128x64xui32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<128x1xui32>) -> tensor<128x64xui32>
    %10 = stablehlo.add %9, %8 : tensor<128x64xui32>
    %c_4 = stablehlo.constant dense<0> : tensor<ui32>
    %11 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<128x64xui32>
    %c_5 = stablehlo.constant dense<0> : tensor<ui32>
    %12 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<128x64xui32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %13 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %14 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %15 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<2x64x2x1xi32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x64x2xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x64x1xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x64x1xf32>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<2x128x1xi32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %20 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<2x32x64x64xbf16>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %22 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<2x128x64xbf16>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %23 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %24 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %25 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %26 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %27 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %28 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<2x32x32x64xbf16>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %29 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %c_23 = stablehlo.constant dense<false> : tensor<i1>
    %30 = stablehlo.broadcast_in_dim %c_23, dims = [] : (tensor<i1>) -> tensor<2x128x64xi1>
    %c_24 = stablehlo.constant dense<0> : tensor<i32>
    %31 = stablehlo.broadcast_in_dim %c_24, dims = [] : (tensor<i32>) -> tensor<2x128x1xi32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %32 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<bf16>) -> tensor<2x64x2xbf16>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %33 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<bf16>) -> tensor<2x64x2x64xbf16>
    %c_27 = stablehlo.constant dense<0> : tensor<i32>
    %34:36 = stablehlo.while(%iterArg = %arg2, %iterArg_36 = %arg3, %iterArg_37 = %11, %iterArg_38 = %arg1, %iterArg_39 = %0, %iterArg_40 = %10, %iterArg_41 = %12, %iterArg_42 = %13, %iterArg_43 = %5, %iterArg_44 = %14, %iterArg_45 = %4#0, %iterArg_46 = %4#1, %iterArg_47 = %1, %iterArg_48 = %2, %iterArg_49 = %3, %iterArg_50 = %c_27, %iterArg_51 = %arg0, %iterArg_52 = %15, %iterArg_53 = %16, %iterArg_54 = %17, %iterArg_55 = %18, %iterArg_56 = %19, %iterArg_57 = %20, %iterArg_58 = %21, %iterArg_59 = %22, %iterArg_60 = %23, %iterArg_61 = %24, %iterArg_62 = %25, %iterArg_63 = %26, %iterArg_64 = %27, %iterArg_65 = %28, %iterArg_66 = %29, %iterArg_67 = %30, %iterArg_68 = %31, %iterArg_69 = %32, %iterArg_70 = %33) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>
    cond {
      %c_71 = stablehlo.constant dense<2> : tensor<i32>
      %48 = stablehlo.compare LT, %iterArg_50, %c_71, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %48 : tensor<i1>
    } do {
      %48 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_50) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %49 = func.call @dynamic_index_in_dim_0(%iterArg_36, %iterArg_50) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %50:20 = func.call @closed_call(%iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_51, %48, %49) : (tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>)
      %51 = func.call @dynamic_update_index_in_dim(%iterArg_52, %50#1, %iterArg_50) : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %52 = func.call @dynamic_update_index_in_dim_4(%iterArg_53, %50#2, %iterArg_50) : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %53 = func.call @dynamic_update_index_in_dim_5(%iterArg_54, %50#3, %iterArg_50) : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %54 = func.call @dynamic_update_index_in_dim_5(%iterArg_55, %50#4, %iterArg_50) : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %55 = func.call @dynamic_update_index_in_dim_6(%iterArg_56, %50#5, %iterArg_50) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %56 = func.call @dynamic_update_index_in_dim_7(%iterArg_57, %50#6, %iterArg_50) : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %57 = func.call @dynamic_update_index_in_dim_8(%iterArg_58, %50#7, %iterArg_50) : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %58 = func.call @dynamic_update_index_in_dim_9(%iterArg_59, %50#8, %iterArg_50) : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %59 = func.call @dynamic_update_index_in_dim_10(%iterArg_60, %50#9, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %60 = func.call @dynamic_update_index_in_dim_10(%iterArg_61, %50#10, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %61 = func.call @dynamic_update_index_in_dim_10(%iterArg_62, %50#11, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %62 = func.call @dynamic_update_index_in_dim_10(%iterArg_63, %50#12, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %63 = func.call @dynamic_update_index_in_dim_10(%iterArg_64, %50#13, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %64 = func.call @dynamic_update_index_in_dim_11(%iterArg_65, %50#14, %iterArg_50) : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %65 = func.call @dynamic_update_index_in_dim_10(%iterArg_66, %50#15, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %66 = func.call @dynamic_update_index_in_dim_12(%iterArg_67, %50#16, %iterArg_50) : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %67 = func.call @dynamic_update_index_in_dim_6(%iterArg_68, %50#17, %iterArg_50) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %68 = func.call @dynamic_update_index_in_dim_13(%iterArg_69, %50#18, %iterArg_50) : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %69 = func.call @dynamic_update_index_in_dim_14(%iterArg_70, %50#19, %iterArg_50) : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %c_71 = stablehlo.constant dense<1> : tensor<i32>
      %70 = stablehlo.add %iterArg_50, %c_71 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %70, %50#0, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>
    }
    %35 = stablehlo.convert %34#16 : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    %36 = chlo.square %35 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst_28 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %38 = stablehlo.multiply %37, %35 : tensor<64x64xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.reduce(%36 init: %cst_29) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_30 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %40 = stablehlo.divide %39, %cst_30 : tensor<f32>
    %cst_31 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_32 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %41 = stablehlo.divide %cst_31, %cst_32 : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %43 = stablehlo.multiply %42, %38 : tensor<64x64xf32>
    %44 = stablehlo.convert %43 : (tensor<64x64xf32>) -> tensor<64x64xbf16>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %c_35 = stablehlo.constant dense<0> : tensor<i32>
    %47:24 = stablehlo.while(%iterArg = %34#17, %iterArg_36 = %34#18, %iterArg_37 = %34#19, %iterArg_38 = %34#20, %iterArg_39 = %34#21, %iterArg_40 = %34#22, %iterArg_41 = %34#23, %iterArg_42 = %34#24, %iterArg_43 = %34#25, %iterArg_44 = %34#26, %iterArg_45 = %34#27, %iterArg_46 = %34#28, %iterArg_47 = %34#29, %iterArg_48 = %34#30, %iterArg_49 = %34#31, %iterArg_50 = %34#32, %iterArg_51 = %34#33, %iterArg_52 = %34#34, %iterArg_53 = %34#35, %iterArg_54 = %arg1, %iterArg_55 = %c_35, %iterArg_56 = %44, %iterArg_57 = %45, %iterArg_58 = %46) : tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    cond {
      %c_59 = stablehlo.constant dense<2> : tensor<i32>
      %48 = stablehlo.compare LT, %iterArg_55, %c_59, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %48 : tensor<i1>
    } do {
      %c_59 = stablehlo.constant dense<2> : tensor<i32>
      %48 = stablehlo.subtract %c_59, %iterArg_55 : tensor<i32>
      %c_60 = stablehlo.constant dense<1> : tensor<i32>
      %49 = stablehlo.subtract %48, %c_60 : tensor<i32>
      %50 = func.call @dynamic_index_in_dim_15(%iterArg, %49) : (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>
      %51 = func.call @dynamic_index_in_dim_16(%iterArg_36, %49) : (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>
      %52 = func.call @dynamic_index_in_dim_17(%iterArg_37, %49) : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %53 = func.call @dynamic_index_in_dim_17(%iterArg_38, %49) : (tensor<2x64x1xf32>, tensor<i32>) -> tensor<64x1xf32>
      %54 = func.call @dynamic_index_in_dim_18(%iterArg_39, %49) : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %55 = func.call @dynamic_index_in_dim_19(%iterArg_40, %49) : (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>
      %56 = func.call @dynamic_index_in_dim_20(%iterArg_41, %49) : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
      %57 = func.call @dynamic_index_in_dim_21(%iterArg_42, %49) : (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>
      %58 = func.call @dynamic_index_in_dim_22(%iterArg_43, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %59 = func.call @dynamic_index_in_dim_22(%iterArg_44, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %60 = func.call @dynamic_index_in_dim_22(%iterArg_45, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %61 = func.call @dynamic_index_in_dim_22(%iterArg_46, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %62 = func.call @dynamic_index_in_dim_22(%iterArg_47, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %63 = func.call @dynamic_index_in_dim_23(%iterArg_48, %49) : (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>
      %64 = func.call @dynamic_index_in_dim_22(%iterArg_49, %49) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %65 = func.call @dynamic_index_in_dim_24(%iterArg_50, %49) : (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>
      %66 = func.call @dynamic_index_in_dim_18(%iterArg_51, %49) : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %67 = func.call @dynamic_index_in_dim_25(%iterArg_52, %49) : (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>
      %68 = func.call @dynamic_index_in_dim_26(%iterArg_53, %49) : (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>
      %69:3 = func.call @closed_call_27(%iterArg_54, %iterArg_56, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68) : (tensor<64x4xbf16>, tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>) -> (tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %70 = func.call @dynamic_update_index_in_dim_29(%iterArg_57, %69#1, %49) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %71 = func.call @dynamic_update_index_in_dim_30(%iterArg_58, %69#2, %49) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_61 = stablehlo.constant dense<1> : tensor<i32>
      %72 = stablehlo.add %iterArg_55, %c_61 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %iterArg_51, %iterArg_52, %iterArg_53, %iterArg_54, %72, %69#0, %70, %71 : tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    }
    return %40, %47#22, %47#23 : tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
  }
  func.func private @argsort() -> tensor<128xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<128xi32>
    return %0 : tensor<128xi32>
  }
  func.func private @clip(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @floor_divide(%arg0: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = stablehlo.sign %0 : tensor<i32>
    return %1, %0 : tensor<i32>, tensor<i32>
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
  func.func private @closed_call(%arg0: tensor<128x64xui32>, %arg1: tensor<64x4xbf16>, %arg2: tensor<128xi32>, %arg3: tensor<128x64xui32>, %arg4: tensor<128x64xui32>, %arg5: tensor<128x64xbf16>, %arg6: tensor<128x64xbf16>, %arg7: tensor<128x64xbf16>, %arg8: tensor<i32>, %arg9: tensor<i32>, %arg10: tensor<4xi32>, %arg11: tensor<i32>, %arg12: tensor<128xi32>, %arg13: tensor<64x64xbf16>, %arg14: tensor<4x64x64xf32>, %arg15: tensor<4x32x64xf32>) -> (tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>) {
    %0 = stablehlo.dot_general %arg13, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
    %1 = stablehlo.convert %0 : (tensor<64x4xbf16>) -> tensor<64x4xf32>
    %values, %indices = chlo.top_k(%1, k = 2) : tensor<64x4xf32> -> (tensor<64x2xf32>, tensor<64x2xi32>)
    %2 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%values init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %5 = stablehlo.maximum %4, %3 : tensor<64xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %8 = stablehlo.subtract %values, %7 : tensor<64x2xf32>
    %9 = stablehlo.exponential %8 : tensor<64x2xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %13 = stablehlo.divide %9, %12 : tensor<64x2xf32>
    %14 = stablehlo.multiply %11, %11 : tensor<64x1xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
    %16 = stablehlo.divide %15, %14 : tensor<64x1xf32>
    %17 = stablehlo.convert %13 : (tensor<64x2xf32>) -> tensor<64x2xbf16>
    %18 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<128xi32>
    %19 = call @argsort_1(%18, %arg2) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %20 = call @clip_2(%18, %arg11) : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %22 = stablehlo.compare LT, %20, %21, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %c_3 = stablehlo.constant dense<4> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %24 = stablehlo.add %20, %23 : tensor<128xi32>
    %25 = stablehlo.select %22, %24, %20 : tensor<128xi1>, tensor<128xi32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
    %27 = "stablehlo.scatter"(%arg10, %26, %arg12) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg16: tensor<i32>, %arg17: tensor<i32>):
      %54 = stablehlo.add %arg16, %arg17 : tensor<i32>
      stablehlo.return %54 : tensor<i32>
    }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
    %28 = call @floor_divide_3(%19, %arg8, %arg9) : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %30 = stablehlo.compare LT, %28, %29, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %c_5 = stablehlo.constant dense<64> : tensor<i32>
    %31 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %32 = stablehlo.add %28, %31 : tensor<128xi32>
    %33 = stablehlo.select %30, %32, %28 : tensor<128xi1>, tensor<128xi32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
    %35 = "stablehlo.gather"(%arg13, %34) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
    %36:9 = sdy.manual_computation(%35, %27, %arg14, %arg15) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{}, {}]>] manual_axes={"fsdp"} (%arg16: tensor<128x64xbf16>, %arg17: tensor<4xi32>, %arg18: tensor<4x8x64xf32>, %arg19: tensor<4x32x64xf32>) {
      %54 = stablehlo.convert %arg18 : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
      %v58.hp1 = "stablehlo.all_gather"(%54) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
      %55 = stablehlo.convert %arg19 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
      %61 = stablehlo.broadcast_in_dim %arg16, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %62 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %63 = func.call @cumsum(%arg17) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %64 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %65 = stablehlo.slice %64 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %66 = stablehlo.slice %63 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %67 = stablehlo.concatenate %65, %66, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %68 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %69 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %70 = stablehlo.compare LE, %69, %62, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %71 = stablehlo.compare LT, %62, %68, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %72 = stablehlo.and %70, %71 : tensor<4x128x64xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %73 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %74 = stablehlo.select %72, %61, %73 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %75 = stablehlo.dot_general %74, %v58.hp1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
      %76 = stablehlo.slice %75 [0:128, 0:32] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
      %77 = stablehlo.slice %75 [0:128, 32:64] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
      %78:3 = func.call @silu(%76) : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
      %79 = stablehlo.multiply %78#0, %77 : tensor<128x32xbf16>
      %80 = stablehlo.broadcast_in_dim %79, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
      %81 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
      %82 = func.call @cumsum(%arg17) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %83 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %84 = stablehlo.slice %83 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %85 = stablehlo.slice %82 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %86 = stablehlo.concatenate %84, %85, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %87 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %88 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %89 = stablehlo.compare LE, %88, %81, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %90 = stablehlo.compare LT, %81, %87, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %91 = stablehlo.and %89, %90 : tensor<4x128x32xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %92 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
      %93 = stablehlo.select %91, %80, %92 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
      %94 = stablehlo.dot_general %93, %55, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
      sdy.return %v58.hp1, %78#1, %78#2, %76, %77, %78#0, %55, %79, %94 : tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>, tensor<128x64xbf16>
    } : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xbf16>)
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %38 = stablehlo.compare LT, %19, %37, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %c_7 = stablehlo.constant dense<128> : tensor<i32>
    %39 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %40 = stablehlo.add %19, %39 : tensor<128xi32>
    %41 = stablehlo.select %38, %40, %19 : tensor<128xi1>, tensor<128xi32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
    %43 = "stablehlo.scatter"(%arg0, %42, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg16: tensor<ui32>, %arg17: tensor<ui32>):
      stablehlo.return %arg17 : tensor<ui32>
    }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
    %44 = "stablehlo.gather"(%43, %42) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
    %45 = stablehlo.compare EQ, %43, %arg4, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %46 = stablehlo.select %45, %arg6, %arg5 : tensor<128x64xi1>, tensor<128x64xbf16>
    %47 = stablehlo.compare EQ, %arg3, %44, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %48 = stablehlo.select %47, %36#8, %arg7 : tensor<128x64xi1>, tensor<128x64xbf16>
    %49 = stablehlo.compare EQ, %arg3, %44, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
    %50 = "stablehlo.scatter"(%46, %42, %48) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg16: tensor<bf16>, %arg17: tensor<bf16>):
      %54 = stablehlo.add %arg16, %arg17 : tensor<bf16>
      stablehlo.return %54 : tensor<bf16>
    }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %51 = stablehlo.reshape %50 : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
    %52 = stablehlo.dot_general %51, %17, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
    %53 = stablehlo.add %arg13, %52 : tensor<64x64xbf16>
    return %53, %2, %9, %11, %16, %34, %36#0, %27, %35, %36#1, %36#2, %36#3, %36#4, %36#5, %36#6, %36#7, %49, %42, %17, %51 : tensor<64x64xbf16>, tensor<64x2x1xi32>, tensor<64x2xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<128x1xi32>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>, tensor<128x64xi1>, tensor<128x1xi32>, tensor<64x2xbf16>, tensor<64x2x64xbf16>
  }
  func.func private @argsort_1(%arg0: tensor<128xi32>, %arg1: tensor<128xi32>) -> tensor<128xi32> {
    %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %1 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>)
    return %0#1 : tensor<128xi32>
  }
  func.func private @clip_2(%arg0: tensor<128xi32>, %arg1: tensor<i32>) -> tensor<128xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<128xi32>
    return %1 : tensor<128xi32>
  }
  func.func private @floor_divide_3(%arg0: tensor<128xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<128xi32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %1 = stablehlo.divide %arg0, %0 : tensor<128xi32>
    %2 = stablehlo.sign %arg0 : tensor<128xi32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %4 = stablehlo.compare NE, %2, %3, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %5 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %6 = stablehlo.remainder %arg0, %5 : tensor<128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %8 = stablehlo.compare NE, %6, %7, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %9 = stablehlo.and %4, %8 : tensor<128xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %11 = stablehlo.subtract %1, %10 : tensor<128xi32>
    %12 = call @_where(%9, %11, %1) : (tensor<128xi1>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    return %12 : tensor<128xi32>
  }
  func.func private @_where(%arg0: tensor<128xi1>, %arg1: tensor<128xi32>, %arg2: tensor<128xi32>) -> tensor<128xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<128xi1>, tensor<128xi32>
    return %0 : tensor<128xi32>
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
  func.func private @silu(%arg0: tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) {
    %0 = stablehlo.negate %arg0 : tensor<128x32xbf16>
    %1 = stablehlo.exponential %0 : tensor<128x32xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<128x32xbf16>
    %3 = stablehlo.add %2, %1 : tensor<128x32xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<128x32xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<128x32xbf16>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<128x32xbf16>
    %7 = stablehlo.subtract %6, %5 : tensor<128x32xbf16>
    %8 = stablehlo.multiply %5, %7 : tensor<128x32xbf16>
    %9 = stablehlo.multiply %arg0, %5 : tensor<128x32xbf16>
    return %9, %8, %5 : tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x64x2x1xi32>, %arg1: tensor<64x2x1xi32>, %arg2: tensor<i32>) -> tensor<2x64x2x1xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x2x1xi32>) -> tensor<1x64x2x1xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x64x2x1xi32>, tensor<1x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x1xi32>
    return %1 : tensor<2x64x2x1xi32>
  }
  func.func private @dynamic_update_index_in_dim_4(%arg0: tensor<2x64x2xf32>, %arg1: tensor<64x2xf32>, %arg2: tensor<i32>) -> tensor<2x64x2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<64x2xf32>) -> tensor<1x64x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x64x2xf32>, tensor<1x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xf32>
    return %1 : tensor<2x64x2xf32>
  }
  func.func private @dynamic_update_index_in_dim_5(%arg0: tensor<2x64x1xf32>, %arg1: tensor<64x1xf32>, %arg2: tensor<i32>) -> tensor<2x64x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<64x1xf32>) -> tensor<1x64x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x64x1xf32>, tensor<1x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x1xf32>
    return %1 : tensor<2x64x1xf32>
  }
  func.func private @dynamic_update_index_in_dim_6(%arg0: tensor<2x128x1xi32>, %arg1: tensor<128x1xi32>, %arg2: tensor<i32>) -> tensor<2x128x1xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x1xi32>) -> tensor<1x128x1xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x1xi32>, tensor<1x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x1xi32>
    return %1 : tensor<2x128x1xi32>
  }
  func.func private @dynamic_update_index_in_dim_7(%arg0: tensor<2x32x64x64xbf16>, %arg1: tensor<32x64x64xbf16>, %arg2: tensor<i32>) -> tensor<2x32x64x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x64x64xbf16>) -> tensor<1x32x64x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x64x64xbf16>, tensor<1x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xbf16>
    return %1 : tensor<2x32x64x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_8(%arg0: tensor<2x4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<i32>) -> tensor<2x4xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi32>) -> tensor<1x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x4xi32>, tensor<1x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x4xi32>
    return %1 : tensor<2x4xi32>
  }
  func.func private @dynamic_update_index_in_dim_9(%arg0: tensor<2x128x64xbf16>, %arg1: tensor<128x64xbf16>, %arg2: tensor<i32>) -> tensor<2x128x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<1x128x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x64xbf16>, tensor<1x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xbf16>
    return %1 : tensor<2x128x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_10(%arg0: tensor<2x1024x32xbf16>, %arg1: tensor<1024x32xbf16>, %arg2: tensor<i32>) -> tensor<2x1024x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<1024x32xbf16>) -> tensor<1x1024x32xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x1024x32xbf16>, tensor<1x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1024x32xbf16>
    return %1 : tensor<2x1024x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim_11(%arg0: tensor<2x32x32x64xbf16>, %arg1: tensor<32x32x64xbf16>, %arg2: tensor<i32>) -> tensor<2x32x32x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x32x64xbf16>) -> tensor<1x32x32x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x32x64xbf16>, tensor<1x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32x64xbf16>
    return %1 : tensor<2x32x32x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_12(%arg0: tensor<2x128x64xi1>, %arg1: tensor<128x64xi1>, %arg2: tensor<i32>) -> tensor<2x128x64xi1> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x64xi1>) -> tensor<1x128x64xi1>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x64xi1>, tensor<1x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xi1>
    return %1 : tensor<2x128x64xi1>
  }
  func.func private @dynamic_update_index_in_dim_13(%arg0: tensor<2x64x2xbf16>, %arg1: tensor<64x2xbf16>, %arg2: tensor<i32>) -> tensor<2x64x2xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<64x2xbf16>) -> tensor<1x64x2xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x64x2xbf16>, tensor<1x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xbf16>
    return %1 : tensor<2x64x2xbf16>
  }
  func.func private @dynamic_update_index_in_dim_14(%arg0: tensor<2x64x2x64xbf16>, %arg1: tensor<64x2x64xbf16>, %arg2: tensor<i32>) -> tensor<2x64x2x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x2x64xbf16>) -> tensor<1x64x2x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x64xbf16>
    return %1 : tensor<2x64x2x64xbf16>
  }
  func.func private @dynamic_index_in_dim_15(%arg0: tensor<2x64x2x1xi32>, %arg1: tensor<i32>) -> tensor<64x2x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 2, 1] : (tensor<2x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2x1xi32>) -> tensor<64x2x1xi32>
    return %1 : tensor<64x2x1xi32>
  }
  func.func private @dynamic_index_in_dim_16(%arg0: tensor<2x64x2xf32>, %arg1: tensor<i32>) -> tensor<64x2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 2] : (tensor<2x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2xf32>) -> tensor<64x2xf32>
    return %1 : tensor<64x2xf32>
  }
  func.func private @dynamic_index_in_dim_17(%arg0: tensor<2x64x1xf32>, %arg1: tensor<i32>) -> tensor<64x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 1] : (tensor<2x64x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x1xf32>) -> tensor<64x1xf32>
    return %1 : tensor<64x1xf32>
  }
  func.func private @dynamic_index_in_dim_18(%arg0: tensor<2x128x1xi32>, %arg1: tensor<i32>) -> tensor<128x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 1] : (tensor<2x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x1xi32>) -> tensor<128x1xi32>
    return %1 : tensor<128x1xi32>
  }
  func.func private @dynamic_index_in_dim_19(%arg0: tensor<2x32x64x64xbf16>, %arg1: tensor<i32>) -> tensor<32x64x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 64, 64] : (tensor<2x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x32x64x64xbf16>) -> tensor<32x64x64xbf16>
    return %1 : tensor<32x64x64xbf16>
  }
  func.func private @dynamic_index_in_dim_20(%arg0: tensor<2x4xi32>, %arg1: tensor<i32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x4xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xi32>) -> tensor<4xi32>
    return %1 : tensor<4xi32>
  }
  func.func private @dynamic_index_in_dim_21(%arg0: tensor<2x128x64xbf16>, %arg1: tensor<i32>) -> tensor<128x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 64] : (tensor<2x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x128x64xbf16>) -> tensor<128x64xbf16>
    return %1 : tensor<128x64xbf16>
  }
  func.func private @dynamic_index_in_dim_22(%arg0: tensor<2x1024x32xbf16>, %arg1: tensor<i32>) -> tensor<1024x32xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 1024, 32] : (tensor<2x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1024x32xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x1024x32xbf16>) -> tensor<1024x32xbf16>
    return %1 : tensor<1024x32xbf16>
  }
  func.func private @dynamic_index_in_dim_23(%arg0: tensor<2x32x32x64xbf16>, %arg1: tensor<i32>) -> tensor<32x32x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 32, 64] : (tensor<2x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x32x32x64xbf16>) -> tensor<32x32x64xbf16>
    return %1 : tensor<32x32x64xbf16>
  }
  func.func private @dynamic_index_in_dim_24(%arg0: tensor<2x128x64xi1>, %arg1: tensor<i32>) -> tensor<128x64xi1> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 64] : (tensor<2x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xi1>
    %1 = stablehlo.reshape %0 : (tensor<1x128x64xi1>) -> tensor<128x64xi1>
    return %1 : tensor<128x64xi1>
  }
  func.func private @dynamic_index_in_dim_25(%arg0: tensor<2x64x2xbf16>, %arg1: tensor<i32>) -> tensor<64x2xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 2] : (tensor<2x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2xbf16>) -> tensor<64x2xbf16>
    return %1 : tensor<64x2xbf16>
  }
  func.func private @dynamic_index_in_dim_26(%arg0: tensor<2x64x2x64xbf16>, %arg1: tensor<i32>) -> tensor<64x2x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 2, 64] : (tensor<2x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2x64xbf16>) -> tensor<64x2x64xbf16>
    return %1 : tensor<64x2x64xbf16>
  }
  func.func private @closed_call_27(%arg0: tensor<64x4xbf16>, %arg1: tensor<64x64xbf16>, %arg2: tensor<64x2x1xi32>, %arg3: tensor<64x2xf32>, %arg4: tensor<64x1xf32>, %arg5: tensor<64x1xf32>, %arg6: tensor<128x1xi32>, %arg7: tensor<32x64x64xbf16>, %arg8: tensor<4xi32>, %arg9: tensor<128x64xbf16>, %arg10: tensor<1024x32xbf16>, %arg11: tensor<1024x32xbf16>, %arg12: tensor<1024x32xbf16>, %arg13: tensor<1024x32xbf16>, %arg14: tensor<1024x32xbf16>, %arg15: tensor<32x32x64xbf16>, %arg16: tensor<1024x32xbf16>, %arg17: tensor<128x64xi1>, %arg18: tensor<128x1xi32>, %arg19: tensor<64x2xbf16>, %arg20: tensor<64x2x64xbf16>) -> (tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) {
    %0 = stablehlo.dot_general %arg1, %arg20, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
    %1 = stablehlo.dot_general %arg1, %arg19, batching_dims = [0] x [0], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
    %2 = stablehlo.transpose %1, dims = [0, 2, 1] : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
    %3 = stablehlo.reshape %2 : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
    %c = stablehlo.constant dense<127> : tensor<1xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<128x1xi32>
    %5 = stablehlo.compare GE, %arg18, %4, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
    %6 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<128x1xi32>
    %8 = stablehlo.compare LE, %arg18, %7, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
    %9 = stablehlo.and %5, %8 : tensor<128x1xi1>
    %c_1 = stablehlo.constant dense<true> : tensor<i1>
    %10 = stablehlo.reduce(%9 init: %c_1) applies stablehlo.and across dimensions = [1] : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
    %11 = "stablehlo.gather"(%3, %arg18) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<128xi1>) -> tensor<128x64xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %14 = stablehlo.select %12, %11, %13 : tensor<128x64xi1>, tensor<128x64xbf16>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %16 = stablehlo.select %arg17, %14, %15 : tensor<128x64xi1>, tensor<128x64xbf16>
    %cst_3 = stablehlo.constant dense<8.000000e+00> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
    %18 = stablehlo.divide %16, %17 : tensor<128x64xbf16>
    %19:3 = sdy.manual_computation(%18, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg21: tensor<128x64xbf16>, %arg22: tensor<4x64x64xbf16>, %arg23: tensor<4xi32>, %arg24: tensor<128x64xbf16>, %arg25: tensor<128x32xbf16>, %arg26: tensor<128x32xbf16>, %arg27: tensor<128x32xbf16>, %arg28: tensor<128x32xbf16>, %arg29: tensor<128x32xbf16>, %arg30: tensor<4x32x64xbf16>, %arg31: tensor<128x32xbf16>) {
      %41 = stablehlo.broadcast_in_dim %arg31, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
      %42 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
      %43 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %44 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %45 = stablehlo.slice %44 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %46 = stablehlo.slice %43 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %47 = stablehlo.concatenate %45, %46, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %48 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %49 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
      %50 = stablehlo.compare LE, %49, %42, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %51 = stablehlo.compare LT, %42, %48, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
      %52 = stablehlo.and %50, %51 : tensor<4x128x32xi1>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %53 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
      %54 = stablehlo.select %52, %41, %53 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
      %55 = stablehlo.broadcast_in_dim %arg21, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %56 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %57 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %58 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %59 = stablehlo.slice %58 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %60 = stablehlo.slice %57 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %61 = stablehlo.concatenate %59, %60, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %62 = stablehlo.broadcast_in_dim %57, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %63 = stablehlo.broadcast_in_dim %61, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %64 = stablehlo.compare LE, %63, %56, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %65 = stablehlo.compare LT, %56, %62, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %66 = stablehlo.and %64, %65 : tensor<4x128x64xi1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %67 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %68 = stablehlo.select %66, %55, %67 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %69 = stablehlo.dot_general %54, %68, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
      %70 = stablehlo.broadcast_in_dim %arg21, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %71 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %72 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_12 = stablehlo.constant dense<0> : tensor<i32>
      %73 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %74 = stablehlo.slice %73 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %75 = stablehlo.slice %72 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %76 = stablehlo.concatenate %74, %75, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %77 = stablehlo.broadcast_in_dim %72, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %78 = stablehlo.broadcast_in_dim %76, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %79 = stablehlo.compare LE, %78, %71, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %80 = stablehlo.compare LT, %71, %77, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %81 = stablehlo.and %79, %80 : tensor<4x128x64xi1>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %82 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %83 = stablehlo.select %81, %70, %82 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %84 = stablehlo.dot_general %83, %arg30, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
      %85 = stablehlo.multiply %arg29, %84 : tensor<128x32xbf16>
      %86 = stablehlo.multiply %84, %arg28 : tensor<128x32xbf16>
      %87 = func.call @silu_28(%arg25, %arg26, %arg27, %86) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
      %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %88 = stablehlo.pad %85, %cst_14, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
      %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %89 = stablehlo.pad %87, %cst_15, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
      %90 = stablehlo.add %88, %89 : tensor<128x64xbf16>
      %91 = stablehlo.broadcast_in_dim %arg24, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %92 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %93 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_16 = stablehlo.constant dense<0> : tensor<i32>
      %94 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %95 = stablehlo.slice %94 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %96 = stablehlo.slice %93 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %97 = stablehlo.concatenate %95, %96, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %98 = stablehlo.broadcast_in_dim %93, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %99 = stablehlo.broadcast_in_dim %97, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %100 = stablehlo.compare LE, %99, %92, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %101 = stablehlo.compare LT, %92, %98, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %102 = stablehlo.and %100, %101 : tensor<4x128x64xi1>
      %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %103 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %104 = stablehlo.select %102, %91, %103 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %105 = stablehlo.broadcast_in_dim %90, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %106 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %107 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_18 = stablehlo.constant dense<0> : tensor<i32>
      %108 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %109 = stablehlo.slice %108 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %110 = stablehlo.slice %107 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %111 = stablehlo.concatenate %109, %110, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %112 = stablehlo.broadcast_in_dim %107, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %113 = stablehlo.broadcast_in_dim %111, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %114 = stablehlo.compare LE, %113, %106, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %115 = stablehlo.compare LT, %106, %112, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %116 = stablehlo.and %114, %115 : tensor<4x128x64xi1>
      %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %117 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %118 = stablehlo.select %116, %105, %117 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %119 = stablehlo.dot_general %104, %118, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
      %v138.hp2 = "stablehlo.reduce_scatter"(%119) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg32: tensor<bf16>, %arg33: tensor<bf16>):
        %146 = stablehlo.add %arg32, %arg33 : tensor<bf16>
        stablehlo.return %146 : tensor<bf16>
      }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
      %120 = stablehlo.broadcast_in_dim %90, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
      %121 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
      %122 = func.call @cumsum(%arg23) : (tensor<4xi32>) -> tensor<4xi32>
      %c_20 = stablehlo.constant dense<0> : tensor<i32>
      %123 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %124 = stablehlo.slice %123 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
      %125 = stablehlo.slice %122 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
      %126 = stablehlo.concatenate %124, %125, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
      %127 = stablehlo.broadcast_in_dim %122, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %128 = stablehlo.broadcast_in_dim %126, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
      %129 = stablehlo.compare LE, %128, %121, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %130 = stablehlo.compare LT, %121, %127, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
      %131 = stablehlo.and %129, %130 : tensor<4x128x64xi1>
      %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %132 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
      %133 = stablehlo.select %131, %120, %132 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
      %134 = stablehlo.dot_general %133, %arg22, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
      %142 = stablehlo.convert %69 : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
      %143 = stablehlo.convert %v138.hp2 : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
      %144 = "stablehlo.all_reduce"(%134) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg32: tensor<bf16>, %arg33: tensor<bf16>):
        %146 = stablehlo.add %arg32, %arg33 : tensor<bf16>
        stablehlo.return %146 : tensor<bf16>
      }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %145 = "stablehlo.all_reduce"(%142) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg32: tensor<f32>, %arg33: tensor<f32>):
        %146 = stablehlo.add %arg32, %arg33 : tensor<f32>
        stablehlo.return %146 : tensor<f32>
      }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
      sdy.return %144, %143, %145 : tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
    } : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %20 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<64x64xbf16>
    %21 = "stablehlo.scatter"(%20, %arg6, %19#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg21: tensor<bf16>, %arg22: tensor<bf16>):
      %41 = stablehlo.add %arg21, %arg22 : tensor<bf16>
      stablehlo.return %41 : tensor<bf16>
    }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
    %22 = stablehlo.add %arg1, %21 : tensor<64x64xbf16>
    %23 = stablehlo.convert %0 : (tensor<64x2xbf16>) -> tensor<64x2xf32>
    %24 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %25 = stablehlo.multiply %23, %24 : tensor<64x2xf32>
    %26 = stablehlo.multiply %25, %arg3 : tensor<64x2xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
    %28 = stablehlo.reshape %27 : (tensor<64xf32>) -> tensor<64x1xf32>
    %29 = stablehlo.negate %28 : tensor<64x1xf32>
    %30 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
    %31 = stablehlo.divide %23, %30 : tensor<64x2xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%29 init: %cst_6) applies stablehlo.add across dimensions = [1] : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<64xf32>) -> tensor<64x2xf32>
    %34 = stablehlo.add %31, %33 : tensor<64x2xf32>
    %35 = stablehlo.multiply %34, %arg3 : tensor<64x2xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64x4xf32>
    %37 = "stablehlo.scatter"(%36, %arg2, %35) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %41 = stablehlo.add %arg21, %arg22 : tensor<f32>
      stablehlo.return %41 : tensor<f32>
    }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
    %38 = stablehlo.convert %37 : (tensor<64x4xf32>) -> tensor<64x4xbf16>
    %39 = stablehlo.dot_general %38, %arg0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
    %40 = stablehlo.add %22, %39 : tensor<64x64xbf16>
    return %40, %19#1, %19#2 : tensor<64x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
  }
  func.func private @silu_28(%arg0: tensor<128x32xbf16>, %arg1: tensor<128x32xbf16>, %arg2: tensor<128x32xbf16>, %arg3: tensor<128x32xbf16>) -> tensor<128x32xbf16> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<128x32xbf16>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<128x32xbf16>
    %2 = stablehlo.multiply %0, %arg0 : tensor<128x32xbf16>
    %3 = stablehlo.add %1, %2 : tensor<128x32xbf16>
    return %3 : tensor<128x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim_29(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<4x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    return %1 : tensor<2x4x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_30(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x32x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    return %1 : tensor<2x4x32x64xf32>
  }
}
