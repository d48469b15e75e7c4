// Two logits x . w[:, j] and their softmax, the printer's way (no maximum subtracted). With logit
// 0 near ln(FLT_MAX) = 88.72 its exp may overflow; p = e / sum(e) is then NaN and 0 (used by
// tests/test_sampled_alternatives.cpp and python/tests/test_shlo_oracle.py).
module @m {
  func.func @f(%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> (tensor<1x2xf32>, tensor<1xf32>) {
    %l = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    %e = stablehlo.exponential %l : tensor<1x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<1x2xf32>, tensor<f32>) -> tensor<1xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %p = stablehlo.divide %e, %b : tensor<1x2xf32>
    return %p, %s : tensor<1x2xf32>, tensor<1xf32>
  }
}
