// domains: f64 exact
// stablehlo.bitcast_convert. Left out: the spec's example, tensor<f64> to tensor<4xf16> (a
// bitcast between types of different widths is refused at parse). @bitcast_convert_spec_bits
// reads the spec's bit pattern 0x0123456789ABCDEF as f64 into i64 (the same width) instead:
// 0x0123456789ABCDEF = 81985529216486895; the f16 words of the spec's result are its 16-bit
// pieces from the low end, 0xCDEF, 0x89AB, 0x4567, 0x0123. By hand: 1.0f is 0x3F800000 and
// -2.0f is 0xC0000000 = -1073741824 as i32. Not in f32: that domain computes f64 values in
// float32, where the f64 0x0123456789ABCDEF (about 3.5e-303) is 0.
func.func @bitcast_convert_spec_bits() {
  %operand = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<f64>
  %result = "stablehlo.bitcast_convert"(%operand) : (tensor<f64>) -> tensor<i64>
  check.expect_eq_const %result, dense<81985529216486895> : tensor<i64>
  func.return
}

func.func @bitcast_convert_f32() {
  %operand = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %bits = "stablehlo.bitcast_convert"(%operand) : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %bits, dense<[1065353216, -1073741824]> : tensor<2xi32>
  %back = "stablehlo.bitcast_convert"(%bits) : (tensor<2xi32>) -> tensor<2xf32>
  check.expect_eq_const %back, dense<[1.0, -2.0]> : tensor<2xf32>
  func.return
}

// The byte-reversed pattern 0xEFCDAB8967452301 (as i64, -1167088121787636991) is not it.
func.func @bitcast_convert_byte_order_control() {
  %operand = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<f64>
  %result = "stablehlo.bitcast_convert"(%operand) : (tensor<f64>) -> tensor<i64>
  check.expect_eq_const %result, dense<-1167088121787636991> : tensor<i64>
  func.return
}
