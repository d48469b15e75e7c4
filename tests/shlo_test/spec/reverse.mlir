// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.reverse (i32) along dimension 1.
func.func @reverse() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %result = "stablehlo.reverse"(%operand) {
    dimensions = array<i64: 1>
  } : (tensor<3x2xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[2, 1], [4, 3], [6, 5]]> : tensor<3x2xi32>
  func.return
}

// Reversed along dimension 0 instead.
func.func @reverse_control() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %result = "stablehlo.reverse"(%operand) {
    dimensions = array<i64: 1>
  } : (tensor<3x2xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[5, 6], [3, 4], [1, 2]]> : tensor<3x2xi32>
  func.return
}
