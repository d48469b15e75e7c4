// domains: f64 interval:64
// The spec's example of stablehlo.logistic (f64); the spec prints 8 digits, so the check is
// expect_almost_eq (absolute tolerance 1e-4, as StableHLO's interpreter tests use it).
func.func @logistic() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %result = stablehlo.logistic %operand : tensor<2x2xf64>
  check.expect_almost_eq_const %result, dense<[[0.5, 0.73105858], [0.88079708, 0.95257413]]> : tensor<2x2xf64>
  func.return
}

func.func @logistic_control() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %result = stablehlo.logistic %operand : tensor<2x2xf64>
  check.expect_almost_eq_const %result, dense<[[0.5, 0.73105858], [0.88079708, 0.95257413]]>, tolerance = 1.0e-10 : tensor<2x2xf64>
  func.return
}
