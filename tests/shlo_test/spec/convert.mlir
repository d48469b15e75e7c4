// domains: f32 f64 exact interval:64
// stablehlo.convert. Left out: the spec's example, i64 to tensor<3xcomplex<f64>> (complex
// element types are not run); @convert_spec_real converts its operand to f64 instead, which
// is its real part. The other cases are by hand, from the spec's rules: float to integer
// truncates toward zero, nonzero to i1 is true, i1 to integer is 0 or 1, integer to integer
// keeps the value modulo 2^N.
func.func @convert_spec_real() {
  %operand = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %result = "stablehlo.convert"(%operand) : (tensor<3xi64>) -> tensor<3xf64>
  check.expect_eq_const %result, dense<[-1.0, 0.0, 1.0]> : tensor<3xf64>
  func.return
}

func.func @convert_integer_and_bool() {
  %floats = stablehlo.constant dense<[-1.5, 2.75, -0.5, 100.0]> : tensor<4xf32>
  %ints = stablehlo.convert %floats : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %ints, dense<[-1, 2, 0, 100]> : tensor<4xi32>
  %bools = stablehlo.convert %ints : (tensor<4xi32>) -> tensor<4xi1>
  check.expect_eq_const %bools, dense<[true, true, false, true]> : tensor<4xi1>
  %back = stablehlo.convert %bools : (tensor<4xi1>) -> tensor<4xui8>
  check.expect_eq_const %back, dense<[1, 1, 0, 1]> : tensor<4xui8>
  %wide = stablehlo.constant dense<[300, -1]> : tensor<2xi32>
  %narrow = stablehlo.convert %wide : (tensor<2xi32>) -> tensor<2xui8>
  check.expect_eq_const %narrow, dense<[44, 255]> : tensor<2xui8>
  func.return
}

// Rounding to nearest instead of truncation: -2, 3, -0 (0), 100.
func.func @convert_rounding_control() {
  %floats = stablehlo.constant dense<[-1.5, 2.75, -0.5, 100.0]> : tensor<4xf32>
  %ints = stablehlo.convert %floats : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %ints, dense<[-2, 3, 0, 100]> : tensor<4xi32>
  func.return
}
