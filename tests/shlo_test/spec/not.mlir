// domains: f32 f64 exact interval:64
// The spec's examples of stablehlo.not: bitwise on i32 (two's complement: not x = -x - 1),
// logical on i1.
func.func @not() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.not"(%operand) : (tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[-2, -3], [-4, -5]]> : tensor<2x2xi32>
  func.return
}

func.func @not_bool() {
  %operand = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %result = "stablehlo.not"(%operand) : (tensor<2xi1>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[false, true]> : tensor<2xi1>
  func.return
}

func.func @not_control() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.not"(%operand) : (tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[-1, -2], [-3, -4]]> : tensor<2x2xi32>
  func.return
}
