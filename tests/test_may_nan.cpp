// Values that may be NaN in the bound analysis (interp/bound/bound.hpp, "values that may be
// NaN"): a select whose exact comparison takes a finite branch while the float one may take a
// branch that is NaN in every evaluation keeps the finite branch's bounds and the NaN beside them;
// every op after it carries the NaN as IEEE 754 does; `shlo check` passes a NaN there and judges a
// number against the bounds. Also: sqrt, rsqrt and log of a value below 0 are NaN (or unknown),
// not an error that stops the analysis.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <limits>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

using Kind = BoundDomain::Kind;
// The exact comparison false, the float one may be true.
constexpr std::uint8_t kExactFalseMayFlip = kPredFloatMayFlip;

// 0 in the exact evaluation and in every float one that takes the comparison's exact way; NaN in
// those that do not.
BoundScalar zero_or_nan(const BoundDomain& d) {
  const BoundScalar nan = d.sub(d.exp(d.from_double(100)), d.exp(d.from_double(100)));
  REQUIRE(d.kind(nan) == Kind::NaN);
  return d.select_widened(kExactFalseMayFlip, nan, d.from_double(0));
}


}  // namespace

TEST_CASE("may be NaN: a select that may take a NaN branch keeps the exact branch's bounds and the NaN", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar m = zero_or_nan(d);
  CHECK(d.may_be_nan(m));
  CHECK(d.kind(m) == Kind::Finite);  // its numbers: exactly 0
  CHECK(d.bound(m) == 0);
  CHECK(m.flags & kMayFlip);
  CHECK(d.to_string(m).find(" or NaN") != std::string::npos);
  // The judge: NaN is one of its values, 0 another; 1 is neither.
  const ElementVerdict nan = judge_element(d, m, std::nan(""));
  CHECK(nan.nan_alternative);
  CHECK(nan.verdict() == Verdict::Pass);
  CHECK(judge_element(d, m, 0).verdict() == Verdict::Pass);
  CHECK(judge_element(d, m, 1).verdict() == Verdict::Fail);
  // Controls: the same select with a finite other branch, or a comparison the float evaluation
  // cannot flip, holds no NaN, and a NaN there fails.
  const BoundScalar plain = d.select_widened(kExactFalseMayFlip, d.from_double(0), d.from_double(0));
  CHECK_FALSE(d.may_be_nan(plain));
  CHECK(judge_element(d, plain, std::nan("")).verdict() == Verdict::Fail);
  const BoundScalar nan_value = d.sub(d.exp(d.from_double(100)), d.exp(d.from_double(100)));
  const BoundScalar decided = d.select_widened(0, nan_value, d.from_double(0));
  CHECK_FALSE(d.may_be_nan(decided));
  CHECK(judge_element(d, decided, std::nan("")).verdict() == Verdict::Fail);
  // Where the exact comparison takes the NaN branch, the exact value is not known: unknown, and
  // NaN among its values (a number there has no verdict).
  const BoundScalar exact_nan = d.select_widened(kPredFloatMayFlip | kPredValue, nan_value, d.from_double(0));
  CHECK(d.kind(exact_nan) == Kind::Unknown);
  CHECK(d.may_be_nan(exact_nan));
  CHECK(judge_element(d, exact_nan, std::nan("")).verdict() == Verdict::Pass);
  CHECK(judge_element(d, exact_nan, 0).verdict() == Verdict::NoVerdict);
}

TEST_CASE("may be NaN: every op carries the NaN as IEEE 754 does", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar m = zero_or_nan(d);
  BoundScalar numbers = m;  // the same numbers without the NaN: each control below
  numbers.terms &= ~kMayNaN;
  const BoundScalar two = d.from_double(2), zero = d.from_double(0);
  const BoundScalar inf = d.exp(d.from_double(100)), nan = d.sub(inf, inf);
  for (const BoundScalar& r : {d.add(m, two), d.sub(two, m), d.mul(zero, m), d.div(m, two), d.max(m, two), d.min(two, m),
                               d.neg(m), d.abs(m), d.exp(m), d.tanh(m), d.logistic(m), d.sqrt(d.add(m, two))}) {
    CHECK(d.may_be_nan(r));
    CHECK(d.bound(r) < kInf);
  }
  CHECK_FALSE(d.may_be_nan(d.add(numbers, two)));
  CHECK_FALSE(d.may_be_nan(d.max(numbers, two)));
  // max(m, 2) is 2 where m is a number: its bounds are those of 2.
  CHECK(d.enclosure(d.max(m, two)).lo == 2);
  // With an infinity: inf or NaN, so unknown; with a NaN: NaN.
  CHECK(d.kind(d.add(numbers, inf)) == Kind::PosInf);
  CHECK(d.kind(d.add(m, inf)) == Kind::Unknown);
  CHECK(d.kind(d.add(m, nan)) == Kind::NaN);
  CHECK_FALSE(d.may_be_nan(d.add(m, nan)));
  // A comparison with it may go either way in both tiers (NaN compares false).
  const std::uint8_t bits = d.compare_bits(CompareDirection::LT, m, two);
  CHECK(bits & kPredValue);
  CHECK(bits & kPredFloatMayFlip);
  CHECK_FALSE(bits & kPredStatDecided);
  CHECK(d.compare_bits(CompareDirection::LT, numbers, two) == kPredValue);  // control: decided
  // A select: the chosen branch keeps it; a decided select of the other drops it.
  CHECK(d.may_be_nan(d.select_widened(kPredValue, m, two)));
  CHECK_FALSE(d.may_be_nan(d.select_widened(0, m, two)));
}

TEST_CASE("may be NaN: sums, products and matrix products carry the NaN of any term", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar m = zero_or_nan(d);
  const BoundScalar one = d.from_double(1), zero = d.from_double(0), inf = d.exp(d.from_double(100));
  BoundScalar acc = d.accumulate(d.accumulate(zero, one), m);
  CHECK(d.may_be_nan(acc));
  BoundScalar closed = d.closed(acc);
  CHECK(d.may_be_nan(closed));
  CHECK(d.enclosure(closed).lo == Approx(1));
  CHECK(d.bound(closed) < kInf);
  // A NaN term among +inf ones: inf or NaN, unknown; control: without it, +inf.
  CHECK(d.kind(d.closed(d.accumulate(acc, inf))) == Kind::Unknown);
  CHECK(d.kind(d.closed(d.accumulate(d.accumulate(zero, one), inf))) == Kind::PosInf);
  CHECK_FALSE(d.may_be_nan(d.closed(d.accumulate(zero, one))));
  // mac: 0 * NaN is NaN.
  BoundScalar mac_acc = zero;
  d.mac(mac_acc, zero, m);
  CHECK(d.may_be_nan(d.closed(mac_acc)));
  // C = A B with A = [[0, 1], [1, 1]] and B = [[m, 1], [1, 1]]: row 0 meets m through a 0, still
  // NaN or a number; column 1 never meets it.
  const std::vector<BoundScalar> A = {zero, one, one, one}, B = {m, one, one, one};
  std::vector<BoundScalar> C(4, zero);
  d.matmul_accumulate(A.data(), B.data(), C.data(), 2, 2, 2);
  CHECK(d.may_be_nan(d.closed(C[0])));
  CHECK(d.may_be_nan(d.closed(C[2])));
  CHECK_FALSE(d.may_be_nan(d.closed(C[1])));
  CHECK_FALSE(d.may_be_nan(d.closed(C[3])));
  CHECK(d.enclosure(d.closed(C[0])).lo == Approx(1));
  CHECK(d.enclosure(d.closed(C[2])).lo == Approx(1));
}

TEST_CASE("may be NaN: a max-pool window holding one may choose any candidate", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar m = zero_or_nan(d);
  BoundScalar numbers = m;
  numbers.terms &= ~kMayNaN;
  const BoundScalar five = d.from_double(5);
  const auto with_nan = d.window_selection(CompareDirection::GE, {&five, &m});
  CHECK(with_nan[0].exact == 1);
  CHECK(with_nan[0].floating == 2);
  CHECK(with_nan[1].floating == 2);
  const auto control = d.window_selection(CompareDirection::GE, {&five, &numbers});
  CHECK(control[0].floating == 1);
  CHECK(control[1].floating == 0);
  // Its own scatter term carries the NaN where it may be chosen, not where it never is.
  CHECK(d.may_be_nan(d.scatter_term(m, {0, 2, 2})));
  CHECK_FALSE(d.may_be_nan(d.scatter_term(m, {0, 0, 0})));
  // A source that is NaN in every evaluation (a max-pool's gradient after an overflow): where the
  // exact choice leaves it out but the float one may take it, 0 or NaN; where the exact choice
  // takes it, unknown or NaN; where the statistical tier also leaves it out, 0 in that tier alone.
  const BoundScalar nan = d.sub(d.exp(d.from_double(100)), d.exp(d.from_double(100)));
  const BoundScalar left_out = d.scatter_term(nan, {0, 2, 2});
  CHECK(d.may_be_nan(left_out));
  CHECK(d.bound(left_out) == 0);
  CHECK(d.enclosure(left_out).hi == 0);
  const BoundScalar taken = d.scatter_term(nan, {1, 2, 2});
  CHECK(d.kind(taken) == Kind::Unknown);
  CHECK(d.may_be_nan(taken));
  const BoundScalar likely_left_out = d.scatter_term(nan, {0, 2, 0});
  CHECK(d.bound(likely_left_out) == kInf);
  CHECK(d.pbound(likely_left_out) == 0);
  CHECK(d.kind(d.scatter_term(nan, {1, 1, 1})) == Kind::NaN);  // controls: surely chosen, never chosen
  CHECK(d.bound(d.scatter_term(nan, {0, 0, 0})) == 0);
  CHECK_FALSE(d.may_be_nan(d.scatter_term(nan, {0, 0, 0})));
}

TEST_CASE("may be NaN: sqrt, rsqrt and log below 0 are NaN or unknown, not an error", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  CHECK(d.kind(d.sqrt(d.from_double(-4))) == Kind::NaN);
  CHECK(d.kind(d.rsqrt(d.from_double(-4))) == Kind::NaN);
  CHECK(d.kind(d.log(d.from_double(-4))) == Kind::NaN);
  CHECK_FALSE(d.probable(d.sqrt(d.from_double(-4))));
  // Its float may be 0 or above: anything.
  CHECK(d.kind(d.sqrt(closed_scalar(-1e-8, 1e-7, 1e-7f, 0))) == Kind::Unknown);
  CHECK(d.kind(d.log(d.from_double(0))) == Kind::Unknown);  // -inf, not an exact value
  // Below 0 only statistically: NaN but for an improbable event.
  const BoundScalar p = d.sqrt(closed_scalar(-1, 2, 0.5f, 0));
  CHECK(d.kind(p) == Kind::NaN);
  CHECK(d.probable(p));
  // Control: a positive operand is a number.
  CHECK(d.kind(d.sqrt(d.from_double(4))) == Kind::Finite);
  // The same under tf32, whose statistical tier decides as any profile's.
  const BoundDomain tf32(float_profile("tf32"));
  CHECK(tf32.kind(tf32.sqrt(closed_scalar(-1, 2, 0.5f, 0))) == Kind::NaN);
  CHECK(tf32.probable(tf32.sqrt(closed_scalar(-1, 2, 0.5f, 0))));
}


TEST_CASE("may be NaN: shlo check passes a NaN where a relu may take a NaN gradient, and judges a number", "[bound][stat]") {
  const Module m = parse_module(kReluBackward, "relu_backward.mlir");
  const float third = 1.0f / 3.0f;
  const Arrays in = {f32_array({2}, {100, 1}), f32_array({2}, {3, 3}), f32_array({2}, {third, third})};
  REQUIRE(1.0 - 3.0 * static_cast<double>(third) < 0);  // the exact comparison: false
  REQUIRE(1.0f - 3.0f * third == 0.0f);                  // the float one: false too here
  // The honest float32 outputs: h = 0 in float, so the relu is off: d = [0, 0], s = 0.
  const CheckReport honest = check_ieee(m, in, {f32_array({2}, {0, 0}), f32_array({}, {0})});
  CHECK(honest.verdict() == Verdict::Pass);
  CHECK(honest.outputs[0].unbounded == 0);
  // An evaluation whose float comparison took the other way: NaN, still honest.
  const CheckReport flipped = check_ieee(m, in, {f32_array({2}, {kNaN, 0}), f32_array({}, {kNaN})});
  CHECK(flipped.verdict() == Verdict::Pass);
  CHECK(flipped.outputs[0].nan_alternative == 1);
  CHECK(flipped.outputs[1].nan_alternative == 1);
  CHECK(format_table(flipped).find("NaN element(s) where a comparison upstream may take a branch") != std::string::npos);
  CHECK(format_json(flipped).find("\"nan_alternative\": 1") != std::string::npos);
  // Controls: a number other than 0 there fails; and where the comparison cannot flip (h = -2
  // for b = 1), a NaN fails.
  CHECK(check_ieee(m, in, {f32_array({2}, {1, 0}), f32_array({}, {0})}).outputs[0].verdict() == Verdict::Fail);
  CHECK(check_ieee(m, in, {f32_array({2}, {0, 0}), f32_array({}, {5})}).outputs[1].verdict() == Verdict::Fail);
  const Arrays decided = {in[0], in[1], f32_array({2}, {1, 1})};
  const CheckReport control = check_ieee(m, decided, {f32_array({2}, {kNaN, 0}), f32_array({}, {kNaN})});
  CHECK(control.outputs[0].verdict() == Verdict::Fail);
  CHECK(control.outputs[1].verdict() == Verdict::Fail);
  CHECK(control.outputs[0].nan_alternative == 0);
}
