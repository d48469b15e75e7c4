// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.add (i32).
func.func @add() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.add"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[6, 8], [10, 12]]> : tensor<2x2xi32>
  func.return
}

func.func @add_control() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.add"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[6, 8], [10, 13]]> : tensor<2x2xi32>
  func.return
}
