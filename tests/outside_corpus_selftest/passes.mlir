// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @adds() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %r = stablehlo.add %a, %a : tensor<2xi64>
  check.expect_eq_const %r, dense<[2, 4]> : tensor<2xi64>
  func.return
}

// -----

// i4 is outside the set: a located refusal that names it.
func.func @adds_i4() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi4>
  %r = stablehlo.add %a, %a : tensor<2xi4>
  check.expect_eq_const %r, dense<[2, 4]> : tensor<2xi4>
  func.return
}
