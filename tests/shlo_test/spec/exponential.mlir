// domains: f64 interval:64
// The spec's example of stablehlo.exponential (f64): the spec's values are the doubles
// nearest e, e^2 and e^3.
func.func @exponential() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %result = stablehlo.exponential %operand : tensor<2x2xf64>
  %expected = stablehlo.constant dense<[[1.0, 2.7182818284590451], [7.3890560989306504, 20.085536923187668]]> : tensor<2x2xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2x2xf64>, tensor<2x2xf64>
  func.return
}

func.func @exponential_control() {
  %operand = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %result = stablehlo.exponential %operand : tensor<2x2xf64>
  %expected = stablehlo.constant dense<[[1.0, 2.7182818284590451], [7.3890560989306504, 20.08553692318766]]> : tensor<2x2xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2x2xf64>, tensor<2x2xf64>
  func.return
}
