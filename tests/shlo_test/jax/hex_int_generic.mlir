// What JAX prints, with every form the three parser branches read together: location aliases
// and loc(...) suffixes, module attributes, a public main and a private helper reached by
// func.call, hex literals of f32 and i32, the generic op form, integer element types, convert
// with truncation toward zero, remainder with the sign of the dividend, and custom_call checks.
// By hand: the f32 hex literal is [1.0, 2.0, -1.5] (0x3F800000, 0x40000000, 0xBFC00000,
// little-endian bytes); convert to i32 truncates to [1, 2, -1]; times [10, -5, 7] (i32 hex) is
// [10, -10, -7]; @twice doubles it to [20, -20, -14]; remainder by 3 is [2, -2, -2].
#loc = loc(unknown)
#loc1 = loc("f.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xi32> {jax.result_info = ""}) {
    %0 = stablehlo.constant dense<"0x0000803F000000400000C0BF"> : tensor<3xf32> loc(#loc)
    %1 = "stablehlo.convert"(%0) : (tensor<3xf32>) -> tensor<3xi32> loc(#loc1)
    %2 = stablehlo.constant dense<"0x0A000000FBFFFFFF07000000"> : tensor<3xi32>
    %3 = stablehlo.multiply %1, %2 : tensor<3xi32> loc("f.py":4:2)
    %4 = func.call @twice(%3) : (tensor<3xi32>) -> tensor<3xi32>
    %c = stablehlo.constant dense<3> : tensor<3xi32>
    %5 = "stablehlo.remainder"(%4, %c) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %6 = stablehlo.constant dense<[2, -2, -2]> : tensor<3xi32>
    stablehlo.custom_call @check.expect_eq(%5, %6) {has_side_effect = true} : (tensor<3xi32>, tensor<3xi32>) -> ()
    %7 = stablehlo.convert %5 : (tensor<3xi32>) -> tensor<3xf32>
    %8 = stablehlo.constant dense<[2.0, -2.0, -2.0]> : tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%7, %8) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %5 : tensor<3xi32> loc(#loc)
  } loc(#loc)
  func.func private @twice(%arg0: tensor<3xi32> loc("f.py":9:0)) -> tensor<3xi32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<3xi32>
    return %0 : tensor<3xi32>
  } loc(#loc)
} loc(#loc)

// -----

// The control: the same computation, but remainder read as a floor modulo ([2, 1, 1]) is
// expected, which the spec's remainder (sign of the dividend) must refuse.
module @jit_f_control {
  func.func public @hex_int_generic_control() -> tensor<3xi32> {
    %0 = stablehlo.constant dense<"0x0000803F000000400000C0BF"> : tensor<3xf32>
    %1 = "stablehlo.convert"(%0) : (tensor<3xf32>) -> tensor<3xi32>
    %2 = stablehlo.constant dense<"0x0A000000FBFFFFFF07000000"> : tensor<3xi32>
    %3 = stablehlo.multiply %1, %2 : tensor<3xi32>
    %4 = stablehlo.add %3, %3 : tensor<3xi32>
    %c = stablehlo.constant dense<3> : tensor<3xi32>
    %5 = "stablehlo.remainder"(%4, %c) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    check.expect_eq_const %5, dense<[2, 1, 1]> : tensor<3xi32>
    return %5 : tensor<3xi32>
  }
}
