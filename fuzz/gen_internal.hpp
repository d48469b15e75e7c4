// Internals the generator files share (fuzz/gen.hpp is the interface):
//   fuzz/gen.cpp          literals, string fields, per-example chains, values, SPMD families
//   fuzz/gen_rows.cpp     the row families drawn from tables (ViT, ConvNeXt, regularisers;
//                         strided and depthwise convolutions) and the builder of one node of each
//   fuzz/gen_batched.cpp  the batched set (section 3.9)
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "ast/expr.hpp"

namespace shlo::fuzz::gen_detail {

/// A value's per-example width, and its CHW reading when it is an image.
struct Layout {
  std::int64_t width;
  std::int64_t c = 0, h = 0, w = 0;  // CHW reading, when the value is an image
  bool image() const { return c > 0; }
};

/// Fresh SSA names for the leaves and string fields of one expression.
struct Names {
  int next = 0;
  std::string fresh(const char* prefix) { return std::string("%") + prefix + std::to_string(next++); }
};

/// A skeleton node (no values yet) and an operand leaf of `width` elements under a fresh name.
inline ExprPtr plan(const char* ctor, std::map<std::string, std::int64_t> nats, std::vector<ExprPtr> kids,
                    std::map<std::string, std::string> strings = {}, std::vector<std::int64_t> ds = {}, std::int64_t R = 0) {
  return make_skeleton(ctor, std::move(nats), std::move(kids), std::move(strings), std::move(ds), R);
}

inline ExprPtr leaf(Names& n, std::int64_t width) { return plan("operand", {{"n", width}}, {}, {{"name", n.fresh("a")}}); }

/// A node and the per-example layout of its value.
struct Step {
  ExprPtr e;
  Layout layout;
};

/// The string fields of one node of `ctor`: literals where its row says so, else fresh names.
std::map<std::string, std::string> strings_for(const char* ctor, Names& names);

/// Whether the generators may draw the GELU rows (see fuzz/gen.cpp): false but inside a
/// GeluRows scope that allows them.
bool gelu_rows_allowed();
/// Allows (or not) the GELU rows for the draws made while it lives, on this thread; restores
/// the previous setting when it ends, also when a draw throws (a failed generation throws out of it).
class GeluRows {
 public:
  explicit GeluRows(bool allowed);
  ~GeluRows();
  GeluRows(const GeluRows&) = delete;
  GeluRows& operator=(const GeluRows&) = delete;

 private:
  bool previous_;
};

// ---- fuzz/gen_rows.cpp ----

/// The ViT, ConvNeXt and regulariser rows the generators draw: on an activation
/// (kActivationRows; image: also kImageRows), as the parameter step on top (kGradientRows), and
/// in their batched forms.
extern const std::vector<std::string> kActivationRows, kActivationRowsIrrational, kImageRows, kBatchedRows,
    kBatchedRowsIrrational, kBatchedImageRows, kGeluRows, kBatchedGeluRows, kGradientRows, kGradientRowsIrrational,
    kImageGradientRows, kBatchedGradientRows, kBatchedGradientRowsIrrational, kBatchedImageGradientRows;
bool is_transformer_row(const std::string& op);
/// One of these rows on a value of per-example width in.layout.width (N examples when batched,
/// N = 0 per example); returns the node and the per-example layout after.
Step transformer_step(Names& names, const std::string& op, Step in, std::int64_t N);
/// The rows of `lists` that fit a value of this layout.
std::vector<std::string> transformer_rows(std::initializer_list<const std::vector<std::string>*> lists, const Layout& L);

/// A strided or depthwise convolution row and the kernel sizes where its text is den's.
struct ConvOp {
  const char* name;
  std::int64_t stride;
  bool depthwise, backward;
  std::vector<std::int64_t> kernels;
};
/// Maps take an activation to an activation; gradients end a chain.
extern const std::vector<ConvOp> kConvMaps, kConvGradients;
/// The names of `ops` that apply to an image layout, per example or batched.
std::vector<std::string> conv_names(const std::vector<ConvOp>& ops, const Layout& L, bool batched);
const ConvOp* find_conv_op(const std::string& name);
/// A strided forward to draw on this layout now, or "": draw from the whole list.
std::string strided_forward(const Layout& L, bool batched);
/// One convolution node on `in` (an image layout; N = 0 per example).
Step conv_step(Names& names, const Step& in, const ConvOp& op, std::int64_t N, bool gradient);

}  // namespace shlo::fuzz::gen_detail
