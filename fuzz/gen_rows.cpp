// The row families the generators draw from tables, each with the builder of one node on a
// value of a given layout (fuzz/gen_internal.hpp): the ViT, ConvNeXt and regulariser rows, and
// the strided and depthwise convolutions.
#include <algorithm>

#include <rapidcheck.h>

#include "fuzz/gen_internal.hpp"

namespace shlo::fuzz::gen_detail {

// ---- The ViT, ConvNeXt and regulariser rows (docs/lean/transformer-families.md) ----

namespace {
// A divisor of n >= 1, drawn (a row count that splits a per-example width into rows).
std::int64_t draw_divisor(std::int64_t n) {
  std::vector<std::int64_t> ds;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) ds.push_back(d);
  return *rc::gen::elementOf(ds);
}
}  // namespace

// The rows of these families the generators draw: on an activation (kActivationRows; image:
// also kImageRows), as the parameter step on top (kGradientRows), and in their batched forms.
const std::vector<std::string> kActivationRows = {"denseRowF", "denseRowBack", "transposeF", "matmulF", "headSliceF", "headPadF",
                                                  "clsSliceF", "clsPadF", "rowScaleF", "rowBiasF", "layerScaleF"};
const std::vector<std::string> kActivationRowsIrrational = {"softmaxRowF", "softmaxRowBack", "lnRowF", "lnRowBack"};
const std::vector<std::string> kImageRows = {"patchEmbedF", "layerScaleChF"};
const std::vector<std::string> kBatchedRows = {"batchOp/denseRow", "batchOp/denseRowBack", "batchOp/transpose", "matmulFB", "batchOp/headSlice",
                                               "batchOp/headPad", "batchOp/clsSlice", "batchOp/clsPad", "batchOp/rowScale", "batchOp/rowBias",
                                               "dropPathB", "dropoutB", "batchOp/denseRowBf16", "batchOp/denseRowBackBf16", "matmulFBBf16"};
const std::vector<std::string> kBatchedRowsIrrational = {"batchOp/softmaxRow", "softmaxRowBackB", "batchOp/lnRow", "lnRowBackB"};
const std::vector<std::string> kBatchedImageRows = {"batchOp/patchEmbed", "batchOp/layerScaleCh", "batchOp/patchEmbedBf16"};
const std::vector<std::string> kGeluRows = {"geluBack"}, kBatchedGeluRows = {"batchOp/gelu", "geluBackB"};
const std::vector<std::string> kGradientRows = {"rowDenseWeightGrad", "rowDenseWeightSgd", "rowDenseBiasGrad", "rowDenseBiasSgd",
                                                "patchEmbedBiasGrad", "patchEmbedBiasSgd", "posEmbedGrad", "posEmbedSgd",
                                                "patchEmbedWeightGrad", "patchEmbedWeightSgd", "lnBetaGrad", "lnBetaSgd"};
const std::vector<std::string> kGradientRowsIrrational = {"veclnGammaGrad", "veclnGammaSgd", "lnGammaGrad", "lnGammaSgd"};
const std::vector<std::string> kImageGradientRows = {"layerScaleChGammaGrad", "layerScaleChGammaSgd"};
const std::vector<std::string> kBatchedGradientRows = {"rowDenseWeightGradB", "rowDenseBiasGradB", "patchEmbedBiasGradB", "posEmbedGradB",
                                                       "patchEmbedWeightGradB", "rowDenseWeightGradBBf16", "patchEmbedWeightGradBBf16"};
const std::vector<std::string> kBatchedGradientRowsIrrational = {"veclnGammaGradB"};
const std::vector<std::string> kBatchedImageGradientRows = {"layerScaleChGammaGradB"};

bool is_transformer_row(const std::string& op) {
  for (const auto* list : {&kActivationRows, &kActivationRowsIrrational, &kImageRows, &kBatchedRows, &kBatchedRowsIrrational, &kBatchedImageRows,
                           &kGeluRows, &kBatchedGeluRows, &kGradientRows, &kGradientRowsIrrational, &kImageGradientRows, &kBatchedGradientRows,
                           &kBatchedGradientRowsIrrational, &kBatchedImageGradientRows})
    if (std::find(list->begin(), list->end(), op) != list->end()) return true;
  return false;
}

// One of these rows on a value of per-example width in.layout.width: N examples for a batched
// row (its nat N), N = 0 for a per-example one. Shape parameters are drawn to fit the width
// (rows x features, tokens + class row, heads); returns the node and the per-example layout after.
Step transformer_step(Names& names, const std::string& op, Step in, std::int64_t N) {
  const std::int64_t n = in.layout.width;
  const Layout L = in.layout;
  auto with_N = [N](std::map<std::string, std::int64_t> nats) {
    if (N > 0) nats["N"] = N;
    return nats;
  };
  auto one = [&](std::map<std::string, std::int64_t> nats, Layout out) {
    return Step{plan(op.c_str(), with_N(std::move(nats)), {in.e}, strings_for(op.c_str(), names)), out};
  };
  const auto has = [&](std::initializer_list<const char*> names_) {
    return std::any_of(names_.begin(), names_.end(), [&](const char* x) { return op == x; });
  };
  const std::int64_t small = *rc::gen::inRange<std::int64_t>(1, 4);
  if (has({"denseRowF", "batchOp/denseRow", "batchOp/denseRowBf16"})) {
    const std::int64_t tk = draw_divisor(n);
    return one({{"tk", tk}, {"a", n / tk}, {"c", small}}, {tk * small});
  }
  if (has({"denseRowBack", "batchOp/denseRowBack", "batchOp/denseRowBackBf16"})) {
    const std::int64_t tk = draw_divisor(n);
    return one({{"tk", tk}, {"a", small}, {"c", n / tk}}, {tk * small});
  }
  if (has({"softmaxRowF", "batchOp/softmaxRow", "softmaxRowBack", "softmaxRowBackB", "lnRowF", "batchOp/lnRow", "lnRowBack", "lnRowBackB",
           "rowScaleF", "batchOp/rowScale", "rowBiasF", "batchOp/rowBias", "transposeF", "batchOp/transpose"})) {
    const std::int64_t m = draw_divisor(n);
    return one({{"m", m}, {"n", n / m}}, {n});
  }
  if (has({"matmulF", "matmulFB", "matmulFBBf16"})) {
    const std::int64_t m = draw_divisor(n), k = n / m;
    ExprPtr right = leaf(names, std::max<std::int64_t>(N, 1) * k * small);
    return {plan(op.c_str(), with_N({{"m", m}, {"k", k}, {"n", small}}), {in.e, right}), {m * small}};
  }
  if (has({"headSliceF", "batchOp/headSlice"})) {
    const std::int64_t tk = draw_divisor(n), heads = draw_divisor(n / tk), d = n / tk / heads;
    return one({{"tk", tk}, {"heads", heads}, {"d", d}, {"head", *rc::gen::inRange<std::int64_t>(0, heads)}}, {tk * d});
  }
  if (has({"headPadF", "batchOp/headPad"})) {
    const std::int64_t tk = draw_divisor(n), heads = small;
    return one({{"tk", tk}, {"heads", heads}, {"d", n / tk}, {"head", *rc::gen::inRange<std::int64_t>(0, heads)}}, {n * heads});
  }
  // The class-token rows with at least one patch row (at tk = 0 their text is headSliceF's and
  // headPadF's at one head: both the identity).
  if (has({"clsPadF", "batchOp/clsPad"})) return one({{"tk", small}, {"D", n}}, {(small + 1) * n});
  if (has({"patchEmbedF", "batchOp/patchEmbed", "batchOp/patchEmbedBf16"})) {  // patches of P x P tiling the image: tk = (H/P)(W/P)
    const std::int64_t P = L.h % 2 == 0 && L.w % 2 == 0 ? *rc::gen::element<std::int64_t>(1, 2) : 1, tk = (L.h / P) * (L.w / P);
    return one({{"ic", L.c}, {"H", L.h}, {"W", L.w}, {"P", P}, {"tk", tk}, {"D", small}}, {(tk + 1) * small});
  }
  if (has({"layerScaleChF", "batchOp/layerScaleCh"})) return one({{"c", L.c}, {"h", L.h}, {"w", L.w}}, L);
  if (has({"layerScaleF", "geluBack", "batchOp/gelu", "geluBackB", "dropPathB", "dropoutB"})) return one({{"n", n}}, L);
  // Parameter gradients and their SGD (the result is the parameter).
  if (has({"rowDenseWeightGrad", "rowDenseWeightSgd", "rowDenseWeightGradB", "rowDenseWeightGradBBf16"})) {
    const std::int64_t tk = draw_divisor(n);
    return one({{"tk", tk}, {"a", small}, {"c", n / tk}}, {small * (n / tk)});
  }
  if (has({"rowDenseBiasGrad", "rowDenseBiasSgd", "rowDenseBiasGradB"})) {
    const std::int64_t tk = draw_divisor(n);
    return one({{"tk", tk}, {"c", n / tk}}, {n / tk});
  }
  if (has({"veclnGammaGrad", "veclnGammaSgd", "veclnGammaGradB"})) {
    const std::int64_t tk = draw_divisor(n);
    return one({{"tk", tk}, {"D", n / tk}}, {n / tk});
  }
  if (has({"lnGammaGrad", "lnGammaSgd", "lnBetaGrad", "lnBetaSgd"})) return one({{"n", n}}, {1});
  if (has({"posEmbedGrad", "posEmbedSgd", "posEmbedGradB"})) {
    const std::int64_t D = draw_divisor(n);
    return one({{"tk", n / D - 1}, {"D", D}}, {n});
  }
  // The class-token slice and the patch rows read their operand as (tk+1) x D with at least one
  // patch: D a divisor of n/2 or less; the patch kernel's image is then 1 x tk with P = 1.
  std::int64_t D = 1;
  for (std::int64_t d = 1; 2 * d <= n; ++d)
    if (n % d == 0 && *rc::gen::arbitrary<bool>()) D = d;
  const std::int64_t tk = n / D - 1;
  if (has({"clsSliceF", "batchOp/clsSlice"})) return one({{"tk", tk}, {"D", D}}, {D});
  if (has({"patchEmbedBiasGrad", "patchEmbedBiasSgd", "patchEmbedBiasGradB"})) return one({{"tk", tk}, {"c", D}}, {D});
  if (has({"patchEmbedWeightGrad", "patchEmbedWeightSgd", "patchEmbedWeightGradB", "patchEmbedWeightGradBBf16"}))
    return one({{"ic", small}, {"H", 1}, {"W", tk}, {"P", 1}, {"tk", tk}, {"D", D}}, {D * small});
  // layerScaleChGammaGrad, layerScaleChGammaSgd, layerScaleChGammaGradB
  return one({{"c", L.c}, {"h", L.h}, {"w", L.w}}, {L.c});
}

// The rows of `lists` that fit a value of this layout (the class-token slice and the patch
// gradients need two tokens' worth).
std::vector<std::string> transformer_rows(std::initializer_list<const std::vector<std::string>*> lists, const Layout& L) {
  std::vector<std::string> out;
  for (const auto* list : lists)
    for (const auto& op : *list) {
      const bool two_rows = op.find("patchEmbedWeight") != std::string::npos || op.find("patchEmbedBias") != std::string::npos ||
                            op.find("clsSlice") != std::string::npos;
      if (L.width >= 2 || !two_rows) out.push_back(op);
    }
  return out;
}

// The strided and depthwise convolutions (ast/ctors/strided_conv.def, depthwise.def), each with
// the kernel sizes where the printer's text is den's (docs/lean/conv-families-conv.md: the
// XLA-SAME forms need odd k >= 3, the stride-4 weight gradient the 4x4 stem), drawn by one
// builder. Maps take an activation to an activation; gradients end a chain (per example at
// B = 1, batched at N = B). Per-example depthwise forwards need c >= 2: at c = 1 they print
// flatConvF's text, which the lifter reads as flatConvF with other shape fields.

const std::vector<ConvOp> kConvMaps = {
    {"flatConvStridedF", 2, false, false, {1, 2, 3}},     {"flatConvStridedXlaF", 2, false, false, {3}},
    {"flatConvStride4F", 4, false, false, {3, 4}},        {"convStridedBack", 2, false, true, {1, 2, 3}},
    {"depthwiseF", 1, true, false, {1, 3}},               {"depthwiseStridedF", 2, true, false, {1, 3}},
    {"depthwiseStridedXlaF", 2, true, false, {3}},        {"depthwiseBack", 1, true, true, {1, 3}},
    {"depthwiseStridedBack", 2, true, true, {1, 3}},      {"depthwiseStridedXlaBack", 2, true, true, {3}},
    {"batchOp/convStrided", 2, false, false, {1, 3}},     {"batchOp/convStridedXla", 2, false, false, {3}},
    {"batchOp/convStride4", 4, false, false, {3, 4}},     {"convStridedBackBatched", 2, false, true, {1, 2, 3}},
    {"batchOp/depthwise", 1, true, false, {1, 3}},        {"batchOp/depthwiseStrided", 2, true, false, {1, 3}},
    {"batchOp/depthwiseStridedXla", 2, true, false, {3}}, {"depthwiseBackBatched", 1, true, true, {1, 3}},
    {"depthwiseStridedBackBatched", 2, true, true, {1, 3}}, {"depthwiseStridedXlaBackBatched", 2, true, true, {3}},
    // their bf16 peers (ast/ctors/low_precision.def)
    {"batchOp/convStridedBf16", 2, false, false, {1, 3}},     {"batchOp/convStridedXlaBf16", 2, false, false, {3}},
    {"batchOp/convStride4Bf16", 4, false, false, {3, 4}},     {"convStridedBackBatchedBf16", 2, false, true, {1, 2, 3}},
    {"batchOp/depthwiseBf16", 1, true, false, {1, 3}},        {"batchOp/depthwiseStridedBf16", 2, true, false, {1, 3}},
    {"batchOp/depthwiseStridedXlaBf16", 2, true, false, {3}}, {"depthwiseBackBatchedBf16", 1, true, true, {1, 3}},
    {"depthwiseStridedBackBatchedBf16", 2, true, true, {1, 3}}, {"depthwiseStridedXlaBackBatchedBf16", 2, true, true, {3}},
};

const std::vector<ConvOp> kConvGradients = {
    {"convStridedWeightGrad", 2, false, true, {1, 2, 3}},   {"convStridedWeightSgd", 2, false, true, {1, 2, 3}},
    {"convStridedXlaWeightSgd", 2, false, true, {3}},       {"convStride4WeightGrad", 4, false, true, {4}},
    {"depthwiseWeightGrad", 1, true, true, {1, 3}},         {"depthwiseWeightSgd", 1, true, true, {1, 3}},
    {"depthwiseStridedWeightSgd", 2, true, true, {1, 3}},   {"depthwiseStridedXlaWeightSgd", 2, true, true, {3}},
    {"convStridedWeightGradB", 2, false, true, {1, 2, 3}},  {"convStridedWeightSgdB", 2, false, true, {1, 2, 3}},
    {"convStridedBiasGradB", 2, false, true, {1, 3}},       {"convStridedBiasSgdB", 2, false, true, {1, 3}},
    {"convStridedXlaWeightGradB", 2, false, true, {3}},     {"convStridedXlaWeightSgdB", 2, false, true, {3}},
    {"convStridedXlaBiasGradB", 2, false, true, {3}},       {"convWeightSgdB", 1, false, true, {1, 3}},
    {"convBiasSgdB", 1, false, true, {1, 3}},               {"convStride4WeightGradB", 4, false, true, {4}},
    {"depthwiseWeightGradB", 1, true, true, {1, 3}},        {"depthwiseStridedWeightGradB", 2, true, true, {1, 3}},
    {"depthwiseStridedXlaWeightGradB", 2, true, true, {3}}, {"depthwiseBiasGradB", 1, true, true, {1, 3}},
    {"depthwiseStridedBiasGradB", 2, true, true, {1, 3}},   {"depthwiseStridedXlaBiasGradB", 2, true, true, {3}},
    {"depthwiseWeightSgdB", 1, true, true, {1, 3}},         {"depthwiseStridedWeightSgdB", 2, true, true, {1, 3}},
    {"convStridedBiasGrad", 2, false, true, {1, 3}},        {"convStridedBiasSgd", 2, false, true, {1, 3}},
    {"convStridedXlaBiasSgd", 2, false, true, {3}},         {"depthwiseBiasGrad", 1, true, true, {1, 3}},
    {"depthwiseBiasSgd", 1, true, true, {1, 3}},            {"depthwiseStridedBiasSgd", 2, true, true, {1, 3}},
    {"depthwiseStridedXlaBiasSgd", 2, true, true, {3}},
    // the bf16 peers of the batched weight gradients (ast/ctors/low_precision.def)
    {"convStridedWeightGradBBf16", 2, false, true, {1, 2, 3}}, {"convStridedXlaWeightGradBBf16", 2, false, true, {3}},
    {"convStride4WeightGradBBf16", 4, false, true, {4}},       {"depthwiseWeightGradBBf16", 1, true, true, {1, 3}},
    {"depthwiseStridedWeightGradBBf16", 2, true, true, {1, 3}}, {"depthwiseStridedXlaWeightGradBBf16", 2, true, true, {3}},
};

namespace {
bool is_batched_row(const char* name) {
  const auto& nats = find_constructor(name)->nats;
  return std::any_of(nats.begin(), nats.end(), [](const char* n) { return std::string(n) == "N"; });
}
}  // namespace

// The names of `ops` that apply to an image layout, per example or batched.
std::vector<std::string> conv_names(const std::vector<ConvOp>& ops, const Layout& L, bool batched) {
  std::vector<std::string> out;
  for (const auto& op : ops) {
    if (is_batched_row(op.name) != batched) continue;
    if (!op.backward && (L.h % op.stride != 0 || L.w % op.stride != 0)) continue;
    // The bf16 batched depthwise forwards at c = 1 print their dense bf16 peer's text
    // (batchOp/convBf16, convStridedBf16, ...), which the lifter reads instead.
    const bool low_precision = std::string(op.name).find("Bf16") != std::string::npos;
    if (!op.backward && op.depthwise && (!batched || low_precision) && L.c < 2) continue;
    out.push_back(op.name);
  }
  return out;
}

const ConvOp* find_conv_op(const std::string& name) {
  for (const auto* list : {&kConvMaps, &kConvGradients})
    for (const auto& op : *list)
      if (name == op.name) return &op;
  return nullptr;
}

// The strided forwards read a grid 2 or 4 times the one they give, which few image layouts
// have; among the seventy or so rows that apply to an image they were drawn a few times a
// minute or never (batchOp/convStride4, batchOp/depthwiseStridedXlaBf16). So on a 4h x 4w grid
// a stride-4 stem is drawn one time in two, and, batched, on another even grid a stride-2
// forward one time in two. "": draw from the whole list.
std::string strided_forward(const Layout& L, bool batched) {
  if (!L.image() || L.h % 2 != 0 || L.w % 2 != 0) return "";
  if (L.h % 4 == 0 && L.w % 4 == 0 && *rc::gen::arbitrary<bool>())
    return batched ? *rc::gen::element<std::string>("batchOp/convStride4", "batchOp/convStride4Bf16") : "flatConvStride4F";
  if (!batched || !*rc::gen::arbitrary<bool>()) return "";
  std::vector<std::string> stride2;
  for (const auto& name : conv_names(kConvMaps, L, true))
    if (const ConvOp* op = find_conv_op(name); op->stride == 2 && !op->backward) stride2.push_back(name);
  return stride2.empty() ? "" : *rc::gen::elementOf(stride2);
}

// One convolution node on `in` (an image layout; N = 0 per example). A forward reads the
// stride-times-larger grid in.h x in.w; a backward or gradient reads its output's cotangent.
Step conv_step(Names& names, const Step& in, const ConvOp& op, std::int64_t N, bool gradient) {
  const Layout L = in.layout;
  const std::int64_t k = *rc::gen::elementOf(op.kernels), other = *rc::gen::inRange<std::int64_t>(1, 3);
  const std::int64_t h = op.backward ? L.h : L.h / op.stride, w = op.backward ? L.w : L.w / op.stride;
  std::map<std::string, std::int64_t> nats = {{"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
  std::int64_t out_c = L.c;
  if (op.depthwise) {
    nats["c"] = L.c;
  } else {
    out_c = other;  // the forward's output channels, or the backward's input channels
    nats["ic"] = op.backward ? other : L.c;
    nats["oc"] = op.backward ? L.c : other;
  }
  if (N > 0) nats["N"] = N;
  ExprPtr e = plan(op.name, nats, {in.e}, strings_for(op.name, names));
  const std::int64_t s = op.backward ? op.stride : 1, oh = op.backward ? s * h : h, ow = op.backward ? s * w : w;
  if (gradient) return {e, {e->length()}};  // parameter-shaped: the end of a chain
  return {e, {out_c * oh * ow, out_c, oh, ow}};
}

}  // namespace shlo::fuzz::gen_detail
