// moe-gradient-fusion, StableHLO: the weight gradient dW[E, D, 2F] is sliced
// into halves, each reduced on its own, and put back with pad + pad + add (jax's
// transpose of a slice) or a concatenate.  One reduction chain of all of dW.

// reduce_scatter per half (psum_scatter), one stage: form `pad_add`.
module @pad_add_reduce_scatter {
  func.func public @main(%arg0: tensor<2x8x8xf32>) -> tensor<2x2x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.slice %arg0 [0:2, 0:8, 0:4] : (tensor<2x8x8xf32>) -> tensor<2x8x4xf32>
    %1 = stablehlo.slice %arg0 [0:2, 0:8, 4:8] : (tensor<2x8x8xf32>) -> tensor<2x8x4xf32>
    %2 = "stablehlo.reduce_scatter"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x8x4xf32>) -> tensor<2x2x4xf32>
    %3 = "stablehlo.reduce_scatter"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x8x4xf32>) -> tensor<2x2x4xf32>
    %6 = stablehlo.pad %2, %cst, low = [0, 0, 0], high = [0, 0, 4], interior = [0, 0, 0] : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %7 = stablehlo.pad %3, %cst, low = [0, 0, 4], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %8 = stablehlo.add %6, %7 : tensor<2x2x8xf32>
    return %8 : tensor<2x2x8xf32>
  }
}

// CHECK:       %[[R:[^ ]+]] = "stablehlo.reduce_scatter"(%arg0)
// CHECK:       }) {{.*}}: (tensor<2x8x8xf32>) -> tensor<2x2x8xf32>
// CHECK-NEXT:  return %[[R]] : tensor<2x2x8xf32>
// CHECK-NOT:   stablehlo.pad
// REPORT:      sites: 1, near misses: 0
// REPORT-NEXT: site moe-gradient-fusion pad_add at %8 in main: collectives 2 -> 1, bytes 512 -> 512, saves 896, rewritten [23:5]
// REPORT-NEXT:   details: collectives=explicit halves=2 split_dim=2 split_sizes=[4, 4] weight=%arg0

