// Certain non-finite values in the bound analysis (interp/bound/bound.hpp, the header's last
// paragraph): where every float evaluation under the profile gives +inf, -inf or NaN, the value
// says so and later ops follow IEEE 754 (section 7: invalid operations give NaN; an infinity
// operand gives an exact infinity where the result is one). A program whose softmax takes exp of
// logits in the hundreds (no max subtracted) then has NaN outputs in every float32 evaluation,
// which the check can say instead of "no verdict". What these rules cannot decide is unknown.
// Also here: a value that may be NaN besides its numbers (with_nan; the header's "values that may
// be NaN").
#include <cmath>
#include <limits>

#include "interp/bound/bound.hpp"

namespace shlo {

using namespace bound_detail;

namespace {
using Kind = BoundDomain::Kind;

bool infinite(Kind k) { return k == Kind::PosInf || k == Kind::NegInf; }
int sign_of(Kind k) { return k == Kind::PosInf ? 1 : -1; }
Kind inf_of_sign(int sign) { return sign > 0 ? Kind::PosInf : Kind::NegInf; }
Kind negated(Kind k) { return k == Kind::PosInf ? Kind::NegInf : k == Kind::NegInf ? Kind::PosInf : k; }

// The smallest float magnitude that no flush to zero (denormal operands, reduced formats) can
// make 0.
constexpr double kSmallestNormal = 0x1p-126;
}  // namespace

BoundDomain::Kind BoundDomain::kind(const Scalar& a) const {
  if (a.flags & kOpenSum) {
    bool probable = false;
    return sum_kind(a, probable);
  }
  if ((a.flags & kCertainNaN) == kCertainNaN) return Kind::NaN;
  if (marker(a) == kCertainPosInf || probable_overflow(a)) return Kind::PosInf;
  if (marker(a) == kCertainNegInf) return Kind::NegInf;
  if (a.lo == a.hi && std::isinf(a.lo) && a.err == 0) return a.lo > 0 ? Kind::PosInf : Kind::NegInf;  // an exact infinity
  return a.err < kInf && std::isfinite(a.lo) && std::isfinite(a.hi) ? Kind::Finite : Kind::Unknown;
}

bool BoundDomain::probable(const Scalar& a) const {
  if (!nonfinite(a)) return false;
  bool probable = false;
  if (a.flags & kOpenSum) sum_kind(a, probable);
  return probable || (!(a.flags & kOpenSum) && (a.terms & kProbableMark));
}

BoundScalar BoundDomain::certain(Kind k, std::uint8_t flags, bool probable) const {
  const auto carried = static_cast<std::uint8_t>(flags & kMayFlip);
  Scalar s = unknown(carried);
  if (k == Kind::NaN) s.flags |= kCertainNaN;  // the stat bytes stay 0: no gap, no cap
  if (infinite(k)) s.terms = k == Kind::PosInf ? kCertainPosInf : kCertainNegInf;
  if (probable && k != Kind::Finite && k != Kind::Unknown) s.terms |= kProbableMark;
  return s;
}

int BoundDomain::certain_sign(const Scalar& a, bool& probable) const {
  const Closed c = close(a);
  if (c.x.lo == 0 && c.x.hi == 0 && c.err == 0) return 0;
  const Iv r = widened(c);
  if (r.lo >= kSmallestNormal) return 1;
  if (r.hi <= -kSmallestNormal) return -1;
  if (!(c.perr < kInf)) return 2;
  const Iv p = pwidened(c);  // the statistical tier's sign, but for an improbable event
  const int sign = p.lo >= kSmallestNormal ? 1 : p.hi <= -kSmallestNormal ? -1 : 2;
  if (sign != 2) probable = true;
  return sign;
}

BoundScalar BoundDomain::with_nan(const Scalar& r) const {
  const Kind k = kind(r);
  if (k == Kind::NaN) return r;  // NaN either way
  // An infinity or NaN, or a value marked as possibly overflowing: nothing this type can say.
  if (k == Kind::PosInf || k == Kind::NegInf || (!(r.flags & kOpenSum) && marker(r) != 0)) return unknown(r.flags);
  Scalar s = r;
  s.terms |= kMayNaN;
  return s;
}

BoundScalar BoundDomain::nonfinite_binary(Binary op, const Scalar& a, const Scalar& b) const {
  const std::uint8_t flags = a.flags | b.flags;
  bool p = probable(a) || probable(b);
  Kind ka = kind(a), kb = kind(b);
  if (ka == Kind::NaN || kb == Kind::NaN)  // NaN in, NaN out (max too: IEEE maximum); a sound NaN decides it alone
    return certain(Kind::NaN, flags, !((ka == Kind::NaN && !probable(a)) || (kb == Kind::NaN && !probable(b))));
  if (ka == Kind::Unknown || kb == Kind::Unknown) return unknown(flags);
  if (ka == Kind::Finite && kb == Kind::Finite) return unknown(flags);  // not reached: one is not finite
  switch (op) {
    case Binary::Sub:
      kb = negated(kb);
      [[fallthrough]];
    case Binary::Add:
      if (infinite(ka) && infinite(kb) && ka != kb) return certain(Kind::NaN, flags, p);  // inf - inf
      return certain(infinite(ka) ? ka : kb, flags, p);  // inf + finite, in any rounding
    case Binary::Mul: return certain(product_kind(a, b, p), flags, p);
    case Binary::Div: {
      if (infinite(ka) && infinite(kb)) return certain(Kind::NaN, flags, p);  // inf / inf
      if (infinite(kb)) return unknown(flags);  // finite / inf: a signed zero, whose exact value is not 0
      const int sb = certain_sign(b, p);  // inf / finite
      if (sb == 0 || sb == 2) return unknown(flags);
      return certain(inf_of_sign(sign_of(ka) * sb), flags, p);
    }
    case Binary::Max:
      if (ka == Kind::PosInf || kb == Kind::PosInf) return certain(Kind::PosInf, flags, p);
      if (ka == Kind::NegInf) return b;  // max(-inf, y) = y, as it is
      return a;
  }
  return unknown(flags);
}

BoundScalar BoundDomain::nonfinite_unary(Unary op, const Scalar& a) const {
  const Kind k = kind(a);
  const bool p = probable(a);
  if (k == Kind::NaN) return certain(Kind::NaN, a.flags, p);
  if (!infinite(k)) return unknown(a.flags);
  switch (op) {
    case Unary::Neg: return certain(negated(k), a.flags, p);
    case Unary::Abs: return certain(Kind::PosInf, a.flags, p);
    case Unary::Exp: return k == Kind::PosInf ? certain(k, a.flags, p) : unknown(a.flags);  // exp(-inf) = 0, not the exact value
    case Unary::Log:
    case Unary::Sqrt: return k == Kind::PosInf ? certain(k, a.flags, p) : certain(Kind::NaN, a.flags, p);
    case Unary::Rsqrt: return k == Kind::PosInf ? unknown(a.flags) : certain(Kind::NaN, a.flags, p);
    case Unary::Other: break;  // tanh, logistic, converts: a finite float, not the exact value
  }
  return unknown(a.flags);
}

BoundDomain::Kind BoundDomain::product_kind(const Scalar& a, const Scalar& b, bool& p) const {
  const Kind ka = kind(a), kb = kind(b);
  if (nonfinite(a) || nonfinite(b)) p = p || probable(a) || probable(b);
  if (ka == Kind::NaN || kb == Kind::NaN) return Kind::NaN;
  if (!infinite(ka) && !infinite(kb)) return ka == Kind::Finite && kb == Kind::Finite ? Kind::Finite : Kind::Unknown;
  if (ka == Kind::Unknown || kb == Kind::Unknown) return Kind::Unknown;
  const int sa = infinite(ka) ? sign_of(ka) : certain_sign(a, p), sb = infinite(kb) ? sign_of(kb) : certain_sign(b, p);
  if (sa == 0 || sb == 0) return Kind::NaN;
  if (sa == 2 || sb == 2) return Kind::Unknown;
  return inf_of_sign(sa * sb);
}

int BoundDomain::nonfinite_compare(CompareDirection d, const Scalar& a, const Scalar& b) const {
  const Kind ka = kind(a), kb = kind(b);
  if (ka == Kind::NaN || kb == Kind::NaN) return d == CompareDirection::NE ? 1 : 0;  // IEEE 754, 5.11
  if (ka == Kind::Unknown || kb == Kind::Unknown || (ka == Kind::Finite && kb == Kind::Finite)) return -1;
  // An infinity against a finite value (any: 0 stands for it) or another infinity.
  const double x = infinite(ka) ? sign_of(ka) * kInf : 0, y = infinite(kb) ? sign_of(kb) * kInf : 0;
  return holds(d, x, y) ? 1 : 0;
}

BoundDomain::Kind BoundDomain::sum_kind(const Scalar& a, bool& probable) const {
  const bool pos = a.flags & kSumPosInf, neg = a.flags & kSumNegInf, nonnegative = a.flags & kSumNonNegative;
  if (pos && neg) return Kind::NaN;  // a NaN term, or inf - inf: NaN absorbs every later term
  // The terms with finite bounds (the nonnegative ones' sound errors are not in the numeric part):
  // no partial sum of theirs overflows.
  Scalar finite = a;
  finite.flags &= static_cast<std::uint8_t>(~(kSumCertain | kSumNonNegative));
  finite.terms &= ~(kSumProbable | kSumLargePosInf);
  const Closed rest = close_sum(finite);
  const bool bounded = !(a.flags & kUnbounded) && rest.err < kInf;
  const bool ppos = a.terms & kSumProbablePosInf, pneg = a.terms & kSumProbableNegInf;
  if (!pos && !neg && !ppos && !pneg) return bounded && !nonnegative ? Kind::Finite : Kind::Unknown;
  // Sound: +inf + (finite, or at least 0, or +inf) = +inf. A probable term other than an exp of a
  // bounded operand is unknown here (kUnbounded).
  if ((pos || neg) && bounded && !(neg && nonnegative)) return pos ? Kind::PosInf : Kind::NegInf;
  // Statistical: every probable term as its infinity, the rest bounded in that tier.
  const bool any_pos = pos || ppos, any_neg = neg || pneg;
  Kind k = Kind::Unknown;
  if (any_pos && any_neg)
    k = Kind::NaN;
  else if (!(any_neg && nonnegative) && rest.perr < kInf && std::isfinite(rest.x.lo) && std::isfinite(rest.x.hi))
    k = any_pos ? Kind::PosInf : Kind::NegInf;
  if (k != Kind::Unknown) probable = true;
  return k;
}

void BoundDomain::add_nonfinite_term(Scalar& acc, Kind k, bool probable, bool large) const {
  if (k == Kind::Finite) return;
  if (k == Kind::Unknown || probable) {  // soundly unknown: an infinity of either sign or NaN, or a finite number
    if (!(acc.flags & kUnbounded)) note_unbounded();
    acc.flags |= kUnbounded;
  }
  if (k == Kind::Unknown) {  // nor bounded statistically
    acc.pdet = std::numeric_limits<float>::infinity();
    return;
  }
  const bool plus = k == Kind::PosInf || k == Kind::NaN, minus = k == Kind::NegInf || k == Kind::NaN;
  if (large && k == Kind::PosInf) acc.terms |= kSumLargePosInf;
  if (probable) {
    acc.terms |= (plus ? kSumProbablePosInf : 0) | (minus ? kSumProbableNegInf : 0);
  } else {
    acc.flags |= (plus ? kSumPosInf : 0) | (minus ? kSumNegInf : 0);
  }
}

void BoundDomain::add_probable_overflow(Scalar& acc, const Scalar& x) const {
  acc.flags |= kSumNonNegative | (x.flags & kMayFlip);  // soundly at least 0 or +inf; its numbers left out
  acc.terms |= kSumProbablePosInf | (x.terms & kLargeMark);
}

void BoundDomain::add_nonnegative_term(Scalar& acc, const Scalar& x) const {
  acc.flags |= kSumNonNegative | (x.flags & kMayFlip);
  std::uint32_t last = acc.source();
  bool admitted = false;
  const Closed cx = summand(x, last, admitted);
  acc.set_source(last);
  if (admitted) acc.flags |= kSharedTerms;
  if (!(std::isfinite(cx.x.lo) && std::isfinite(cx.x.hi) && cx.perr < kInf)) {
    acc.pdet = std::numeric_limits<float>::infinity();  // its statistical bound infinite: the sum's too
    return;
  }
  acc.lo += cx.x.lo;
  acc.hi += cx.x.hi;
  acc.sum.abssum += mag(cx.x);
  acc.sum.variance += cx.sigma * cx.sigma;
  acc.pdet += static_cast<float>(cx.pdet);
  acc.events += cx.events;
  count_term(acc);
}

void BoundDomain::count_term(Scalar& acc) const {
  if ((acc.terms & kTermCount) < kTermCount) {
    acc.terms += 1;
    return;
  }
  if (!(acc.flags & kUnbounded)) note_unbounded();
  acc.flags |= kUnbounded;
  acc.pdet = std::numeric_limits<float>::infinity();
}

BoundScalar BoundDomain::opened_nonfinite(const Scalar& acc) const {
  Scalar s = opened(Scalar{});
  s.flags |= acc.flags & kMayFlip;
  add_nonfinite_term(s, kind(acc), probable(acc), large(acc));
  return s;
}

void BoundDomain::nonfinite_products(const Scalar* A, const Scalar* B, Scalar* C, std::int64_t M, std::int64_t K, std::int64_t N,
                                     const std::vector<std::uint8_t>& a_special, const std::vector<std::uint8_t>& b_special) const {
  std::vector<std::vector<std::int64_t>> row_ks(static_cast<std::size_t>(M)), column_ks(static_cast<std::size_t>(N));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t k = 0; k < K; ++k)
      if (a_special[static_cast<std::size_t>(m * K + k)]) row_ks[static_cast<std::size_t>(m)].push_back(k);
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t n = 0; n < N; ++n)
      if (b_special[static_cast<std::size_t>(k * N + n)]) column_ks[static_cast<std::size_t>(n)].push_back(k);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      const auto& rk = row_ks[static_cast<std::size_t>(m)];
      const auto& ck = column_ks[static_cast<std::size_t>(n)];
      if (rk.empty() && ck.empty()) continue;
      Scalar& c = C[m * N + n];
      auto count = [&](std::int64_t k) {
        if ((c.flags & kSumCertain) == kSumCertain) return;  // NaN already
        bool probable = false;
        const Kind kind = product_kind(A[m * K + k], B[k * N + n], probable);
        add_nonfinite_term(c, kind, probable);
      };
      for (std::int64_t k : rk) count(k);
      for (std::int64_t k : ck)
        if (!a_special[static_cast<std::size_t>(m * K + k)]) count(k);  // not counted twice
    }
}

}  // namespace shlo
