// The property suite: every property passes on a fixed seed and a small budget, every
// control is rejected, failures are saved and replayed, and an injected printer bug is caught.
#include <filesystem>

#include "ast/emit.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/runner.hpp"
#include "oracle/theorems/theorems.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::fuzz;

namespace {

constexpr std::uint64_t kSeed = 20261129;

std::string scratch_corpus(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("shlo_corpus_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("every property passes on a fixed seed", "[prop]") {
  REQUIRE(catalogue().size() == 28);  // 26, theorem.sync_bn and domains.f32_overflow_as_certain
  for (const auto& p : catalogue()) {
    INFO(p.name);
    const PropertyRun r = run_property(p, kSeed, 40);
    INFO(r.detail);
    CHECK(r.failed == 0);
    CHECK(r.passed >= 40);
  }
}

TEST_CASE("every control is rejected", "[prop]") {
  for (const auto& p : catalogue()) {
    INFO(p.name);
    Property control = p;
    control.check = p.control;
    const PropertyRun r = run_property(control, kSeed, 100);
    CHECK(r.failed == 1);
    CHECK(r.counterexample.has_value());
    CHECK_FALSE(r.reproduce.empty());
  }
}

TEST_CASE("a failure is shrunk, saved atomically and replayed", "[prop][corpus]") {
  const Property& p = *find_property("meaning.den_equals_text");
  Property control = p;
  control.check = p.control;
  const PropertyRun r = run_property(control, kSeed, 100);
  REQUIRE(r.failed == 1);
  const std::string corpus = scratch_corpus("save");
  const std::string dir = save_case(corpus, control, r, kSeed);
  CHECK(std::filesystem::exists(dir + "/case.json"));
  CHECK(std::filesystem::exists(dir + "/program.mlir"));
  CHECK_FALSE(std::filesystem::exists(dir + "/case.json.tmp"));
  // The saved instance passes the real property (the "bug" was in the control).
  const Replay replay = replay_case(dir);
  CHECK(replay.property == "meaning.den_equals_text");
  CHECK(replay.verdict.passed());
  // A saved case of an unknown property, or a broken file, is a clear failure.
  std::ofstream(dir + "/case.json") << "{\"property\": \"nope\", \"instance\": {}}";
  CHECK_THAT(replay_case(dir).verdict.detail, Catch::Contains("unknown property 'nope'"));
}

TEST_CASE("an injected printer bug (all-reduce divisor R - 1) is caught, shrunk, saved and replayed", "[prop][corpus]") {
  const Property& p = *find_property("meaning.replicas");
  g_fault_allreduce_divisor_offset = -1;
  const PropertyRun r = run_property(p, kSeed, 100);
  const std::string corpus = scratch_corpus("fault");
  std::string dir;
  if (r.failed) dir = save_case(corpus, p, r, kSeed);
  const Replay with_bug = dir.empty() ? Replay{} : replay_case(dir);
  g_fault_allreduce_divisor_offset = 0;
  REQUIRE(r.failed == 1);
  CHECK_THAT(r.detail, Catch::Contains("den = ") && Catch::Contains("text = "));
  // The saved program shows the bug: at the shrunk R = 2 the divisor is printed as 1.0.
  REQUIRE(r.counterexample);
  CHECK(shlo::test::read_file(dir + "/program.mlir").find("dense<1.0>") != std::string::npos);
  CHECK(with_bug.verdict.status == Verdict::Status::Fail);
  // With the printer fixed the saved case passes: it stays as a regression test.
  CHECK(replay_case(dir).verdict.passed());
}

TEST_CASE("every saved case under corpus/ passes", "[corpus]") {
  const std::filesystem::path corpus = SHLO_CORPUS_DIR;
  int replayed = 0;
  if (std::filesystem::exists(corpus))
    for (const auto& e : std::filesystem::recursive_directory_iterator(corpus))
      if (e.path().filename() == "case.json") {
        const Replay r = replay_case(e.path().string());
        INFO(r.path << ": " << r.verdict.detail);
        CHECK(r.verdict.status != Verdict::Status::Fail);  // a discard (meaningless now) is not a failure
        ++replayed;
      }
  WARN("replayed " << replayed << " saved cases from " << corpus.string());
}

TEST_CASE("the batch-BN counterexample's exact witness: shards {0}, {2} give 2 against 1", "[prop][theorem]") {
  // DP - global = Var_r(mu_r) = ((0 - 1)^2 + (2 - 1)^2) / 2 = 1, so DP = 2 and global = 1.
  CHECK(theorems::batch_bn_gap({{Rational(0)}, {Rational(2)}}).holds);
  // A claim that the gap is 2 - 1 = 0 would be wrong: the control property rejects it.
  const Property& p = *find_property("theorem.batch_bn_counterexample");
  Instance witness;
  using nlohmann::json;
  witness.data = {{"shards", json::array({json::array({"0"}), json::array({"2"})})}};
  CHECK(p.check(witness).passed());
  CHECK_FALSE(p.control(witness).passed());
  // Equal shard means: no gap, and the control has nothing to reject.
  Instance equal;
  equal.data = {{"shards", json::array({json::array({"1", "3"}), json::array({"2", "2"})})}};
  CHECK(p.check(equal).passed());
  CHECK(p.control(equal).passed());
}

TEST_CASE("coverage (shlo prop --coverage) counts what the cases drew: per op and attribute, per constructor and property", "[prop][coverage]") {
  clear_coverage();
  run_property(*find_property("text.ops_round_trip"), kSeed, 20);
  CHECK(coverage_counts().empty());  // control: counting is off unless asked for
  set_coverage(true);
  const PropertyRun ops = run_property(*find_property("text.ops_round_trip"), kSeed, 1500);
  const PropertyRun expressions = run_property(*find_property("meaning.den_equals_text"), kSeed, 100);
  set_coverage(false);
  REQUIRE(ops.failed == 0);
  REQUIRE(expressions.failed == 0);
  const auto& drawn = coverage_counts().at("text.ops_round_trip");
  // The attribute values of the list, each drawn.
  for (const char* key : {"op pad\tnegative low", "op pad\tasymmetric", "op pad\tinterior", "op slice\tstride > 1",
                          "op convolution\tstride > 1", "op convolution\tlhs dilation", "op convolution\trhs dilation",
                          "op convolution\tfeature_group_count > 1", "op convolution\tbatch_group_count > 1",
                          "op convolution\tnegative padding", "op transpose\tcycle (not own inverse)", "op transpose\trank 4",
                          "op broadcast_in_dim\tdims not increasing", "op reduce\tseveral dims", "op dot_general\tseveral contracting dims",
                          "op dot_general\tbatching dims", "op reduce_window\tbase dilation", "op reduce_window\twindow dilation",
                          "op select_and_scatter\tpadding", "op constant\tnon-dyadic decimal"}) {
    INFO(key);
    CHECK(drawn.count(key) == 1);
  }
  // Each key counts cases, at most one per case.
  for (const auto& [key, n] : drawn) CHECK(n <= ops.runs);
  // Constructors by name, per property.
  CHECK(coverage_counts().at("meaning.den_equals_text").count("constructor\toperand") == 1);
  const std::string report = coverage_report();
  CHECK_THAT(report, Catch::Contains("negative low") && Catch::Contains("per property") && Catch::Contains("never drawn"));
  clear_coverage();
}
