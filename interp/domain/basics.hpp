// What every arithmetic domain and the literal grammar share: the error type, the comparison
// directions, three-valued truth and the IEEE formats of hex literals. The domain interface
// itself is the concept in interp/domain/domain.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shlo {

/// A failed scalar operation: an irrational result in `exact`, a division by zero, an
/// interval enclosure that cannot decide a sign the operation depends on, a malformed literal.
class DomainError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The six comparison directions of stablehlo.compare.
enum class CompareDirection { EQ, NE, LT, LE, GT, GE };
const char* to_string(CompareDirection d);
/// Parses "EQ", "NE", ...; throws DomainError otherwise.
CompareDirection parse_compare_direction(std::string_view s);

/// A three-valued truth: an interval comparison of overlapping enclosures is Undecided.
enum class Tri { False, True, Undecided };
inline Tri tri(bool b) { return b ? Tri::True : Tri::False; }
const char* to_string(Tri t);

/// The IEEE binary format a hex bit pattern is read in (the element type of the tensor).
enum class FloatFormat { Binary32, Binary64 };

}  // namespace shlo
