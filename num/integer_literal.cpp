#include "num/integer_literal.hpp"

#include "num/rational.hpp"

namespace shlo {

std::uint64_t parse_integer_literal(std::string_view text, int width, bool is_signed) {
  const std::string type = std::string(is_signed ? "i" : "ui") + std::to_string(width);
  auto fail = [&](const std::string& why) -> std::uint64_t {
    throw DomainError("integer literal '" + std::string(text) + "' of " + type + ": " + why);
  };
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t bits = 0;
    int significant_bits = 0;
    for (char c : text.substr(2)) {
      int v = 0;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
      else return fail("not a hex digit '" + std::string(1, c) + "'");
      if (significant_bits > 0 || v != 0) significant_bits += 4;
      if (significant_bits > 64) return fail("more than 64 bits");
      bits = (bits << 4) | static_cast<std::uint64_t>(v);
    }
    if (width < 64 && (bits >> width) != 0) return fail("the bit pattern is wider than " + std::to_string(width) + " bits");
    return wrap_to_width(bits, width, is_signed);
  }
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) ++i;
  if (i == text.size()) return fail("no digits");
  for (std::size_t k = i; k < text.size(); ++k)
    if (text[k] < '0' || text[k] > '9') return fail("not a decimal integer");
  // Decimal also with leading zeros (MLIR's reading): GMP would take "010" as octal 8 and throw on "093".
  while (i + 1 < text.size() && text[i] == '0') ++i;
  Integer value(std::string(text.substr(i)));
  if (negative) value = -value;
  const Integer low = is_signed ? -(Integer(1) << (width - 1)) : Integer(0);
  const Integer high = (Integer(1) << (is_signed ? width - 1 : width)) - 1;
  if (value < low || value > high) return fail("out of range [" + low.str() + ", " + high.str() + "]");
  if (value < 0) value += Integer(1) << 64;  // two's complement in 64 bits
  return static_cast<std::uint64_t>(value);
}

std::string integer_to_string(std::uint64_t x, bool is_signed) {
  return is_signed ? std::to_string(static_cast<std::int64_t>(x)) : std::to_string(x);
}

}  // namespace shlo
