// The `sampled` domain: a second statistical bound on |a float32 evaluation - exact| that keeps
// every correlation between rounding errors, by sampling (issue 17; docs/sampled_tier.md has the
// argument in full, docs/measurements.md the figures).
//
// The bound analysis (interp/bound/bound.hpp) gives each value one random part and adds what it
// cannot place linearly: a channel's mean in every element, a weight in every product, copies
// that meet again. Here each value instead carries, besides its value (a double run of the
// program, the reference), two sets of P = kSampledPasses coordinates:
//   tangents: P samples of the value's error under the standard model of rounding, each
//     rounding's relative error d a variable within its unit, mean-zero given everything before
//     it. Every rounding of a value v whose error is e adds d (v + e), a martingale's increment
//     (mean-zero given the past, within unit |v + e|): each pass adds unit z_p (v + t_p), z a
//     standard normal draw, t_p the pass's own sample of e (add_relative_rounding). The ops take
//     each pass's sample through them: linearly where they are linear, exactly where they are
//     not (a product's t_a t_b, a smooth function's f(v + t) - f(v), a max's kink). Before the
//     first nonlinear step pass p's tangent is sum_k c_k z_kp, exactly normal with variance
//     sigma^2 = sum_k c_k^2, and the error lies within lambda sigma but with probability
//     2 exp(-lambda^2 / 2) (Hoeffding-Azuma); sigma <= c sigma_hat but with probability alpha,
//     c = sqrt(P / chi2_P^-1(alpha)) (P sigma_hat^2 / sigma^2 is chi-square). After it the passes
//     sample a non-Gaussian error, judged with the same factors: a model (docs/sampled_tier.md).
//   sketch: what is not random under the model, each an unknown r_j of known bound X_j (a
//     literal rounded to float32, the double run's own error, underflow, a quotient's second
//     order, a comparison near flipping, the rest of a product of two rests), adds X_j w_jp, w a
//     standard Cauchy draw. Pass p's sketch is sum_j G_j X_j w_jp, Cauchy with scale
//     S = sum_j |G_j| X_j, the largest the r_j can make the value's error with every
//     cancellation between them kept. The k-th smallest |sketch| over the passes bounds S: S <=
//     |sketch|_(k) / q but with probability alpha (sketch_factor below). Where a product or a
//     kink takes the rest R of an error per pass, R's bound times a normal draw keyed by the
//     value stands in for it (the sketch's scale adds independent sources' bounds linearly, the
//     worst case over their signs, and compounded so through batch norms under tf32).
// A tensor element stores both sets as floats with one power-of-two scale each (half the bytes;
// PackedCoordinates below); the rules (SampledRules) compute on doubles between stores.
// So a value's error lies within B = K sigma_hat + Q |sketch|_(k): K = lambda c, Q = 1/q, both
// from the risk the caller gives each value (each bound used as one is an event; the check
// counts them as the bound analysis counts its own).
//
// Sums of any order (dot_general, convolution, reduce with add, select_and_scatter's scatter):
// a value may be an OPEN sum. Its terms' coordinates add; its own roundings wait until it closes
// (any other use): then its n - 1 additions and its products' roundings, each a martingale's
// increment within u times what it rounds in any order (a partial sum within the terms'
// magnitudes, their errors and the earlier roundings', by Doob within K times their deviation),
// add one normal draw whose variance bounds theirs in every order. Under tf32 and bf16 each
// product operand is first rounded to the profile's operand bits (unit 2^-(bits+1), mean-zero,
// one draw per operand value: a value is converted the same way at every use).
//
// Comparisons: decided where the operands' difference exceeds its bound (from the difference's
// own coordinates: errors that cancel in it do not count twice); else near flipping, per
// element. max and min near their kink: the float result's error is the winner's plus
// h(e_loser - e_winner), h(x) = max(0, x - distance); each pass takes its own sample through h.
// A select whose predicate may flip keeps the exact branch's value and tangents, and a source
// covering the other branch; select_and_scatter's window choice likewise (each candidate the
// float run may choose gets the source as a possible term). A three-valued comparison elsewhere
// (sort, a region run as a program) near flipping is undecided: an error, and the tier says
// nothing about that program.
//
// Draws are a hash of the operation's operands (their values and first coordinates), the op and
// the pass: two roundings of the same operands share their draw, as two float evaluations of
// them share their error; anything else draws independently. A value whose bound is infinite
// (overflow, a divisor or a log's operand within its bound of 0) stays so.
//
// Sure infinities and NaN: where every float evaluation gives +inf, -inf or NaN but for an
// improbable event (an exp whose operand exceeds ln(FLT_MAX) by more than its bound, a result
// beyond the float range by more than its bound), the value is that infinity or NaN, with no
// coordinates and bound 0 (a literal infinity is one too, exactly); later ops follow IEEE 754
// on it as the bound analysis' certain non-finite values do (interp/bound/nonfinite.cpp): inf +
// finite = inf, inf - inf = NaN, inf times a value of sure sign, NaN in every sum and comparison
// it enters. A sure infinity also carries a floor under its exact value's magnitude (an exp's
// operand beyond the threshold by its bound: e to the operand's low end), so that where IEEE gives
// a finite number (finite / inf = 0, exp(-inf) = 0, tanh(inf) = 1) the exact counterpart is within
// a bound of it (a source: |a| / floor, e^-floor, ...); with no floor, or where a rule needs a sign
// that may flip, the value is unbounded. A sure infinity may also carry ln of a bound above its
// exact magnitude (`log_high`), and a sure NaN a bound on its exact counterpart's (`exact_most`:
// inf / inf, both of known bounds; carried through sums, products and the smooth functions), so
// that where the float run drops the NaN (a max pool's backward pass choosing another position, a
// select that may take its other branch) the exact value it leaves out is within a bound: a
// source, where it had none. The check holds an output element that is a sure infinity or NaN to
// that value (docs/sampled_tier.md, "Sure overflows").
//
// Alternatives: a float evaluation may give a non-finite value besides a value's numbers: NaN
// where a comparison may flip to a branch that is surely NaN (may_nan), +inf or -inf where an
// overflow may or may not happen (may_inf: an exp whose operand is within its bound of ln(FLT_MAX),
// a rounding or a sum within its bound of the float range). The numbers (value, coordinates,
// bound) are then those of the evaluations that do not overflow: the model's rounding errors hold
// for every rounding whose result is finite. Each op takes IEEE 754 on the alternatives as on
// sure values (inf + x = inf, inf - inf = NaN, x / inf = 0, exp(-inf) = 0): a non-finite result
// joins the result's alternatives; a finite one (a number the float may take in place of the
// op's: 0 for x / inf) is added to the bound as a source, as a select whose comparison may flip
// adds its other branch. A comparison with an operand that has alternatives may go either way.
// The check lets an element's float be one of its alternatives where the sound bound is infinite
// (docs/sampled_tier.md, "Overflows that may or may not happen").
//
// Logarithms of magnitudes past the double range: an exp whose operand's bound is wider than a
// double's exponent allows (logits of 1e7 within 1e5 under bf16) has no bound on its numbers,
// and a sure infinity's floor may overflow a double. Such an exp still keeps ln of a bound on
// its exact value and its float's numbers (`log_high`: the operand's value plus its bound), and a
// sure infinity ln of its floor (`log_floor`, through an exp and through the sums of such
// terms), so that a finite float over a sure infinity (a softmax's class over a sum with an
// overflowing term) is 0 with the exact quotient within e^(log_high - log_floor) of it
// (docs/sampled_tier.md, "Magnitudes past the double range").
//
// Floors: an exp, a square, a relu, a nonnegative literal, and sums, quotients and maxima of
// such values carry a floor `low` under their float and exact values (0 for a square). A divisor,
// a log's or a root's operand whose bound reaches 0 but whose floor does not (a softmax's sum
// under bf16, whose exps' errors are tens of percent; a variance plus its epsilon) is taken per
// pass exactly, (a + t_a) / (b + t_b) - a / b, log(v + t) - log(v), rsqrt(v + t) - rsqrt(v), as
// smooth functions are, with the floor in place of value - bound where the second-order rest
// needs one.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interp/bound/bound.hpp"  // PredBits, FloatProfile
#include "interp/domain/domain.hpp"

namespace shlo {

inline constexpr int kSampledPasses = 64;
/// Which order statistic of |sketch| bounds the Cauchy scale: the 24th smallest of 32 (the
/// 75th percentile) gives the narrowest bound for small risks.
inline constexpr int kSketchRank = 48;

/// A bound's factors: B = K sigma_hat + Q |sketch|_(k).
struct SampledFactors {
  double K = 0, Q = 0;
  double C = 0;  // the chi-square factor alone (K = lambda C): sigma <= C sigma_hat
};

/// Everything a value carries but its coordinates (see above).
struct SampledParts {
  double value = 0;       // the reference: a double run of the program
  bool infinite = false;  // no finite bound (overflow, a divisor near 0, ...)
  bool may_nan = false;   // the float value may also be NaN (see "Alternatives" above)
  std::uint8_t may_inf = 0;  // the float value may also be +inf (bit 1) or -inf (bit 2): an overflow that may happen
  // Of an unbounded value: its float is at least 0 or +inf (an exp that may overflow, its numbers
  // unbounded: an operand wider than e^709 allows). Of an open
  // sum: it has such terms (with a sure +inf term, the sum is +inf whatever they are).
  bool at_least_zero = false;
  // An open sum (see above): its terms and their bounds, for the roundings it adds when closed.
  bool open = false;
  std::uint8_t nonfinite_terms = 0;  // of an open sum: 1 a sure +inf term, 2 a sure -inf term (3: NaN)
  std::uint32_t terms = 0;  // nonzero terms
  // A sure infinity's (see below): its exact value is at least this in magnitude (infinite for a
  // literal infinity, 0 where nothing is known); of an open sum, its sure infinities' floors summed.
  double floor = 0;
  // A sure infinity's floor as its logarithm, kept where the floor itself is past the double
  // range (floor then +inf); -inf where ln(floor) is the one (sampled_detail::ln_floor). Of an open sum:
  // the largest of its sure terms'.
  double log_floor = -std::numeric_limits<double>::infinity();
  // Of an unbounded exp that is at least 0 or +inf: ln of a bound on its exact value and on its
  // float's numbers (+inf where none is known). Of a sure infinity: ln of a bound on its exact
  // value's magnitude (an exp's: its operand's value plus its bound; +inf where none is known).
  double log_high = std::numeric_limits<double>::infinity();
  // Of a sure NaN: a bound on the magnitude of its exact counterpart, the real number the exact
  // run has where every float evaluation gives NaN (a softmax's class after its exps overflowed:
  // e^log_high of the class over the sum's floor); +inf where none is known. Of an open sum: its
  // sure terms' such bounds summed (an infinity's e^log_high).
  double exact_most = std::numeric_limits<double>::infinity();
  // A floor under the value's float and exact values: both are at least `low` but for the bounds'
  // events (an exp: e^(x - B_x); a square, a relu: 0; sums, quotients and maxima of such
  // values); -inf where none is known. Of an open sum: its terms' floors summed (those at least
  // 0), over `low_terms` of its terms.
  double low = -std::numeric_limits<double>::infinity();
  std::uint32_t low_terms = 0;
  double magnitude = 0;     // sum of |t_i| + B_i: bounds every computed partial sum, in any order
  double squares = 0;       // sum of (|p_i| + B_i)^2 over the products: their own roundings' ranges
  double sources = 0;       // sum of the products' second-order bounds (sources with the sum's G)
};

/// P coordinates as a tensor element stores them: floats with one power-of-two scale, half the
/// bytes of doubles (a program's live values are most of the tier's memory). Each store keeps a
/// coordinate to 2^-24 of itself (those below 2^-149 of the largest become 0): a relative change
/// of an error's sample the size of a float rounding's second-order part d e, which the model
/// already takes as noise (docs/sampled_tier.md, "What each value carries").
class PackedCoordinates {
 public:
  PackedCoordinates() = default;
  explicit PackedCoordinates(const std::array<double, kSampledPasses>& x);
  double operator[](std::size_t k) const { return static_cast<double>(mantissa_[k]) * scale_; }
  static constexpr std::size_t size() { return kSampledPasses; }
  std::array<double, kSampledPasses> unpacked() const;
  friend bool operator==(const PackedCoordinates& a, const PackedCoordinates& b) { return a.unpacked() == b.unpacked(); }
  /// The stored bits (same_bits: equal bits, so equal values; equal values may differ in bits).
  const std::array<float, kSampledPasses>& mantissas() const { return mantissa_; }
  double scale() const { return scale_; }
  bool same_bits(const PackedCoordinates& o) const {
    return std::bit_cast<std::uint64_t>(scale_) == std::bit_cast<std::uint64_t>(o.scale_) &&
           std::bit_cast<std::array<std::uint32_t, kSampledPasses>>(mantissa_) == std::bit_cast<std::array<std::uint32_t, kSampledPasses>>(o.mantissa_);
  }

 private:
  std::array<float, kSampledPasses> mantissa_{};
  double scale_ = 1;
};

/// A value of the tier: its parts and two sets of coordinates (sampled.hpp's opening comment).
template <class Coordinates>
struct SampledValue : SampledParts {
  Coordinates tangent{}, sketch{};
};
/// What the rules compute on (doubles) and what a tensor element holds (packed).
using SampledWide = SampledValue<std::array<double, kSampledPasses>>;
using SampledScalar = SampledValue<PackedCoordinates>;
SampledScalar pack(const SampledWide& w);
SampledWide unpack(const SampledScalar& s);
inline const SampledWide& unpack(const SampledWide& w) { return w; }

/// sigma_hat: the root mean square of the tangents.
template <class C>
double sampled_sigma_hat(const SampledValue<C>& s) {
  double q = 0;
  for (std::size_t k = 0; k < kSampledPasses; ++k) q += s.tangent[k] * s.tangent[k];
  return std::sqrt(q / kSampledPasses);
}
/// The k-th smallest |sketch| (k = kSketchRank).
template <class C>
double sampled_sketch_rank(const SampledValue<C>& s) {
  std::array<double, kSampledPasses> a;
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = std::fabs(s.sketch[k]);
  std::nth_element(a.begin(), a.begin() + (kSketchRank - 1), a.end());
  return a[kSketchRank - 1];
}
/// K sigma_hat + Q sketch_rank of a closed value (infinite where unbounded, 0 for a sure
/// infinity or NaN).
template <class C>
double sampled_bound(const SampledValue<C>& s, const SampledFactors& f) {
  if (s.infinite) return std::numeric_limits<double>::infinity();
  if (!std::isfinite(s.value)) return 0;  // a sure infinity or NaN (a literal infinity: max pool's padding)
  return f.K * sampled_sigma_hat(s) + f.Q * sampled_sketch_rank(s);
}

/// The rules, on values with double coordinates (sampled.cpp, nonfinite.cpp). SampledDomain
/// below runs them on packed tensor elements.
class SampledRules {
 public:
  using Scalar = SampledWide;
  using Membership = BoundDomain::Membership;
  /// rest: the factors K and Q of each value's bound B where a second-order term or a comparison
  /// uses it.
  SampledRules(FloatProfile profile, SampledFactors rest);
  std::string name() const { return "sampled"; }
  const SampledFactors& rest_factors() const { return rest_; }

  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat f) const;
  Scalar from_double(double x) const;
  std::string to_string(const Scalar& a) const;

  Scalar add(const Scalar& a, const Scalar& b) const;
  Scalar sub(const Scalar& a, const Scalar& b) const;
  Scalar mul(const Scalar& a, const Scalar& b) const;
  Scalar div(const Scalar& a, const Scalar& b) const;
  /// a / b where b is a sum of terms one of which is a (interp/bound/normalizing.hpp): div, and
  /// with `exp_terms` (a an exp, b's sum from 0: every term exactly positive) the exact quotient
  /// lies in [0, 1], a bound on a NaN's exact counterpart (a softmax's class after +inf / +inf),
  /// and so does the float one or it is NaN: an unbounded class is within 1 of the exact one.
  Scalar normalized_div(const Scalar& a, const Scalar& b, bool exp_terms) const;
  Scalar neg(const Scalar& a) const;
  Scalar abs(const Scalar& a) const;
  Scalar max(const Scalar& a, const Scalar& b) const { return pick(a, b, true); }
  Scalar min(const Scalar& a, const Scalar& b) const { return pick(a, b, false); }
  Scalar exp(const Scalar& a) const;
  Scalar log(const Scalar& a) const;
  Scalar sqrt(const Scalar& a) const;
  Scalar rsqrt(const Scalar& a) const;
  Scalar tanh(const Scalar& a) const;
  Scalar logistic(const Scalar& a) const;
  Scalar pi() const;
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const;
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const;

  // The hooks the kernels ask for (interp/ops): per-element comparisons that may flip, sums
  // in any order, window choices that may differ.
  std::uint8_t compare_bits(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select_widened(std::uint8_t pred, const Scalar& on_true, const Scalar& on_false) const;
  Scalar accumulate(const Scalar& acc, const Scalar& x) const;
  /// C[m][n] += sum_k A[m][k] B[k][n] as open sums, with at most `budget` operands converted at a
  /// time (SampledDomain::matmul_accumulate's is kMatmulOperandBudget, about 850 MB).
  template <class S>  // SampledWide or SampledScalar
  void matmul_tiled(const S* A, const S* B, S* C, std::int64_t M, std::int64_t K, std::int64_t N, std::int64_t budget) const;
  static constexpr std::int64_t kMatmulOperandBudget = std::int64_t{1} << 19;
  /// What one call of matmul_tiled holds at most besides its tensors.
  static std::uint64_t matmul_scratch_bytes() { return kMatmulOperandBudget * sizeof(Operand); }
  std::vector<Membership> window_selection(CompareDirection select, const std::vector<const Scalar*>& candidates) const;
  Scalar scatter_term(const Scalar& source, Membership m) const;

  // Reading results.
  /// The value with an open sum closed (its roundings added): what every op reads.
  Scalar closed(const Scalar& s) const;
  Scalar closed_numbers(const Scalar& s) const;  // closed() of an open sum without alternatives
  static double sigma_hat(const Scalar& s) { return sampled_sigma_hat(s); }
  static double sketch_rank(const Scalar& s) { return sampled_sketch_rank(s); }
  static double bound(const Scalar& closed_value, const SampledFactors& f) { return sampled_bound(closed_value, f); }

 private:
  Scalar rounded(Scalar r, std::uint64_t key, double ulps) const;
  static void add_relative_rounding(Scalar& r, double unit, double rest, std::uint64_t key);
  void add_source(Scalar& s, double bound, std::uint64_t key) const;
  Scalar operand_rounded(const Scalar& a) const;  // tf32 / bf16: a product operand's conversion
  double converted_bound(const Scalar& a) const;  // the bound of operand_rounded(a), a closed
  /// A product's operand: closed (and converted under tf32 / bf16), its bound B, and B's parts:
  /// first = K sigma_hat, rest = Q |sketch|_(k).
  struct Operand {
    Scalar s;
    double bound = 0, first = 0, rest = 0;
    std::array<double, kSampledPasses> stand_in{};  // the rest's stand-in per pass (rest_stand_in)
  };
  Operand operand(const Scalar& closed_value) const;
  Operand converted(const Scalar& closed_value) const;
  Operand with_parts(Operand o) const;
  static double second_order(const Operand& a, const Operand& b, int p);
  static double second_order_rest(const Operand& a, const Operand& b);
  void add_product(Scalar& acc, const Operand& a, const Operand& b) const;
  Scalar pick(const Scalar& a, const Scalar& b, bool larger) const;
  /// a op b where a or b is a sure infinity or NaN (op: '+', '-', '*', '/'), a and b closed.
  Scalar nonfinite_binary(char op, const Scalar& a, const Scalar& b) const;
  /// The sign of a closed value's every float evaluation: 0 for an exact zero, +-1 where it is
  /// beyond its bound of 0 (by a normal float at least), 2 where it may be 0 or flip.
  int sure_sign(const Scalar& a) const;
  Scalar finite_of_sure(const Scalar& from, double value, double distance) const;
  /// A bound on |a closed value's exact counterpart|: |value| + B for a number, a sure NaN's
  /// exact_most, e^log_high for a sure infinity; +inf where none is known.
  double exact_bound_of(const Scalar& a) const;
  /// The least |exact counterpart| of a divisor (closed): |value| - B where its sign is sure, a
  /// sure infinity's floor; 0 where it may be 0.
  double exact_least_of(const Scalar& a) const;
  Scalar positive_div(const Scalar& a, const Scalar& b) const;  // a / b by a positive divisor's floor
  // Alternatives (see above): `main` is the op's result on a's and b's numbers (a, b closed).
  /// a op b (op '+', '-', '*', '/') on every pair of a's and b's values but their numbers.
  Scalar binary_alternatives(char op, const Scalar& a, const Scalar& b, Scalar main) const;
  /// What those pairs give: non-finite results as bits, and whether one is a number (x / inf = 0).
  struct PairAlternatives {
    std::uint8_t bits = 0;
    bool zero = false;
  };
  PairAlternatives pair_alternatives(char op, const Scalar& a, const Scalar& b) const;
  /// Whether a d b holds or fails alike for every alternative of a and b as for their numbers.
  bool alternatives_agree(CompareDirection d, const Scalar& a, const Scalar& b) const;
  /// f(a) where f(+inf) = at_pos_inf and f(-inf) = at_neg_inf (f(NaN) = NaN).
  Scalar unary_alternatives(const Scalar& a, Scalar main, double at_pos_inf, double at_neg_inf, std::uint64_t key) const;
  /// r where the float may also be the number c, or within c_bound of it: a source.
  Scalar with_number(Scalar r, double c, double c_bound, std::uint64_t key) const;
  /// A floor under a rounding (relative `unit`, gradual underflow or flush to zero) of values at
  /// least x; -inf for none.
  double rounded_floor(double x, double unit) const;
  /// The least value a log's, a root's operand or a divisor a (closed) may take, 0 where none is known.
  double positive_low(const Scalar& a) const;
  /// Below 0 by more than its bound: a log's or a root's result is NaN in every evaluation.
  bool surely_negative(const Scalar& a) const;
  Scalar root_near_zero(const Scalar& a) const;  // sqrt of a value within its bound of 0, without a floor
  static Scalar at_least(Scalar a, double low);  // every pass's sample raised to low
  Scalar near_kink(const Scalar& winner, const Scalar& difference, double g, double s) const;
  using Change = double (*)(double v, double t);  // f(v + t) - f(v)
  /// steepest: the largest |f'| over a's range; width: the spread of f's values there (where known).
  Scalar smooth(const Scalar& a, double value, double slope, double curvature, Change change, double ulps, std::uint64_t op,
                double steepest = std::numeric_limits<double>::infinity(), double width = std::numeric_limits<double>::infinity()) const;
  double bound_of(const Scalar& closed_value) const { return bound(closed_value, rest_); }
  /// Whether a - b is surely on the side of its sign (beyond its statistical bound).
  bool decided(const Scalar& a, const Scalar& b) const;

  FloatProfile profile_;
  SampledFactors rest_;
  double operand_unit_;  // 2^-(bits+1) under tf32 / bf16, else 0
};

/// The domain the interpreter runs: SampledRules on tensor elements that hold their coordinates
/// packed; every op unpacks its operands and packs its result.
class SampledDomain {
 public:
  using Scalar = SampledScalar;
  using Membership = BoundDomain::Membership;
  SampledDomain(FloatProfile profile, SampledFactors rest) : rules_(std::move(profile), rest) {}
  std::string name() const { return rules_.name(); }
  const SampledFactors& rest_factors() const { return rules_.rest_factors(); }
  const SampledRules& rules() const { return rules_; }

  Scalar from_rational(const Rational& q) const { return pack(rules_.from_rational(q)); }
  Scalar from_literal(std::string_view text) const { return pack(rules_.from_literal(text)); }
  Scalar from_bits(std::uint64_t bits, FloatFormat f) const { return pack(rules_.from_bits(bits, f)); }
  Scalar from_double(double x) const { return pack(rules_.from_double(x)); }
  Scalar parse(std::string_view text) const { return from_literal(text); }
  std::string to_string(const Scalar& a) const { return rules_.to_string(unpack(a)); }
  double to_double(const Scalar& a) const { return a.value; }

  Scalar add(const Scalar& a, const Scalar& b) const { return pack(rules_.add(unpack(a), unpack(b))); }
  Scalar sub(const Scalar& a, const Scalar& b) const { return pack(rules_.sub(unpack(a), unpack(b))); }
  Scalar mul(const Scalar& a, const Scalar& b) const { return pack(rules_.mul(unpack(a), unpack(b))); }
  Scalar div(const Scalar& a, const Scalar& b) const { return pack(rules_.div(unpack(a), unpack(b))); }
  Scalar normalized_div(const Scalar& a, const Scalar& b, bool exp_terms) const {
    return pack(rules_.normalized_div(unpack(a), unpack(b), exp_terms));
  }
  Scalar neg(const Scalar& a) const { return pack(rules_.neg(unpack(a))); }
  Scalar abs(const Scalar& a) const { return pack(rules_.abs(unpack(a))); }
  Scalar max(const Scalar& a, const Scalar& b) const { return pack(rules_.max(unpack(a), unpack(b))); }
  Scalar min(const Scalar& a, const Scalar& b) const { return pack(rules_.min(unpack(a), unpack(b))); }
  Scalar exp(const Scalar& a) const { return pack(rules_.exp(unpack(a))); }
  Scalar log(const Scalar& a) const { return pack(rules_.log(unpack(a))); }
  Scalar sqrt(const Scalar& a) const { return pack(rules_.sqrt(unpack(a))); }
  Scalar rsqrt(const Scalar& a) const { return pack(rules_.rsqrt(unpack(a))); }
  Scalar tanh(const Scalar& a) const { return pack(rules_.tanh(unpack(a))); }
  Scalar logistic(const Scalar& a) const { return pack(rules_.logistic(unpack(a))); }
  Scalar pi() const { return pack(rules_.pi()); }
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const { return pack(rules_.map_monotone(unpack(a), f)); }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const { return rules_.compare(d, unpack(a), unpack(b)); }
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
    SampledWide w = unpack(acc);
    rules_.mac(w, unpack(a), unpack(b));
    acc = pack(w);
  }

  std::uint8_t compare_bits(CompareDirection d, const Scalar& a, const Scalar& b) const {
    return rules_.compare_bits(d, unpack(a), unpack(b));
  }
  Scalar select_widened(std::uint8_t pred, const Scalar& on_true, const Scalar& on_false) const {
    return pack(rules_.select_widened(pred, unpack(on_true), unpack(on_false)));
  }
  Scalar accumulate(const Scalar& acc, const Scalar& x) const { return pack(rules_.accumulate(unpack(acc), unpack(x))); }
  void matmul_accumulate(const Scalar* A, const Scalar* B, Scalar* C, std::int64_t M, std::int64_t K, std::int64_t N) const {
    rules_.matmul_tiled(A, B, C, M, K, N, SampledRules::kMatmulOperandBudget);
  }
  std::vector<Membership> window_selection(CompareDirection select, const std::vector<const Scalar*>& candidates) const;
  Scalar scatter_term(const Scalar& source, Membership m) const { return pack(rules_.scatter_term(unpack(source), m)); }

  Scalar closed(const Scalar& s) const { return s.open ? pack(rules_.closed(unpack(s))) : s; }
  static double sigma_hat(const Scalar& s) { return sampled_sigma_hat(s); }
  static double sketch_rank(const Scalar& s) { return sampled_sketch_rank(s); }
  static double bound(const Scalar& closed_value, const SampledFactors& f) { return sampled_bound(closed_value, f); }

 private:
  SampledRules rules_;
};
static_assert(Domain<SampledDomain>);

/// sqrt(P / q) with q the alpha-quantile of chi-square with P degrees of freedom (P even):
/// sigma <= factor * sigma_hat but with probability alpha.
double chi_square_factor(int passes, double alpha);

/// 1 / q with q such that the k-th smallest of P absolute standard Cauchy draws lies below q
/// with probability alpha: the scale S <= factor * |sketch|_(k) but with probability alpha.
double sketch_factor(int passes, int rank, double alpha);

/// The factors for `events` bounds that together may fail with probability at most `risk`: each
/// one's risk split evenly between Hoeffding's 2 exp(-lambda^2/2), the chi-square event and the
/// sketch's (K = lambda c).
SampledFactors sampled_factors(double risk, double events);

}  // namespace shlo
