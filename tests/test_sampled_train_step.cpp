// Issue 17's test on a convolutional train step, with the sampled tier: cifar8_train_step (six
// convolutions, three max pools, three dense layers, the softmax loss and every update) re-emitted
// at a batch of 2 by `shlo rebatch`, inputs drawn with seed 1 in each of the ranges,
// outputs computed in float32 and with every dot_general's and convolution's operands rounded to
// TF32 and to bf16 (the text route, tests/stat_support.hpp), judged with the tier under ieee, tf32
// and bf16. bench/sampled_ladder.sh runs the same at a batch of 8 on the whole first ladder.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "ast/rebatch.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// The test on one draw. At inputs of both signs the softmax overflows in every float
// evaluation (+inf / +inf), and the max pools may send its NaN back through a window position the
// exact run does not choose: the exact class's bound, [0, 1] from the program's structure, is what
// gives those outputs a verdict (tests/test_sampled_exact_nan.cpp).
void check_train_step_at_2(Range range) {
  const std::string original = read_file(artifact("cifar8_train_step"));
  if (original.empty()) {
    WARN("skipped: " << artifact("cifar8_train_step") << " is absent");
    return;
  }
  const std::string text = rebatch(parse_module(original, "cifar8_train_step.mlir"), 2).text;
  const Module m = parse_module(text, "cifar8_train_step_2.mlir");
  REQUIRE(m.function().arguments[0].type.shape == Shape{2, 3072});
  const Arrays in = random_inputs(m, 1, range.lo, range.hi);
  const std::vector<std::vector<Arrays>> sets = float32_tf32_bf16_outputs(text, in);
  CheckOptions sampled;
  sampled.sampled = true;
  const auto ieee = check_float_output_sets(m, float_profile("ieee"), {in}, sets, 1, sampled);
  INFO("inputs in [" << range.lo << ", " << range.hi << ")\nfloat32 under ieee\n" << format_table(ieee[0]) << "\nTF32 under ieee\n"
                     << format_table(ieee[1]));
  CHECK(ieee[0].sampled_error.empty());
  // Honest float32 passes; TF32 and bf16 are caught (each the other's control).
  CHECK(ieee[0].verdict() == Verdict::Pass);
  CHECK(caught(ieee[1].verdict()));
  CHECK(caught(ieee[2].verdict()));
  CHECK(ieee[1].worst_pratio > 10);
  // Under the profiles they claim: float32 and TF32 under tf32, all three under bf16.
  const auto tf32 = check_float_output_sets(m, float_profile("tf32"), {in}, {sets[0], sets[1]}, 1, sampled);
  const auto bf16 = check_float_output_sets(m, float_profile("bf16"), {in}, sets, 1, sampled);
  std::vector<const CheckReport*> own = {&tf32[0], &tf32[1], &bf16[0], &bf16[1], &bf16[2]};
  for (const CheckReport* r : own) {
    INFO(format_table(*r));
    CHECK(r->verdict() == Verdict::Pass);
  }
  WARN("cifar8_train_step at 2, inputs in [" << range.lo << ", " << range.hi << "): under ieee float32 " << verdict_name(ieee[0].verdict())
       << " " << ieee[0].worst_pratio << ", TF32 " << verdict_name(ieee[1].verdict()) << " " << ieee[1].worst_pratio << ", bf16 "
       << verdict_name(ieee[2].verdict()) << " " << ieee[2].worst_pratio << "; TF32 under tf32 " << verdict_name(tf32[1].verdict())
       << ", bf16 under bf16 " << verdict_name(bf16[2].verdict()));
}

}  // namespace

// One test per range, so that ctest runs them side by side (about half a minute each).
TEST_CASE("sampled tier: cifar8_train_step at 2, inputs in -1 to 1, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[stat][sampled][artifacts]") {
  check_train_step_at_2(kRanges[0]);
}
TEST_CASE("sampled tier: cifar8_train_step at 2, inputs in -0.1 to 0.1, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[stat][sampled][artifacts]") {
  check_train_step_at_2(kRanges[1]);
}
TEST_CASE("sampled tier: cifar8_train_step at 2, inputs in 0 to 0.01, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[stat][sampled][artifacts]") {
  check_train_step_at_2(kRanges[2]);
}
