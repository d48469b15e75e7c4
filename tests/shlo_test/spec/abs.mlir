// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.abs (i32), in the generic form the spec writes.
func.func @abs() {
  %operand = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi32>
  %result = "stablehlo.abs"(%operand) : (tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const %result, dense<[2, 0, 2]> : tensor<3xi32>
  func.return
}

func.func @abs_control() {
  %operand = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi32>
  %result = "stablehlo.abs"(%operand) : (tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const %result, dense<[-2, 0, 2]> : tensor<3xi32>
  func.return
}
