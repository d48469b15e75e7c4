module @m {
  func.func @f(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %a: tensor<4x6xf32>, %b: tensor<6x2xf32>, %z: tensor<f32>) -> (tensor<1x3x3x3xf32>, tensor<4x2xf32>, tensor<4xf32>) {
    %v0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
    %v1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x2xf32>) -> tensor<4x2xf32>
    %v2 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    return %v0, %v1, %v2 : tensor<1x3x3x3xf32>, tensor<4x2xf32>, tensor<4xf32>
  }
}
