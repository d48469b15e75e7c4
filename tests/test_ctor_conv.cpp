// The strided and depthwise convolution constructors (docs/lean/conv-families-conv.md): den on
// small cases computed by hand, the adjoint identities that make the backward rows the VJPs of
// the forward ones (an independent route: inner products), the batch lifts, the printed text
// of small cases (the notes' templates, the even-kernel pads) and lifting it back, and den
// against the op-level run of the emitted text for every row.
#include "ast/emit.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/skel.hpp"
#include "ast/template.hpp"
#include "interp/den.hpp"
#include "oracle/agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

#include <algorithm>

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

Strings count_up(int n, int from = 1) {  // "from", "from+1", ...
  Strings v;
  for (int i = 0; i < n; ++i) v.push_back(std::to_string(from + i));
  return v;
}

// Small integers in a fixed pseudo-random pattern (no ties, signs mixed).
Strings pattern(std::int64_t n, int seed) {
  Strings v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(std::to_string(((i + 1) * (7 + 2 * seed) + seed) % 11 - 5));
  return v;
}

ExtRational dot(const std::vector<ExtRational>& a, const Strings& b) {
  ExtRational acc = Rational(0);
  for (std::size_t i = 0; i < a.size(); ++i) acc = E.add(acc, E.mul(a[i], E.from_literal(b[i])));
  return acc;
}

std::vector<ExtRational> values(const ExprPtr& e) { return denote(E, *e).value; }

Nats dense(std::int64_t ic, std::int64_t oc, std::int64_t h, std::int64_t w, std::int64_t k) {
  return {{"ic", ic}, {"oc", oc}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
}
Nats depthwise(std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k) { return {{"c", c}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}}; }
Nats with_n(Nats n, std::int64_t N) {
  n["N"] = N;
  return n;
}

const Strings kImage4x4 = count_up(16);                             // X[r][s] = 4r + s + 1
const Strings kOnes9 = Strings(9, "1");
const Strings kFirstTap = {"1", "0", "0", "0", "0", "0", "0", "0", "0"};  // W[0][0] = 1
const Strings kW1to9 = count_up(9);                                 // W[kh][kw] = 3kh + kw + 1

}  // namespace

TEST_CASE("conv: template expressions subtract as naturals, left to right", "[ctor-conv]") {
  auto value = [](const std::string& expr, std::map<std::string, std::int64_t> nats) {
    std::int64_t v = -1;
    REQUIRE(eval_nat(expr, nats, v));
    return v;
  };
  CHECK(value("R-1", {{"R", 4}}) == 3);
  CHECK(value("kH-1-pH", {{"kH", 2}}) == 1);  // pH = 0: the 2x2 input VJP's low pad
  CHECK(value("kH-1-pH", {{"kH", 3}}) == 1);
  CHECK(value("pH-1", {{"kH", 1}}) == 0);     // natural: not -1
  CHECK(value("pH+1", {{"kH", 5}}) == 3);
  CHECK(value("4*h-3", {{"h", 2}}) == 5);
  CHECK(value("kH-3-pH", {{"kH", 4}}) == 0);
  // The weight gradients' upsampled extent: 2h for odd kernels, 2h - 1 for even ones.
  CHECK(value("2*h+2*pH+1-kH", {{"h", 3}, {"kH", 3}}) == 6);
  CHECK(value("2*h+2*pH+1-kH", {{"h", 3}, {"kH", 2}}) == 5);
  CHECK(value("2*pH+2-kH", {{"kH", 4}}) == 0);
  // Control: an unknown name is refused, not read as 0.
  std::int64_t v = 0;
  CHECK_FALSE(eval_nat("kH-q", {{"kH", 3}}, v));
}

TEST_CASE("strided conv: the forward, symmetric and XLA-SAME phases, by hand", "[ctor-conv]") {
  const auto x = leaf("%x", kImage4x4);
  // Symmetric (phase 0): y[i,j] = b + sum of X~ over rows 2i-1..2i+1, columns 2j-1..2j+1.
  CHECK(den_exact(node("flatConvStridedF", dense(1, 1, 2, 2, 3), {{"W", kOnes9}, {"b", {"10"}}}, {x})) == Strings{"24", "40", "67", "109"});
  // XLA-SAME (phase 1): rows 2i..2i+2, columns 2j..2j+2.
  CHECK(den_exact(node("flatConvStridedXlaF", dense(1, 1, 2, 2, 3), {{"W", kOnes9}, {"b", {"10"}}}, {x})) == Strings{"64", "55", "82", "64"});
  // The kernel's orientation: W[0][0] alone reads X~[2i-1, 2j-1] (symmetric), X[2i, 2j] (XLA).
  CHECK(den_exact(node("flatConvStridedF", dense(1, 1, 2, 2, 3), {{"W", kFirstTap}, {"b", {"0"}}}, {x})) == Strings{"0", "0", "0", "6"});
  CHECK(den_exact(node("flatConvStridedXlaF", dense(1, 1, 2, 2, 3), {{"W", kFirstTap}, {"b", {"0"}}}, {x})) == Strings{"1", "3", "9", "11"});
  // The descriptors are the same maps on each example.
  const auto x2 = leaf("%x", count_up(32));
  const Strings two = den_exact(node("batchOp/convStrided", with_n(dense(1, 1, 2, 2, 3), 2), {{"W", kOnes9}, {"bias", {"10"}}}, {x2}));
  CHECK(Strings(two.begin(), two.begin() + 4) == Strings{"24", "40", "67", "109"});
  CHECK(Strings(two.begin() + 4, two.end()) == Strings{"88", "136", "163", "253"});  // the second image is the first plus 16
  CHECK(den_exact(node("batchOp/convStridedXla", with_n(dense(1, 1, 2, 2, 3), 1), {{"W", kOnes9}, {"bias", {"10"}}}, {x})) ==
        Strings{"64", "55", "82", "64"});
  // Stride 4 (pH = 1, phase 1): the 4x4 window [4i, 4i+3] with no padding.
  const Strings w16 = count_up(16, 0);  // W[kh][kw] = 4kh + kw
  CHECK(den_exact(node("flatConvStride4F", dense(1, 1, 1, 1, 4), {{"W", Strings(16, "1")}, {"b", {"0"}}}, {x})) == Strings{"136"});
  CHECK(den_exact(node("flatConvStride4F", dense(1, 1, 1, 1, 4), {{"W", w16}, {"b", {"0"}}}, {x})) == Strings{"1360"});
  // Control: the symmetric stride-2 phase reads another window.
  CHECK(den_exact(node("flatConvStridedF", dense(1, 1, 2, 2, 3), {{"W", kOnes9}, {"b", {"10"}}}, {x})) != Strings{"64", "55", "82", "64"});
}

TEST_CASE("strided conv: input VJP and weight gradient by hand, even kernels included", "[ctor-conv]") {
  // dy = e(0,0) on the 2x2 output: dx[r,s] = W[r-2*0+pH, s+pH] where that is a tap.
  const auto e00 = leaf("%d", {"1", "0", "0", "0"});
  const Reals back3 = {{"W", kW1to9}, {"b", {"0"}}, {"v", Strings(16, "0")}};
  CHECK(den_exact(node("convStridedBack", dense(1, 1, 2, 2, 3), back3, {e00})) ==
        Strings{"5", "6", "0", "0", "8", "9", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0"});
  // Control: the XLA phase puts W[kh][kw] at (kh, kw).
  CHECK(den_exact(node("depthwiseStridedXlaBack", depthwise(1, 2, 2, 3), back3, {e00})) ==
        Strings{"1", "2", "3", "0", "4", "5", "6", "0", "7", "8", "9", "0", "0", "0", "0", "0"});
  // The even kernel kH = kW = 2 (pH = 0, ConvNeXt's 2x2/s2 downsample): dx[2i+kh, 2j+kw] = W[kh][kw] dy[i,j].
  const Reals back2 = {{"W", {"1", "2", "3", "4"}}, {"b", {"0"}}, {"v", Strings(16, "0")}};
  CHECK(den_exact(node("convStridedBack", dense(1, 1, 2, 2, 2), back2, {leaf("%d", {"0", "0", "0", "10"})})) ==
        Strings{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "10", "20", "0", "0", "30", "40"});
  // Weight gradient with dy = e(1,1): G[kh,kw] = X~[2+kh-pH, 2+kw-pW] (symmetric), X~[3+kh-pH, ...] (XLA).
  const auto e11 = leaf("%d", {"0", "0", "0", "1"});
  const Reals saved = {{"x", kImage4x4}, {"b", {"0"}}, {"W", Strings(9, "0")}};
  CHECK(den_exact(node("convStridedWeightGrad", dense(1, 1, 2, 2, 3), saved, {e11})) == Strings{"6", "7", "8", "10", "11", "12", "14", "15", "16"});
  CHECK(den_exact(node("convStridedXlaWeightGradB", with_n(dense(1, 1, 2, 2, 3), 1), saved, {e11})) ==
        Strings{"11", "12", "0", "15", "16", "0", "0", "0", "0"});
  // Fused SGD: W - lr * G.
  Reals sgd = {{"x", kImage4x4}, {"b", {"0"}}, {"W", Strings(9, "1")}, {"lr", {"1/2"}}};
  CHECK(den_exact(node("convStridedWeightSgd", dense(1, 1, 2, 2, 3), sgd, {e11}, {{"lrStr", "0.5"}})) ==
        Strings{"-2", "-5/2", "-3", "-4", "-9/2", "-5", "-6", "-13/2", "-7"});
  // Bias gradient: the sum over space, whatever the stride; its SGD subtracts lr times it.
  CHECK(den_exact(node("convStridedBiasGrad", dense(1, 2, 1, 2, 1), {{"W", {"0", "0"}}, {"x", Strings(8, "0")}, {"b", {"0", "0"}}},
                       {leaf("%d", {"1", "2", "3", "4"})})) == Strings{"3", "7"});
  CHECK(den_exact(node("depthwiseStridedBiasSgd", depthwise(2, 1, 2, 1), {{"W", {"0", "0"}}, {"x", Strings(16, "0")}, {"b", {"1", "1"}}, {"lr", {"1/2"}}},
                       {leaf("%d", {"1", "2", "3", "4"})}, {{"lrStr", "0.5"}})) == Strings{"-1/2", "-5/2"});
  // Stride 4 weight gradient at the 4x4 stem (pH = 1): G[kh,kw] = X[kh, kw] dy[0,0].
  CHECK(den_exact(node("convStride4WeightGrad", dense(1, 1, 1, 1, 4), {{"x", kImage4x4}, {"b", {"0"}}, {"W", Strings(16, "0")}},
                       {leaf("%d", {"2"})})) == Strings{"2", "4", "6", "8", "10", "12", "14", "16", "18", "20", "22", "24", "26", "28", "30", "32"});
}

TEST_CASE("depthwise conv: each channel with its own filter, by hand", "[ctor-conv]") {
  // Channel 0: all-ones 3x3 on a 2x2 image sums it; channel 1: the centre tap is the identity.
  const Strings W = {"1", "1", "1", "1", "1", "1", "1", "1", "1", "0", "0", "0", "0", "1", "0", "0", "0", "0"};
  const auto x = leaf("%x", {"1", "2", "3", "4", "10", "20", "30", "40"});
  CHECK(den_exact(node("depthwiseF", depthwise(2, 2, 2, 3), {{"W", W}, {"b", {"0", "1"}}}, {x})) ==
        Strings{"10", "10", "10", "10", "11", "21", "31", "41"});
  // Control: a dense convolution with the same taps on the diagonal mixes nothing, but one
  // with every channel pair would add channel 0 into channel 1.
  CHECK(den_exact(node("depthwiseF", depthwise(2, 2, 2, 3), {{"W", W}, {"b", {"0", "1"}}}, {x})) != Strings{"10", "10", "10", "10", "21", "31", "41", "51"});
  // Weight gradient per channel: dW[c,kh,kw] = sum_ij X~[c, i+kh-1, j+kw-1] dy[c,i,j], dy = e(0,0) per channel.
  CHECK(den_exact(node("depthwiseWeightGrad", depthwise(2, 2, 2, 3), {{"b", {"0", "0"}}, {"x", {"1", "2", "3", "4", "10", "20", "30", "40"}}, {"W", Strings(18, "0")}},
                       {leaf("%d", {"1", "0", "0", "0", "1", "0", "0", "0"})})) ==
        Strings{"0", "0", "0", "0", "1", "2", "0", "3", "4", "0", "0", "0", "0", "10", "20", "0", "30", "40"});
  // Input VJP, stride 1: dx[c,r,s] = sum_ij W[c, r-i+1, s-j+1] dy[c,i,j]; dy = e(0,0): dx = W[c][1..2][1..2].
  CHECK(den_exact(node("depthwiseBack", depthwise(1, 2, 2, 3), {{"W", kW1to9}, {"b", {"0"}}, {"v", Strings(4, "0")}}, {leaf("%d", {"1", "0", "0", "0"})})) ==
        Strings{"5", "6", "8", "9"});
}

TEST_CASE("conv: every backward row is the transpose of its forward (inner products)", "[ctor-conv]") {
  // <F(W, 0, X), D> = <X, back(W, D)> = <W, weightGrad(X, D)>, and <F(0, b, X), D> = <b, biasGrad(D)>,
  // for kernels 1, 2, 3, on 2 channels and a 2x3 output grid.
  struct Family {
    const char *fwd, *back, *weight, *bias;
    std::int64_t stride;
    bool depthwise;
  };
  const std::vector<Family> families = {
      {"flatConvStridedF", "convStridedBack", "convStridedWeightGrad", "convStridedBiasGrad", 2, false},
      {"flatConvStridedXlaF", nullptr, "convStridedXlaWeightGradB", "convStridedXlaBiasGradB", 2, false},
      {"flatConvStride4F", nullptr, "convStride4WeightGrad", nullptr, 4, false},
      {"depthwiseF", "depthwiseBack", "depthwiseWeightGrad", "depthwiseBiasGrad", 1, true},
      {"depthwiseStridedF", "depthwiseStridedBack", "depthwiseStridedWeightGradB", "depthwiseStridedBiasGradB", 2, true},
      {"depthwiseStridedXlaF", "depthwiseStridedXlaBack", "depthwiseStridedXlaWeightGradB", "depthwiseStridedXlaBiasGradB", 2, true},
  };
  for (const auto& f : families)
    for (std::int64_t k : {1, 2, 3}) {
      INFO(f.fwd << " kernel " << k);
      Nats nats = f.depthwise ? depthwise(2, 2, 3, k) : dense(2, 3, 2, 3, k);
      const std::int64_t in_c = 2, out_c = f.depthwise ? 2 : 3, in_len = in_c * 2 * f.stride * 3 * f.stride, out_len = out_c * 6;
      const std::int64_t w_len = out_c * (f.depthwise ? 1 : in_c) * k * k;
      const Strings W = pattern(w_len, 1), X = pattern(in_len, 2), Dy = pattern(out_len, 3), b = pattern(out_c, 4);
      const auto y = values(node(f.fwd, nats, {{"W", W}, {"b", Strings(static_cast<std::size_t>(out_c), "0")}}, {leaf("%x", X)}));
      const ExtRational lhs = dot(y, Dy);
      const bool batched_grad = std::string(f.weight).back() == 'B';
      const Nats grad_nats = batched_grad ? with_n(nats, 1) : nats;
      const auto gw = values(node(f.weight, grad_nats, {{"x", X}, {"b", Strings(static_cast<std::size_t>(out_c), "0")}, {"W", W}}, {leaf("%d", Dy)}));
      CHECK(dot(gw, W) == lhs);
      if (f.back) {
        const auto dx = values(node(f.back, nats, {{"W", W}, {"b", Strings(static_cast<std::size_t>(out_c), "0")}, {"v", Strings(static_cast<std::size_t>(in_len), "0")}},
                                    {leaf("%d", Dy)}));
        CHECK(dot(dx, X) == lhs);
        // Control: the other phase's backward is not the transpose of this forward.
        if (k == 3 && f.stride == 2 && f.depthwise) {
          const char* other = std::string(f.back) == "depthwiseStridedBack" ? "depthwiseStridedXlaBack" : "depthwiseStridedBack";
          const auto wrong = values(node(other, nats, {{"W", W}, {"b", Strings(2, "0")}, {"v", Strings(static_cast<std::size_t>(in_len), "0")}}, {leaf("%d", Dy)}));
          CHECK(dot(wrong, X) != lhs);
        }
      }
      if (f.bias) {
        const auto yb = values(node(f.fwd, nats, {{"W", Strings(static_cast<std::size_t>(w_len), "0")}, {"b", b}}, {leaf("%x", X)}));
        const Nats bias_nats = std::string(f.bias).back() == 'B' ? with_n(nats, 1) : nats;
        const auto gb = values(node(f.bias, bias_nats, {{"W", W}, {"x", X}, {"b", b}}, {leaf("%d", Dy)}));
        CHECK(dot(gb, b) == dot(yb, Dy));
      }
    }
}

TEST_CASE("conv: batched rows map over the examples or sum their gradients", "[ctor-conv]") {
  const Nats one = dense(2, 2, 2, 2, 3);
  const Strings W = pattern(36, 1), X0 = pattern(32, 2), X1 = pattern(32, 5), D0 = pattern(8, 3), D1 = pattern(8, 6);
  auto cat = [](Strings a, const Strings& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const Reals back = {{"W", W}, {"b", {"0", "0"}}, {"v", Strings(32, "0")}};
  const Strings per0 = den_exact(node("convStridedBack", one, back, {leaf("%d", D0)}));
  const Strings per1 = den_exact(node("convStridedBack", one, back, {leaf("%d", D1)}));
  CHECK(den_exact(node("convStridedBackBatched", with_n(one, 2), {{"W", W}, {"b", {"0", "0"}}}, {leaf("%d", cat(D0, D1))})) == cat(per0, per1));
  // The gradients sum: G(x0, d0) + G(x1, d1); the fused SGD subtracts lr times the sum.
  const auto g0 = values(node("convStridedWeightGrad", one, {{"x", X0}, {"b", {"0", "0"}}, {"W", W}}, {leaf("%d", D0)}));
  const auto g1 = values(node("convStridedWeightGrad", one, {{"x", X1}, {"b", {"0", "0"}}, {"W", W}}, {leaf("%d", D1)}));
  const auto gB = values(node("convStridedWeightGradB", with_n(one, 2), {{"x", cat(X0, X1)}, {"b", {"0", "0"}}, {"W", W}}, {leaf("%d", cat(D0, D1))}));
  const auto sB = values(node("convStridedWeightSgdB", with_n(one, 2), {{"x", cat(X0, X1)}, {"b", {"0", "0"}}, {"W", W}, {"lr", {"2"}}},
                              {leaf("%d", cat(D0, D1))}, {{"lrStr", "2.0"}}));
  REQUIRE(gB.size() == 36);
  for (std::size_t i = 0; i < 36; ++i) {
    CHECK(gB[i] == E.add(g0[i], g1[i]));
    CHECK(sB[i] == E.sub(E.from_literal(W[i]), E.mul(E.from_literal("2"), gB[i])));
  }
  // Control: the batched gradient is not the first example's alone.
  CHECK(gB != g0);
  // Depthwise: the descriptor maps, the batched bias gradient sums.
  const Strings Wd = pattern(18, 7);
  const Strings f0 = den_exact(node("depthwiseF", depthwise(2, 2, 2, 3), {{"W", Wd}, {"b", {"1", "2"}}}, {leaf("%x", D0)}));
  const Strings f1 = den_exact(node("depthwiseF", depthwise(2, 2, 2, 3), {{"W", Wd}, {"b", {"1", "2"}}}, {leaf("%x", D1)}));
  CHECK(den_exact(node("batchOp/depthwise", with_n(depthwise(2, 2, 2, 3), 2), {{"W", Wd}, {"bias", {"1", "2"}}}, {leaf("%x", cat(D0, D1))})) == cat(f0, f1));
  CHECK(den_exact(node("depthwiseBiasGradB", with_n(depthwise(1, 1, 2, 1), 2), {{"W", {"0"}}, {"x", Strings(4, "0")}, {"b", {"0"}}},
                       {leaf("%d", {"1", "2", "3", "4"})})) == Strings{"10"});
}

TEST_CASE("conv: the printed text of small cases is the notes' template", "[ctor-conv]") {
  std::int64_t counter = 0;
  const auto stem = skel_node("flatConvStridedXlaF", dense(3, 16, 112, 112, 3), {name("%x", 3 * 224 * 224)}, {{"wName", "%W"}, {"bName", "%b"}});
  CHECK(emit(2, *stem, counter).text ==
        "    %v0 = stablehlo.reshape %x : (tensor<2x150528xf32>) -> tensor<2x3x224x224xf32>\n"
        "    %v1 = stablehlo.convolution(%v0, %W)\n"
        "      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],\n"
        "      window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}\n"
        "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x224x224xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x112x112xf32>\n"
        "    %v2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<2x16x112x112xf32>\n"
        "    %v3 = stablehlo.add %v1, %v2 : tensor<2x16x112x112xf32>\n"
        "    %v4 = stablehlo.reshape %v3 : (tensor<2x16x112x112xf32>) -> tensor<2x200704xf32>\n");
  // The even kernel 2x2/s2: the input VJP pads [kH-1-pH, pH] = [1, 0].
  counter = 0;
  const auto down = skel_node("convStridedBack", dense(1, 1, 2, 2, 2), {name("%d", 4)}, {{"wName", "%W"}});
  const std::string back_text = emit(1, *down, counter).text;
  CHECK(back_text.find("pad = [[1, 0], [1, 0]]") != std::string::npos);
  CHECK(back_text.find("    %v3 = stablehlo.transpose %W, dims = [1, 0, 2, 3] : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>\n    %v4 = stablehlo.reverse %v3") !=
        std::string::npos);
  // ... and an odd one pads [pH, pH].
  counter = 0;
  CHECK(emit(1, *skel_node("convStridedBack", dense(1, 1, 2, 2, 3), {name("%d", 4)}, {{"wName", "%W"}}), counter).text.find("pad = [[1, 1], [1, 1]]") !=
        std::string::npos);
  // The weight gradient's upsampled extent: 2h for odd kernels, 2h - 1 (no trailing zero row) for even ones.
  counter = 0;
  const std::string even = emit(1, *skel_node("convStridedWeightGrad", dense(1, 1, 2, 2, 2), {name("%d", 4)}, {{"xName", "%x"}}), counter).text;
  CHECK(even.find("high = [0, 0, 0, 0], interior = [0, 0, 1, 1] : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>") != std::string::npos);
  counter = 0;
  const std::string odd = emit(1, *skel_node("convStridedWeightGrad", dense(1, 1, 2, 2, 3), {name("%d", 4)}, {{"xName", "%x"}}), counter).text;
  CHECK(odd.find("high = [0, 0, 1, 1], interior = [0, 0, 1, 1] : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>") != std::string::npos);
  // Depthwise: the group count is c, the kernel prints as c x 1 x kH x kW.
  counter = 0;
  const std::string dw = emit(1, *skel_node("depthwiseWeightSgd", depthwise(32, 4, 4, 3), {name("%d", 512)}, {{"xName", "%x"}, {"wName", "%W"}, {"lrStr", "0.1"}}),
                              counter).text;
  CHECK(dw.find("{batch_group_count = 32 : i64, feature_group_count = 1 : i64} : (tensor<32x1x4x4xf32>, tensor<32x1x4x4xf32>) -> tensor<1x32x3x3xf32>") !=
        std::string::npos);
  CHECK(dw.find("    %v8 = stablehlo.subtract %W, %v7 : tensor<32x1x3x3xf32>\n") != std::string::npos);
}

TEST_CASE("conv: every row's den equals the run of its emitted text, and the canonical rows lift back", "[ctor-conv]") {
  // Kernels where the printer's text is den's (odd, >= 3 for the XLA and stride-4 forms; the
  // stride-2 input VJP and weight gradients also for even kernels). Parameter rows at B = 1,
  // batched rows at N = B = 2.
  struct Case {
    const char* ctor;
    std::vector<std::int64_t> kernels;
  };
  const std::vector<Case> cases = {
      {"flatConvStridedF", {1, 2, 3}}, {"batchOp/convStrided", {1, 3}}, {"convStridedBack", {1, 2, 3}}, {"convStridedBackBatched", {1, 2, 3}},
      {"convStridedWeightGrad", {1, 2, 3}}, {"convStridedWeightSgd", {2, 3}}, {"convStridedWeightGradB", {2, 3}}, {"convStridedWeightSgdB", {3}},
      {"convStridedBiasGrad", {3}}, {"convStridedBiasSgd", {3}}, {"convStridedBiasGradB", {3}}, {"convStridedBiasSgdB", {3}},
      {"flatConvStridedXlaF", {3}}, {"batchOp/convStridedXla", {3}}, {"convStridedXlaWeightSgd", {3, 4}}, {"convStridedXlaWeightGradB", {3, 4}},
      {"convStridedXlaWeightSgdB", {3}}, {"convStridedXlaBiasSgd", {3}}, {"convStridedXlaBiasGradB", {3}}, {"convWeightSgdB", {1, 3}},
      {"convBiasSgdB", {3}}, {"flatConvStride4F", {3, 4}}, {"batchOp/convStride4", {4}}, {"convStride4WeightGrad", {4, 5}},
      {"convStride4WeightGradB", {4}},
      {"depthwiseF", {1, 3}}, {"batchOp/depthwise", {3}}, {"depthwiseStridedF", {1, 3}}, {"batchOp/depthwiseStrided", {3}},
      {"depthwiseStridedXlaF", {3}}, {"batchOp/depthwiseStridedXla", {3}}, {"depthwiseBack", {1, 3}}, {"depthwiseBackBatched", {3}},
      {"depthwiseStridedBack", {1, 3}}, {"depthwiseStridedBackBatched", {3}}, {"depthwiseStridedXlaBack", {3}},
      {"depthwiseStridedXlaBackBatched", {3}}, {"depthwiseWeightGrad", {1, 3}}, {"depthwiseWeightGradB", {3}},
      {"depthwiseStridedWeightGradB", {3}}, {"depthwiseStridedXlaWeightGradB", {3}}, {"depthwiseWeightSgd", {3}},
      {"depthwiseWeightSgdB", {3}}, {"depthwiseStridedWeightSgd", {3}}, {"depthwiseStridedWeightSgdB", {3}},
      {"depthwiseStridedXlaWeightSgd", {3}}, {"depthwiseBiasGrad", {3}}, {"depthwiseBiasGradB", {3}}, {"depthwiseStridedBiasGradB", {3}},
      {"depthwiseStridedXlaBiasGradB", {3}}, {"depthwiseBiasSgd", {3}}, {"depthwiseStridedBiasSgd", {3}}, {"depthwiseStridedXlaBiasSgd", {3}},
  };
  CHECK(cases.size() == 53);  // every row of ast/ctors/strided_conv.def and depthwise.def
  for (const auto& c : cases)
    for (std::int64_t k : c.kernels) {
      INFO(c.ctor << " kernel " << k);
      const CtorSpec& spec = *find_constructor(c.ctor);
      const bool is_depthwise = std::string(c.ctor).find("depthwise") != std::string::npos;
      Nats nats = is_depthwise ? depthwise(2, 2, 3, k) : dense(2, 3, 2, 3, k);
      const bool batched = std::any_of(spec.nats.begin(), spec.nats.end(), [](const char* n) { return std::string(n) == "N"; });
      if (batched) nats["N"] = 2;
      Expr e;
      e.spec = &spec;
      e.nats = nats;
      int seed = 1;
      for (const auto& f : spec.reals) {
        const auto len = eval_length(f.length, nats);
        Strings v = f.draw == Draw::FromLiteral ? Strings{"1/2"} : pattern(len, seed++);
        for (const auto& x : v) e.reals[f.name].push_back(parse_literal(x).value);
      }
      for (const char* s : spec.strings) e.strings[s] = std::string(s) == "lrStr" ? "0.5" : std::string("%") + s;
      const auto child_len = eval_length(spec.child_lengths[0], nats);
      e.children.push_back(leaf("%u", pattern(child_len, 9)));
      const ExprPtr x = make_expr(std::move(e));
      const Agreement a = den_agrees_with_text(*x);
      CHECK(a.agree);
      INFO(a.detail);
      CHECK_FALSE(den_agrees_with_text(*x, true).agree);  // control: a perturbed input disagrees
      if (!spec.canonical) continue;
      // Lift the text back: the same skeleton (per-example rows; the batched rows' N is B).
      const Lifted l = lift(parse_module(text_case(*x).text, "case.mlir"));
      CHECK(l.report.verbatim == 0);
      REQUIRE(l.render.items.size() == 1);
      CHECK(skel(*l.render.items[0].expr) == skel(*x));
    }
}

TEST_CASE("conv: the printer's programs lift to the convolution rows, as many as the notes count", "[ctor-conv][lift]") {
  // conv-families.md section 4 (instances per template) and, for ConvNeXt, the 2x2/s2 downsample
  // (even kernel: input VJP pad [1, 0], weight-gradient extent 2h - 1) and the 4x4/s4 stem.
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::vector<std::pair<std::string, std::map<std::string, int>>> expected = {
      {"resnet34_train_step", {{"flatConvStridedF", 7}, {"convStridedBack", 6}, {"convStridedWeightSgd", 7}}},
      {"resnet50_adam_train_step", {{"flatConvStridedF", 7}, {"convStridedBackBatched", 6}, {"convStridedWeightGrad", 7}}},
      {"mobilenetv2_train_step",
       {{"depthwiseF", 13}, {"depthwiseBack", 13}, {"depthwiseWeightSgd", 13}, {"depthwiseStridedF", 4}, {"depthwiseStridedBack", 4},
        {"depthwiseStridedWeightSgd", 4}, {"flatConvStridedF", 1}, {"convStridedWeightSgd", 1}}},
      {"mnv4_adam_train_step",
       {{"depthwiseF", 27}, {"depthwiseBack", 27}, {"depthwiseWeightGrad", 27}, {"depthwiseStridedF", 3}, {"depthwiseStridedBack", 3},
        {"depthwiseStridedWeightGradB", 3}, {"flatConvStridedF", 1}, {"flatConvStridedXlaF", 1}, {"convStridedBackBatched", 1},
        {"convStridedWeightGrad", 1}, {"convStridedXlaWeightGradB", 1}}},
      {"efficientnet_train_step",
       {{"depthwiseF", 12}, {"depthwiseBack", 12}, {"depthwiseWeightSgd", 12}, {"depthwiseStridedF", 4}, {"depthwiseStridedBack", 4},
        {"depthwiseStridedWeightSgd", 4}, {"flatConvStridedXlaF", 1}, {"convStridedXlaWeightSgd", 1}}},
      {"convnext_train_step",
       {{"flatConvStride4F", 1}, {"convStride4WeightGrad", 1}, {"flatConvStridedF", 3}, {"convStridedBack", 3}, {"convStridedWeightSgd", 3}}},
  };
  for (const auto& [file, counts] : expected) {
    INFO(file);
    const std::string text = read_file(dir + "/" + file + ".mlir");
    REQUIRE_FALSE(text.empty());
    const Lifted l = lift(parse_module(text, file));
    for (const auto& [ctor, n] : counts) {
      INFO(ctor);
      CHECK((l.report.constructors.count(ctor) ? l.report.constructors.at(ctor) : 0) == n);
    }
  }
  // The even-kernel weight gradient of ConvNeXt's downsample is printed with extent 2h - 1.
  const std::string convnext = read_file(dir + "/convnext_train_step.mlir");
  CHECK(convnext.find("high = [0, 0, 0, 0], interior = [0, 0, 1, 1] : (tensor<32x768x7x7xf32>, tensor<f32>) -> tensor<32x768x13x13xf32>") !=
        std::string::npos);
}
