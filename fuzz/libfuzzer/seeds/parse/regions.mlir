module @m {
  func.func @f(%x: tensor<1x1x4x4xf32>, %s: tensor<1x1x2x2xf32>, %z: tensor<f32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
    %v0 = "stablehlo.reduce_window"(%x, %z) ({
    ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
      %pm = stablehlo.maximum %pa, %pb : tensor<f32>
      stablehlo.return %pm : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
    %v1 = "stablehlo.select_and_scatter"(%x, %s, %z) ({
    ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
      %pc = stablehlo.compare GE, %pa, %pb : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %pc : tensor<i1>
    }, {
    ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
      %ps = stablehlo.add %pa, %pb : tensor<f32>
      stablehlo.return %ps : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>
    %v2 = "stablehlo.all_reduce"(%v1) ({
    ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
      %ps = stablehlo.add %pa, %pb : tensor<f32>
      stablehlo.return %ps : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    return %v0, %v1, %v2 : tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  }
}
