// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.convolution (i64): a 4x4 input, dilated by 2 (lhs_dilation),
// a 3x3 kernel of ones, strides 4: each output is the sum of a 3x3 window of the dilated input.
func.func @convolution() {
  %lhs = stablehlo.constant dense<[[
    [[1], [2], [5], [6]],
    [[3], [4], [7], [8]],
    [[10], [11], [14], [15]],
    [[12], [13], [16], [17]]
  ]]> : tensor<1x4x4x1xi64>
  %rhs = stablehlo.constant dense<[
    [[[1]], [[1]], [[1]]],
    [[[1]], [[1]], [[1]]],
    [[[1]], [[1]], [[1]]]
  ]> : tensor<3x3x1x1xi64>
  %result = "stablehlo.convolution"(%lhs, %rhs) {
    window_strides = array<i64: 4, 4>,
    padding = dense<0> : tensor<2x2xi64>,
    lhs_dilation = array<i64: 2, 2>,
    rhs_dilation = array<i64: 1, 1>,
    window_reversal = array<i1: false, false>,
    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  check.expect_eq_const %result, dense<[[[[10], [26]], [[46], [62]]]]> : tensor<1x2x2x1xi64>
  func.return
}

// Without the lhs dilation (and stride 1): the sums of four overlapping windows of the plain
// input, 1+2+5+3+4+7+10+11+14 = 57 first, not the spec's result.
func.func @convolution_control() {
  %lhs = stablehlo.constant dense<[[
    [[1], [2], [5], [6]],
    [[3], [4], [7], [8]],
    [[10], [11], [14], [15]],
    [[12], [13], [16], [17]]
  ]]> : tensor<1x4x4x1xi64>
  %rhs = stablehlo.constant dense<1> : tensor<3x3x1x1xi64>
  %result = "stablehlo.convolution"(%lhs, %rhs) {
    window_strides = array<i64: 1, 1>,
    padding = dense<0> : tensor<2x2xi64>,
    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  check.expect_eq_const %result, dense<[[[[10], [26]], [[46], [62]]]]> : tensor<1x2x2x1xi64>
  func.return
}
