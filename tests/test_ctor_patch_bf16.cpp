// The patch embedding's reduced-precision peers (ast/ctors/low_precision.def, the last rows of
// docs/lean/transformer-families-2.md 4.5 and 4.7): the descriptor batchOp/patchEmbedBf16 and
// the batched kernel gradient patchEmbedWeightGradBBf16. Their printed text as the note writes
// it and lifting it back; den on hand values, with the rounding where the text converts and
// nowhere else; den with the rounding equals the text run exactly, and without it does not;
// the property generator draws both.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <sstream>

#include "ast/emit.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/gen.hpp"
#include "fuzz/runner.hpp"
#include "interp/den.hpp"
#include "oracle/agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

Strings den_strings(const ExprPtr& e, RoundingModel model) {
  Strings out;
  for (const auto& x : denote(E, *e, DenOptions{model}).value) out.push_back(E.to_string(x));
  return out;
}

// The printed text of e run in the exact domain (bf16 values rounded at every typed result).
Strings text_strings(const ExprPtr& e) { return run_text_case(text_case(*e), "exact").at(0); }

// A 4 x 6 image in 2 x 2 patches: hp = 2 and wp = 3 differ, so a swapped H and W shows.
const Nats kStem = {{"N", 2}, {"ic", 1}, {"H", 4}, {"W", 6}, {"P", 2}, {"tk", 6}};

}  // namespace

TEST_CASE("patch bf16: the printed text is the note's, and lifting it back gives the row and the same bytes", "[patch_bf16]") {
  // The descriptor at B = 2, D = 3.
  Nats stem = kStem;
  stem["D"] = 3;
  std::int64_t counter = 0;
  const auto embed = skel_node("batchOp/patchEmbedBf16", stem, {name("%x", 48)},
                               {{"wName", "%w"}, {"bName", "%b"}, {"clsName", "%cls"}, {"posName", "%pos"}});
  const std::string embed_text = emit(2, *embed, counter).text;
  CHECK(embed_text ==
        "    %v0 = stablehlo.reshape %x : (tensor<2x24xf32>) -> tensor<2x1x4x6xf32>\n"
        "    %v1 = stablehlo.convert %v0 : (tensor<2x1x4x6xf32>) -> tensor<2x1x4x6xbf16>\n"
        "    %v2 = stablehlo.convert %w : (tensor<3x1x2x2xf32>) -> tensor<3x1x2x2xbf16>\n"
        "    %v3 = stablehlo.convolution(%v1, %v2)\n"
        "      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],\n"
        "      window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}\n"
        "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x1x4x6xbf16>, tensor<3x1x2x2xbf16>) -> "
        "tensor<2x3x2x3xbf16>\n"
        "    %v4 = stablehlo.convert %v3 : (tensor<2x3x2x3xbf16>) -> tensor<2x3x2x3xf32>\n"
        "    %v5 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3x2x3xf32>\n"
        "    %v6 = stablehlo.add %v4, %v5 : tensor<2x3x2x3xf32>\n"
        "    %v7 = stablehlo.transpose %v6, dims = [0, 2, 3, 1] : (tensor<2x3x2x3xf32>) -> tensor<2x2x3x3xf32>\n"
        "    %v8 = stablehlo.reshape %v7 : (tensor<2x2x3x3xf32>) -> tensor<2x6x3xf32>\n"
        "    %v9 = stablehlo.broadcast_in_dim %cls, dims = [2] : (tensor<3xf32>) -> tensor<2x1x3xf32>\n"
        "    %v10 = stablehlo.concatenate %v9, %v8, dim = 1 : (tensor<2x1x3xf32>, tensor<2x6x3xf32>) -> tensor<2x7x3xf32>\n"
        "    %v11 = stablehlo.broadcast_in_dim %pos, dims = [1, 2] : (tensor<7x3xf32>) -> tensor<2x7x3xf32>\n"
        "    %v12 = stablehlo.add %v10, %v11 : tensor<2x7x3xf32>\n"
        "    %v13 = stablehlo.reshape %v12 : (tensor<2x7x3xf32>) -> tensor<2x21xf32>\n");
  const std::string embed_module = module_text(
      "%x: tensor<2x24xf32>, %w: tensor<3x1x2x2xf32>, %b: tensor<3xf32>, %cls: tensor<3xf32>, %pos: tensor<7x3xf32>", "tensor<2x21xf32>",
      embed_text, "%v13");
  const Lifted embed_lift = lift(parse_module(embed_module));
  CHECK(emit_render(embed_lift.render) == embed_module);
  CHECK(embed_lift.report.verbatim == 0);
  REQUIRE(embed_lift.render.items.size() == 1);
  CHECK(embed_lift.render.items[0].expr->spec->id == Ctor::batchOp_patchEmbedBf16);
  CHECK(embed_lift.render.items[0].expr->nats == std::map<std::string, std::int64_t>(stem.begin(), stem.end()));

  // The kernel gradient at B = 2, D = 5: the dilated cotangent is 3 x 5 (H-(P-1), W-(P-1)).
  Nats grad_nats = kStem;
  grad_nats["D"] = 5;
  counter = 0;
  const auto grad = skel_node("patchEmbedWeightGradBBf16", grad_nats, {name("%g", 70)}, {{"xName", "%ximg"}});
  const std::string grad_text = emit(2, *grad, counter).text;
  CHECK(grad_text ==
        "    %v0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "    %v1 = stablehlo.reshape %g : (tensor<2x35xf32>) -> tensor<2x7x5xf32>\n"
        "    %v2 = stablehlo.slice %v1 [0:2, 1:7, 0:5] : (tensor<2x7x5xf32>) -> tensor<2x6x5xf32>\n"
        "    %v3 = stablehlo.reshape %v2 : (tensor<2x6x5xf32>) -> tensor<2x2x3x5xf32>\n"
        "    %v4 = stablehlo.transpose %v3, dims = [0, 3, 1, 2] : (tensor<2x2x3x5xf32>) -> tensor<2x5x2x3xf32>\n"
        "    %v5 = stablehlo.pad %v4, %v0, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 1, 1] : (tensor<2x5x2x3xf32>, "
        "tensor<f32>) -> tensor<2x5x3x5xf32>\n"
        "    %v6 = stablehlo.transpose %ximg, dims = [1, 0, 2, 3] : (tensor<2x1x4x6xf32>) -> tensor<1x2x4x6xf32>\n"
        "    %v7 = stablehlo.transpose %v5, dims = [1, 0, 2, 3] : (tensor<2x5x3x5xf32>) -> tensor<5x2x3x5xf32>\n"
        "    %v8 = stablehlo.convert %v6 : (tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xbf16>\n"
        "    %v9 = stablehlo.convert %v7 : (tensor<5x2x3x5xf32>) -> tensor<5x2x3x5xbf16>\n"
        "    %v10 = stablehlo.convolution(%v8, %v9)\n"
        "      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],\n"
        "      window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}\n"
        "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x6xbf16>, tensor<5x2x3x5xbf16>) -> "
        "tensor<1x5x2x2xbf16>\n"
        "    %v11 = stablehlo.convert %v10 : (tensor<1x5x2x2xbf16>) -> tensor<1x5x2x2xf32>\n"
        "    %v12 = stablehlo.transpose %v11, dims = [1, 0, 2, 3] : (tensor<1x5x2x2xf32>) -> tensor<5x1x2x2xf32>\n");
  const std::string grad_module =
      module_text("%g: tensor<2x35xf32>, %ximg: tensor<2x1x4x6xf32>", "tensor<5x1x2x2xf32>", grad_text, "%v12");
  const Lifted grad_lift = lift(parse_module(grad_module));
  CHECK(emit_render(grad_lift.render) == grad_module);
  CHECK(grad_lift.report.verbatim == 0);
  REQUIRE(grad_lift.render.items.size() == 1);
  CHECK(grad_lift.render.items[0].expr->spec->id == Ctor::patchEmbedWeightGradBBf16);
  CHECK(grad_lift.render.items[0].expr->nats == std::map<std::string, std::int64_t>(grad_nats.begin(), grad_nats.end()));

  // Control: the f32 peers' text (no converts) lifts to the f32 rows, not to these.
  counter = 0;
  const auto f32_grad = skel_node("patchEmbedWeightGradB", grad_nats, {name("%g", 70)}, {{"xName", "%ximg"}});
  const std::string f32_text = emit(2, *f32_grad, counter).text;
  CHECK(f32_text.find("bf16") == std::string::npos);
  const Lifted f32_lift = lift(parse_module(module_text("%g: tensor<2x35xf32>, %ximg: tensor<2x1x4x6xf32>", "tensor<5x1x2x2xf32>", f32_text, "%v9")));
  REQUIRE(f32_lift.render.items.size() == 1);
  CHECK(f32_lift.render.items[0].expr->spec->id == Ctor::patchEmbedWeightGrad);
}

TEST_CASE("patch bf16: den on hand values rounds the operands and the convolution's sum, and nothing else", "[patch_bf16][den]") {
  const Nats one = {{"N", 1}, {"ic", 1}, {"H", 1}, {"W", 1}, {"P", 1}, {"tk", 1}, {"D", 1}};
  // One 1x1 patch: img 257/256 (a bf16 tie, to the even 1), W = 3, so the patch row is
  // rnd(3 * 1) + b + pos = 3 + 1/3 + 1/11 = 113/33; the class row is cls + pos = 1/5 + 1/7 = 12/35.
  const auto embed = node("batchOp/patchEmbedBf16", one, {{"W", {"3"}}, {"b", {"1/3"}}, {"cls", {"1/5"}}, {"pos", {"1/7", "1/11"}}},
                          {leaf("%u", {"257/256"})});
  CHECK(den_strings(embed, RoundingModel::NearestEven) == Strings{"12/35", "113/33"});
  CHECK(text_strings(embed) == Strings{"12/35", "113/33"});
  // Without the rounding, the f32 peer's value: 771/256 + 1/3 + 1/11 = 29027/8448.
  CHECK(den_strings(embed, RoundingModel::Identity) == Strings{"12/35", "29027/8448"});
  // The store: rnd(1/3) = 171/512 on both operands; the product 29241/262144 has 15 significant
  // bits and rounds to 57/512. The unrounded class token 1/3 stays 1/3 (not 171/512).
  const auto store = node("batchOp/patchEmbedBf16", one, {{"W", {"1/3"}}, {"b", {"0"}}, {"cls", {"1/3"}}, {"pos", {"0", "0"}}},
                          {leaf("%u", {"1/3"})});
  CHECK(den_strings(store, RoundingModel::NearestEven) == Strings{"1/3", "57/512"});
  CHECK(text_strings(store) == Strings{"1/3", "57/512"});
  CHECK(den_strings(store, RoundingModel::NearestEven) != Strings{"1/3", "29241/262144"});  // control: the operands alone

  // The kernel gradient at N = 2: x = 1 at both examples, the patch rows' cotangents 1/2 (exact)
  // and 1/5 -> 205/1024; the class rows (9) are skipped. The batch sum 717/1024 =
  // 1011001101b / 2^10 is stored once: 179/256.
  Nats two = one;
  two["N"] = 2;
  const auto grad = node("patchEmbedWeightGradBBf16", two, {{"x", {"1", "1"}}}, {leaf("%u", {"9", "1/2", "9", "1/5"})});
  CHECK(den_strings(grad, RoundingModel::NearestEven) == Strings{"179/256"});
  CHECK(text_strings(grad) == Strings{"179/256"});
  CHECK(den_strings(grad, RoundingModel::Identity) == Strings{"7/10"});
  // The f32 peer's den is the unrounded sum: the same fields, no rounding anywhere.
  CHECK(den_strings(node("patchEmbedWeightGradB", two, {{"x", {"1", "1"}}}, {leaf("%u", {"9", "1/2", "9", "1/5"})}),
                    RoundingModel::NearestEven) == Strings{"7/10"});
  // One store outside the sum, not one per example: 1/3 + 1/3 + 1/3 with x = 1. Each cotangent
  // rounds to 171/512; their sum 513/512 = 1 + 2^-9 rounds to 1, whereas storing per example
  // and summing in f32 would keep 513/512.
  Nats three = one;
  three["N"] = 3;
  const auto once = node("patchEmbedWeightGradBBf16", three, {{"x", {"1", "1", "1"}}}, {leaf("%u", {"0", "1/3", "0", "1/3", "0", "1/3"})});
  CHECK(den_strings(once, RoundingModel::NearestEven) == Strings{"1"});
  CHECK(text_strings(once) == Strings{"1"});
}

namespace {

const char* const kPatchRows[] = {"batchOp/patchEmbedBf16", "patchEmbedWeightGradBBf16"};

// Shapes where the text is well typed: P divides H and W, tk = (H/P)(W/P).
Nats patch_nats(std::int64_t N, std::int64_t ic, std::int64_t P, std::int64_t hp, std::int64_t wp, std::int64_t D) {
  return {{"N", N}, {"ic", ic}, {"H", hp * P}, {"W", wp * P}, {"P", P}, {"tk", hp * wp}, {"D", D}};
}

ExprPtr operand_for(const CtorSpec& spec, const Nats& nats, const char* fill) {
  const auto n = eval_length(spec.child_lengths.at(0), nats);
  return fill ? leaf("%u", Strings(static_cast<std::size_t>(n), fill)) : make_skeleton("operand", {{"n", n}}, {}, {{"name", "%u"}});
}

}  // namespace

TEST_CASE("patch bf16: den with the rounding equals the text run exactly, and without it does not", "[patch_bf16][den][property]") {
  for (const char* ctor : kPatchRows) {
    rc::prop(std::string("den(nearest-even) == text, exactly: ") + ctor, [&] {
      const Nats nats = patch_nats(*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::element<std::int64_t>(1, 2),
                                   *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3));
      const CtorSpec& spec = *find_constructor(ctor);
      std::map<std::string, std::string> strings;
      for (const char* s : spec.strings) strings[s] = std::string("%") + s;
      const ExprPtr e = *fuzz::gen_values(make_skeleton(ctor, nats, {operand_for(spec, nats, nullptr)}, strings));
      const Agreement a = den_agrees_with_text(*e);
      RC_ASSERT(a.comparable);
      RC_ASSERT(a.agree);
    });
  }
  // The control: every value 1/3 (not a bf16 number), so den without the rounding differs from
  // the text, and den with it does not.
  for (const char* ctor : kPatchRows) {
    INFO(ctor);
    const Nats nats = patch_nats(2, 1, 2, 1, 2, 1);
    const CtorSpec& spec = *find_constructor(ctor);
    Reals reals;
    for (const auto& f : spec.reals) reals[f.name] = Strings(static_cast<std::size_t>(eval_length(f.length, nats)), "1/3");
    const auto e = node(ctor, nats, reals, {operand_for(spec, nats, "1/3")});
    CHECK(den_strings(e, RoundingModel::NearestEven) == text_strings(e));
    CHECK(den_strings(e, RoundingModel::Identity) != text_strings(e));
  }
}

TEST_CASE("patch bf16: the property suite draws both rows (shlo prop --coverage)", "[patch_bf16][coverage]") {
  fuzz::clear_coverage();
  fuzz::set_coverage(true);
  fuzz::run_property(*fuzz::find_property("meaning.den_equals_text"), 7, 400);
  fuzz::set_coverage(false);
  const std::string report = fuzz::coverage_report();
  fuzz::clear_coverage();
  auto row = [&](const std::string& name) {  // the report's line for a constructor
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(name + " ", 0) == 0) return line;
    return std::string();
  };
  for (const char* ctor : kPatchRows) {
    INFO(row(ctor));
    CHECK_THAT(row(ctor), Catch::Matches(std::string(ctor) + " +[1-9][0-9]*  .*meaning.den_equals_text [1-9][0-9]*.*"));
  }
  // Control: a row the generators never draw reads 0.
  CHECK_THAT(row("geluF"), Catch::Matches("geluF +0  never drawn"));
}
