// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.compare (written in the pretty form). Every function whose
// name ends in _control must FAIL; every other must PASS.
func.func @compare_lt_float() {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %rhs = stablehlo.constant dense<[1.1, 2.9]> : tensor<2xf32>
  %result = stablehlo.compare LT, %lhs, %rhs : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[true, false]> : tensor<2xi1>
  func.return
}

// -----

func.func @compare_lt_float_control() {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %rhs = stablehlo.constant dense<[1.1, 2.9]> : tensor<2xf32>
  %result = stablehlo.compare LT, %lhs, %rhs : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[true, true]> : tensor<2xi1>
  func.return
}
