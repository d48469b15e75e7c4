// domains: f64 interval:64
// The spec's example of stablehlo.log_plus_one (f64). The spec prints its results to about 8
// digits, and its -6.90776825 for log(0.001) is 1.3e-5 from the true -6.9077552789821368: the
// spec's values pass expect_almost_eq (absolute tolerance 1e-4), the float64 results
// (correctly rounded, by an independent 300-bit evaluation) pass expect_close within 1 ULP.
// Not in exact: log(8) is irrational.
func.func @log_plus_one() {
  %operand = stablehlo.constant dense<[0.0, -0.999, 7.0, 6.38905621, 15.0]> : tensor<5xf64>
  %result = "stablehlo.log_plus_one"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  check.expect_almost_eq_const %result, dense<[0.0, -6.90776825, 2.07944155, 2.0, 2.77258873]> : tensor<5xf64>
  %expected = stablehlo.constant dense<[0.0, -6.907755278982136, 2.0794415416798357, 2.0000000150316017, 2.772588722239781]> : tensor<5xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<5xf64>, tensor<5xf64>
  func.return
}

// The spec's values within 1e-6: its -6.90776825 is too far.
func.func @log_plus_one_control() {
  %operand = stablehlo.constant dense<[0.0, -0.999, 7.0, 6.38905621, 15.0]> : tensor<5xf64>
  %result = "stablehlo.log_plus_one"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  check.expect_almost_eq_const %result, dense<[0.0, -6.90776825, 2.07944155, 2.0, 2.77258873]>, tolerance = 1.0e-6 : tensor<5xf64>
  func.return
}
