// moe-gather-fusion near misses in the slices of W, StableHLO: each case looks
// like the pattern but one legality check of the slices fails.  Nothing is
// rewritten; the near miss names the check, the op it failed at and why.

// same-source: the halves are slices of two different arrays.
module @near_miss_same_source {
  func.func public @main(%arg0: tensor<2x2x8xf32>, %arg1: tensor<2x2x8xf32>) -> tensor<2x8x8xf32> {
    %0 = stablehlo.slice %arg0 [0:2, 0:2, 0:4] : (tensor<2x2x8xf32>) -> tensor<2x2x4xf32>
    %1 = stablehlo.slice %arg1 [0:2, 0:2, 4:8] : (tensor<2x2x8xf32>) -> tensor<2x2x4xf32>
    %2 = "stablehlo.all_gather"(%0) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x2x4xf32>) -> tensor<2x8x4xf32>
    %3 = "stablehlo.all_gather"(%1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x2x4xf32>) -> tensor<2x8x4xf32>
    %4 = stablehlo.concatenate %2, %3, dim = 2 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    return %4 : tensor<2x8x8xf32>
  }
}

// CHECK:       %4 = stablehlo.concatenate %2, %3, dim = 2
// REPORT:      sites: 0, near misses: 1
// REPORT-NEXT: near-miss moe-gather-fusion same-source at %1: %1 slices %arg1, not %arg0 like %0
