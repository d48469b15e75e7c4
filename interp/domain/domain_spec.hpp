// Choosing a domain at run time: "exact", "interval:P", "mpfr:P", "f64", "f32", "ieee".
// `ieee` is the f64 domain's type with a flag: the interpreter computes each float tensor in
// its element type's arithmetic (interp/domain/ieee_typed.hpp), so every command that takes a
// domain runs it without instantiating a sixth domain.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "interp/domain/exact.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/domain/interval.hpp"
#include "interp/domain/mpfr.hpp"

namespace shlo {

using AnyDomain = std::variant<ExactDomain, IntervalDomain, MpfrDomain, F64Domain, F32Domain>;

/// Parses a domain name; throws DomainError with the accepted forms otherwise.
AnyDomain parse_domain(std::string_view spec);

/// The precisions interval:P and mpfr:P accept. 16384 bits (about 4900 decimal digits) is far
/// beyond any use of an enclosure of float32 programs, and keeps every scalar's limbs small
/// enough that the memory estimate, not MPFR, decides what fits.
inline constexpr long kMinPrecisionBits = 2;
inline constexpr long kMaxPrecisionBits = 16384;

/// The accepted forms, for --help.
inline constexpr const char* kDomainForms =
    "exact | interval:P | mpfr:P | f64 | f32 | ieee  (P: bits from 2 to 16384, e.g. 256; ieee: each float type in its own "
    "arithmetic, f16 and bf16 rounded after every operation, as StableHLO's interpreter)";

/// Calls f(domain) with the concrete domain type: the one place where a run-time choice
/// becomes a compile-time one.
template <class F>
decltype(auto) with_domain(const AnyDomain& d, F&& f) {
  return std::visit(std::forward<F>(f), d);
}

}  // namespace shlo
