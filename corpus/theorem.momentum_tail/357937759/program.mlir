module @m {
  func.func @fuzz(%a0: tensor<1x4xf32>) -> tensor<4xf32> {
    %v0 = stablehlo.constant dense<0.0> : tensor<f32>
    %v1 = stablehlo.reduce(%a0 init: %v0) applies stablehlo.add across dimensions = [1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<1xf32>
    %v2 = stablehlo.broadcast_in_dim %v1, dims = [0] : (tensor<1xf32>) -> tensor<1x4xf32>
    %v3 = stablehlo.divide %a0, %v2 : tensor<1x4xf32>
    %v4 = stablehlo.constant dense<0.0> : tensor<f32>
    %v5 = stablehlo.reduce(%v3 init: %v4) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %arsumg1000 = "stablehlo.all_reduce"(%v5) ({
    ^bb0(%arag1000: tensor<f32>, %arbg1000: tensor<f32>):
      %araddg1000 = stablehlo.add %arag1000, %arbg1000 : tensor<f32>
      stablehlo.return %araddg1000 : tensor<f32>
    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<4xf32>) -> tensor<4xf32>
    %arng1000 = stablehlo.constant dense<2.0> : tensor<4xf32>
    %armeang1000 = stablehlo.divide %arsumg1000, %arng1000 : tensor<4xf32>
    return %armeang1000 : tensor<4xf32>
  }
}
