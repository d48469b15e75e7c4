// domains: f32 f64 exact interval:64
// The spec's example of stablehlo.select (i1 predicate, i32 branches).
func.func @select() {
  %pred = stablehlo.constant dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  %on_true = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %on_false = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.select"(%pred, %on_true, %on_false) : (tensor<2x2xi1>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[5, 2], [3, 8]]> : tensor<2x2xi32>
  func.return
}

// The branches swapped.
func.func @select_control() {
  %pred = stablehlo.constant dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  %on_true = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %on_false = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = "stablehlo.select"(%pred, %on_true, %on_false) : (tensor<2x2xi1>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 6], [7, 4]]> : tensor<2x2xi32>
  func.return
}
