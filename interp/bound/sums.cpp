// Sums in any order in the bound analysis (interp/bound/bound.hpp, the header's "sums in any
// order"): the open sum's running totals, closing it into a value with both tiers' bounds, and
// the folds that add terms (dot_general's and convolution's products, reduce's accumulate).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "interp/bound/bound.hpp"

namespace shlo {

using namespace bound_detail;

BoundScalar BoundDomain::opened(const Scalar& v) {
  Scalar s = v;  // a closed value becomes the sum's first term (an exact 0, no term at all)
  s.flags = static_cast<std::uint8_t>((v.flags & ~kStatBytes) | kOpenSum);
  s.set_source(0);  // no shared term admitted yet (as_open_sum closed a shared first term)
  const double m = mag({v.lo, v.hi});
  const double sigma = v.st.sigma;
  s.sum = SumTotals{};
  s.sum.abssum = m;
  s.sum.magsum = m + v.err;
  s.sum.variance = sigma * sigma;  // its inherited error's random part
  s.terms = (s.sum.magsum == 0 ? 0 : 1) | (v.terms & kMayNaN);
  if (!std::isfinite(s.sum.magsum)) s.flags |= kUnbounded;
  return s;
}

BoundDomain::Closed BoundDomain::close_sum(const Scalar& a) const {
  // The running sums were rounded to nearest: at most 2 roundings per term (a product and an
  // addition) of relative size 2^-53, so c = (2n + 4) 2^-53 covers them; pdet and events
  // were summed in float: 2n + 2 roundings of 2^-24 at most.
  if ((a.flags & kSumCertain) || (a.terms & kSumProbable)) {  // a certain infinity or NaN among the terms: BoundDomain::kind says which
    return {{-kInf, kInf}, kInf, kInf, 0, kInf, a.events};
  }
  const std::uint32_t count = a.terms & kTermCount;
  const double n = static_cast<double>(count);
  const double c = up((2 * n + 4) * 0x1p-53);
  const double float_sums = up(1 + gamma_f32(2 * count + 2));
  const double widen = up(up(a.sum.abssum * c) * (1 + c));
  Closed out{{down(a.lo - widen), up(a.hi + widen)}, 0, 0, 0, 0, up_float(a.events * float_sums) + (count >= 1 ? 1.0f : 0.0f)};
  // A term 0 * inf, or infinities of both signs, leave no real sum: the whole line encloses it.
  if (!(out.x.lo <= out.x.hi)) out.x = {-kInf, kInf};
  // A term whose sound bound is infinite (its float value may overflow) leaves the sum's sound
  // bound infinite; the statistical tier reads only the terms' exact magnitudes and their
  // statistical parts, so it carries on while those are finite (the header's "unbounded").
  const bool sound_unbounded =
      a.flags & (kUnbounded | kSumNonNegative) || !std::isfinite(a.sum.magsum) || !std::isfinite(a.err);
  const bool stat_finite = std::isfinite(out.x.lo) && std::isfinite(out.x.hi) && std::isfinite(a.sum.abssum) &&
                           std::isfinite(a.pdet) && std::isfinite(a.sum.variance);
  if (sound_unbounded && !stat_finite) {
    out.err = out.pdet = out.perr = kInf;
    return out;
  }
  const double flush = profile_.flush_to_zero ? count * 0x1p-126 : 0;  // a partial sum flushed to zero
  const double gamma = gamma_f32(count > 0 ? count - 1 : 0);
  const double magsum = up_mul(a.sum.magsum, 1 + c);
  out.err = sound_unbounded ? kInf : up_sum(up_sum(up_mul(a.err, 1 + c), up_mul(gamma, magsum)), flush);
  if (up(mag(out.x) + out.err) > kFloatMax) out.err = kInf;
  // The statistical tier: Azuma-Hoeffding over the sum's steps (see the header).
  // Every partial sum, in any order, of the computed terms t~ is at most the larger of their
  // positive part P and negative part N, plus the additions' errors (gamma sum |t~|); and
  // max(P, N) = (sum |t~| + |sum t~|) / 2, with |sum t~| within the exact sum's magnitude plus
  // the terms' errors. For terms of both signs about half of sum |t~|.
  const double term_sum = up_sum(mag(out.x), up_mul(a.err, 1 + c));  // bounds |sum t~|
  const double larger_part = std::min(magsum, up(0.5 * up_sum(magsum, term_sum)));
  const double partial = sound_unbounded ? kInf : up_sum(larger_part, up_mul(gamma, magsum));
  // The same from the terms' statistical bounds (the header): sum |t~| within pmag, and
  // sum |t~ - t| within pmag less sum |t|.
  out.pdet = up_sum(up_mul(a.pdet, float_sums * (1 + c)), flush);
  const double spread = up_sum(out.pdet, up_mul(lambda_, up(std::sqrt(up_mul(n, up_mul(a.sum.variance, 1 + c))))));
  const double pmag = up_mul(up_sum(up_mul(a.sum.abssum, 1 + c), spread), up(operand_growth_ * (1 + 0x1p-24)));
  const double pterm_sum = up_sum(mag(out.x), gap(pmag, down(a.sum.abssum * (1 - c))));
  const double plarger_part = std::min(pmag, up(0.5 * up_sum(pmag, pterm_sum)));
  const double ppartial = up_sum(plarger_part, up_mul(gamma, pmag));
  const double step = std::min(partial, ppartial);
  const double additions = count > 1 ? up_mul(0x1p-48, up_mul(n - 1, up_mul(step, step))) : 0;
  const double variance = up_sum(additions, up_mul(a.sum.variance, 1 + c));
  out.sigma = up(std::sqrt(variance));
  // A partial sum beyond the float range may overflow in some order, though the whole sum fits:
  // `partial` bounds them all, `step` all but improbably.
  if (partial > kFloatMax) out.err = kInf;
  if (step > kFloatMax) {
    out.pdet = out.perr = kInf;
    out.sigma = 0;
  } else {
    out.perr = std::min(out.err, up_sum(out.pdet, up_mul(lambda_, out.sigma)));
  }
  if (out.err == kInf) note_unbounded();
  return out;
}

BoundScalar BoundDomain::from_closed(const Closed& c, std::uint8_t flags, std::uint32_t source) const {
  Scalar s;
  s.lo = c.x.lo;
  s.hi = c.x.hi;
  s.err = c.err;
  s.pdet = up_float(c.pdet);
  s.st = ClosedStat{c.sigma, 0, 0, 0, 0};
  s.events = c.events;
  s.flags = static_cast<std::uint8_t>((flags & ~(kOpenSum | kStatBytes)) | (c.err == kInf ? kUnbounded : 0));
  if (c.perr < c.err && c.perr < up_sum(c.pdet, up_mul(lambda_, c.sigma))) {  // a cap it had
    s.flags |= kPlainCap;
    s.st.lo = up_float(c.perr);
  }
  if (s.flags & kShared) s.set_source(source);
  return s;
}

BoundScalar BoundDomain::closed(const Scalar& a) const {
  if (!(a.flags & kOpenSum)) return a;
  if (nonfinite(a)) {
    bool probable = false;
    const Kind k = sum_kind(a, probable);
    Scalar s = certain(k, a.flags, probable);
    if (k == Kind::PosInf && (a.terms & kSumLargePosInf)) s.terms |= kLargeMark;
    return may_be_nan(a) ? with_nan(s) : s;
  }
  // A shared open sum stays shared (its copies still share one error), and one that admitted
  // shared terms becomes shared with an unknown source: its sigma as computed.
  const std::int64_t source = source_of(a);
  const std::uint8_t flags = static_cast<std::uint8_t>((a.flags & ~kSharedTerms) | (source >= 0 ? kShared : 0));
  const Scalar s = from_closed(close_sum(a), flags, source > 0 ? static_cast<std::uint32_t>(source) : 0);
  return may_be_nan(a) ? with_nan(s) : s;
}

void BoundDomain::matmul_accumulate(const Scalar* A, const Scalar* B, Scalar* C, std::int64_t M, std::int64_t K, std::int64_t N) const {
  // Each product adds one to its sum's term count (add_product, unchecked in the loop below): a
  // call that could carry a count into the marker bits is beyond the analysis.
  std::uint32_t most = 0;
  for (std::int64_t i = 0; i < M * N; ++i) most = std::max(most, C[i].terms & kTermCount);
  if (K >= static_cast<std::int64_t>(kTermCount - most))
    throw DomainError(name() + ": a sum of " + std::to_string(K) + " products, more than the bound analysis counts");
  const auto um = static_cast<std::size_t>(M), un = static_cast<std::size_t>(N);
  std::vector<ProductOperand> a(um * static_cast<std::size_t>(K)), b(static_cast<std::size_t>(K) * un), b_closed;
  std::vector<std::uint8_t> row_flags(um, 0), column_flags(un, 0);
  constexpr std::uint8_t kCarried = kMayFlip | kUnbounded;
  // Shared terms (see the header): a sum C[m][n] admits those of row m of A while their
  // sources increase along k, or, when that row admits none, those of column n of B. (Per row
  // and per column, so a split of the rows over threads changes nothing.) Sums that already
  // admitted some before this call admit no more.
  bool continues = false;
  for (std::int64_t i = 0; i < M * N; ++i) continues |= (C[i].flags & (kOpenSum | kSharedTerms)) == (kOpenSum | kSharedTerms);
  std::vector<std::uint32_t> row_last(um, 0), column_last(un, 0);
  std::vector<std::uint8_t> row_admits(um, 0), column_admits(un, 0);
  // Certain infinities and NaN (nonfinite.cpp) are left out of the loop below (their operand a
  // zero) and counted into C by nonfinite_products.
  std::vector<std::uint8_t> a_special, b_special;
  bool specials = false;
  for (std::int64_t i = 0; i < M * K && !specials; ++i) specials = nonfinite(A[i]);
  for (std::int64_t i = 0; i < K * N && !specials; ++i) specials = nonfinite(B[i]);
  if (specials) {
    a_special.resize(um * static_cast<std::size_t>(K));
    b_special.resize(static_cast<std::size_t>(K) * un);
    for (std::int64_t i = 0; i < M * K; ++i) a_special[static_cast<std::size_t>(i)] = nonfinite(A[i]);
    for (std::int64_t i = 0; i < K * N; ++i) b_special[static_cast<std::size_t>(i)] = nonfinite(B[i]);
  }
  for (std::int64_t m = 0; m < M; ++m) {
    bool admitted = false;
    for (std::int64_t k = 0; k < K; ++k) {
      const Scalar& x = A[m * K + k];
      if (specials && a_special[static_cast<std::size_t>(m * K + k)]) continue;  // a zero operand
      a[static_cast<std::size_t>(m * K + k)] = continues ? product_operand(x) : product_operand(summand(x, row_last[static_cast<std::size_t>(m)], admitted));
      row_flags[static_cast<std::size_t>(m)] |= x.flags & kCarried;
    }
    row_admits[static_cast<std::size_t>(m)] = admitted;
  }
  // A row k of B with an infinite entry: a zero of A meets it in a product 0 * inf, a NaN in
  // float, so zeros of A in column k may not be skipped below.
  std::vector<std::uint8_t> meets_infinity(static_cast<std::size_t>(K), 0);
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t n = 0; n < N; ++n) {
      const Scalar& x = B[k * N + n];
      if (specials && b_special[static_cast<std::size_t>(k * N + n)]) continue;  // a zero operand
      bool admitted = false;
      const ProductOperand& y = b[static_cast<std::size_t>(k * N + n)] =
          continues ? product_operand(x) : product_operand(summand(x, column_last[static_cast<std::size_t>(n)], admitted));
      column_admits[static_cast<std::size_t>(n)] |= admitted;
      column_flags[static_cast<std::size_t>(n)] |= x.flags & kCarried;
      meets_infinity[static_cast<std::size_t>(k)] |= !(y.mag + y.err < kInf);
    }
  const bool some_column_admits = std::find(column_admits.begin(), column_admits.end(), 1) != column_admits.end();
  const bool some_row_admits = std::find(row_admits.begin(), row_admits.end(), 1) != row_admits.end();
  if (some_column_admits && some_row_admits) {  // B with every shared random part closed, for those rows
    b_closed.resize(b.size());
    for (std::int64_t i = 0; i < K * N; ++i)
      if (!specials || !b_special[static_cast<std::size_t>(i)]) b_closed[static_cast<std::size_t>(i)] = product_operand(B[i]);
  }
  // A product with an operand that may be NaN may be NaN (0 * NaN too): its sum may be.
  std::vector<std::uint8_t> row_nan(um, 0), column_nan(un, 0);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t k = 0; k < K; ++k) row_nan[static_cast<std::size_t>(m)] |= may_be_nan(A[m * K + k]);
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t n = 0; n < N; ++n) column_nan[static_cast<std::size_t>(n)] |= may_be_nan(B[k * N + n]);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      Scalar& c = C[m * N + n];
      c = as_open_sum(c);
      if (row_nan[static_cast<std::size_t>(m)] || column_nan[static_cast<std::size_t>(n)]) c.terms |= kMayNaN;
      c.flags |= row_flags[static_cast<std::size_t>(m)] | column_flags[static_cast<std::size_t>(n)];
      const bool by_row = row_admits[static_cast<std::size_t>(m)], by_column = !by_row && column_admits[static_cast<std::size_t>(n)];
      if (by_row || by_column) {
        c.flags |= kSharedTerms;
        c.set_source(by_row ? row_last[static_cast<std::size_t>(m)] : column_last[static_cast<std::size_t>(n)]);
      }
    }
  constexpr std::int64_t kTile = 64;  // a K x 64 block of B stays in cache across the rows
  for (std::int64_t n0 = 0; n0 < N; n0 += kTile) {
    const std::int64_t n1 = std::min(N, n0 + kTile);
    for (std::int64_t m = 0; m < M; ++m) {
      const ProductOperand* b_row = row_admits[static_cast<std::size_t>(m)] && !b_closed.empty() ? b_closed.data() : b.data();
      for (std::int64_t k = 0; k < K; ++k) {
        const ProductOperand& x = a[static_cast<std::size_t>(m * K + k)];
        // Every product of this row is an exact 0, unless it meets an infinity.
        if (x.mag == 0 && x.err == 0 && !meets_infinity[static_cast<std::size_t>(k)]) continue;
        const ProductOperand* y = b_row + k * N;
        Scalar* c = C + m * N;
        for (std::int64_t n = n0; n < n1; ++n) add_product(c[n], x, y[n]);
      }
    }
  }
  if (specials) nonfinite_products(A, B, C, M, K, N, a_special, b_special);
}

BoundScalar BoundDomain::accumulate(const Scalar& acc_in, const Scalar& x) const {
  Scalar acc = as_open_sum(acc_in);
  acc.terms |= x.terms & kMayNaN;  // NaN plus anything is NaN
  if (probable_overflow(x)) {
    add_probable_overflow(acc, x);
    return acc;
  }
  if (nonfinite(x)) {
    add_nonfinite_term(acc, kind(x), probable(x), large(x));
    return acc;
  }
  if (!(x.flags & kOpenSum) && marker(x) == kNonNegativeFloat && !(x.err < kInf)) {
    add_nonnegative_term(acc, x);
    return acc;
  }
  std::uint32_t last = acc.source();
  bool admitted = false;
  const Closed cx = summand(x, last, admitted);
  acc.set_source(last);
  if (admitted) acc.flags |= kSharedTerms;
  acc.flags |= x.flags & (kMayFlip | kUnbounded);
  const double m = mag(cx.x);
  if (m == 0 && cx.err == 0) return acc;  // adding an exact 0 is exact
  acc.lo += cx.x.lo;
  acc.hi += cx.x.hi;
  acc.sum.abssum += m;
  acc.err += cx.err;
  acc.sum.magsum += m + cx.err;
  acc.sum.variance += cx.sigma * cx.sigma;
  acc.pdet += static_cast<float>(cx.pdet);
  acc.events += cx.events;
  count_term(acc);
  if (!std::isfinite(acc.sum.magsum) && !(acc.flags & kUnbounded)) {
    acc.flags |= kUnbounded;
    note_unbounded();
  }
  return acc;
}

}  // namespace shlo
