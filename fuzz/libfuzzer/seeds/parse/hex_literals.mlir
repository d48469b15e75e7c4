func.func @main() -> (tensor<3xf32>, tensor<2xi32>, tensor<2xf64>, tensor<2xbf16>, tensor<4xi1>, tensor<2x2xui8>, tensor<f32>) {
  %0 = stablehlo.constant dense<"0x0000803F000000400000C0BF"> : tensor<3xf32>
  %1 = stablehlo.constant dense<"0x0A000000FBFFFFFF"> : tensor<2xi32>
  %2 = stablehlo.constant dense<"0x000000000000F03F000000000000F0BF"> : tensor<2xf64>
  %3 = stablehlo.constant dense<"0x803F0040"> : tensor<2xbf16>
  %4 = stablehlo.constant dense<"0x01000100"> : tensor<4xi1>
  %5 = stablehlo.constant dense<"0x00FF7F80"> : tensor<2x2xui8>
  %6 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<2xi32>, tensor<2xf64>, tensor<2xbf16>, tensor<4xi1>, tensor<2x2xui8>, tensor<f32>
}
