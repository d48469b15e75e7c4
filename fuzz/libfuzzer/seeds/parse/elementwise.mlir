module @m {
  func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
    // elementwise, compare, select, convert
    %v0 = stablehlo.add %x, %y : tensor<2x3xf32>
    %v1 = stablehlo.exponential %v0 : tensor<2x3xf32>
    %v2 = stablehlo.compare GT, %v1, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %v3 = stablehlo.select %v2, %v1, %x : tensor<2x3xi1>, tensor<2x3xf32>
    %v4 = stablehlo.convert %v3 : (tensor<2x3xf32>) -> tensor<2x3xf64>
    %v5 = stablehlo.convert %v4 : (tensor<2x3xf64>) -> tensor<2x3xf32>
    %v6 = stablehlo.and %v2, %v2 : tensor<2x3xi1>
    return %v5, %v6 : tensor<2x3xf32>, tensor<2x3xi1>
  }
}
