func.func @checks() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %b = stablehlo.add %a, %a : tensor<2xi64>
  check.expect_eq_const %b, dense<[2, 4]> : tensor<2xi64>
  check.expect_eq %b, %b : tensor<2xi64>
  %f = stablehlo.constant dense<[0.5, 1.5]> : tensor<2xf32>
  check.expect_almost_eq %f, %f, tolerance = 1.0e-2 : tensor<2xf32>
  check.expect_almost_eq_const %f, dense<[0.5, 1.5]> {tolerance = 0.01 : f64} : tensor<2xf32>
  check.expect_close %f, %f, max_ulp_difference = 3, min_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  stablehlo.custom_call @check.expect_close(%f, %f) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_eq(%b, %b) {has_side_effect = true} : (tensor<2xi64>, tensor<2xi64>) -> ()
  "stablehlo.custom_call"(%f, %f) <{call_target_name = "check.expect_almost_eq", has_side_effect = true}> : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}
