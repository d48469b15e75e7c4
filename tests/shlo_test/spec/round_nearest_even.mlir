// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.round_nearest_even (f64): halves to the even neighbour.
func.func @round_nearest_even() {
  %operand = stablehlo.constant dense<[-2.5, 0.4, 0.5, 0.6, 2.5]> : tensor<5xf64>
  %result = "stablehlo.round_nearest_even"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  check.expect_eq_const %result, dense<[-2.0, 0.0, 0.0, 1.0, 2.0]> : tensor<5xf64>
  func.return
}

// Halves away from zero (round_nearest_afz's values) are not to even.
func.func @round_nearest_even_control() {
  %operand = stablehlo.constant dense<[-2.5, 0.4, 0.5, 0.6, 2.5]> : tensor<5xf64>
  %result = "stablehlo.round_nearest_even"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  check.expect_eq_const %result, dense<[-3.0, 0.0, 1.0, 1.0, 3.0]> : tensor<5xf64>
  func.return
}
