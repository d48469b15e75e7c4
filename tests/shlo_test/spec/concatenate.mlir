// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.concatenate (i64) along dimension 0.
func.func @concatenate() {
  %input0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %input1 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %result = "stablehlo.concatenate"(%input0, %input1) {
    dimension = 0 : i64
  } : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi64>
  func.return
}

// The inputs in the other order.
func.func @concatenate_control() {
  %input0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %input1 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %result = "stablehlo.concatenate"(%input0, %input1) {
    dimension = 0 : i64
  } : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[7, 8], [1, 2], [3, 4], [5, 6]]> : tensor<4x2xi64>
  func.return
}
