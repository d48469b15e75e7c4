// domains: f32 f64 exact interval:64 ieee
// stablehlo.scatter with update_computation regions of several ops and with several inputs
// (spec §scatter: the region maps (current values..., updates...) to the new values; an update
// whose target is outside the input is skipped). Updates apply in row-major order of the update
// index, the order this oracle documents, so a repeated target sees the earlier update.
// Expected values by hand: new = current * 2 + update on [1, 2, 3, 4] with targets 0, 2, 0, 9:
// x[0] = 1*2 + 10 = 12, x[2] = 3*2 + 20 = 26, x[0] = 12*2 + 30 = 54, target 9 skipped.
func.func @scatter_twice_plus() {
  %input = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %indices = stablehlo.constant dense<[[0], [2], [0], [9]]> : tensor<4x1xi64>
  %updates = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %result = "stablehlo.scatter"(%input, %indices, %updates) ({
    ^bb0(%current: tensor<i64>, %update: tensor<i64>):
      %two = stablehlo.constant dense<2> : tensor<i64>
      %twice = stablehlo.multiply %current, %two : tensor<i64>
      %sum = stablehlo.add %twice, %update : tensor<i64>
      stablehlo.return %sum : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<4xi64>, tensor<4x1xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[54, 2, 26, 4]> : tensor<4xi64>
  func.return
}

// The same on floats: every value is exact in f32.
func.func @scatter_twice_plus_f32() {
  %input = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %indices = stablehlo.constant dense<[[0], [2], [0], [9]]> : tensor<4x1xi64>
  %updates = stablehlo.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %result = "stablehlo.scatter"(%input, %indices, %updates) ({
    ^bb0(%current: tensor<f32>, %update: tensor<f32>):
      %two = stablehlo.constant dense<2.0> : tensor<f32>
      %twice = stablehlo.multiply %current, %two : tensor<f32>
      %sum = stablehlo.add %twice, %update : tensor<f32>
      stablehlo.return %sum : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>
  } : (tensor<4xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<4xf32>
  check.expect_eq_const %result, dense<[54.0, 2.0, 26.0, 4.0]> : tensor<4xf32>
  func.return
}

// Two inputs scattered together, values and ids: the update wins where its value is greater
// and brings its id. Target 0: 4 > 1 takes (4, 20); target 1: 3 > 5 fails; target 0: 0.5 > 4 fails.
func.func @scatter_variadic() {
  %values = stablehlo.constant dense<[1.0, 5.0, 2.0]> : tensor<3xf32>
  %ids = stablehlo.constant dense<[10, 11, 12]> : tensor<3xi32>
  %indices = stablehlo.constant dense<[[0], [1], [0]]> : tensor<3x1xi32>
  %new_values = stablehlo.constant dense<[4.0, 3.0, 0.5]> : tensor<3xf32>
  %new_ids = stablehlo.constant dense<[20, 21, 22]> : tensor<3xi32>
  %result:2 = "stablehlo.scatter"(%values, %ids, %indices, %new_values, %new_ids) ({
    ^bb0(%v: tensor<f32>, %k: tensor<i32>, %nv: tensor<f32>, %nk: tensor<i32>):
      %gt = stablehlo.compare GT, %nv, %v : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = stablehlo.select %gt, %nv, %v : tensor<i1>, tensor<f32>
      %mk = stablehlo.select %gt, %nk, %k : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mk : tensor<f32>, tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>
  } : (tensor<3xf32>, tensor<3xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const %result#0, dense<[4.0, 5.0, 2.0]> : tensor<3xf32>
  check.expect_eq_const %result#1, dense<[20, 11, 12]> : tensor<3xi32>
  func.return
}

// The control expects the updates applied last to first (1*2 + 30 = 32, then 32*2 + 10 = 74).
func.func @scatter_twice_plus_control() {
  %input = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %indices = stablehlo.constant dense<[[0], [2], [0], [9]]> : tensor<4x1xi64>
  %updates = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %result = "stablehlo.scatter"(%input, %indices, %updates) ({
    ^bb0(%current: tensor<i64>, %update: tensor<i64>):
      %two = stablehlo.constant dense<2> : tensor<i64>
      %twice = stablehlo.multiply %current, %two : tensor<i64>
      %sum = stablehlo.add %twice, %update : tensor<i64>
      stablehlo.return %sum : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>
  } : (tensor<4xi64>, tensor<4x1xi64>, tensor<4xi64>) -> tensor<4xi64>
  check.expect_eq_const %result, dense<[74, 2, 26, 4]> : tensor<4xi64>
  func.return
}

// The control expects the ids not to move with their values.
func.func @scatter_variadic_control() {
  %values = stablehlo.constant dense<[1.0, 5.0, 2.0]> : tensor<3xf32>
  %ids = stablehlo.constant dense<[10, 11, 12]> : tensor<3xi32>
  %indices = stablehlo.constant dense<[[0], [1], [0]]> : tensor<3x1xi32>
  %new_values = stablehlo.constant dense<[4.0, 3.0, 0.5]> : tensor<3xf32>
  %new_ids = stablehlo.constant dense<[20, 21, 22]> : tensor<3xi32>
  %result:2 = "stablehlo.scatter"(%values, %ids, %indices, %new_values, %new_ids) ({
    ^bb0(%v: tensor<f32>, %k: tensor<i32>, %nv: tensor<f32>, %nk: tensor<i32>):
      %gt = stablehlo.compare GT, %nv, %v : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = stablehlo.select %gt, %nv, %v : tensor<i1>, tensor<f32>
      %mk = stablehlo.select %gt, %nk, %k : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mk : tensor<f32>, tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>
  } : (tensor<3xf32>, tensor<3xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const %result#0, dense<[4.0, 5.0, 2.0]> : tensor<3xf32>
  check.expect_eq_const %result#1, dense<[10, 11, 12]> : tensor<3xi32>
  func.return
}
