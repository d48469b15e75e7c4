// Synchronised batch norm (ast/ctors/sync_bn.def): den of each row on hand values, and the
// issue's property: on R replicas the sync graph equals single-device batch norm over the
// concatenated batch, exactly, where the per-replica batch norm (no sync) fails.

#include "fuzz/runner.hpp"
#include "interp/den.hpp"
#include "oracle/agree.hpp"
#include "oracle/theorems/theorems.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

std::vector<Rational> rationals(std::initializer_list<int> v) {
  std::vector<Rational> out;
  for (int x : v) out.push_back(Rational(x));
  return out;
}

}  // namespace

TEST_CASE("den: the sync batch-norm statistics, forward and backward on hand values", "[den][syncbn]") {
  // [N = 2, oc = 2, h*w = 1]: channel 0 holds 1, 3; channel 1 holds 10, 20.
  const Nats two = {{"N", 2}, {"oc", 2}, {"h", 1}, {"w", 1}};
  const auto x = leaf("%x", {"1", "10", "3", "20"});
  CHECK(den_exact(node("bnBatchMeanB", two, {}, {x})) == Strings{"2", "15"});
  CHECK(den_exact(node("bnBatchVarB", two, {}, {x})) == Strings{"1", "25"});
  // var + (mean - mu)^2 at the handed-in mu = (0, 15).
  CHECK(den_exact(node("bnBatchVarAtB", two, {}, {x, leaf("%mu", {"0", "15"})})) == Strings{"5", "25"});
  CHECK(den_exact(node("bnPackB", {{"oc", 2}}, {}, {leaf("%a", {"1", "2"}), leaf("%b", {"3", "4"})})) == Strings{"1", "2", "3", "4"});
  CHECK(den_exact(node("bnStatsMeanB", {{"oc", 2}}, {}, {leaf("%s", {"1", "2", "3", "4"})})) == Strings{"1", "2"});
  CHECK(den_exact(node("bnStatsVarB", {{"oc", 2}}, {}, {leaf("%s", {"1", "2", "3", "4"})})) == Strings{"3", "4"});

  // One channel, cells 1 and 3, statistics (mu, var) = (2, 1), eps = 3: 1/sqrt(var + eps) = 1/2.
  const Nats one = {{"N", 2}, {"oc", 1}, {"h", 1}, {"w", 1}};
  const Reals affine = {{"eps", {"3"}}, {"gamma", {"2"}}, {"beta", {"1"}}};
  const auto x1 = leaf("%x", {"1", "3"});
  // gamma (x - 2) / 2 + 1 = x - 1.
  CHECK(den_exact(node("bnSyncF", one, affine, {x1, leaf("%st", {"2", "1"})})) == Strings{"0", "2"});
  // Control: the statistics come from the operand, not from x: at mu = 0 the result moves.
  CHECK(den_exact(node("bnSyncF", one, affine, {x1, leaf("%st", {"0", "1"})})) == Strings{"2", "4"});
  const Reals saved = {{"eps", {"3"}}, {"gamma", {"2"}}, {"x", {"1", "3"}}};
  const auto dy = leaf("%dy", {"1", "2"});
  // x^ = (-1/2, 1/2), gamma dy = (2, 4): mdy = 3, mdyx = mean(-1, 2) = 1/2, after st.
  CHECK(den_exact(node("bnSyncDyStatsB", one, saved, {dy, leaf("%st", {"2", "1"})})) == Strings{"2", "1", "3", "1/2"});
  // (1/2) (gamma dy - 3 - x^ / 2) = (-3/8, 3/8), and bnBatchBack on the same batch agrees (R = 1).
  const auto back = node("bnSyncBack", one, saved, {dy, leaf("%ds", {"2", "1", "3", "1/2"})});
  CHECK(den_exact(back) == Strings{"-3/8", "3/8"});
  CHECK(den_exact(node("bnBatchBack", one, saved, {dy})) == Strings{"-3/8", "3/8"});
  // A sum, not a mean: 1 (-1/2) + 2 (1/2) = 1/2.
  CHECK(den_exact(node("bnSyncGammaGradB", one, {{"eps", {"3"}}, {"x", {"1", "3"}}}, {dy, leaf("%st", {"2", "1"})})) == Strings{"1/2"});
}

TEST_CASE("sync BN: den equals the text (every row), at N = B", "[den][syncbn]") {
  const Nats one = {{"N", 2}, {"oc", 1}, {"h", 1}, {"w", 2}};
  const auto x = leaf("%x", {"1", "3", "5", "7"}), dy = leaf("%dy", {"1", "0", "2", "-1"}), st = leaf("%st", {"4", "5"});
  // var + eps = 5 + 4 = 9: every den is rational, compared exactly.
  const Reals saved = {{"eps", {"4"}}, {"gamma", {"2"}}, {"x", {"1", "3", "5", "7"}}};
  std::vector<ExprPtr> cases = {
      node("bnBatchMeanB", one, {}, {x}),
      node("bnBatchVarB", one, {}, {x}),
      node("bnBatchVarAtB", one, {}, {x, leaf("%mu", {"1"})}),
      node("bnPackB", {{"oc", 2}}, {}, {leaf("%a", {"1", "2"}), leaf("%b", {"3", "4"})}),
      node("bnSyncF", one, {{"eps", {"4"}}, {"gamma", {"2"}}, {"beta", {"1/2"}}}, {x, st}, {{"epsStr", "4.0"}}),
      node("bnSyncDyStatsB", one, saved, {dy, st}, {{"epsStr", "4.0"}}),
      node("bnSyncBack", one, saved, {dy, leaf("%ds", {"4", "5", "1", "-1"})}, {{"epsStr", "4.0"}}),
      node("bnSyncGammaGradB", one, {{"eps", {"4"}}, {"x", {"1", "3", "5", "7"}}}, {dy, st}, {{"epsStr", "4.0"}}),
      node("bnStatsMeanB", {{"oc", 2}}, {}, {leaf("%s", {"1", "2", "3", "4"})}),
      node("bnStatsVarB", {{"oc", 2}}, {}, {leaf("%s", {"1", "2", "3", "4"})}),
  };
  for (const auto& e : cases) {
    INFO(e->spec->name);
    const Agreement a = den_agrees_with_text(*e);
    CHECK(a.agree);
    CHECK(a.domain == "exact");
    // Control: the first input's first element moved by 1 (bnStatsVarB does not read it).
    if (std::string(e->spec->name) != "bnStatsVarB") CHECK(!den_agrees_with_text(*e, true).agree);
  }
}

TEST_CASE("sync BN on R replicas equals batch BN over the concatenated batch, and per-replica BN does not", "[syncbn][theorem]") {
  // The exact witness: shards {0, 2} and {4, 6} (N = 1, h*w = 2). Global mean 3, variance 5;
  // eps = 5/4 makes var + eps = 25/4 globally and 9/4 per shard: every value rational.
  const std::vector<std::vector<Rational>> shards = {rationals({0, 2}), rationals({4, 6})};
  const std::vector<std::vector<Rational>> cotangents = {rationals({1, 0}), rationals({0, 2})};
  const auto one = rationals({1}), zero = rationals({0});
  const auto ok = theorems::sync_bn(shards, cotangents, 1, 1, 2, one, zero, Rational(5, 4));
  INFO(ok.detail);
  CHECK(ok.holds);
  const auto control = theorems::sync_bn(shards, cotangents, 1, 1, 2, one, zero, Rational(5, 4), true);
  CHECK(!control.holds);
  CHECK_THAT(control.detail, Catch::Contains("(exact)") || Catch::Contains("in exact"));
  // Random instances (R = 2..4, random shards and eps) are the catalogue's theorem.sync_bn,
  // run in the next test case.
}

TEST_CASE("the catalogue's theorem.sync_bn: the hand witness, random replicas, and the per-replica control", "[syncbn][prop]") {
  const fuzz::Property* p = fuzz::find_property("theorem.sync_bn");
  REQUIRE(p);
  // The witness above as an instance: shards {0, 2} and {4, 6}, eps = 5/4.
  fuzz::Instance witness;
  using nlohmann::json;  // explicit arrays: a braced pair of strings would read as an object
  auto shards = [](std::vector<std::string> a, std::vector<std::string> b) { return json::array({json(a), json(b)}); };
  witness.data = {{"oc", 1}, {"h", 1}, {"w", 2}, {"shards", shards({"0", "2"}, {"4", "6"})}, {"cotangents", shards({"1", "0"}, {"0", "2"})},
                  {"gamma", json::array({"1"})}, {"beta", json::array({"0"})}, {"eps", "5/4"}};
  CHECK(p->check(witness).passed());
  CHECK_FALSE(p->control(witness).passed());
  // Equal shards and equal cotangents: every per-replica statistic (forward and backward) is
  // the global one, so the control has nothing to reject.
  fuzz::Instance equal = witness;
  equal.data["shards"] = shards({"0", "2"}, {"0", "2"});
  equal.data["cotangents"] = shards({"1", "0"}, {"1", "0"});
  CHECK(p->control(equal).passed());

  const fuzz::PropertyRun r = fuzz::run_property(*p, 20261130, 40);
  INFO(r.detail);
  CHECK(r.failed == 0);
  CHECK(r.passed >= 40);
  fuzz::Property control = *p;
  control.check = p->control;
  CHECK(fuzz::run_property(control, 20261130, 100).failed == 1);
}
