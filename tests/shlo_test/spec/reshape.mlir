// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.reshape (i32): row-major order is kept.
func.func @reshape() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %result = "stablehlo.reshape"(%operand) : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  func.return
}

// A transpose is not a reshape.
func.func @reshape_control() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %result = "stablehlo.reshape"(%operand) : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
  func.return
}
