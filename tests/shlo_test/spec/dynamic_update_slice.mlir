// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.dynamic_update_slice: the start (-1, 3) is clamped to (0, 2).
func.func @dynamic_update_slice() {
  %operand = stablehlo.constant dense<[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]> : tensor<4x4xi32>
  %update = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_update_slice"(%operand, %update, %start_indices0, %start_indices1)
    : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>
  check.expect_eq_const %result, dense<[[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]> : tensor<4x4xi32>
  func.return
}

// The control expects the operand unchanged, as if the clamped window had not been written.
func.func @dynamic_update_slice_control() {
  %operand = stablehlo.constant dense<[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]> : tensor<4x4xi32>
  %update = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_update_slice"(%operand, %update, %start_indices0, %start_indices1)
    : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>
  check.expect_eq_const %result, dense<[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]> : tensor<4x4xi32>
  func.return
}
