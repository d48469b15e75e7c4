// A tensor element's packed coordinates (sampled.hpp, `PackedCoordinates`; docs/sampled_tier.md,
// "What the model leaves open": storage), an element's whole content compared bit for bit (a
// product converts equal elements once), and the domain's one hook that takes many elements.
#include <algorithm>
#include <bit>
#include <cmath>

#include "interp/sampled/detail.hpp"
#include "interp/sampled/sampled.hpp"

namespace shlo {

PackedCoordinates::PackedCoordinates(const std::array<double, kSampledPasses>& x) {
  double largest = 0;
  for (double v : x) largest = std::max(largest, std::fabs(v));  // NaN is skipped (std::max keeps largest)
  int e = 0;
  if (largest > 0 && std::isfinite(largest)) std::frexp(largest, &e);
  // A power of two within the double range (so that scaling back is exact), the largest
  // coordinate then within (1/2, 1] of it; a non-finite coordinate keeps scale 1 (a float inf).
  scale_ = std::ldexp(1.0, std::clamp(e, -1000, 990));
  const double inverse = 1 / scale_;
  for (std::size_t k = 0; k < x.size(); ++k) mantissa_[k] = static_cast<float>(x[k] * inverse);
}

std::array<double, kSampledPasses> PackedCoordinates::unpacked() const {
  std::array<double, kSampledPasses> out;
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<double>(mantissa_[k]) * scale_;
  return out;
}

namespace sampled_detail {
namespace {
std::uint64_t content_hash(const SampledParts& s) {
  std::uint64_t h = mix(bits_of(s.value) ^ mix(bits_of(s.magnitude) ^ mix(bits_of(s.floor) + s.terms)));
  return mix(h ^ (std::uint64_t{s.infinite} | std::uint64_t{s.may_nan} << 1 | std::uint64_t{s.open} << 2 | std::uint64_t{s.may_inf} << 3));
}
bool same_parts(const SampledParts& a, const SampledParts& b) {
  auto same = [](double x, double y) { return bits_of(x) == bits_of(y); };
  return same(a.value, b.value) && a.infinite == b.infinite && a.may_nan == b.may_nan && a.may_inf == b.may_inf && a.at_least_zero == b.at_least_zero &&
         a.open == b.open && a.nonfinite_terms == b.nonfinite_terms && a.terms == b.terms && same(a.floor, b.floor) &&
         same(a.log_floor, b.log_floor) && same(a.log_high, b.log_high) && same(a.exact_most, b.exact_most) &&
         same(a.low, b.low) && a.low_terms == b.low_terms && same(a.magnitude, b.magnitude) && same(a.squares, b.squares) &&
         same(a.sources, b.sources);
}
}  // namespace

std::uint64_t content_hash(const SampledScalar& s) {
  std::uint64_t h = mix(content_hash(static_cast<const SampledParts&>(s)) ^ bits_of(s.tangent.scale()) ^ mix(bits_of(s.sketch.scale())));
  for (std::size_t k = 0; k < kSampledPasses; ++k)
    h = mix(h ^ (std::uint64_t{std::bit_cast<std::uint32_t>(s.tangent.mantissas()[k])} << 32 | std::bit_cast<std::uint32_t>(s.sketch.mantissas()[k])));
  return h;
}
bool same_content(const SampledScalar& a, const SampledScalar& b) {
  return same_parts(a, b) && a.tangent.same_bits(b.tangent) && a.sketch.same_bits(b.sketch);
}
std::uint64_t content_hash(const SampledWide& s) {
  std::uint64_t h = content_hash(static_cast<const SampledParts&>(s));
  for (std::size_t k = 0; k < kSampledPasses; ++k) h = mix(h ^ bits_of(s.tangent[k]) ^ mix(bits_of(s.sketch[k])));
  return h;
}
bool same_content(const SampledWide& a, const SampledWide& b) {
  for (std::size_t k = 0; k < kSampledPasses; ++k)
    if (bits_of(a.tangent[k]) != bits_of(b.tangent[k]) || bits_of(a.sketch[k]) != bits_of(b.sketch[k])) return false;
  return same_parts(a, b);
}
}  // namespace sampled_detail

SampledScalar pack(const SampledWide& w) {
  SampledScalar s;
  static_cast<SampledParts&>(s) = w;
  s.tangent = PackedCoordinates(w.tangent);
  s.sketch = PackedCoordinates(w.sketch);
  return s;
}

SampledWide unpack(const SampledScalar& s) {
  SampledWide w;
  static_cast<SampledParts&>(w) = s;
  w.tangent = s.tangent.unpacked();
  w.sketch = s.sketch.unpacked();
  return w;
}

std::vector<SampledDomain::Membership> SampledDomain::window_selection(CompareDirection select,
                                                                       const std::vector<const Scalar*>& candidates) const {
  std::vector<SampledWide> wide;
  wide.reserve(candidates.size());
  for (const Scalar* s : candidates) wide.push_back(unpack(*s));
  std::vector<const SampledWide*> pointers;
  for (const auto& w : wide) pointers.push_back(&w);
  return rules_.window_selection(select, pointers);
}

}  // namespace shlo
