// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.if: pred true returns the true branch's 10.
func.func @if() {
  %result_true_branch = stablehlo.constant dense<10> : tensor<i32>
  %result_false_branch = stablehlo.constant dense<11> : tensor<i32>
  %pred = stablehlo.constant dense<true> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  check.expect_eq_const %result, dense<10> : tensor<i32>
  func.return
}

// Branches compute, and only the chosen one runs: the false branch of a false pred negates
// 2.5; the true branch would divide by zero, an error in the exact domain if it ran.
func.func @if_false_branch_computes() {
  %x = stablehlo.constant dense<2.5> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %pred = stablehlo.constant dense<false> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    %q = stablehlo.divide %x, %zero : tensor<f32>
    "stablehlo.return"(%q) : (tensor<f32>) -> ()
  }, {
    %n = stablehlo.negate %x : tensor<f32>
    "stablehlo.return"(%n) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  check.expect_eq_const %result, dense<-2.5> : tensor<f32>
  func.return
}

// The predicate is read: false gives the false branch's 11, not 10.
func.func @if_control() {
  %result_true_branch = stablehlo.constant dense<10> : tensor<i32>
  %result_false_branch = stablehlo.constant dense<11> : tensor<i32>
  %pred = stablehlo.constant dense<false> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  check.expect_eq_const %result, dense<10> : tensor<i32>
  func.return
}
