#include "fuzz/gen.hpp"

#include <algorithm>
#include <cctype>

#include "ast/emit.hpp"

namespace shlo::fuzz {

namespace {

struct Layout {
  std::int64_t width;
  std::int64_t c = 0, h = 0, w = 0;  // CHW reading, when the value is an image
  bool image() const { return c > 0; }
};

struct Names {
  int next = 0;
  std::string fresh(const char* prefix) { return std::string("%") + prefix + std::to_string(next++); }
};

ExprPtr plan(const char* ctor, std::map<std::string, std::int64_t> nats, std::vector<ExprPtr> kids,
             std::map<std::string, std::string> strings = {}, std::vector<std::int64_t> ds = {}, std::int64_t R = 0) {
  return make_skeleton(ctor, std::move(nats), std::move(kids), std::move(strings), std::move(ds), R);
}

ExprPtr leaf(Names& n, std::int64_t width) { return plan("operand", {{"n", width}}, {}, {{"name", n.fresh("a")}}); }

// The decimal literals that generators draw (scales, learning rates, and through
// gen_decimal_literal the op-level programs' constants), read exactly by the text and by den:
// dyadic ones, and non-dyadic ones that no binary type holds (0.1, 0.3, 0.00078125 = 1/1280),
// with exponents and long mantissas, so that a reader that rounds cannot go unseen.
const std::vector<std::string> kScales = {"0.5",      "-2.0",     "0.25",    "1.5",    "3.0", "-0.75", "0.1", "-0.3", "0.00078125",
                                          "2.5e-1", "-1.25e+1", "1.0e-05", "0.3333333333333333333", "7.0E-1"};

// The one place literals are drawn: the decimal a literal string field prints (read back
// exactly by parse_literal, so the text and den agree).
std::string draw_literal(Lit kind) {
  switch (kind) {
    case Lit::Scale: return *rc::gen::elementOf(kScales);
    case Lit::Divisor: return *rc::gen::element<std::string>("2.0", "4.0", "0.5");
    case Lit::Epsilon: return *rc::gen::element<std::string>("0.25", "1.0", "0.5");
    case Lit::Clip: return *rc::gen::element<std::string>("1.0", "0.5", "4.0");
    case Lit::Rounding: return "bfloat16";  // the text's f32 -> bf16 -> f32 pair (section 7.7)
  }
  return "1.0";
}

// The string fields of a node, by the row's recipe: a literal where the row says so, else a
// fresh SSA name named after the field ("%w_3" for wName; the underscore keeps it apart from
// the printer's %v<k> and from other fields' names).
std::map<std::string, std::string> strings_for(const char* ctor, Names& names) {
  const CtorSpec& c = *find_constructor(ctor);
  std::map<std::string, std::string> out;
  for (const char* f : c.strings) {
    const auto lit = std::find_if(c.literals.begin(), c.literals.end(), [&](const LiteralField& l) { return std::string(f) == l.field; });
    std::string stem = f;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, "Name") == 0) stem.resize(stem.size() - 4);
    out[f] = lit != c.literals.end() ? draw_literal(lit->kind) : names.fresh((stem + "_").c_str());
  }
  return out;
}

struct Step {
  ExprPtr e;
  Layout layout;
};

// ---- The ViT, ConvNeXt and regulariser rows (docs/lean/transformer-families.md) ----

// A divisor of n >= 1, drawn (a row count that splits a per-example width into rows).
std::int64_t draw_divisor(std::int64_t n) {
  std::vector<std::int64_t> ds;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) ds.push_back(d);
  return *rc::gen::elementOf(ds);
}

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
struct ConvOp {
  const char* name;
  std::int64_t stride;
  bool depthwise, backward;
  std::vector<std::int64_t> kernels;
};

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

bool is_batched_row(const char* name) {
  const auto& nats = find_constructor(name)->nats;
  return std::any_of(nats.begin(), nats.end(), [](const char* n) { return std::string(n) == "N"; });
}

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

// One activation constructor on top of `in`.
// geluF's text uses the decimal 0.7978845608028654 for sqrt(2/pi) (SHLO_SEMANTICS.md 7.9): den
// and the text differ below f32 resolution, so it is generated only where values are not
// compared with den.
thread_local bool g_with_gelu = false;

Step grow(Names& names, Step in, bool transcendental) {
  std::vector<std::string> ops = {"dotIn", "dotOut", "addBcast", "sub", "scaleF", "reluF", "selectPos", "relu6F", "selectMid",
                                  "softmaxDiv"};
  if (transcendental) {
    ops.insert(ops.end(), {"expe", "sigmoidF", "bnF", "bnBack", "convertF"});
    if (g_with_gelu) ops.push_back("geluF");
  }
  ops.insert(ops.end(), {"addV", "gapBack"});
  if (transcendental) ops.insert(ops.end(), {"swishF", "swishBack", "sigmoidBack"});
  if (in.layout.image()) {
    ops.push_back("flatConvF");
    ops.push_back("convBack");
    ops.push_back("maxPoolBack");
    if (in.layout.h % 2 == 0 && in.layout.w % 2 == 0) ops.push_back("maxPoolF");
    const auto conv = conv_names(kConvMaps, in.layout, false);
    ops.insert(ops.end(), conv.begin(), conv.end());
    ops.insert(ops.end(), {"gapF", "broadcastBack", "maxPool3s2Back"});
    if (in.layout.h % 2 == 0 && in.layout.w % 2 == 0) ops.push_back("maxPool3s2F");
    if (transcendental) ops.insert(ops.end(), {"bnPerChannelF", "bnPerChannelBack", "bnPerChannelEvalF"});
  }
  for (const auto& row : transformer_rows({&kActivationRows}, in.layout)) ops.push_back(row);
  if (transcendental) ops.insert(ops.end(), kActivationRowsIrrational.begin(), kActivationRowsIrrational.end());
  if (transcendental && g_with_gelu) ops.insert(ops.end(), kGeluRows.begin(), kGeluRows.end());
  if (in.layout.image()) ops.insert(ops.end(), kImageRows.begin(), kImageRows.end());
  ops.push_back("dotInBf16");  // reduced precision (ast/ctors/low_precision.def)
  if (in.layout.image()) ops.push_back("flatConvFBf16");
  const std::string stem = strided_forward(in.layout, false);
  const std::string op = !stem.empty() ? stem : *rc::gen::elementOf(ops);
  if (is_transformer_row(op)) return transformer_step(names, op, in, 0);
  if (const ConvOp* conv = find_conv_op(op)) return conv_step(names, in, *conv, 0, false);
  const std::int64_t n = in.layout.width;
  if (op == "dotInBf16") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotInBf16", {{"m", n}, {"n", m2}}, {in.e}, strings_for("dotInBf16", names)), {m2}};
  }
  if (op == "flatConvFBf16") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3), oc = *rc::gen::inRange<std::int64_t>(1, 3);
    const Layout L = in.layout;
    return {plan("flatConvFBf16", {{"ic", L.c}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}}, {in.e}, strings_for("flatConvFBf16", names)),
            {oc * L.h * L.w, oc, L.h, L.w}};
  }
  if (op == "dotIn") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotIn", {{"m", n}, {"n", m2}}, {in.e}, strings_for("dotIn", names)), {m2}};
  }
  if (op == "dotOut") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotOut", {{"m", m2}, {"n", n}}, {in.e}, strings_for("dotOut", names)), {m2}};
  }
  if (op == "addBcast") return {plan("addBcast", {{"n", n}}, {in.e}, strings_for("addBcast", names)), in.layout};
  if (op == "sub" || op == "addV") {
    const bool left = *rc::gen::arbitrary<bool>();
    ExprPtr other = leaf(names, n);
    return {plan(op.c_str(), {{"n", n}}, left ? std::vector<ExprPtr>{in.e, other} : std::vector<ExprPtr>{other, in.e}), in.layout};
  }
  if (op == "swishBack" || op == "sigmoidBack") return {plan(op.c_str(), {{"n", n}}, {in.e}, strings_for(op.c_str(), names)), in.layout};
  if (op == "gapBack") {  // the width is the channel count of an image
    const std::int64_t h = *rc::gen::element<std::int64_t>(1, 2), w = *rc::gen::element<std::int64_t>(1, 2);
    return {plan(op.c_str(), {{"c", n}, {"h", h}, {"w", w}}, {in.e}), {n * h * w, n, h, w}};
  }
  if (op == "gapF" || op == "broadcastBack") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}), {L.c}};
  }
  if (op == "bnPerChannelF" || op == "bnPerChannelBack" || op == "bnPerChannelEvalF") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"oc", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for(op.c_str(), names)), L};
  }
  if (op == "maxPool3s2F") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {in.e}), {L.c * L.h * L.w / 4, L.c, L.h / 2, L.w / 2}};
  }
  if (op == "maxPool3s2Back") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for(op.c_str(), names)), {L.c * L.h * L.w * 4, L.c, 2 * L.h, 2 * L.w}};
  }
  // scaleF, the masks, convertF, bnF and bnBack keep the layout; their fields by the recipe.
  if (op == "scaleF" || op == "selectPos" || op == "selectMid" || op == "convertF" || op == "bnF" || op == "bnBack")
    return {plan(op.c_str(), {{"n", n}}, {in.e}, strings_for(op.c_str(), names)), in.layout};
  if (op == "flatConvF" || op == "convBack") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3);  // odd kernels (section 7.2)
    const std::int64_t other = *rc::gen::inRange<std::int64_t>(1, 3);
    const Layout L = in.layout;
    const std::int64_t ic = op == "flatConvF" ? L.c : other, oc = op == "flatConvF" ? other : L.c;
    std::map<std::string, std::int64_t> nats = {{"ic", ic}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}};
    const auto s = strings_for(op.c_str(), names);
    const std::int64_t out_c = op == "flatConvF" ? oc : ic;
    return {plan(op.c_str(), nats, {in.e}, s), {out_c * L.h * L.w, out_c, L.h, L.w}};
  }
  if (op == "maxPoolF") {
    const Layout L = in.layout;
    return {plan("maxPoolF", {{"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {in.e}), {L.c * L.h * L.w / 4, L.c, L.h / 2, L.w / 2}};
  }
  if (op == "maxPoolBack") {
    const Layout L = in.layout;
    return {plan("maxPoolBack", {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for("maxPoolBack", names)),
            {L.c * L.h * L.w * 4, L.c, 2 * L.h, 2 * L.w}};
  }
  return {plan(op.c_str(), {{"n", n}}, {in.e}), in.layout};
}

Step activation(Names& names, bool transcendental) {
  Layout start;
  if (*rc::gen::arbitrary<bool>()) {
    const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 3), h = *rc::gen::element<std::int64_t>(1, 2, 4),
                       w = *rc::gen::element<std::int64_t>(1, 2, 4);
    start = {c * h * w, c, h, w};
  } else {
    start = {*rc::gen::inRange<std::int64_t>(1, 5)};
  }
  Step s{leaf(names, start.width), start};
  const int depth = *rc::gen::inRange(0, 4);
  for (int i = 0; i < depth; ++i) s = grow(names, s, transcendental);
  return s;
}

// A parameter gradient or SGD update on top of an activation (batch 1).
Step parameter(Names& names, Step s, bool transcendental = false) {
  std::vector<std::string> ops = {"none", "weightGrad", "weightSgd", "biasGrad", "biasSgd", "biasGradB"};
  if (s.layout.image()) {
    ops.push_back("convWeightGrad");
    ops.push_back("convBiasGrad");
    ops.push_back("convWeightSgd");
    ops.push_back("convBiasSgd");
    const auto conv = conv_names(kConvGradients, s.layout, false);
    ops.insert(ops.end(), conv.begin(), conv.end());
    ops.insert(ops.end(), {"bnBetaGrad", "bnBetaSgd"});
    if (transcendental) ops.insert(ops.end(), {"bnGammaGrad", "bnGammaSgd"});  // 1/sqrt of the statistics
  }
  for (const auto& row : transformer_rows({&kGradientRows}, s.layout)) ops.push_back(row);
  if (transcendental) ops.insert(ops.end(), kGradientRowsIrrational.begin(), kGradientRowsIrrational.end());
  if (s.layout.image()) ops.insert(ops.end(), kImageGradientRows.begin(), kImageGradientRows.end());
  const std::string op = *rc::gen::elementOf(ops);
  if (is_transformer_row(op)) return transformer_step(names, op, s, 0);
  if (const ConvOp* conv = find_conv_op(op)) return conv_step(names, s, *conv, 0, true);
  const std::int64_t n = s.layout.width;
  if (op == "none") return s;
  if (op == "weightGrad" || op == "weightSgd") {
    const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 4);
    return {plan(op.c_str(), {{"m", m}, {"n", n}}, {s.e}, strings_for(op.c_str(), names)), {m * n}};
  }
  if (op == "biasGrad" || op == "biasSgd") return {plan(op.c_str(), {{"n", n}}, {s.e}, strings_for(op.c_str(), names)), {n}};
  if (op == "biasGradB") return {plan(op.c_str(), {{"N", 1}, {"n", n}}, {s.e}), {n}};  // den = text at N = 1 only
  const Layout L = s.layout;  // the cotangent is the conv (or BN) output (oc = L.c)
  if (op.rfind("bn", 0) == 0) return {plan(op.c_str(), {{"oc", L.c}, {"h", L.h}, {"w", L.w}}, {s.e}, strings_for(op.c_str(), names)), {L.c}};
  const std::int64_t ic = *rc::gen::inRange<std::int64_t>(1, 3), k = *rc::gen::element<std::int64_t>(1, 3);
  std::map<std::string, std::int64_t> nats = {{"ic", ic}, {"oc", L.c}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}};
  const bool weight = op == "convWeightGrad" || op == "convWeightSgd";
  return {plan(op.c_str(), nats, {s.e}, strings_for(op.c_str(), names)), {weight ? L.c * ic * k * k : L.c}};
}

// The shape the text gives a value (batch 1): the parameter shape `ds` of a node above it.
std::vector<std::int64_t> printed_shape(const ExprPtr& e) {
  std::int64_t counter = 0;
  const std::string text = emit(1, *e, counter).text;
  std::vector<std::int64_t> dims;
  const auto at = text.rfind("tensor<");
  if (at == std::string::npos) return {e->length()};  // a leaf prints nothing
  std::size_t i = at + 7;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    std::size_t j = i;
    while (std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    dims.push_back(std::stoll(text.substr(i, j - i)));
    i = j + 1;  // past 'x'
  }
  return dims;
}

// An optimizer node on a parameter-shaped gradient.
ExprPtr optimizer(Names& names, ExprPtr g, bool rational) {
  std::vector<std::string> ops = {"sgdParamF", "momVNextF", "momParamF", "adamMNextF", "adamVNextF", "gradSumSqAccF"};
  if (!rational) ops.insert(ops.end(), {"adamWParamF", "rmsBufNextF", "lambDirF", "clipScaleF", "lambScaleF"});
  const std::string op = *rc::gen::elementOf(ops);
  const std::vector<std::int64_t> ds = printed_shape(g);
  const auto s = strings_for(op.c_str(), names);
  if (find_constructor(op)->arity == Arity::Binary)  // the left operand: a running scalar
    return plan(op.c_str(), {}, {plan("operand", {{"n", 1}}, {}, {{"name", names.fresh("s")}}), std::move(g)}, s, ds);
  return plan(op.c_str(), {}, {std::move(g)}, s, ds);
}

rc::Gen<Rational> small_rational() {
  return rc::gen::map(rc::gen::pair(rc::gen::inRange(-12, 13), rc::gen::element(1, 1, 2, 3, 4, 8)),
                      [](const std::pair<int, int>& p) { return Rational(p.first) / Rational(p.second); });
}

// Values for one field of a node, by the row's recipe (its Draw).
std::vector<Rational> field_values(const Expr& e, const RealField& f) {
  const auto len = static_cast<std::size_t>(eval_length(f.length, e.nats));
  switch (f.draw) {
    case Draw::FromLiteral: return {parse_literal(e.string(f.literal)).value};
    case Draw::Fraction: return {*rc::gen::element(Rational(1, 2), Rational(9, 10), Rational(3, 4))};
    case Draw::Rho: return {*rc::gen::element(Rational(1, 2), Rational(9, 10))};
    case Draw::BiasCorrection: return {*rc::gen::element(Rational(1), Rational(1, 2), Rational(1, 4))};
    case Draw::Epsilon: return {*rc::gen::element(Rational(1, 100), Rational(1, 10))};
    case Draw::WeightDecay: return {*rc::gen::element(Rational(0), Rational(1, 10))};
    case Draw::LearningRate: return {*rc::gen::element(Rational(1, 10), Rational(1, 2), Rational(2))};
    case Draw::Small:
    case Draw::NonNegative:
    case Draw::Distinct: break;
  }
  // A running sum of squares (the left operand of the clipping nodes) is not negative.
  const bool running_sum = e.spec->arity == Arity::Leaf && e.strings.at("name").rfind("%s", 0) == 0;
  std::vector<Rational> v;
  for (std::size_t i = 0; i < len; ++i) {
    Rational q = *small_rational();
    if (f.draw == Draw::Distinct) q += Rational(101 * static_cast<long>(i));
    if ((f.draw == Draw::NonNegative || running_sum) && q < 0) q = -q;
    v.push_back(q);
  }
  return v;
}

ExprPtr fill(const ExprPtr& p) {
  Expr e = *p;
  std::vector<ExprPtr> kids;
  for (const auto& k : p->children) kids.push_back(fill(k));
  e.children = std::move(kids);
  e.reals.clear();
  for (const auto& f : p->spec->reals) e.reals[f.name] = field_values(e, f);
  return make_expr(std::move(e));
}

ExprPtr family_of(Names& names, ExprPtr child_plan, std::int64_t R, bool rational_tail, bool spmd) {
  std::vector<ExprPtr> kids;
  for (std::int64_t r = 0; r < R; ++r) {
    ExprPtr p = child_plan;
    if (!spmd && r == R - 1) p = plan("scaleF", {{"n", child_plan->length()}}, {child_plan}, {{"sStr", "0.5"}});
    kids.push_back(*gen_values(p));
  }
  Expr e;
  e.spec = find_constructor("allReduceMeanF");
  e.strings = {{"t", names.fresh("g").substr(1)}};
  e.ds = printed_shape(child_plan);
  e.replicas = R;
  e.children = kids;
  ExprPtr fam = make_expr(std::move(e));
  if (!*rc::gen::arbitrary<bool>()) return fam;
  // An optimizer tail over the all-reduced gradient (values shared by all replicas).
  ExprPtr tail_plan = optimizer(names, fam, rational_tail);
  Expr t = *fill(tail_plan);
  t.children.back() = fam;  // the gradient is the right (or only) operand
  return make_expr(std::move(t));
}

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
    if (transcendental && g_with_gelu) ops.insert(ops.end(), kBatchedGeluRows.begin(), kBatchedGeluRows.end());
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
    g_with_gelu = with_gelu;
    ExprPtr plan_ = batched_chain(names, allow_transcendental);
    g_with_gelu = false;
    return *gen_values(plan_);
  });
}

rc::Gen<ExprPtr> gen_plan(bool allow_transcendental) {
  return rc::gen::exec([allow_transcendental] {
    Names names;
    Step s = parameter(names, activation(names, allow_transcendental), allow_transcendental);
    if (s.e->spec->arity == Arity::Leaf) s = grow(names, s, allow_transcendental);  // something to print
    if (*rc::gen::inRange(0, 4) == 0) return optimizer(names, s.e, !allow_transcendental);
    return s.e;
  });
}

rc::Gen<ExprPtr> gen_values(const ExprPtr& plan_) {
  return rc::gen::exec([plan_] { return fill(plan_); });
}

rc::Gen<ExprPtr> gen_expr(bool allow_transcendental, bool with_gelu) {
  return rc::gen::exec([allow_transcendental, with_gelu] {
    g_with_gelu = with_gelu;
    ExprPtr plan_ = *gen_plan(allow_transcendental);
    g_with_gelu = false;
    return *gen_values(plan_);
  });
}

rc::Gen<ExprPtr> gen_family(bool rational_tail) {
  return rc::gen::exec([rational_tail] {
    Names names;
    names.next = 1000;  // apart from the child's names
    Names child_names;
    Step s = parameter(child_names, activation(child_names, false));
    if (s.e->spec->arity == Arity::Leaf) s = grow(child_names, s, false);
    return family_of(names, s.e, *rc::gen::inRange<std::int64_t>(1, 9), rational_tail, true);
  });
}

rc::Gen<ExprPtr> gen_non_spmd_family() {
  return rc::gen::exec([] {
    Names names, child_names;
    names.next = 1000;
    Step s = parameter(child_names, activation(child_names, false));
    if (s.e->spec->arity == Arity::Leaf) s = grow(child_names, s, false);
    return family_of(names, s.e, *rc::gen::inRange<std::int64_t>(2, 9), true, false);
  });
}

rc::Gen<std::string> gen_decimal_literal() { return rc::gen::elementOf(kScales); }

}  // namespace shlo::fuzz

namespace shlo::fuzz {

rc::Gen<std::map<std::string, std::string>> gen_strings(const std::string& ctor) {
  return rc::gen::exec([ctor] {
    Names names;
    return strings_for(ctor.c_str(), names);
  });
}

}  // namespace shlo::fuzz
