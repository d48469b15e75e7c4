// The numeric vocabulary shared by every layer: the error of a failed scalar operation, the
// comparison directions, three-valued truth and the IEEE formats of hex literals. It sits at
// the bottom of the layout (num/), below ast/ and interp/.
#pragma once

#include <cstdint>
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

/// splitmix64's output for state z (z advanced by the golden gamma, then mixed): a 64-bit hash of
/// z in which every output bit depends on every input bit. The draws of the summation-order
/// domain and of the sampled tier are built on it.
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The six comparison directions of stablehlo.compare.
enum class CompareDirection { EQ, NE, LT, LE, GT, GE };
const char* to_string(CompareDirection d);
/// a d b on values of one ordered type (doubles, total-order keys).
template <class K>
bool holds(CompareDirection dir, K a, K b) {
  switch (dir) {
    case CompareDirection::EQ: return a == b;
    case CompareDirection::NE: return a != b;
    case CompareDirection::LT: return a < b;
    case CompareDirection::LE: return a <= b;
    case CompareDirection::GT: return a > b;
    case CompareDirection::GE: return a >= b;
  }
  return false;
}
/// Parses "EQ", "NE", ...; throws DomainError otherwise.
CompareDirection parse_compare_direction(std::string_view s);

/// A three-valued truth: an interval comparison of overlapping enclosures is Undecided.
enum class Tri { False, True, Undecided };
inline Tri tri(bool b) { return b ? Tri::True : Tri::False; }
/// `a d b` for values with C++'s built-in comparisons (IEEE floats: NaN is unordered, so only NE
/// holds; integers). One definition for every domain whose scalars compare natively.
template <class T>
Tri compare_ordered(CompareDirection d, const T& a, const T& b) {
  switch (d) {
    case CompareDirection::EQ: return tri(a == b);
    case CompareDirection::NE: return tri(a != b);
    case CompareDirection::LT: return tri(a < b);
    case CompareDirection::LE: return tri(a <= b);
    case CompareDirection::GT: return tri(a > b);
    case CompareDirection::GE: return tri(a >= b);
  }
  return Tri::Undecided;
}
const char* to_string(Tri t);

/// The IEEE binary format a hex bit pattern is read in (the element type of the tensor).
enum class FloatFormat { Binary32, Binary64 };

}  // namespace shlo
