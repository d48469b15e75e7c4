#include "interp/domain/domain_spec.hpp"

#include <charconv>

namespace shlo {

namespace {

mpfr_prec_t parse_bits(std::string_view spec, std::string_view digits) {
  long bits = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || bits < kMinPrecisionBits ||
      bits > kMaxPrecisionBits)
    throw DomainError("domain '" + std::string(spec) + "': precision must be a number of bits from " +
                      std::to_string(kMinPrecisionBits) + " to " + std::to_string(kMaxPrecisionBits));
  return static_cast<mpfr_prec_t>(bits);
}

}  // namespace

AnyDomain parse_domain(std::string_view spec) {
  if (spec == "exact") return ExactDomain{};
  if (spec == "f64") return F64Domain{};
  if (spec == "f32") return F32Domain{};
  if (spec == "ieee") return F64Domain::element_typed_domain();
  if (spec.substr(0, 9) == "interval:") return IntervalDomain(parse_bits(spec, spec.substr(9)));
  if (spec.substr(0, 5) == "mpfr:") return MpfrDomain(parse_bits(spec, spec.substr(5)));
  throw DomainError("unknown domain '" + std::string(spec) + "'; expected " + kDomainForms);
}

}  // namespace shlo
