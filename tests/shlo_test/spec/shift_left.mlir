// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.shift_left.
func.func @shift_left() {
  %lhs = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %rhs = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %result = "stablehlo.shift_left"(%lhs, %rhs): (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  check.expect_eq_const %result, dense<[-2, 0, 8]> : tensor<3xi64>
  func.return
}

// The control expects the last element shifted by one bit too few (1 << 2 = 4).
func.func @shift_left_control() {
  %lhs = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %rhs = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %result = "stablehlo.shift_left"(%lhs, %rhs): (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  check.expect_eq_const %result, dense<[-2, 0, 4]> : tensor<3xi64>
  func.return
}
