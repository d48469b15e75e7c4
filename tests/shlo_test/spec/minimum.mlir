// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.minimum (i32).
func.func @minimum() {
  %lhs = stablehlo.constant dense<[[1, 2], [7, 8]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.minimum"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  func.return
}

func.func @minimum_control() {
  %lhs = stablehlo.constant dense<[[1, 2], [7, 8]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [3, 4]]> : tensor<2x2xi32>
  %result = "stablehlo.minimum"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  func.return
}
