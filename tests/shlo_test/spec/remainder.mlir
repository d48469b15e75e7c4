// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.remainder (i64): the result has the sign of the dividend.
func.func @remainder() {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = "stablehlo.remainder"(%lhs, %rhs) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[2, -2, 2, -2]> : tensor<4xi64>
  func.return
}

// A floor modulo (the sign of the divisor) is what the spec's remainder is not.
func.func @remainder_floor_modulo_control() {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = "stablehlo.remainder"(%lhs, %rhs) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[2, 1, -1, -2]> : tensor<4xi64>
  func.return
}
