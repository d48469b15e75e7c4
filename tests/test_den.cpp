// den of every core constructor on small cases computed by hand (SHLO_SEMANTICS.md section 3),
// in `exact`, and in `interval` where the value is irrational.
#include "interp/den.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

// Midpoint of an interval den, checked to enclose `expected` within `tolerance`.
bool encloses_near(const ExprPtr& e, std::size_t i, double expected, double tolerance) {
  const IntervalDomain I(128);
  const auto r = denote(I, *e);
  const auto& v = r.value.at(i);
  return std::abs(I.to_double(v) - expected) < tolerance && IntervalDomain::width(v) < 1e-30;
}

ExprPtr x2(const char* a, const char* b) { return leaf("%u", {a, b}); }

}  // namespace

TEST_CASE("den: leaves, dense and elementwise pieces", "[den]") {
  CHECK(den_exact(leaf("%x", {"1/2", "-3"})) == Strings{"1/2", "-3"});
  CHECK(den_exact(node("dotIn", {{"m", 2}, {"n", 3}}, {{"W", {"1", "0", "2", "0", "1", "1"}}}, {x2("1", "2")})) == Strings{"1", "2", "4"});
  CHECK(den_exact(node("dotOut", {{"m", 2}, {"n", 3}}, {{"W", {"1", "0", "2", "0", "1", "1"}}}, {leaf("%u", {"1", "2", "3"})})) ==
        Strings{"7", "5"});
  CHECK(den_exact(node("addBcast", {{"n", 2}}, {{"b", {"1/2", "-1"}}}, {x2("1", "2")})) == Strings{"3/2", "1"});
  CHECK(den_exact(node("expe", {{"n", 2}}, {}, {x2("0", "0")})) == Strings{"1", "1"});
  CHECK(encloses_near(node("expe", {{"n", 2}}, {}, {x2("1", "0")}), 0, 2.718281828459045, 1e-15));
  CHECK(den_exact(node("softmaxDiv", {{"n", 3}}, {}, {leaf("%u", {"1", "3", "1"})})) == Strings{"1/5", "3/5", "1/5"});
  CHECK(den_exact(node("sub", {{"n", 2}}, {}, {x2("1", "2"), leaf("%y", {"3", "5"})})) == Strings{"-2", "-3"});
  CHECK(den_exact(node("scaleF", {{"n", 2}}, {{"s", {"1/2"}}}, {x2("2", "4")})) == Strings{"1", "2"});
}

TEST_CASE("den: softmaxDiv of a zero sum follows Lean (x/0 = 0) and says so", "[den]") {
  std::vector<DenEvent> events;
  CHECK(den_exact(node("softmaxDiv", {{"n", 2}}, {}, {x2("1", "-1")}), &events) == Strings{"0", "0"});
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind == "div-by-zero");
  CHECK(events[0].constructor == "softmaxDiv");
  CHECK(events[1].index == 1);
  std::vector<DenEvent> none;
  den_exact(node("softmaxDiv", {{"n", 2}}, {}, {x2("1", "1")}), &none);
  CHECK(none.empty());  // control
}

TEST_CASE("den: activations and masks", "[den]") {
  CHECK(den_exact(node("reluF", {{"n", 2}}, {}, {x2("-1", "2")})) == Strings{"0", "2"});
  CHECK(den_exact(node("selectPos", {{"n", 3}}, {{"x", {"1", "-1", "0"}}}, {leaf("%u", {"5", "6", "7"})})) == Strings{"5", "0", "0"});
  CHECK(den_exact(node("relu6F", {{"n", 3}}, {}, {leaf("%u", {"-1", "3", "7"})})) == Strings{"0", "3", "6"});
  CHECK(den_exact(node("selectMid", {{"n", 4}}, {{"x", {"1", "6", "0", "5"}}}, {leaf("%u", {"1", "2", "3", "4"})})) ==
        Strings{"1", "0", "0", "4"});
  CHECK(den_exact(node("sigmoidF", {{"n", 2}}, {}, {x2("0", "0")})) == Strings{"1/2", "1/2"});
  CHECK(encloses_near(node("sigmoidF", {{"n", 2}}, {}, {x2("1", "0")}), 0, 0.7310585786300049, 1e-15));
  CHECK(encloses_near(node("geluF", {{"n", 2}}, {}, {x2("1", "-1/2")}), 0, 0.8411919906082768, 1e-15));
  CHECK(encloses_near(node("geluF", {{"n", 2}}, {}, {x2("1", "-1/2")}), 1, -0.15428599017485606, 1e-15));
  CHECK_THROWS_WITH(den_exact(node("geluF", {{"n", 2}}, {}, {x2("1", "0")})), Catch::Contains("irrational"));
  CHECK(den_exact(node("convertF", {{"n", 1}}, {}, {leaf("%u", {"1/3"})})) == Strings{"1/3"});
  CHECK(den_exact(node("convertF", {{"n", 1}}, {}, {leaf("%u", {"1/3"})}, {{"rnd", "binary32"}})) == Strings{"11184811/33554432"});
}

TEST_CASE("den: convolution and pooling", "[den]") {
  const Nats k3 = {{"ic", 1}, {"oc", 1}, {"h", 2}, {"w", 2}, {"kH", 3}, {"kW", 3}};
  const std::vector<std::string> w9 = {"1", "2", "3", "4", "5", "6", "7", "8", "9"};
  const auto img = leaf("%u", {"1", "10", "100", "1000"});
  // y[0,i,j] = b + sum W[kh,kw] X~[i+kh-1, j+kw-1]
  CHECK(den_exact(node("flatConvF", k3, {{"W", w9}, {"b", {"10"}}}, {img})) == Strings{"9875", "8764", "6542", "5431"});
  // convIn: y[r,s] = sum_{i,j} W[r+1-i, s+1-j] D[i,j]
  CHECK(den_exact(node("convBack", k3, {{"W", w9}, {"b", {"0"}}, {"v", {"0", "0", "0", "0"}}}, {img})) ==
        Strings{"1245", "2356", "4578", "5689"});
  CHECK(den_exact(node("maxPoolF", {{"c", 1}, {"h", 1}, {"w", 1}}, {}, {leaf("%u", {"1", "5", "3", "2"})})) == Strings{"5"});
  // Every tied maximum receives the cotangent (section 7.1).
  CHECK(den_exact(node("maxPoolBack", {{"c", 1}, {"h", 1}, {"w", 1}}, {{"x", {"1", "5", "5", "2"}}}, {leaf("%u", {"7"})})) ==
        Strings{"0", "7", "7", "0"});
  // convW: y[kh,kw] = sum_{i,j} X~[i+kh-1, j+kw-1] D[i,j], with D = e_(0,0)
  const Reals xw = {{"x", {"1", "10", "100", "1000"}}, {"b", {"0"}}, {"W", w9}};
  CHECK(den_exact(node("convWeightGrad", k3, xw, {leaf("%u", {"1", "0", "0", "0"})})) ==
        Strings{"0", "0", "0", "0", "1", "10", "0", "100", "1000"});
  CHECK(den_exact(node("convBiasGrad", {{"ic", 1}, {"oc", 2}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}},
                       {{"W", {"0", "0"}}, {"x", {"0"}}, {"b", {"0", "0"}}}, {x2("3", "4")})) == Strings{"3", "4"});
}

TEST_CASE("den: convBack is the adjoint of the convolution (an independent check)", "[den]") {
  // <conv(W, 0, X), D> = <X, convIn(W, D)> for a 2-channel, 3x3 example with even kernels too.
  for (std::int64_t k : {1, 2, 3}) {
    INFO("kernel " << k);
    const Nats shape = {{"ic", 2}, {"oc", 2}, {"h", 3}, {"w", 3}, {"kH", k}, {"kW", k}};
    std::vector<std::string> W, X, D;
    for (std::int64_t i = 0; i < 2 * 2 * k * k; ++i) W.push_back(std::to_string((i * 7) % 5 - 2));
    for (int i = 0; i < 18; ++i) X.push_back(std::to_string((i * 3) % 7 - 3));
    for (int i = 0; i < 18; ++i) D.push_back(std::to_string((i * 5) % 4 - 1));
    const auto y = denote(E, *node("flatConvF", shape, {{"W", W}, {"b", {"0", "0"}}}, {leaf("%x", X)})).value;
    const auto xin = denote(E, *node("convBack", shape, {{"W", W}, {"b", {"0", "0"}}, {"v", Strings(18, "0")}}, {leaf("%d", D)})).value;
    ExtRational lhs = Rational(0), rhs = Rational(0);
    for (int i = 0; i < 18; ++i) {
      lhs = E.add(lhs, E.mul(y[static_cast<std::size_t>(i)], E.from_literal(D[static_cast<std::size_t>(i)])));
      rhs = E.add(rhs, E.mul(xin[static_cast<std::size_t>(i)], E.from_literal(X[static_cast<std::size_t>(i)])));
    }
    CHECK(lhs == rhs);
    // and convW is the adjoint in W: <conv(W, 0, X), D> = <W, convW(X, D)>
    const auto gw = denote(E, *node("convWeightGrad", shape, {{"x", X}, {"b", {"0", "0"}}, {"W", W}}, {leaf("%d", D)})).value;
    ExtRational w_side = Rational(0);
    for (std::size_t i = 0; i < W.size(); ++i) w_side = E.add(w_side, E.mul(gw[i], E.from_literal(W[i])));
    CHECK(lhs == w_side);
  }
}

TEST_CASE("den: SGD updates and parameter gradients", "[den]") {
  const Reals sgd = {{"x", {"1", "2"}}, {"W", {"1", "1", "1", "1"}}, {"lr", {"1/2"}}};
  CHECK(den_exact(node("weightSgd", {{"m", 2}, {"n", 2}}, sgd, {x2("2", "4")})) == Strings{"0", "-1", "-1", "-3"});
  CHECK(den_exact(node("weightGrad", {{"m", 2}, {"n", 2}}, {{"x", {"1", "2"}}}, {x2("2", "4")})) == Strings{"2", "4", "4", "8"});
  CHECK(den_exact(node("biasSgd", {{"n", 2}}, {{"b", {"1", "1"}}, {"lr", {"1/2"}}}, {x2("2", "4")})) == Strings{"0", "-1"});
  CHECK(den_exact(node("biasGrad", {{"n", 2}}, {}, {x2("2", "4")})) == Strings{"2", "4"});
  const Nats k1 = {{"ic", 1}, {"oc", 1}, {"h", 2}, {"w", 2}, {"kH", 1}, {"kW", 1}};
  CHECK(den_exact(node("convWeightSgd", k1, {{"b", {"0"}}, {"x", {"1", "2", "3", "4"}}, {"W", {"20"}}, {"lr", {"1/2"}}},
                       {leaf("%u", {"1", "1", "1", "1"})})) == Strings{"15"});
  CHECK(den_exact(node("convBiasSgd", k1, {{"W", {"0"}}, {"x", {"0", "0", "0", "0"}}, {"b", {"1"}}, {"lr", {"1/4"}}},
                       {leaf("%u", {"1", "1", "1", "1"})})) == Strings{"0"});
}

TEST_CASE("den: batch normalisation", "[den]") {
  // mean 2, variance 1, eps 3: s = 1/2, x^ = [-1/2, 1/2]
  CHECK(den_exact(node("bnF", {{"n", 2}}, {{"eps", {"3"}}, {"gamma", {"2"}}, {"beta", {"1"}}}, {x2("1", "3")})) == Strings{"0", "2"});
  // (1/m) s (m g - sum g - x^ sum x^ g) with g = gamma dy = [2, 0]
  CHECK(den_exact(node("bnBack", {{"n", 2}}, {{"eps", {"3"}}, {"gamma", {"2"}}, {"x", {"1", "3"}}}, {x2("1", "0")})) ==
        Strings{"3/8", "-3/8"});
  // Two channels, statistics per channel over the batch: layout [n][c].
  CHECK(den_exact(node("bnBatchF", {{"N", 2}, {"oc", 2}, {"h", 1}, {"w", 1}}, {{"eps", {"0"}}, {"gamma", {"2", "3"}}, {"beta", {"1", "5"}}},
                       {leaf("%u", {"1", "10", "3", "30"})})) == Strings{"-1", "2", "3", "8"});
  CHECK(den_exact(node("bnBatchBack", {{"N", 2}, {"oc", 1}, {"h", 1}, {"w", 1}}, {{"eps", {"3"}}, {"gamma", {"2"}}, {"x", {"1", "3"}}},
                       {x2("1", "0")})) == Strings{"3/8", "-3/8"});
  CHECK(encloses_near(node("bnF", {{"n", 2}}, {{"eps", {"1"}}, {"gamma", {"1"}}, {"beta", {"0"}}}, {x2("0", "2")}), 1,
                      0.7071067811865476, 1e-15));
}

TEST_CASE("den: optimizer and clipping nodes", "[den]") {
  const auto g2 = leaf("%g", {"2"});
  const std::vector<std::int64_t> ds = {1};
  CHECK(den_exact(node("adamMNextF", {}, {{"beta1", {"9/10"}}, {"m", {"1"}}}, {g2}, {}, ds)) == Strings{"11/10"});
  CHECK(den_exact(node("adamVNextF", {}, {{"beta2", {"1/2"}}, {"v", {"2"}}}, {g2}, {}, ds)) == Strings{"3"});
  // m' = 1, v' = 2, v^ = 4, direction 1/2: 1 - 1/20 - 1/10
  const Reals adam = {{"beta1", {"1/2"}}, {"beta2", {"1/2"}}, {"eps", {"0"}}, {"lr", {"1/10"}}, {"wd", {"1"}}, {"bc1", {"1"}},
                      {"bc2", {"1/2"}}, {"theta", {"1"}}, {"m", {"0"}}, {"v", {"0"}}};
  CHECK(den_exact(node("adamWParamF", {}, adam, {g2}, {}, ds)) == Strings{"17/20"});
  Reals lamb = adam;
  lamb.erase("lr");
  lamb["wd"] = {"1/2"};
  CHECK(den_exact(node("lambDirF", {}, lamb, {g2}, {}, ds)) == Strings{"1"});
  CHECK(den_exact(node("sgdParamF", {}, {{"lr", {"1/4"}}, {"theta", {"1"}}}, {g2}, {}, ds)) == Strings{"1/2"});
  CHECK(den_exact(node("momVNextF", {}, {{"mu", {"1/2"}}, {"v", {"2"}}}, {leaf("%g", {"1"})}, {}, ds)) == Strings{"2"});
  CHECK(den_exact(node("momParamF", {}, {{"mu", {"1/2"}}, {"lr", {"1/4"}}, {"theta", {"1"}}, {"v", {"2"}}}, {leaf("%g", {"1"})}, {}, ds)) ==
        Strings{"1/2"});
  CHECK(den_exact(node("rmsBufNextF", {}, {{"rho", {"1/2"}}, {"mu", {"1/2"}}, {"eps", {"1"}}, {"sq", {"2"}}, {"buf", {"2"}}}, {g2}, {}, ds)) ==
        Strings{"2"});
  const std::vector<std::int64_t> ds2 = {2};
  CHECK(den_exact(node("gradSumSqAccF", {}, {}, {leaf("%s", {"1"}), x2("1", "2")}, {}, ds2)) == Strings{"6"});
  CHECK(den_exact(node("clipScaleF", {}, {{"c", {"2"}}, {"eps", {"0"}}}, {leaf("%s", {"16"}), x2("2", "4")}, {}, ds2)) == Strings{"1", "2"});
  CHECK(den_exact(node("clipScaleF", {}, {{"c", {"8"}}, {"eps", {"0"}}}, {leaf("%s", {"16"}), x2("2", "4")}, {}, ds2)) == Strings{"2", "4"});
  CHECK(den_exact(node("lambScaleF", {}, {}, {leaf("%s", {"4"}), x2("3", "4")}, {}, ds2)) == Strings{"6/5", "8/5"});
  CHECK(den_exact(node("lambScaleF", {}, {}, {leaf("%s", {"0"}), x2("3", "4")}, {}, ds2)) == Strings{"3", "4"});  // guard: trust 1
  // Adam with a negative second moment: Lean's sqrt of a negative is 0, reported.
  Reals neg = adam;
  neg["v"] = {"-100"};
  std::vector<DenEvent> events;
  den_exact(node("adamWParamF", {}, neg, {g2}, {}, ds), &events);
  REQUIRE(!events.empty());
  CHECK(events[0].kind == "sqrt-of-negative");
}

TEST_CASE("den: the batched set and the data-parallel node", "[den]") {
  CHECK(den_exact(node("batchOp/dense", {{"N", 2}, {"a", 1}, {"c", 2}}, {{"W", {"1", "2"}}, {"bias", {"0", "1"}}}, {x2("1", "2")})) ==
        Strings{"1", "3", "2", "5"});
  CHECK(den_exact(node("batchOp/conv", {{"N", 2}, {"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}},
                       {{"W", {"2"}}, {"bias", {"1"}}}, {x2("1", "2")})) == Strings{"3", "5"});
  CHECK(den_exact(node("batchOp/relu", {{"N", 2}, {"n", 1}}, {}, {x2("-1", "2")})) == Strings{"0", "2"});
  CHECK(den_exact(node("batchOp/maxPool", {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 1}}, {},
                       {leaf("%u", {"1", "5", "3", "2", "0", "-1", "-2", "-3"})})) == Strings{"5", "0"});
  CHECK(den_exact(node("batchOp/expe", {{"N", 2}, {"n", 1}}, {}, {x2("0", "0")})) == Strings{"1", "1"});
  CHECK(den_exact(node("batchOp/softmaxDiv", {{"N", 2}, {"n", 2}}, {}, {leaf("%u", {"1", "3", "2", "2"})})) ==
        Strings{"1/4", "3/4", "1/2", "1/2"});
  CHECK(den_exact(node("batchOp/dotOut", {{"N", 2}, {"m", 1}, {"n", 2}}, {{"W", {"1", "2"}}}, {leaf("%u", {"1", "1", "2", "0"})})) ==
        Strings{"3", "2"});
  CHECK(den_exact(node("subB", {{"N", 2}, {"n", 1}}, {}, {x2("1", "2"), leaf("%v", {"3", "5"})})) == Strings{"-2", "-3"});
  CHECK(den_exact(node("divConstB", {{"N", 2}, {"n", 1}}, {{"s", {"4"}}}, {x2("2", "4")})) == Strings{"1/2", "1"});
  CHECK(den_exact(node("selectPosB", {{"N", 2}, {"n", 1}}, {{"x", {"1", "-1"}}}, {x2("5", "6")})) == Strings{"5", "0"});
  CHECK(den_exact(node("maxPoolBackB", {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 1}}, {{"x", {"1", "5", "5", "2", "4", "3", "2", "1"}}},
                       {x2("7", "8")})) == Strings{"0", "7", "7", "0", "8", "0", "0", "0"});
  const Nats one = {{"N", 2}, {"ic", 1}, {"oc", 1}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
  CHECK(den_exact(node("convBackBatched", one, {{"W", {"3"}}, {"b", {"0"}}}, {x2("1", "2")})) == Strings{"3", "6"});
  CHECK(den_exact(node("convWeightGradB", one, {{"b", {"0"}}, {"x", {"1", "2"}}, {"W", {"0"}}}, {x2("3", "4")})) == Strings{"11"});
  CHECK(den_exact(node("convBiasGradB", one, {{"W", {"0"}}, {"x", {"0", "0"}}, {"b", {"0"}}}, {x2("3", "4")})) == Strings{"7"});
  CHECK(den_exact(node("denseWeightGradB", {{"N", 2}, {"a", 1}, {"c", 2}}, {{"x", {"1", "2"}}}, {leaf("%u", {"1", "2", "3", "4"})})) ==
        Strings{"7", "10"});
  CHECK(den_exact(node("denseBiasGradB", {{"N", 2}, {"c", 2}}, {}, {leaf("%u", {"1", "2", "3", "4"})})) == Strings{"4", "6"});
  // (1/R) sum_r den(g_r)
  const auto mean = node("allReduceMeanF", {}, {}, {x2("1", "2"), leaf("%u", {"3", "4"}), leaf("%u", {"5", "9"})}, {{"t", "W1"}}, {2}, 3);
  CHECK(den_exact(mean) == Strings{"3", "5"});
  // Control: the sum is not the mean; it differs by the factor R.
  CHECK(den_exact(mean) != Strings{"9", "15"});
}

TEST_CASE("every constructor of the table has a denotation of its declared length", "[den]") {
  // A guard against a row added to the table without a formula: every constructor, built
  // with all shape parameters 1, zero values and zero leaves, denotes a vector of its length.
  const IntervalDomain I(64);
  int checked = 0;
  for (const auto& c : constructors()) {
    INFO(c.name);
    Expr e;
    e.spec = &c;
    for (const char* n : c.nats) e.nats[n] = std::string(n) == "head" ? 0 : 1;  // a head index is below heads = 1
    if (c.has_ds) e.ds = {1};
    for (const char* s : c.strings) e.strings[s] = std::string(s) == "rnd" ? "identity" : std::string("%") + s;
    if (c.arity == Arity::Family) e.replicas = 2;
    for (const auto& f : c.reals) e.reals[f.name].assign(static_cast<std::size_t>(eval_length(f.length, e.nats)), Rational(0));
    const std::size_t kids = c.arity == Arity::Leaf ? 0 : c.arity == Arity::Unary ? 1 : 2;
    for (std::size_t k = 0; k < kids; ++k) {
      const auto len = eval_length(c.child_lengths[c.arity == Arity::Family ? 0 : k], e.nats);
      e.children.push_back(leaf("%z", Strings(static_cast<std::size_t>(len), "0")));
    }
    const ExprPtr x = make_expr(std::move(e));
    const auto r = denote(I, *x);
    CHECK(static_cast<std::int64_t>(r.value.size()) == x->length());
    ++checked;
  }
  CHECK(checked == 59 + 42 + 18 + 22 + 64 + 53);  // core; per-channel BN and blocks; low precision and sync BN; the strided, depthwise and ViT bf16 peers; ViT, ConvNeXt, regularisers; strided and depthwise convolutions
}

TEST_CASE("construction checks name the constructor, the field and the mismatch", "[expr]") {
  CHECK_THROWS_WITH(node("dotIn", {{"m", 2}, {"n", 3}}, {{"W", {"1", "2"}}}, {x2("1", "2")}),
                    Catch::Contains("constructor 'dotIn'") && Catch::Contains("real field 'W' has 2 values, expected m*n = 6"));
  CHECK_THROWS_WITH(node("dotIn", {{"m", 3}, {"n", 1}}, {{"W", {"1", "2", "3"}}}, {x2("1", "2")}),
                    Catch::Contains("child 0 (operand) has length 2, expected m = 3"));
  CHECK_THROWS_WITH(node("sgdParamF", {}, {{"lr", {"1"}}, {"theta", {"1", "2"}}}, {x2("1", "2")}, {}, {3}),
                    Catch::Contains("real field 'theta' has 2 values, expected n = 3"));
  CHECK_THROWS_WITH(node("sgdParamF", {{"n", 2}}, {{"lr", {"1"}}, {"theta", {"1", "2"}}}, {x2("1", "2")}, {}, {3}),
                    Catch::Contains("product of ds is 3 but n = 2"));
  CHECK_THROWS_WITH(node("allReduceMeanF", {}, {}, {}, {{"t", "x"}}, {2}, 0), Catch::Contains("R must be at least 1"));
  CHECK_THROWS_WITH(node("allReduceMeanF", {}, {}, {x2("1", "2")}, {{"t", "x"}}, {2}, 2), Catch::Contains("has 1 children, expected 2"));
  CHECK_THROWS_WITH(node("reluF", {{"n", 2}, {"q", 1}}, {}, {x2("1", "2")}), Catch::Contains("unknown shape parameter 'q'"));
  CHECK_NOTHROW(node("reluF", {{"n", 2}}, {}, {x2("1", "2")}));  // control
}

TEST_CASE("den: convertF's roundings (identity, binary32, bfloat16, Lean's rndP with ties upward)", "[den]") {
  auto convert = [](const char* rnd, std::vector<std::string> v) {
    return den_exact(node("convertF", {{"n", static_cast<std::int64_t>(v.size())}}, {}, {leaf("%u", v)}, {{"rnd", rnd}}));
  };
  CHECK(convert("identity", {"1/3"}) == Strings{"1/3"});
  CHECK(convert("binary32", {"1/3"}) == Strings{"11184811/33554432"});
  // bfloat16: 8 significand bits; 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even -> 1.
  CHECK(convert("bfloat16", {"257/256", "259/256", "1/3"}) == Strings{"1", "65/64", "171/512"});
  // rndP(p): p fractional bits, ties upward: 1 + 2^-(p+1) rounds up, -1 - 2^-(p+1) rounds up too.
  CHECK(convert("rndP:3", {"17/16", "-17/16", "0", "1/3"}) == Strings{"9/8", "-1", "0", "11/32"});
  CHECK(convert("rndP:23", {"1/3"}) == convert("binary32", {"1/3"}));  // rndP(23) = binary32 away from ties
  CHECK_THROWS_WITH(convert("fp8", {"1"}), Catch::Contains("unknown rounding 'fp8'"));
  // In the interval domain the rounding maps each endpoint (it is monotone).
  const auto r = denote(IntervalDomain(64), *node("convertF", {{"n", 1}}, {}, {leaf("%u", {"1/3"})}, {{"rnd", "bfloat16"}})).value;
  CHECK(IntervalDomain::contains(r[0], Rational(171, 512)));
  CHECK(IntervalDomain::width(r[0]) == 0);
}
