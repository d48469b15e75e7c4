// The literal reader against an independent exact route (fuzz/literal_props.cpp): a
// decimal's digits as an integer over a power of ten, and a hex pattern's sign, exponent and
// fraction fields, both built without the reader.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/property.hpp"
#include "interp/domain/rational.hpp"

namespace shlo::fuzz {

/// [+-]digits[.digits][(e|E)[+-]digits] as digits * 10^scale, digit by digit.
Rational decimal_by_digits(const std::string& text);
/// sign * significand * 2^exponent from the fields of a binary32 (8, 23) or binary64 (11, 52)
/// pattern that is not an infinity or NaN.
Rational binary_by_fields(std::uint64_t bits, int exponent_bits, int fraction_bits);
/// Decimal literals as the text may write them: long mantissas, exponents in either case with
/// an optional sign; almost always non-dyadic.
rc::Gen<std::string> gen_literal_text();
/// A careless reader (the control): through double.
Rational through_double(const std::string& text);

std::vector<Property> literal_properties();

}  // namespace shlo::fuzz
