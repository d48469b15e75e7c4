// domains: f64 interval:64
// The spec's example of stablehlo.log (f64).
func.func @log() {
  %operand = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %result = stablehlo.log %operand : tensor<2x2xf64>
  %expected = stablehlo.constant dense<[[0.0, 0.69314718055994529], [1.0986122886681098, 1.3862943611198906]]> : tensor<2x2xf64>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2x2xf64>, tensor<2x2xf64>
  func.return
}

func.func @log_control() {
  %operand = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %result = stablehlo.log %operand : tensor<2x2xf64>
  check.expect_almost_eq_const %result, dense<[[0.0, 0.6931], [1.0986, 1.3863]]>, tolerance = 1.0e-6 : tensor<2x2xf64>
  func.return
}
