// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.dot_general (i64): a batch of two 2x2 matrices, each times
// the identity. The spec's `algorithm = #stablehlo.dot_algorithm<...>` attribute is read past
// and not used (integer dots are exact).
func.func @dot_general() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>
  %rhs = stablehlo.constant dense<[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]> : tensor<2x2x2xi64>
  %result = "stablehlo.dot_general"(%lhs, %rhs) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [1]
    >,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>],
    algorithm = #stablehlo.dot_algorithm<
      lhs_precision_type = tf32,
      rhs_precision_type = tf32,
      accumulation_type = f32,
      lhs_component_count = 1,
      rhs_component_count = 1,
      num_primitive_operations = 1,
      allow_imprecise_accumulation = false
    >
  } : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>
  check.expect_eq_const %result, dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>
  func.return
}

// The transposed matrices expected (a contraction over lhs dimension 1).
func.func @dot_general_control() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>
  %rhs = stablehlo.constant dense<[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]> : tensor<2x2x2xi64>
  %result = "stablehlo.dot_general"(%lhs, %rhs) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [1]
    >
  } : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>
  check.expect_eq_const %result, dense<[[[1, 3], [2, 4]], [[5, 7], [6, 8]]]> : tensor<2x2x2xi64>
  func.return
}
