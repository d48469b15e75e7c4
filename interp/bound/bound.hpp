// The `bound` domain: for every value, a certified enclosure of its exact (real) value AND a
// sound upper bound on |any float32 evaluation - exact|, under a FloatProfile.
//
// Rounding model (u = 2^-24, the float32 unit roundoff): a correctly rounded op returns
// v(1 + d) + h with |d| <= u and |h| <= 2^-150 (gradual underflow); an op with an allowance
// of k ulps lands within k * max(2^-23 |v|, 2^-149) of v. Each elementwise op composes
// op-by-op: with X the enclosure of the exact operands' image and R the image of the
// operands widened by their error bounds (every value the float operands may hold), the
// result's bound is  max(R.hi - X.lo, X.hi - R.lo) + allowance(max |R|).
//
// Sums in any order (dot_general, convolution, reduce, all_reduce, select_and_scatter's
// scatter): a value may be an OPEN sum of n terms; its bound is
//   sum of the terms' own bounds + gamma_(n-1) * sum of bounds on |computed term|,
// gamma_k = k u / (1 - k u), which holds for every order and every parenthesisation. Folds
// add terms (accumulate, mac); any other op closes the sum first. Terms that are exactly
// zero (padding) do not count.
//
// Comparisons: when the widened operands overlap, the float comparison may go either way;
// the element is flagged "branch may flip" and select (and select_and_scatter's choice)
// widens to cover both branches. max and min are 1-Lipschitz, so their bound already covers
// a flip; they flag it too.
//
// Enclosures are pairs of doubles rounded outward after every operation (exp, log, tanh,
// logistic, sqrt, rsqrt through MPFR with directed rounding), so they are certified; error
// bounds are doubles rounded upward. A value whose float evaluation may overflow, divide by
// a range containing zero, or leave a function's domain is "unbounded" (bound = inf).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "interp/bound/profile.hpp"
#include "interp/domain/domain.hpp"
#include "interp/domain/rational.hpp"

namespace shlo {

/// A closed interval of doubles.
struct Iv {
  double lo = 0, hi = 0;
};

enum BoundFlag : std::uint8_t { kMayFlip = 1, kUnbounded = 2, kOpenSum = 4 };

/// A closed value: the exact value lies in [lo, hi], any float32 evaluation within err of it.
/// An open sum (kOpenSum): lo, hi and err are round-to-nearest running sums of the terms'
/// enclosures and bounds, abssum bounds the sum of the terms' magnitudes (for the double
/// rounding of those sums), magsum the sum of |computed term|; BoundDomain::closed() turns it
/// into a closed value. Keeping the fold cheap (no outward rounding per term) is what makes
/// the analysis of a large convolution take seconds, not minutes.
struct BoundScalar {
  double lo = 0, hi = 0;
  double err = 0;
  double magsum = 0;
  double abssum = 0;
  std::uint32_t terms = 0;  // open sum: number of nonzero terms
  std::uint8_t flags = 0;
};

/// Pred bits the bound domain's compare writes (other domains write 0 or 1): bit 0 the
/// comparison of the exact values (its best guess when undecided), bit 1 "the float
/// comparison may differ", bit 2 "the exact comparison is undecided at double precision".
enum PredBits : std::uint8_t { kPredValue = 1, kPredFloatMayFlip = 2, kPredExactUndecided = 4 };

class BoundDomain {
 public:
  using Scalar = BoundScalar;
  explicit BoundDomain(FloatProfile profile)
      : profile_(std::move(profile)), product_floor_(profile_.flush_to_zero ? 0x1p-126 : 0x1p-149) {}
  const FloatProfile& profile() const { return profile_; }
  std::string name() const { return "bound:" + profile_.name; }

  // Constants and inputs: the exact value, and the error of storing it in float32.
  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const;
  Scalar parse(std::string_view text) const { return from_literal(text); }
  /// "[lo, hi] +- bound" (with "may flip" / "unbounded" when flagged).
  std::string to_string(const Scalar& a) const;
  double to_double(const Scalar& a) const {
    const Iv x = enclosure(a);
    return 0.5 * x.lo + 0.5 * x.hi;
  }

  Scalar add(const Scalar& a, const Scalar& b) const;
  Scalar sub(const Scalar& a, const Scalar& b) const;
  Scalar mul(const Scalar& a, const Scalar& b) const;
  Scalar div(const Scalar& a, const Scalar& b) const;
  Scalar neg(const Scalar& a) const;
  Scalar abs(const Scalar& a) const;
  Scalar max(const Scalar& a, const Scalar& b) const;
  Scalar min(const Scalar& a, const Scalar& b) const;
  Scalar exp(const Scalar& a) const;
  Scalar log(const Scalar& a) const;
  Scalar sqrt(const Scalar& a) const;
  Scalar rsqrt(const Scalar& a) const;
  Scalar tanh(const Scalar& a) const;
  Scalar logistic(const Scalar& a) const;
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const;
  Scalar pi() const;
  /// On the exact enclosures (Undecided when they overlap).
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }

  // Folds in any order.
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const;
  /// C[m][n] += sum_k A[m][k] * B[k][n] (row-major M x K, K x N blocks): the products of
  /// dot_general and convolution, with the operands closed once and the loop tiled.
  void matmul_accumulate(const Scalar* A, const Scalar* B, Scalar* C, std::int64_t M, std::int64_t K, std::int64_t N) const;
  Scalar accumulate(const Scalar& acc, const Scalar& x) const;

  // Comparisons that may flip.
  std::uint8_t compare_bits(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select_widened(std::uint8_t pred, const Scalar& on_true, const Scalar& on_false) const;
  /// select_and_scatter's choice over one window (select(current, candidate) keeps current
  /// when true): per candidate, 0 never chosen, 1 surely chosen, 2 maybe; first the exact
  /// evaluation's, then the float one's.
  struct Membership {
    std::uint8_t exact = 0, floating = 0;
  };
  std::vector<Membership> window_selection(CompareDirection select, const std::vector<const Scalar*>& candidates) const;
  /// The source value as a scatter term at a candidate of that membership.
  Scalar scatter_term(const Scalar& source, Membership m) const;

  // Reading results.
  /// The value with any open sum closed: lo, hi and err are then final.
  Scalar closed(const Scalar& a) const;
  /// The whole error bound of a value: +inf when unbounded.
  double bound(const Scalar& a) const { return close(a).err; }
  Iv enclosure(const Scalar& a) const { return close(a).x; }

 private:
  struct Closed {
    Iv x;        // exact enclosure
    double err;  // total bound
  };
  Closed close(const Scalar& a) const;
  Iv widened(const Closed& c) const;
  double allowance(double magnitude, double ulps) const;
  Scalar result(Iv x, Iv r, double ulps, std::uint8_t flags) const;
  Scalar unary(const Scalar& a, Iv (*f)(Iv), double ulps) const;
  Scalar positive_domain(const Scalar& a, Iv (*f)(Iv), double ulps, bool zero_allowed, const char* what) const;
  Scalar unknown(std::uint8_t flags) const;  // exact value not known at double precision: anything goes
  Closed close_sum(const Scalar& a) const;
  Scalar from_literal_value(const Literal& lit, const std::string& what) const;
  struct ProductOperand {
    double lo, hi, mag, err;
  };
  ProductOperand product_operand(const Scalar& a) const;  // closed, and TF32-rounded under that profile
  void add_product(Scalar& acc, const ProductOperand& a, const ProductOperand& b) const;
  static Scalar opened(const Scalar& closed_value);
  FloatProfile profile_;
  double product_floor_;  // a product's underflow (or flush) error, at most
};
static_assert(Domain<BoundDomain>);

/// The bound's gamma_k = k u / (1 - k u) for u = 2^-24, rounded up (+inf when k u >= 1).
double gamma_f32(std::uint64_t k);

// --- the hot path (the products of dot_general and convolution), inline ----------------

namespace bound_detail {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kFloatMax = 0x1.fffffep127;  // beyond this the float result may be inf
// One step outward: round-to-nearest r of a real v has |r - v| <= ulp(r)/2, and |r| 2^-52
// is at least one ulp of r, so these bracket v (the 2^-1074 covers underflow).
inline double up(double r) { return r + (std::fabs(r) * 0x1p-52 + 0x1p-1074); }
inline double down(double r) { return r - (std::fabs(r) * 0x1p-52 + 0x1p-1074); }
// Upward sums and products of non-negative bounds that keep an exact 0 exact.
inline double up_sum(double a, double b) {
  const double s = a + b;
  return s == 0 ? 0 : up(s);
}
inline double up_mul(double a, double b) { return a == 0 || b == 0 ? 0 : up(a * b); }
inline double mag(Iv a) { return std::max(std::fabs(a.lo), std::fabs(a.hi)); }
}  // namespace bound_detail

inline BoundDomain::Closed BoundDomain::close(const Scalar& a) const {
  if (!(a.flags & kOpenSum)) return {{a.lo, a.hi}, a.err};
  return close_sum(a);
}

inline Iv BoundDomain::widened(const Closed& c) const {
  using namespace bound_detail;
  if (c.err == 0) return c.x;
  if (c.err == kInf) return {-kInf, kInf};
  return {down(c.x.lo - c.err), up(c.x.hi + c.err)};
}

inline double BoundDomain::allowance(double magnitude, double ulps) const {
  using namespace bound_detail;
  double a = up(ulps * std::max(magnitude * 0x1p-23, 0x1p-149));
  if (profile_.flush_to_zero) a = up(a + 0x1p-126);
  return a;
}

inline BoundDomain::ProductOperand BoundDomain::product_operand(const Scalar& a) const {
  using namespace bound_detail;
  Closed c = close(a);
  if (profile_.tf32) c.err = up(c.err + up(up(mag(c.x) + c.err) * 0x1p-10));  // truncated to 10 stored mantissa bits
  return {c.x.lo, c.x.hi, mag(c.x), c.err};
}

inline void BoundDomain::add_product(Scalar& s, const ProductOperand& a, const ProductOperand& b) const {
  const double f = (a.mag + a.err) * (b.mag + b.err);  // bounds |float a * float b|
  const bool nonzero = f != 0;  // an exact zero term (padding, relu's zeros) adds nothing: branch-free
  const double p1 = a.lo * b.lo, p2 = a.lo * b.hi, p3 = a.hi * b.lo, p4 = a.hi * b.hi;  // branch-free
  s.lo += std::min(std::min(p1, p2), std::min(p3, p4));
  s.hi += std::max(std::max(p1, p2), std::max(p3, p4));
  s.abssum += a.mag * b.mag;
  // |a~ b~ - a b| <= |a| eb + ea |b| + ea eb, then the product's rounding, 2^-24 |a~ b~|,
  // plus its underflow floor.
  s.err += a.mag * b.err + a.err * b.mag + a.err * b.err + 0x1p-24 * f + (nonzero ? product_floor_ : 0.0);
  s.magsum += f * (1 + 0x1p-24);
  s.terms += nonzero;
}

inline void BoundDomain::mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
  if (!(acc.flags & kOpenSum)) acc = opened(acc);
  acc.flags |= (a.flags | b.flags) & (kMayFlip | kUnbounded);
  add_product(acc, product_operand(a), product_operand(b));
}

}  // namespace shlo
