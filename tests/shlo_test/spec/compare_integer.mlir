// domains: f32 f64 exact interval:64
// stablehlo.compare on integers and booleans. The spec's example is on f32 (compare.mlir), and
// also runs here in the generic form the spec writes, with its compare_type; the integer and
// boolean cases are by hand. The bits 0xFF are 255 as ui8 (UNSIGNED) but -1 as i8 (SIGNED);
// on i1, false < true.
func.func @compare_spec_generic() {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %rhs = stablehlo.constant dense<[1.1, 2.9]> : tensor<2xf32>
  %result = "stablehlo.compare"(%lhs, %rhs) {
    comparison_direction = #stablehlo<comparison_direction LT>,
    compare_type = #stablehlo<comparison_type FLOAT>
  } : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[true, false]> : tensor<2xi1>
  func.return
}

func.func @compare_signed() {
  %lhs = stablehlo.constant dense<[-1, 2, 0x7F, 0xFF]> : tensor<4xi8>
  %rhs = stablehlo.constant dense<[1, 2, -128, 1]> : tensor<4xi8>
  %result = stablehlo.compare  LT, %lhs, %rhs,  SIGNED : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  check.expect_eq_const %result, dense<[true, false, false, true]> : tensor<4xi1>
  func.return
}

func.func @compare_unsigned() {
  %lhs = stablehlo.constant dense<[0xFF, 2, 127, 0]> : tensor<4xui8>
  %rhs = stablehlo.constant dense<[1, 2, 128, 255]> : tensor<4xui8>
  %result = stablehlo.compare GT, %lhs, %rhs, UNSIGNED : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  check.expect_eq_const %result, dense<[true, false, false, false]> : tensor<4xi1>
  func.return
}

func.func @compare_bool() {
  %lhs = stablehlo.constant dense<[false, false, true, true]> : tensor<4xi1>
  %rhs = stablehlo.constant dense<[false, true, false, true]> : tensor<4xi1>
  %eq = stablehlo.compare EQ, %lhs, %rhs : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  check.expect_eq_const %eq, dense<[true, false, false, true]> : tensor<4xi1>
  %lt = "stablehlo.compare"(%lhs, %rhs) {
    comparison_direction = #stablehlo<comparison_direction LT>,
    compare_type = #stablehlo<comparison_type UNSIGNED>
  } : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  check.expect_eq_const %lt, dense<[false, true, false, false]> : tensor<4xi1>
  func.return
}

// 0xFF read as unsigned (255 > 1) under SIGNED would be a wrong answer.
func.func @compare_signed_control() {
  %lhs = stablehlo.constant dense<[-1, 2, 0x7F, 0xFF]> : tensor<4xi8>
  %rhs = stablehlo.constant dense<[1, 2, -128, 1]> : tensor<4xi8>
  %result = stablehlo.compare  LT, %lhs, %rhs,  SIGNED : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  check.expect_eq_const %result, dense<[true, false, false, false]> : tensor<4xi1>
  func.return
}
