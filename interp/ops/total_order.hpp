// #compare with compare_type = TOTALORDER on floats (spec compare: IEEE totalOrder,
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). All six directions compare the totalOrder
// keys, so EQ(-0, +0) is false and a NaN equals a NaN of the same bits, as StableHLO's own
// lowerings (integer keys of the bit patterns) compute it. Per domain:
// * f32, f64: exactly that, on the bits of the domain's float or double (widening keeps the
//   order, the sign of zero and the sign of NaN, so the key order is the type's).
// * exact, interval: no signed zero (a -0.0 literal is 0) and no NaN (ops-plan section 2), so
//   totalOrder is the FLOAT order on their values; an undecided interval comparison is an
//   error as for FLOAT.
// * mpfr: keeps the sign of zero (-0 < +0) but not reliably the sign of a NaN, so a NaN
//   operand is refused rather than guessed.
// * bound (an error analysis of FLOAT comparisons): refused.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "interp/domain/big_float.hpp"
#include "interp/ops/elementwise.hpp"

namespace shlo::ops {

namespace detail {

// The totalOrder key of an IEEE value: its bits as a signed integer, with the magnitude bits
// of a negative value flipped so that more negative values get smaller keys.
template <class F>
auto total_order_key(F x) {
  using I = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
  const auto i = std::bit_cast<I>(x);
  return i < 0 ? static_cast<I>(i ^ std::numeric_limits<I>::max()) : i;
}

}  // namespace detail

template <class D>
PredTensor compare_total_order(const D& d, CompareDirection dir, const T<D>& lhs, const T<D>& rhs) {
  using S = typename D::Scalar;
  if constexpr (requires(const S& x) { d.compare_bits(dir, x, x); }) {
    throw OpError("stablehlo.compare with TOTALORDER is not supported in the " + d.name() + " domain");
  } else if constexpr (std::is_floating_point_v<S>) {
    PredTensor out(lhs.shape, Pred{0});
    for (std::int64_t i = 0; i < lhs.size(); ++i)
      out[i] = holds(dir, detail::total_order_key(lhs[i]), detail::total_order_key(rhs[i])) ? 1 : 0;
    return out;
  } else if constexpr (std::is_same_v<S, BigFloat>) {
    PredTensor out(lhs.shape, Pred{0});
    for_each_element(lhs.shape, lhs.size(), [&](std::int64_t i) {
      const mpfr_srcptr a = lhs[i].get(), b = rhs[i].get();
      if (mpfr_nan_p(a) || mpfr_nan_p(b))
        throw DomainError(d.name() + ": TOTALORDER of a NaN, whose sign this domain does not keep");
      // Order by value, then -0 < +0 (the only equal values that totalOrder separates).
      const int by_value = mpfr_cmp(a, b);
      const int by_sign = mpfr_zero_p(a) && mpfr_zero_p(b) ? (mpfr_signbit(b) != 0) - (mpfr_signbit(a) != 0) : 0;
      out[i] = holds(dir, by_value != 0 ? by_value : by_sign, 0) ? 1 : 0;
    });
    return out;
  } else {
    return compare(d, dir, lhs, rhs);  // exact, interval: the FLOAT order is totalOrder on their values
  }
}

}  // namespace shlo::ops
