// Integer literals of the integer element types (i8 ... i64, ui8 ... ui64), and the one
// representation every integer element has in the interpreter: the value's bit pattern in
// 64 bits, sign-extended for signed types and zero-extended for unsigned ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "num/basics.hpp"

namespace shlo {

/// x reduced modulo 2^width and extended back to 64 bits (sign-extended when `is_signed`):
/// the wrap of two's complement arithmetic in `width` bits (1 <= width <= 64).
inline std::uint64_t wrap_to_width(std::uint64_t x, int width, bool is_signed) {
  if (width >= 64) return x;
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  x &= mask;
  if (is_signed && (x >> (width - 1)) & 1) x |= ~mask;
  return x;
}

/// Reads an integer literal of a `width`-bit type as MLIR writes it: a decimal with an optional
/// sign ("-128", "+7", "4294967295") that must lie in the type's range, or a hex bit pattern
/// ("0xFF", -1 in i8) of at most `width` bits. Returns the element's 64-bit representation
/// (above); throws DomainError naming the text for anything else.
std::uint64_t parse_integer_literal(std::string_view text, int width, bool is_signed);

/// The decimal text of an element's 64-bit representation.
std::string integer_to_string(std::uint64_t x, bool is_signed);

}  // namespace shlo
