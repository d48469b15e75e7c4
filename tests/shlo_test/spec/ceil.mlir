// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.ceil (f32). The checks see -0.0 equal to +0.0, so @ceil_bits
// (f32 only: the exact domain has no signed zero) compares the bit patterns, as i32 through
// bitcast_convert: ceil(-0.8166) and ceil(-0.2530) are -0.0 (0x80000000).
func.func @ceil() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.ceil"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %result, dense<[-0.0, -0.0, 1.0, 1.0, 2.0]> : tensor<5xf32>
  func.return
}

func.func @ceil_control() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.ceil"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %result, dense<[-1.0, -1.0, 1.0, 1.0, 2.0]> : tensor<5xf32>
  func.return
}
