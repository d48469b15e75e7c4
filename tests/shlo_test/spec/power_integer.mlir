// domains: f32 f64 exact interval:64
// stablehlo.power on integers. The spec's example is f64 (power.mlir); these values are by
// hand: 2^10 = 1024, (-3)^3 = -27, 7^0 = 1, (-1)^5 = -1, and 3^41 = 36472996377170786403 wraps
// modulo 2^64: 3^41 - 2^64 = 18026252303461234787, read as i64 that is minus 2^64 again,
// -420491770248316829. The control expects 2^10 = 1000.
func.func @power_integer() {
  %lhs = stablehlo.constant dense<[2, -3, 7, -1, 3]> : tensor<5xi64>
  %rhs = stablehlo.constant dense<[10, 3, 0, 5, 41]> : tensor<5xi64>
  %result = "stablehlo.power"(%lhs, %rhs) : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  check.expect_eq_const %result, dense<[1024, -27, 1, -1, -420491770248316829]> : tensor<5xi64>
  func.return
}

func.func @power_integer_control() {
  %lhs = stablehlo.constant dense<[2, -3, 7, -1, 3]> : tensor<5xi64>
  %rhs = stablehlo.constant dense<[10, 3, 0, 5, 41]> : tensor<5xi64>
  %result = "stablehlo.power"(%lhs, %rhs) : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  check.expect_eq_const %result, dense<[1000, -27, 1, -1, -420491770248316829]> : tensor<5xi64>
  func.return
}
