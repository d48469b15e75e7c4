func.func @main(%x: tensor<4xi8>, %y: tensor<4xui16>) -> (tensor<4xi1>, tensor<4xui32>, tensor<4xi16>, tensor<4xui64>) {
  %c = stablehlo.constant dense<[093, -128, 0, -1]> : tensor<4xi8>
  %lt = stablehlo.compare  LT, %x, %c,  SIGNED : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %u = stablehlo.convert %y : (tensor<4xui16>) -> tensor<4xui32>
  %d = stablehlo.constant dense<65535> : tensor<4xui16>
  %gt = stablehlo.compare  GT, %y, %d,  UNSIGNED : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xi1>
  %both = stablehlo.and %lt, %gt : tensor<4xi1>
  %w = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xi16>
  %r = stablehlo.remainder %w, %w {batch_group_count = 1 : i64, featurge_orup_count = 1 : i64}416>, tensor<4xui64>
}
