// domains: exact
// For run_shlo_test.sh's own test: a control that holds the right value and so passes, which
// the runner must report.
func.func @add() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %r, dense<[2, 4]> : tensor<2xi32>
  func.return
}

func.func @add_control() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %r, dense<[2, 4]> : tensor<2xi32>
  func.return
}
