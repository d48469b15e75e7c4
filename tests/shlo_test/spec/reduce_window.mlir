// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.reduce_window (i64), with base and window dilations and
// padding: the input dilated by 2 along dimension 0 is [1, 2], [0, 0], [3, 4], [0, 0], [5, 6];
// padded by 2 above and 1 below; windows of 2 rows, 3 apart (window dilation), 4 apart (stride).
func.func @reduce_window() {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce_window"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 2, 1>,
    window_strides = array<i64: 4, 1>,
    base_dilations = array<i64: 2, 1>,
    window_dilations = array<i64: 3, 1>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>
  func.return
}

// Without dilations or padding, stride 1: the plain windows' sums [[4, 6], [8, 10]].
func.func @reduce_window_control() {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce_window"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 2, 1>,
    window_strides = array<i64: 1, 1>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>
  func.return
}
