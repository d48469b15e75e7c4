// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.negate on i32. Left out: its second example, on
// tensor<1xcomplex<f32>> (complex element types are not run).
func.func @negate() {
  %operand = stablehlo.constant dense<[0, -2]> : tensor<2xi32>
  %result = "stablehlo.negate"(%operand) : (tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const %result, dense<[0, 2]> : tensor<2xi32>
  func.return
}

func.func @negate_control() {
  %operand = stablehlo.constant dense<[0, -2]> : tensor<2xi32>
  %result = "stablehlo.negate"(%operand) : (tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const %result, dense<[0, -2]> : tensor<2xi32>
  func.return
}
