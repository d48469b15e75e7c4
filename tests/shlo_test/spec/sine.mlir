// domains: f32
// The spec's example of stablehlo.sine (f32) at 0, pi/2, pi, 3pi/2 as the spec writes them.
// In float32, 3.14159265 is 3.14159274 (above pi), whose sine is -8.742278e-08: negative, and
// expect_almost_eq wants equal signs, so the spec's 0.0 there is written -0.0. The second check
// holds the float32 results, correctly rounded (by an independent 300-bit evaluation), within
// 1 ULP. Only f32: the f64 and interval domains read 3.14159265 as written (not as its
// float32 3.14159274), whose sine is +3.6e-09; and sin(1.57079632) is irrational in exact.
func.func @sine() {
  %operand = stablehlo.constant dense<[[0.0, 1.57079632], [3.14159265, 4.71238898]]> : tensor<2x2xf32>
  %result = "stablehlo.sine"(%operand) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %result, dense<[[0.0, 1.0], [-0.0, -1.0]]> : tensor<2x2xf32>
  %expected = stablehlo.constant dense<[[0.0, 1.0], [-8.742278e-08, -1.0]]> : tensor<2x2xf32>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2x2xf32>, tensor<2x2xf32>
  func.return
}

// The cosine's values.
func.func @sine_control() {
  %operand = stablehlo.constant dense<[[0.0, 1.57079632], [3.14159265, 4.71238898]]> : tensor<2x2xf32>
  %result = "stablehlo.sine"(%operand) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %result, dense<[[1.0, 0.0], [-1.0, 0.0]]> : tensor<2x2xf32>
  func.return
}
