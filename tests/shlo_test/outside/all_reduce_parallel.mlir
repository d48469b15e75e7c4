// The StableHLO interpreter's all_reduce tests (stablehlo/tests/interpret/all_reduce.mlir), in
// our own layout: each test runs @all_reduce (or @all_reduce_pair) on a grid of processes with
// interpreter.run_parallel (docs/mlir-forms.md section 13.1), one row of `programs` per replica,
// the operands and results of every process in turn. Each *_control holds one wrong expected
// value and must FAIL. Not here: the ragged groups (`[[0, 1], [2, -1]]`, outside the spec's
// all_reduce C3) and the mesh-axes form of replica_groups, both refused (tests/test_run_parallel.cpp).

module @all_reduce_tests {
  // cross_replica (channel_id 0): one group {0, 1}, folded in increasing replica id.
  func.func private @all_reduce(%operand : tensor<4xi64>) -> tensor<4xi64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }

  // cross_replica_and_partition (channel_id 1): with one partition, the same groups.
  func.func private @all_reduce_channel(%operand : tensor<4xi64>) -> tensor<4xi64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>
    } : (tensor<4xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }

  // flattened_ids (channel_id 1, use_global_device_ids): id = replica_id * 1 + partition_id.
  func.func private @all_reduce_flattened(%operand : tensor<4xi64>) -> tensor<4xi64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
      use_global_device_ids
    } : (tensor<4xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }

  // Two operands, each folded on its own (C5).
  func.func private @all_reduce_pair(%operand0 : tensor<4xi64>, %operand1 : tensor<5xi64>) -> (tensor<4xi64>, tensor<5xi64>) {
    %result:2 = "stablehlo.all_reduce"(%operand0, %operand1) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xi64>, tensor<5xi64>) -> (tensor<4xi64>, tensor<5xi64>)
    return %result#0, %result#1 : tensor<4xi64>, tensor<5xi64>
  }

  // Groups {0, 2} and {1, 3}: each process sums with its partner only.
  func.func private @all_reduce_two_groups(%operand : tensor<2xi64>) -> tensor<2xi64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>
    } : (tensor<2xi64>) -> tensor<2xi64>
    return %result : tensor<2xi64>
  }

  func.func public @cross_replica() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_reduce], [@all_reduce]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }

  func.func public @cross_replica_control() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_reduce], [@all_reduce]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    // replica 1 without the exchange would keep [5, 6, 7, 8]
    check.expect_eq_const %results#1, dense<[5, 6, 7, 8]> : tensor<4xi64>
    func.return
  }

  func.func public @cross_replica_and_partition() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_reduce_channel], [@all_reduce_channel]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }

  func.func public @flattened_ids() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_reduce_flattened], [@all_reduce_flattened]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }

  func.func public @cross_replica_variadic() {
    %process0_oper0 = stablehlo.constant dense<[1,  2,  3,  4]> : tensor<4xi64>
    %process0_oper1 = stablehlo.constant dense<[5,  6,  7,  8,  9]> : tensor<5xi64>
    %process1_oper0 = stablehlo.constant dense<[11, 12, 13, 14]> : tensor<4xi64>
    %process1_oper1 = stablehlo.constant dense<[15, 16, 17, 18, 19]> : tensor<5xi64>
    %results:4 = "interpreter.run_parallel"(%process0_oper0, %process0_oper1, %process1_oper0, %process1_oper1) {
      programs=[[@all_reduce_pair], [@all_reduce_pair]]
    } : (tensor<4xi64>, tensor<5xi64>, tensor<4xi64>, tensor<5xi64>) -> (tensor<4xi64>, tensor<5xi64>, tensor<4xi64>, tensor<5xi64>)
    check.expect_eq_const %results#0, dense<[12, 14, 16, 18]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[20, 22, 24, 26, 28]> : tensor<5xi64>
    check.expect_eq_const %results#2, dense<[12, 14, 16, 18]> : tensor<4xi64>
    check.expect_eq_const %results#3, dense<[20, 22, 24, 26, 28]> : tensor<5xi64>
    func.return
  }

  // The results come back process by process: swapping two of them must fail.
  func.func public @cross_replica_variadic_control() {
    %process0_oper0 = stablehlo.constant dense<[1,  2,  3,  4]> : tensor<4xi64>
    %process0_oper1 = stablehlo.constant dense<[5,  6,  7,  8,  9]> : tensor<5xi64>
    %process1_oper0 = stablehlo.constant dense<[11, 12, 13, 14]> : tensor<4xi64>
    %process1_oper1 = stablehlo.constant dense<[15, 16, 17, 18, 19]> : tensor<5xi64>
    %results:4 = "interpreter.run_parallel"(%process0_oper0, %process0_oper1, %process1_oper0, %process1_oper1) {
      programs=[[@all_reduce_pair], [@all_reduce_pair]]
    } : (tensor<4xi64>, tensor<5xi64>, tensor<4xi64>, tensor<5xi64>) -> (tensor<4xi64>, tensor<5xi64>, tensor<4xi64>, tensor<5xi64>)
    check.expect_eq_const %results#0, dense<[12, 14, 16, 18]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[20, 22, 24, 26, 28]> : tensor<5xi64>
    check.expect_eq_const %results#2, dense<[12, 14, 16, 19]> : tensor<4xi64>
    func.return
  }

  // Four replicas, groups {0, 2} and {1, 3} (written out of order): [1, 2] + [5, 6] = [6, 8] on
  // 0 and 2, [3, 4] + [7, 8] = [10, 12] on 1 and 3; the properties form <{...}> of the op.
  func.func public @two_groups() {
    %p0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %p1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %p2 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %p3 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
    %r:4 = "interpreter.run_parallel"(%p0, %p1, %p2, %p3) <{programs = [[@all_reduce_two_groups], [@all_reduce_two_groups], [@all_reduce_two_groups], [@all_reduce_two_groups]]}>
      : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %r#0, dense<[6, 8]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[10, 12]> : tensor<2xi64>
    check.expect_eq_const %r#2, dense<[6, 8]> : tensor<2xi64>
    check.expect_eq_const %r#3, dense<[10, 12]> : tensor<2xi64>
    func.return
  }

  func.func public @two_groups_control() {
    %p0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %p1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %p2 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %p3 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
    %r:4 = "interpreter.run_parallel"(%p0, %p1, %p2, %p3) <{programs = [[@all_reduce_two_groups], [@all_reduce_two_groups], [@all_reduce_two_groups], [@all_reduce_two_groups]]}>
      : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    // the sum over all four replicas, [16, 20], is not what the groups give
    check.expect_eq_const %r#1, dense<[16, 20]> : tensor<2xi64>
    func.return
  }
}
