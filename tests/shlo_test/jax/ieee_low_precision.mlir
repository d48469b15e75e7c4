// Programs on f16, bf16 and f64 whose values depend on the element type's own arithmetic, for
// the `ieee` domain (each float type computed in its own arithmetic, f16 and bf16 rounded after
// every operation, as StableHLO's reference interpreter computes them). In the `f32` domain the
// sums below are computed in float and rounded once, and the f64 sum in float: other values.
// jnp.sum(jnp.array([1, 2**-11, 2**-11], jnp.float16)): 1 + 2^-11 is a tie, rounded to even 1,
// twice; in float the sum is 1 + 2^-10 exactly.
module @jit_sum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @sum_f16() {
    %x = stablehlo.constant dense<[1.0, 4.8828125E-4, 4.8828125E-4]> : tensor<3xf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf16>, tensor<f16>) -> tensor<f16>
    check.expect_eq_const %0, dense<1.0> : tensor<f16>
    return
  }
  // bf16 [256, 1, 1]: 257 is a tie between 256 and 258, to even 256, twice.
  func.func public @sum_bf16() {
    %x = stablehlo.constant dense<[2.560000e+02, 1.000000e+00, 1.000000e+00]> : tensor<3xbf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xbf16>, tensor<bf16>) -> tensor<bf16>
    check.expect_eq_const %0, dense<2.560000e+02> : tensor<bf16>
    return
  }
  // A dot product in f16 rounds every product and every partial sum.
  func.func public @dot_f16() {
    %x = stablehlo.constant dense<[1.0, 4.8828125E-4, 4.8828125E-4]> : tensor<3xf16>
    %ones = stablehlo.constant dense<1.0> : tensor<3xf16>
    %0 = stablehlo.dot_general %x, %ones, contracting_dims = [0] x [0] : (tensor<3xf16>, tensor<3xf16>) -> tensor<f16>
    check.expect_eq_const %0, dense<1.0> : tensor<f16>
    return
  }
  // f64: 1 + 2^-30 is exact in double (float would give 1).
  func.func public @add_f64() {
    %a = stablehlo.constant dense<1.0> : tensor<f64>
    %b = stablehlo.constant dense<9.3132257461547852E-10> : tensor<f64>
    %0 = stablehlo.add %a, %b : tensor<f64>
    check.expect_eq_const %0, dense<1.0000000009313226> : tensor<f64>
    return
  }
  // exp(1) = 2.71828... in double, rounded once to f16's grid of 2^-9: 1392 * 2^-9 = 2.71875.
  // The expected 2.716796875 is one f16 unit below: within max_ulp_difference = 1 (counted in
  // f16 units, 2^-9 here).
  func.func public @exp_f16() {
    %x = stablehlo.constant dense<1.0> : tensor<f16>
    %0 = stablehlo.exponential %x : tensor<f16>
    %expected = stablehlo.constant dense<2.716796875> : tensor<f16>
    check.expect_close %0, %expected, max_ulp_difference = 1 : tensor<f16>, tensor<f16>
    check.expect_eq_const %0, dense<2.71875> : tensor<f16>
    return
  }
  // The control expects the same within no unit at all.
  func.func public @exp_f16_control() {
    %x = stablehlo.constant dense<1.0> : tensor<f16>
    %0 = stablehlo.exponential %x : tensor<f16>
    %expected = stablehlo.constant dense<2.716796875> : tensor<f16>
    check.expect_close %0, %expected, max_ulp_difference = 0 : tensor<f16>, tensor<f16>
    return
  }
  // The control expects the f32 domain's sum, 1 + 2^-10.
  func.func public @sum_f16_control() {
    %x = stablehlo.constant dense<[1.0, 4.8828125E-4, 4.8828125E-4]> : tensor<3xf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf16>, tensor<f16>) -> tensor<f16>
    check.expect_eq_const %0, dense<1.0009765625> : tensor<f16>
    return
  }
}
