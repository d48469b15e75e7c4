// domains: f64 interval:64
// The spec's example of stablehlo.exponential_minus_one (f64). The spec's 1.71828187 for e - 1
// is the float32 value; the float64 result is 1.7182818284590453 (correctly rounded, by an
// independent 300-bit evaluation). The spec's value passes expect_almost_eq (absolute
// tolerance 1e-4); the float64 value passes expect_close within 1 ULP; the spec's value under
// expect_close is the control. Not in exact: e - 1 is irrational.
func.func @exponential_minus_one() {
  %operand = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %result = "stablehlo.exponential_minus_one"(%operand) : (tensor<2xf64>) -> tensor<2xf64>
  check.expect_almost_eq_const %result, dense<[0.0, 1.71828187]> : tensor<2xf64>
  %expected = stablehlo.constant dense<[0.0, 1.7182818284590453]> : tensor<2xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2xf64>, tensor<2xf64>
  func.return
}

func.func @exponential_minus_one_spec_digits_control() {
  %operand = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %result = "stablehlo.exponential_minus_one"(%operand) : (tensor<2xf64>) -> tensor<2xf64>
  %expected = stablehlo.constant dense<[0.0, 1.71828187]> : tensor<2xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2xf64>, tensor<2xf64>
  func.return
}
