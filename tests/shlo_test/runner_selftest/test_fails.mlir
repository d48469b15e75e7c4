// domains: exact
// For run_shlo_test.sh's own test: a test with a wrong expected value (2 + 2 is not 5), which
// the runner must report with the check's line and the index.
func.func @add() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %r, dense<[2, 5]> : tensor<2xi32>
  func.return
}

func.func @add_control() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %r, dense<[2, 3]> : tensor<2xi32>
  func.return
}
