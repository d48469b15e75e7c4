// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @tan() {
  %x = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.tan %x : tensor<f32>
  check.expect_almost_eq_const %r, dense<0.0> : tensor<f32>
  func.return
}
