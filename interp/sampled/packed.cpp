// A tensor element's packed coordinates (sampled.hpp, `PackedCoordinates`; docs/sampled_tier.md,
// "What the model leaves open": storage), and the domain's one hook that takes many elements.
#include <algorithm>
#include <cmath>

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
