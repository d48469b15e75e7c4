// domains: f32
// The spec's example of stablehlo.cosine (f32) at 0, pi/2, pi, 3pi/2 as the spec writes them.
// In float32, 1.57079632 is 1.57079637 (above pi/2), whose cosine is -4.371139e-08: negative,
// and expect_almost_eq wants equal signs, so the spec's 0.0 there is written -0.0 (cos(4.71238899)
// is +1.1924881e-08). The second check holds the float32 results, correctly rounded (by an
// independent 300-bit evaluation), within 1 ULP. Only f32: the f64 and interval domains read
// 1.57079632 as written (not as its float32 1.57079637), whose cosine is +6.8e-09; and
// cos(1.57079632) is irrational in exact.
func.func @cosine() {
  %operand = stablehlo.constant dense<[[0.0, 1.57079632], [3.14159265, 4.71238898]]> : tensor<2x2xf32>
  %result = "stablehlo.cosine"(%operand) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %result, dense<[[1.0, -0.0], [-1.0, 0.0]]> : tensor<2x2xf32>
  %expected = stablehlo.constant dense<[[1.0, -4.371139e-08], [-1.0, 1.1924881e-08]]> : tensor<2x2xf32>
  check.expect_close %result, %expected, max_ulp_difference = 1 : tensor<2x2xf32>, tensor<2x2xf32>
  func.return
}

// The sine's values.
func.func @cosine_control() {
  %operand = stablehlo.constant dense<[[0.0, 1.57079632], [3.14159265, 4.71238898]]> : tensor<2x2xf32>
  %result = "stablehlo.cosine"(%operand) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %result, dense<[[0.0, 1.0], [-0.0, -1.0]]> : tensor<2x2xf32>
  func.return
}
