// domains: f64
// The spec's example of stablehlo.power, written on tensor<6xf64>, prints
// [4.0, 0.0, -nan, 25.0, 0.333333343, inf]: those are the float32 results (0.333333343 is the
// float32 nearest 1/3; 10000^10 = 1e40 overflows float32 but not float64). So the example is
// run twice: on f64 with the float64 results (1/3 to the double, 1e40), and on f32 with the
// spec's printed values; the spec's values on f64 are the control. NaN is written as the bit
// pattern 0xFFF8000000000000 (-nan); expect_close counts NaN against NaN as 0 ULP, whatever
// its sign. Only f64: in exact (-36)^1.1 is not a real number.
func.func @power() {
  %lhs = stablehlo.constant dense<[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]> : tensor<6xf64>
  %rhs = stablehlo.constant dense<[2.0, 2.0, 1.1, 2.0, -1.0, 10.0]> : tensor<6xf64>
  %result = "stablehlo.power"(%lhs, %rhs) : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
  %expected = stablehlo.constant dense<[4.0, 0.0, 0xFFF8000000000000, 25.0, 0.33333333333333331, 1.0e40]> : tensor<6xf64>
  check.expect_close %result, %expected, max_ulp_difference = 0 : tensor<6xf64>, tensor<6xf64>
  func.return
}

func.func @power_spec_values_in_f32() {
  %lhs = stablehlo.constant dense<[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]> : tensor<6xf32>
  %rhs = stablehlo.constant dense<[2.0, 2.0, 1.1, 2.0, -1.0, 10.0]> : tensor<6xf32>
  %result = "stablehlo.power"(%lhs, %rhs) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %expected = stablehlo.constant dense<[4.0, 0.0, 0xFFC00000, 25.0, 0.333333343, 0x7F800000]> : tensor<6xf32>
  check.expect_close %result, %expected, max_ulp_difference = 0 : tensor<6xf32>, tensor<6xf32>
  func.return
}

func.func @power_spec_values_in_f64_control() {
  %lhs = stablehlo.constant dense<[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]> : tensor<6xf64>
  %rhs = stablehlo.constant dense<[2.0, 2.0, 1.1, 2.0, -1.0, 10.0]> : tensor<6xf64>
  %result = "stablehlo.power"(%lhs, %rhs) : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
  %expected = stablehlo.constant dense<[4.0, 0.0, 0xFFF8000000000000, 25.0, 0.333333343, 0x7FF0000000000000]> : tensor<6xf64>
  check.expect_close %result, %expected, max_ulp_difference = 0 : tensor<6xf64>, tensor<6xf64>
  func.return
}
