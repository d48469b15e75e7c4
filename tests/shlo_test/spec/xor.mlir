// domains: f32 f64 exact interval:64
// The spec's examples of stablehlo.xor: bitwise on i32, logical on i1.
func.func @xor() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.xor"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[4, 4], [4, 12]]> : tensor<2x2xi32>
  func.return
}

func.func @xor_bool() {
  %lhs = stablehlo.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %rhs = stablehlo.constant dense<[[false, true], [false, true]]> : tensor<2x2xi1>
  %result = "stablehlo.xor"(%lhs, %rhs) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  check.expect_eq_const %result, dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  func.return
}

func.func @xor_control() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.xor"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[5, 6], [7, 12]]> : tensor<2x2xi32>
  func.return
}
