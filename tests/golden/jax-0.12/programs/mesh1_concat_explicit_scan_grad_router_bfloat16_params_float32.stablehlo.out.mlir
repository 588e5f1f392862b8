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
      %50 = stablehlo.dot_general %iterArg_51, %iterArg_38, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x4xbf16>) -> tensor<64x4xbf16>
      %51 = stablehlo.convert %50 : (tensor<64x4xbf16>) -> tensor<64x4xf32>
      %values, %indices = chlo.top_k(%51, k = 2) : tensor<64x4xf32> -> (tensor<64x2xf32>, tensor<64x2xi32>)
      %52 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<64x2x1xi32>
      %cst_71 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %53 = stablehlo.reduce(%values init: %cst_71) applies stablehlo.maximum across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %cst_72 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %54 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %55 = stablehlo.maximum %54, %53 : tensor<64xf32>
      %56 = stablehlo.broadcast_in_dim %55, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
      %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %58 = stablehlo.subtract %values, %57 : tensor<64x2xf32>
      %59 = stablehlo.exponential %58 : tensor<64x2xf32>
      %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %60 = stablehlo.reduce(%59 init: %cst_73) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %61 = stablehlo.broadcast_in_dim %60, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
      %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %63 = stablehlo.divide %59, %62 : tensor<64x2xf32>
      %64 = stablehlo.multiply %61, %61 : tensor<64x1xf32>
      %cst_74 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
      %66 = stablehlo.divide %65, %64 : tensor<64x1xf32>
      %67 = stablehlo.convert %63 : (tensor<64x2xf32>) -> tensor<64x2xbf16>
      %68 = stablehlo.reshape %indices : (tensor<64x2xi32>) -> tensor<128xi32>
      %69 = func.call @argsort_1(%68, %iterArg_39) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %70 = func.call @clip_2(%68, %iterArg_48) : (tensor<128xi32>, tensor<i32>) -> tensor<128xi32>
      %c_75 = stablehlo.constant dense<0> : tensor<i32>
      %71 = stablehlo.broadcast_in_dim %c_75, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %72 = stablehlo.compare LT, %70, %71, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_76 = stablehlo.constant dense<4> : tensor<i32>
      %73 = stablehlo.broadcast_in_dim %c_76, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %74 = stablehlo.add %70, %73 : tensor<128xi32>
      %75 = stablehlo.select %72, %74, %70 : tensor<128xi1>, tensor<128xi32>
      %76 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %77 = "stablehlo.scatter"(%iterArg_47, %76, %iterArg_49) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
        %124 = stablehlo.add %arg4, %arg5 : tensor<i32>
        stablehlo.return %124 : tensor<i32>
      }) : (tensor<4xi32>, tensor<128x1xi32>, tensor<128xi32>) -> tensor<4xi32>
      %78 = func.call @floor_divide_3(%69, %iterArg_45, %iterArg_46) : (tensor<128xi32>, tensor<i32>, tensor<i32>) -> tensor<128xi32>
      %c_77 = stablehlo.constant dense<0> : tensor<i32>
      %79 = stablehlo.broadcast_in_dim %c_77, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %80 = stablehlo.compare LT, %78, %79, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_78 = stablehlo.constant dense<64> : tensor<i32>
      %81 = stablehlo.broadcast_in_dim %c_78, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %82 = stablehlo.add %78, %81 : tensor<128xi32>
      %83 = stablehlo.select %80, %82, %78 : tensor<128xi1>, tensor<128xi32>
      %84 = stablehlo.broadcast_in_dim %83, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %85 = "stablehlo.gather"(%iterArg_51, %84) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<64x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %86:9 = sdy.manual_computation(%85, %77, %48, %49) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<128x64xbf16>, %arg5: tensor<4xi32>, %arg6: tensor<4x8x64xf32>, %arg7: tensor<4x32x64xf32>) {
        %124 = stablehlo.convert %arg6 : (tensor<4x8x64xf32>) -> tensor<4x8x64xbf16>
        %v128.hp1 = "stablehlo.all_gather"(%124) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gather-fusion"}} : (tensor<4x8x64xbf16>) -> tensor<4x64x64xbf16>
        %125 = stablehlo.convert %arg7 : (tensor<4x32x64xf32>) -> tensor<4x32x64xbf16>
        %131 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %132 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %133 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %134 = stablehlo.subtract %133, %arg5 : tensor<4xi32>
        %135 = stablehlo.broadcast_in_dim %133, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %136 = stablehlo.broadcast_in_dim %134, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %137 = stablehlo.compare LE, %136, %132, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %138 = stablehlo.compare LT, %132, %135, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %139 = stablehlo.and %137, %138 : tensor<4x128x64xi1>
        %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %140 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %141 = stablehlo.select %139, %131, %140 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %142 = stablehlo.dot_general %141, %v128.hp1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %143 = stablehlo.slice %142 [0:128, 0:32] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %144 = stablehlo.slice %142 [0:128, 32:64] : (tensor<128x64xbf16>) -> tensor<128x32xbf16>
        %145:3 = func.call @silu(%143) : (tensor<128x32xbf16>) -> (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>)
        %146 = stablehlo.multiply %145#0, %144 : tensor<128x32xbf16>
        %147 = stablehlo.broadcast_in_dim %146, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %148 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
        %149 = func.call @cumsum(%arg5) : (tensor<4xi32>) -> tensor<4xi32>
        %150 = stablehlo.subtract %149, %arg5 : tensor<4xi32>
        %151 = stablehlo.broadcast_in_dim %149, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %152 = stablehlo.broadcast_in_dim %150, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %153 = stablehlo.compare LE, %152, %148, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %154 = stablehlo.compare LT, %148, %151, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %155 = stablehlo.and %153, %154 : tensor<4x128x32xi1>
        %cst_83 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %156 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %157 = stablehlo.select %155, %147, %156 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
        %158 = stablehlo.dot_general %157, %125, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x32x64xbf16>) -> tensor<128x64xbf16>
        sdy.return %158, %v128.hp1, %145#1, %145#2, %143, %144, %145#0, %125, %146 : tensor<128x64xbf16>, tensor<4x64x64xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<4x32x64xbf16>, tensor<128x32xbf16>
      } : (tensor<128x64xbf16>, tensor<4xi32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>)
      %c_79 = stablehlo.constant dense<0> : tensor<i32>
      %87 = stablehlo.broadcast_in_dim %c_79, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %88 = stablehlo.compare LT, %69, %87, SIGNED : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %c_80 = stablehlo.constant dense<128> : tensor<i32>
      %89 = stablehlo.broadcast_in_dim %c_80, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %90 = stablehlo.add %69, %89 : tensor<128xi32>
      %91 = stablehlo.select %88, %90, %69 : tensor<128xi1>, tensor<128xi32>
      %92 = stablehlo.broadcast_in_dim %91, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
      %93 = "stablehlo.scatter"(%iterArg_37, %92, %iterArg_40) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<ui32>, %arg5: tensor<ui32>):
        stablehlo.return %arg5 : tensor<ui32>
      }) : (tensor<128x64xui32>, tensor<128x1xi32>, tensor<128x64xui32>) -> tensor<128x64xui32>
      %94 = "stablehlo.gather"(%93, %92) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xui32>, tensor<128x1xi32>) -> tensor<128x64xui32>
      %95 = stablehlo.compare EQ, %93, %iterArg_41, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %96 = stablehlo.select %95, %iterArg_43, %iterArg_42 : tensor<128x64xi1>, tensor<128x64xbf16>
      %97 = stablehlo.compare EQ, %iterArg_40, %94, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %98 = stablehlo.select %97, %86#0, %iterArg_44 : tensor<128x64xi1>, tensor<128x64xbf16>
      %99 = stablehlo.compare EQ, %iterArg_40, %94, UNSIGNED : (tensor<128x64xui32>, tensor<128x64xui32>) -> tensor<128x64xi1>
      %100 = "stablehlo.scatter"(%96, %92, %98) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<bf16>, %arg5: tensor<bf16>):
        %124 = stablehlo.add %arg4, %arg5 : tensor<bf16>
        stablehlo.return %124 : tensor<bf16>
      }) : (tensor<128x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
      %101 = stablehlo.reshape %100 : (tensor<128x64xbf16>) -> tensor<64x2x64xbf16>
      %102 = stablehlo.dot_general %101, %67, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x2x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64xbf16>
      %103 = stablehlo.add %iterArg_51, %102 : tensor<64x64xbf16>
      %104 = func.call @dynamic_update_index_in_dim(%iterArg_52, %52, %iterArg_50) : (tensor<2x64x2x1xi32>, tensor<64x2x1xi32>, tensor<i32>) -> tensor<2x64x2x1xi32>
      %105 = func.call @dynamic_update_index_in_dim_4(%iterArg_53, %59, %iterArg_50) : (tensor<2x64x2xf32>, tensor<64x2xf32>, tensor<i32>) -> tensor<2x64x2xf32>
      %106 = func.call @dynamic_update_index_in_dim_5(%iterArg_54, %61, %iterArg_50) : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %107 = func.call @dynamic_update_index_in_dim_5(%iterArg_55, %66, %iterArg_50) : (tensor<2x64x1xf32>, tensor<64x1xf32>, tensor<i32>) -> tensor<2x64x1xf32>
      %108 = func.call @dynamic_update_index_in_dim_6(%iterArg_56, %84, %iterArg_50) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %109 = func.call @dynamic_update_index_in_dim_7(%iterArg_57, %86#1, %iterArg_50) : (tensor<2x32x64x64xbf16>, tensor<32x64x64xbf16>, tensor<i32>) -> tensor<2x32x64x64xbf16>
      %110 = func.call @dynamic_update_index_in_dim_8(%iterArg_58, %77, %iterArg_50) : (tensor<2x4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xi32>
      %111 = func.call @dynamic_update_index_in_dim_9(%iterArg_59, %85, %iterArg_50) : (tensor<2x128x64xbf16>, tensor<128x64xbf16>, tensor<i32>) -> tensor<2x128x64xbf16>
      %112 = func.call @dynamic_update_index_in_dim_10(%iterArg_60, %86#2, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %113 = func.call @dynamic_update_index_in_dim_10(%iterArg_61, %86#3, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %114 = func.call @dynamic_update_index_in_dim_10(%iterArg_62, %86#4, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %115 = func.call @dynamic_update_index_in_dim_10(%iterArg_63, %86#5, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %116 = func.call @dynamic_update_index_in_dim_10(%iterArg_64, %86#6, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %117 = func.call @dynamic_update_index_in_dim_11(%iterArg_65, %86#7, %iterArg_50) : (tensor<2x32x32x64xbf16>, tensor<32x32x64xbf16>, tensor<i32>) -> tensor<2x32x32x64xbf16>
      %118 = func.call @dynamic_update_index_in_dim_10(%iterArg_66, %86#8, %iterArg_50) : (tensor<2x1024x32xbf16>, tensor<1024x32xbf16>, tensor<i32>) -> tensor<2x1024x32xbf16>
      %119 = func.call @dynamic_update_index_in_dim_12(%iterArg_67, %99, %iterArg_50) : (tensor<2x128x64xi1>, tensor<128x64xi1>, tensor<i32>) -> tensor<2x128x64xi1>
      %120 = func.call @dynamic_update_index_in_dim_6(%iterArg_68, %92, %iterArg_50) : (tensor<2x128x1xi32>, tensor<128x1xi32>, tensor<i32>) -> tensor<2x128x1xi32>
      %121 = func.call @dynamic_update_index_in_dim_13(%iterArg_69, %67, %iterArg_50) : (tensor<2x64x2xbf16>, tensor<64x2xbf16>, tensor<i32>) -> tensor<2x64x2xbf16>
      %122 = func.call @dynamic_update_index_in_dim_14(%iterArg_70, %101, %iterArg_50) : (tensor<2x64x2x64xbf16>, tensor<64x2x64xbf16>, tensor<i32>) -> tensor<2x64x2x64xbf16>
      %c_81 = stablehlo.constant dense<1> : tensor<i32>
      %123 = stablehlo.add %iterArg_50, %c_81 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %123, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122 : tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>, tensor<128x64xui32>, tensor<64x4xbf16>, tensor<128xi32>, tensor<128x64xui32>, tensor<128x64xui32>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<i32>, tensor<i32>, tensor<4xi32>, tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<64x64xbf16>, tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>
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
      %69 = stablehlo.dot_general %iterArg_56, %68, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2xbf16>
      %70 = stablehlo.dot_general %iterArg_56, %67, batching_dims = [0] x [0], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<64x64xbf16>, tensor<64x2xbf16>) -> tensor<64x64x2xbf16>
      %71 = stablehlo.transpose %70, dims = [0, 2, 1] : (tensor<64x64x2xbf16>) -> tensor<64x2x64xbf16>
      %72 = stablehlo.reshape %71 : (tensor<64x2x64xbf16>) -> tensor<128x64xbf16>
      %c_61 = stablehlo.constant dense<127> : tensor<1xi32>
      %c_62 = stablehlo.constant dense<0> : tensor<i32>
      %73 = stablehlo.broadcast_in_dim %c_62, dims = [] : (tensor<i32>) -> tensor<128x1xi32>
      %74 = stablehlo.compare GE, %66, %73, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %75 = stablehlo.broadcast_in_dim %c_61, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
      %76 = stablehlo.broadcast_in_dim %75, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<128x1xi32>
      %77 = stablehlo.compare LE, %66, %76, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
      %78 = stablehlo.and %74, %77 : tensor<128x1xi1>
      %c_63 = stablehlo.constant dense<true> : tensor<i1>
      %79 = stablehlo.reduce(%78 init: %c_63) applies stablehlo.and across dimensions = [1] : (tensor<128x1xi1>, tensor<i1>) -> tensor<128xi1>
      %80 = "stablehlo.gather"(%72, %66) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<128x64xbf16>, tensor<128x1xi32>) -> tensor<128x64xbf16>
      %81 = stablehlo.broadcast_in_dim %79, dims = [0] : (tensor<128xi1>) -> tensor<128x64xi1>
      %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %82 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %83 = stablehlo.select %81, %80, %82 : tensor<128x64xi1>, tensor<128x64xbf16>
      %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %84 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %85 = stablehlo.select %65, %83, %84 : tensor<128x64xi1>, tensor<128x64xbf16>
      %cst_66 = stablehlo.constant dense<8.000000e+00> : tensor<bf16>
      %86 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<bf16>) -> tensor<128x64xbf16>
      %87 = stablehlo.divide %85, %86 : tensor<128x64xbf16>
      %88:3 = sdy.manual_computation(%87, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}]>, <@mesh, [{"fsdp"}, {}, {}]>, <@mesh, [{"fsdp"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"fsdp"}, {}]>, <@mesh, [{}, {}, {}]>] manual_axes={"fsdp"} (%arg4: tensor<128x64xbf16>, %arg5: tensor<4x64x64xbf16>, %arg6: tensor<4xi32>, %arg7: tensor<128x64xbf16>, %arg8: tensor<128x32xbf16>, %arg9: tensor<128x32xbf16>, %arg10: tensor<128x32xbf16>, %arg11: tensor<128x32xbf16>, %arg12: tensor<128x32xbf16>, %arg13: tensor<4x32x64xbf16>, %arg14: tensor<128x32xbf16>) {
        %113 = stablehlo.broadcast_in_dim %arg14, dims = [1, 2] : (tensor<128x32xbf16>) -> tensor<4x128x32xbf16>
        %114 = stablehlo.iota dim = 1 : tensor<4x128x32xi32>
        %115 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %116 = stablehlo.subtract %115, %arg6 : tensor<4xi32>
        %117 = stablehlo.broadcast_in_dim %115, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %118 = stablehlo.broadcast_in_dim %116, dims = [0] : (tensor<4xi32>) -> tensor<4x128x32xi32>
        %119 = stablehlo.compare LE, %118, %114, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %120 = stablehlo.compare LT, %114, %117, SIGNED : (tensor<4x128x32xi32>, tensor<4x128x32xi32>) -> tensor<4x128x32xi1>
        %121 = stablehlo.and %119, %120 : tensor<4x128x32xi1>
        %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %122 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<bf16>) -> tensor<4x128x32xbf16>
        %123 = stablehlo.select %121, %113, %122 : tensor<4x128x32xi1>, tensor<4x128x32xbf16>
        %124 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %125 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %126 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %127 = stablehlo.subtract %126, %arg6 : tensor<4xi32>
        %128 = stablehlo.broadcast_in_dim %126, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %129 = stablehlo.broadcast_in_dim %127, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %130 = stablehlo.compare LE, %129, %125, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %131 = stablehlo.compare LT, %125, %128, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %132 = stablehlo.and %130, %131 : tensor<4x128x64xi1>
        %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %133 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %134 = stablehlo.select %132, %124, %133 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %135 = stablehlo.dot_general %123, %134, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x32xbf16>, tensor<4x128x64xbf16>) -> tensor<4x32x64xbf16>
        %136 = stablehlo.broadcast_in_dim %arg4, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %137 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %138 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %139 = stablehlo.subtract %138, %arg6 : tensor<4xi32>
        %140 = stablehlo.broadcast_in_dim %138, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %141 = stablehlo.broadcast_in_dim %139, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %142 = stablehlo.compare LE, %141, %137, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %143 = stablehlo.compare LT, %137, %140, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %144 = stablehlo.and %142, %143 : tensor<4x128x64xi1>
        %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %145 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %146 = stablehlo.select %144, %136, %145 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %147 = stablehlo.dot_general %146, %arg13, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x32x64xbf16>) -> tensor<128x32xbf16>
        %148 = stablehlo.multiply %arg12, %147 : tensor<128x32xbf16>
        %149 = stablehlo.multiply %147, %arg11 : tensor<128x32xbf16>
        %150 = func.call @silu_27(%arg8, %arg9, %arg10, %149) : (tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x32xbf16>) -> tensor<128x32xbf16>
        %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %151 = stablehlo.pad %148, %cst_75, low = [0, 32], high = [0, 0], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %152 = stablehlo.pad %150, %cst_76, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<128x32xbf16>, tensor<bf16>) -> tensor<128x64xbf16>
        %153 = stablehlo.add %151, %152 : tensor<128x64xbf16>
        %154 = stablehlo.broadcast_in_dim %arg7, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %155 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %156 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %157 = stablehlo.subtract %156, %arg6 : tensor<4xi32>
        %158 = stablehlo.broadcast_in_dim %156, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %159 = stablehlo.broadcast_in_dim %157, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %160 = stablehlo.compare LE, %159, %155, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %161 = stablehlo.compare LT, %155, %158, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %162 = stablehlo.and %160, %161 : tensor<4x128x64xi1>
        %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %163 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %164 = stablehlo.select %162, %154, %163 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %165 = stablehlo.broadcast_in_dim %153, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %166 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %167 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %168 = stablehlo.subtract %167, %arg6 : tensor<4xi32>
        %169 = stablehlo.broadcast_in_dim %167, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %170 = stablehlo.broadcast_in_dim %168, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %171 = stablehlo.compare LE, %170, %166, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %172 = stablehlo.compare LT, %166, %169, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %173 = stablehlo.and %171, %172 : tensor<4x128x64xi1>
        %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %174 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %175 = stablehlo.select %173, %165, %174 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %176 = stablehlo.dot_general %164, %175, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x128x64xbf16>) -> tensor<4x64x64xbf16>
        %v192.hp2 = "stablehlo.reduce_scatter"(%176) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<bf16>, %arg16: tensor<bf16>):
          %200 = stablehlo.add %arg15, %arg16 : tensor<bf16>
          stablehlo.return %200 : tensor<bf16>
        }) {mhlo.frontend_attributes = {hlo_passes.rule = "moe-gradient-fusion"}} : (tensor<4x64x64xbf16>) -> tensor<4x8x64xbf16>
        %177 = stablehlo.broadcast_in_dim %153, dims = [1, 2] : (tensor<128x64xbf16>) -> tensor<4x128x64xbf16>
        %178 = stablehlo.iota dim = 1 : tensor<4x128x64xi32>
        %179 = func.call @cumsum(%arg6) : (tensor<4xi32>) -> tensor<4xi32>
        %180 = stablehlo.subtract %179, %arg6 : tensor<4xi32>
        %181 = stablehlo.broadcast_in_dim %179, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %182 = stablehlo.broadcast_in_dim %180, dims = [0] : (tensor<4xi32>) -> tensor<4x128x64xi32>
        %183 = stablehlo.compare LE, %182, %178, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %184 = stablehlo.compare LT, %178, %181, SIGNED : (tensor<4x128x64xi32>, tensor<4x128x64xi32>) -> tensor<4x128x64xi1>
        %185 = stablehlo.and %183, %184 : tensor<4x128x64xi1>
        %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
        %186 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<bf16>) -> tensor<4x128x64xbf16>
        %187 = stablehlo.select %185, %177, %186 : tensor<4x128x64xi1>, tensor<4x128x64xbf16>
        %188 = stablehlo.dot_general %187, %arg5, contracting_dims = [2, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) -> tensor<128x64xbf16>
        %196 = stablehlo.convert %135 : (tensor<4x32x64xbf16>) -> tensor<4x32x64xf32>
        %197 = stablehlo.convert %v192.hp2 : (tensor<4x8x64xbf16>) -> tensor<4x8x64xf32>
        %198 = "stablehlo.all_reduce"(%188) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<bf16>, %arg16: tensor<bf16>):
          %200 = stablehlo.add %arg15, %arg16 : tensor<bf16>
          stablehlo.return %200 : tensor<bf16>
        }) : (tensor<128x64xbf16>) -> tensor<128x64xbf16>
        %199 = "stablehlo.all_reduce"(%196) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "fsdp">]>, use_global_device_ids}> ({
        ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
          %200 = stablehlo.add %arg15, %arg16 : tensor<f32>
          stablehlo.return %200 : tensor<f32>
        }) : (tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
        sdy.return %198, %197, %199 : tensor<128x64xbf16>, tensor<4x8x64xf32>, tensor<4x32x64xf32>
      } : (tensor<128x64xbf16>, tensor<32x64x64xbf16>, tensor<4xi32>, tensor<128x64xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<1024x32xbf16>, tensor<32x32x64xbf16>, tensor<1024x32xbf16>) -> (tensor<128x64xbf16>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
      %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %89 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<bf16>) -> tensor<64x64xbf16>
      %90 = "stablehlo.scatter"(%89, %54, %88#0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<bf16>, %arg5: tensor<bf16>):
        %113 = stablehlo.add %arg4, %arg5 : tensor<bf16>
        stablehlo.return %113 : tensor<bf16>
      }) : (tensor<64x64xbf16>, tensor<128x1xi32>, tensor<128x64xbf16>) -> tensor<64x64xbf16>
      %91 = stablehlo.add %iterArg_56, %90 : tensor<64x64xbf16>
      %92 = stablehlo.convert %69 : (tensor<64x2xbf16>) -> tensor<64x2xf32>
      %93 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %94 = stablehlo.multiply %92, %93 : tensor<64x2xf32>
      %95 = stablehlo.multiply %94, %51 : tensor<64x2xf32>
      %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %96 = stablehlo.reduce(%95 init: %cst_68) applies stablehlo.add across dimensions = [1] : (tensor<64x2xf32>, tensor<f32>) -> tensor<64xf32>
      %97 = stablehlo.reshape %96 : (tensor<64xf32>) -> tensor<64x1xf32>
      %98 = stablehlo.negate %97 : tensor<64x1xf32>
      %99 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x2xf32>
      %100 = stablehlo.divide %92, %99 : tensor<64x2xf32>
      %cst_69 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %101 = stablehlo.reduce(%98 init: %cst_69) applies stablehlo.add across dimensions = [1] : (tensor<64x1xf32>, tensor<f32>) -> tensor<64xf32>
      %102 = stablehlo.broadcast_in_dim %101, dims = [0] : (tensor<64xf32>) -> tensor<64x2xf32>
      %103 = stablehlo.add %100, %102 : tensor<64x2xf32>
      %104 = stablehlo.multiply %103, %51 : tensor<64x2xf32>
      %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %105 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<64x4xf32>
      %106 = "stablehlo.scatter"(%105, %50, %104) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %113 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %113 : tensor<f32>
      }) : (tensor<64x4xf32>, tensor<64x2x1xi32>, tensor<64x2xf32>) -> tensor<64x4xf32>
      %107 = stablehlo.convert %106 : (tensor<64x4xf32>) -> tensor<64x4xbf16>
      %108 = stablehlo.dot_general %107, %iterArg_54, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4xbf16>, tensor<64x4xbf16>) -> tensor<64x64xbf16>
      %109 = stablehlo.add %91, %108 : tensor<64x64xbf16>
      %110 = func.call @dynamic_update_index_in_dim_28(%iterArg_57, %88#1, %49) : (tensor<2x4x64x64xf32>, tensor<4x64x64xf32>, tensor<i32>) -> tensor<2x4x64x64xf32>
      %111 = func.call @dynamic_update_index_in_dim_29(%iterArg_58, %88#2, %49) : (tensor<2x4x32x64xf32>, tensor<4x32x64xf32>, tensor<i32>) -> tensor<2x4x32x64xf32>
      %c_71 = stablehlo.constant dense<1> : tensor<i32>
      %112 = stablehlo.add %iterArg_55, %c_71 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %iterArg_51, %iterArg_52, %iterArg_53, %iterArg_54, %112, %109, %110, %111 : tensor<2x64x2x1xi32>, tensor<2x64x2xf32>, tensor<2x64x1xf32>, tensor<2x64x1xf32>, tensor<2x128x1xi32>, tensor<2x32x64x64xbf16>, tensor<2x4xi32>, tensor<2x128x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x1024x32xbf16>, tensor<2x32x32x64xbf16>, tensor<2x1024x32xbf16>, tensor<2x128x64xi1>, tensor<2x128x1xi32>, tensor<2x64x2xbf16>, tensor<2x64x2x64xbf16>, tensor<64x4xbf16>, tensor<i32>, tensor<64x64xbf16>, tensor<2x4x64x64xf32>, tensor<2x4x32x64xf32>
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
  func.func private @silu_27(%arg0: tensor<128x32xbf16>, %arg1: tensor<128x32xbf16>, %arg2: tensor<128x32xbf16>, %arg3: tensor<128x32xbf16>) -> tensor<128x32xbf16> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<128x32xbf16>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<128x32xbf16>
    %2 = stablehlo.multiply %0, %arg0 : tensor<128x32xbf16>
    %3 = stablehlo.add %1, %2 : tensor<128x32xbf16>
    return %3 : tensor<128x32xbf16>
  }
  func.func private @dynamic_update_index_in_dim_28(%arg0: tensor<2x4x64x64xf32>, %arg1: tensor<4x64x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x64x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x64x64xf32>) -> tensor<1x4x64x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x64x64xf32>
    return %1 : tensor<2x4x64x64xf32>
  }
  func.func private @dynamic_update_index_in_dim_29(%arg0: tensor<2x4x32x64xf32>, %arg1: tensor<4x32x64xf32>, %arg2: tensor<i32>) -> tensor<2x4x32x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<2x4x32x64xf32>, tensor<1x4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x32x64xf32>
    return %1 : tensor<2x4x32x64xf32>
  }
}
