// `shlo rebatch` (ast/rebatch.hpp): the printer's programs re-emitted at another batch. Checked
// against an independent route (cifar8_bn_fwd at 8 written by string replacement in
// tests/stat_support.cpp), by what must hold on the first ladder (the same batch reproduces
// the text, the lift keeps its nodes, and back again), and by `shlo agree` in
// test_program_agree.cpp (den against the text at batches 1 and 3).
#include <catch2/catch.hpp>

#include <string>

#include "ast/expr.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/rebatch.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// One elementwise add of two arguments of `type`: no printer wrote it.
std::string add_of(const std::string& type) {
  return "module @m {\n  func.func @f(%x: " + type + ", %y: " + type + ") -> " + type + " {\n    %v0 = stablehlo.add %x, %y : " + type +
         "\n    return %v0 : " + type + "\n  }\n}";
}

}  // namespace

TEST_CASE("rebatch: cifar8_bn_fwd at 8 is the text an independent route writes", "[rebatch][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/cifar8_bn_fwd.mlir");
  const Rebatched r = rebatch(parse_module(text, "cifar8_bn_fwd.mlir"), 8);
  CHECK(r.from == 128);
  CHECK(r.to == 8);
  CHECK(r.retyped == std::vector<std::string>{"%x"});
  CHECK(r.warnings.empty());
  // The route by hand: every leading 128 made 8 but the first dense weight's 128 features.
  CHECK(r.text == cifar8_bn_fwd_at_8(text));
  CHECK(r.text.find("-> tensor<8x10xf32>") != std::string::npos);  // the logits, a forward pass's result
  // Control: the hand route's text differs from the printer's at 128.
  CHECK(cifar8_bn_fwd_at_8(text) != text);
}

TEST_CASE("rebatch: the same batch reproduces the first ladder byte for byte, and at 3 the lift keeps its nodes", "[rebatch][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  for (const char* name : {"linear_fwd", "mlp_train_step", "cnn_fwd", "cifar8_train_step", "cifar8_bn_fwd", "cifar8_mom_train_step",
                           "cifar8_adam_train_step", "cifar8_adamdp_train_step"}) {
    INFO(name);
    const std::string text = read_file(dir + "/" + name + ".mlir");
    const Module m = parse_module(text, std::string(name) + ".mlir");
    const Rebatched same = rebatch(m, 128);
    CHECK(same.text == text);
    CHECK(same.retyped.empty());
    const Rebatched three = rebatch(m, 3);
    CHECK(three.warnings.empty());
    const Module m3 = parse_module(three.text, std::string(name) + "_3.mlir");
    CHECK(m3.function().arguments[0].type.shape[0] == 3);
    const LiftReport before = lift(m).report, after = lift(m3).report;
    CHECK(after.instructions == before.instructions);
    CHECK(after.as_nodes == before.as_nodes);
    CHECK(rebatch(m3, 128).text == text);  // and back
  }
}

TEST_CASE("rebatch: the loss' batch constant follows the batch, a stray hand-written one is reported", "[rebatch][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/cifar8_adam_train_step.mlir");
  const std::string lbf = "    %lbf = stablehlo.constant dense<128.0> : tensor<f32>\n";
  REQUIRE(text.find(lbf) != std::string::npos);
  const Rebatched r = rebatch(parse_module(text, "adam.mlir"), 8);
  CHECK(r.warnings.empty());
  CHECK(r.text.find("    %lbf = stablehlo.constant dense<8.0> : tensor<f32>\n") != std::string::npos);
  CHECK(r.text.find("dense<128.0>") == std::string::npos);
  // Control: a hand-written constant of the same value under another name is left and named.
  const std::string stray = "    %stray = stablehlo.constant dense<128.0> : tensor<f32>\n";
  const Rebatched s = rebatch(parse_module(replaced(text, lbf, stray + lbf), "adam_stray.mlir"), 8);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0] == "a verbatim constant equal to B is left as it is: %stray = stablehlo.constant dense<128.0> : tensor<f32>");
  CHECK(s.text.find(stray) != std::string::npos);
  CHECK_THROWS_AS(rebatch(parse_module(text, "adam.mlir"), 0), ExprError);
}

TEST_CASE("rebatch: a program the printer did not write is refused, not retyped", "[rebatch]") {
  const std::string add = add_of("tensor<4xf32>");
  CHECK_THROWS_WITH(rebatch(parse_module(add, "add.mlir"), 8), Catch::Contains("no instruction is a printer constructor's"));
  // A lone elementwise node lifts, read at batch 1: the variant retypes %x and not %y, and is refused.
  const std::string rows = add_of("tensor<1x4xf32>");
  CHECK_THROWS_WITH(rebatch(parse_module(rows, "add_rows.mlir"), 8), Catch::Contains("the re-emitted text does not verify"));
  CHECK(rebatch(parse_module(rows, "add_rows.mlir"), 1).text == rows + "\n");  // its own batch: the text
}
