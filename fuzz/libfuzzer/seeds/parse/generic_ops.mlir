module @generic {
  func.func @main(%x: tensor<2x3xf32>, %z: tensor<f32>) -> (tensor<3x2xf32>, tensor<3xf32>) {
    %r = "stablehlo.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %s = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %r, %s : tensor<3x2xf32>, tensor<3xf32>
  }
}
