module @jit_moe_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
  sdy.mesh @mesh_0 = <["fsdp"=8]> {stablehlo.mesh = {axes = [{name = "fsdp", size = 8 : i64}]}}
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
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x128x1xi32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %18 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<2x32x64x64xbf16>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %20 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<2x128x64xbf16>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %21 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %22 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %23 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %24 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %25 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %26 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<2x32x32x64xbf16>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %27 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<2x1024x32xbf16>
    %c_21 = stablehlo.constant dense<false> : tensor<i1>
    %28 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i1>) -> tensor<2x128x64xi1>
    %c_22 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_22, dims = [] : (tensor<i32>) -> tensor<2x128x1xi32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %30 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<bf16>) -> tensor<2x64x2xbf16>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %31 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<bf16>) -> tensor<2x64x2x64xbf16>
    %c_25 = stablehlo.constant dense<0> : tensor<i32>
    %32:34 = stablehlo.while(%iterArg = %arg2, %iterArg_34 = %arg3, %iterArg_35 = %11, %iterArg_36 = %arg1, %iterArg_37 = %0, %iterArg_38 = %10, %iterArg_39 = %12, %iterArg_40 = %13, %iterArg_41 = %5, %iterArg_42 = %14, %iterArg_43 = %4#0, %iterArg_44 = %4#1, %iterArg_45 = %1, %iterArg_46 = %2, %iterArg_47 = %3, %iterArg_48 = %c_25, %iterArg_49 = %arg0, %iterArg_50 = %15, %iterArg_51 = %16, %iterArg_52 = %17, %iterArg_53 = %18, %iterArg_54 = %19, %iterArg_55 = %20, %iterArg_56 = %21, %iterArg_57 = %22, %iterArg_58 = %23, %iterArg_59 = %24, %iterArg_60 = %25, %iterArg_61 = %26, %iterArg_62 = %27, %iterArg_63 = %28, %iterArg_64 = %29, %iterArg_65 = %30, %iterArg_66 = %31) : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>
    cond {
      %c_67 = stablehlo.constant dense<2> : tensor<i32>
      %46 = stablehlo.compare LT, %iterArg_48, %c_67, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %46 : tensor<i1>
    } do {
      %46 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_48) : (tensor<2x4x64x64xf32>, tensor<i32>) -> tensor<4x64x64xf32>
      %47 = func.call @dynamic_index_in_dim_0(%iterArg_34, %iterArg_48) : (tensor<2x4x32x64xf32>, tensor<i32>) -> tensor<4x32x64xf32>
      %48 = stablehlo.dot_general %iterArg_49, %iterArg_36, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
      %49 = stablehlo.convert %48 : (tensor<64x4xbf16>) -> tensor<64x4xf32>
      %values, %indices = chlo.top_k(%49, k = 2) : tensor<64x4xf32> -> (tensor<64x2xf32>, tensor<64x2xi32>)
      %50 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
      %cst_67 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %51 = stablehlo.reduce(%values init: %cst_67) applies stablehlo.maximum across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %cst_68 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %52 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %53 = stablehlo.maximum %52, %51 : tensor<64xf32>
      %54 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
      %55 = stablehlo.broadcast_in_dim %54, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %56 = stablehlo.subtract %values, %55 : tensor<64x2xf32>
      %57 = stablehlo.exponential %56 : tensor<64x2xf32>
      %cst_69 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %58 = stablehlo.reduce(%57 init: %cst_69) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %59 = stablehlo.broadcast_in_dim %58, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
      %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %61 = stablehlo.divide %57, %60 : tensor<64x2xf32>
      %62 = stablehlo.convert %61 : (tensor<64x2xf32>) -> tensor<64x2xbf16>
      %63 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<128xi32>
      %64 = func.call @argsort_1(%63, %iterArg_37) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %65 = func.call @clip_2(%63, %iterArg_46) : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
      %c_70 = stablehlo.constant dense<0> : tensor<i32>
      %66 = stablehlo.broadcast_in_dim %c_70, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %67 = stablehlo.compare LT, %65, %66, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_71 = stablehlo.constant dense<4> : tensor<i32>
      %68 = stablehlo.broadcast_in_dim %c_71, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %69 = stablehlo.add %65, %68 : tensor<128xi32>
      %70 = stablehlo.select %67, %69, %65 : tensor<128xi1>, tensor<128xi32>
      %71 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %72 = "stablehlo.scatter"(%iterArg_45, %71, %iterArg_47) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
        %117 = stablehlo.add %arg4, %arg5 : tensor<i32>
        stablehlo.return %117 : tensor<i32>
      }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
      %73 = func.call @floor_divide_3(%64, %iterArg_43, %iterArg_44) : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
      %c_72 = stablehlo.constant dense<0> : tensor<i32>
      %74 = stablehlo.broadcast_in_dim %c_72, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %75 = stablehlo.compare LT, %73, %74, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_73 = stablehlo.constant dense<64> : tensor<i32>
      %76 = stablehlo.broadcast_in_dim %c_73, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %77 = stablehlo.add %73, %76 : tensor<128xi32>
      %78 = stablehlo.select %75, %77, %73 : tensor<128xi1>, tensor<128xi32>
      %79 = stablehlo.broadcast_in_dim %78, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %80 = "stablehlo.gather"(%iterArg_49, %79) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %81:9 = sdy.manual_computation(%80, %72, %46, %47) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<128x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
        %117 = stablehlo.convert %arg6 : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
        %v121.hp1 = "stablehlo.all_gather"(%117) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
        %118 = stablehlo.convert %arg7 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
        %124 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %125 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %126 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %127 = stablehlo.subtract %126, %arg5 : tensor<4xi32>
        %128 = stablehlo.broadcast_in_dim %126, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %129 = stablehlo.broadcast_in_dim %127, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %130 = stablehlo.compare LE, %129, %125, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %131 = stablehlo.compare LT, %125, %128, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %132 = stablehlo.and %130, %131 : tensor<4x128x64xi1>
        %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %133 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %134 = stablehlo.select %132, %124, %133 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %135 = stablehlo.dot_general %134, %v121.hp1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %136 = stablehlo.slice %135 [0:128, 0:32] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %137 = stablehlo.slice %135 [0:128, 32:64] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %138:3 = func.call @silu(%136) : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
        %139 = stablehlo.multiply %138#0, %137 : tensor<128x32xbf16>
        %140 = stablehlo.broadcast_in_dim %139, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %141 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
        %142 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %143 = stablehlo.subtract %142, %arg5 : tensor<4xi32>
        %144 = stablehlo.broadcast_in_dim %142, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %145 = stablehlo.broadcast_in_dim %143, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %146 = stablehlo.compare LE, %145, %141, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %147 = stablehlo.compare LT, %141, %144, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %148 = stablehlo.and %146, %147 : tensor<4x128x32xi1>
        %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %149 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %150 = stablehlo.select %148, %140, %149 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
        %151 = stablehlo.dot_general %150, %118, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
        sdy.return %151, %v121.hp1, %138#1, %138#2, %136, %137, %138#0, %118, %139 : tensor<128x64xbf16>, tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>
      } : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>)
      %c_74 = stablehlo.constant dense<0> : tensor<i32>
      %82 = stablehlo.broadcast_in_dim %c_74, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %83 = stablehlo.compare LT, %64, %82, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_75 = stablehlo.constant dense<128> : tensor<i32>
      %84 = stablehlo.broadcast_in_dim %c_75, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %85 = stablehlo.add %64, %84 : tensor<128xi32>
      %86 = stablehlo.select %83, %85, %64 : tensor<128xi1>, tensor<128xi32>
      %87 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %88 = "stablehlo.scatter"(%iterArg_35, %87, %iterArg_38) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<ui32>, %arg5: tensor<ui32>):
        stablehlo.return %arg5 : tensor<ui32>
      }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
      %89 = "stablehlo.gather"(%88, %87) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
      %90 = stablehlo.compare EQ, %88, %iterArg_39, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %91 = stablehlo.select %90, %iterArg_41, %iterArg_40 : tensor<128x64xi1>, tensor<128x64xbf16>
      %92 = stablehlo.compare EQ, %iterArg_38, %89, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %93 = stablehlo.select %92, %81#0, %iterArg_42 : tensor<128x64xi1>, tensor<128x64xbf16>
      %94 = stablehlo.compare EQ, %iterArg_38, %89, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %95 = "stablehlo.scatter"(%91, %87, %93) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<bf16>, %arg5: tensor<bf16>):
        %117 = stablehlo.add %arg4, %arg5 : tensor<bf16>
        stablehlo.return %117 : tensor<bf16>
      }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %96 = stablehlo.reshape %95 : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
      %97 = stablehlo.dot_general %96, %62, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
      %98 = stablehlo.add %iterArg_49, %97 : tensor<64x64xbf16>
      %99 = func.call @dynamic_update_index_in_dim(%iterArg_50, %50, %iterArg_48) : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %100 = func.call @dynamic_update_index_in_dim_4(%iterArg_51, %61, %iterArg_48) : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %101 = func.call @dynamic_update_index_in_dim_5(%iterArg_52, %79, %iterArg_48) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %102 = func.call @dynamic_update_index_in_dim_6(%iterArg_53, %81#1, %iterArg_48) : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %103 = func.call @dynamic_update_index_in_dim_7(%iterArg_54, %72, %iterArg_48) : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %104 = func.call @dynamic_update_index_in_dim_8(%iterArg_55, %80, %iterArg_48) : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %105 = func.call @dynamic_update_index_in_dim_9(%iterArg_56, %81#2, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %106 = func.call @dynamic_update_index_in_dim_9(%iterArg_57, %81#3, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %107 = func.call @dynamic_update_index_in_dim_9(%iterArg_58, %81#4, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %108 = func.call @dynamic_update_index_in_dim_9(%iterArg_59, %81#5, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %109 = func.call @dynamic_update_index_in_dim_9(%iterArg_60, %81#6, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %110 = func.call @dynamic_update_index_in_dim_10(%iterArg_61, %81#7, %iterArg_48) : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %111 = func.call @dynamic_update_index_in_dim_9(%iterArg_62, %81#8, %iterArg_48) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %112 = func.call @dynamic_update_index_in_dim_11(%iterArg_63, %94, %iterArg_48) : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %113 = func.call @dynamic_update_index_in_dim_5(%iterArg_64, %87, %iterArg_48) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %114 = func.call @dynamic_update_index_in_dim_12(%iterArg_65, %62, %iterArg_48) : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %115 = func.call @dynamic_update_index_in_dim_13(%iterArg_66, %96, %iterArg_48) : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %c_76 = stablehlo.constant dense<1> : tensor<i32>
      %116 = stablehlo.add %iterArg_48, %c_76 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %116, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>
    }
    %33 = stablehlo.convert %32#16 : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    %34 = chlo.square %33 : tensor<64x64xf32> -> tensor<64x64xf32>
    %cst_26 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %36 = stablehlo.multiply %35, %33 : tensor<64x64xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%34 init: %cst_27) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_28 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %38 = stablehlo.divide %37, %cst_28 : tensor<f32>
    %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_30 = stablehlo.constant dense<4.096000e+03> : tensor<f32>
    %39 = stablehlo.divide %cst_29, %cst_30 : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %41 = stablehlo.multiply %40, %36 : tensor<64x64xf32>
    %42 = stablehlo.convert %41 : (tensor<64x64xf32>) -> tensor<64x64xbf16>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x4x64x64xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<2x4x32x64xf32>
    %c_33 = stablehlo.constant dense<0> : tensor<i32>
    %45:22 = stablehlo.while(%iterArg = %32#17, %iterArg_34 = %32#18, %iterArg_35 = %32#19, %iterArg_36 = %32#20, %iterArg_37 = %32#21, %iterArg_38 = %32#22, %iterArg_39 = %32#23, %iterArg_40 = %32#24, %iterArg_41 = %32#25, %iterArg_42 = %32#26, %iterArg_43 = %32#27, %iterArg_44 = %32#28, %iterArg_45 = %32#29, %iterArg_46 = %32#30, %iterArg_47 = %32#31, %iterArg_48 = %32#32, %iterArg_49 = %32#33, %iterArg_50 = %arg1, %iterArg_51 = %c_33, %iterArg_52 = %42, %iterArg_53 = %43, %iterArg_54 = %44) : tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    cond {
      %c_55 = stablehlo.constant dense<2> : tensor<i32>
      %46 = stablehlo.compare LT, %iterArg_51, %c_55, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %46 : tensor<i1>
    } do {
      %c_55 = stablehlo.constant dense<2> : tensor<i32>
      %46 = stablehlo.subtract %c_55, %iterArg_51 : tensor<i32>
      %c_56 = stablehlo.constant dense<1> : tensor<i32>
      %47 = stablehlo.subtract %46, %c_56 : tensor<i32>
      %48 = func.call @dynamic_index_in_dim_14(%iterArg, %47) : (tensor<2x64x2x1xi32>, tensor<i32>) -> tensor<64x2x1xi32>
      %49 = func.call @dynamic_index_in_dim_15(%iterArg_34, %47) : (tensor<2x64x2xf32>, tensor<i32>) -> tensor<64x2xf32>
      %50 = func.call @dynamic_index_in_dim_16(%iterArg_35, %47) : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %51 = func.call @dynamic_index_in_dim_17(%iterArg_36, %47) : (tensor<2x32x64x64xbf16>, tensor<i32>) -> tensor<32x64x64xbf16>
      %52 = func.call @dynamic_index_in_dim_18(%iterArg_37, %47) : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
      %53 = func.call @dynamic_index_in_dim_19(%iterArg_38, %47) : (tensor<2x128x64xbf16>, tensor<i32>) -> tensor<128x64xbf16>
      %54 = func.call @dynamic_index_in_dim_20(%iterArg_39, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %55 = func.call @dynamic_index_in_dim_20(%iterArg_40, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %56 = func.call @dynamic_index_in_dim_20(%iterArg_41, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %57 = func.call @dynamic_index_in_dim_20(%iterArg_42, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %58 = func.call @dynamic_index_in_dim_20(%iterArg_43, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %59 = func.call @dynamic_index_in_dim_21(%iterArg_44, %47) : (tensor<2x32x32x64xbf16>, tensor<i32>) -> tensor<32x32x64xbf16>
      %60 = func.call @dynamic_index_in_dim_20(%iterArg_45, %47) : (tensor<2x1024x32xbf16>, tensor<i32>) -> tensor<1024x32xbf16>
      %61 = func.call @dynamic_index_in_dim_22(%iterArg_46, %47) : (tensor<2x128x64xi1>, tensor<i32>) -> tensor<128x64xi1>
      %62 = func.call @dynamic_index_in_dim_16(%iterArg_47, %47) : (tensor<2x128x1xi32>, tensor<i32>) -> tensor<128x1xi32>
      %63 = func.call @dynamic_index_in_dim_23(%iterArg_48, %47) : (tensor<2x64x2xbf16>, tensor<i32>) -> tensor<64x2xbf16>
      %64 = func.call @dynamic_index_in_dim_24(%iterArg_49, %47) : (tensor<2x64x2x64xbf16>, tensor<i32>) -> tensor<64x2x64xbf16>
      %65 = stablehlo.dot_general %iterArg_52, %64, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
      %66 = stablehlo.dot_general %iterArg_52, %63, batching_dims = [0] x [0], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
      %67 = stablehlo.transpose %66, dims = [0, 2, 1] : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
      %68 = stablehlo.reshape %67 : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
      %c_57 = stablehlo.constant dense<127> : tensor<1xi32>
      %c_58 = stablehlo.constant dense<0> : tensor<i32>
      %69 = stablehlo.broadcast_in_dim %c_58, dims = [] : (tensor<i32>) -> tensor<128x1xi32>
      %70 = stablehlo.compare GE, %62, %69, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %71 = stablehlo.broadcast_in_dim %c_57, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
      %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<128x1xi32>
      %73 = stablehlo.compare LE, %62, %72, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %74 = stablehlo.and %70, %73 : tensor<128x1xi1>
      %c_59 = stablehlo.constant dense<true> : tensor<i1>
      %75 = stablehlo.reduce(%74 init: %c_59) applies stablehlo.and across dimensions = [1] : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
      %76 = "stablehlo.gather"(%68, %62) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %77 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<128xi1>) -> tensor<128x64xi1>
      %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %78 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %79 = stablehlo.select %77, %76, %78 : tensor<128x64xi1>, tensor<128x64xbf16>
      %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %80 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %81 = stablehlo.select %61, %79, %80 : tensor<128x64xi1>, tensor<128x64xbf16>
      %cst_62 = stablehlo.constant dense<8.000000e+00> : tensor<bf16>
      %82 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %83 = stablehlo.divide %81, %82 : tensor<128x64xbf16>
      %84:3 = sdy.manual_computation(%83, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<128x64xbf16>, %arg5: tensor<4x64x64xbf16>, %arg6: tensor<4xi32>, %arg7: tensor<128x64xbf16>, %arg8: tensor<128x32xbf16>, %arg9: tensor<128x32xbf16>, %arg10: tensor<128x32xbf16>, %arg11: tensor<128x32xbf16>, %arg12: tensor<128x32xbf16>, %arg13: tensor<4x32x64xbf16>, %arg14: tensor<128x32xbf16>) {
        %105 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %106 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
        %107 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %108 = stablehlo.subtract %107, %arg6 : tensor<4xi32>
        %109 = stablehlo.broadcast_in_dim %107, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %110 = stablehlo.broadcast_in_dim %108, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %111 = stablehlo.compare LE, %110, %106, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %112 = stablehlo.compare LT, %106, %109, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %113 = stablehlo.and %111, %112 : tensor<4x128x32xi1>
        %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %114 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %115 = stablehlo.select %113, %105, %114 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
        %116 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %117 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %118 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %119 = stablehlo.subtract %118, %arg6 : tensor<4xi32>
        %120 = stablehlo.broadcast_in_dim %118, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %121 = stablehlo.broadcast_in_dim %119, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %122 = stablehlo.compare LE, %121, %117, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %123 = stablehlo.compare LT, %117, %120, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %124 = stablehlo.and %122, %123 : tensor<4x128x64xi1>
        %cst_69 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %125 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %126 = stablehlo.select %124, %116, %125 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %127 = stablehlo.dot_general %115, %126, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
        %128 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %129 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %130 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %131 = stablehlo.subtract %130, %arg6 : tensor<4xi32>
        %132 = stablehlo.broadcast_in_dim %130, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %133 = stablehlo.broadcast_in_dim %131, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %134 = stablehlo.compare LE, %133, %129, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %135 = stablehlo.compare LT, %129, %132, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %136 = stablehlo.and %134, %135 : tensor<4x128x64xi1>
        %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %137 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %138 = stablehlo.select %136, %128, %137 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %139 = stablehlo.dot_general %138, %arg13, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
        %140 = stablehlo.multiply %arg12, %139 : tensor<128x32xbf16>
        %141 = stablehlo.multiply %139, %arg11 : tensor<128x32xbf16>
        %142 = func.call @silu_25(%arg8, %arg9, %arg10, %141) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %cst_71 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %143 = stablehlo.pad %140, %cst_71, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %144 = stablehlo.pad %142, %cst_72, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %145 = stablehlo.add %143, %144 : tensor<128x64xbf16>
        %146 = stablehlo.broadcast_in_dim %arg7, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %147 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %148 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %149 = stablehlo.subtract %148, %arg6 : tensor<4xi32>
        %150 = stablehlo.broadcast_in_dim %148, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %151 = stablehlo.broadcast_in_dim %149, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %152 = stablehlo.compare LE, %151, %147, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %153 = stablehlo.compare LT, %147, %150, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %154 = stablehlo.and %152, %153 : tensor<4x128x64xi1>
        %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %155 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %156 = stablehlo.select %154, %146, %155 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %157 = stablehlo.broadcast_in_dim %145, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %158 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %159 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %160 = stablehlo.subtract %159, %arg6 : tensor<4xi32>
        %161 = stablehlo.broadcast_in_dim %159, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %162 = stablehlo.broadcast_in_dim %160, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %163 = stablehlo.compare LE, %162, %158, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %164 = stablehlo.compare LT, %158, %161, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %165 = stablehlo.and %163, %164 : tensor<4x128x64xi1>
        %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %166 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %167 = stablehlo.select %165, %157, %166 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %168 = stablehlo.dot_general %156, %167, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
        %v184.hp2 = "stablehlo.reduce_scatter"(%168) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<bf16>, %arg16: tensor<bf16>):
          %192 = stablehlo.add %arg15, %arg16 : tensor<bf16>
          stablehlo.return %192 : tensor<bf16>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
        %169 = stablehlo.broadcast_in_dim %145, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %170 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %171 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %172 = stablehlo.subtract %171, %arg6 : tensor<4xi32>
        %173 = stablehlo.broadcast_in_dim %171, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %174 = stablehlo.broadcast_in_dim %172, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %175 = stablehlo.compare LE, %174, %170, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %176 = stablehlo.compare LT, %170, %173, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %177 = stablehlo.and %175, %176 : tensor<4x128x64xi1>
        %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %178 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %179 = stablehlo.select %177, %169, %178 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %180 = stablehlo.dot_general %179, %arg5, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %188 = stablehlo.convert %127 : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
        %189 = stablehlo.convert %v184.hp2 : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
        %190 = "stablehlo.all_reduce"(%180) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<bf16>, %arg16: tensor<bf16>):
          %192 = stablehlo.add %arg15, %arg16 : tensor<bf16>
          stablehlo.return %192 : tensor<bf16>
        }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %191 = "stablehlo.all_reduce"(%188) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %192 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %192 : tensor<f32>
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        sdy.return %190, %189, %191 : tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
      } : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %85 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<bf16>) -> tensor<64x64xbf16>
      %86 = "stablehlo.scatter"(%85, %50, %84#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<bf16>, %arg5: tensor<bf16>):
        %105 = stablehlo.add %arg4, %arg5 : tensor<bf16>
        stablehlo.return %105 : tensor<bf16>
      }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
      %87 = stablehlo.add %iterArg_52, %86 : tensor<64x64xbf16>
      %88 = stablehlo.convert %65 : (tensor<64x2xbf16>) -> tensor<64x2xf32>
      %89 = stablehlo.multiply %49, %88 : tensor<64x2xf32>
      %90 = stablehlo.negate %89 : tensor<64x2xf32>
      %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %91 = stablehlo.reduce(%90 init: %cst_64) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %92 = stablehlo.reshape %91 : (tensor<64xf32>) -> tensor<64x1xf32>
      %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %93 = stablehlo.reduce(%92 init: %cst_65) applies stablehlo.add across dimensions = [1] : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
      %94 = stablehlo.broadcast_in_dim %93, dims = [0] : (tensor<64xf32>) -> tensor<64x2xf32>
      %95 = stablehlo.multiply %49, %94 : tensor<64x2xf32>
      %96 = stablehlo.add %89, %95 : tensor<64x2xf32>
      %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %97 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<64x4xf32>
      %98 = "stablehlo.scatter"(%97, %48, %96) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %105 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %105 : tensor<f32>
      }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
      %99 = stablehlo.convert %98 : (tensor<64x4xf32>) -> tensor<64x4xbf16>
      %100 = stablehlo.dot_general %99, %iterArg_50, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
      %101 = stablehlo.add %87, %100 : tensor<64x64xbf16>
      %102 = func.call @dynamic_update_index_in_dim_26(%iterArg_53, %84#1, %47) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %103 = func.call @dynamic_update_index_in_dim_27(%iterArg_54, %84#2, %47) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_67 = stablehlo.constant dense<1> : tensor<i32>
      %104 = stablehlo.add %iterArg_51, %c_67 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %104, %101, %102, %103 : tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
    }
    return %38, %45#20, %45#21 : tensor<f32>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<128x32xbf16>
    %1 = stablehlo.negate %arg0 : tensor<128x32xbf16>
    %2 = stablehlo.exponential %1 : tensor<128x32xbf16>
    %3 = stablehlo.add %0, %2 : tensor<128x32xbf16>
    %4 = stablehlo.divide %0, %3 : tensor<128x32xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<128x32xbf16>
    %6 = stablehlo.subtract %5, %4 : tensor<128x32xbf16>
    %7 = stablehlo.multiply %4, %6 : tensor<128x32xbf16>
    %8 = stablehlo.multiply %arg0, %4 : tensor<128x32xbf16>
    return %8, %7, %4 : tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>
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
  func.func private @dynamic_update_index_in_dim_5(%arg0: tensor<2x128x1xi32>, %arg1: tensor<128x1xi32>, %arg2: tensor<i32>) -> tensor<2x128x1xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x1xi32>) -> tensor<1x128x1xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x1xi32>, tensor<1x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x1xi32>
    return %1 : tensor<2x128x1xi32>
  }
  func.func private @dynamic_update_index_in_dim_6(%arg0: tensor<2x32x64x64xbf16>, %arg1: tensor<32x64x64xbf16>, %arg2: tensor<i32>) -> tensor<2x32x64x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x64x64xbf16>) -> tensor<1x32x64x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x64x64xbf16>, tensor<1x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x64x64xbf16>
    return %1 : tensor<2x32x64x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_7(%arg0: tensor<2x4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<i32>) -> tensor<2x4xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi32>) -> tensor<1x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x4xi32>, tensor<1x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x4xi32>
    return %1 : tensor<2x4xi32>
  }
  func.func private @dynamic_update_index_in_dim_8(%arg0: tensor<2x128x64xbf16>, %arg1: tensor<128x64xbf16>, %arg2: tensor<i32>) -> tensor<2x128x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<1x128x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x64xbf16>, tensor<1x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xbf16>
    return %1 : tensor<2x128x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_9(%arg0: tensor<2x1024x32xbf16>, %arg1: tensor<1024x32xbf16>, %arg2: tensor<i32>) -> tensor<2x1024x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<1024x32xbf16>) -> tensor<1x1024x32xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x1024x32xbf16>, tensor<1x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1024x32xbf16>
    return %1 : tensor<2x1024x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim_10(%arg0: tensor<2x32x32x64xbf16>, %arg1: tensor<32x32x64xbf16>, %arg2: tensor<i32>) -> tensor<2x32x32x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<32x32x64xbf16>) -> tensor<1x32x32x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x32x32x64xbf16>, tensor<1x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x32x32x64xbf16>
    return %1 : tensor<2x32x32x64xbf16>
  }
  func.func private @dynamic_update_index_in_dim_11(%arg0: tensor<2x128x64xi1>, %arg1: tensor<128x64xi1>, %arg2: tensor<i32>) -> tensor<2x128x64xi1> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<128x64xi1>) -> tensor<1x128x64xi1>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x128x64xi1>, tensor<1x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x128x64xi1>
    return %1 : tensor<2x128x64xi1>
  }
  func.func private @dynamic_update_index_in_dim_12(%arg0: tensor<2x64x2xbf16>, %arg1: tensor<64x2xbf16>, %arg2: tensor<i32>) -> tensor<2x64x2xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<64x2xbf16>) -> tensor<1x64x2xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<2x64x2xbf16>, tensor<1x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2xbf16>
    return %1 : tensor<2x64x2xbf16>
  }
  func.func private @dynamic_update_index_in_dim_13(%arg0: tensor<2x64x2x64xbf16>, %arg1: tensor<64x2x64xbf16>, %arg2: tensor<i32>) -> tensor<2x64x2x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x2x64xbf16>) -> tensor<1x64x2x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x64xbf16>
    return %1 : tensor<2x64x2x64xbf16>
  }
  func.func private @dynamic_index_in_dim_14(%arg0: tensor<2x64x2x1xi32>, %arg1: tensor<i32>) -> tensor<64x2x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 2, 1] : (tensor<2x64x2x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2x1xi32>) -> tensor<64x2x1xi32>
    return %1 : tensor<64x2x1xi32>
  }
  func.func private @dynamic_index_in_dim_15(%arg0: tensor<2x64x2xf32>, %arg1: tensor<i32>) -> tensor<64x2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 2] : (tensor<2x64x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2xf32>) -> tensor<64x2xf32>
    return %1 : tensor<64x2xf32>
  }
  func.func private @dynamic_index_in_dim_16(%arg0: tensor<2x128x1xi32>, %arg1: tensor<i32>) -> tensor<128x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 1] : (tensor<2x128x1xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x1xi32>) -> tensor<128x1xi32>
    return %1 : tensor<128x1xi32>
  }
  func.func private @dynamic_index_in_dim_17(%arg0: tensor<2x32x64x64xbf16>, %arg1: tensor<i32>) -> tensor<32x64x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 64, 64] : (tensor<2x32x64x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x32x64x64xbf16>) -> tensor<32x64x64xbf16>
    return %1 : tensor<32x64x64xbf16>
  }
  func.func private @dynamic_index_in_dim_18(%arg0: tensor<2x4xi32>, %arg1: tensor<i32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x4xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xi32>) -> tensor<4xi32>
    return %1 : tensor<4xi32>
  }
  func.func private @dynamic_index_in_dim_19(%arg0: tensor<2x128x64xbf16>, %arg1: tensor<i32>) -> tensor<128x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 64] : (tensor<2x128x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x128x64xbf16>) -> tensor<128x64xbf16>
    return %1 : tensor<128x64xbf16>
  }
  func.func private @dynamic_index_in_dim_20(%arg0: tensor<2x1024x32xbf16>, %arg1: tensor<i32>) -> tensor<1024x32xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 1024, 32] : (tensor<2x1024x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1024x32xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x1024x32xbf16>) -> tensor<1024x32xbf16>
    return %1 : tensor<1024x32xbf16>
  }
  func.func private @dynamic_index_in_dim_21(%arg0: tensor<2x32x32x64xbf16>, %arg1: tensor<i32>) -> tensor<32x32x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 32, 32, 64] : (tensor<2x32x32x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x32x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x32x32x64xbf16>) -> tensor<32x32x64xbf16>
    return %1 : tensor<32x32x64xbf16>
  }
  func.func private @dynamic_index_in_dim_22(%arg0: tensor<2x128x64xi1>, %arg1: tensor<i32>) -> tensor<128x64xi1> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 64] : (tensor<2x128x64xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xi1>
    %1 = stablehlo.reshape %0 : (tensor<1x128x64xi1>) -> tensor<128x64xi1>
    return %1 : tensor<128x64xi1>
  }
  func.func private @dynamic_index_in_dim_23(%arg0: tensor<2x64x2xbf16>, %arg1: tensor<i32>) -> tensor<64x2xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 64, 2] : (tensor<2x64x2xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2xbf16>) -> tensor<64x2xbf16>
    return %1 : tensor<64x2xbf16>
  }
  func.func private @dynamic_index_in_dim_24(%arg0: tensor<2x64x2x64xbf16>, %arg1: tensor<i32>) -> tensor<64x2x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 2, 64] : (tensor<2x64x2x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x2x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x2x64xbf16>) -> tensor<64x2x64xbf16>
    return %1 : tensor<64x2x64xbf16>
  }
  func.func private @silu_25(%arg0: tensor<128x32xbf16>, %arg1: tensor<128x32xbf16>, %arg2: tensor<128x32xbf16>, %arg3: tensor<128x32xbf16>) -> tensor<128x32xbf16> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<128x32xbf16>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<128x32xbf16>
    %2 = stablehlo.multiply %0, %arg0 : tensor<128x32xbf16>
    %3 = stablehlo.add %1, %2 : tensor<128x32xbf16>
    return %3 : tensor<128x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim_26(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<4x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    return %1 : tensor<2x4x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_27(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x32x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    return %1 : tensor<2x4x32x64xf32>
  }
}
