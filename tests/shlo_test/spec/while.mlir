// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.while: i counts from 1 while i < 10 and sum adds 1 each
// time; the regions capture %one and %ten from the function body. Departure from the spec's
// text: it prints 10 for %results1, but the program runs 9 iterations (i = 1 ... 9), so the
// sum is 9 (counted by hand; the reference interpreter's own while test starts i at 0).
func.func @while() {
  %init_i = stablehlo.constant dense<1> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %ten) {
        comparison_direction = #stablehlo<comparison_direction LT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
    }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  check.expect_eq_const %results0, dense<10> : tensor<i64>
  check.expect_eq_const %results1, dense<9> : tensor<i64>
  func.return
}

// Zero iterations: a false condition at the start returns the operands unchanged.
func.func @while_zero_iterations() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %stop = stablehlo.constant dense<false> : tensor<i1>
  %result = "stablehlo.while"(%x) ({
    ^bb0(%a: tensor<2xf32>):
      stablehlo.return %stop : tensor<i1>
    }, {
    ^bb0(%a: tensor<2xf32>):
      %n = stablehlo.negate %a : tensor<2xf32>
      stablehlo.return %n : tensor<2xf32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %result, dense<[1.5, -2.0]> : tensor<2xf32>
  func.return
}

// The condition is read: with a limit of 5 the loop stops at i = 5, not 10.
func.func @while_control() {
  %init_i = stablehlo.constant dense<1> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %five = stablehlo.constant dense<5> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %five) {
        comparison_direction = #stablehlo<comparison_direction LT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
    }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  check.expect_eq_const %results0, dense<10> : tensor<i64>
  func.return
}
