// domains: f32 f64 exact interval:64
// stablehlo.divide on integers (by hand; the spec's example is on f32, divide.mlir): the spec's
// operands as i64, quotients truncated toward zero, so 17 / -3 = -5.
func.func @divide_integer() {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = "stablehlo.divide"(%lhs, %rhs) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[5, -5, -5, 5]> : tensor<4xi64>
  func.return
}

// Floor division (-6 for -17 / 3) is not the spec's.
func.func @divide_integer_floor_control() {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = "stablehlo.divide"(%lhs, %rhs) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[5, -6, -6, 5]> : tensor<4xi64>
  func.return
}
