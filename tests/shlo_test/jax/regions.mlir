// JAX's printed style for ops with regions: jnp.argmax (a reduce of two inputs, the values and
// an iota, whose body is a compare/select program, in the pretty `reducer` form), a
// lax.fori_loop sum (a pretty `stablehlo.while` with a counter, its bound captured from the
// function body) and lax.cond (a `case` on the converted predicate, branch 0 the false one,
// whose branches capture the operand). Each chunk's expected values are counted by hand.

// argmax of [1, 5, 3, 5] is 1 (the first of the two maxima), of [-2, -1, -7, 0.5] is 3.
module @jit_argmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xi32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[[1.0, 5.0, 3.0, 5.0], [-2.0, -1.0, -7.0, 0.5]]> : tensor<2x4xf32>
    %0 = call @argmax(%cst) : (tensor<2x4xf32>) -> tensor<2xi32>
    %c = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%0, %c) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    return %0 : tensor<2xi32>
  }
  func.func private @argmax(%arg0: tensor<2x4xf32>) -> tensor<2xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<2xi32>
  }
}

// -----

// fori_loop(0, 5, lambda i, acc: acc + i, 0.0): 0 + 1 + 2 + 3 + 4 = 10, the counter ends at 5.
module @jit_fori_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<f32> {jax.result_info = ""}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %cst) : tensor<i32>, tensor<f32>
     cond {
      %1 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %2 = stablehlo.add %iterArg_1, %1 : tensor<f32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      stablehlo.return %3, %2 : tensor<i32>, tensor<f32>
    }
    %cst_3 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%0#1, %cst_3) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    stablehlo.custom_call @check.expect_eq(%0#0, %c_0) {has_side_effect = true} : (tensor<i32>, tensor<i32>) -> ()
    return %0#1 : tensor<f32>
  }
}

// -----

// cond(True, lambda x: x * x, lambda x: -x, [1, -2, 3]) is [1, 4, 9].
module @jit_cond attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xf32> {jax.result_info = ""}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %cst = stablehlo.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
    %0 = stablehlo.convert %c : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.negate %cst : tensor<3xf32>
      stablehlo.return %2 : tensor<3xf32>
    }, {
      %2 = stablehlo.multiply %cst, %cst : tensor<3xf32>
      stablehlo.return %2 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
    stablehlo.custom_call @check.expect_eq(%1, %cst_0) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %1 : tensor<3xf32>
  }
}

// -----

// The controls. argmax must keep the first maximum: [3, 3] (the last one, or a fold that
// ignores the index tie-break) is wrong in row 0.
module @jit_argmax_control {
  func.func public @argmax_control() -> tensor<2xi32> {
    %cst = stablehlo.constant dense<[[1.0, 5.0, 3.0, 5.0], [-2.0, -1.0, -7.0, 0.5]]> : tensor<2x4xf32>
    %0 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%cst init: %cst_0), (%0 init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    %c_1 = stablehlo.constant dense<[3, 3]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%1#1, %c_1) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    return %1#1 : tensor<2xi32>
  }
}

// -----

// The loop's bound is read: summing to 5 inclusive (15) is not what i < 5 computes.
module @jit_fori_loop_control {
  func.func public @fori_loop_control() -> tensor<f32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %cst) : tensor<i32>, tensor<f32>
     cond {
      %1 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %2 = stablehlo.add %iterArg_1, %1 : tensor<f32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      stablehlo.return %3, %2 : tensor<i32>, tensor<f32>
    }
    %cst_3 = stablehlo.constant dense<1.500000e+01> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%0#1, %cst_3) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %0#1 : tensor<f32>
  }
}

// -----

// The predicate picks the branch: false runs branch 0 (-x), so [1, 4, 9] is wrong.
module @jit_cond_control {
  func.func public @cond_control() -> tensor<3xf32> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %cst = stablehlo.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
    %0 = stablehlo.convert %c : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.negate %cst : tensor<3xf32>
      stablehlo.return %2 : tensor<3xf32>
    }, {
      %2 = stablehlo.multiply %cst, %cst : tensor<3xf32>
      stablehlo.return %2 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
    stablehlo.custom_call @check.expect_eq(%1, %cst_0) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %1 : tensor<3xf32>
  }
}
