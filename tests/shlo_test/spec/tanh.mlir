// domains: f32 f64 interval:64
// The spec's example of stablehlo.tanh (f32); the spec prints 8 digits.
func.func @tanh() {
  %operand = stablehlo.constant dense<[-1.0, 0.0, 1.0]> : tensor<3xf32>
  %result = stablehlo.tanh %operand : tensor<3xf32>
  check.expect_almost_eq_const %result, dense<[-0.76159416, 0.0, 0.76159416]> : tensor<3xf32>
  func.return
}

func.func @tanh_control() {
  %operand = stablehlo.constant dense<[-1.0, 0.0, 1.0]> : tensor<3xf32>
  %result = stablehlo.tanh %operand : tensor<3xf32>
  check.expect_almost_eq_const %result, dense<[0.76159416, 0.0, 0.76159416]> : tensor<3xf32>
  func.return
}
