// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.broadcast_in_dim (i32): operand dimension 0 (size 1) goes to
// result dimension 2, operand dimension 1 to result dimension 1.
func.func @broadcast_in_dim() {
  %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %result = "stablehlo.broadcast_in_dim"(%operand) {
    broadcast_dimensions = array<i64: 2, 1>
  } : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]> : tensor<2x3x2xi32>
  func.return
}

// The values along the wrong dimension.
func.func @broadcast_in_dim_control() {
  %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %result = "stablehlo.broadcast_in_dim"(%operand) {
    broadcast_dimensions = array<i64: 2, 1>
  } : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 2], [3, 1], [2, 3]], [[1, 2], [3, 1], [2, 3]]]> : tensor<2x3x2xi32>
  func.return
}
