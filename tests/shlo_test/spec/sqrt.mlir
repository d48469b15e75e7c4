// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.sqrt (f32).
func.func @sqrt() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [4.0, 9.0]]> : tensor<2x2xf32>
  %result = stablehlo.sqrt %operand : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  func.return
}

func.func @sqrt_control() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [4.0, 9.0]]> : tensor<2x2xf32>
  %result = stablehlo.sqrt %operand : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[0.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  func.return
}
