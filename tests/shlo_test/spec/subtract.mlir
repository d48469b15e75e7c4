// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.subtract (f32; the spec writes the values as integers).
func.func @subtract() {
  %lhs = stablehlo.constant dense<[[6.0, 8.0], [10.0, 12.0]]> : tensor<2x2xf32>
  %rhs = stablehlo.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %result = stablehlo.subtract %lhs, %rhs : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  func.return
}

// The same values as i32 (the spec's numbers are written as integers).
func.func @subtract_integer() {
  %lhs = stablehlo.constant dense<[[6, 8], [10, 12]]> : tensor<2x2xi32>
  %rhs = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.subtract"(%lhs, %rhs) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  func.return
}

func.func @subtract_control() {
  %lhs = stablehlo.constant dense<[[6.0, 8.0], [10.0, 12.0]]> : tensor<2x2xf32>
  %rhs = stablehlo.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %result = stablehlo.subtract %lhs, %rhs : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[1.0, 2.0], [3.0, 5.0]]> : tensor<2x2xf32>
  func.return
}
