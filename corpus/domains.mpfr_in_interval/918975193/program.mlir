module @m {
  func.func @fuzz(%h1: tensor<1xf32>, %h2: tensor<f32>, %a0: tensor<1x2xf32>) -> tensor<1xf32> {
    %v0 = stablehlo.constant dense<0.0> : tensor<1x2xf32>
    %v1 = stablehlo.maximum %a0, %v0 : tensor<1x2xf32>
    %v2 = stablehlo.constant dense<0.0> : tensor<f32>
    %v3 = stablehlo.reduce(%v1 init: %v2) applies stablehlo.add across dimensions = [1] : (tensor<1x2xf32>, tensor<f32>) -> tensor<1xf32>
    %v4 = stablehlo.broadcast_in_dim %v3, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v5 = stablehlo.divide %v1, %v4 : tensor<1x2xf32>
    %v6 = stablehlo.reshape %v5 : (tensor<1x2xf32>) -> tensor<1x1x2x1xf32>
    %v7 = stablehlo.constant dense<0.0> : tensor<f32>
    %v8 = stablehlo.reduce(%v6 init: %v7) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x1x2x1xf32>, tensor<f32>) -> tensor<1xf32>
    %v9 = stablehlo.broadcast_in_dim %h2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v10 = stablehlo.multiply %v9, %h1 : tensor<1xf32>
    %v11 = stablehlo.add %v10, %v8 : tensor<1xf32>
    return %v11 : tensor<1xf32>
  }
}
