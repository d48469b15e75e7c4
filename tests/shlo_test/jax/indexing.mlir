// What JAX prints for indexing (jax.jit(f).lower(...).as_text(), jnp on float32):
//   x[i] with a traced i: the negative index wrapped (i < 0 ? i + 4 : i), then dynamic_slice of
//   size 1 and a reshape; dynamic_slice clamps an index beyond the end to the last element.
//   x.at[2].set(5.0): a scatter whose body returns the update, with a rank-0 update.
//   x.at[idx].add(v) with a repeated index: a scatter whose body adds, each update applied.
// By hand, x = [1, 2, 4, 8]: x[-1] = 8, x[7] = 8 (clamped), x.at[2].set(5) = [1, 2, 5, 8],
// x.at[[0, 2, 0]].add([0.5, 0.25, 0.125]) = [1.625, 2, 4.25, 8].
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<4xf32> {jax.result_info = ""}) {
    %x = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 8.000000e+00]> : tensor<4xf32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0 = call @getitem(%x, %c) : (tensor<4xf32>, tensor<i32>) -> tensor<f32>
    %c_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    stablehlo.custom_call @check.expect_close(%0, %c_0) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    %c_1 = stablehlo.constant dense<7> : tensor<i32>
    %1 = call @getitem(%x, %c_1) : (tensor<4xf32>, tensor<i32>) -> tensor<f32>
    stablehlo.custom_call @check.expect_close(%1, %c_0) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %3 = "stablehlo.scatter"(%x, %2, %cst) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      stablehlo.return %arg1 : tensor<f32>
    }) : (tensor<4xf32>, tensor<1xi32>, tensor<f32>) -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 5.000000e+00, 8.000000e+00]> : tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%3, %cst_3) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    %c_4 = stablehlo.constant dense<[[0], [2], [0]]> : tensor<3x1xi32>
    %cst_5 = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
    %4 = "stablehlo.scatter"(%x, %c_4, %cst_5) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %5 = stablehlo.add %arg0, %arg1 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>
    %cst_6 = stablehlo.constant dense<[1.625000e+00, 2.000000e+00, 4.250000e+00, 8.000000e+00]> : tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%4, %cst_6) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    return %4 : tensor<4xf32>
  }
  func.func private @getitem(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare  LT, %arg1, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %3 = stablehlo.dynamic_slice %arg0, %2, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %3 : (tensor<1xf32>) -> tensor<f32>
    return %4 : tensor<f32>
  }
}

// -----

// The control: the repeated index counted once (the last update only, as a set would), which
// the scatter's add must refuse.
module @jit_f_control {
  func.func public @indexing_control() -> tensor<4xf32> {
    %x = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 8.000000e+00]> : tensor<4xf32>
    %c_4 = stablehlo.constant dense<[[0], [2], [0]]> : tensor<3x1xi32>
    %cst_5 = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
    %4 = "stablehlo.scatter"(%x, %c_4, %cst_5) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %5 = stablehlo.add %arg0, %arg1 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>
    %cst_6 = stablehlo.constant dense<[1.125000e+00, 2.000000e+00, 4.250000e+00, 8.000000e+00]> : tensor<4xf32>
    check.expect_almost_eq %4, %cst_6 : tensor<4xf32>
    return %4 : tensor<4xf32>
  }
}
