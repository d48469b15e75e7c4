// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.constant.
func.func @constant() {
  %output = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  check.expect_eq_const %output, dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  func.return
}

func.func @constant_control() {
  %output = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  check.expect_eq_const %output, dense<[[0.0, 1.0], [3.0, 2.0]]> : tensor<2x2xf32>
  func.return
}
