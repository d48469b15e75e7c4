// Reduced precision: the rounding into bf16 and f8E4M3FN (interp/domain/rounding.hpp) on hand
// values and in every domain, the op-level interpreter's bf16/f8E4M3FN tensors and convert,
// and the reduced-precision constructors (ast/ctors/low_precision.def): den with the rounding
// equals the printed text run exactly, den without it does not.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "ast/mlir_print.hpp"
#include "fuzz/gen.hpp"
#include "interp/den.hpp"
#include "interp/domain/rounding.hpp"
#include "oracle/agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;
const auto BF16 = LowPrecisionFormat::BFloat16;
const auto F8 = LowPrecisionFormat::F8E4M3FN;

Rational q(const char* text) { return parse_literal(text).value; }
Rational pow2(int e) { return e >= 0 ? Rational(Integer(1) << e) : Rational(Integer(1), Integer(1) << -e); }

Strings den_strings(const ExprPtr& e, RoundingModel model) {
  Strings out;
  for (const auto& x : denote(E, *e, DenOptions{model}).value) out.push_back(E.to_string(x));
  return out;
}

// The printed text of e run in the exact domain (bf16/f8 values rounded at every typed result).
Strings text_strings(const ExprPtr& e) { return run_text_case(text_case(*e), "exact").at(0); }

}  // namespace

TEST_CASE("rounding: bf16 and f8E4M3FN round to nearest, ties to even, on hand values", "[rounding]") {
  // bf16: 8 significand bits. 1 + 2^-8 is half an ulp above 1: a tie, to the even 1.
  CHECK(round_to_format(1 + pow2(-8), BF16) == 1);
  // 1 + 3*2^-8 lies between 1 + 2^-7 (odd) and 1 + 2^-6 (even): to 1 + 2^-6.
  CHECK(round_to_format(1 + 3 * pow2(-8), BF16) == 1 + pow2(-6));
  CHECK(round_to_format(-(1 + 3 * pow2(-8)), BF16) == -(1 + pow2(-6)));
  CHECK(round_to_format(q("1/3"), BF16) == q("171/512"));
  // Subnormals: 2^-133 is the least; half of it ties to 0, three quarters rounds up.
  CHECK(round_to_format(pow2(-133), BF16) == pow2(-133));
  CHECK(round_to_format(pow2(-134), BF16) == 0);
  CHECK(round_to_format(3 * pow2(-135), BF16) == pow2(-133));
  CHECK(largest_finite(BF16) == (2 - pow2(-7)) * pow2(127));
  CHECK_THROWS_AS(round_to_format(pow2(128), BF16), RoundingOverflow);

  // f8E4M3FN: 4 significand bits, least normal 2^-6, least subnormal 2^-9, largest 448.
  CHECK(round_to_format(Rational(448), F8) == 448);
  CHECK(round_to_format(Rational(464), F8) == 448);  // the tie with the (absent) 480: to the even 448
  CHECK_THROWS_AS(round_to_format(Rational(465), F8), RoundingOverflow);  // NaN by the policy
  CHECK(round_to_format(Rational(449), F8) == 448);
  CHECK(round_to_format(pow2(-9), F8) == pow2(-9));
  CHECK(round_to_format(pow2(-10), F8) == 0);                  // tie between 0 and 2^-9: to 0
  CHECK(round_to_format(3 * pow2(-10), F8) == 2 * pow2(-9));   // tie between 2^-9 (odd) and 2^-8: to 2^-8
  CHECK(round_to_format(1 + pow2(-4), F8) == 1);               // tie, to the even 1
  CHECK(round_to_format(1 + 3 * pow2(-4), F8) == q("1.25"));   // tie between 1.125 (odd) and 1.25
  CHECK(round_to_format(q("0.1"), F8) == q("13/128"));        // 0.1 = 1.6 * 2^-4: 1.625 * 2^-4
  CHECK(round_to_format(q("-0.3"), F8) == q("-5/16"));

  // Control: Lean's rndP(7) rounds ties upward, a different model (SHLO_SEMANTICS.md's rndP).
  CHECK(round_rndp(1 + pow2(-8), 7) != round_to_format(1 + pow2(-8), BF16));
}

TEST_CASE("rounding: bf16 agrees with MPFR's IEEE emulation, an independent route", "[rounding]") {
  rc::prop("round_to_format(q, bf16) == MPFR at 8 bits", [] {
    const int num = *rc::gen::inRange(-100000, 100000), den_exp = *rc::gen::inRange(0, 140);
    const Rational x = Rational(num) * pow2(-den_exp) / Rational(*rc::gen::inRange(1, 9));
    RC_ASSERT(round_to_format(x, BF16) == round_bfloat16(x));
  });
  // Control: the other rounding of a tie disagrees with MPFR.
  CHECK(round_to_format(1 + pow2(-8), BF16) == round_bfloat16(1 + pow2(-8)));
  CHECK(round_rndp(1 + pow2(-8), 7) != round_bfloat16(1 + pow2(-8)));
}

TEST_CASE("rounding: f8E4M3FN bit patterns", "[rounding]") {
  bool nan = false;
  CHECK(f8e4m3fn_from_bits(0x38, nan) == 1);
  CHECK(f8e4m3fn_from_bits(0x7E, nan) == 448);
  CHECK(f8e4m3fn_from_bits(0x01, nan) == pow2(-9));
  CHECK(f8e4m3fn_from_bits(0xB8, nan) == -1);
  CHECK(!nan);
  f8e4m3fn_from_bits(0x7F, nan);
  CHECK(nan);
  // Every finite pattern is a fixed point of the rounding (and the values increase with the code).
  Rational previous = -1;
  for (std::uint64_t b = 0; b < 0x7F; ++b) {
    const Rational v = f8e4m3fn_from_bits(b, nan);
    CHECK(round_to_format(v, F8) == v);
    CHECK(v > previous);
    previous = v;
  }
}

TEST_CASE("rounding: in every domain (exact, f64, f32, interval, mpfr), identity leaves the value", "[rounding]") {
  const Rational tie = 1 + pow2(-8);
  CHECK(round_value(E, E.from_rational(tie), BF16, RoundingModel::NearestEven) == E.from_rational(Rational(1)));
  CHECK(round_value(E, E.from_rational(tie), BF16, RoundingModel::Identity) == E.from_rational(tie));
  CHECK(round_value(F64Domain{}, 1.00390625, BF16, RoundingModel::NearestEven) == 1.0);
  CHECK(round_value(F32Domain{}, 1.01171875f, BF16, RoundingModel::NearestEven) == 1.015625f);
  CHECK(round_value(F32Domain{}, 464.0f, F8, RoundingModel::NearestEven) == 448.0f);
  // An interval rounds both endpoints: [1/3, 1/2] -> [171/512, 1/2], still an enclosure.
  const IntervalDomain I(64);
  const auto third_to_half = I.parse("[0.333333333333333333, 0.5]");
  const auto r = round_value(I, third_to_half, BF16, RoundingModel::NearestEven);
  CHECK(IntervalDomain::contains(r, q("171/512")));
  CHECK(IntervalDomain::contains(r, q("1/2")));
  CHECK(!IntervalDomain::contains(r, q("1/3")));  // control: the unrounded end is outside
  const MpfrDomain M(53);
  CHECK(M.to_string(round_value(M, M.from_rational(q("1/3")), F8, RoundingModel::NearestEven)) == M.to_string(M.from_rational(q("11/32"))));
}

TEST_CASE("f8E4M3FN tensors: parse and print round trip, convert of hand values, bad types located", "[rounding][mlir]") {
  const std::string text = module_text("%a: tensor<5xf32>", "tensor<5xf32>",
                                       "    %b = stablehlo.convert %a : (tensor<5xf32>) -> tensor<5xf8E4M3FN>\n"
                                       "    %c = stablehlo.convert %b : (tensor<5xf8E4M3FN>) -> tensor<5xbf16>\n"
                                       "    %r = stablehlo.convert %c : (tensor<5xbf16>) -> tensor<5xf32>\n",
                                       "%r");
  const Module m = parse_module(text, "t.mlir");
  CHECK(print_module(m) == text);
  CHECK(std::get<Instruction>(m.function().body.at(0)).result_type.element == ElementType::F8E4M3FN);
  // 1 + 2^-4 ties to 1; 1 + 3*2^-4 to 1.25; 464 to 448; 2^-10 to 0; 1/3 to 11/32.
  CHECK(run1(E, text, {{"17/16", "19/16", "464", "1/1024", "1/3"}}) == Strings{"1", "5/4", "448", "0", "11/32"});
  // Beyond the range: NaN in f32 (no infinity in f8E4M3FN); bf16 overflows to infinity.
  CHECK(run1(F32Domain{}, text, {{"480", "-1000", "1", "2", "3"}}).at(0) == "nan");
  const std::string to_bf16 = module_text("%a: tensor<1xf64>", "tensor<1xf64>",
                                          "    %b = stablehlo.convert %a : (tensor<1xf64>) -> tensor<1xbf16>\n"
                                          "    %r = stablehlo.convert %b : (tensor<1xbf16>) -> tensor<1xf64>\n",
                                          "%r");
  CHECK(run1(F64Domain{}, to_bf16, {{"1e39"}}) == Strings{"inf"});
  // An f8E4M3FN constant by its bit pattern (two hex digits).
  const std::string constant = module_text("", "tensor<2xf8E4M3FN>", "    %c = stablehlo.constant dense<[0x7E, 0x01]> : tensor<2xf8E4M3FN>\n", "%c");
  CHECK(run1(E, constant, {}) == Strings{"448", "1/512"});
  // Errors: an unknown element type, located; a hex literal too wide for f8E4M3FN.
  try {
    parse_module(module_text("%a: tensor<2xf8E5M2>", "tensor<2xf32>", "", "%a"), "t.mlir");
    FAIL("f8E5M2 parsed");
  } catch (const ParseError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("t.mlir:2:") && Catch::Contains("f8E4M3FN"));
  }
  try {
    parse_module(module_text("", "tensor<1xf8E4M3FN>", "    %c = stablehlo.constant dense<0x1FF> : tensor<1xf8E4M3FN>\n", "%c"), "t.mlir");
    FAIL("a 3-digit f8 hex literal parsed");
  } catch (const ParseError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("t.mlir:3:") && Catch::Contains("2 digits of f8E4M3FN"));
  }
}

TEST_CASE("den of the reduced-precision constructors on hand values, with and without the rounding", "[den][lowprec]") {
  const Rational tie = 1 + pow2(-8);
  // dotInBf16: y = rnd(u) rnd(W), no store: 257/256 * 3 with the rounding is 1 * 3.
  const auto dot = node("dotInBf16", {{"m", 1}, {"n", 1}}, {{"W", {"3"}}}, {leaf("%u", {"257/256"})});
  CHECK(den_strings(dot, RoundingModel::NearestEven) == Strings{"3"});
  CHECK(den_strings(dot, RoundingModel::Identity) == Strings{"771/256"});  // the f32 peer's value
  // flatConvFBf16 (1x1): rnd(rnd(W) rnd(u)) + b; 3 * 1 = 3, then + 1/3 unrounded.
  const Nats one = {{"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
  const auto conv = node("flatConvFBf16", one, {{"W", {"3"}}, {"b", {"1/3"}}}, {leaf("%u", {"257/256"})});
  CHECK(den_strings(conv, RoundingModel::NearestEven) == Strings{"10/3"});
  // The store: 1/3 * 1 rounds to 171/512 (only the outer rounding acts on an exact product).
  const auto store = node("flatConvFBf16", one, {{"W", {"1"}}, {"b", {"0"}}}, {leaf("%u", {"1/3"})});
  CHECK(den_strings(store, RoundingModel::NearestEven) == Strings{"171/512"});
  // convF8 at N = 2: 17/16 rounds to 1 and 19/16 to 5/4, times W = 3 gives 3 and 15/4 (exact in f8).
  Nats batched = one;
  batched["N"] = 2;
  const auto f8 = node("batchOp/convF8", batched, {{"W", {"3"}}, {"bias", {"0"}}}, {leaf("%u", {"17/16", "19/16"})});
  CHECK(den_strings(f8, RoundingModel::NearestEven) == Strings{"3", "15/4"});
  // Control: the bf16 peer rounds the same inputs differently (17/16 is exact in bf16).
  const auto bf = node("batchOp/convBf16", batched, {{"W", {"3"}}, {"bias", {"0"}}}, {leaf("%u", {"17/16", "19/16"})});
  CHECK(den_strings(bf, RoundingModel::NearestEven) == Strings{"51/16", "57/16"});
  // convWeightGradB: one store outside the batch sum.
  const auto wgrad = node("convWeightGradBBf16", batched, {{"b", {"0"}}, {"x", {"1", "1"}}, {"W", {"0"}}}, {leaf("%u", {"1/2", "1/5"})});
  // x = 1, dy = 1/2 (exact) and 1/5 -> 205/1024; the sum 717/1024 rounds to 179/256 (717 = 1011001101b).
  CHECK(den_strings(wgrad, RoundingModel::NearestEven) == Strings{"179/256"});
  CHECK(den_strings(wgrad, RoundingModel::Identity) == Strings{"7/10"});
  const auto back = node("convBackBatchedF8", batched, {{"W", {"1/3"}}, {"b", {"0"}}}, {leaf("%u", {"1", "3"})});
  // rnd(1/3) = 11/32; 11/32 * 3 = 33/32 -> 1 (tie to even).
  CHECK(den_strings(back, RoundingModel::NearestEven) == Strings{"11/32", "1"});
}

TEST_CASE("reduced precision: den with the rounding equals the text run exactly, and without it does not", "[den][lowprec][property]") {
  struct Case {
    const char* ctor;
    bool batched;
  };
  const std::vector<Case> rows = {{"dotInBf16", false},        {"flatConvFBf16", false},     {"batchOp/convBf16", true},
                                  {"batchOp/convF8", true},     {"convBackBatchedBf16", true}, {"convBackBatchedF8", true},
                                  {"convWeightGradBBf16", true}, {"convWeightGradBF8", true}};
  for (const auto& row : rows) {
    const std::string name = std::string("den(nearest-even) == text, exactly: ") + row.ctor;
    rc::prop(name, [&] {
      const std::int64_t N = row.batched ? *rc::gen::inRange<std::int64_t>(1, 3) : 1;
      const std::int64_t a = *rc::gen::inRange<std::int64_t>(1, 3), b = *rc::gen::inRange<std::int64_t>(1, 3);
      const std::int64_t h = *rc::gen::inRange<std::int64_t>(1, 3), w = *rc::gen::inRange<std::int64_t>(1, 3);
      const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3);
      const std::string ctor = row.ctor;
      Nats nats;
      std::int64_t in = 0;
      if (ctor == "dotInBf16") {
        nats = {{"m", a}, {"n", b}};
        in = a;
      } else {
        nats = {{"ic", a}, {"oc", b}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
        if (row.batched) nats["N"] = N;
        const bool cotangent = ctor.rfind("conv", 0) == 0 && ctor.find("Back") != std::string::npos;
        in = N * (cotangent || ctor.rfind("convWeightGrad", 0) == 0 ? b : a) * h * w;
      }
      std::map<std::string, std::string> strings;
      for (const char* s : find_constructor(ctor)->strings) strings[s] = std::string("%") + s;
      const ExprPtr plan = make_skeleton(ctor, nats, {make_skeleton("operand", {{"n", in}}, {}, {{"name", "%u"}})}, strings);
      const ExprPtr e = *fuzz::gen_values(plan);
      Agreement agreement;
      try {
        agreement = den_agrees_with_text(*e);
      } catch (const DomainError& error) {  // den reports a value beyond the format's range
        RC_PRE(std::string(error.what()).find("overflows") == std::string::npos);
        throw;
      }
      RC_ASSERT(agreement.agree);
    });
  }
  // The control: on an input where the rounding matters, den without it (the Lean renders'
  // identity) differs from the text, for every row.
  for (const auto& row : rows) {
    INFO(row.ctor);
    const std::string ctor = row.ctor;
    Nats nats = ctor == "dotInBf16" ? Nats{{"m", 1}, {"n", 1}} : Nats{{"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
    if (row.batched) nats["N"] = 1;
    Reals reals;
    for (const auto& f : find_constructor(ctor)->reals) reals[f.name] = {"1/3"};
    const auto e = node(ctor.c_str(), nats, reals, {leaf("%u", {"1/3"})});
    CHECK(den_strings(e, RoundingModel::NearestEven) == text_strings(e));
    CHECK(den_strings(e, RoundingModel::Identity) != text_strings(e));
  }
}

namespace {

// The strided and depthwise bf16 peers, with the kernel sizes where their f32 peers' text is
// den's (fuzz/gen.cpp's conv lists): forwards, input VJPs, weight gradients.
// The ViT peers' shapes: Dense rows take (N, tk, a, c), Matmul rows (N, m, k, n).
enum class PeerShape { Conv, Depthwise, Dense, Matmul };
struct PeerRow {
  const char* ctor;
  PeerShape shape;
  std::vector<std::int64_t> kernels = {1};
};
const std::vector<PeerRow> kStridedDepthwisePeers = {
    {"batchOp/convStridedBf16", PeerShape::Conv, {1, 3}},
    {"batchOp/convStridedXlaBf16", PeerShape::Conv, {3}},
    {"batchOp/convStride4Bf16", PeerShape::Conv, {3, 4}},
    {"batchOp/depthwiseBf16", PeerShape::Depthwise, {1, 3}},
    {"batchOp/depthwiseStridedBf16", PeerShape::Depthwise, {1, 3}},
    {"batchOp/depthwiseStridedXlaBf16", PeerShape::Depthwise, {3}},
    {"convStridedBackBatchedBf16", PeerShape::Conv, {1, 2, 3}},
    {"depthwiseBackBatchedBf16", PeerShape::Depthwise, {1, 3}},
    {"depthwiseStridedBackBatchedBf16", PeerShape::Depthwise, {1, 3}},
    {"depthwiseStridedXlaBackBatchedBf16", PeerShape::Depthwise, {3}},
    {"convStridedWeightGradBBf16", PeerShape::Conv, {1, 2, 3}},
    {"convStridedXlaWeightGradBBf16", PeerShape::Conv, {3}},
    {"convStride4WeightGradBBf16", PeerShape::Conv, {4}},
    {"depthwiseWeightGradBBf16", PeerShape::Depthwise, {1, 3}},
    {"depthwiseStridedWeightGradBBf16", PeerShape::Depthwise, {1, 3}},
    {"depthwiseStridedXlaWeightGradBBf16", PeerShape::Depthwise, {3}},
    {"batchOp/denseRowBf16", PeerShape::Dense},
    {"batchOp/denseRowBackBf16", PeerShape::Dense},
    {"matmulFBBf16", PeerShape::Matmul},
    {"rowDenseWeightGradBBf16", PeerShape::Dense},
};

Nats peer_nats(const PeerRow& row, std::int64_t N, std::int64_t a, std::int64_t b, std::int64_t h, std::int64_t w, std::int64_t k) {
  switch (row.shape) {
    case PeerShape::Conv: return {{"N", N}, {"ic", a}, {"oc", b}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
    case PeerShape::Depthwise: return {{"N", N}, {"c", a}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
    case PeerShape::Dense: return {{"N", N}, {"tk", h}, {"a", a}, {"c", b}};
    case PeerShape::Matmul: return {{"N", N}, {"m", a}, {"k", h}, {"n", b}};
  }
  return {};
}

// One operand leaf per child of the row (%u, %v), each of value `fill` or to be drawn.
std::vector<ExprPtr> peer_children(const CtorSpec& spec, const Nats& nats, const char* fill) {
  std::vector<ExprPtr> kids;
  const char* names[] = {"%u", "%v"};
  for (std::size_t i = 0; i < spec.child_lengths.size(); ++i) {
    const auto n = eval_length(spec.child_lengths[i], nats);
    kids.push_back(fill ? leaf(names[i], Strings(static_cast<std::size_t>(n), fill))
                        : make_skeleton("operand", {{"n", n}}, {}, {{"name", names[i]}}));
  }
  return kids;
}

}  // namespace

TEST_CASE("strided, depthwise and ViT bf16 peers: hand values, the phase and the rounding", "[den][lowprec]") {
  // batchOp/convStridedBf16, one 2x2 input [257/256, 5; 6, 7], a 1x1 kernel 3, bias 1/3: the
  // symmetric stride 2 reads (0, 0): rnd(257/256) = 1, so 3 + 1/3.
  const Nats one = {{"N", 1}, {"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
  const Reals wb = {{"W", {"3"}}, {"bias", {"1/3"}}};
  const auto strided = node("batchOp/convStridedBf16", one, wb, {leaf("%u", {"257/256", "5", "6", "7"})});
  CHECK(den_strings(strided, RoundingModel::NearestEven) == Strings{"10/3"});
  CHECK(den_strings(strided, RoundingModel::Identity) == Strings{"2569/768"});
  CHECK(text_strings(strided) == Strings{"10/3"});
  // Control: the XLA-SAME peer reads phase 1, i.e. (1, 1) = 7, at a 3x3 kernel's centre.
  const Nats xla = {{"N", 1}, {"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 3}, {"kW", 3}};
  const auto centre = node("batchOp/convStridedXlaBf16", xla, {{"W", {"0", "0", "0", "0", "3", "0", "0", "0", "0"}}, {"bias", {"1/3"}}},
                           {leaf("%u", {"257/256", "5", "6", "7"})});
  CHECK(den_strings(centre, RoundingModel::NearestEven) == Strings{"64/3"});
  CHECK(text_strings(centre) == Strings{"64/3"});
  // The weight gradient stores once, after the batch sum: x = 1 at both examples, dy = 1/2 and
  // 1/5 -> 205/1024; 717/1024 rounds to 179/256 (as convWeightGradBBf16 at stride 1).
  const Nats two = {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
  const auto wgrad = node("depthwiseWeightGradBBf16", two, {{"b", {"0"}}, {"x", {"1", "1"}}, {"W", {"0"}}}, {leaf("%u", {"1/2", "1/5"})});
  CHECK(den_strings(wgrad, RoundingModel::NearestEven) == Strings{"179/256"});
  CHECK(den_strings(wgrad, RoundingModel::Identity) == Strings{"7/10"});
  CHECK(text_strings(wgrad) == Strings{"179/256"});

  // The ViT peers. denseRowBf16 at one token: rnd(rnd(257/256) * 3) + 1/3 = 10/3.
  const Nats token = {{"N", 1}, {"tk", 1}, {"a", 1}, {"c", 1}};
  const auto dense = node("batchOp/denseRowBf16", token, {{"W", {"3"}}, {"b", {"1/3"}}}, {leaf("%u", {"257/256"})});
  CHECK(den_strings(dense, RoundingModel::NearestEven) == Strings{"10/3"});
  CHECK(den_strings(dense, RoundingModel::Identity) == Strings{"2569/768"});
  // matmulFBBf16 stores its product, rowDenseWeightGradBBf16 does not (an f32 result): both
  // multiply rnd(1/3) = 171/512 by itself, 29241/262144 (15 significant bits), which the
  // store rounds to 228 * 2^7 / 2^18 = 57/512.
  const auto matmul = node("matmulFBBf16", {{"N", 1}, {"m", 1}, {"k", 1}, {"n", 1}}, {}, {leaf("%u", {"1/3"}), leaf("%v", {"1/3"})});
  CHECK(den_strings(matmul, RoundingModel::NearestEven) == Strings{"57/512"});
  CHECK(text_strings(matmul) == Strings{"57/512"});
  const auto rowgrad = node("rowDenseWeightGradBBf16", token, {{"x", {"1/3"}}}, {leaf("%u", {"1/3"})});
  CHECK(den_strings(rowgrad, RoundingModel::NearestEven) == Strings{"29241/262144"});
  CHECK(text_strings(rowgrad) == Strings{"29241/262144"});
}

TEST_CASE("strided, depthwise and ViT bf16 peers: den with the rounding equals the text run exactly, and without it does not",
          "[den][lowprec][property]") {
  for (const auto& row : kStridedDepthwisePeers) {
    rc::prop(std::string("den(nearest-even) == text, exactly: ") + row.ctor, [&] {
      const Nats nats = peer_nats(row, *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3),
                                  *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3),
                                  *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::elementOf(row.kernels));
      const CtorSpec& spec = *find_constructor(row.ctor);
      std::map<std::string, std::string> strings;
      for (const char* s : spec.strings) strings[s] = std::string("%") + s;
      const ExprPtr plan = make_skeleton(row.ctor, nats, peer_children(spec, nats, nullptr), strings);
      const ExprPtr e = *fuzz::gen_values(plan);
      RC_ASSERT(den_agrees_with_text(*e).agree);
    });
  }
  // The control: every value 1/3 (not a bf16 number), so den without the rounding differs.
  for (const auto& row : kStridedDepthwisePeers) {
    INFO(row.ctor);
    const Nats nats = peer_nats(row, 1, 1, 1, 1, 1, row.kernels.back());
    const CtorSpec& spec = *find_constructor(row.ctor);
    Reals reals;
    for (const auto& f : spec.reals) reals[f.name] = Strings(static_cast<std::size_t>(eval_length(f.length, nats)), "1/3");
    const auto e = node(row.ctor, nats, reals, peer_children(spec, nats, "1/3"));
    CHECK(den_strings(e, RoundingModel::NearestEven) == text_strings(e));
    CHECK(den_strings(e, RoundingModel::Identity) != text_strings(e));
  }
}
