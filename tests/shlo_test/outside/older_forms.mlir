// Forms of the programs written by others that `shlo test` reads (scripts/outside_corpus.py runs
// them): the older JAX test data's `%ok = stablehlo.custom_call @check.eq(...) -> tensor<i1>`,
// a check's attribute dictionary after its type, and expect_close on f16 counted in f16 ULPs.
// Every *_control holds a wrong expected value or a tolerance too tight, and must FAIL.

// The older JAX form: the check yields a tensor<i1> (true when it holds), returned by the test.
func.func public @check_eq_result() -> tensor<i1> {
  %a = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[0, -2]> : tensor<2xi32>
  %sum = stablehlo.add %a, %b : tensor<2xi32>
  %want = stablehlo.constant dense<0> : tensor<2xi32>
  %ok = stablehlo.custom_call @check.eq(%sum, %want) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  return %ok : tensor<i1>
}

func.func public @check_eq_result_control() -> tensor<i1> {
  %a = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[0, -2]> : tensor<2xi32>
  %sum = stablehlo.add %a, %b : tensor<2xi32>
  %want = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %ok = stablehlo.custom_call @check.eq(%sum, %want) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  return %ok : tensor<i1>
}

// The check's value is true: a later op may read it.
func.func public @check_eq_result_used() {
  %x = stablehlo.constant dense<[1.5, -2.25]> : tensor<2xf32>
  %ok = stablehlo.custom_call @check.eq(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  %not = stablehlo.not %ok : tensor<i1>
  check.expect_eq_const %not, dense<false> : tensor<i1>
  func.return
}

// On floats StableHLO's interpreter runs @check.eq as expect_almost_eq with tolerance 1e-4: JAX's
// expected dot product 1.42890823 is XLA's (each product exact, the sums rounded), one f32 ULP
// above the sum of rounded products 1.42890811 that the reference interpreter computes.
func.func public @check_eq_float_tolerance() -> tensor<i1> {
  %a = stablehlo.constant dense<[-1.29635787, -4.13106441, -3.49819064]> : tensor<3xf32>
  %b = stablehlo.constant dense<[5.14886427, -1.20347404, -0.895334362]> : tensor<3xf32>
  %dot = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %want = stablehlo.constant dense<1.42890823> : tensor<f32>
  %ok = stablehlo.custom_call @check.eq(%dot, %want) : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %ok : tensor<i1>
}

// 1.4291 is 1.9e-4 away: outside the tolerance.
func.func public @check_eq_float_tolerance_control() -> tensor<i1> {
  %a = stablehlo.constant dense<[-1.29635787, -4.13106441, -3.49819064]> : tensor<3xf32>
  %b = stablehlo.constant dense<[5.14886427, -1.20347404, -0.895334362]> : tensor<3xf32>
  %dot = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %want = stablehlo.constant dense<1.4291> : tensor<f32>
  %ok = stablehlo.custom_call @check.eq(%dot, %want) : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %ok : tensor<i1>
}

// `{tolerance = ...}` after the type (StableHLO's check.mlir): 5.1 - 5 is within 0.1.
func.func @tolerance_after_type() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f32>
  check.expect_almost_eq_const %operand, dense<5.1> : tensor<f32> {tolerance = 0.1 : f64}
  func.return
}

func.func @tolerance_after_type_control() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f32>
  check.expect_almost_eq_const %operand, dense<5.1> : tensor<f32> {tolerance = 0.01 : f64}
  func.return
}

// f16: 5.010 rounds to 5.01171875 = 5 + 3 * 2^-8, three f16 ULPs (2^-8 at 5) from 5.0 (in f32
// ULPs it would be 24576).
func.func @close_in_f16_ulps() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f16>
  %result = stablehlo.constant dense<5.010> : tensor<f16>
  check.expect_close %operand, %result, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  func.return
}

func.func @close_in_f16_ulps_control() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f16>
  %result = stablehlo.constant dense<5.010> : tensor<f16>
  check.expect_close %operand, %result, max_ulp_difference = 2 : tensor<f16>, tensor<f16>
  func.return
}

// f16 subnormals: 0x0001 (2^-24) and 0x0003 are two ULPs apart; -0x0001 and +0x0001 two.
func.func @close_f16_subnormal() {
  %a = stablehlo.constant dense<[0x0001, 0x8001]> : tensor<2xf16>
  %b = stablehlo.constant dense<[0x0003, 0x0001]> : tensor<2xf16>
  check.expect_close %a, %b, max_ulp_difference = 2 : tensor<2xf16>, tensor<2xf16>
  func.return
}

func.func @close_f16_subnormal_control() {
  %a = stablehlo.constant dense<[0x0001, 0x8001]> : tensor<2xf16>
  %b = stablehlo.constant dense<[0x0003, 0x0001]> : tensor<2xf16>
  check.expect_close %a, %b, max_ulp_difference = 1 : tensor<2xf16>, tensor<2xf16>
  func.return
}

// expect_eq compares floats with IEEE equality, as StableHLO's interpreter does: a NaN never
// equals a NaN (JAX's sort test with NaNs is disabled upstream for this), and the message says so.
func.func @expect_eq_nan_control() {
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  check.expect_eq_const %nan, dense<0x7FC00000> : tensor<f32>
  func.return
}
