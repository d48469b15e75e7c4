// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.slice (i64): rows 1..3, columns 2..4.
func.func @slice() {
  %operand = stablehlo.constant dense<[[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]> : tensor<3x4xi64>
  %result = "stablehlo.slice"(%operand) {
    start_indices = array<i64: 1, 2>,
    limit_indices = array<i64: 3, 4>,
    strides = array<i64: 1, 1>
  } : (tensor<3x4xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
  func.return
}

// The top-left corner (start_indices read as [0, 0]).
func.func @slice_control() {
  %operand = stablehlo.constant dense<[[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]> : tensor<3x4xi64>
  %result = "stablehlo.slice"(%operand) {
    start_indices = array<i64: 1, 2>,
    limit_indices = array<i64: 3, 4>,
    strides = array<i64: 1, 1>
  } : (tensor<3x4xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>
  func.return
}
