// RapidCheck properties of the domains: enclosure, tightness, hardware agreement.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <cmath>
#include <cstring>

#include "fuzz/op_props.hpp"
#include "interp/domain/domain_spec.hpp"
#include "oracle/agree.hpp"
#include "tests/support.hpp"

using namespace shlo;

namespace {

// Random rationals n/d with numerator and denominator of up to ~40 bits.
rc::Gen<Rational> rational() {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange<long>(-(1L << 40), 1L << 40),
                                     rc::gen::inRange<long>(1, 1L << 40)),
                      [](const std::tuple<long, long>& t) {
                        return Rational(std::get<0>(t)) / Rational(std::get<1>(t));
                      });
}

// A dyadic rational m * 2^-k that every precision >= 24 holds exactly, in [-2^20, 2^20].
rc::Gen<Rational> dyadic() {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange<long>(-(1L << 22), 1L << 22), rc::gen::inRange(0, 30)),
                      [](const std::tuple<long, int>& t) {
                        return Rational(std::get<0>(t)) / Rational(Integer(1) << std::get<1>(t));
                      });
}

rc::Gen<int> precision() { return rc::gen::element(24, 53, 64, 113, 256); }

// |hi - lo| <= factor * 2^-P * magnitude: the enclosure is as tight as P bits allow.
// (In MPFR arithmetic: exp(-4194304) is far below the double range.)
bool tight(const BigInterval& r, mpfr_prec_t p, unsigned factor, const BigFloat& magnitude) {
  BigFloat width(64), allowed(64);
  mpfr_sub(width.get(), r.hi(), r.lo(), MPFR_RNDU);
  mpfr_mul_ui(allowed.get(), magnitude.get(), factor, MPFR_RNDD);
  mpfr_mul_2si(allowed.get(), allowed.get(), -static_cast<long>(p), MPFR_RNDD);
  return mpfr_lessequal_p(width.get(), allowed.get());
}

// max(|lo|, |hi|).
BigFloat magnitude(const BigInterval& r) {
  BigFloat m(64);
  mpfi_mag(m.get(), r.get());
  return m;
}

// |a| + |b| for two points.
BigFloat magnitude_sum(const BigInterval& a, const BigInterval& b) {
  BigFloat m(64), t(64);
  mpfi_mag(m.get(), a.get());
  mpfi_mag(t.get(), b.get());
  mpfr_add(m.get(), m.get(), t.get(), MPFR_RNDU);
  return m;
}

float float_from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || float_bits(a) == float_bits(b); }

}  // namespace

TEST_CASE("interval:P encloses the exact rational result of + - * /", "[domain][interval][property]") {
  rc::prop("enclosure of + - * / on random rationals", [] {
    const int p = *precision();
    const Rational a = *rational(), b = *rational();
    const IntervalDomain I(p);
    const ExactDomain E;
    const BigInterval ia = I.from_rational(a), ib = I.from_rational(b);
    RC_ASSERT(IntervalDomain::contains(I.add(ia, ib), E.add(a, b).q));
    RC_ASSERT(IntervalDomain::contains(I.sub(ia, ib), E.sub(a, b).q));
    RC_ASSERT(IntervalDomain::contains(I.mul(ia, ib), E.mul(a, b).q));
    const BigFloat scale = magnitude_sum(ia, ib);
    RC_ASSERT(tight(I.add(ia, ib), p, 4, scale));
    RC_ASSERT(tight(I.sub(ia, ib), p, 4, scale));
    RC_ASSERT(tight(I.mul(ia, ib), p, 8, magnitude(I.mul(ia, ib))));
    RC_PRE(b != 0);
    RC_ASSERT(IntervalDomain::contains(I.div(ia, ib), E.div(a, b).q));
    RC_ASSERT(tight(I.div(ia, ib), p, 8, magnitude(I.div(ia, ib))));
  });
}

TEST_CASE("control: a midpoint collapsed to a point does not enclose 1/3", "[domain][interval]") {
  const IntervalDomain I(64);
  const BigInterval third = I.div(I.from_rational(1), I.from_rational(3));
  BigFloat mid(64);
  mpfi_mid(mid.get(), third.get());
  CHECK(IntervalDomain::contains(third, Rational(1) / 3));
  CHECK_FALSE(IntervalDomain::contains(BigInterval::from_endpoints(mid.get(), mid.get(), 64), Rational(1) / 3));
}

TEST_CASE("interval:P encloses mpfr:(P+64) for the transcendental ops, tightly", "[domain][interval][property]") {
  rc::prop("enclosure and width of exp log sqrt rsqrt tanh logistic", [] {
    const int p = *precision();
    const Rational x = *dyadic();
    const IntervalDomain I(p);
    const MpfrDomain M(p + 64);
    const BigInterval ix = I.from_rational(x);
    const BigFloat mx = M.from_rational(x);
    RC_ASSERT(mpfr_equal_p(ix.lo(), ix.hi()));  // dyadic inputs are exact points
    auto check = [&](const char* op, const BigInterval& r, const BigFloat& y, double factor) {
      RC_LOG() << op << "(" << x.str() << ") at P=" << p << ": " << I.to_string(r) << " vs " << y.to_string();
      RC_ASSERT(IntervalDomain::contains(r, y.get()));
      RC_ASSERT(tight(r, p, factor, magnitude(r)));
    };
    if (x < 80) check("exp", I.exp(ix), M.exp(mx), 4);
    check("tanh", I.tanh(ix), M.tanh(mx), 4);
    check("logistic", I.logistic(ix), M.logistic(mx), 16);
    if (x > 0) {
      check("log", I.log(ix), M.log(mx), 4);
      check("sqrt", I.sqrt(ix), M.sqrt(mx), 4);
      check("rsqrt", I.rsqrt(ix), M.rsqrt(mx), 8);
    }
  });
}

TEST_CASE("f32 arithmetic is the hardware's, and correctly rounded", "[domain][f32][property]") {
  rc::prop("f32 + - * / sqrt match the hardware bit for bit", [] {
    // All bit patterns: NaN, infinities, subnormals and signed zeros included.
    const float a = float_from_bits(*rc::gen::arbitrary<std::uint32_t>());
    const float b = float_from_bits(*rc::gen::arbitrary<std::uint32_t>());
    const F32Domain F;
    volatile float va = a, vb = b;  // keep the compiler from folding the reference
    RC_ASSERT(same_float(F.add(a, b), va + vb));
    RC_ASSERT(same_float(F.sub(a, b), va - vb));
    RC_ASSERT(same_float(F.mul(a, b), va * vb));
    RC_ASSERT(same_float(F.div(a, b), va / vb));
    RC_ASSERT(same_float(F.sqrt(a), std::sqrt(va)));
    RC_ASSERT(same_float(F.exp(a), static_cast<float>(std::exp(static_cast<double>(va)))));
    RC_ASSERT(same_float(F.log(a), static_cast<float>(std::log(static_cast<double>(va)))));
    RC_ASSERT(same_float(F.tanh(a), static_cast<float>(std::tanh(static_cast<double>(va)))));
  });
  rc::prop("f32 + * / equal the exact result rounded once (an independent route)", [] {
    const float a = float_from_bits(*rc::gen::arbitrary<std::uint32_t>());
    const float b = float_from_bits(*rc::gen::arbitrary<std::uint32_t>());
    RC_PRE(std::isfinite(a) && std::isfinite(b));
    const F32Domain F;
    const Rational qa = rational_from_double(a), qb = rational_from_double(b);
    auto agrees = [](float hw, const Rational& exact) {
      if (exact == 0) return hw == 0;  // the sign of an exact zero follows IEEE rules, not the rational
      return float_bits(hw) == float_bits(round_rational<float>(exact));
    };
    RC_ASSERT(agrees(F.add(a, b), qa + qb));
    RC_ASSERT(agrees(F.mul(a, b), qa * qb));
    RC_PRE(b != 0);
    RC_ASSERT(agrees(F.div(a, b), qa / qb));
  });
}

TEST_CASE("f32 literals: one rounding from the exact decimal", "[domain][f32][literal][property]") {
  rc::prop("from_literal equals glibc strtof and the exact value rounded once", [] {
    const long mant = *rc::gen::inRange<long>(-99999999999L, 99999999999L);
    const int exp10 = *rc::gen::inRange(-50, 40);
    const std::string text = std::to_string(mant) + "e" + std::to_string(exp10);
    const float ours = F32Domain().from_literal(text);
    RC_ASSERT(same_float(ours, std::strtof(text.c_str(), nullptr)));
    RC_ASSERT(same_float(ours, round_rational<float>(parse_literal(text).value)) || (mant == 0));
  });
}

TEST_CASE("interval_contains: an infinite exact value lies in an enclosure with that infinite end", "[domain][interval]") {
  CHECK(interval_contains("[-inf, -inf]", "-inf", 53));
  CHECK(interval_contains("[-inf, 0.0]", "-inf", 53));
  CHECK(interval_contains("[1.0, inf]", "inf", 53));
  CHECK(interval_contains("[-inf, inf]", "inf", 53));
  // Controls: a finite end on that side, or the other infinity, does not contain it.
  CHECK_FALSE(interval_contains("[-1.0e300, 0.0]", "-inf", 53));
  CHECK_FALSE(interval_contains("[-inf, -inf]", "inf", 53));
  CHECK_FALSE(interval_contains("[-inf, -inf]", "0", 53));
  CHECK_FALSE(interval_contains("[1.0, 1.0e300]", "inf", 53));
  // Finite values as before.
  CHECK(interval_contains("[0.33, 0.34]", "1/3", 53));
  CHECK_FALSE(interval_contains("[0.33, 0.333]", "1/3", 53));
  // The old comparison of the rational part alone (0 for an infinity) said no.
  CHECK_FALSE(IntervalDomain::contains(IntervalDomain(53).parse("[-inf, -inf]"), ExactDomain().parse("-inf").q));
  // End to end: a max-pool style -inf init that survives (an empty row of maxima) in exact and interval.
  TextCase tc;
  tc.text = "module @m {\n  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            "    %n = stablehlo.constant dense<0xFF800000> : tensor<2xf32>\n"
            "    %r = stablehlo.maximum %n, %n : tensor<2xf32>\n    return %r : tensor<2xf32>\n  }\n}\n";
  tc.inputs = {{{"%x", {Rational(1), Rational(2)}}}};
  const auto exact = run_text_case(tc, "exact"), box = run_text_case(tc, "interval:53");
  REQUIRE(exact[0][0] == "-inf");
  CHECK(interval_contains(box[0][0], exact[0][0], 53));
}

// log, sqrt, rsqrt and divide (1 / operand) at -x, and at zeros whose enclosure straddles 0
// (x - x), touches it from above (|x - x|) or below (-|x - x|), or is the point 0 (-0.0), in
// every domain against the hand-derived table of fuzz/op_props.cpp: exact errors or values,
// interval refusals or enclosures, IEEE special values (signed zeros and infinities, NaN).
TEST_CASE("domain edges: every op, edge, operand and precision against the hand-derived table", "[domain][edges]") {
  for (const auto& op : fuzz::kEdgeOps)
    for (const auto& edge : fuzz::kEdges)
      for (const char* x : {"1/3", "2/7", "0.1"})
        for (int p : {24, 53, 113}) {
          const auto v = fuzz::domain_edge(op, edge, x, p, false);
          INFO(op << "(" << edge << ") x = " << x << " P = " << p << ": " << v.detail);
          CHECK(v.passed());
        }
}

TEST_CASE("domain edges, control: a kernel that reads |operand| is caught", "[domain][edges]") {
  // log|-x| is finite where log(-x) is undefined; sqrt and rsqrt lose the sign of -0; 1/|-0| is +inf.
  for (const auto& op : fuzz::kEdgeOps) {
    INFO(op);
    const auto negative = fuzz::domain_edge(op, "-x", "1/3", 53, true);
    CHECK_FALSE(negative.passed());
    if (op != "log") {
      const auto v = fuzz::domain_edge(op, "-0.0", "1/3", 53, true);
      CHECK_FALSE(v.passed());
      CHECK_THAT(v.detail, Catch::Contains("f32 gave"));
    }
  }
  // Where |operand| changes nothing (log at +0) the control agrees with the table.
  CHECK(fuzz::domain_edge("log", "x - x", "1/3", 53, true).passed());
}

TEST_CASE("mpfr:P rsqrt at -0 is -inf, as IEEE 754 rSqrt and the f32/f64 domains", "[domain][mpfr][edges]") {
  const MpfrDomain d(53);
  BigFloat neg_zero = d.from_rational(Rational(0));
  mpfr_neg(neg_zero.get(), neg_zero.get(), MPFR_RNDN);
  const BigFloat r = d.rsqrt(neg_zero), s = d.rsqrt(d.from_rational(Rational(0)));
  CHECK((mpfr_inf_p(r.get()) && mpfr_sgn(r.get()) < 0));
  CHECK((mpfr_inf_p(s.get()) && mpfr_sgn(s.get()) > 0));
  CHECK(std::signbit(F32Domain().rsqrt(-0.0f)));
}
