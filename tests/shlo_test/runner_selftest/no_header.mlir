// For run_shlo_test.sh's own test: a file that does not name its domains on its first line.
func.func @add() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>
  func.return
}
