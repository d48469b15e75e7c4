// The batched set (section 3.9): chains over a batch of N examples, where den and the text
// agree at N = B, and their batched parameter gradients.
#include "fuzz/gen.hpp"
#include "fuzz/gen_internal.hpp"

namespace shlo::fuzz {

using namespace gen_detail;

namespace {

// A top for an image chain e (N examples of c*h*w): a reduced-precision weight gradient, or a
// node of the synchronised batch norm with its statistics operand built from a fresh batch
// (bnPackB of its mean and variance, so that var + eps > 0). The nodes that take a square root
// only where `transcendental`.
ExprPtr batched_low_precision_or_sync_top(Names& names, const ExprPtr& e, std::int64_t N, const Layout& L, bool transcendental) {
  std::vector<std::string> tops = {"convWeightGradBBf16", "convWeightGradBF8", "bnBatchMeanB", "bnBatchVarB", "bnBatchVarAtB",
                                   "bnStatsMeanB", "bnStatsVarB"};
  if (transcendental) tops.insert(tops.end(), {"bnSyncF", "bnSyncDyStatsB", "bnSyncBack", "bnSyncGammaGradB"});
  const std::string top = *rc::gen::elementOf(tops);
  const std::map<std::string, std::int64_t> bn = {{"N", N}, {"oc", L.c}, {"h", L.h}, {"w", L.w}};
  if (top == "convWeightGradBBf16" || top == "convWeightGradBF8") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3);
    return plan(top.c_str(), {{"N", N}, {"ic", *rc::gen::inRange<std::int64_t>(1, 3)}, {"oc", L.c}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}},
                {e}, strings_for(top.c_str(), names));
  }
  if (top == "bnBatchMeanB" || top == "bnBatchVarB") return plan(top.c_str(), bn, {e});
  if (top == "bnBatchVarAtB") return plan(top.c_str(), bn, {e, leaf(names, L.c)});
  // Two batches: a leaf used twice would be filled with two different values under one name.
  const ExprPtr st = plan("bnPackB", {{"oc", L.c}}, {plan("bnBatchMeanB", bn, {leaf(names, N * L.width)}), plan("bnBatchVarB", bn, {leaf(names, N * L.width)})});
  if (top == "bnStatsMeanB" || top == "bnStatsVarB") return plan(top.c_str(), {{"oc", L.c}}, {st});
  if (top == "bnSyncBack")
    return plan(top.c_str(), bn, {e, plan("bnSyncDyStatsB", bn, {leaf(names, N * L.width), st}, strings_for("bnSyncDyStatsB", names))},
                strings_for(top.c_str(), names));
  return plan(top.c_str(), bn, {e, st}, strings_for(top.c_str(), names));
}

// The batched set at N = B (section 3.9): a chain over a batch of N examples.
ExprPtr batched_chain(Names& names, bool transcendental) {
  const std::int64_t N = *rc::gen::inRange<std::int64_t>(2, 4);
  Layout L;
  if (*rc::gen::arbitrary<bool>()) {
    const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 3), h = *rc::gen::element<std::int64_t>(1, 2, 4), w = *rc::gen::element<std::int64_t>(1, 2, 4);
    L = {c * h * w, c, h, w};
  } else {
    L = {*rc::gen::inRange<std::int64_t>(1, 4)};
  }
  ExprPtr e = leaf(names, N * L.width);
  const int depth = *rc::gen::inRange(1, 4);
  for (int step = 0; step < depth; ++step) {
    std::vector<std::string> ops = {"batchOp/dense", "batchOp/relu", "batchOp/softmaxDiv", "batchOp/dotOut", "subB", "divConstB", "selectPosB"};
    if (transcendental) ops.push_back("batchOp/expe");
    ops.insert(ops.end(), {"addVB", "batchOp/relu6", "selectMidB", "scaleB", "shiftB", "gapBackBatched"});
    if (transcendental) ops.insert(ops.end(), {"batchOp/swish", "swishBackB", "sigmoidB", "sigmoidBackB"});
    if (L.image()) {
      ops.insert(ops.end(), {"batchOp/conv", "maxPoolBackB", "convBackBatched"});
      if (L.h % 2 == 0 && L.w % 2 == 0) ops.push_back("batchOp/maxPool");
      if (transcendental) ops.insert(ops.end(), {"bnBatchF", "bnBatchBack"});
      const auto conv = conv_names(kConvMaps, L, true);
      ops.insert(ops.end(), conv.begin(), conv.end());
      ops.insert(ops.end(), {"batchOp/gap", "seReduceB", "maxPool3s2BackB"});
      if (L.h % 2 == 0 && L.w % 2 == 0) ops.push_back("batchOp/maxPool3s2");
      if (transcendental) ops.insert(ops.end(), {"bnBatchLABack", "batchOp/bnEval", "batchOp/seBlock", "seBackBatched"});
    }
    for (const auto& row : transformer_rows({&kBatchedRows}, L)) ops.push_back(row);
    if (transcendental) ops.insert(ops.end(), kBatchedRowsIrrational.begin(), kBatchedRowsIrrational.end());
    if (transcendental && gelu_rows_allowed()) ops.insert(ops.end(), kBatchedGeluRows.begin(), kBatchedGeluRows.end());
    if (L.image()) ops.insert(ops.end(), kBatchedImageRows.begin(), kBatchedImageRows.end());
    if (L.image()) ops.insert(ops.end(), {"batchOp/convBf16", "batchOp/convF8", "convBackBatchedBf16", "convBackBatchedF8"});
    const std::string strided = strided_forward(L, true);
    const std::string op = !strided.empty() ? strided : *rc::gen::elementOf(ops);
    if (is_transformer_row(op)) {
      Step s = transformer_step(names, op, {e, L}, N);
      e = s.e;
      L = s.layout;
      continue;
    }
    const std::int64_t n = L.width;
    if (const ConvOp* conv = find_conv_op(op)) {
      const Step next = conv_step(names, {e, L}, *conv, N, false);
      e = next.e;
      L = next.layout;
      continue;
    }
    if (op == "batchOp/convBf16" || op == "batchOp/convF8" || op == "convBackBatchedBf16" || op == "convBackBatchedF8") {
      const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3), other = *rc::gen::inRange<std::int64_t>(1, 3);
      const bool forward = op.rfind("batchOp/", 0) == 0;
      const std::int64_t ic = forward ? L.c : other, oc = forward ? other : L.c, out = forward ? oc : ic;
      e = plan(op.c_str(), {{"N", N}, {"ic", ic}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}}, {e}, strings_for(op.c_str(), names));
      L = {out * L.h * L.w, out, L.h, L.w};
      continue;
    }
    if (op == "batchOp/dense") {
      const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 4);
      e = plan(op.c_str(), {{"N", N}, {"a", n}, {"c", c}}, {e}, strings_for(op.c_str(), names));
      L = {c};
    } else if (op == "batchOp/dotOut") {
      const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 4);
      e = plan(op.c_str(), {{"N", N}, {"m", m}, {"n", n}}, {e}, strings_for(op.c_str(), names));
      L = {m};
    } else if (op == "subB" || op == "addVB") {
      e = plan(op.c_str(), {{"N", N}, {"n", n}}, {e, leaf(names, N * n)});
    } else if (op == "gapBackBatched") {  // the width is the channel count of an image
      const std::int64_t h = *rc::gen::element<std::int64_t>(1, 2), w = *rc::gen::element<std::int64_t>(1, 2);
      e = plan(op.c_str(), {{"N", N}, {"c", n}, {"h", h}, {"w", w}}, {e});
      L = {n * h * w, n, h, w};
    } else if (op == "batchOp/gap" || op == "seReduceB") {
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(op.c_str(), names));
      L = {L.c};
    } else if (op == "batchOp/maxPool3s2") {
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {e});
      L = {L.width / 4, L.c, L.h / 2, L.w / 2};
    } else if (op == "maxPool3s2BackB") {
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(op.c_str(), names));
      L = {L.width * 4, L.c, 2 * L.h, 2 * L.w};
    } else if (op == "bnBatchLABack" || op == "batchOp/bnEval") {
      e = plan(op.c_str(), {{"N", N}, {"oc", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(op.c_str(), names));
    } else if (op == "batchOp/seBlock" || op == "seBackBatched") {
      const std::int64_t r = *rc::gen::inRange<std::int64_t>(1, 3);
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h}, {"w", L.w}, {"r", r}}, {e}, strings_for(op.c_str(), names));
    } else if (op == "selectMidB" || op == "scaleB" || op == "shiftB" || op == "swishBackB" || op == "sigmoidBackB") {
      e = plan(op.c_str(), {{"N", N}, {"n", n}}, {e}, strings_for(op.c_str(), names));
    } else if (op == "divConstB" || op == "selectPosB") {
      e = plan(op.c_str(), {{"N", N}, {"n", n}}, {e}, strings_for(op.c_str(), names));
    } else if (op == "batchOp/conv" || op == "convBackBatched") {
      const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3), other = *rc::gen::inRange<std::int64_t>(1, 3);
      const std::int64_t ic = op == "batchOp/conv" ? L.c : other, oc = op == "batchOp/conv" ? other : L.c;
      const auto s = strings_for(op.c_str(), names);
      e = plan(op.c_str(), {{"N", N}, {"ic", ic}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}}, {e}, s);
      const std::int64_t out = op == "batchOp/conv" ? oc : ic;
      L = {out * L.h * L.w, out, L.h, L.w};
    } else if (op == "batchOp/maxPool") {
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {e});
      L = {L.width / 4, L.c, L.h / 2, L.w / 2};
    } else if (op == "maxPoolBackB") {
      e = plan(op.c_str(), {{"N", N}, {"c", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(op.c_str(), names));
      L = {L.width * 4, L.c, 2 * L.h, 2 * L.w};
    } else if (op == "bnBatchF" || op == "bnBatchBack") {
      e = plan(op.c_str(), {{"N", N}, {"oc", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(op.c_str(), names));
    } else {
      e = plan(op.c_str(), {{"N", N}, {"n", n}}, {e});
    }
  }
  if (L.image() && *rc::gen::inRange(0, 3) == 0) return batched_low_precision_or_sync_top(names, e, N, L, transcendental);
  // The batched parameter gradients (explicit sums over the batch).
  std::vector<std::string> tops = {"none", "denseWeightGradB", "denseBiasGradB", "denseWeightSgdB", "denseBiasSgdB", "weightGradB"};
  if (L.image()) tops.insert(tops.end(), {"convWeightGradB", "convBiasGradB", "bnBetaGradB", "bnBetaSgdB"});
  if (L.image() && transcendental) tops.insert(tops.end(), {"bnGammaGradB", "bnGammaSgdB"});
  for (const auto& row : transformer_rows({&kBatchedGradientRows}, L)) tops.push_back(row);
  if (transcendental) tops.insert(tops.end(), kBatchedGradientRowsIrrational.begin(), kBatchedGradientRowsIrrational.end());
  if (L.image()) tops.insert(tops.end(), kBatchedImageGradientRows.begin(), kBatchedImageGradientRows.end());
  if (L.image()) {
    const auto conv = conv_names(kConvGradients, L, true);
    tops.insert(tops.end(), conv.begin(), conv.end());
  }
  const std::string top = *rc::gen::elementOf(tops);
  if (is_transformer_row(top)) return transformer_step(names, top, {e, L}, N).e;
  if (const ConvOp* conv = find_conv_op(top)) return conv_step(names, {e, L}, *conv, N, true).e;
  if (top == "denseWeightGradB" || top == "denseWeightSgdB" || top == "weightGradB")
    return plan(top.c_str(), {{"N", N}, {"a", *rc::gen::inRange<std::int64_t>(1, 4)}, {"c", L.width}}, {e}, strings_for(top.c_str(), names));
  if (top == "denseBiasGradB" || top == "denseBiasSgdB") return plan(top.c_str(), {{"N", N}, {"c", L.width}}, {e}, strings_for(top.c_str(), names));
  if (top.rfind("bn", 0) == 0) return plan(top.c_str(), {{"N", N}, {"oc", L.c}, {"h", L.h}, {"w", L.w}}, {e}, strings_for(top.c_str(), names));
  if (top == "convWeightGradB" || top == "convBiasGradB") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3);
    const auto s = strings_for(top.c_str(), names);
    return plan(top.c_str(), {{"N", N}, {"ic", *rc::gen::inRange<std::int64_t>(1, 3)}, {"oc", L.c}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}},
                {e}, s);
  }
  return e;
}

}  // namespace

rc::Gen<ExprPtr> gen_batched_expr(bool allow_transcendental, bool with_gelu) {
  return rc::gen::exec([allow_transcendental, with_gelu] {
    Names names;
    ExprPtr plan_;
    {
      const GeluRows gelu(with_gelu);
      plan_ = batched_chain(names, allow_transcendental);
    }
    return *gen_values(plan_);
  });
}

}  // namespace shlo::fuzz
