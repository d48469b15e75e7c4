// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.rsqrt (f32). The spec prints 0.33333343 for 1/sqrt(9); the
// float32 nearest 1/3 is 0.333333343 (0x3EAAAAAB), and 0.33333343 reads as 0x3EAAAAAE, three
// ULP above it. The spec's digits pass expect_almost_eq (the convention for printed decimals);
// the exact float32 value passes expect_eq; the spec's digits under expect_eq are the control.
func.func @rsqrt() {
  %operand = stablehlo.constant dense<[[1.0, 4.0], [9.0, 25.0]]> : tensor<2x2xf32>
  %result = stablehlo.rsqrt %operand : tensor<2x2xf32>
  check.expect_almost_eq_const %result, dense<[[1.0, 0.5], [0.33333343, 0.2]]> : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[1.0, 0.5], [0.333333343, 0.2]]> : tensor<2x2xf32>
  func.return
}

func.func @rsqrt_spec_digits_control() {
  %operand = stablehlo.constant dense<[[1.0, 4.0], [9.0, 25.0]]> : tensor<2x2xf32>
  %result = stablehlo.rsqrt %operand : tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[1.0, 0.5], [0.33333343, 0.2]]> : tensor<2x2xf32>
  func.return
}
