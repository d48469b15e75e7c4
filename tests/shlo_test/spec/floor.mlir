// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.floor (f32). The result of floor(-0.2530) is -1.0 and of
// floor(0.2530) +0.0; bit for bit (as i32 through bitcast_convert) only in f32, since the
// exact domain has no signed zero.
func.func @floor() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.floor"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %result, dense<[-1.0, -1.0, 0.0, 0.0, 2.0]> : tensor<5xf32>
  func.return
}

// Truncation toward zero is not floor.
func.func @floor_control() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.floor"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %result, dense<[0.0, 0.0, 0.0, 0.0, 2.0]> : tensor<5xf32>
  func.return
}
