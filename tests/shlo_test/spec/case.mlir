// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.case: index -1 is out of range, so the last branch runs and
// both results are [1, 1]; the results are written as a list (%result0, %result1).
func.func @case() {
  %index = stablehlo.constant dense<-1> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %result0, dense<[1, 1]> : tensor<2xi64>
  check.expect_eq_const %result1, dense<[1, 1]> : tensor<2xi64>
  func.return
}

// An index in range selects its own branch: 0 runs the first, which computes [0, 0] + [1, 1].
func.func @case_in_range() {
  %index = stablehlo.constant dense<0> : tensor<i32>
  %zero = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %one = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result = "stablehlo.case"(%index) ({
    %sum = stablehlo.add %zero, %one : tensor<2xi64>
    "stablehlo.return"(%sum) : (tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%zero) : (tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> tensor<2xi64>
  check.expect_eq_const %result, dense<[1, 1]> : tensor<2xi64>
  func.return
}

// The index is read: 0 selects branch 0, not the last one, so [1, 1] is wrong.
func.func @case_control() {
  %index = stablehlo.constant dense<0> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %result0, dense<[1, 1]> : tensor<2xi64>
  func.return
}
