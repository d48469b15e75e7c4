module @m {
  func.func @fuzz(%s2: tensor<f32>, %x_1: tensor<1x1xf32>, %a0: tensor<1x1xf32>) -> tensor<1xf32> {
    %v0 = stablehlo.reshape %x_1 : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %v1 = stablehlo.reshape %a0 : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %v2 = stablehlo.constant dense<0.0> : tensor<f32>
    %v3 = stablehlo.exponential %v0 : tensor<1x1x1xf32>
    %v4 = stablehlo.reduce(%v3 init: %v2) applies stablehlo.add across dimensions = [2] : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
    %v5 = stablehlo.broadcast_in_dim %v4, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %v6 = stablehlo.divide %v3, %v5 : tensor<1x1x1xf32>
    %v7 = stablehlo.multiply %v6, %v1 : tensor<1x1x1xf32>
    %v8 = stablehlo.reduce(%v7 init: %v2) applies stablehlo.add across dimensions = [2] : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
    %v9 = stablehlo.broadcast_in_dim %v8, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %v10 = stablehlo.subtract %v1, %v9 : tensor<1x1x1xf32>
    %v11 = stablehlo.multiply %v6, %v10 : tensor<1x1x1xf32>
    %v12 = stablehlo.reshape %v11 : (tensor<1x1x1xf32>) -> tensor<1x1xf32>
    %v13 = stablehlo.constant dense<0.0> : tensor<1x1xf32>
    %v14 = stablehlo.maximum %v12, %v13 : tensor<1x1xf32>
    %v15 = stablehlo.constant dense<0.0> : tensor<f32>
    %v16 = stablehlo.reduce(%v14 init: %v15) applies stablehlo.add across dimensions = [0] : (tensor<1x1xf32>, tensor<f32>) -> tensor<1xf32>
    %v17 = stablehlo.constant dense<0.0> : tensor<f32>
    %v18 = stablehlo.multiply %v16, %v16 : tensor<1xf32>
    %v19 = stablehlo.reduce(%v18 init: %v17) applies stablehlo.add across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
    %v20 = stablehlo.sqrt %s2 : tensor<f32>
    %v21 = stablehlo.sqrt %v19 : tensor<f32>
    %v22 = stablehlo.divide %v20, %v21 : tensor<f32>
    %v23 = stablehlo.constant dense<1.0> : tensor<f32>
    %v24 = stablehlo.compare GT, %s2, %v17 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v25 = stablehlo.compare GT, %v19, %v17 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v26 = stablehlo.and %v24, %v25 : tensor<i1>
    %v27 = stablehlo.select %v26, %v22, %v23 : tensor<i1>, tensor<f32>
    %v28 = stablehlo.broadcast_in_dim %v27, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v29 = stablehlo.multiply %v28, %v16 : tensor<1xf32>
    return %v29 : tensor<1xf32>
  }
}
