// domains: f32
// The spec's example of stablehlo.divide. The spec prints 5.66666651 (that is 17/3) for
// 17.1 / 3.0; the float32 quotient is 5.70000029 (17.1 is 17.1000004 in float32). The test
// holds the true quotient; the control holds the spec's printed value and must fail.
func.func @divide() {
  %lhs = stablehlo.constant dense<[17.1, -17.1, 17.1, -17.1]> : tensor<4xf32>
  %rhs = stablehlo.constant dense<[3.0, 3.0, -3.0, -3.0]> : tensor<4xf32>
  %result = stablehlo.divide %lhs, %rhs : tensor<4xf32>
  check.expect_eq_const %result, dense<[5.70000029, -5.70000029, -5.70000029, 5.70000029]> : tensor<4xf32>
  func.return
}

func.func @divide_spec_value_control() {
  %lhs = stablehlo.constant dense<[17.1, -17.1, 17.1, -17.1]> : tensor<4xf32>
  %rhs = stablehlo.constant dense<[3.0, 3.0, -3.0, -3.0]> : tensor<4xf32>
  %result = stablehlo.divide %lhs, %rhs : tensor<4xf32>
  check.expect_almost_eq_const %result, dense<[5.66666651, -5.66666651, -5.66666651, 5.66666651]> : tensor<4xf32>
  func.return
}
