func.func @main(%x: tensor<2x6xf32>) -> tensor<2x3xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %w = "stablehlo.reduce_window"(%x, %ninf) <{padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<2x6xf32>, tensor<f32>) -> tensor<2x3xf32>
  %s = "stablehlo.all_reduce"(%w) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
