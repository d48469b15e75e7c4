// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.gather, with batching and collapsed dimensions; the start
// [0, 9] is clamped to [0, 2] (the slice must stay inside the operand).
// The spec's expected result.
func.func @gather() {
  %operand = stablehlo.constant dense<[
    [[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]]],
    [[[25, 26], [27, 28], [29, 30], [31, 32]], [[33, 34], [35, 36], [37, 38], [39, 40]], [[41, 42], [43, 44], [45, 46], [47, 48]]]
  ]> : tensor<2x3x4x2xi32>
  %start_indices = stablehlo.constant dense<[
    [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]
  ]> : tensor<2x2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [3, 4],
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [1],
      start_index_map = [2, 1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  check.expect_eq_const %result, dense<[
    [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]], [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
    [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]], [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]
  ]> : tensor<2x2x3x2x2xi32>
  func.return
}

// The control expects, for the start [0, 9], rows 2-3 of operand[1][2] ([[45, 46], [47, 48]]), as
// if its coordinate on operand dimension 2 were 2 rather than 0; the spec reads rows 0-1.
func.func @gather_control() {
  %operand = stablehlo.constant dense<[
    [[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]]],
    [[[25, 26], [27, 28], [29, 30], [31, 32]], [[33, 34], [35, 36], [37, 38], [39, 40]], [[41, 42], [43, 44], [45, 46], [47, 48]]]
  ]> : tensor<2x3x4x2xi32>
  %start_indices = stablehlo.constant dense<[
    [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]
  ]> : tensor<2x2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [3, 4],
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [1],
      start_index_map = [2, 1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  check.expect_eq_const %result, dense<[
    [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]], [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[45, 46], [47, 48]]]],
    [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]], [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]
  ]> : tensor<2x2x3x2x2xi32>
  func.return
}
