// domains: f64
// The spec's example of stablehlo.sign (f64): NaN, -1.0, -0.0, +0.0, 1.0 keep their values.
// The checks of the check dialect see -0.0 equal to +0.0 and any NaN equal to any NaN, so the
// results are also compared bit for bit, as i64 through bitcast_convert.
// Only f64: the exact domain has neither NaN nor a signed zero.
func.func @sign() {
  %operand = stablehlo.constant dense<[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]> : tensor<5xf64>
  %result = "stablehlo.sign"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  check.expect_almost_eq_const %result, dense<[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]> : tensor<5xf64>
  %bits = "stablehlo.bitcast_convert"(%result) : (tensor<5xf64>) -> tensor<5xi64>
  check.expect_eq_const %bits, dense<[0x7FFFFFFFFFFFFFFF, 0xBFF0000000000000, 0x8000000000000000, 0, 0x3FF0000000000000]> : tensor<5xi64>
  func.return
}

// +0.0 for the sign of -0.0: only the bit-for-bit check sees it.
func.func @sign_of_negative_zero_control() {
  %operand = stablehlo.constant dense<[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]> : tensor<5xf64>
  %result = "stablehlo.sign"(%operand) : (tensor<5xf64>) -> tensor<5xf64>
  %bits = "stablehlo.bitcast_convert"(%result) : (tensor<5xf64>) -> tensor<5xi64>
  check.expect_eq_const %bits, dense<[0x7FFFFFFFFFFFFFFF, 0xBFF0000000000000, 0, 0, 0x3FF0000000000000]> : tensor<5xi64>
  func.return
}
