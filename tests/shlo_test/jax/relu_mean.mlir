// JAX's printed style: jax.jit(lambda x: jnp.mean(jax.nn.relu(x))) with the inputs and the
// expected value in private helpers. Expected: the positive values sum to 7 (exact in
// float32), and 7 / 8 = 0.875. Every function whose name ends in _control must FAIL.
module @jit_relu_mean attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<f32> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<8xf32>
    %1 = call @relu_mean(%0) : (tensor<8xf32>) -> tensor<f32>
    %2 = call @expected() : () -> tensor<f32>
    stablehlo.custom_call @check.expect_eq(%1, %2) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %1 : tensor<f32>
  }
  func.func private @inputs() -> (tensor<8xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[-2.000000e+00, 5.000000e-01, 1.250000e+00, -7.500000e-01, 3.000000e+00, 0.000000e+00, -1.500000e+00, 2.250000e+00]> : tensor<8xf32>
    return %cst : tensor<8xf32>
  }
  func.func private @relu_mean(%arg0: tensor<8xf32> {mhlo.sharding = "{replicated}"}) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8xf32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %3 = stablehlo.divide %2, %cst_0 : tensor<f32>
    return %3 : tensor<f32>
  }
  func.func private @expected() -> (tensor<f32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<8.750000e-01> : tensor<f32>
    return %cst : tensor<f32>
  }
}

// -----

// The control: the mean off by one float32 ULP (0x3F600001) under expect_eq.
module @jit_relu_mean_control attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @relu_mean_control() -> (tensor<f32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[-2.000000e+00, 5.000000e-01, 1.250000e+00, -7.500000e-01, 3.000000e+00, 0.000000e+00, -1.500000e+00, 2.250000e+00]> : tensor<8xf32>
    %0 = call @relu_mean(%cst) : (tensor<8xf32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0x3F600001> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%0, %cst_0) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %0 : tensor<f32>
  }
  func.func private @relu_mean(%arg0: tensor<8xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8xf32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %3 = stablehlo.divide %2, %cst_0 : tensor<f32>
    return %3 : tensor<f32>
  }
}
