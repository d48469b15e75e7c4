module @m {
  func.func @fuzz(%v_1: tensor<1xf32>, %b2_2: tensor<f32>, %ob2_3: tensor<f32>, %a0: tensor<1x1xf32>) -> tensor<1xf32> {
    %v0 = stablehlo.reshape %a0 : (tensor<1x1xf32>) -> tensor<1x1x1x1xf32>
    %v1 = stablehlo.constant dense<0.0> : tensor<f32>
    %v2 = stablehlo.reduce(%v0 init: %v1) applies stablehlo.add across dimensions = [2, 3] : (tensor<1x1x1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
    %v3 = stablehlo.constant dense<1.0> : tensor<1x1xf32>
    %v4 = stablehlo.divide %v2, %v3 : tensor<1x1xf32>
    %v5 = stablehlo.broadcast_in_dim %v4, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x1x1x1xf32>
    %v6 = stablehlo.reshape %v5 : (tensor<1x1x1x1xf32>) -> tensor<1x1xf32>
    %v7 = stablehlo.reshape %v6 : (tensor<1x1xf32>) -> tensor<1x1x1x1xf32>
    %v8 = stablehlo.constant dense<0.0> : tensor<f32>
    %v9 = stablehlo.reduce(%v7 init: %v8) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x1x1x1xf32>, tensor<f32>) -> tensor<1xf32>
    %v10 = stablehlo.broadcast_in_dim %b2_2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v11 = stablehlo.broadcast_in_dim %ob2_3, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v12 = stablehlo.multiply %v10, %v_1 : tensor<1xf32>
    %v13 = stablehlo.multiply %v9, %v9 : tensor<1xf32>
    %v14 = stablehlo.multiply %v11, %v13 : tensor<1xf32>
    %v15 = stablehlo.add %v12, %v14 : tensor<1xf32>
    return %v15 : tensor<1xf32>
  }
}
