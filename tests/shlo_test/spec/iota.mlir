// domains: f32 f64 exact interval:64
// The spec's examples of stablehlo.iota (i32), along dimension 0 and along dimension 1.
func.func @iota_dimension_0() {
  %output = "stablehlo.iota"() {
    iota_dimension = 0 : i64
  } : () -> tensor<4x5xi32>
  check.expect_eq_const %output, dense<[[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3]]> : tensor<4x5xi32>
  func.return
}

func.func @iota_dimension_1() {
  %output = "stablehlo.iota"() {
    iota_dimension = 1 : i64
  } : () -> tensor<4x5xi32>
  check.expect_eq_const %output, dense<[[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]> : tensor<4x5xi32>
  func.return
}

// Dimension 1's values expected along dimension 0.
func.func @iota_control() {
  %output = "stablehlo.iota"() {
    iota_dimension = 0 : i64
  } : () -> tensor<4x5xi32>
  check.expect_eq_const %output, dense<[[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]> : tensor<4x5xi32>
  func.return
}
