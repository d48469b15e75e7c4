// The ViT, ConvNeXt and regulariser constructors (docs/lean/transformer-families.md sections
// 1-3): den on tiny cases computed by hand (2 tokens, 2 features), each with a control that
// must fail; the irrational ones (softmax, layer norm, GELU) in `interval`, whose enclosure must
// lie inside a narrow bracket of the hand value and outside the control's; the printed text of
// small cases as the note writes it, and lifting it back.
#include <cmath>

#include "ast/emit.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/template.hpp"
#include "interp/den.hpp"
#include "interp/program_inputs.hpp"
#include "oracle/program_agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

// The interval enclosure (128 bits) of output i lies inside [hand - 1e-13, hand + 1e-13]: it
// contains neither end of the bracket and its midpoint is between them.
bool inside(const ExprPtr& e, std::size_t i, double hand) {
  const IntervalDomain I(128);
  const auto v = denote(I, *e).value.at(i);
  const double lo = hand - 1e-13, hi = hand + 1e-13, mid = I.to_double(v);
  return mid > lo && mid < hi && !IntervalDomain::contains(v, rational_from_double(lo)) &&
         !IntervalDomain::contains(v, rational_from_double(hi));
}

ExprPtr u(const Strings& v) { return leaf("%u", v); }

// A node whose real fields hold a fixed pattern of small rationals ((i mod 5) - 2) / 4, eps
// and lr those of their literals (1/4 and 1/2): the values do not matter to `agree`, which
// evaluates den on the text's own inputs.
ExprPtr filled(const char* ctor, Nats nats, std::vector<ExprPtr> kids, std::map<std::string, std::string> strings = {}) {
  Expr e;
  e.spec = find_constructor(ctor);
  e.nats = std::move(nats);
  for (const char* f : e.spec->strings)  // SSA names unique to the node: "%wName_denseRowF"
    strings.emplace(f, std::string(f) == "epsStr" ? "0.25" : std::string(f) == "lrStr" ? "0.5" : std::string("%") + f + "_" + ctor);
  e.strings = std::move(strings);
  for (const auto& f : e.spec->reals) {
    auto& v = e.reals[f.name];
    const auto n = eval_length(f.length, e.nats);
    for (std::int64_t i = 0; i < n; ++i)
      v.push_back(std::string(f.name) == "eps" ? Rational(1, 4) : std::string(f.name) == "lr" ? Rational(1, 2) : Rational(i % 5 - 2, 4));
  }
  e.children = std::move(kids);
  return make_expr(std::move(e));
}

ProgramAgreement agree_f64(const std::string& text, const std::string& run_text) {
  const Module m = parse_module(text, "block.mlir"), run = parse_module(run_text, "block.mlir");
  const auto in = random_inputs(m.function(), 7, 1, -1, 1);
  return agree_program(m, F64Domain{}, npy_values(F64Domain{}, m.function(), in), 1, &run);
}
ExprPtr w(const Strings& v) { return leaf("%w", v); }

}  // namespace

TEST_CASE("transformer: row-wise dense over tokens, its input VJP and their batched forms", "[ctor-transformer]") {
  // Tokens [1,2] and [3,4]; W = [[1,0],[2,1]], b = [10,20].
  const Reals Wb = {{"W", {"1", "0", "2", "1"}}, {"b", {"10", "20"}}};
  const ExprPtr tokens = u({"1", "2", "3", "4"});
  CHECK(den_exact(node("denseRowF", {{"tk", 2}, {"a", 2}, {"c", 2}}, Wb, {tokens})) == Strings{"15", "22", "21", "24"});
  CHECK(den_exact(node("batchOp/denseRow", {{"N", 2}, {"tk", 1}, {"a", 2}, {"c", 2}}, Wb, {tokens})) == Strings{"15", "22", "21", "24"});
  // The input VJP multiplies by W transposed: y[r,i] = sum_j W[i,j] u[r,j].
  const Reals Wonly = {{"W", {"1", "0", "2", "1"}}};
  const Strings back = {"1", "4", "3", "10"};
  CHECK(den_exact(node("denseRowBack", {{"tk", 2}, {"a", 2}, {"c", 2}}, Wonly, {tokens})) == back);
  CHECK(den_exact(node("batchOp/denseRowBack", {{"N", 1}, {"tk", 2}, {"a", 2}, {"c", 2}}, Wonly, {tokens})) == back);
  // Control: the forward without its bias is not the VJP (the transpose matters).
  CHECK(den_exact(node("denseRowF", {{"tk", 2}, {"a", 2}, {"c", 2}}, {{"W", {"1", "0", "2", "1"}}, {"b", {"0", "0"}}}, {tokens})) != back);
}

TEST_CASE("transformer: row-dense gradients sum over the rows (and the examples), SGD is theta - lr grad", "[ctor-transformer]") {
  const Reals x = {{"x", {"1", "2", "3", "4"}}};  // rows [1,2], [3,4]
  const ExprPtr dy = u({"1", "0", "0", "1"});     // rows [1,0], [0,1]
  const Strings G = {"1", "3", "2", "4"};          // G[i,j] = sum_r x[r,i] dy[r,j]
  CHECK(den_exact(node("rowDenseWeightGrad", {{"tk", 2}, {"a", 2}, {"c", 2}}, x, {dy})) == G);
  CHECK(den_exact(node("rowDenseWeightGradB", {{"N", 2}, {"tk", 1}, {"a", 2}, {"c", 2}}, x, {dy})) == G);
  CHECK(den_exact(node("rowDenseWeightSgd", {{"tk", 2}, {"a", 2}, {"c", 2}},
                       {{"x", {"1", "2", "3", "4"}}, {"W", {"0", "0", "0", "0"}}, {"lr", {"1/2"}}}, {dy})) == Strings{"-1/2", "-3/2", "-1", "-2"});
  // Control: the outer product of the first row alone (no sum over the rows).
  CHECK(den_exact(node("rowDenseWeightGrad", {{"tk", 1}, {"a", 2}, {"c", 2}}, {{"x", {"1", "2"}}}, {u({"1", "0"})})) != G);
  const ExprPtr g4 = u({"1", "2", "3", "4"});
  CHECK(den_exact(node("rowDenseBiasGrad", {{"tk", 2}, {"c", 2}}, {}, {g4})) == Strings{"4", "6"});
  CHECK(den_exact(node("rowDenseBiasGradB", {{"N", 2}, {"tk", 1}, {"c", 2}}, {}, {g4})) == Strings{"4", "6"});
  CHECK(den_exact(node("rowDenseBiasSgd", {{"tk", 2}, {"c", 2}}, {{"b", {"1", "1"}}, {"lr", {"1/2"}}}, {g4})) == Strings{"-1", "-2"});
  CHECK(den_exact(node("rowDenseBiasGrad", {{"tk", 1}, {"c", 4}}, {}, {g4})) != Strings{"4", "6"});  // control: no row sum
}

TEST_CASE("transformer: matmul, transpose, heads and the class token", "[ctor-transformer]") {
  // [[1,2],[3,4]] x [5,6]^T
  CHECK(den_exact(node("matmulF", {{"m", 2}, {"k", 2}, {"n", 1}}, {}, {u({"1", "2", "3", "4"}), w({"5", "6"})})) == Strings{"17", "39"});
  // Two examples, each [1 x 2] x [2 x 1]: no product across examples (the control).
  const auto batched = den_exact(node("matmulFB", {{"N", 2}, {"m", 1}, {"k", 2}, {"n", 1}}, {}, {u({"1", "2", "3", "4"}), w({"5", "6", "7", "8"})}));
  CHECK(batched == Strings{"17", "53"});
  CHECK(batched != Strings{"17", "39"});
  const ExprPtr six = u({"1", "2", "3", "4", "5", "6"});
  CHECK(den_exact(node("transposeF", {{"m", 2}, {"n", 3}}, {}, {six})) == Strings{"1", "4", "2", "5", "3", "6"});
  // Control: a batch of two 1 x 3 examples transposes each one (the identity on the flat data).
  CHECK(den_exact(node("batchOp/transpose", {{"N", 2}, {"m", 1}, {"n", 3}}, {}, {six})) == Strings{"1", "2", "3", "4", "5", "6"});
  // Two tokens [1,2], [3,4] of two heads of width 1.
  const ExprPtr qk = u({"1", "2", "3", "4"});
  CHECK(den_exact(node("headSliceF", {{"tk", 2}, {"heads", 2}, {"d", 1}, {"head", 1}}, {}, {qk})) == Strings{"2", "4"});
  CHECK(den_exact(node("headSliceF", {{"tk", 2}, {"heads", 2}, {"d", 1}, {"head", 0}}, {}, {qk})) == Strings{"1", "3"});  // control
  CHECK(den_exact(node("batchOp/headSlice", {{"N", 2}, {"tk", 1}, {"heads", 2}, {"d", 1}, {"head", 1}}, {}, {qk})) == Strings{"2", "4"});
  CHECK(den_exact(node("headPadF", {{"tk", 2}, {"heads", 2}, {"d", 1}, {"head", 1}}, {}, {u({"7", "8"})})) == Strings{"0", "7", "0", "8"});
  CHECK(den_exact(node("batchOp/headPad", {{"N", 2}, {"tk", 1}, {"heads", 2}, {"d", 1}, {"head", 0}}, {}, {u({"7", "8"})})) ==
        Strings{"7", "0", "8", "0"});
  CHECK_THROWS_WITH(den_exact(node("headSliceF", {{"tk", 2}, {"heads", 2}, {"d", 1}, {"head", 2}}, {}, {qk})),
                    Catch::Contains("headSliceF: head = 2 is not below heads = 2"));
  CHECK(den_exact(node("clsSliceF", {{"tk", 1}, {"D", 2}}, {}, {qk})) == Strings{"1", "2"});
  CHECK(den_exact(node("batchOp/clsSlice", {{"N", 2}, {"tk", 1}, {"D", 1}}, {}, {qk})) == Strings{"1", "3"});
  CHECK(den_exact(node("clsPadF", {{"tk", 1}, {"D", 2}}, {}, {u({"7", "8"})})) == Strings{"7", "8", "0", "0"});
  CHECK(den_exact(node("batchOp/clsPad", {{"N", 2}, {"tk", 1}, {"D", 1}}, {}, {u({"7", "8"})})) == Strings{"7", "0", "8", "0"});
}

TEST_CASE("transformer: patch embedding, its kernel and bias gradients, the position embedding", "[ctor-transformer]") {
  // One channel, a 2 x 4 image [[1,2,3,4],[5,6,7,8]], 2 x 2 patches: two patches side by side.
  const Nats pe = {{"ic", 1}, {"H", 2}, {"W", 4}, {"P", 2}, {"tk", 2}, {"D", 1}};
  const ExprPtr img = u({"1", "2", "3", "4", "5", "6", "7", "8"});
  const Reals fields = {{"W", {"1", "2", "3", "4"}}, {"b", {"1"}}, {"cls", {"10"}}, {"pos", {"100", "200", "300"}}};
  // Patch 0: 1*1 + 2*2 + 3*5 + 4*6 = 44; patch 1: 1*3 + 2*4 + 3*7 + 4*8 = 64.
  const auto y = den_exact(node("patchEmbedF", pe, fields, {img}));
  CHECK(y == Strings{"110", "245", "365"});
  CHECK(y != Strings{"110", "265", "345"});  // control: the patches in the other order
  Nats peB = pe;
  peB["N"] = 1;
  CHECK(den_exact(node("batchOp/patchEmbed", peB, fields, {img})) == y);
  // The cotangent's class row (9) does not reach the kernel: G = 1 * patch 0 + 2 * patch 1.
  const ExprPtr dy = u({"9", "1", "2"});
  const Strings G = {"7", "10", "19", "22"};
  CHECK(den_exact(node("patchEmbedWeightGrad", pe, {{"x", {"1", "2", "3", "4", "5", "6", "7", "8"}}}, {dy})) == G);
  CHECK(den_exact(node("patchEmbedWeightGradB", peB, {{"x", {"1", "2", "3", "4", "5", "6", "7", "8"}}}, {dy})) == G);
  CHECK(den_exact(node("patchEmbedWeightSgd", pe, {{"x", {"1", "2", "3", "4", "5", "6", "7", "8"}}, {"Wp", {"0", "0", "0", "0"}}, {"lr", {"1"}}},
                       {dy})) == Strings{"-7", "-10", "-19", "-22"});
  CHECK(den_exact(node("patchEmbedWeightGrad", pe, {{"x", {"1", "2", "3", "4", "5", "6", "7", "8"}}}, {u({"0", "1", "2"})})) == G);
  CHECK(den_exact(node("patchEmbedBiasGrad", {{"tk", 2}, {"c", 1}}, {}, {dy})) == Strings{"3"});
  CHECK(den_exact(node("patchEmbedBiasGrad", {{"tk", 2}, {"c", 1}}, {}, {dy})) != Strings{"12"});  // control: the class row summed in
  CHECK(den_exact(node("patchEmbedBiasGradB", {{"N", 2}, {"tk", 2}, {"c", 1}}, {}, {u({"9", "1", "2", "9", "3", "4"})})) == Strings{"10"});
  CHECK(den_exact(node("patchEmbedBiasSgd", {{"tk", 2}, {"c", 1}}, {{"b", {"1"}}, {"lr", {"1"}}}, {dy})) == Strings{"-2"});
  CHECK(den_exact(node("posEmbedGrad", {{"tk", 0}, {"D", 2}}, {}, {u({"1", "2"})})) == Strings{"1", "2"});
  CHECK(den_exact(node("posEmbedGradB", {{"N", 2}, {"tk", 0}, {"D", 2}}, {}, {u({"1", "2", "3", "4"})})) == Strings{"4", "6"});
  CHECK(den_exact(node("posEmbedSgd", {{"tk", 0}, {"D", 2}}, {{"pos", {"1", "1"}}, {"lr", {"1/2"}}}, {u({"2", "4"})})) == Strings{"0", "-1"});
}

TEST_CASE("transformer: patchEmbedBack is patch embedding's input VJP, and the printer writes it as a comment", "[ctor-transformer]") {
  // patchEmbedF's case above: a 2 x 4 image, two 2 x 2 patches side by side, kernel [[1,2],[3,4]].
  // The cotangent's class row (9) reaches no pixel; patch 0 (cotangent 1) spreads the kernel over
  // columns 0-1, patch 1 (cotangent 2) twice the kernel over columns 2-3.
  const Nats pe = {{"ic", 1}, {"H", 2}, {"W", 4}, {"P", 2}, {"tk", 2}, {"D", 1}};
  const Reals kernel = {{"W", {"1", "2", "3", "4"}}};
  const auto y = den_exact(node("patchEmbedBack", pe, kernel, {u({"9", "1", "2"})}));
  CHECK(y == Strings{"1", "2", "2", "4", "3", "4", "6", "8"});
  // By the forward's linearity, <y, img> = <dy, patchEmbedF(img)> with the bias, class row and
  // position embedding at 0 (den of the forward: 0, 44, 64).
  const Strings img = {"1", "2", "3", "4", "5", "6", "7", "8"}, dy = {"9", "1", "2"};
  const auto forward = den_exact(node("patchEmbedF", pe, {{"W", {"1", "2", "3", "4"}}, {"b", {"0"}}, {"cls", {"0"}}, {"pos", {"0", "0", "0"}}}, {u(img)}));
  auto dot = [](const Strings& a, const Strings& b) {
    long sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += std::stol(a[i]) * std::stol(b[i]);
    return sum;
  };
  REQUIRE(forward.size() == dy.size());
  CHECK(dot(y, img) == dot(forward, dy));
  CHECK(dot(y, img) == 172);
  CHECK(y != Strings{"9", "18", "18", "36", "27", "36", "54", "72"});  // control: the class row's cotangent
  // One patch (tk = 1): the pixels of patch 1 are reached by none, so they are 0.
  CHECK(den_exact(node("patchEmbedBack", {{"ic", 1}, {"H", 2}, {"W", 4}, {"P", 2}, {"tk", 1}, {"D", 1}}, kernel, {u({"9", "1"})})) ==
        Strings{"1", "2", "0", "0", "3", "4", "0", "0"});

  // The text: the Lean printer's batched catch-all, one comment line with the shape list; the
  // weight name is not printed and the operand stays the value.
  std::int64_t counter = 0;
  const auto back = skel_node("patchEmbedBack", {{"ic", 3}, {"H", 224}, {"W", 224}, {"P", 16}, {"tk", 196}, {"D", 192}}, {name("%g", 197 * 192)},
                              {{"wName", "%wp"}});
  const Emitted text = emit(2, *back, counter);
  CHECK(text.text == "    // [EfficientNet Item B] batched patchEmbedBack [] [3, 224, 224, 16, 196, 192] \u2014 backward render TODO\n");
  CHECK(text.result == "%g");
  CHECK(counter == 0);
  CHECK(printed_as_comment(*back->spec));
  CHECK_FALSE(printed_as_comment(*find_constructor("patchEmbedF")));     // controls: instructions with fresh names,
  CHECK_FALSE(printed_as_comment(*find_constructor("allReduceMeanF")));  // and without (%arsum<t>)
  // Lifting keeps the line as a comment, and emit(lift) is the text.
  const std::string module = module_text("%g: tensor<2x37824xf32>", "tensor<2x37824xf32>", text.text, "%g");
  const Lifted l = lift(parse_module(module));
  CHECK(emit_render(l.render) == module);
  for (const auto& item : l.render.items) CHECK_FALSE(item.expr);
  // No text case: the text computes nothing that den could be compared with.
  CHECK_THROWS_WITH(text_case(*node("patchEmbedBack", pe, kernel, {u({"9", "1", "2"})})), Catch::Contains("as a comment line"));
}

TEST_CASE("transformer: row softmax and its VJP, in interval (exp)", "[ctor-transformer]") {
  // Rows [0,0] and [0,1]: [1/2, 1/2] and [1/(1+e), e/(1+e)].
  const ExprPtr scores = u({"0", "0", "0", "1"});
  const auto sm = node("softmaxRowF", {{"m", 2}, {"n", 2}}, {}, {scores});
  CHECK(inside(sm, 0, 0.5));
  CHECK(inside(sm, 2, 0.2689414213699951));
  CHECK(inside(sm, 3, 0.7310585786300049));
  CHECK(!inside(sm, 2, 0.17487770452710946));  // control: 1/(3+e), the softmax over the whole example
  CHECK(inside(node("batchOp/softmaxRow", {{"N", 2}, {"m", 1}, {"n", 2}}, {}, {scores}), 3, 0.7310585786300049));
  // VJP at x = [0,0], dy = [1,0]: p (dy - <p,dy>) = [1/4, -1/4], exactly.
  CHECK(den_exact(node("softmaxRowBack", {{"m", 1}, {"n", 2}}, {{"x", {"0", "0"}}}, {u({"1", "0"})})) == Strings{"1/4", "-1/4"});
  // At x = [0,1]: p = [a, b], a = 1/(1+e); y = [a b, -a b], a b = e/(1+e)^2.
  const auto back = node("softmaxRowBack", {{"m", 1}, {"n", 2}}, {{"x", {"0", "1"}}}, {u({"1", "0"})});
  CHECK(inside(back, 0, 0.19661193324148185));
  CHECK(inside(back, 1, -0.19661193324148185));
  CHECK(!inside(back, 0, 0.2689414213699951));  // control: p * dy, the VJP without its subtraction
  CHECK(inside(node("softmaxRowBackB", {{"N", 2}, {"m", 1}, {"n", 2}}, {{"x", {"0", "0", "0", "1"}}}, {u({"1", "0", "1", "0"})}), 2,
               0.19661193324148185));
}

TEST_CASE("transformer: row layer norm, its VJP and its gamma/beta gradients", "[ctor-transformer]") {
  // Rows [1,3] and [2,4]: mean m, variance 1, eps 3, s = 1/2, x^ = [-1/2, 1/2]; gamma 2, beta 1.
  const Reals lnf = {{"eps", {"3"}}, {"gamma", {"2"}}, {"beta", {"1"}}};
  const ExprPtr x = u({"1", "3", "2", "4"});
  CHECK(den_exact(node("lnRowF", {{"m", 2}, {"n", 2}}, lnf, {x})) == Strings{"0", "2", "0", "2"});
  CHECK(den_exact(node("batchOp/lnRow", {{"N", 2}, {"m", 1}, {"n", 2}}, lnf, {x})) == Strings{"0", "2", "0", "2"});
  // Control: the statistics of the whole example (bnF at n = 4) give another first value.
  CHECK(!inside(node("bnF", {{"n", 4}}, lnf, {x}), 0, 0.0));
  // Row [0,4]: variance 4, s = 1/sqrt(7): 2 (-+ 2/sqrt(7)) + 1.
  const auto irr = node("lnRowF", {{"m", 1}, {"n", 2}}, lnf, {u({"0", "4"})});
  CHECK(inside(irr, 0, -0.5118578920369088));
  CHECK(inside(irr, 1, 2.511857892036909));
  CHECK(!inside(irr, 0, 0.0));  // control: eps left out would give s = 1/2, x^ = -1, y = -1
  // VJP per row: bnIn(eps, gamma, x[r], dy[r]) (the bnBack case of the semantics on each row).
  const Reals lnb = {{"eps", {"3"}}, {"gamma", {"2"}}, {"x", {"1", "3", "2", "4"}}};
  const ExprPtr dy = u({"1", "0", "0", "1"});
  const Strings dx = {"3/8", "-3/8", "-3/8", "3/8"};
  CHECK(den_exact(node("lnRowBack", {{"m", 2}, {"n", 2}}, lnb, {dy})) == dx);
  CHECK(den_exact(node("lnRowBackB", {{"N", 2}, {"m", 1}, {"n", 2}}, lnb, {dy})) == dx);
  CHECK(!inside(node("bnBack", {{"n", 4}}, lnb, {dy}), 0, 0.375));  // control: one row of four
  // gamma gradient of the vector LN: G[k] = sum_r dy[r,k] x^_r[k] = [-1/2 - 3/2, 1 + 2].
  const Reals vx = {{"eps", {"3"}}, {"x", {"1", "3", "2", "4"}}};
  const ExprPtr g4 = u({"1", "2", "3", "4"});
  CHECK(den_exact(node("veclnGammaGrad", {{"tk", 2}, {"D", 2}}, vx, {g4})) == Strings{"-2", "3"});
  CHECK(den_exact(node("veclnGammaGradB", {{"N", 2}, {"tk", 1}, {"D", 2}}, vx, {g4})) == Strings{"-2", "3"});
  CHECK(den_exact(node("veclnGammaGrad", {{"tk", 2}, {"D", 2}}, vx, {g4})) != Strings{"7", "14"});  // control: x, not x^
  CHECK(den_exact(node("veclnGammaSgd", {{"tk", 2}, {"D", 2}}, {{"eps", {"3"}}, {"x", {"1", "3", "2", "4"}}, {"gamma", {"1", "1"}}, {"lr", {"1/2"}}},
                       {g4})) == Strings{"2", "-1/2"});
  // The scalar forms over one example: sum dy x^ = -1/2 + 1, sum dy = 3.
  const ExprPtr dy2 = u({"1", "2"});
  CHECK(den_exact(node("lnGammaGrad", {{"n", 2}}, {{"eps", {"3"}}, {"x", {"1", "3"}}}, {dy2})) == Strings{"1/2"});
  CHECK(den_exact(node("lnGammaSgd", {{"n", 2}}, {{"eps", {"3"}}, {"x", {"1", "3"}}, {"gamma", {"1"}}, {"lr", {"2"}}}, {dy2})) == Strings{"0"});
  CHECK(den_exact(node("lnBetaGrad", {{"n", 2}}, {}, {dy2})) == Strings{"3"});
  CHECK(den_exact(node("lnBetaSgd", {{"n", 2}}, {{"beta", {"1"}}, {"lr", {"1/2"}}}, {dy2})) == Strings{"-1/2"});
}

TEST_CASE("convnext: row scale and bias, layer scale and its gamma gradient, GELU's VJP", "[ctor-transformer]") {
  const ExprPtr ones = u({"1", "1", "1", "1"});
  CHECK(den_exact(node("rowScaleF", {{"m", 2}, {"n", 2}}, {{"gamma", {"2", "3"}}}, {ones})) == Strings{"2", "3", "2", "3"});
  CHECK(den_exact(node("batchOp/rowScale", {{"N", 2}, {"m", 1}, {"n", 2}}, {{"gamma", {"2", "3"}}}, {ones})) == Strings{"2", "3", "2", "3"});
  CHECK(den_exact(node("rowBiasF", {{"m", 2}, {"n", 2}}, {{"beta", {"1", "2"}}}, {ones})) == Strings{"2", "3", "2", "3"});
  CHECK(den_exact(node("batchOp/rowBias", {{"N", 1}, {"m", 2}, {"n", 2}}, {{"beta", {"1", "2"}}}, {ones})) == Strings{"2", "3", "2", "3"});
  // Per channel (CHW: channel 0 is the first h w = 2 elements): the control is the row reading.
  const auto ch = den_exact(node("layerScaleChF", {{"c", 2}, {"h", 1}, {"w", 2}}, {{"gamma", {"2", "3"}}}, {ones}));
  CHECK(ch == Strings{"2", "2", "3", "3"});
  CHECK(ch != Strings{"2", "3", "2", "3"});
  CHECK(den_exact(node("batchOp/layerScaleCh", {{"N", 2}, {"c", 2}, {"h", 1}, {"w", 1}}, {{"gamma", {"2", "3"}}}, {ones})) ==
        Strings{"2", "3", "2", "3"});
  CHECK(den_exact(node("layerScaleF", {{"n", 2}}, {{"gamma", {"2", "3"}}}, {u({"1", "-1"})})) == Strings{"2", "-3"});
  const Reals lx = {{"x", {"1", "2", "3", "4"}}};
  CHECK(den_exact(node("layerScaleChGammaGrad", {{"c", 2}, {"h", 1}, {"w", 2}}, lx, {ones})) == Strings{"3", "7"});
  CHECK(den_exact(node("layerScaleChGammaGradB", {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 2}}, lx, {ones})) == Strings{"10"});
  CHECK(den_exact(node("layerScaleChGammaSgd", {{"c", 2}, {"h", 1}, {"w", 2}}, {{"x", {"1", "2", "3", "4"}}, {"gamma", {"1", "1"}}, {"lr", {"1"}}},
                       {ones})) == Strings{"-2", "-6"});
  // g'(1) = 1/2 (1 + t) + 1/2 (1 - t^2) s (1 + 0.134145), t = tanh(s 1.044715), s = sqrt(2/pi).
  const auto gb = node("geluBack", {{"n", 2}}, {{"x", {"1", "0"}}}, {u({"1", "2"})});
  CHECK(inside(gb, 0, 1.0829640838457826));
  CHECK(inside(gb, 1, 1.0));                  // g'(0) = 1/2, times 2
  CHECK(!inside(gb, 0, 0.8411919906082768));  // control: 1/2 (1 + t) alone
  CHECK(inside(node("geluBackB", {{"N", 2}, {"n", 1}}, {{"x", {"1", "0"}}}, {u({"1", "2"})}), 0, 1.0829640838457826));
  // The batched GELU is geluF on the whole batch: 1/2 (1 + tanh(s 1.044715)) at 1.
  CHECK(inside(node("batchOp/gelu", {{"N", 2}, {"n", 1}}, {}, {u({"1", "0"})}), 0, 0.8411919906082768));
}

TEST_CASE("regularisers: drop-path scales each example, dropout each element, ones are the identity", "[ctor-transformer]") {
  const ExprPtr x = u({"1", "2", "3", "4"});
  CHECK(den_exact(node("dropPathB", {{"N", 2}, {"n", 2}}, {{"s", {"0", "2"}}}, {x})) == Strings{"0", "0", "6", "8"});
  CHECK(den_exact(node("dropPathB", {{"N", 2}, {"n", 2}}, {{"s", {"1", "1"}}}, {x})) == Strings{"1", "2", "3", "4"});
  CHECK(den_exact(node("dropoutB", {{"N", 2}, {"n", 2}}, {{"mask", {"1", "0", "2", "1"}}}, {x})) == Strings{"1", "0", "6", "4"});
  CHECK(den_exact(node("dropoutB", {{"N", 2}, {"n", 2}}, {{"mask", {"0", "2", "0", "2"}}}, {x})) != Strings{"0", "0", "6", "8"});  // control
}

TEST_CASE("transformer: the printed text of small cases, and lifting it back", "[ctor-transformer]") {
  // clsSliceF and headPadF print tk and h only inside expressions (tk+1, h*d): the lifter
  // solves them back.
  std::int64_t counter = 0;
  const auto cls = skel_node("clsSliceF", {{"tk", 2}, {"D", 3}}, {name("%x", 9)});
  const auto pad = skel_node("headPadF", {{"tk", 3}, {"heads", 2}, {"d", 1}, {"head", 1}}, {cls});
  const Emitted text = emit(4, *pad, counter);
  CHECK(text.text ==
        "    %v0 = stablehlo.reshape %x : (tensor<4x9xf32>) -> tensor<4x3x3xf32>\n"
        "    %v1 = stablehlo.slice %v0 [0:4, 0:1, 0:3] : (tensor<4x3x3xf32>) -> tensor<4x1x3xf32>\n"
        "    %v2 = stablehlo.reshape %v1 : (tensor<4x1x3xf32>) -> tensor<4x3xf32>\n"
        "    %v3 = stablehlo.reshape %v2 : (tensor<4x3xf32>) -> tensor<4x3x1xf32>\n"
        "    %v4 = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "    %v5 = stablehlo.pad %v3, %v4, low = [0, 0, 1], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<4x3x1xf32>, tensor<f32>) -> "
        "tensor<4x3x2xf32>\n"
        "    %v6 = stablehlo.reshape %v5 : (tensor<4x3x2xf32>) -> tensor<4x6xf32>\n");
  const std::string module = module_text("%x: tensor<4x9xf32>", "tensor<4x6xf32>", text.text, "%v6");
  const Lifted l = lift(parse_module(module));
  CHECK(emit_render(l.render) == module);
  CHECK(l.report.verbatim == 0);
  REQUIRE(l.render.items.size() == 1);
  const Expr& top = *l.render.items[0].expr;
  CHECK(top.spec->id == Ctor::headPadF);
  CHECK(top.nats == std::map<std::string, std::int64_t>{{"tk", 3}, {"heads", 2}, {"d", 1}, {"head", 1}});
  REQUIRE(top.children[0]->spec->id == Ctor::clsSliceF);
  CHECK(top.children[0]->nat("tk") == 2);
  // Control: at head 0 the pad is printed low = [0, 0, 0] and the lifter reads head 0.
  counter = 0;
  const auto pad0 = skel_node("headPadF", {{"tk", 3}, {"heads", 2}, {"d", 1}, {"head", 0}}, {name("%y", 3)});
  const std::string module0 = module_text("%y: tensor<4x3xf32>", "tensor<4x6xf32>", emit(4, *pad0, counter).text, "%v3");
  CHECK(module0.find("low = [0, 0, 0], high = [0, 0, 1]") != std::string::npos);
  CHECK(lift(parse_module(module0)).render.items.at(0).expr->nat("head") == 0);
}

TEST_CASE("transformer: patch embedding's text names hp = H/P and the dilated extent H-(P-1)", "[ctor-transformer]") {
  std::int64_t counter = 0;
  const auto sgd = skel_node("patchEmbedWeightSgd", {{"ic", 1}, {"H", 4}, {"W", 6}, {"P", 2}, {"tk", 6}, {"D", 5}}, {name("%g", 35)},
                             {{"wName", "%wp"}, {"xName", "%ximg"}, {"lrStr", "0.5"}});
  const std::string t = emit(2, *sgd, counter).text;
  CHECK(t.find("(tensor<2x6x5xf32>) -> tensor<2x2x3x5xf32>") != std::string::npos);
  CHECK(t.find("interior = [0, 0, 1, 1] : (tensor<2x5x2x3xf32>, tensor<f32>) -> tensor<2x5x3x5xf32>") != std::string::npos);
  CHECK(t.find("-> tensor<1x5x2x2xf32>\n") != std::string::npos);
  const std::string module =
      module_text("%g: tensor<2x35xf32>, %wp: tensor<5x1x2x2xf32>, %ximg: tensor<2x1x4x6xf32>", "tensor<5x1x2x2xf32>", t, "%v12");
  const Lifted l = lift(parse_module(module));
  CHECK(emit_render(l.render) == module);
  REQUIRE(l.render.items.size() == 1);
  CHECK(l.render.items[0].expr->spec->id == Ctor::patchEmbedWeightSgd);
  CHECK(l.render.items[0].expr->nat("tk") == 6);
  CHECK(l.render.items[0].expr->nat("P") == 2);
}

TEST_CASE("transformer: a small attention block and its backward agree with their text in f64", "[ctor-transformer][agree]") {
  // Forward: a 4 x 4 image in 2 x 2 patches (tk = 4, D = 2), layer norm, Q = K = V from one
  // row-wise dense, head 1 of 2, Q K^T, row softmax, times V, row scale and bias, class row.
  const ExprPtr img = leaf("%img", Strings(16, "0"));
  const ExprPtr emb = filled("patchEmbedF", {{"ic", 1}, {"H", 4}, {"W", 4}, {"P", 2}, {"tk", 4}, {"D", 2}}, {img});
  const ExprPtr ln = filled("lnRowF", {{"m", 5}, {"n", 2}}, {emb});
  const ExprPtr qkv = filled("denseRowF", {{"tk", 5}, {"a", 2}, {"c", 4}}, {ln});
  const ExprPtr q = filled("headSliceF", {{"tk", 5}, {"heads", 2}, {"d", 2}, {"head", 1}}, {qkv});
  const ExprPtr kt = filled("transposeF", {{"m", 5}, {"n", 2}}, {leaf("%k", Strings(10, "0"))});
  const ExprPtr scores = filled("softmaxRowF", {{"m", 5}, {"n", 5}}, {filled("matmulF", {{"m", 5}, {"k", 2}, {"n", 5}}, {q, kt})});
  const ExprPtr out = filled("matmulF", {{"m", 5}, {"k", 5}, {"n", 2}}, {scores, leaf("%vv", Strings(10, "0"))});
  const ExprPtr fwd = filled("clsSliceF", {{"tk", 4}, {"D", 2}},
                             {filled("rowBiasF", {{"m", 5}, {"n", 2}}, {filled("rowScaleF", {{"m", 5}, {"n", 2}}, {out})})});
  const std::string text = text_case(*fwd).text;
  const auto a = agree_f64(text, text);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.compared == 11);
  // Control: the softmax's exponential becomes a logistic in the text that runs.
  std::string wrong = text;
  wrong.replace(wrong.find("stablehlo.exponential"), 21, "stablehlo.logistic");
  CHECK_FALSE(agree_f64(text, wrong).pass());

  // Backward: the cotangent through the softmax, layer norm and GELU VJPs and the row dense
  // input VJP, then the row-dense, vector-LN gamma and layer-scale gamma updates.
  const ExprPtr dy = leaf("%dy", Strings(20, "0"));
  const ExprPtr back = filled("denseRowBack", {{"tk", 5}, {"a", 2}, {"c", 4}},
                              {filled("lnRowBack", {{"m", 5}, {"n", 4}}, {filled("softmaxRowBack", {{"m", 5}, {"n", 4}}, {filled("geluBack", {{"n", 20}}, {dy})})})});
  const std::string back_text = text_case(*filled("veclnGammaSgd", {{"tk", 5}, {"D", 2}}, {back})).text;
  const auto b = agree_f64(back_text, back_text);
  INFO(format_agreement(b));
  CHECK(b.pass());
  CHECK(b.compared == 5);
  std::string wrong_back = back_text;
  wrong_back.replace(wrong_back.find("dense<0.134145>"), 15, "dense<0.144145>");  // GELU's 3 x 0.044715
  CHECK_FALSE(agree_f64(back_text, wrong_back).pass());
  const std::string sgd_text =
      text_case(*filled("rowDenseWeightSgd", {{"tk", 5}, {"a", 3}, {"c", 4}}, {dy})).text;
  CHECK(agree_f64(sgd_text, sgd_text).pass());
  const std::string ls_text = text_case(*filled("layerScaleChGammaSgd", {{"c", 2}, {"h", 2}, {"w", 5}}, {dy})).text;
  CHECK(agree_f64(ls_text, ls_text).pass());
}
