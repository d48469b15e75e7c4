// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.and (i32), and the boolean truth table (by hand: the spec
// defines `and` on i1 as logical AND).
func.func @and() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.and"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 0]]> : tensor<2x2xi32>
  func.return
}

func.func @and_bool() {
  %lhs = stablehlo.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %rhs = stablehlo.constant dense<[[false, true], [false, true]]> : tensor<2x2xi1>
  %result = "stablehlo.and"(%lhs, %rhs) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  check.expect_eq_const %result, dense<[[false, false], [false, true]]> : tensor<2x2xi1>
  func.return
}

func.func @and_control() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.and"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  func.return
}
