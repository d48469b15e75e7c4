// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @wrong_sum() {
  %a = stablehlo.constant dense<[1.5, 2.5]> : tensor<2xf64>
  %r = stablehlo.add %a, %a : tensor<2xf64>
  check.expect_eq_const %r, dense<[3.0, 6.0]> : tensor<2xf64>
  func.return
}
