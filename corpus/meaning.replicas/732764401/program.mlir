module @m {
  func.func @fuzz(%x1: tensor<1x1xf32>, %w2: tensor<1x1xf32>, %a0: tensor<1x1xf32>) -> tensor<1x1xf32> {
    %v0 = stablehlo.dot_general %x1, %a0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
    %v1 = stablehlo.constant dense<0.5> : tensor<1x1xf32>
    %v2 = stablehlo.multiply %v0, %v1 : tensor<1x1xf32>
    %v3 = stablehlo.subtract %w2, %v2 : tensor<1x1xf32>
    %arsumg1000 = "stablehlo.all_reduce"(%v3) ({
    ^bb0(%arag1000: tensor<f32>, %arbg1000: tensor<f32>):
      %araddg1000 = stablehlo.add %arag1000, %arbg1000 : tensor<f32>
      stablehlo.return %araddg1000 : tensor<f32>
    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %arng1000 = stablehlo.constant dense<2.0> : tensor<1x1xf32>
    %armeang1000 = stablehlo.divide %arsumg1000, %arng1000 : tensor<1x1xf32>
    return %armeang1000 : tensor<1x1xf32>
  }
}
