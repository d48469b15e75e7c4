// The printer and the lifter: the artifacts regenerated from the expressions their renders
// build (SHLO_SEMANTICS.md 2.7), emit(lift(text)) == text, tokens, SPMD, JSON.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <fstream>
#include <sstream>

#include "ast/expr_json.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "interp/den.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::read_file;
using namespace shlo::test;

namespace {

// The instruction lines of an artifact between its first comment and the report-only comment
// (or the return).
std::string pretty_section(const std::string& text) {
  const auto start = text.find('\n', text.find("    // ")) + 1;
  auto end = text.find("    // ── %loss");
  if (end == std::string::npos) end = text.find("    return ");
  return text.substr(start, end - start);
}

using S = std::map<std::string, std::string>;
const std::string lr = "0.00078125";

ExprPtr dense(const std::string& w, const std::string& b, std::int64_t m, std::int64_t n, ExprPtr in) {
  return skel_node("addBcast", {{"n", n}}, {skel_node("dotIn", {{"m", m}, {"n", n}}, {std::move(in)}, {{"wName", w}})}, {{"bName", b}});
}
ExprPtr relu(std::int64_t n, ExprPtr in) { return skel_node("reluF", {{"n", n}}, {std::move(in)}); }
ExprPtr cotangent(std::int64_t n, ExprPtr logits) {
  return skel_node("sub", {{"n", n}},
                   {skel_node("softmaxDiv", {{"n", n}}, {skel_node("expe", {{"n", n}}, {std::move(logits)})}), name("%onehot", n)});
}
ExprPtr select_pos(const std::string& x, std::int64_t n, ExprPtr in) {
  return skel_node("selectPos", {{"n", n}}, {std::move(in)}, {{"xName", x}});
}
ExprPtr dot_out(const std::string& w, std::int64_t m, std::int64_t n, ExprPtr in) {
  return skel_node("dotOut", {{"m", m}, {"n", n}}, {std::move(in)}, {{"wName", w}});
}
ExprPtr weight_sgd(const std::string& x, const std::string& w, std::int64_t m, std::int64_t n, const std::string& cot) {
  return skel_node("weightSgd", {{"m", m}, {"n", n}}, {name(cot, n)}, {{"xName", x}, {"wName", w}, {"lrStr", lr}});
}
ExprPtr bias_sgd(const std::string& b, std::int64_t n, const std::string& cot) {
  return skel_node("biasSgd", {{"n", n}}, {name(cot, n)}, {{"bName", b}, {"lrStr", lr}});
}

std::string emit_items(std::int64_t batch, const std::vector<std::pair<ExprPtr, std::int64_t>>& items) {
  std::string out;
  std::int64_t counter = 0;
  for (const auto& [e, start] : items) {
    if (start >= 0) counter = start;
    out += emit(batch, *e, counter).text;
  }
  return out;
}

}  // namespace

TEST_CASE("the printer regenerates the linear, mlp and cnn train steps from their expressions", "[emit][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  {  // linear: weightSgd and biasSgd of the shared cotangent, printed twice
    const auto cot = [] { return cotangent(10, dense("%W0", "%b0", 784, 10, name("%x", 784))); };
    const auto w = skel_node("weightSgd", {{"m", 784}, {"n", 10}}, {cot()}, {{"xName", "%x"}, {"wName", "%W0"}, {"lrStr", lr}});
    const auto b = skel_node("biasSgd", {{"n", 10}}, {cot()}, {{"bName", "%b0"}, {"lrStr", lr}});
    CHECK(emit_items(128, {{w, 0}, {b, -1}}) == pretty_section(read_file(dir + "/linear_train_step.mlir")));
  }
  {  // mlp: the backward chain in one expression, then the SGD fragments on pinned names
    auto h1 = relu(512, dense("%W0", "%b0", 784, 512, name("%x", 784)));
    auto h2 = relu(512, dense("%W1", "%b1", 512, 512, h1));
    auto d2 = select_pos("%v7", 512, dot_out("%W2", 512, 10, cotangent(10, dense("%W2", "%b2", 512, 10, h2))));
    auto d1 = select_pos("%v2", 512, dot_out("%W1", 512, 512, d2));
    const std::string text = emit_items(128, {{d1, 0},
                                              {weight_sgd("%v9", "%W2", 512, 10, "%v18"), -1},
                                              {bias_sgd("%b2", 10, "%v18"), -1},
                                              {weight_sgd("%v4", "%W1", 512, 512, "%v22"), -1},
                                              {bias_sgd("%b1", 512, "%v22"), -1},
                                              {weight_sgd("%x", "%W0", 784, 512, "%v26"), -1},
                                              {bias_sgd("%b0", 512, "%v26"), -1}});
    CHECK(text == pretty_section(read_file(dir + "/mlp_train_step.mlir")));
  }
  {  // cnn: two convolutions, a pool, three dense layers; SGD fragments rendered W5..W1 and
     // concatenated W1..W5 (the numbering is not monotone)
    auto conv = [](const std::string& w, const std::string& b, std::int64_t ic, ExprPtr in) {
      return skel_node("flatConvF", {{"ic", ic}, {"oc", 32}, {"h", 28}, {"w", 28}, {"kH", 3}, {"kW", 3}}, {std::move(in)},
                       {{"wName", w}, {"bName", b}});
    };
    auto c1 = relu(25088, conv("%W1", "%b1", 1, name("%x", 784)));
    auto c2 = relu(25088, conv("%W2", "%b2", 32, c1));
    auto p = skel_node("maxPoolF", {{"c", 32}, {"h", 14}, {"w", 14}}, {c2});
    auto f4 = relu(512, dense("%W4", "%b4", 512, 512, relu(512, dense("%W3", "%b3", 6272, 512, p))));
    auto cot = cotangent(10, dense("%W5", "%b5", 512, 10, f4));
    auto d3 = select_pos("%v20", 512, dot_out("%W4", 512, 512, select_pos("%v25", 512, dot_out("%W5", 512, 10, cot))));
    auto dpool = skel_node("maxPoolBack", {{"c", 32}, {"h", 14}, {"w", 14}}, {dot_out("%W3", 6272, 512, d3)}, {{"xName", "%v13"}});
    auto d1 = skel_node("convBack", {{"ic", 32}, {"oc", 32}, {"h", 28}, {"w", 28}, {"kH", 3}, {"kW", 3}},
                        {select_pos("%v11", 25088, dpool)}, {{"wName", "%W2"}});
    auto d0 = select_pos("%v4", 25088, d1);
    auto conv_sgd = [](const std::string& x, const std::string& w, std::int64_t ic, const std::string& cot_name) {
      return skel_node("convWeightSgd", {{"ic", ic}, {"oc", 32}, {"h", 28}, {"w", 28}, {"kH", 3}, {"kW", 3}}, {name(cot_name, 25088)},
                       {{"xName", x}, {"wName", w}, {"lrStr", lr}});
    };
    auto conv_bias_sgd = [](const std::string& b, const std::string& cot_name) {
      return skel_node("convBiasSgd", {{"ic", 0}, {"oc", 32}, {"h", 28}, {"w", 28}, {"kH", 0}, {"kW", 0}}, {name(cot_name, 25088)},
                       {{"bName", b}, {"lrStr", lr}});
    };
    const std::string text = emit_items(128, {{d0, 0},
                                              {conv_sgd("%x", "%W1", 1, "%v61"), 104},
                                              {conv_bias_sgd("%b1", "%v61"), -1},
                                              {conv_sgd("%v6", "%W2", 32, "%v53"), 89},
                                              {conv_bias_sgd("%b2", "%v53"), -1},
                                              {weight_sgd("%v17", "%W3", 6272, 512, "%v44"), 80},
                                              {bias_sgd("%b3", 512, "%v44"), -1},
                                              {weight_sgd("%v22", "%W4", 512, 512, "%v40"), 71},
                                              {bias_sgd("%b4", 512, "%v40"), -1},
                                              {weight_sgd("%v27", "%W5", 512, 10, "%v36"), 62},
                                              {bias_sgd("%b5", 10, "%v36"), -1}});
    CHECK(text == pretty_section(read_file(dir + "/cnn_train_step.mlir")));
  }
}

TEST_CASE("allReduceMeanF prints the all-reduce block, or nothing at R = 1", "[emit]") {
  auto family = [](std::int64_t R) {
    return skel_node("allReduceMeanF", {}, std::vector<ExprPtr>(static_cast<std::size_t>(R), name("%v186", 432)), {{"t", "W1"}},
                     {16, 3, 3, 3}, R);
  };
  std::int64_t counter = 7;
  const Emitted one = emit(128, *family(1), counter);
  CHECK(one.text.empty());
  CHECK(one.result == "%v186");
  const Emitted four = emit(128, *family(4), counter);
  CHECK(counter == 7);  // the counter does not move
  CHECK(four.result == "%armeanW1");
  CHECK(four.text ==
        "    %arsumW1 = \"stablehlo.all_reduce\"(%v186) ({\n"
        "    ^bb0(%araW1: tensor<f32>, %arbW1: tensor<f32>):\n"
        "      %araddW1 = stablehlo.add %araW1, %arbW1 : tensor<f32>\n"
        "      stablehlo.return %araddW1 : tensor<f32>\n"
        "    }) { replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64> } : (tensor<16x3x3x3xf32>) -> tensor<16x3x3x3xf32>\n"
        "    %arnW1 = stablehlo.constant dense<4.0> : tensor<16x3x3x3xf32>\n"
        "    %armeanW1 = stablehlo.divide %arsumW1, %arnW1 : tensor<16x3x3x3xf32>\n");
  // The text parses, verifies, and means the replica mean (tests/test_ops: all_reduce).
  CHECK_NOTHROW(parse_module(module_text("%v186: tensor<16x3x3x3xf32>", "tensor<16x3x3x3xf32>", four.text, "%armeanW1")));
}

namespace {

// The printer's programs, every one of them: emit(lift(text)) is the text byte for byte (and
// through the render's JSON, as `shlo lift` and `shlo emit` do), whatever the lifter
// recognises; every instruction is in a node or a verbatim line with a reason.
const std::vector<std::string> kArtifacts = {
    "cifar8_adam256_train_step.mlir", "cifar8_adam_train_step.mlir", "cifar8_adamdp_train_step.mlir", "cifar8_bn_fwd.mlir",
    "cifar8_fwd.mlir", "cifar8_mom_train_step.mlir", "cifar8_train_step.mlir", "cifar_bn_fwd.mlir", "cifar_bn_train_step.mlir",
    "cifar_fwd.mlir", "cnn_fwd.mlir", "cnn_train_step.mlir", "convnext_fwd.mlir", "convnext_train_step.mlir",
    "efficientnet_fwd.mlir", "efficientnet_train_step.mlir", "linear_fwd.mlir", "linear_train_step.mlir", "mlp_fwd.mlir",
    "mlp_train_step.mlir", "mnv4_adam_train_step.mlir", "mnv4_fwd.mlir", "mobilenetv2_fwd.mlir", "mobilenetv2_train_step.mlir",
    "resnet34_fwd.mlir", "resnet34_train_step.mlir", "resnet50_adam_train_step.mlir", "resnet50_fwd.mlir", "vit_fwd.mlir",
    "vit_train_step.mlir"};

Lifted check_round_trip(const std::string& file) {
  const std::string text = read_file(artifacts_dir() + "/" + file);
  REQUIRE(!text.empty());
  Lifted lifted;
  REQUIRE_NOTHROW(lifted = lift(parse_module(text, file)));
  CHECK(emit_render(lifted.render) == text);
  const Render back = render_from_json(nlohmann::json::parse(render_to_json(lifted.render).dump()));
  CHECK(emit_render(back) == text);
  const LiftReport& rep = lifted.report;
  CHECK(rep.as_nodes + rep.verbatim == rep.instructions);
  REQUIRE(rep.why.size() == static_cast<std::size_t>(rep.verbatim));
  for (const auto& v : rep.why) {
    INFO(v.text);
    CHECK(v.line > 0);
    CHECK(!v.reason.empty());
  }
  return lifted;
}

}  // namespace

TEST_CASE("lift round trip: the artifact folder holds exactly the programs tested here", "[lift][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  std::vector<std::string> found;
  for (const auto& path : mlir_files(dir)) found.push_back(std::filesystem::path(path).filename().string());
  CHECK(found == kArtifacts);  // a new program needs its test below
}

// One test per program (ctest runs them apart); SHLO_LIFT_TEST(file, tag).
#define SHLO_LIFT_TEST(FILE)                                                   \
  TEST_CASE("lift round trip: " FILE, "[lift][artifacts][roundtrip]") {       \
    SHLO_REQUIRE_ARTIFACTS(dir);                                               \
    check_round_trip(FILE);                                                    \
  }
SHLO_LIFT_TEST("cifar8_bn_fwd.mlir")
SHLO_LIFT_TEST("cifar8_fwd.mlir")
SHLO_LIFT_TEST("cifar_bn_fwd.mlir")
SHLO_LIFT_TEST("cifar_bn_train_step.mlir")
SHLO_LIFT_TEST("cifar_fwd.mlir")
SHLO_LIFT_TEST("cnn_fwd.mlir")
SHLO_LIFT_TEST("convnext_fwd.mlir")
SHLO_LIFT_TEST("convnext_train_step.mlir")
SHLO_LIFT_TEST("efficientnet_fwd.mlir")
SHLO_LIFT_TEST("efficientnet_train_step.mlir")
SHLO_LIFT_TEST("linear_fwd.mlir")
SHLO_LIFT_TEST("mlp_fwd.mlir")
SHLO_LIFT_TEST("mnv4_adam_train_step.mlir")
SHLO_LIFT_TEST("mnv4_fwd.mlir")
SHLO_LIFT_TEST("mobilenetv2_fwd.mlir")
SHLO_LIFT_TEST("mobilenetv2_train_step.mlir")
SHLO_LIFT_TEST("resnet34_fwd.mlir")
SHLO_LIFT_TEST("resnet34_train_step.mlir")
SHLO_LIFT_TEST("resnet50_adam_train_step.mlir")
SHLO_LIFT_TEST("resnet50_fwd.mlir")
SHLO_LIFT_TEST("vit_fwd.mlir")
SHLO_LIFT_TEST("vit_train_step.mlir")
#undef SHLO_LIFT_TEST

// The first ladder's train steps: besides the round trip, only comments, prelude constants
// (%lzero, %b1, ...) and report-only loss lines (%l..., %loss and its pieces) stay verbatim.
#define SHLO_LIFT_TRAIN_TEST(FILE)                                                               \
  TEST_CASE("lift round trip: " FILE " (all but the prelude and the loss in nodes)", "[lift][artifacts][roundtrip]") { \
    SHLO_REQUIRE_ARTIFACTS(dir);                                                                 \
    const Lifted lifted = check_round_trip(FILE);                                                \
    for (const auto& line : lifted.report.verbatim_lines) {                                      \
      INFO(line);                                                                                \
      const bool prelude = line.find("stablehlo.constant") != std::string::npos && line.find("%v") == std::string::npos; \
      const bool loss = line.find("    %l") == 0 || line.find("    %ohll") == 0 || line.find("    %csum") == 0 ||       \
                        line.find("    %cneg") == 0;                                                                   \
      CHECK((prelude || loss));                                                                  \
    }                                                                                            \
    if (std::string(FILE) == "cifar8_adamdp_train_step.mlir") CHECK(lifted.report.constructors.at("allReduceMeanF") == 22); \
  }
SHLO_LIFT_TRAIN_TEST("cifar8_adam256_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("cifar8_adam_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("cifar8_adamdp_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("cifar8_mom_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("cifar8_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("cnn_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("linear_train_step.mlir")
SHLO_LIFT_TRAIN_TEST("mlp_train_step.mlir")
#undef SHLO_LIFT_TRAIN_TEST

TEST_CASE("lift never fails: a child whose length does not fit becomes a named leaf", "[lift]") {
  // divConstB (a batched node, length N*n = 6) read by dotIn (which expects a child of m = 3):
  // the node is built over a named leaf instead, and the text comes back byte for byte.
  const std::string text = module_text("%x: tensor<2x3xf32>, %w: tensor<3x4xf32>", "tensor<2x4xf32>",
                                       "    %v0 = stablehlo.constant dense<2.0> : tensor<2x3xf32>\n"
                                       "    %v1 = stablehlo.divide %x, %v0 : tensor<2x3xf32>\n"
                                       "    %v2 = stablehlo.dot_general %v1, %w, contracting_dims = [1] x [0], precision = "
                                       "[DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n",
                                       "%v2");
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  CHECK(l.report.as_nodes == 3);
  CHECK(l.report.verbatim == 0);
  REQUIRE(l.render.items.size() == 2);
  CHECK(l.render.items[0].expr->spec->id == Ctor::divConstB);
  CHECK(l.render.items[1].expr->spec->id == Ctor::dotIn);
  // Control: the child really does not fit, so absorbing it is refused.
  CHECK_THROWS_WITH(make_skeleton("dotIn", {{"m", 3}, {"n", 4}}, {l.render.items[0].expr}, {{"wName", "%w"}}),
                    Catch::Contains("child 0 (divConstB) has length 6, expected m = 3"));
  CHECK(l.render.items[1].expr->children[0]->spec->id == Ctor::operand);
  CHECK(l.render.items[1].expr->children[0]->string("name") == "%v1");
}

TEST_CASE("lift never fails: a line a template matches at another batch stays verbatim, with the reason", "[lift]") {
  const std::string text = module_text("%x: tensor<2x3xf32>, %y: tensor<4x3xf32>", "tensor<4x3xf32>",
                                       "    %v0 = stablehlo.exponential %x : tensor<2x3xf32>\n"
                                       "    %v1 = stablehlo.exponential %y : tensor<4x3xf32>\n",
                                       "%v1");
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  CHECK(l.report.as_nodes == 1);
  REQUIRE(l.report.why.size() == 1);
  CHECK(l.report.why[0].line == 4);
  CHECK(l.report.why[0].text == "    %v1 = stablehlo.exponential %y : tensor<4x3xf32>");
  CHECK(l.report.why[0].reason == "expe matches 1 line(s) here, but at batch 4 where the render's batch is 2");
  CHECK(l.report.node_share() == 0.5);
}

TEST_CASE("lift: overlapping templates are cut where the whole text reads as nodes", "[lift]") {
  // gapF's five lines are broadcastBack's three followed by the first two of gapBack's four, so
  // gapBack(broadcastBack(x)) also starts with gapF's text; read longest template first, the
  // last two lines (a broadcast and a reshape) stayed verbatim (corpus: skeleton.lift/119809837).
  const ExprPtr e = skel_node("gapBack", {{"c", 3}, {"h", 2}, {"w", 2}},
                              {skel_node("broadcastBack", {{"c", 3}, {"h", 2}, {"w", 2}}, {name("%x", 12)})});
  std::int64_t counter = 0;
  const std::string body = emit(2, *e, counter).text;
  const std::string text = module_text("%x: tensor<2x12xf32>", "tensor<2x12xf32>", body, "%v" + std::to_string(counter - 1));
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  CHECK(l.report.verbatim == 0);
  REQUIRE(l.render.items.size() == 1);
  CHECK(skel(*l.render.items[0].expr) == skel(*e));
  // Control: the text does start with gapF's template, which the reading above passed over.
  const ExprPtr gap = skel_node("gapF", {{"c", 3}, {"h", 2}, {"w", 2}}, {name("%x", 12)});
  std::int64_t gap_counter = 0;
  CHECK(body.rfind(emit(2, *gap, gap_counter).text, 0) == 0);
}

TEST_CASE("lift: a line no template explains stays verbatim and says so", "[lift]") {
  const std::string text = module_text("%x: tensor<2x3xf32>", "tensor<2x3xf32>", "    %v0 = stablehlo.negate %x : tensor<2x3xf32>\n", "%v0");
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  REQUIRE(l.report.why.size() == 1);
  CHECK(l.report.why[0].reason == "no constructor's template matches here");
  CHECK(l.report.node_share() == 0.0);
}

TEST_CASE("lift: lines that module assembly writes by hand are named as such", "[lift]") {
  // A prelude constant, one constructor node (expe), a loss-like line after it, and the same
  // named line before any node. Constructors number their results %vN; a named result is
  // the printer's hand-written text (SHLO_SEMANTICS.md 2.7).
  const std::string text = module_text("%x: tensor<2x3xf32>", "tensor<2x3xf32>",
                                       "    %zb3 = stablehlo.constant dense<0.0> : tensor<3xf32>\n"
                                       "    %q = stablehlo.negate %x : tensor<2x3xf32>\n"
                                       "    %v0 = stablehlo.exponential %x : tensor<2x3xf32>\n"
                                       "    %lneg = stablehlo.negate %v0 : tensor<2x3xf32>\n"
                                       "    %csum = stablehlo.negate %lneg : tensor<2x3xf32>\n",
                                       "%v0");
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  CHECK(l.report.as_nodes == 1);
  REQUIRE(l.report.why.size() == 4);
  CHECK(l.report.why[0].reason == "a named constant of the module's prelude (%zb3), written by module assembly, not by a constructor");
  CHECK(l.report.why[1].reason == "a named value (%q): written by hand, not by a constructor (constructors number their results %vN)");
  CHECK(l.report.why[2].reason ==
        "a named value (%lneg) after the emitted nodes: the hand-written report-only lines (the loss) of module assembly, not a constructor");
  CHECK(l.report.why[3].reason ==
        "a named value (%csum) after the emitted nodes: the hand-written report-only lines (the loss) of module assembly, not a constructor");
}

TEST_CASE("the registry: every row is consistent (strings, inputs, literals, lengths, templates)", "[registry]") {
  const auto problems = registry_problems();
  for (const auto& p : problems) INFO(p);
  CHECK(problems.empty());
  CHECK(constructors().size() == 59 + 42 + 18 + 22 + 64 + 53);  // core; per-channel BN and blocks; low precision and sync BN; the strided, depthwise and ViT bf16 peers; ViT, ConvNeXt, regularisers; strided and depthwise convolutions
  for (const auto& c : constructors()) CHECK(&spec_of(c.id) == &c);
  // Controls: rows with a piece missing are named.
  CtorSpec no_input = spec_of(Ctor::dotIn);
  no_input.inputs.clear();
  CHECK(row_problems(no_input) == std::vector<std::string>{"constructor 'dotIn': string field 'wName' is neither a text input nor a literal"});
  CtorSpec bad_length = spec_of(Ctor::dotOut);
  bad_length.child_lengths = {"q"};
  CHECK(row_problems(bad_length) == std::vector<std::string>{"constructor 'dotOut': length 'q' uses 'q', which is not a shape parameter"});
  CtorSpec no_template = spec_of(Ctor::expe);
  no_template.text = nullptr;
  CHECK(row_problems(no_template) == std::vector<std::string>{"constructor 'expe': needs exactly one of text and prints_like"});
  CtorSpec lost_field = spec_of(Ctor::addBcast);
  lost_field.skel_strings.clear();
  CHECK(row_problems(lost_field) == std::vector<std::string>{"constructor 'addBcast': template field {bName} is not a string the skeleton keeps"});
}

TEST_CASE("lift: a value used twice stays a named leaf, a lone instruction stays verbatim", "[lift]") {
  const std::string text = module_text(
      "%x: tensor<2x3xf32>", "tensor<2x3xf32>",
      "    %v0 = stablehlo.exponential %x : tensor<2x3xf32>\n"
      "    %v1 = stablehlo.exponential %v0 : tensor<2x3xf32>\n"
      "    %v2 = stablehlo.subtract %v1, %v0 : tensor<2x3xf32>\n"
      "    %q = stablehlo.negate %v2 : tensor<2x3xf32>\n",
      "%q");
  const Lifted l = lift(parse_module(text));
  CHECK(emit_render(l.render) == text);
  CHECK(l.report.as_nodes == 3);
  CHECK(l.report.verbatim == 1);
  // %v0 is used twice: item 1 is expe(%x) bound to %v0; item 2 is sub(expe(%v0), %v0).
  REQUIRE(l.render.items.size() == 3);
  CHECK(l.render.items[0].expr->spec->name == std::string("expe"));
  CHECK(l.render.items[1].expr->spec->name == std::string("sub"));
  CHECK(l.render.items[1].expr->children[1]->spec->name == std::string("operand"));
  CHECK(l.render.items[1].expr->children[1]->string("name") == "%v0");
  CHECK(!l.render.items[2].expr);
}

namespace {

// Random skeletons over the whole table: leaves are operands, other nodes take random
// children; fields are arbitrary (a skeleton is structure, not a well-typed term).
rc::Gen<Skel> skeleton(int depth) {
  return rc::gen::exec([depth] {
    const auto& table = constructors();
    const CtorSpec& c = depth <= 0 ? table.front() : table[*rc::gen::inRange<std::size_t>(0, table.size())];
    Skel s;
    s.token.kind = c.token;
    s.token.tag = c.tag;
    for (std::size_t i = 0; i < c.skel_strings.size(); ++i) s.token.strings.push_back("%s" + std::to_string(*rc::gen::inRange(0, 9)));
    for (std::size_t i = 0; i < c.skel_nats.size(); ++i) s.token.nats.push_back(*rc::gen::inRange(0, 50));
    if (c.has_ds) s.token.ds = *rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange(0, 4), rc::gen::inRange<std::int64_t>(1, 9));
    if (c.arity == Arity::Family) s.token.replicas = *rc::gen::inRange(1, 9);
    const int kids = c.arity == Arity::Leaf ? 0 : c.arity == Arity::Binary ? 2 : 1;
    for (int k = 0; k < kids; ++k) s.children.push_back(*skeleton(depth - 1 - *rc::gen::inRange(0, 2)));
    return s;
  });
}

}  // namespace

TEST_CASE("tokens: parse(toToks(s)) = s and parseStack(toToks(r) ++ ts, S) = parseStack(ts, r :: S)", "[skel][property]") {
  rc::prop("round trip of random skeletons", [] {
    const Skel s = *skeleton(*rc::gen::inRange(0, 6));
    RC_ASSERT(parse_tokens(to_tokens(s)) == s);
  });
  rc::prop("a skeleton's tokens followed by another's parse to the pair under a binary node", [] {
    const Skel a = *skeleton(3), b = *skeleton(3);
    std::vector<Token> ts = to_tokens(a);
    const auto tb = to_tokens(b);
    ts.insert(ts.end(), tb.begin(), tb.end());
    Skel sub{{"sub", "", {}, {1}, {}, 0}, {a, b}};
    ts.push_back(sub.token);
    RC_ASSERT(parse_tokens(ts) == sub);
  });
  // Controls: an underflowing and an unfinished token stream are rejected.
  const Skel s = skel(*select_pos("%x", 2, name("%u", 2)));
  auto ts = to_tokens(s);
  CHECK_THROWS_WITH(parse_tokens({ts.back()}), Catch::Contains("needs 1 operand(s), the stack holds 0"));
  ts.push_back(ts.front());
  CHECK_THROWS_WITH(parse_tokens(ts), Catch::Contains("leaves 2 trees"));
  CHECK(to_string(ts.back()) == "operand %u 2");
}

TEST_CASE("skel of allReduceMeanF reads replica 0, is_spmd names the first difference", "[skel]") {
  auto replica = [](const std::string& w) { return dense(w, "%b", 4, 2, name("%x", 4)); };
  auto family = [&](std::vector<ExprPtr> kids) {
    const auto R = static_cast<std::int64_t>(kids.size());
    return skel_node("allReduceMeanF", {}, std::move(kids), {{"t", "g"}}, {2}, R);
  };
  const auto spmd = family({replica("%W"), replica("%W"), replica("%W")});
  CHECK(is_spmd(*spmd).spmd);
  CHECK(skel(*spmd).children.size() == 1);
  CHECK(skel(*spmd).children[0] == skel(*replica("%W")));
  const auto broken = family({replica("%W"), replica("%W"), replica("%V")});
  const auto report = is_spmd(*broken);
  CHECK_FALSE(report.spmd);
  CHECK_THAT(report.message, Catch::Contains("replica 2 differs from replica 0 at child/0") && Catch::Contains("dotIn %V 4 2"));
  // Values do not matter to SPMD: the same skeleton with other values is SPMD.
  const auto a = family({dense("%W", "%b", 4, 2, leaf("%x", {"1", "2", "3", "4"})), dense("%W", "%b", 4, 2, leaf("%x", {"5", "6", "7", "8"}))});
  CHECK(is_spmd(*a).spmd);
}

TEST_CASE("JSON: expressions round-trip, bad documents are located", "[expr][json]") {
  const auto e = node("softmaxDiv", {{"n", 3}}, {}, {node("sub", {{"n", 3}}, {}, {leaf("%x", {"1", "-3/4", "0.125"}), leaf("%y", {"0", "1", "2"})})});
  const auto j = expr_to_json(*e);
  CHECK(j["children"][0]["children"][0]["reals"]["v"][1] == "-3/4");
  CHECK(j["children"][0]["children"][0]["reals"]["v"][2] == "1/8");
  const auto back = expr_from_json(nlohmann::json::parse(j.dump()));
  CHECK(expr_to_json(*back) == j);
  CHECK(denote(ExactDomain{}, *back).value == denote(ExactDomain{}, *e).value);
  // batchOp and the family
  const auto b = node("batchOp/relu", {{"N", 2}, {"n", 1}}, {}, {leaf("%u", {"1", "2"})});
  CHECK(expr_to_json(*b)["constructor"] == "batchOp");
  CHECK(expr_to_json(*expr_from_json(expr_to_json(*b))) == expr_to_json(*b));
  // Located errors.
  CHECK_THROWS_WITH(expr_from_json(nlohmann::json::parse(R"({"constructor": "frob"})")), Catch::Contains("unknown constructor 'frob'"));
  CHECK_THROWS_WITH(expr_from_json(nlohmann::json::parse(
                        R"({"constructor": "reluF", "nats": {"n": 1}, "children": [{"constructor": "operand", "nats": {"n": 1}, "strings": {"name": "%x"}, "reals": {"v": ["1/0"]}}]})")),
                    Catch::Contains("at /children/0/reals/v/0") && Catch::Contains("zero denominator"));
  CHECK_THROWS_WITH(expr_from_json(nlohmann::json::parse(R"({"constructor": "reluF", "nats": {"n": 2}, "children": []})")),
                    Catch::Contains("at /: constructor 'reluF': has 0 children, expected 1"));
  const std::string bad = (std::filesystem::temp_directory_path() / "shlo_bad.json").string();
  std::ofstream(bad) << "{\n  \"constructor\": \"reluF\",\n  \"nats\": {\"n\": 1,}\n}\n";
  CHECK_THROWS_WITH(parse_json_file(bad), Catch::Contains("shlo_bad.json:3:") && Catch::Contains("syntax error"));
}
