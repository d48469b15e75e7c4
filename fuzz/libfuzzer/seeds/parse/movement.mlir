module @m {
  func.func @f(%x: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<4x7xf32> {
    %c = stablehlo.constant dense<[[1.0, 0x3F800000, -2.5e-3], [0.0, 3.0, 4.0]]> : tensor<2x3xf32>
    %i = stablehlo.iota dim = 1 : tensor<2x3xf32>
    %v0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %v1 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %v2 = stablehlo.transpose %v1, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %v3 = stablehlo.reverse %v2, dims = [0] : tensor<2x3xf32>
    %v4 = stablehlo.slice %v3 [0:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %v5 = stablehlo.concatenate %v4, %c, %i, dim = 1 : (tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x8xf32>
    %v6 = stablehlo.pad %v5, %z, low = [1, 0], high = [1, -1], interior = [0, 0] : (tensor<2x8xf32>, tensor<f32>) -> tensor<4x7xf32>
    return %v6 : tensor<4x7xf32>
  }
}
