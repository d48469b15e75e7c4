// Certain non-finite values in the bound analysis (interp/bound/bound.hpp, "certain non-finite
// values"; interp/bound/nonfinite.cpp): where every float evaluation overflows, the value is that
// infinity, IEEE 754 carries it on (inf - inf, 0 * inf: NaN; NaN absorbs), and `shlo check`
// judges such an element by the float value alone. Where the rules cannot decide, the value stays
// unknown (NO VERDICT), as before.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ast/mlir_parse.hpp"
#include "interp/bound/normalizing.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

using Kind = BoundDomain::Kind;


}  // namespace

TEST_CASE("nonfinite: exp overflows in every evaluation only beyond the threshold and the operand's bound", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  CHECK(d.kind(d.exp(d.from_double(89))) == Kind::PosInf);
  CHECK(d.kind(d.exp(d.from_double(100))) == Kind::PosInf);
  // Controls: below ln(FLT_MAX) = 88.7228 the float exp is finite; just above it, within the
  // allowance, an evaluation may still round to FLT_MAX; an operand whose sound bound reaches
  // below the threshold may be finite.
  CHECK(d.kind(d.exp(d.from_double(88.5))) == Kind::Finite);
  CHECK(d.kind(d.exp(d.from_double(88.72284))) == Kind::Unknown);
  CHECK(d.kind(d.exp(closed_scalar(89, 0.2, 0.2f, 0))) == Kind::PosInf);
  CHECK(d.kind(d.exp(closed_scalar(89, 1.0, 1.0f, 0))) == Kind::Unknown);  // 88 is possible
  CHECK(d.to_string(d.exp(d.from_double(89))) == "+inf in every float evaluation");
}

TEST_CASE("nonfinite: IEEE 754 on certain infinities and NaN, unknown where it cannot decide", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar inf = d.exp(d.from_double(100)), minus_inf = d.neg(inf);
  const BoundScalar two = d.from_double(2), zero = d.from_double(0);
  const BoundScalar near_zero = closed_scalar(0.5, 1, 1, 0);  // its float may be of either sign
  const BoundScalar unknown = d.exp(d.from_double(88.72284));
  REQUIRE(d.kind(inf) == Kind::PosInf);
  CHECK(d.kind(minus_inf) == Kind::NegInf);
  const BoundScalar nan = d.sub(inf, inf);
  CHECK(d.kind(nan) == Kind::NaN);
  CHECK(d.to_string(nan) == "NaN in every float evaluation");
  CHECK(d.kind(d.add(inf, two)) == Kind::PosInf);
  CHECK(d.kind(d.add(inf, inf)) == Kind::PosInf);
  CHECK(d.kind(d.sub(two, inf)) == Kind::NegInf);
  CHECK(d.kind(d.add(inf, unknown)) == Kind::Unknown);  // the other may be -inf
  CHECK(d.kind(d.add(nan, unknown)) == Kind::NaN);      // NaN absorbs
  CHECK(d.kind(d.mul(inf, d.from_double(-3))) == Kind::NegInf);
  CHECK(d.kind(d.mul(inf, zero)) == Kind::NaN);            // 0 * inf
  CHECK(d.kind(d.mul(inf, near_zero)) == Kind::Unknown);   // its sign unknown
  CHECK(d.kind(d.mul(inf, d.from_double(1e-40))) == Kind::Unknown);  // a subnormal a flush may make 0
  CHECK(d.kind(d.div(inf, inf)) == Kind::NaN);
  CHECK(d.kind(d.div(inf, two)) == Kind::PosInf);
  CHECK(d.kind(d.div(two, inf)) == Kind::Unknown);  // a signed zero, not the exact quotient
  CHECK(d.kind(d.max(inf, two)) == Kind::PosInf);
  CHECK(d.kind(d.max(minus_inf, two)) == Kind::Finite);
  CHECK(d.max(minus_inf, two).lo == 2);  // max(-inf, y) is y
  CHECK(d.kind(d.max(nan, two)) == Kind::NaN);  // IEEE maximum propagates NaN
  CHECK(d.kind(d.min(minus_inf, two)) == Kind::NegInf);
  CHECK(d.kind(d.min(nan, two)) == Kind::NaN);
  CHECK(d.kind(d.abs(minus_inf)) == Kind::PosInf);
  CHECK(d.kind(d.log(inf)) == Kind::PosInf);
  CHECK(d.kind(d.sqrt(minus_inf)) == Kind::NaN);
  CHECK(d.kind(d.rsqrt(inf)) == Kind::Unknown);  // 0, not the exact value
  CHECK(d.kind(d.exp(minus_inf)) == Kind::Unknown);
  CHECK(d.kind(d.tanh(nan)) == Kind::NaN);
  CHECK(d.kind(d.exp(nan)) == Kind::NaN);
  // Comparisons with NaN are false, NE true, in every evaluation: decided, no flip.
  CHECK(d.compare_bits(CompareDirection::GT, nan, two) == 0);
  CHECK(d.compare_bits(CompareDirection::LE, two, nan) == 0);
  CHECK(d.compare_bits(CompareDirection::NE, nan, two) == kPredValue);
  CHECK(d.compare_bits(CompareDirection::GT, inf, two) == kPredValue);
  // A select that may flip between a certain value and another is unknown; between two equal
  // certain values, that value.
  const std::uint8_t flip = kPredFloatMayFlip | kPredValue;
  CHECK(d.kind(d.select_widened(flip, nan, two)) == Kind::Unknown);
  CHECK(d.kind(d.select_widened(flip, nan, nan)) == Kind::NaN);
  CHECK(d.kind(d.select_widened(kPredValue, nan, two)) == Kind::NaN);
  CHECK(d.kind(d.select_widened(0, nan, two)) == Kind::Finite);
}

TEST_CASE("nonfinite: an exact infinity (a literal) keeps its exact limits, and meets a certain one by the same rules", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar minus_inf = d.from_double(-kInf), plus_inf = d.from_double(kInf);
  REQUIRE(d.kind(minus_inf) == Kind::NegInf);
  REQUIRE_FALSE(nonfinite(minus_inf));  // the ops' own paths, as before
  // exp(-inf) = 0 exactly (a -inf mask before a softmax): a bounded zero, not unknown as it is
  // for a certain -inf from an overflow, whose exact value is a real number.
  const BoundScalar masked = d.exp(minus_inf);
  CHECK(d.kind(masked) == Kind::Finite);
  CHECK(d.enclosure(masked).lo == 0);
  CHECK(d.enclosure(masked).hi == 0);
  CHECK(d.kind(d.exp(d.neg(d.exp(d.from_double(100))))) == Kind::Unknown);  // the control
  CHECK(d.kind(d.max(minus_inf, d.from_double(2))) == Kind::Finite);
  // With a certain value: the same rules.
  const BoundScalar certain_inf = d.exp(d.from_double(100));
  CHECK(d.kind(d.add(certain_inf, minus_inf)) == Kind::NaN);
  CHECK(d.kind(d.add(certain_inf, plus_inf)) == Kind::PosInf);
  CHECK(d.kind(d.max(d.sub(certain_inf, certain_inf), minus_inf)) == Kind::NaN);
  // -inf - -inf of exact infinities has no exact value (its float is NaN): min of it with an
  // exact -inf is not -inf (IEEE minimum propagates NaN), found by domains.f32_overflow_as_certain.
  const BoundScalar undefined = d.sub(minus_inf, minus_inf);
  CHECK(d.kind(undefined) == Kind::Unknown);
  CHECK(d.kind(d.min(minus_inf, undefined)) == Kind::Unknown);
  CHECK(d.pbound(d.min(minus_inf, undefined)) == kInf);  // in neither tier
  CHECK(d.kind(d.max(plus_inf, d.add(undefined, minus_inf))) == Kind::Unknown);
  CHECK(d.kind(d.min(minus_inf, d.from_double(3))) == Kind::NegInf);  // control: a bounded operand
}

TEST_CASE("nonfinite: sums and products count certain terms, and a finite part that may overflow leaves them unknown", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar inf = d.exp(d.from_double(100)), minus_inf = d.neg(inf), nan = d.sub(inf, inf);
  const BoundScalar one = d.from_double(1), big = d.from_double(-3e38);
  auto sum = [&](std::initializer_list<BoundScalar> terms) {
    BoundScalar acc = d.from_double(0);
    for (const auto& t : terms) acc = d.accumulate(acc, t);
    return d.kind(d.closed(acc));
  };
  CHECK(sum({one, inf, one}) == Kind::PosInf);
  CHECK(sum({one, minus_inf}) == Kind::NegInf);
  CHECK(sum({inf, one, minus_inf}) == Kind::NaN);
  CHECK(sum({one, nan, inf}) == Kind::NaN);
  CHECK(sum({one, one}) == Kind::Finite);  // control
  // An exp that may overflow is finite and at least 0, or +inf: with a certain +inf the sum is
  // +inf; alone, or with a certain -inf, unknown; its negation (which may be -inf) is no such term.
  const BoundScalar maybe = d.exp(closed_scalar(88, 1, 1e-3f, 0));  // sound: up to 89; statistically about 88
  const BoundScalar maybe_wide = d.exp(closed_scalar(88, 1, 1, 0));  // both bounds infinite
  REQUIRE(d.kind(maybe) == Kind::Unknown);
  REQUIRE(d.pbound(maybe) < kInf);
  CHECK(sum({one, inf, maybe}) == Kind::PosInf);
  CHECK(sum({maybe_wide, inf, one}) == Kind::PosInf);
  CHECK(sum({maybe, one}) == Kind::Unknown);
  CHECK(sum({maybe, minus_inf}) == Kind::Unknown);
  // Its negation may be -inf soundly; statistically it is finite, so with a certain +inf the sum
  // is +inf but for an improbable event.
  BoundScalar negated = d.accumulate(d.accumulate(d.from_double(0), inf), d.neg(maybe));
  CHECK(d.kind(d.closed(negated)) == Kind::PosInf);
  CHECK(d.probable(d.closed(negated)));
  CHECK(sum({inf, d.neg(maybe_wide)}) == Kind::Unknown);  // control: unbounded in both tiers
  // Without a certain term the sum of such values keeps its statistical bound (judged by that
  // tier alone), and one with an infinite statistical bound makes the sum's infinite.
  BoundScalar kept = d.accumulate(d.accumulate(d.from_double(0), maybe), one);
  CHECK(d.bound(d.closed(kept)) == kInf);
  CHECK(d.pbound(d.closed(kept)) < kInf);
  CHECK(d.pbound(d.closed(kept)) >= d.pbound(maybe));
  CHECK(d.pbound(d.closed(d.accumulate(kept, maybe_wide))) == kInf);
  // -3e38 - 3e38 overflows to -inf in some order, and then inf + -inf is NaN: unknown.
  CHECK(sum({inf, big, big}) == Kind::Unknown);
  CHECK(sum({inf, big}) == Kind::PosInf);
  // A certain value as the accumulator's start, and mac's products.
  CHECK(d.kind(d.closed(d.accumulate(inf, one))) == Kind::PosInf);
  BoundScalar acc = d.from_double(0);
  d.mac(acc, one, one);
  d.mac(acc, inf, d.from_double(0));  // 0 * inf
  CHECK(d.kind(d.closed(acc)) == Kind::NaN);
  BoundScalar acc2 = d.from_double(0);
  d.mac(acc2, one, one);
  d.mac(acc2, inf, d.from_double(-2));
  CHECK(d.kind(d.closed(acc2)) == Kind::NegInf);
  // matmul_accumulate (dot_general, convolution): a NaN in row 0 of A makes row 0 of C NaN; the
  // infinity in B[1][0] meets an exact zero of A in row 1 (NaN) and a 1 in row 2 (inf).
  const BoundScalar A[] = {nan, one, one, d.from_double(0), one, one};      // 3 x 2
  const BoundScalar B[] = {one, one, inf, one};                             // 2 x 2
  BoundScalar C[6];
  for (auto& c : C) c = d.from_double(0);
  d.matmul_accumulate(A, B, C, 3, 2, 2);
  CHECK(d.kind(d.closed(C[0])) == Kind::NaN);
  CHECK(d.kind(d.closed(C[1])) == Kind::NaN);
  CHECK(d.kind(d.closed(C[2])) == Kind::NaN);     // 1 * 1 + 0 * inf
  CHECK(d.kind(d.closed(C[3])) == Kind::Finite);  // 1 * 1 + 0 * 1
  CHECK(d.enclosure(d.closed(C[3])).lo == Approx(1));
  CHECK(d.kind(d.closed(C[4])) == Kind::PosInf);  // 1 * 1 + 1 * inf
  CHECK(d.kind(d.closed(C[5])) == Kind::Finite);
  CHECK(d.enclosure(d.closed(C[5])).hi == Approx(2));
  CHECK(d.bound(d.closed(C[5])) < 1e-6);  // the finite sums as before
}

namespace {

// A softmax with no max subtracted, as the printer's train steps write it, and the sum of its
// probabilities times the logits: logits of 100 overflow exp in every float32 evaluation.
const char* const kSoftmax = R"(module @m {
  func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
    %e = stablehlo.exponential %x : tensor<2x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %p = stablehlo.divide %e, %b : tensor<2x3xf32>
    %q = stablehlo.multiply %p, %x : tensor<2x3xf32>
    %t = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    return %p, %t : tensor<2x3xf32>, tensor<2xf32>
  }
})";

}  // namespace

TEST_CASE("nonfinite: a softmax that overflows in every evaluation is judged on its NaN, and a finite number there fails", "[bound][stat]") {
  const Module m = parse_module(kSoftmax, "softmax.mlir");
  // Row 0 overflows (a logit of 100), row 1 does not.
  const Arrays in = {f32_array({2, 3}, {100, 1, 2, 1, 2, 3})};
  // The honest float32 outputs, by hand: row 0's sum is inf, so p = inf / inf = NaN for the
  // first class and 1 / inf = 0 for the others; t = NaN; row 1 as usual.
  const float e1 = std::exp(1.0f), e2 = std::exp(2.0f), e3 = std::exp(3.0f), s1 = e1 + e2 + e3;
  REQUIRE(std::isinf(std::exp(100.0f)));
  const float p1[] = {e1 / s1, e2 / s1, e3 / s1};
  const float t1 = p1[0] * 1 + p1[1] * 2 + p1[2] * 3;
  const Arrays honest = {f32_array({2, 3}, {kNaN, 0, 0, p1[0], p1[1], p1[2]}), f32_array({2}, {kNaN, t1})};
  const CheckReport r = check_ieee(m, in, honest);
  REQUIRE(r.outputs.size() == 2);
  // p[0][0] and t[0] are NaN in every evaluation; p[0][1] and p[0][2], a finite exp over a sum of
  // positive exps one of which exceeds FLT_MAX, are +0 in every evaluation, their exact values
  // within e^2 / FLT_MAX of it.
  CHECK(r.outputs[0].certain_nonfinite == 1);
  CHECK(r.outputs[0].unbounded == 0);
  CHECK(r.outputs[1].certain_nonfinite == 1);
  CHECK(r.outputs[1].unbounded == 0);
  CHECK(r.outputs[1].verdict() == Verdict::Pass);
  CHECK(r.outputs[0].verdict() == Verdict::Pass);
  CHECK(r.outputs[0].statistical_only == 0);  // sound: the overflow and the exps' bounds are
  // Control: a probability that is not 0 there is a FAIL.
  const Arrays nonzero = {f32_array({2, 3}, {kNaN, 0, 1e-30f, p1[0], p1[1], p1[2]}), honest[1]};
  CHECK(check_ieee(m, in, nonzero).outputs[0].verdict() == Verdict::Fail);
  CHECK(check_ieee(m, in, nonzero).outputs[0].over == 1);
  // Only a divide of exps by their own sum from 0 is read so: x / sum(x) is not (its terms may be
  // negative, the sum far below its largest term).
  CHECK(normalizing_divides(m, true).size() == 1);
  const std::string plain = std::string(kSoftmax).replace(std::string(kSoftmax).find("%e = stablehlo.exponential %x"),
                                                          std::string("%e = stablehlo.exponential %x").size(),
                                                          "%e = stablehlo.negate %x");
  const Module m_plain = parse_module(plain, "plain.mlir");
  CHECK(normalizing_divides(m_plain).size() == 1);
  CHECK(normalizing_divides(m_plain, true).empty());
  CHECK(format_table(r).find("every float evaluation makes infinite or NaN") != std::string::npos);
  CHECK(format_json(r).find("\"certain_nonfinite\": 1") != std::string::npos);
  // Controls: a finite number where every evaluation gives NaN is a FAIL, and so is an infinity.
  const Arrays finite_loss = {honest[0], f32_array({2}, {0, t1})};
  const CheckReport f = check_ieee(m, in, finite_loss);
  CHECK(f.outputs[1].verdict() == Verdict::Fail);
  CHECK(f.outputs[1].over == 1);
  CHECK(f.outputs[1].worst_flat == 0);
  const Arrays inf_loss = {honest[0], f32_array({2}, {std::numeric_limits<float>::infinity(), t1})};
  CHECK(check_ieee(m, in, inf_loss).outputs[1].verdict() == Verdict::Fail);
  // Control: below the threshold nothing is certain, every element has a bound, and an honest
  // NaN is a FAIL.
  const Arrays small = {f32_array({2, 3}, {80, 1, 2, 1, 2, 3})};
  const CheckReport below = check_ieee(m, small, f32_outputs(kSoftmax, small));
  CHECK(below.verdict() == Verdict::Pass);
  CHECK(below.outputs[0].certain_nonfinite + below.outputs[1].certain_nonfinite == 0);
  const Arrays small_nan = {f32_outputs(kSoftmax, small)[0], f32_array({2}, {kNaN, t1})};
  CHECK(check_ieee(m, small, small_nan).outputs[1].verdict() == Verdict::Fail);
}

TEST_CASE("nonfinite: mlp_train_step on inputs between -1 and 1 is NaN in every float32 evaluation, and judged so", "[bound][stat][artifacts]") {
  const std::string text = test::read_file(artifact("mlp_train_step"));
  if (text.empty()) {
    WARN("the artifacts are not here: skipped");
    return;
  }
  const Module m = parse_module(text, "mlp_train_step.mlir");
  const Arrays in = random_inputs(m, 1, -1, 1);
  const Arrays out = f32_outputs(text, in);
  std::int64_t nan_outputs = 0;
  for (const auto& a : out)
    for (float v : data(a)) nan_outputs += v != v;
  REQUIRE(nan_outputs > 600000);  // its softmax overflows: the honest run's outputs are NaN
  const CheckReport r = check_ieee(m, in, out);
  CHECK(r.verdict() == Verdict::Pass);  // every element was NO VERDICT before
  std::int64_t certain = 0;
  for (const auto& o : r.outputs) certain += o.certain_nonfinite;
  CHECK(certain == nan_outputs);  // each softmax sum holds a certain inf, whatever its other exps do
  CHECK(format_table(r).find("or is the inf or NaN that every float evaluation gives") != std::string::npos);
  // Control: a finite number in place of one certain NaN is a FAIL.
  Arrays changed = out;
  std::get<std::vector<float>>(changed[0].data)[0] = 0.5f;
  const CheckReport c = check_ieee(m, in, changed);
  CHECK(c.verdict() == Verdict::Fail);
  CHECK(c.outputs[0].over == 1);
}

TEST_CASE("nonfinite: the statistical tier decides an overflow the sound one cannot, and a different value there is improbable", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar one = d.from_double(1), two = d.from_double(2), sound_inf = d.exp(d.from_double(100));
  // Sound: the operand may be 88 (below ln(FLT_MAX)); statistically it is 89 within 1e-3.
  const BoundScalar bounded = closed_scalar(89, 1.0, 1e-3f, 0);
  const BoundScalar e = d.exp(bounded);
  CHECK(d.kind(e) == Kind::PosInf);
  CHECK(d.probable(e));
  CHECK(d.to_string(e) == "+inf in every float evaluation but for an improbable event");
  CHECK_FALSE(d.probable(sound_inf));
  // The same under tf32, whose statistical tier decides as any profile's; control: not where the
  // statistical bound also reaches below the threshold.
  const BoundDomain tf32(float_profile("tf32"));
  CHECK(tf32.kind(tf32.exp(bounded)) == Kind::PosInf);
  CHECK(tf32.probable(tf32.exp(bounded)));
  CHECK(d.kind(d.exp(closed_scalar(89, 1.0, 0.5f, 0))) == Kind::Unknown);
  auto sum = [&](std::initializer_list<BoundScalar> terms, bool& probable) {
    BoundScalar acc = d.from_double(0);
    for (const auto& t : terms) acc = d.accumulate(acc, t);
    const BoundScalar c = d.closed(acc);
    probable = d.probable(c);
    return d.kind(c);
  };
  bool p = false;
  CHECK(sum({one, e}, p) == Kind::PosInf);
  CHECK(p);
  // Of a bounded operand that exp is soundly finite and at least 0, or +inf: with a sound +inf the
  // sum is +inf soundly.
  CHECK(sum({sound_inf, e, one}, p) == Kind::PosInf);
  CHECK_FALSE(p);
  // Of an operand without a sound bound it may be anything (NaN) in the improbable event.
  const BoundScalar e_unbounded = d.exp(closed_scalar(89, kInf, 1e-3f, 0));
  CHECK(d.probable(e_unbounded));
  CHECK(sum({sound_inf, e_unbounded}, p) == Kind::PosInf);
  CHECK(p);
  CHECK(d.kind(d.sub(e, sound_inf)) == Kind::NaN);
  CHECK(d.probable(d.sub(e, sound_inf)));
  CHECK_FALSE(d.probable(d.sub(sound_inf, sound_inf)));
  // A comparison with it is decided as the statistical tier's; a select on such a comparison
  // takes its branch: a certain one but for an improbable event, or a finite one with an
  // infinite sound bound and its statistical bound.
  const std::uint8_t gt = d.compare_bits(CompareDirection::GT, e, two);
  CHECK(gt == (kPredValue | kPredFloatMayFlip | kPredStatDecided));
  const BoundScalar nan = d.sub(sound_inf, sound_inf);
  const std::uint8_t decided = kPredFloatMayFlip | kPredStatDecided;
  CHECK(d.kind(d.select_widened(decided | kPredValue, nan, two)) == Kind::NaN);
  CHECK(d.probable(d.select_widened(decided | kPredValue, nan, two)));
  const BoundScalar chosen = d.select_widened(decided, nan, two);
  CHECK(d.bound(chosen) == kInf);
  CHECK(d.pbound(chosen) < 1e-6);
  CHECK(d.enclosure(chosen).lo == 2);
  CHECK_FALSE(d.may_be_nan(chosen));
  // Control: not decided statistically, so the NaN branch stays possible in both tiers: 2 or NaN
  // (the header's "values that may be NaN"), with 2's sound bound; with the exact comparison
  // undecided too, unknown.
  const BoundScalar undecided = d.select_widened(kPredFloatMayFlip, nan, two);
  CHECK(d.may_be_nan(undecided));
  CHECK(d.bound(undecided) == 0);
  CHECK(d.kind(d.select_widened(kPredFloatMayFlip | kPredExactUndecided, nan, two)) == Kind::Unknown);
  // A product the rules cannot decide leaves its sum unbounded in both tiers (not judged by the
  // statistical tier alone).
  BoundScalar acc = d.from_double(0);
  d.mac(acc, one, one);
  d.mac(acc, sound_inf, closed_scalar(0.5, 1, 1, 0));
  CHECK(d.kind(d.closed(acc)) == Kind::Unknown);
  CHECK(d.pbound(d.closed(acc)) == kInf);
  // A softmax's finite class over a sum of exps that overflows: +0 in every evaluation, the exact
  // quotient within e / FLT_MAX; here the overflow is only probable, so there is no sound bound.
  const BoundScalar e1 = d.exp(one);
  const BoundScalar row = d.closed(d.accumulate(d.accumulate(d.from_double(0), e1), e));
  REQUIRE(d.kind(row) == Kind::PosInf);
  const BoundScalar share = d.normalized_div(e1, row, true);
  CHECK(d.kind(share) == Kind::Unknown);  // no sound bound
  CHECK(d.bound(share) == kInf);
  CHECK(d.pbound(share) < 1e-38);
  CHECK(d.enclosure(share).lo == 0);
  CHECK(d.enclosure(share).hi < 1e-38);
  // Controls: not without the program's word that the terms are exps summed from 0, nor when the
  // sum's +inf may be exactly small (inf times 1e-30: 3e8 exactly, say).
  CHECK(d.pbound(d.normalized_div(e1, row, false)) == kInf);
  const BoundScalar small_inf = d.closed(d.accumulate(d.accumulate(d.from_double(0), e1), d.mul(sound_inf, d.from_double(1e-30))));
  REQUIRE(d.kind(small_inf) == Kind::PosInf);
  CHECK(d.pbound(d.normalized_div(e1, small_inf, true)) == kInf);
  // The verdicts: the honest +inf passes; a finite number is IMPROBABLE, where for a sound +inf it
  // is a FAIL.
  CHECK(judge_element(d, e, kInf).verdict() == Verdict::Pass);
  CHECK(judge_element(d, e, 1.0).verdict() == Verdict::Improbable);
  CHECK(judge_element(d, sound_inf, 1.0).verdict() == Verdict::Fail);
}

TEST_CASE("nonfinite: an open sum's term count stays below its marker bits", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  const BoundScalar one = d.from_double(1);
  BoundScalar acc = d.accumulate(d.accumulate(d.from_double(0), one), one);
  REQUIRE((acc.flags & kOpenSum) != 0);
  BoundScalar full = acc;
  full.terms = kTermCount;  // as after 2^26 - 1 terms
  const BoundScalar more = d.closed(d.accumulate(full, one));
  CHECK_FALSE(nonfinite(more));  // not read as a probable infinity
  CHECK(d.kind(more) == Kind::Unknown);
  CHECK(d.pbound(more) == kInf);
  BoundScalar short_sum = acc;
  short_sum.terms = 5;  // control
  CHECK(d.kind(d.closed(d.accumulate(short_sum, one))) == Kind::Finite);
  // A product sum that could reach the marker bits is refused, not miscounted.
  const BoundScalar A[] = {one}, B[] = {one};
  BoundScalar C[] = {full};
  CHECK_THROWS_AS(d.matmul_accumulate(A, B, C, 1, 1, 1), DomainError);
  BoundScalar C2[] = {short_sum};
  CHECK_NOTHROW(d.matmul_accumulate(A, B, C2, 1, 1, 1));
}
