// bitcast_convert between element types of different bit widths (spec bitcast_convert, C1), as
// StableHLO's interpret_bitcast_convert.mlir runs it: a wider element splits into a new last
// dimension, least significant bits first; narrower elements join the same way; i1 is one bit.
// Expected values by hand from 0x0123456789ABCDEF = bytes EF CD AB 89 67 45 23 01 (low first).
// Every *_control expects the bytes in the other order and must FAIL.

func.func @i64_to_ui8() {
  %x = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<i64>
  %r = stablehlo.bitcast_convert %x : (tensor<i64>) -> tensor<8xui8>
  check.expect_eq_const %r, dense<[239, 205, 171, 137, 103, 69, 35, 1]> : tensor<8xui8>
  func.return
}

func.func @i64_to_ui8_control() {
  %x = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<i64>
  %r = stablehlo.bitcast_convert %x : (tensor<i64>) -> tensor<8xui8>
  check.expect_eq_const %r, dense<[1, 35, 69, 103, 137, 171, 205, 239]> : tensor<8xui8>
  func.return
}

func.func @ui8_to_i64() {
  %x = stablehlo.constant dense<[[239, 205, 171, 137, 103, 69, 35, 1], [255, 255, 255, 255, 255, 255, 255, 255]]> : tensor<2x8xui8>
  %r = stablehlo.bitcast_convert %x : (tensor<2x8xui8>) -> tensor<2xi64>
  check.expect_eq_const %r, dense<[81985529216486895, -1]> : tensor<2xi64>
  func.return
}

func.func @ui8_to_i64_control() {
  %x = stablehlo.constant dense<[[239, 205, 171, 137, 103, 69, 35, 1], [255, 255, 255, 255, 255, 255, 255, 255]]> : tensor<2x8xui8>
  %r = stablehlo.bitcast_convert %x : (tensor<2x8xui8>) -> tensor<2xi64>
  check.expect_eq_const %r, dense<[-1167088121787636991, -1]> : tensor<2xi64>
  func.return
}

// 0xCDEF as f16 is -(1 + 0x1EF/1024) * 2^4 = -23.734375.
func.func @i64_to_f16() {
  %x = stablehlo.constant dense<0x0123456789ABCDEF> : tensor<i64>
  %r = stablehlo.bitcast_convert %x : (tensor<i64>) -> tensor<4xf16>
  check.expect_eq_const %r, dense<[0xCDEF, 0x89AB, 0x4567, 0x0123]> : tensor<4xf16>
  func.return
}

func.func @f16_to_i64_control() {
  %x = stablehlo.constant dense<[0x0123, 0x4567, 0x89AB, 0xCDEF]> : tensor<4xf16>
  %r = stablehlo.bitcast_convert %x : (tensor<4xf16>) -> tensor<i64>
  check.expect_eq_const %r, dense<0x0123456789ABCDEF> : tensor<i64>
  func.return
}

func.func @f16_to_i64() {
  %x = stablehlo.constant dense<[0xCDEF, 0x89AB, 0x4567, 0x0123]> : tensor<4xf16>
  %r = stablehlo.bitcast_convert %x : (tensor<4xf16>) -> tensor<i64>
  check.expect_eq_const %r, dense<0x0123456789ABCDEF> : tensor<i64>
  func.return
}

// 1.0f is 0x3F800000: halves 0x0000 then 0x3F80 = 16256.
func.func @f32_to_i16() {
  %x = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %r = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2x2xi16>
  check.expect_eq_const %r, dense<[[0, 16256], [0, -16384]]> : tensor<2x2xi16>
  func.return
}

// 5 = 0b101: bits 0 and 2 set; back again.
func.func @ui8_to_i1_and_back() {
  %x = stablehlo.constant dense<5> : tensor<ui8>
  %bits = stablehlo.bitcast_convert %x : (tensor<ui8>) -> tensor<8xi1>
  check.expect_eq_const %bits, dense<[true, false, true, false, false, false, false, false]> : tensor<8xi1>
  %back = stablehlo.bitcast_convert %bits : (tensor<8xi1>) -> tensor<ui8>
  check.expect_eq_const %back, dense<5> : tensor<ui8>
  func.return
}

func.func @ui8_to_i1_control() {
  %x = stablehlo.constant dense<5> : tensor<ui8>
  %bits = stablehlo.bitcast_convert %x : (tensor<ui8>) -> tensor<8xi1>
  check.expect_eq_const %bits, dense<[false, false, false, false, false, true, false, true]> : tensor<8xi1>
  func.return
}

func.func @i1_to_i1() {
  %x = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  %r = stablehlo.bitcast_convert %x : (tensor<2xi1>) -> tensor<2xi1>
  check.expect_eq_const %r, dense<[false, true]> : tensor<2xi1>
  func.return
}
