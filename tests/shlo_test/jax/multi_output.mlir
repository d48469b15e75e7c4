// JAX's printed style: a main with two results (jax.result_info "result[0]", "result[1]"),
// a private helper with two results used as %0:2 and %0#1, a comma list of results, and
// func.call / func.return spelled in full. min/max of [1, 5] and [4, 2] are [1, 2] and [4, 5];
// compare LT of those is [true, true].
module @jit_min_max attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<2xi1> {jax.result_info = "result[1]"}) {
    %a, %b = call @inputs() : () -> (tensor<2xf32>, tensor<2xf32>)
    %0:2 = func.call @min_max(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %1 = stablehlo.compare LT, %0#0, %0#1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    check.expect_eq_const %0#0, dense<[1.0, 2.0]> : tensor<2xf32>
    check.expect_eq_const %0#1, dense<[4.0, 5.0]> : tensor<2xf32>
    check.expect_eq_const %1, dense<true> : tensor<2xi1>
    func.return %0#1, %1 : tensor<2xf32>, tensor<2xi1>
  }
  func.func private @inputs() -> (tensor<2xf32>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<[1.0, 5.0]> : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<[4.0, 2.0]> : tensor<2xf32>
    return %cst, %cst_0 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @min_max(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<2xf32>
    %1 = stablehlo.maximum %arg0, %arg1 : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// The control: the results of the pack read in the wrong order.
module @jit_min_max_control {
  func.func public @min_max_control() -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.0, 5.0]> : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<[4.0, 2.0]> : tensor<2xf32>
    %0:2 = call @min_max(%cst, %cst_0) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %0#1, dense<[1.0, 2.0]> : tensor<2xf32>
    return %0#0 : tensor<2xf32>
  }
  func.func private @min_max(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<2xf32>
    %1 = stablehlo.maximum %arg0, %arg1 : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }
}
