// JAX's printed style: jax.nn.softmax over the last axis of a 2x4 float32 matrix, the row
// maximum reduced from -inf (0xFF800000). Expected values computed outside the oracle in
// float32 (exp of each shifted value rounded to float32, the row sum in float32, then the
// quotient), compared within 3 ULP as StableHLO's interpreter does for this custom call.
module @jit_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x4xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e-01, -5.000000e-01, 2.500000e-01, 0.000000e+00]]> : tensor<2x4xf32>
    %0 = call @softmax(%cst) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %cst_0 = stablehlo.constant dense<[[0.032058604061603546, 0.08714432269334793, 0.23688283562660217, 0.6439142823219299], [0.3632122874259949, 0.1336183398962021, 0.28287002444267273, 0.2202993929386139]]> : tensor<2x4xf32>
    stablehlo.custom_call @check.expect_close(%0, %cst_0) {has_side_effect = true} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    return %0 : tensor<2x4xf32>
  }
  func.func private @softmax(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.subtract %arg0, %1 : tensor<2x4xf32>
    %3 = stablehlo.exponential %2 : tensor<2x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
    %6 = stablehlo.divide %3, %5 : tensor<2x4xf32>
    return %6 : tensor<2x4xf32>
  }
}

// -----

// The control: the rows' expected values swapped.
module @jit_softmax_control attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @softmax_control() -> (tensor<4xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %0 = stablehlo.exponential %cst : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.divide %0, %2 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<[0.6439142823219299, 0.23688283562660217, 0.08714432269334793, 0.032058604061603546]> : tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%3, %cst_1) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    return %3 : tensor<4xf32>
  }
}
