module @m {
  func.func @fuzz(%h2: tensor<1x3xf32>, %h3: tensor<f32>, %w1: tensor<1x3xf32>, %a0: tensor<1x1xf32>) -> tensor<1x3xf32> {
    %v0 = stablehlo.logistic %a0 : tensor<1x1xf32>
    %v1 = stablehlo.dot_general %v0, %w1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x1xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    %v2 = stablehlo.constant dense<0.0> : tensor<f32>
    %v3 = stablehlo.reduce(%v1 init: %v2) applies stablehlo.add across dimensions = [1] : (tensor<1x3xf32>, tensor<f32>) -> tensor<1xf32>
    %v4 = stablehlo.broadcast_in_dim %v3, dims = [0] : (tensor<1xf32>) -> tensor<1x3xf32>
    %v5 = stablehlo.divide %v1, %v4 : tensor<1x3xf32>
    %v6 = stablehlo.broadcast_in_dim %h3, dims = [] : (tensor<f32>) -> tensor<1x3xf32>
    %v7 = stablehlo.multiply %v6, %v5 : tensor<1x3xf32>
    %v8 = stablehlo.subtract %h2, %v7 : tensor<1x3xf32>
    return %v8 : tensor<1x3xf32>
  }
}
