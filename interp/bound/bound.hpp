// The `bound` domain: for every value, a certified enclosure of its exact (real) value and two
// bounds on |a float32 evaluation - exact| under a FloatProfile:
//   err  (the sound tier): holds for every float32 evaluation, every summation order;
//   perr (the statistical tier): holds with probability at least 1 - events * event_risk()
//        under the standard model of rounding errors as mean-zero random variables, each
//        bounded by u and mean-zero given the earlier ones (Higham and Mary 2019; Ipsen and
//        Zhou 2020). perr = min(err, pdet + lambda * sigma, a cap where kPlainCap): the
//        error is a part bounded by pdet (given the earlier events) plus a mean-zero
//        sub-Gaussian part with variance proxy sigma^2, which holds within lambda * sigma
//        but with probability 2 exp(-lambda^2 / 2). Linear steps (sums, +, -, *, negation, a comparison decided
//        in the statistical tier: relu, select) and the smooth ops exp, log, divide, sqrt and rsqrt (to
//        first order, below) carry sigma, and so does a max near its kink (below); any
//        other op turns its operands' perr into a plain bound (pdet = its perr, sigma = 0).
//
// Rounding model (u = 2^-24, the float32 unit roundoff): a correctly rounded op returns
// v(1 + d) + h with |d| <= u and |h| <= 2^-150 (gradual underflow); an op with an allowance
// of k ulps lands within k * max(2^-23 |v|, 2^-149) of v. Each elementwise op composes
// op-by-op: with X the enclosure of the exact operands' image and R the image of the
// operands widened by their error bounds (every value the float operands may hold), the
// result's bound is  max(R.hi - X.lo, X.hi - R.lo) + allowance(max |R|). The statistical
// tier does the same with the operands widened by perr; + - * propagate sigma (a * b:
// |a| sigma_b + |b| sigma_a) and add their own rounding, mean-zero, to it.
//
// Sums in any order (dot_general, convolution, reduce, all_reduce, select_and_scatter's
// scatter): a value may be an OPEN sum of n terms t_i with |computed t_i| <= f_i, whose
// inherited errors (from the operands' errors) are within b_i; its bounds are
//   sound:        sum b_i + gamma_(n-1) * sum f_i,
//   statistical:  sigma^2 = u^2 ((n-1) M^2 + sum f_i^2) + 2 u_op^2 sum f_i^2 + sum s_i^2,
//                 pdet = sum d_i, where term i's inherited error is s_i-sub-Gaussian plus d_i,
// gamma_k = k u / (1 - k u), M = max(P, N) + gamma_(n-1) sum f_i (bounds every partial sum,
// in any order; P and N the sums of the computed terms' positive and negative parts, so
// max(P, N) = (sum |t~| + |sum t~|) / 2 <= (sum f_i + |S| + the terms' errors) / 2). The
// statistical tier may also bound |t~_i| by the operands' statistical bounds (all of which
// hold together but for the events the check counts): |t_i| + pdet_i + lambda s_i, summed
// as sum |t_i| + sum pdet_i + lambda sqrt(n sum s_i^2); where the sound bounds are far wider
// than the statistical ones (deep networks with inputs of both signs) that M is the smaller,
// and so are the products' rounding steps, u times that bound on |t~_i|. The statistical
// term is Azuma-Hoeffding's inequality on the sum's errors: its own roundings (n - 1 additions, n products, and under tf32 / bf16 two operand conversions per
// product, unit u_op), steps bounded by u M, u f_i and u_op f_i (a martingale, so
// sub-Gaussian with proxy their sum of squares), and the terms' inherited random parts.
// The model takes the terms' inherited errors as independent of each other, as the
// standard statistical model of rounding does (their first-order parts
// are mean-zero combinations of earlier roundings; terms that share an upstream rounding are
// correlated, which the model neglects: the tests check honest evaluations against it).
// One correlation is certain and not neglected: copies of one value (broadcast_in_dim marks
// them kShared) share their error exactly, so n copies in one sum would make n times the
// error where the quadrature allows sqrt(n). Each copy carries its source, a 24-bit number
// (the operand element's index + 1, wrapping: two sources may share a number, one source
// never has two), and so does every value a linear or smooth op makes from it: its random
// part then holds the source's. A sum admits a shared term's random part into its quadrature
// only while the sources it admits strictly increase (so no two admitted terms share a
// source: copies of one example's softmax sum meet in a sum over the examples only once
// each); any other shared term enters with its random part closed to a plain bound
// (pdet = perr, sigma = 0: an event), which sums linearly. A sum that admitted shared terms
// is itself shared with source 0, "unknown": its random part is closed at every use, since
// its siblings (the other sums over the same sources) hold the same errors. Where two
// operands of one op hold different sources, the second's random part is closed.
// Each use of a lambda * sigma bound as a plain bound (an op that is not linear, a product's
// second-order term, the verdict itself) may fail with probability event_risk(): an "event".
// Each value counts the events it depends on (an over-count where paths join).
// Folds add terms (accumulate, mac); any other op closes the sum first. Terms that are
// exactly zero (padding) do not count.
//
// Smooth ops (exp, log, divide, sqrt, rsqrt) carry sigma through their first-order term: with x exact
// and e = x~ - x, f(x~) - f(x) = f'(x) e + (f'(xi) - f'(x)) e for some xi between them, so
// the random part scales by max |f'| over the exact enclosure and the rest, bounded by the
// width of f' over the statistically widened operand times perr, joins the plain part (an
// event: perr used as a plain bound). Of divide's two operands the random parts add
// linearly, as they may be correlated; but where the program divides a value by a sum that
// holds it (softmax: exp(x) / broadcast(sum(exp(x))), interp/bound/normalizing.hpp), the
// divisor is a + r with r the other terms, independent of a in the model: then
// a / (a + r) has the random part sqrt((r/b^2)^2 sigma_a^2 + (a/b^2)^2 sigma_r^2), with
// sigma_r^2 = sigma_b^2 - sigma_a^2 (a's share entered b's quadrature). The leading class's
// probability then depends on the other classes' errors, not on its own.
//
// Comparisons: when the widened operands overlap, the float comparison may go either way;
// the element is flagged "branch may flip" and select (and select_and_scatter's choice)
// widens to cover both branches, per tier (the statistical tier flips far less often). A
// select whose two branches stay apart keeps the gap between them: a float value there is
// near neither branch. max and min are 1-Lipschitz, so their bound already covers a flip;
// they flag it too.
//
// Near a kink (a max or min whose comparison the statistical tier cannot decide: relu of a
// value within its statistical bound of 0, a max-pool's near-tie): with g_a, g_b the
// operands' random parts (sigma_a, sigma_b) and h_a, h_b their plain parts,
// max(a + g_a + h_a, b + g_b + h_b) - max(a, b) is within max |h| of
// D = max(a + g_a, b + g_b) - max(a, b), a and b exact. D - E D is sub-Gaussian with proxy
// 2 (sigma_a^2 + sigma_b^2): with (g_a', g_b') an independent copy, E exp(t (D - E D)) <=
// E exp(t (D - D')) = E cosh(t (D - D')) (D - D' is symmetric), |D - D'| <=
// max(|g_a - g_a'|, |g_b - g_b'|) and cosh(max(x, y)) <= cosh x + cosh y - 1, so it is at
// most exp(t^2 sigma_a^2) + exp(t^2 sigma_b^2) - 1 <= exp(t^2 (sigma_a^2 + sigma_b^2)); no
// independence of g_a and g_b is needed. And 0 <= E D = E relu(d + h) - relu(d), h = g_a - g_b
// (sub-Gaussian with proxy s^2, s = sigma_a + sigma_b), d = a - b: for d >= 0 it is
// E relu(-d - h), at most E relu(-h) = E |h| / 2 <= s / 2 (E h = 0, and the variance is
// within the proxy), and at most int_|d|^inf P(-h > t) dt <= s sqrt(pi/2) erfc(|d| / (s sqrt 2))
// (likewise for d < 0): s / 2 at d = 0, negligible from |d| = 3 s on. So the result keeps a
// random part of sqrt(2 (sigma_a^2 + sigma_b^2)) and a plain part of max |h| plus that mean:
// for relu (sigma_b = 0) sqrt(2) sigma_a, which a later sum adds in quadrature rather than
// linearly (a dense layer after relus that may flip: plain parts grow by sum |w| a layer,
// random parts by sqrt(sum w^2)); the generic bound, the narrower for this value alone,
// stays its own (kPlainCap). Kept only where the plain part shrinks.
// (The mean is not zero: max is convex; it is a bias, summed linearly.)
//
// Centred second moments (batch normalisation's variance: sum_i (x_i - m)^2 with m the mean of
// the x_i over the same elements, interp/bound/normalizing.hpp): with c_i = x_i - m exact and
// e_m the float mean's error, the float c~_i = c_i + d_i - e_m, where d_i is x_i's error plus
// the subtract's rounding, so c~_i^2 - c_i^2 = 2 c_i d_i - 2 c_i e_m + (c~_i - c_i)^2, and
// sum_i 2 c_i e_m = 2 e_m sum_i c_i = 0 exactly. The mean's error, the same in every term and
// the largest part of them (a mean of n values is off by about sqrt(n) of their own errors),
// cancels to first order: each square is bounded as 2 |c| d + (its whole error)^2 + its rounding,
// a bound that holds for the sum over the group only (the pattern requires that the squares
// have no other use), and its random part is x's, independent from term to term. The centring
// subtract records d's bounds (sound, plain, random) in the value (kCentered) for the square.
//
// Enclosures are pairs of doubles rounded outward after every operation (exp, log, tanh,
// logistic, sqrt, rsqrt through MPFR with directed rounding), so they are certified; error
// bounds are doubles (pdet a float) rounded upward. A value whose float evaluation may
// overflow, divide by a range containing zero, or leave a function's domain is "unbounded"
// (bound = inf); the domain records that it made one (made_unbounded()). Each tier decides
// that on its own widened operands, and the statistical tier reads only exact enclosures and
// statistical parts, so it carries on past a sound infinity (an exp whose operand's sound
// bound reaches the overflow threshold while its statistical bound stays below it, and every
// op and sum after it) for as long as its own bound stays finite. A sum whose partial sums may
// leave the float range (their bound beyond it, in some order) is unbounded in that tier.
//
// Certain non-finite values (interp/bound/nonfinite.cpp): where every float evaluation under the
// profile gives an infinity or NaN, the value says so, and later ops follow IEEE 754 on it. An
// exp whose float operand, widened by its sound bound, lies beyond the threshold of overflow
// (88.7228 plus the exp's allowance) is +inf in every evaluation; a sum that holds a certain +inf
// and otherwise terms with finite bounds (no partial sum of which can overflow) or exps of bounded
// operands that may overflow (finite and at least 0, or +inf: kNonNegativeFloat) is +inf; inf -
// inf, 0 * inf and inf / inf are NaN; NaN in an arithmetic op, a max or a sum gives NaN, and a
// comparison with NaN is false (true for NE). A certain value is stored as an unknown one marked
// kCertainNaN (flags) or kCertainPosInf / kCertainNegInf (the closed value's `terms`), so code
// that does not look for them sees an unknown value. Its exact value is a real number the
// program's float semantics cannot reach (an overflow-derived inf times 1e-30 is inf in float,
// 3e8 exactly): the verdict is on the float value alone (an honest NaN output is a PASS, a finite
// number there a FAIL), and an op whose float result is finite (exp(-inf), a finite value / inf,
// tanh(inf)) is unknown, as before. An exact infinity (lo = hi = +-inf, err 0: a literal, max-pool
// padding) is the extended real: ops on it alone keep their exact limits (exp(-inf) = 0 exactly);
// with a certain value, the rules here apply to it as to the same certain infinity.
//
// Probable non-finite values: the same rules decided by the statistical tier where the sound one
// cannot (under every profile, as judge_element's statistical-only verdicts): an exp whose
// operand widened by its statistical bound lies beyond the threshold, a comparison the
// statistical tier decides choosing a select's certain branch (or its finite one, then with an
// infinite sound bound), a sign or a sum's other terms bounded statistically. Such a value is
// +inf, -inf or NaN in every float evaluation but for an improbable event (each decision uses
// one statistical bound, an event of the check's count). The value says so (kProbableMark in a
// closed value's `terms`, kSumProbable in an open sum's), and so does every value that follows
// from it: the check calls a different float value there IMPROBABLE, not FAIL. A comparison
// with such a value is decided the same way (kPredStatDecided: a select on it has the sound bound
// of both branches).
//
// Values that may be NaN: a select whose exact comparison takes one branch while the float one may
// take the other, NaN in every evaluation (a relu's gradient where the loss overflows), gives the
// chosen branch's value marked kMayNaN: every float evaluation is NaN or within that value's
// bounds. IEEE 754 propagates a NaN through every arithmetic op, max and min, every sum and
// product (0 * NaN too), so each op computes on its operands' numbers and marks its result the
// same (an infinity or NaN result becomes NaN or unknown); a comparison with such a value may
// differ from the exact one in either tier (NaN compares false); a select_and_scatter window
// holding one may choose any candidate. The check passes a NaN there and judges a number against
// the bounds. Sqrt, rsqrt and log of an exact value below 0 (no real value) are NaN where the float
// operand is surely below -2^-126 (certain, or probable where only statistically), else unknown.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
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

enum BoundFlag : std::uint8_t {
  kMayFlip = 1,
  kUnbounded = 2,
  kOpenSum = 4,
  kBranchGap = 8,
  kShared = 16,       // its random part holds that of the value numbered `source` (0: unknown)
  kSharedTerms = 32,  // an open sum that admitted shared terms' random parts (shared when closed)
  kPlainCap = 64,     // st.lo holds a tighter statistical bound of this value alone (never with kBranchGap)
  kCentered = 128,    // a centering subtract's result: st.hi, st.plo, st.phi bound its error less the mean's
  /// The flags whose data lives in ClosedStat's floats: a new value, an open sum and a value
  /// rebuilt from closed parts drop them.
  kStatBytes = kBranchGap | kPlainCap | kCentered,
  /// A closed value that is NaN in every float evaluation (never otherwise together).
  kCertainNaN = kBranchGap | kCentered,
  /// An open sum's terms (an open sum has no stat bytes): certainly +inf, certainly -inf (a NaN
  /// term sets both), and "finite and at least 0, or +inf" (kNonNegativeFloat below), whose
  /// sound error the sum leaves out of its numeric part, its sound bound then infinite.
  kSumPosInf = kBranchGap,
  kSumNegInf = kPlainCap,
  kSumCertain = kSumPosInf | kSumNegInf,
  kSumNonNegative = kCentered,
};

/// A closed value's `terms` (an open sum's count) when every float evaluation of it is finite and
/// at least 0, or +inf, never NaN, and its sound bound is infinite: an exp of a bounded operand
/// that may overflow. A sum that holds a certain +inf stays +inf with such terms.
constexpr std::uint32_t kNonNegativeFloat = 0x80000000u;
/// A closed value's `terms` when every float evaluation gives +inf, resp. -inf (its exact value a
/// real number: the header's "certain non-finite values").
constexpr std::uint32_t kCertainPosInf = 0x40000000u, kCertainNegInf = 0x20000000u;
/// With a certain value's marker (and alone for a NaN): decided by the statistical tier, so only
/// but for an improbable event (the header's "probable non-finite values").
constexpr std::uint32_t kProbableMark = 0x10000000u;
/// A closed value's `terms` for an exp of a bounded operand that overflows in every evaluation
/// but for an improbable event: soundly kNonNegativeFloat (finite and at least 0, or +inf),
/// statistically +inf.
constexpr std::uint32_t kProbablePosInfNonNegative = kNonNegativeFloat | kProbableMark;
/// In an open sum's `terms`, beside the count (far below them): a term that is +inf, resp. -inf,
/// but for an improbable event (a NaN one sets both). Its sound view: kUnbounded, or
/// kSumNonNegative for a kProbablePosInfNonNegative term.
constexpr std::uint32_t kSumProbablePosInf = 0x10000000u, kSumProbableNegInf = 0x08000000u,
                        kSumProbable = kSumProbablePosInf | kSumProbableNegInf;
/// With a +inf marker (closed), or in an open sum's `terms` beside a +inf bit: the exact value is
/// at least FLT_MAX (an exp whose exact operand lies beyond ln(FLT_MAX), or a sum with such a
/// term), which a quotient of exps by their own sum uses (BoundDomain::normalized_div).
constexpr std::uint32_t kLargeMark = 0x04000000u, kSumLargePosInf = kLargeMark;
/// In `terms`, closed value or open sum alike: the value may also be NaN (the header's "values
/// that may be NaN"): every float evaluation is NaN or within the value's bounds.
constexpr std::uint32_t kMayNaN = 0x02000000u;
/// An open sum's term count: the bits of `terms` below those (BoundDomain::count_term keeps it
/// there; a longer sum is unbounded in both tiers, a longer product sum an error).
constexpr std::uint32_t kTermCount = kMayNaN - 1;

/// An open sum's running totals (kOpenSum): round-to-nearest sums of the terms' magnitudes
/// (abssum, for the double rounding of the enclosure sums), of bounds f_i on |computed term|
/// (magsum) and of the statistical tier's squared steps but the additions' (variance).
struct SumTotals {
  double magsum = 0, abssum = 0, variance = 0;
};
/// A closed value's statistical part: sigma, and, from a select whose branches may flip but
/// stay apart (kBranchGap), the open intervals (lo, hi) and (plo, phi) between the two
/// branches where no float evaluation lands (sound tier), resp. lands only improbably
/// (statistical tier); empty when lo >= hi. With kPlainCap instead, lo is the cap: a
/// statistical bound of the value alone below pdet + lambda sigma (an op's own rounding
/// kept in the random part for later sums, where a plain bound of it was the narrower). With
/// kCentered (BoundDomain::centering_sub, never with kBranchGap), hi, plo and phi bound its
/// error less the mean's: sound, plain part, random part.
/// (The union's default, SumTotals{}, zeroes these bytes too: sigma 0, no gaps.)
struct ClosedStat {
  double sigma;
  float lo, hi, plo, phi;
};

/// A closed value: the exact value lies in [lo, hi], any float32 evaluation within err of it
/// (and within pdet + lambda * sigma, but for an improbable event). An open sum (kOpenSum):
/// lo, hi, err and pdet are round-to-nearest running sums of the terms' enclosures and
/// bounds, `sum` holds the totals; BoundDomain::closed() turns it into a closed value. Keeping the fold cheap
/// (no outward rounding per term) is what makes the analysis of a large convolution take
/// seconds, not minutes. 64 bytes.
struct BoundScalar {
  double lo = 0, hi = 0;
  double err = 0;
  union {
    SumTotals sum{};  // kOpenSum
    ClosedStat st;    // otherwise
  };
  float pdet = 0;
  float events = 0;         // statistical events (sums) this value depends on
  std::uint32_t terms = 0;  // open sum: number of nonzero terms; a closed value: 0 or a marker (kNonNegativeFloat, ...)
  std::uint8_t flags = 0;
  /// kShared: the source its random part shares; an open sum: the last source it admitted.
  std::uint8_t source_bytes[3] = {0, 0, 0};
  std::uint32_t source() const { return source_bytes[0] | source_bytes[1] << 8 | static_cast<std::uint32_t>(source_bytes[2]) << 16; }
  void set_source(std::uint32_t s) {
    source_bytes[0] = static_cast<std::uint8_t>(s);
    source_bytes[1] = static_cast<std::uint8_t>(s >> 8);
    source_bytes[2] = static_cast<std::uint8_t>(s >> 16);
  }
};
static_assert(sizeof(BoundScalar) == 64);

/// A closed value's marker (`terms`) without the probable, large and may-be-NaN bits.
inline std::uint32_t marker(const BoundScalar& a) { return a.terms & ~(kProbableMark | kLargeMark | kMayNaN); }
/// Whether a float evaluation of the value may be NaN besides the numbers its bounds hold.
inline bool may_be_nan(const BoundScalar& a) { return a.terms & kMayNaN; }
/// The value's numbers: the same value without "or NaN".
inline BoundScalar numbers_of(BoundScalar a) {
  a.terms &= ~kMayNaN;
  return a;
}
/// A closed kProbablePosInfNonNegative value (large or not).
inline bool probable_overflow(const BoundScalar& a) {
  return !(a.flags & kOpenSum) && (a.terms & ~(kLargeMark | kMayNaN)) == kProbablePosInfNonNegative;
}

/// Whether a value may be a certain infinity or NaN (the header's "certain non-finite values"):
/// a closed one that is, or an open sum that holds such a term. Cheap; BoundDomain::kind decides.
inline bool nonfinite(const BoundScalar& a) {
  if (a.flags & kOpenSum) return (a.flags & kSumCertain) || (a.terms & kSumProbable);
  return (a.flags & kCertainNaN) == kCertainNaN || marker(a) == kCertainPosInf || marker(a) == kCertainNegInf ||
         probable_overflow(a);
}

/// broadcast_in_dim's hook: the element, operand element `index`, is one of several copies of
/// one value (kShared), numbered index + 1 (wrapping within 24 bits, 0 skipped). A value that
/// already shared another's random part keeps source 0: unknown, closed at every use.
inline void mark_replicated(BoundScalar& x, std::int64_t index) {
  if (nonfinite(x)) return;  // no random part to share
  constexpr std::uint32_t kSources = (1u << 24) - 1;
  const bool nested = x.flags & (kShared | kSharedTerms);
  x.flags |= kShared;
  x.set_source(nested ? 0 : static_cast<std::uint32_t>(static_cast<std::uint64_t>(index) % kSources) + 1);
}

/// Pred bits the bound domain's compare writes (other domains write 0 or 1): bit 0 the
/// comparison of the exact values (its best guess when undecided), bit 1 "the float
/// comparison may differ", bit 2 "the exact comparison is undecided at double precision",
/// bit 3 (only with bit 1) "but not under the statistical bound". Ops that combine
/// predicates may drop bit 3: that only makes the statistical tier as cautious as the sound.
enum PredBits : std::uint8_t { kPredValue = 1, kPredFloatMayFlip = 2, kPredExactUndecided = 4, kPredStatDecided = 8 };

class BoundDomain {
 public:
  using Scalar = BoundScalar;
  /// lambda: the statistical tier's width (each sum's bound fails with probability at most
  /// 2 exp(-lambda^2 / 2)); the default suits 10^9 sums at a failure probability of 10^-9.
  explicit BoundDomain(FloatProfile profile, double lambda = lambda_for(1e-9, 1e9))
      : profile_(std::move(profile)),
        product_floor_(profile_.flush_to_zero ? 0x1p-126 : 0x1p-149),
        lambda_(lambda),
        operand_unit_(profile_.reduced_operands() ? std::ldexp(1.0, -(profile_.operand_bits + 1)) : 0),
        product_unit2_((0x1p-48 + 2 * operand_unit_ * operand_unit_ * (1 + operand_unit_) * (1 + operand_unit_)) * (1 + 0x1p-50)),
        operand_growth_((1 + operand_unit_) * (1 + operand_unit_) * (1 + 0x1p-50)),
        unbounded_made_(std::make_shared<std::atomic<bool>>(false)) {}
  const FloatProfile& profile() const { return profile_; }
  std::string name() const { return "bound:" + profile_.name; }
  double lambda() const { return lambda_; }
  /// The probability that one sum's statistical bound fails: 2 exp(-lambda^2 / 2).
  double event_risk() const { return 2 * std::exp(-0.5 * lambda_ * lambda_); }
  /// The lambda at which `events` sums all hold with probability at least 1 - delta.
  static double lambda_for(double delta, double events) { return std::sqrt(2 * std::log(2 * std::max(events, 1.0) / delta)); }
  /// Whether some operation has turned bounded operands into an unbounded value (overflow,
  /// a divisor or log operand that may reach 0) since the last reset: how a caller watching
  /// the instructions go by names the first op where the bound became infinite.
  bool made_unbounded() const { return unbounded_made_->load(std::memory_order_relaxed); }
  void reset_made_unbounded() const { unbounded_made_->store(false, std::memory_order_relaxed); }
  /// Whether a nonfinite() value is so only but for an improbable event (the header's "probable
  /// non-finite values"): decided by the statistical tier, or following from such a value.
  bool probable(const Scalar& a) const;

  // Constants and inputs: the exact value, and the error of storing it in float32.
  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const;
  Scalar parse(std::string_view text) const { return from_literal(text); }
  /// "[lo, hi] +- bound (+- perr statistically)" (with "may flip" when flagged).
  std::string to_string(const Scalar& a) const;
  double to_double(const Scalar& a) const {
    const Iv x = enclosure(a);
    return 0.5 * x.lo + 0.5 * x.hi;
  }

  // The ops: what each makes of its operands' numbers (the private *_numbers below), and NaN
  // where an operand may be NaN (the header's "values that may be NaN": IEEE 754 propagates it).
  Scalar add(const Scalar& a, const Scalar& b) const { return or_nan(add_numbers(a, b), a, b); }
  Scalar sub(const Scalar& a, const Scalar& b) const { return or_nan(sub_numbers(a, b), a, b); }
  Scalar mul(const Scalar& a, const Scalar& b) const { return or_nan(mul_numbers(a, b), a, b); }
  Scalar div(const Scalar& a, const Scalar& b) const { return or_nan(div_numbers(a, b), a, b); }
  /// a / b where b is a sum of terms one of which is a itself (a divide the program text shows
  /// to normalise a value by its own sum, interp/bound/normalizing.hpp): the same value, with
  /// a's share of b's error counted once, as the first order of a / (a + rest).
  /// With `exp_terms` (a is an exp, b's sum starts from 0: every term of b is exactly positive),
  /// a finite a over a b that is +inf with an exact value of at least FLT_MAX is +0 in every
  /// float evaluation, within a.hi / FLT_MAX of the exact quotient (a softmax whose other logits
  /// overflow).
  Scalar normalized_div(const Scalar& a, const Scalar& b, bool exp_terms = false) const {
    return or_nan(normalized_div_numbers(a, b, exp_terms), a, b);
  }
  /// x - mean where mean is x's mean over a group (interp/bound/normalizing.hpp): sub, with the
  /// bounds of the error less the mean's kept for centered_square (the header's "centred
  /// second moments").
  Scalar centering_sub(const Scalar& x, const Scalar& mean) const { return or_nan(centering_sub_numbers(x, mean), x, mean); }
  /// c * c for c from centering_sub whose squares are only summed over the mean's group: a
  /// bound of the square's error less 2 c e_m, which cancels in that sum (not a bound of the
  /// square alone). Any other c: mul(c, c).
  Scalar centered_square(const Scalar& c) const { return or_nan(centered_square_numbers(c), c); }
  Scalar neg(const Scalar& a) const { return or_nan(neg_numbers(a), a); }
  Scalar abs(const Scalar& a) const { return or_nan(abs_numbers(a), a); }
  Scalar max(const Scalar& a, const Scalar& b) const { return or_nan(max_numbers(a, b), a, b); }  // IEEE maximum: NaN in, NaN out
  Scalar min(const Scalar& a, const Scalar& b) const { return or_nan(min_numbers(a, b), a, b); }
  Scalar exp(const Scalar& a) const { return or_nan(exp_numbers(a), a); }
  Scalar log(const Scalar& a) const { return or_nan(log_numbers(a), a); }
  Scalar sqrt(const Scalar& a) const { return or_nan(sqrt_numbers(a), a); }
  Scalar rsqrt(const Scalar& a) const { return or_nan(rsqrt_numbers(a), a); }
  Scalar tanh(const Scalar& a) const { return or_nan(tanh_numbers(a), a); }
  Scalar logistic(const Scalar& a) const { return or_nan(logistic_numbers(a), a); }
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const { return or_nan(map_monotone_numbers(a, f), a); }
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
  /// when true): per candidate, 0 never chosen, 1 surely chosen, 2 maybe; for the exact
  /// evaluation, a float one, and a float one within the statistical bounds.
  struct Membership {
    std::uint8_t exact = 0, floating = 0, likely = 0;
  };
  std::vector<Membership> window_selection(CompareDirection select, const std::vector<const Scalar*>& candidates) const;
  /// The source value as a scatter term at a candidate of that membership.
  Scalar scatter_term(const Scalar& source, Membership m) const;

  // Reading results.
  /// The value with any open sum closed: lo, hi, err, perr and events are then final.
  Scalar closed(const Scalar& a) const;
  /// What every float evaluation gives: a finite number (a finite sound bound), +inf, -inf or
  /// NaN for certain, or unknown (an infinite bound: it may overflow, or not).
  enum class Kind : std::uint8_t { Finite, PosInf, NegInf, NaN, Unknown };
  Kind kind(const Scalar& a) const;
  /// Whether a float evaluation may be NaN besides the numbers the bounds hold (kMayNaN).
  static bool may_be_nan(const Scalar& a) { return shlo::may_be_nan(a); }
  /// The whole error bound of a value: +inf when unbounded.
  double bound(const Scalar& a) const { return close(a).err; }
  /// The statistical bound (<= bound(a)): +inf when unbounded.
  double pbound(const Scalar& a) const { return close(a).perr; }
  /// Its sub-Gaussian part's sigma (0 where only a plain bound is known).
  double sigma(const Scalar& a) const { return close(a).sigma; }
  Iv enclosure(const Scalar& a) const { return close(a).x; }

 private:
  struct Closed {
    Iv x;          // exact enclosure
    double err;    // total bound
    double pdet;   // statistical tier: the plain part,
    double sigma;  // the sub-Gaussian part,
    double perr;   // and the bound, min(err, pdet + lambda sigma, the cap if any)
    float events;
  };
  Closed closed_value(Iv x, double err, double pdet, double sigma, float events,
                      double cap = std::numeric_limits<double>::infinity()) const;
  /// s with the random form (pdet, sigma) that later sums use, and `cap`, another statistical
  /// bound of s alone, where that is the narrower (kPlainCap).
  Scalar keep_random(Scalar s, double pdet, double sigma, double cap) const;
  /// A linear op's statistical part on top of a generic result s: the operands' plain part
  /// pdet and random part sigma, with the op's own rounding (at most own_rounding) joining the
  /// random part, mean-zero; that is the form a later sum adds in quadrature. The value's own
  /// statistical bound is capped (kPlainCap) by the narrower of the generic one and the plain
  /// form (the rounding as a plain bound), so keeping the random part costs it nothing. Not
  /// kept where sigma exceeds that bound (after a short sum whose sound bound is the tighter,
  /// a random part wider than the value's bound would widen a later sum).
  Scalar with_sigma(Scalar s, double pdet, double sigma, double own_rounding) const;
  /// with_sigma for a smooth op's first-order part, with its own error of `ulps` at `magnitude`
  /// (mean-zero when correctly rounded, else a plain bound); the second-order rest is in pdet,
  /// and the generic bound caps the value's own.
  Scalar smooth_result(const Scalar& s, double pdet, double sigma, double magnitude, double ulps) const;
  /// A smooth one-operand op's result s with its first-order statistical part: the derivative
  /// over the exact operand (`slope`) and over the statistically widened one (`widened_slope`).
  Scalar first_order(const Scalar& s, const Closed& c, std::int64_t source, Iv slope, Iv widened_slope, double magnitude,
                     double ulps) const;
  /// The value closed, a shared value's random part closed to a plain bound (see the header).
  Closed close(const Scalar& a) const;
  /// The value closed, its random part as it is, also a shared value's.
  Closed close_raw(const Scalar& a) const;
  /// -1: not shared; 0: shared, the source unknown (its random part closed at every use); else
  /// the source its random part shares.
  static std::int64_t source_of(const Scalar& a);
  /// The random part closed to a plain bound: pdet = perr, sigma = 0, one more event.
  static Closed plain_random(const Closed& c);
  /// Operands of a linear or smooth op: random parts kept where their source is known and
  /// single (of two different sources the second's is closed); `source` the one kept, or -1.
  struct Operands {
    Closed a, b;
    std::int64_t source;
  };
  Operands operands(const Scalar& a, const Scalar& b) const;
  Closed operand(const Scalar& a, std::int64_t& source) const;
  /// s, marked as sharing `source` when it carries a random part (sigma) from it.
  static Scalar with_source(Scalar s, std::int64_t source);
  /// A sum's term: its random part admitted when its source exceeds `last` (then the new
  /// last, and `admitted` set), else closed; a value that is not shared as it is.
  Closed summand(const Scalar& a, std::uint32_t& last, bool& admitted) const;
  static Iv widened(Iv x, double e);
  Iv widened(const Closed& c) const { return widened(c.x, c.err); }
  Iv pwidened(const Closed& c) const { return widened(c.x, c.perr); }
  double allowance(double magnitude, double ulps) const;
  /// A closed value from the exact image x, the images r and rp of the operands widened by
  /// err and perr, and the op's own allowance.
  Scalar result(Iv x, Iv r, Iv rp, double ulps, std::uint8_t flags, float events) const;
  Scalar unary(const Scalar& a, Iv (*f)(Iv), double ulps) const;
  /// max's result s when the statistical tier cannot say which operand is larger (the header's
  /// "near a kink"): the operands' random parts kept, sqrt(2) wider in quadrature, and the
  /// kink's mean added to the plain part, where that plain part is below s's.
  Scalar max_near_kink(Scalar s, const Scalar& a, const Scalar& b) const;
  static constexpr double kSqrt2Above = 1.4142135623730951;  // the double above sqrt(2)
  // The ops on their operands' numbers: a value that may be NaN (kMayNaN) is read as its numbers
  // here; the public op adds the NaN (or_nan).
  Scalar add_numbers(const Scalar& a, const Scalar& b) const;
  Scalar sub_numbers(const Scalar& a, const Scalar& b) const;
  Scalar mul_numbers(const Scalar& a, const Scalar& b) const;
  Scalar div_numbers(const Scalar& a, const Scalar& b) const;
  Scalar normalized_div_numbers(const Scalar& a, const Scalar& b, bool exp_terms) const;
  Scalar centering_sub_numbers(const Scalar& x, const Scalar& mean) const;
  Scalar centered_square_numbers(const Scalar& c) const;
  Scalar neg_numbers(const Scalar& a) const;
  Scalar abs_numbers(const Scalar& a) const;
  Scalar max_numbers(const Scalar& a, const Scalar& b) const;
  Scalar min_numbers(const Scalar& a, const Scalar& b) const;
  Scalar exp_numbers(const Scalar& a) const;
  Scalar log_numbers(const Scalar& a) const;
  Scalar sqrt_numbers(const Scalar& a) const;
  Scalar rsqrt_numbers(const Scalar& a) const;
  Scalar tanh_numbers(const Scalar& a) const;
  Scalar logistic_numbers(const Scalar& a) const;
  Scalar map_monotone_numbers(const Scalar& a, const RationalMap& f) const;
  /// r, the result of an op on a and b: where either may be NaN, r or NaN (with_nan).
  Scalar or_nan(const Scalar& r, const Scalar& a, const Scalar& b = Scalar{}) const {
    return may_be_nan(a) || may_be_nan(b) ? with_nan(r) : r;
  }
  /// r or NaN: r marked kMayNaN; a NaN stays NaN; an infinity (or NaN) is unknown.
  Scalar with_nan(const Scalar& r) const;
  Scalar div_generic(const Closed& a, const Closed& b, std::uint8_t flags) const;
  Scalar positive_domain(const Scalar& a, Iv (*f)(Iv), double ulps, bool zero_allowed) const;
  /// positive_domain for a function smooth on x > 0 (log, sqrt, rsqrt), with its first-order
  /// statistical part from its derivative `slope` (as exp's).
  Scalar smooth_positive(const Scalar& a, Iv (*f)(Iv), Iv (*slope)(Iv), double ulps, bool zero_allowed) const;
  Scalar unknown(std::uint8_t flags) const;  // exact value not known at double precision: anything goes
  Closed close_sum(const Scalar& a) const;
  Scalar from_literal_value(const Literal& lit, const std::string& what) const;
  struct ProductOperand {
    double lo, hi, mag, err, pdet, sigma, perr;
    float events;
  };
  ProductOperand product_operand(const Closed& c) const;  // reduced (TF32, bf16) under those profiles
  ProductOperand product_operand(const Scalar& a) const { return product_operand(close(a)); }
  void add_product(Scalar& acc, const ProductOperand& a, const ProductOperand& b) const;
  /// The value as a sum's running accumulator: itself when already an open sum of its own,
  /// else a sum whose first term it is (a shared value with its random part closed).
  Scalar as_open_sum(const Scalar& acc) const;
  static Scalar opened(const Scalar& closed_value);
  /// A closed scalar from closed parts, with `flags` (but kOpenSum) and, when shared, `source`.
  Scalar from_closed(const Closed& c, std::uint8_t flags, std::uint32_t source = 0) const;
  void note_unbounded() const { unbounded_made_->store(true, std::memory_order_relaxed); }
  // Certain non-finite values (interp/bound/nonfinite.cpp; the header's last paragraph).
  enum class Binary : std::uint8_t { Add, Sub, Mul, Div, Max };
  enum class Unary : std::uint8_t { Neg, Abs, Exp, Log, Sqrt, Rsqrt, Other };
  /// A value of that kind (Finite excepted), keeping kMayFlip of `flags`.
  Scalar certain(Kind k, std::uint8_t flags, bool probable) const;
  /// a op b where a or b is nonfinite(): IEEE 754 on the certain values, else unknown.
  Scalar nonfinite_binary(Binary op, const Scalar& a, const Scalar& b) const;
  Scalar nonfinite_unary(Unary op, const Scalar& a) const;
  /// +1 or -1: every float evaluation of a finite-bounded value has that sign and is at least
  /// 2^-126 in magnitude (so no flush makes it 0), or every one but for an improbable event (the
  /// statistical bound: noted); 0: it is exactly 0; 2: unknown.
  int certain_sign(const Scalar& a, bool& probable) const;
  /// The kind of a * b (a or b nonfinite()); `probable` set when it rests on the statistical tier.
  Kind product_kind(const Scalar& a, const Scalar& b, bool& probable) const;
  /// A float comparison where a or b is nonfinite(): 1 or 0 when every evaluation decides it so
  /// (NaN: false but NE; an infinity against a finite value or another infinity), else -1.
  int nonfinite_compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  /// A sum's kind from its terms' bits (kSumPosInf, ...), its unbounded flag and finite part.
  Kind sum_kind(const Scalar& a, bool& probable) const;
  /// Counts a term of kind k into the open sum acc (Finite: nothing).
  void add_nonfinite_term(Scalar& acc, Kind k, bool probable, bool large = false) const;
  /// Whether a +inf value's exact value is at least FLT_MAX (kLargeMark, kSumLargePosInf).
  static bool large(const Scalar& a) { return a.terms & kLargeMark; }
  /// Adds x, an unbounded value marked kNonNegativeFloat, to the open sum acc: its exact and
  /// statistical parts as any term's, its sound error left out (kSumNonNegative instead).
  void add_nonnegative_term(Scalar& acc, const Scalar& x) const;
  /// Adds x, a kProbablePosInfNonNegative value, to the open sum acc: soundly a nonnegative term
  /// (kSumNonNegative), statistically +inf (kSumProbablePosInf).
  void add_probable_overflow(Scalar& acc, const Scalar& x) const;
  /// One more term in the open sum acc's count; past kTermCount, acc is unbounded in both tiers.
  void count_term(Scalar& acc) const;
  /// A closed nonfinite() value as an accumulator: an open sum of no terms but its bit.
  Scalar opened_nonfinite(const Scalar& acc) const;
  /// The products of matmul_accumulate whose operand A[m][k] or B[k][n] is nonfinite() (those
  /// the numeric loop skipped), counted into C.
  void nonfinite_products(const Scalar* A, const Scalar* B, Scalar* C, std::int64_t M, std::int64_t K, std::int64_t N,
                          const std::vector<std::uint8_t>& a_special, const std::vector<std::uint8_t>& b_special) const;
  FloatProfile profile_;
  double product_floor_;  // a product's underflow (or flush) error, at most
  double lambda_;
  double operand_unit_;   // the statistical model's unit roundoff of an operand conversion (0: none)
  double product_unit2_;  // a product's squared steps per f^2: u^2 + 2 u_op^2 (1 + u_op)^2, rounded up
  double operand_growth_;  // (1 + u_op)^2 rounded up: a product of converted operands over the product
  std::shared_ptr<std::atomic<bool>> unbounded_made_;  // shared by copies
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
// a - b rounded up, where a >= b is meant; equal infinities give 0.
inline double gap(double a, double b) {
  if (a == b) return 0;
  const double d = a - b;
  return d != d ? kInf : std::max(0.0, up(d));
}
// A non-negative bound stored as a float, rounded up (+inf beyond the float range).
inline float up_float(double b) {
  const float f = static_cast<float>(b);
  return static_cast<double>(f) >= b ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
}
}  // namespace bound_detail

inline BoundDomain::Closed BoundDomain::closed_value(Iv x, double err, double pdet, double sigma, float events, double cap) const {
  return {x, err, pdet, sigma, std::min(std::min(err, cap), bound_detail::up_sum(pdet, bound_detail::up_mul(lambda_, sigma))), events};
}

inline BoundDomain::Closed BoundDomain::plain_random(const Closed& c) {
  if (c.sigma == 0) return c;
  return {c.x, c.err, c.perr, 0, c.perr, c.events + 1};
}

inline BoundDomain::Closed BoundDomain::close_raw(const Scalar& a) const {
  if (!(a.flags & kOpenSum))
    return closed_value({a.lo, a.hi}, a.err, a.pdet, a.st.sigma, a.events, a.flags & kPlainCap ? a.st.lo : bound_detail::kInf);
  return close_sum(a);
}

inline std::int64_t BoundDomain::source_of(const Scalar& a) {
  if (a.flags & kShared) return a.source();
  return a.flags & kSharedTerms ? 0 : -1;
}

inline BoundDomain::Closed BoundDomain::close(const Scalar& a) const {
  const Closed c = close_raw(a);
  return source_of(a) >= 0 ? plain_random(c) : c;
}

inline BoundDomain::Closed BoundDomain::summand(const Scalar& a, std::uint32_t& last, bool& admitted) const {
  const std::int64_t source = source_of(a);
  const Closed c = close_raw(a);
  if (source < 0 || c.sigma == 0) return c;
  if (source > static_cast<std::int64_t>(last)) {
    last = static_cast<std::uint32_t>(source);
    admitted = true;
    return c;
  }
  return plain_random(c);
}

inline BoundScalar BoundDomain::as_open_sum(const Scalar& acc) const {
  if ((acc.flags & (kOpenSum | kShared)) == kOpenSum) return acc;
  if (!(acc.flags & kOpenSum) && nonfinite(acc)) return opened_nonfinite(acc);
  if (!(acc.flags & (kShared | kSharedTerms))) return opened(acc);
  // A shared value is rebuilt from its closed parts, which hold no "or NaN".
  Scalar s = opened(from_closed(close(acc), acc.flags & ~(kShared | kSharedTerms)));
  s.terms |= acc.terms & kMayNaN;
  return s;
}

inline Iv BoundDomain::widened(Iv x, double e) {
  using namespace bound_detail;
  if (e == 0) return x;
  if (e == kInf) return {-kInf, kInf};
  return {down(x.lo - e), up(x.hi + e)};
}

inline double BoundDomain::allowance(double magnitude, double ulps) const {
  using namespace bound_detail;
  double a = up(ulps * std::max(magnitude * 0x1p-23, 0x1p-149));
  if (profile_.flush_to_zero) a = up(a + 0x1p-126);
  return a;
}

inline BoundDomain::ProductOperand BoundDomain::product_operand(const Closed& closed) const {
  using namespace bound_detail;
  Closed c = closed;
  // Sound: truncated to operand_bits stored mantissa bits. Statistical: the conversion's
  // error is a random step of the sum (add_product's variance), not part of perr.
  if (profile_.reduced_operands()) c.err = up(c.err + up(up(mag(c.x) + c.err) * std::ldexp(1.0, -profile_.operand_bits)));
  return {c.x.lo, c.x.hi, mag(c.x), c.err, c.pdet, c.sigma, c.perr, c.events};
}

inline void BoundDomain::add_product(Scalar& s, const ProductOperand& a, const ProductOperand& b) const {
  const double f = (a.mag + a.err) * (b.mag + b.err);  // bounds |float a * float b|
  const bool nonzero = f != 0;  // an exact zero term (padding, relu's zeros) adds nothing: branch-free
  const double p1 = a.lo * b.lo, p2 = a.lo * b.hi, p3 = a.hi * b.lo, p4 = a.hi * b.hi;  // branch-free
  s.lo += std::min(std::min(p1, p2), std::min(p3, p4));
  s.hi += std::max(std::max(p1, p2), std::max(p3, p4));
  s.sum.abssum += a.mag * b.mag;
  // |a~ b~ - a b| <= |a| eb + ea |b| + ea eb, then the product's rounding, 2^-24 |a~ b~|,
  // plus its underflow floor. The statistical tier: the inherited error, the product's
  // rounding and the operands' conversions are steps of the sum's martingale.
  const double floor = nonzero ? product_floor_ : 0.0;
  const double inherited = a.mag * b.sigma + a.sigma * b.mag;  // its sub-Gaussian part
  s.err += a.mag * b.err + a.err * b.mag + a.err * b.err + 0x1p-24 * f + floor;
  const double pf = (a.mag + a.perr) * (b.mag + b.perr) * operand_growth_;  // |product| in the statistical tier
  s.pdet += static_cast<float>(a.mag * b.pdet + a.pdet * b.mag + a.perr * b.perr + floor);
  s.sum.magsum += f * (1 + 0x1p-24);
  s.sum.variance += inherited * inherited + product_unit2_ * (pf * pf);
  s.events += a.events + b.events;
  s.terms += nonzero;
}

inline void BoundDomain::mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
  acc = as_open_sum(acc);
  acc.terms |= (a.terms | b.terms) & kMayNaN;  // NaN times anything, 0 too, is NaN
  if (nonfinite(a) || nonfinite(b)) {
    bool probable = false;
    const Kind k = product_kind(a, b, probable);
    add_nonfinite_term(acc, k, probable);
    return;
  }
  acc.flags |= (a.flags | b.flags) & (kMayFlip | kUnbounded);
  std::uint32_t last = acc.source();
  bool admitted = false;
  const ProductOperand x = product_operand(summand(a, last, admitted));
  const ProductOperand y = product_operand(summand(b, last, admitted));
  if ((acc.terms & kTermCount) >= kTermCount - 1) {  // the count would reach the marker bits
    count_term(acc);
    return;
  }
  add_product(acc, x, y);
  acc.set_source(last);
  if (admitted) acc.flags |= kSharedTerms;
}

}  // namespace shlo
