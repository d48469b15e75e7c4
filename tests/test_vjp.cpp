// The VJP property family (fuzz/vjp), its dual-number domain (interp/domain/dual.hpp), the
// coverage table over the Lean inductive's constructors (fuzz/coverage), and the runner's
// isolation of a property that crashes (fuzz/runner).
#include <cmath>
#include <csignal>

#include "ast/expr_json.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/runner.hpp"
#include "fuzz/vjp.hpp"
#include "fuzz/vjp_den.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::fuzz;

namespace {

constexpr std::uint64_t kSeed = 20261130;

Property line_property(const VjpPair& pair) {
  Property p = *find_property("vjp.transpose_jacobian");
  p.name = "vjp." + pair.backward;
  p.gen = [pair] { return gen_vjp_case(pair); };
  return p;
}

ExprPtr operand(const std::vector<Rational>& v) {
  Expr e;
  e.spec = find_constructor("operand");
  e.nats["n"] = static_cast<std::int64_t>(v.size());
  e.strings["name"] = "%x";
  e.reals["v"] = v;
  return make_expr(std::move(e));
}

}  // namespace

// --- the dual domain ------------------------------------------------------------------------

TEST_CASE("dual numbers carry the derivative through every operation", "[vjp][dual]") {
  const DualDomain<ExactDomain> d(ExactDomain{}, {{Rational(3), Rational(1)}});  // x = 3 is the variable
  const auto x = d.from_rational(3), c = d.from_rational(5);
  CHECK(c.tangent.q == 0);                                           // a constant
  CHECK(d.mul(x, x).tangent.q == 6);                                 // (x^2)' = 2x
  CHECK(d.div(c, x).tangent.q == Rational(-5, 9));                   // (5/x)' = -5/x^2
  CHECK(d.sub(c, d.mul(x, c)).tangent.q == -5);                      // (5 - 5x)' = -5
  CHECK(d.max(x, d.from_rational(2)).tangent.q == 1);               // max picks x
  CHECK(d.max(d.from_rational(4), x).tangent.q == 0);               // ... or the constant
  CHECK(d.sqrt(d.mul(x, x)).tangent.q == 1);                         // sqrt(x^2)' = 1 at 3
  // max at a tie whose tangents differ has no derivative: an error, never a guess.
  const auto three = d.add(d.from_rational(2), d.from_rational(1));  // 3, a constant
  CHECK_THROWS_WITH(d.max(x, three), Catch::Contains("not differentiable"));
  CHECK_THROWS_WITH(d.abs(d.sub(x, x)), Catch::Contains("not differentiable"));
  // Irrational values: exact refuses, the interval base encloses value and derivative.
  CHECK_THROWS_WITH(d.exp(x), Catch::Contains("irrational"));
  const DualDomain<IntervalDomain> i(IntervalDomain(128), {{Rational(1, 2), Rational(1)}});
  const auto e = i.exp(i.from_rational(Rational(1, 2)));  // (exp)' = exp
  CHECK(IntervalDomain::contains(e.tangent, Rational(16487212707, 10000000000)) == false);  // not a rational
  CHECK(std::fabs(i.base().to_double(e.tangent) - std::exp(0.5)) < 1e-15);
  const auto t = i.tanh(i.from_rational(Rational(1, 2)));  // 1 - tanh^2
  CHECK(std::fabs(i.base().to_double(t.tangent) - (1 - std::tanh(0.5) * std::tanh(0.5))) < 1e-15);
  const auto r = i.rsqrt(i.from_rational(Rational(1, 2)));  // -1/2 x^-3/2
  CHECK(std::fabs(i.base().to_double(r.tangent) + 0.5 * std::pow(0.5, -1.5)) < 1e-14);
}

TEST_CASE("den over dual numbers differentiates a constructor with no code of its own", "[vjp][dual]") {
  // reluF at x = (2, -1, 1/2) in direction (1, 1, -3): J v = (1, 0, -3).
  Expr relu;
  relu.spec = find_constructor("reluF");
  relu.nats["n"] = 3;
  relu.children = {operand({Rational(2), Rational(-1), Rational(1, 2)})};
  const DualDomain<ExactDomain> d(ExactDomain{}, {{Rational(2), Rational(1)}, {Rational(-1), Rational(1)}, {Rational(1, 2), Rational(-3)}});
  const auto y = denote(d, *make_expr(std::move(relu))).value;
  REQUIRE(y.size() == 3);
  CHECK(y[0].tangent.q == 1);
  CHECK(y[1].tangent.q == 0);
  CHECK(y[2].tangent.q == -3);
}

// --- the table ------------------------------------------------------------------------------

TEST_CASE("the VJP table names main's backward constructors, each line well formed", "[vjp]") {
  std::set<std::string> backward;
  for (const auto& pair : vjp_pairs()) {
    INFO(pair.backward);
    CHECK(vjp_pair_problem(pair).empty());
    backward.insert(pair.backward);
  }
  for (const char* name : {"convBack", "bnBack", "bnBatchBack", "maxPoolBack", "maxPoolBackB", "selectPos", "selectMid", "selectPosB",
                           "convBackBatched", "weightGrad", "biasGrad", "convWeightGrad", "convBiasGrad", "convWeightGradB",
                           "convBiasGradB", "denseWeightGradB", "denseBiasGradB"})
    CHECK(backward.count(name) == 1);
  // Identifiers resolve to names: the batched lines are written either way.
  CHECK(std::any_of(vjp_pairs().begin(), vjp_pairs().end(), [](const VjpPair& p) { return p.forward == "batchOp/relu"; }));
  CHECK_THAT(vjp_pair_problem({"noSuchBack", "reluF", "", ""}), Catch::Contains("unknown backward constructor 'noSuchBack'"));
  CHECK_THAT(vjp_pair_problem({"selectPos", "reluF", "W", "x"}), Catch::Contains("has no real field 'W'"));
  CHECK_THAT(vjp_pair_problem({"selectPos", "sub", "", "x"}), Catch::Contains("does not take one child"));
}

TEST_CASE("every line of the table holds, and its control fails", "[vjp]") {
  for (const auto& pair : vjp_pairs()) {
    INFO(pair.backward << " <- " << pair.forward);
    const Property p = line_property(pair);
    const PropertyRun r = run_property(p, kSeed, 25);
    INFO(r.detail);
    CHECK(r.failed == 0);
    CHECK(r.passed >= 25);
    CHECK(r.discarded <= r.passed);  // skipped points stay the exception
    Property control = p;
    control.check = p.control;
    const PropertyRun c = run_property(control, kSeed, 100);
    CHECK(c.failed == 1);
  }
}

TEST_CASE("a hand-computed case: selectPos is relu's VJP, and the wrong phase is caught", "[vjp]") {
  Instance i = gen_vjp_case({"selectPos", "reluF", "", "x"})(rc::Random(7), 10).value();  // a well-formed case, then our values
  const Rational step(1, 1000003);
  const std::vector<Rational> x = {Rational(1) + step, Rational(-2) + 2 * step};
  Expr back = *i.expr;
  back.nats["n"] = 2;
  back.reals["x"] = x;
  back.children = {operand({Rational(3), Rational(5)})};
  i.expr = make_expr(std::move(back));
  Expr fwd;
  fwd.spec = find_constructor("reluF");
  fwd.nats["n"] = 2;
  fwd.children = {operand(x)};
  i.data["forward"] = expr_to_json(*make_expr(std::move(fwd))).dump();
  i.data["direction"] = {"1", "2"};
  // back(dy) = (3, 0), <., v> = 3; J v = (1, 0), <dy, .> = 3.
  CHECK(check_vjp(i).passed());
  // The control: back at -x on the reversed cotangent (5, 3) is (0, 3), <., v> = 6.
  const Verdict wrong = check_vjp(i, VjpSide::WrongPhaseAndTranspose);
  CHECK_FALSE(wrong.passed());
  CHECK_THAT(wrong.detail, Catch::Contains("exact: <back(dy), v> = 6 but <dy, J v> = 3"));
}

TEST_CASE("rational lines are judged exactly, batch norm's mostly in interval:128 with narrow enclosures", "[vjp]") {
  // Batch norm's 1/sqrt(var + eps) is rational only by chance (one example, eps = 1/4 or 1).
  for (const auto& [pair, least_interval] : std::vector<std::pair<VjpPair, int>>{{{"selectPos", "reluF", "", "x"}, 0},
                                                                                {{"convWeightGrad", "flatConvF", "W", "x"}, 0},
                                                                                {{"bnBack", "bnF", "", "x"}, 5},
                                                                                {{"bnBatchBack", "bnBatchF", "", "x"}, 5}}) {
    INFO(pair.backward);
    int interval = 0;
    for (int k = 0; k < 20; ++k) {
      const Instance i = gen_vjp_case(pair)(rc::Random(k), 10).value();
      const Verdict v = check_vjp(i);
      CHECK(v.passed());
      if (v.detail.rfind("interval:128: the enclosures overlap, relative width at most ", 0) == 0) ++interval;
      else CHECK_THAT(v.detail, Catch::StartsWith("exact: both sides "));
    }
    CHECK(interval >= least_interval);
    if (least_interval == 0) CHECK(interval == 0);
  }
}

TEST_CASE("a table line naming the wrong forward fails", "[vjp]") {
  // bnBack is not relu's VJP (rational forward, irrational backward: the interval route).
  CHECK(run_property(line_property({"bnBack", "reluF", "", "x"}), kSeed, 50).failed == 1);
  // selectPos is not sigmoid's VJP.
  CHECK(run_property(line_property({"selectPos", "sigmoidF", "", "x"}), kSeed, 50).failed == 1);
  // weightGrad against dotOut: the shapes do not fit.
  const PropertyRun shapes = run_property(line_property({"weightGrad", "dotOut", "W", "x"}), kSeed, 50);
  CHECK(shapes.failed == 1);
  // convBiasGrad is the VJP in b, not in W.
  CHECK(run_property(line_property({"convBiasGrad", "flatConvF", "W", "x"}), kSeed, 50).failed == 1);
  // An unknown constructor is a failing line, not a crash.
  const PropertyRun unknown = run_property(line_property({"noSuchBack", "reluF", "", ""}), kSeed, 5);
  CHECK(unknown.failed == 1);
  CHECK_THAT(unknown.detail, Catch::Contains("unknown backward constructor"));
}

TEST_CASE("a failing VJP case is saved and replayed", "[vjp][corpus]") {
  const Property wrong = line_property({"selectPos", "sigmoidF", "", "x"});
  const PropertyRun r = run_property(wrong, kSeed, 50);
  REQUIRE(r.failed == 1);
  const auto corpus = (std::filesystem::temp_directory_path() / "shlo_corpus_vjp").string();
  std::filesystem::remove_all(corpus);
  const std::string dir = save_case(corpus, *find_property("vjp.transpose_jacobian"), r, kSeed);
  const Replay replay = replay_case(dir);
  CHECK_FALSE(replay.unreadable);
  CHECK_FALSE(replay.verdict.passed());  // the saved case holds the wrong forward
}

// --- coverage -------------------------------------------------------------------------------

TEST_CASE("the coverage table lists every constructor of the Lean inductive", "[vjp][coverage]") {
  const auto& lean = lean_constructors();
  CHECK(lean.size() == 215);
  CHECK(lean_batch_ops().size() == 44);
  for (const char* name : {"operand", "batchOp", "allReduceMeanF", "maxPool3s2F", "patchEmbedF", "bnSyncBack", "geluBackB",
                           "depthwiseStridedXlaBiasSgd"})
    CHECK(std::count(lean.begin(), lean.end(), name) == 1);
  CHECK(std::count(lean_batch_ops().begin(), lean_batch_ops().end(), "seBlock") == 1);
  // Every registry row is a Lean constructor (or one of batchOp's descriptors).
  const auto rows = constructor_rows();
  CHECK(rows.size() == 214 + 44 + static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const ConstructorRow& r) {
          return r.status == ConstructorRow::Status::NotInLean;
        })));
  for (const auto& r : rows) {
    INFO(r.name);
    if (r.status == ConstructorRow::Status::NotInLean) CHECK(r.name == "testRowWithoutDen");
    CHECK((r.status == ConstructorRow::Status::NoRow) == (find_constructor(r.name) == nullptr));
  }
  // A name without a row is reported as such, apart from one never drawn.
  clear_coverage();
  const auto two = constructor_rows({"reluF", "notAConstructorYet"});
  REQUIRE(two.size() >= 2);
  CHECK(two[0].status == ConstructorRow::Status::NeverDrawn);
  CHECK(two[1].status == ConstructorRow::Status::NoRow);
  set_coverage(true);
  // (1500 cases: every line of fuzz/vjp_pairs.def is drawn many times, selectPos among them)
  run_property(*find_property("vjp.transpose_jacobian"), kSeed, 1500);
  set_coverage(false);
  const std::string report = coverage_report();
  clear_coverage();
  CHECK_THAT(report, Catch::Contains("SHlo constructors of the Lean inductive (215, batchOp as its 44 descriptors)"));
  auto row = [&](const std::string& name) {  // the report's line for a constructor
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(name + " ", 0) == 0) return line;
    return std::string();
  };
  CHECK_THAT(row("batchOp/seBlock"), Catch::Matches("batchOp/seBlock +0  (no row \\(not implemented\\)|never drawn)"));
  CHECK_THAT(row("selectPos"), Catch::Matches("selectPos +[1-9][0-9]*  vjp.transpose_jacobian [1-9][0-9]*"));
  // The row the printer writes as a comment is drawn by this property alone.
  CHECK_THAT(row("patchEmbedBack"), Catch::Matches("patchEmbedBack +[1-9][0-9]*  vjp.transpose_jacobian [1-9][0-9]*"));
  CHECK_THAT(row("geluF"), Catch::Matches("geluF +0  never drawn"));
}

// --- a crash fails one property -------------------------------------------------------------

TEST_CASE("a property that crashes fails alone, and its case is saved and replayed", "[vjp][runner]") {
  const Property& p = *find_property("vjp.transpose_jacobian");
  g_fault_vjp_crash = true;  // the check dies by SIGSEGV, as a wild read through a transposed index may
  const PropertyRun crashed = run_property_isolated(p, kSeed, 20);
  const auto corpus = (std::filesystem::temp_directory_path() / "shlo_corpus_crash").string();
  std::filesystem::remove_all(corpus);
  const std::string dir = crashed.counterexample ? save_case(corpus, p, crashed, kSeed) : "";
  const Replay while_broken = dir.empty() ? Replay{} : replay_case(dir);
  g_fault_vjp_crash = false;
  // This process lives on; the crash is the property's failure, with the case it was judging.
  CHECK(crashed.failed == 1);
  CHECK_THAT(crashed.detail, Catch::Contains("killed by signal " + std::to_string(SIGSEGV)) && Catch::Contains("judging the saved case"));
  REQUIRE(crashed.counterexample.has_value());
  CHECK(crashed.counterexample->expr != nullptr);
  // Replayed while the bug is there: a failure naming the signal, not a dead replay.
  CHECK_FALSE(while_broken.unreadable);
  CHECK_FALSE(while_broken.verdict.passed());
  CHECK_THAT(while_broken.verdict.detail, Catch::Contains("the check crashed (killed by signal"));
  // Fixed: the same saved case passes, and so does the property (in a child or not).
  CHECK(replay_case(dir).verdict.passed());
  const PropertyRun fixed = run_property_isolated(p, kSeed, 20);
  CHECK(fixed.failed == 0);
  CHECK(fixed.passed == 20);
}

TEST_CASE("a check that throws fails its property with the case it threw on", "[vjp][runner]") {
  Property p = *find_property("vjp.transpose_jacobian");
  for (const bool standard : {true, false}) {
    p.check = [standard](const Instance&) -> Verdict {
      if (standard) throw std::runtime_error("index out of range");
      throw 42;  // not a std::exception
    };
    const PropertyRun r = run_property_isolated(p, kSeed, 10);
    CHECK(r.failed == 1);
    CHECK_THAT(r.detail, Catch::Contains(standard ? "exception: index out of range" : "not a std::exception"));
    CHECK(r.counterexample.has_value());
  }
}

TEST_CASE("coverage counted in the child process comes back", "[vjp][runner][coverage]") {
  clear_coverage();
  set_coverage(true);
  run_property_isolated(*find_property("vjp.transpose_jacobian"), kSeed, 20);
  set_coverage(false);
  const auto& counts = coverage_counts();
  REQUIRE(counts.count("vjp.transpose_jacobian") == 1);
  CHECK(counts.at("vjp.transpose_jacobian").at("constructor\toperand") == 20);
  clear_coverage();
}

// --- broadcastBack and seReduceB (docs/lean/conv-families-blocks.md D.5, D.7) ---------------

namespace {

const VjpPair kBroadcastBack{"broadcastBack", "depthwiseF", "b", ""};
const VjpPair kSeReduceB{"seReduceB", "layerScaleChF", "gamma", "x"};

// A node of `ctor` with the given nats and real fields over `kids`; its string fields name
// themselves (den reads none).
ExprPtr node(const char* ctor, std::map<std::string, std::int64_t> nats, std::map<std::string, std::vector<Rational>> reals,
             std::vector<ExprPtr> kids) {
  Expr e;
  e.spec = find_constructor(ctor);
  e.nats = std::move(nats);
  e.reals = std::move(reals);
  e.children = std::move(kids);
  for (const char* s : e.spec->strings) e.strings[s] = std::string("%") + s;
  return make_expr(std::move(e));
}

std::vector<Rational> rationals(std::initializer_list<int> xs) {
  std::vector<Rational> out;
  for (int x : xs) out.push_back(Rational(x));
  return out;
}

// A case of `pair` (well formed, from the generator) with the backward, forwards and direction
// replaced by ours.
Instance hand_case(const VjpPair& pair, ExprPtr back, const std::vector<ExprPtr>& forwards, const std::vector<Rational>& direction) {
  Instance i = gen_vjp_case(pair)(rc::Random(7), 10).value();
  i.expr = std::move(back);
  nlohmann::json f = nlohmann::json::array();
  for (const auto& fwd : forwards) f.push_back(expr_to_json(*fwd));
  i.data["forward"] = (forwards.size() == 1 ? f[0] : f).dump();
  i.data["direction"] = rationals_to_json(direction);
  return i;
}

}  // namespace

TEST_CASE("broadcastBack is the transpose of depthwiseF's Jacobian in its bias, by hand", "[vjp][vjp-blocks]") {
  REQUIRE(std::count_if(vjp_pairs().begin(), vjp_pairs().end(), [](const VjpPair& p) {
            return p.backward == kBroadcastBack.backward && p.forward == kBroadcastBack.forward && p.wrt == "b" && p.saved.empty();
          }) == 1);
  // c = 2 channels of h x w = 1 x 2: back(dy) = (1 + 2, 3 + 4) = (3, 7), <., v> = 3 + 14 = 17 at
  // v = (1, 2); J_b v = bcast(v) = (1, 1, 2, 2), <dy, .> = 1 + 2 + 6 + 8 = 17.
  const std::map<std::string, std::int64_t> chw = {{"c", 2}, {"h", 1}, {"w", 2}};
  const ExprPtr back = node("broadcastBack", chw, {}, {operand(rationals({1, 2, 3, 4}))});
  const Rational step(1, 1000003);
  const ExprPtr fwd = node("depthwiseF", {{"c", 2}, {"h", 1}, {"w", 2}, {"kH", 1}, {"kW", 1}},
                           {{"W", rationals({5, -3})}, {"b", {step, 2 * step}}}, {operand(rationals({7, 8, 9, 10}))});
  const Instance i = hand_case(kBroadcastBack, back, {fwd}, rationals({1, 2}));
  const Verdict ok = check_vjp(i);
  CHECK(ok.passed());
  CHECK(ok.detail == "exact: both sides 17");
  // Controls: the backward doubled (34); on the cotangent reversed with its first entry moved,
  // (5, 3, 2, 1), back = (8, 3) and <., v> = 14.
  const Verdict doubled = check_vjp(i, VjpSide::Doubled);
  CHECK_FALSE(doubled.passed());
  CHECK_THAT(doubled.detail, Catch::Contains("exact: <back(dy), v> = 34 but <dy, J v> = 17"));
  CHECK_THAT(check_vjp(i, VjpSide::WrongPhaseAndTranspose).detail, Catch::Contains("exact: <back(dy), v> = 14 but <dy, J v> = 17"));
}

TEST_CASE("seReduceB is the transpose of layerScaleChF's Jacobian in gamma, one forward per example, by hand", "[vjp][vjp-blocks]") {
  // N = 2 examples of c = 1 channel, h x w = 1 x 2; x = (1, 2 | 3, 4), dy = (5, 6 | 7, 8):
  // back = (1*5 + 2*6, 3*7 + 4*8) = (17, 53), <., v> = 17 + 2*53 = 123 at v = (1, 2);
  // J_gamma v = (x_0 v_0 | x_1 v_1) = (1, 2 | 6, 8), <dy, .> = 5 + 12 + 42 + 64 = 123.
  const ExprPtr back = node("seReduceB", {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 2}}, {{"x", rationals({1, 2, 3, 4})}},
                            {operand(rationals({5, 6, 7, 8}))});
  const Rational step(1, 1000003);
  std::vector<ExprPtr> forwards;
  for (int e = 0; e < 2; ++e)
    forwards.push_back(node("layerScaleChF", {{"c", 1}, {"h", 1}, {"w", 2}}, {{"gamma", {Rational(e + 1) * step}}},
                            {operand(rationals({2 * e + 1, 2 * e + 2}))}));
  const Instance i = hand_case(kSeReduceB, back, forwards, rationals({1, 2}));
  const Verdict ok = check_vjp(i);
  CHECK(ok.passed());
  CHECK(ok.detail == "exact: both sides 123");
  const Verdict doubled = check_vjp(i, VjpSide::Doubled);
  CHECK_FALSE(doubled.passed());
  CHECK_THAT(doubled.detail, Catch::Contains("exact: <back(dy), v> = 246 but <dy, J v> = 123"));
  // The examples in the wrong order: J v = (3*1, 4*1 | 1*2, 2*2), <dy, .> = 15 + 24 + 14 + 32 = 85.
  const Instance swapped = hand_case(kSeReduceB, back, {forwards[1], forwards[0]}, rationals({1, 2}));
  CHECK_FALSE(check_vjp(swapped).passed());
  // One forward for a batch of two: the lengths say so.
  const Verdict one = check_vjp(hand_case(kSeReduceB, back, {forwards[0]}, rationals({1})));
  CHECK_FALSE(one.passed());
  CHECK_THAT(one.detail, Catch::Contains("the backward's result has 2 values, the forward's variable 1"));
}

TEST_CASE("the blocks' lines hold on drawn cases, and a backward doubled or unbound fails", "[vjp][vjp-blocks]") {
  for (const VjpPair& pair : {kBroadcastBack, kSeReduceB}) {
    INFO(pair.backward);
    const Property p = line_property(pair);
    const PropertyRun r = run_property(p, kSeed, 60);
    INFO(r.detail);
    CHECK(r.failed == 0);
    CHECK(r.passed == 60);
    CHECK(r.discarded == 0);  // both sides are rational: every case is judged exactly
    Property doubled = p;
    doubled.check = [](const Instance& i) { return check_vjp(i, VjpSide::Doubled); };
    CHECK(run_property(doubled, kSeed, 100).failed == 1);
  }
  // Drawn per example: some cases have N > 1 (the forward is then a JSON array of N nodes; at
  // size 10 RapidCheck's ranges draw only their least value, N = 1).
  int batches = 0;
  for (int k = 0; k < 20; ++k)
    batches += nlohmann::json::parse(gen_vjp_case(kSeReduceB)(rc::Random(k), 100).value().data.at("forward").get<std::string>()).is_array();
  CHECK(batches > 0);
  // Wrong lines: the saved input left unbound (x drawn apart from the backward's), the weight in
  // place of the bias, and the batched layer scale (one gamma for the batch: its gradient sums
  // over the examples, c values where seReduceB has N c).
  CHECK(run_property(line_property({"seReduceB", "layerScaleChF", "gamma", ""}), kSeed, 50).failed == 1);
  CHECK(run_property(line_property({"broadcastBack", "depthwiseF", "W", ""}), kSeed, 50).failed == 1);
  CHECK(run_property(line_property({"seReduceB", "batchOp/layerScaleCh", "gamma", "x"}), kSeed, 50).failed == 1);
}
