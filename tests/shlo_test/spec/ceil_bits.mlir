// domains: f32 f64
// The sign of the zeros in the spec's example of stablehlo.ceil (ceil.mlir): -0.0 is
// 0x80000000 = -2147483648 as i32, +0.0 would be 0; 1.0 is 0x3F800000, 2.0 0x40000000. Not in
// exact, which has no signed zero.
func.func @ceil_bits() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.ceil"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  %bits = "stablehlo.bitcast_convert"(%result) : (tensor<5xf32>) -> tensor<5xi32>
  check.expect_eq_const %bits, dense<[0x80000000, 0x80000000, 0x3F800000, 0x3F800000, 0x40000000]> : tensor<5xi32>
  func.return
}

func.func @ceil_positive_zero_control() {
  %operand = stablehlo.constant dense<[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]> : tensor<5xf32>
  %result = "stablehlo.ceil"(%operand) : (tensor<5xf32>) -> tensor<5xf32>
  %bits = "stablehlo.bitcast_convert"(%result) : (tensor<5xf32>) -> tensor<5xi32>
  check.expect_eq_const %bits, dense<[0, 0, 0x3F800000, 0x3F800000, 0x40000000]> : tensor<5xi32>
  func.return
}
