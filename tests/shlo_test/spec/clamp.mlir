// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.clamp (i32, bounds per element).
func.func @clamp() {
  %min = stablehlo.constant dense<[5, 10, 15]> : tensor<3xi32>
  %operand = stablehlo.constant dense<[3, 13, 23]> : tensor<3xi32>
  %max = stablehlo.constant dense<[10, 15, 20]> : tensor<3xi32>
  %result = "stablehlo.clamp"(%min, %operand, %max) : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const %result, dense<[5, 13, 20]> : tensor<3xi32>
  func.return
}

func.func @clamp_control() {
  %min = stablehlo.constant dense<[5, 10, 15]> : tensor<3xi32>
  %operand = stablehlo.constant dense<[3, 13, 23]> : tensor<3xi32>
  %max = stablehlo.constant dense<[10, 15, 20]> : tensor<3xi32>
  %result = "stablehlo.clamp"(%min, %operand, %max) : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const %result, dense<[3, 13, 23]> : tensor<3xi32>
  func.return
}
