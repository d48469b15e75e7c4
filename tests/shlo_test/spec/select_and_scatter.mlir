// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.select_and_scatter (i64): windows of 3 rows, stride 2, one
// row of padding below; each source value goes to its window's first maximum (GE).
func.func @select_and_scatter() {
  %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>
  %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GE>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%0) : (tensor<i1>) -> ()
  }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>
  func.return
}

// With LE the selection picks each window's first minimum instead.
func.func @select_and_scatter_control() {
  %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>
  %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction LE>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%0) : (tensor<i1>) -> ()
  }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>
  func.return
}
