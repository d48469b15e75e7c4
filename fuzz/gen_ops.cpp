#include "fuzz/gen_ops.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "fuzz/gen.hpp"

namespace shlo::fuzz {

namespace {

using Shape = std::vector<std::int64_t>;

// Small tensors keep the exact runs fast: no value above kMaxElements elements.
constexpr std::int64_t kMaxElements = 48;

std::int64_t count(const Shape& s) { return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>()); }

std::string type_of(const Shape& s, const char* element = "f32") {
  std::string t = "tensor<";
  for (auto d : s) t += std::to_string(d) + "x";
  return t + element + ">";
}

std::string join(const Shape& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}
std::string list(const Shape& v) { return "[" + join(v) + "]"; }
std::string i64_array(const Shape& v) { return "array<i64: " + join(v) + ">"; }

std::int64_t draw(std::int64_t lo, std::int64_t hi) { return *rc::gen::inRange<std::int64_t>(lo, hi + 1); }  // lo..hi
bool coin() { return *rc::gen::arbitrary<bool>(); }

// A random permutation of 0..n-1 (any, cycles included).
Shape permutation(std::size_t n) {
  Shape p(n);
  std::iota(p.begin(), p.end(), 0);
  for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[static_cast<std::size_t>(draw(0, static_cast<std::int64_t>(i) - 1))]);
  return p;
}

// A non-empty subset of 0..n-1, increasing.
Shape subset(std::size_t n) {
  Shape s;
  for (std::size_t d = 0; d < n; ++d)
    if (coin()) s.push_back(static_cast<std::int64_t>(d));
  if (s.empty()) s.push_back(draw(0, static_cast<std::int64_t>(n) - 1));
  return s;
}

Shape random_shape(std::size_t rank) {
  Shape s;
  for (std::size_t d = 0; d < rank; ++d) s.push_back(draw(1, 3));
  return s;
}

// A region `^bb0(%a, %b): %r = op %a, %b; return %r` over f32 scalars.
std::string scalar_region(const std::string& prefix, const std::string& op) {
  const std::string a = "%" + prefix + "a", b = "%" + prefix + "b";
  return "{\n      ^bb0(" + a + ": tensor<f32>, " + b + ": tensor<f32>):\n        %" + prefix + "r = " + op + " " + a + ", " + b +
         " : tensor<f32>\n        stablehlo.return %" + prefix + "r : tensor<f32>\n    }";
}

struct Val {
  std::string name;
  Shape shape;
};

class Builder {
 public:
  explicit Builder(bool infinities) : infinities_(infinities) { tc.inputs.resize(1); }

  TextCase tc;
  std::vector<Val> vals;
  std::string body, signature;

  std::string fresh() { return "%t" + std::to_string(next_++); }
  Val add(const std::string& line, Shape shape) {
    const std::string name = fresh();
    body += "    " + name + " = " + line + "\n";
    vals.push_back({name, std::move(shape)});
    return vals.back();
  }

  // A new function argument with small rational inputs (thirds and fifths included).
  Val argument(Shape shape) {
    const std::string name = "%in" + std::to_string(arguments_++);
    signature += (signature.empty() ? "" : ", ") + name + ": " + type_of(shape);
    tc.argument_order.push_back(name);
    std::vector<Rational> v;
    for (std::int64_t i = 0; i < count(shape); ++i)
      v.push_back(Rational(*rc::gen::inRange(-9, 10)) / Rational(*rc::gen::element(1, 2, 3, 5, 10)));
    tc.inputs[0][name] = std::move(v);
    vals.push_back({name, shape});
    return vals.back();
  }

  // A value of this shape: one already defined, or a new argument.
  Val of_shape(const Shape& shape) {
    std::vector<Val> same;
    for (const auto& v : vals)
      if (v.shape == shape) same.push_back(v);
    if (same.empty() || *rc::gen::inRange(0, 4) == 0) return argument(shape);
    return *rc::gen::elementOf(same);
  }

  // Any value of rank at least 1.
  Val any() {
    std::vector<Val> ranked;
    for (const auto& v : vals)
      if (!v.shape.empty()) ranked.push_back(v);
    if (ranked.empty()) return argument(random_shape(static_cast<std::size_t>(draw(1, 3))));
    return *rc::gen::elementOf(ranked);
  }

  // A constant of this shape: a splat or a dense list of decimal literals (non-dyadic too).
  std::string constant(const Shape& shape) {
    std::string literal;
    if (shape.empty() || coin()) {
      literal = *gen_decimal_literal();
    } else {
      std::function<std::string(std::size_t)> nest = [&](std::size_t depth) {
        if (depth == shape.size()) return *gen_decimal_literal();
        std::string s = "[";
        for (std::int64_t i = 0; i < shape[depth]; ++i) s += (i ? ", " : "") + nest(depth + 1);
        return s + "]";
      };
      literal = nest(0);
    }
    return add("stablehlo.constant dense<" + literal + "> : " + type_of(shape), shape).name;
  }
  // A rank-0 init or padding value: a decimal literal, or (with infinities) -inf as hex.
  std::string scalar_init(bool allow_neg_inf) {
    if (allow_neg_inf && infinities_ && coin()) return add("stablehlo.constant dense<0xFF800000> : tensor<f32>", {}).name;
    return constant({});
  }

 private:
  bool infinities_;
  int next_ = 0, arguments_ = 0;
};

std::string functional(const std::vector<Shape>& operands, const Shape& result) {
  std::string s = " : (";
  for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? ", " : "") + type_of(operands[i]);
  return s + ") -> " + type_of(result);
}

// --- one op each ----------------------------------------------------------------------------

void iota(Builder& b) {
  const Shape shape = random_shape(static_cast<std::size_t>(draw(1, 3)));
  b.add("stablehlo.iota dim = " + std::to_string(draw(0, static_cast<std::int64_t>(shape.size()) - 1)) + " : " + type_of(shape), shape);
}

// On the one replica the programs run on, all_reduce is the identity; its text (region,
// replica_groups) is what the printer must keep.
void all_reduce(Builder& b) {
  const Val x = *rc::gen::elementOf(b.vals);
  const std::string body = *rc::gen::element<std::string>("add", "maximum", "minimum");
  b.add("\"stablehlo.all_reduce\"(" + x.name + ") (" + scalar_region("ar", "stablehlo." + body) +
            ") { replica_groups = dense<[[0]]> : tensor<1x1xi64> }" + functional({x.shape}, x.shape),
        x.shape);
}

void elementwise_binary(Builder& b, const std::string& op) {
  const Val x = *rc::gen::elementOf(b.vals);
  const Val y = b.of_shape(x.shape);
  b.add("stablehlo." + op + " " + x.name + ", " + y.name + " : " + type_of(x.shape), x.shape);
}

void elementwise_unary(Builder& b, const std::string& op) {
  const Val x = *rc::gen::elementOf(b.vals);
  if (op == "sqrt" || op == "log" || op == "rsqrt" || op == "divide") {  // of (by) |x| + 1: inside the real domain
    const std::string t = type_of(x.shape);
    const Val a = b.add("stablehlo.abs " + x.name + " : " + t, x.shape);
    const Val one = b.add("stablehlo.constant dense<1.0> : " + t, x.shape);
    const Val p = b.add("stablehlo.add " + a.name + ", " + one.name + " : " + t, x.shape);
    if (op == "divide") b.add("stablehlo.divide " + b.of_shape(x.shape).name + ", " + p.name + " : " + t, x.shape);
    else b.add("stablehlo." + op + " " + p.name + " : " + t, x.shape);
    return;
  }
  b.add("stablehlo." + op + " " + x.name + " : " + type_of(x.shape), x.shape);
}

void compare_select(Builder& b) {
  const Val x = *rc::gen::elementOf(b.vals);
  const Val y = b.of_shape(x.shape);
  const std::string direction = *rc::gen::element<std::string>("EQ", "NE", "LT", "LE", "GT", "GE");
  const Val c = b.add("stablehlo.compare " + direction + ", " + x.name + ", " + y.name + " : (" + type_of(x.shape) + ", " +
                          type_of(x.shape) + ") -> " + type_of(x.shape, "i1"),
                      x.shape);
  b.vals.pop_back();  // an i1 value: not an operand for the f32 ops
  b.add("stablehlo.select " + c.name + ", " + x.name + ", " + y.name + " : " + type_of(x.shape, "i1") + ", " + type_of(x.shape), x.shape);
}

void transpose(Builder& b) {
  const Val x = b.any();
  const Shape perm = permutation(x.shape.size());
  Shape out;
  for (auto p : perm) out.push_back(x.shape[static_cast<std::size_t>(p)]);
  b.add("stablehlo.transpose " + x.name + ", dims = " + list(perm) + functional({x.shape}, out), out);
}

void reverse(Builder& b) {
  const Val x = b.any();
  b.add("stablehlo.reverse " + x.name + ", dims = " + list(subset(x.shape.size())) + " : " + type_of(x.shape), x.shape);
}

void slice(Builder& b) {
  const Val x = b.any();
  std::string ranges;
  Shape out;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    const auto start = draw(0, x.shape[d] - 1), limit = draw(start + 1, x.shape[d]), stride = draw(1, 3);
    ranges += (d ? ", " : "") + std::to_string(start) + ":" + std::to_string(limit) + (stride > 1 ? ":" + std::to_string(stride) : "");
    out.push_back((limit - start + stride - 1) / stride);
  }
  b.add("stablehlo.slice " + x.name + " [" + ranges + "]" + functional({x.shape}, out), out);
}

void pad(Builder& b) {
  const Val x = b.any();
  const std::string value = b.scalar_init(false);
  Shape low, high, interior, out;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    std::int64_t lo = draw(-1, 2), hi = draw(-1, 2), in = draw(0, 2);
    if (lo + (x.shape[d] - 1) * (in + 1) + 1 + hi < 1) lo = hi = 0;  // no empty dimension
    low.push_back(lo);
    high.push_back(hi);
    interior.push_back(in);
    out.push_back(lo + (x.shape[d] - 1) * (in + 1) + 1 + hi);
  }
  if (count(out) > kMaxElements) return;
  b.add("stablehlo.pad " + x.name + ", " + value + ", low = " + list(low) + ", high = " + list(high) + ", interior = " + list(interior) +
            functional({x.shape, {}}, out),
        out);
}

void concatenate(Builder& b) {
  const Val x = b.any();
  const auto dim = static_cast<std::size_t>(draw(0, static_cast<std::int64_t>(x.shape.size()) - 1));
  std::vector<Val> parts = {x};
  const std::int64_t more = draw(1, 2);
  for (std::int64_t k = 0; k < more; ++k) {
    Shape s = x.shape;
    s[dim] = draw(1, 3);
    parts.push_back(b.of_shape(s));
  }
  Shape out = x.shape;
  out[dim] = 0;
  std::string names;
  std::vector<Shape> shapes;
  for (const auto& p : parts) {
    out[dim] += p.shape[dim];
    names += (names.empty() ? "" : ", ") + p.name;
    shapes.push_back(p.shape);
  }
  if (count(out) > kMaxElements) return;
  b.add("stablehlo.concatenate " + names + ", dim = " + std::to_string(dim) + functional(shapes, out), out);
}

void broadcast_in_dim(Builder& b) {
  const Val x = *rc::gen::elementOf(b.vals);  // rank 0 too
  if (x.shape.size() >= 4) return;
  const std::size_t rank = x.shape.size() + static_cast<std::size_t>(draw(0, 2 - static_cast<std::int64_t>(x.shape.size() == 3)));
  // The operand's dimensions go to distinct result dimensions, in any order.
  const Shape places = permutation(rank);
  Shape dims(places.begin(), places.begin() + static_cast<std::ptrdiff_t>(x.shape.size()));
  Shape out = random_shape(rank);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (x.shape[i] != 1 || coin()) out[static_cast<std::size_t>(dims[i])] = x.shape[i];  // a size-1 dimension may expand
  if (count(out) > kMaxElements) return;
  b.add("stablehlo.broadcast_in_dim " + x.name + ", dims = " + list(dims) + functional({x.shape}, out), out);
}

void reshape(Builder& b) {
  const Val x = *rc::gen::elementOf(b.vals);
  std::int64_t left = count(x.shape);
  const std::int64_t rank = draw(1, 4);
  Shape out;
  for (std::int64_t d = 0; d + 1 < rank; ++d) {
    Shape divisors;
    for (std::int64_t k = 1; k <= left; ++k)
      if (left % k == 0) divisors.push_back(k);
    out.push_back(*rc::gen::elementOf(divisors));
    left /= out.back();
  }
  out.push_back(left);
  b.add("stablehlo.reshape " + x.name + functional({x.shape}, out), out);
}

void reduce(Builder& b) {
  const Val x = b.any();
  const std::string body = *rc::gen::element<std::string>("add", "maximum", "minimum");
  const std::string init = body == "add" ? b.add("stablehlo.constant dense<0.0> : tensor<f32>", {}).name : b.scalar_init(true);
  const Shape dims = subset(x.shape.size());
  Shape out;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) == dims.end()) out.push_back(x.shape[d]);
  b.add("stablehlo.reduce(" + x.name + " init: " + init + ") applies stablehlo." + body + " across dimensions = " + list(dims) +
            functional({x.shape, {}}, out),
        out);
}

// dot_general: batching dimensions, several contracting dimensions in any order (or none),
// and the rhs's dimensions in any order.
void dot_general(Builder& b) {
  const Val x = b.any();
  const std::size_t r = x.shape.size();
  const Shape roles = permutation(r);  // the first nb are batching, the next nc contracting
  const auto nb = static_cast<std::size_t>(draw(0, static_cast<std::int64_t>(r) - 1));
  const auto nc = static_cast<std::size_t>(draw(0, static_cast<std::int64_t>(r - nb)));
  const Shape lhs_batch(roles.begin(), roles.begin() + static_cast<std::ptrdiff_t>(nb));
  const Shape lhs_contract(roles.begin() + static_cast<std::ptrdiff_t>(nb), roles.begin() + static_cast<std::ptrdiff_t>(nb + nc));
  const std::size_t rhs_free = static_cast<std::size_t>(draw(0, 2 - static_cast<std::int64_t>(nb + nc >= 3)));
  const std::size_t rhs_rank = nb + nc + rhs_free;
  const Shape place = permutation(rhs_rank);  // where each batching, contracting, free dimension sits in the rhs
  Shape rhs_shape(rhs_rank), rhs_batch, rhs_contract;
  for (std::size_t i = 0; i < nb; ++i) {
    rhs_batch.push_back(place[i]);
    rhs_shape[static_cast<std::size_t>(place[i])] = x.shape[static_cast<std::size_t>(lhs_batch[i])];
  }
  for (std::size_t i = 0; i < nc; ++i) {
    rhs_contract.push_back(place[nb + i]);
    rhs_shape[static_cast<std::size_t>(place[nb + i])] = x.shape[static_cast<std::size_t>(lhs_contract[i])];
  }
  for (std::size_t i = nb + nc; i < rhs_rank; ++i) rhs_shape[static_cast<std::size_t>(place[i])] = draw(1, 3);
  Shape out;
  for (auto d : lhs_batch) out.push_back(x.shape[static_cast<std::size_t>(d)]);
  for (std::size_t d = 0; d < r; ++d)
    if (std::find(roles.begin(), roles.begin() + static_cast<std::ptrdiff_t>(nb + nc), static_cast<std::int64_t>(d)) ==
        roles.begin() + static_cast<std::ptrdiff_t>(nb + nc))
      out.push_back(x.shape[d]);
  for (std::size_t d = 0; d < rhs_rank; ++d)
    if (std::find(place.begin(), place.begin() + static_cast<std::ptrdiff_t>(nb + nc), static_cast<std::int64_t>(d)) ==
        place.begin() + static_cast<std::ptrdiff_t>(nb + nc))
      out.push_back(rhs_shape[d]);
  if (count(out) > kMaxElements || out.size() > 4) return;
  const Val y = b.of_shape(rhs_shape);
  b.add("stablehlo.dot_general " + x.name + ", " + y.name + ", " +
            (nb ? "batching_dims = " + list(lhs_batch) + " x " + list(rhs_batch) + ", " : std::string()) + "contracting_dims = " +
            list(lhs_contract) + " x " + list(rhs_contract) + functional({x.shape, rhs_shape}, out),
        out);
}

// The labels of one side of convolution dimension numbers, from a layout (where each of the
// two named dimensions and the spatial ones sit).
std::string conv_labels(const Shape& where, char first, char second) {
  std::vector<std::string> labels(where.size());
  labels[static_cast<std::size_t>(where[0])] = std::string(1, first);
  labels[static_cast<std::size_t>(where[1])] = std::string(1, second);
  for (std::size_t s = 2; s < where.size(); ++s) labels[static_cast<std::size_t>(where[s])] = std::to_string(s - 2);
  std::string out = "[";
  for (std::size_t i = 0; i < labels.size(); ++i) out += (i ? ", " : "") + labels[i];
  return out + "]";
}

Shape laid_out(const Shape& where, const Shape& canonical) {  // canonical = [first, second, spatial...]
  Shape s(where.size());
  for (std::size_t k = 0; k < where.size(); ++k) s[static_cast<std::size_t>(where[k])] = canonical[k];
  return s;
}

// convolution: 1 or 2 spatial dimensions in any layout, strides, asymmetric and negative
// padding, lhs and rhs dilation, feature or batch groups.
void convolution(Builder& b) {
  const std::size_t spatial = static_cast<std::size_t>(draw(1, 2));
  const int mode = *rc::gen::inRange(0, 3);  // 0: plain, 1: feature groups, 2: batch groups
  const std::int64_t fg = mode == 1 ? 2 : 1, bg = mode == 2 ? 2 : 1;
  const std::int64_t batch = draw(1, 2) * bg, cg = draw(1, 2), features = cg * fg, out_features = draw(1, 2) * fg * bg;
  Shape in_canon = {batch, features}, k_canon = {out_features, cg}, out_canon = {batch / bg, out_features};
  std::string stride, pads, lhs_dil, rhs_dil;
  for (std::size_t s = 0; s < spatial; ++s) {
    const std::int64_t n = draw(1, 4), k = draw(1, 3), st = draw(1, 2), ld = draw(1, 2), rd = draw(1, 2);
    std::int64_t lo = draw(-1, 2), hi = draw(-1, 2);
    const std::int64_t window = (k - 1) * rd + 1, dilated = (n - 1) * ld + 1;
    if (lo + dilated + hi < window) lo = hi = window;  // at least one window
    const std::int64_t windows = (lo + dilated + hi - window) / st + 1;
    in_canon.push_back(n);
    k_canon.push_back(k);
    out_canon.push_back(windows);
    const std::string sep = s ? ", " : "";
    stride += sep + std::to_string(st);
    pads += sep + "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    lhs_dil += sep + std::to_string(ld);
    rhs_dil += sep + std::to_string(rd);
  }
  if (count(out_canon) > kMaxElements || count(in_canon) > kMaxElements) return;
  const std::size_t rank = spatial + 2;
  const Shape in_where = coin() ? permutation(rank) : Shape{}, k_where = coin() ? permutation(rank) : Shape{},
              out_where = coin() ? permutation(rank) : Shape{};
  Shape identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  const Shape& iw = in_where.empty() ? identity : in_where;
  const Shape& kw = k_where.empty() ? identity : k_where;
  const Shape& ow = out_where.empty() ? identity : out_where;
  const Shape in_shape = laid_out(iw, in_canon), k_shape = laid_out(kw, k_canon), out_shape = laid_out(ow, out_canon);
  const Val lhs = b.of_shape(in_shape);
  const std::string kernel = coin() ? b.constant(k_shape) : b.of_shape(k_shape).name;
  b.add("stablehlo.convolution(" + lhs.name + ", " + kernel + ")\n      dim_numbers = " + conv_labels(iw, 'b', 'f') + "x" +
            conv_labels(kw, 'o', 'i') + "->" + conv_labels(ow, 'b', 'f') + ",\n      window = {stride = [" + stride + "], pad = [" + pads +
            "], lhs_dilate = [" + lhs_dil + "], rhs_dilate = [" + rhs_dil + "]}\n      {batch_group_count = " + std::to_string(bg) +
            " : i64, feature_group_count = " + std::to_string(fg) + " : i64}" + functional({in_shape, k_shape}, out_shape),
        out_shape);
}

// The window attributes of reduce_window and select_and_scatter: window sizes, strides,
// padding and (reduce_window only) base and window dilations.
struct Window {
  Shape dims, strides, base, dilations, windows;
  std::vector<std::pair<std::int64_t, std::int64_t>> padding;
  std::string attributes() const {
    std::string pairs;
    for (std::size_t i = 0; i < padding.size(); ++i)
      pairs += (i ? ", [" : "[") + std::to_string(padding[i].first) + ", " + std::to_string(padding[i].second) + "]";
    std::string s = "{";
    if (!base.empty()) s += "base_dilations = " + i64_array(base) + ", ";
    s += "padding = dense<[" + pairs + "]> : tensor<" + std::to_string(padding.size()) + "x2xi64>, ";
    if (!dilations.empty()) s += "window_dilations = " + i64_array(dilations) + ", ";
    return s + "window_dimensions = " + i64_array(dims) + ", window_strides = " + i64_array(strides) + "}";
  }
};

Window draw_window(const Shape& input, bool dilations) {
  Window w;
  for (std::size_t d = 0; d < input.size(); ++d) {
    const std::int64_t base = dilations ? draw(1, 2) : 1, dil = dilations ? draw(1, 2) : 1;
    const std::int64_t padded_input = (input[d] - 1) * base + 1;
    std::int64_t lo = draw(0, 2), hi = draw(0, 2);
    std::int64_t size = draw(1, 3);
    while (size > 1 && (size - 1) * dil + 1 > lo + padded_input + hi) --size;
    const std::int64_t window = (size - 1) * dil + 1;
    if (window > lo + padded_input + hi) lo = hi = 0;
    w.dims.push_back(size);
    w.strides.push_back(draw(1, 2));
    w.base.push_back(base);
    w.dilations.push_back(dil);
    w.padding.push_back({lo, hi});
    w.windows.push_back((lo + padded_input + hi - window) / w.strides.back() + 1);
  }
  if (!dilations) w.base.clear(), w.dilations.clear();
  return w;
}

void reduce_window(Builder& b) {
  const Val x = b.any();
  const Window w = draw_window(x.shape, true);
  if (count(w.windows) > kMaxElements) return;
  const std::string body = *rc::gen::element<std::string>("add", "maximum", "minimum");
  const std::string init = body == "add" ? b.add("stablehlo.constant dense<0.0> : tensor<f32>", {}).name : b.scalar_init(true);
  b.add("\"stablehlo.reduce_window\"(" + x.name + ", " + init + ") (" +
            scalar_region("rw", "stablehlo." + body) + ") " + w.attributes() + functional({x.shape, {}}, w.windows),
        w.windows);
}

void select_and_scatter(Builder& b) {
  const Val x = b.any();
  const Window w = draw_window(x.shape, false);
  const Val source = b.of_shape(w.windows);
  const std::string init = b.constant({});
  const std::string direction = *rc::gen::element<std::string>("GE", "GT", "LE", "LT");
  const std::string select = "{\n      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):\n        %sc = stablehlo.compare " + direction +
                             ", %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>\n        stablehlo.return %sc : tensor<i1>\n    }";
  b.add("\"stablehlo.select_and_scatter\"(" + x.name + ", " + source.name + ", " + init + ") (" + select + ", " +
            scalar_region("ss", "stablehlo.add") + ") " + w.attributes() + functional({x.shape, w.windows, {}}, x.shape),
        x.shape);
}

}  // namespace

rc::Gen<TextCase> gen_op_program(bool transcendental, bool float_ops, bool infinities) {
  return rc::gen::exec([transcendental, float_ops, infinities] {
    Builder b(infinities || float_ops);
    const int args = *rc::gen::inRange(1, 4);
    for (int a = 0; a < args; ++a) b.argument(random_shape(static_cast<std::size_t>(draw(1, 4))));
    std::vector<std::string> ops = {"add",     "subtract",    "multiply", "maximum", "minimum",          "negate",
                                    "abs",     "transpose",   "reverse",  "slice",   "pad",              "concatenate",
                                    "reshape", "broadcast_in_dim",        "reduce",  "dot_general",      "convolution",
                                    "reduce_window", "iota",           "all_reduce"};
    if (transcendental) ops.insert(ops.end(), {"exponential", "logistic", "tanh", "sqrt"});
    if (float_ops) ops.insert(ops.end(), {"divide", "log", "rsqrt", "compare_select", "select_and_scatter"});
    const int steps = *rc::gen::inRange(1, 8);
    for (int s = 0; s < steps; ++s) {
      const std::string op = *rc::gen::elementOf(ops);
      if (op == "add" || op == "subtract" || op == "multiply" || op == "maximum" || op == "minimum") elementwise_binary(b, op);
      else if (op == "compare_select") compare_select(b);
      else if (op == "transpose") transpose(b);
      else if (op == "reverse") reverse(b);
      else if (op == "slice") slice(b);
      else if (op == "pad") pad(b);
      else if (op == "concatenate") concatenate(b);
      else if (op == "reshape") reshape(b);
      else if (op == "broadcast_in_dim") broadcast_in_dim(b);
      else if (op == "reduce") reduce(b);
      else if (op == "dot_general") dot_general(b);
      else if (op == "convolution") convolution(b);
      else if (op == "reduce_window") reduce_window(b);
      else if (op == "select_and_scatter") select_and_scatter(b);
      else if (op == "iota") iota(b);
      else if (op == "all_reduce") all_reduce(b);
      else elementwise_unary(b, op);
    }
    const Val& last = b.vals.back();
    b.tc.text = "module @m {\n  func.func @ops(" + b.signature + ") -> " + type_of(last.shape) + " {\n" + b.body + "    return " +
                last.name + " : " + type_of(last.shape) + "\n  }\n}\n";
    return b.tc;
  });
}

// --- what was drawn -----------------------------------------------------------------------

namespace {

struct AttributeRule {
  Op op;
  std::string name;
  std::function<bool(const Instruction&)> drawn;
};

bool any_of(const Shape& v, const std::function<bool(std::int64_t)>& f) { return std::any_of(v.begin(), v.end(), f); }
bool increasing(const Shape& v) { return std::is_sorted(v.begin(), v.end()); }
bool identity(const Shape& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}
// A permutation that is not its own inverse has a cycle of length 3 or more.
bool has_long_cycle(const Shape& p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[static_cast<std::size_t>(p[i])] != static_cast<std::int64_t>(i)) return true;
  return false;
}
std::size_t rank0(const Instruction& i) { return i.operand_types.empty() ? 0 : i.operand_types[0].shape.size(); }

const std::vector<AttributeRule>& rules() {
  static const std::vector<AttributeRule> table = [] {
    std::vector<AttributeRule> t;
    auto add = [&](Op op, std::string name, std::function<bool(const Instruction&)> f) { t.push_back({op, std::move(name), std::move(f)}); };
    for (std::size_t r = 1; r <= 4; ++r) add(Op::Transpose, "rank " + std::to_string(r), [r](const Instruction& i) { return rank0(i) == r; });
    add(Op::Transpose, "identity", [](const Instruction& i) { return identity(i.attributes.dimensions); });
    add(Op::Transpose, "swap (own inverse)", [](const Instruction& i) {
      return !identity(i.attributes.dimensions) && !has_long_cycle(i.attributes.dimensions);
    });
    add(Op::Transpose, "cycle (not own inverse)", [](const Instruction& i) { return has_long_cycle(i.attributes.dimensions); });
    add(Op::Reverse, "one dim", [](const Instruction& i) { return i.attributes.dimensions.size() == 1; });
    add(Op::Reverse, "several dims", [](const Instruction& i) { return i.attributes.dimensions.size() > 1; });
    add(Op::Slice, "start > 0", [](const Instruction& i) { return any_of(i.attributes.start_indices, [](auto v) { return v > 0; }); });
    add(Op::Slice, "limit < size", [](const Instruction& i) {
      for (std::size_t d = 0; d < i.attributes.limit_indices.size(); ++d)
        if (i.attributes.limit_indices[d] < i.operand_types[0].shape[d]) return true;
      return false;
    });
    add(Op::Slice, "stride > 1", [](const Instruction& i) { return any_of(i.attributes.strides, [](auto v) { return v > 1; }); });
    add(Op::Pad, "negative low", [](const Instruction& i) { return any_of(i.attributes.edge_padding_low, [](auto v) { return v < 0; }); });
    add(Op::Pad, "negative high", [](const Instruction& i) { return any_of(i.attributes.edge_padding_high, [](auto v) { return v < 0; }); });
    add(Op::Pad, "asymmetric", [](const Instruction& i) { return i.attributes.edge_padding_low != i.attributes.edge_padding_high; });
    add(Op::Pad, "interior", [](const Instruction& i) { return any_of(i.attributes.interior_padding, [](auto v) { return v > 0; }); });
    for (std::int64_t d = 0; d < 4; ++d)
      add(Op::Concatenate, "dim " + std::to_string(d), [d](const Instruction& i) { return i.attributes.dimension == d; });
    add(Op::Concatenate, "3 operands", [](const Instruction& i) { return i.operands.size() >= 3; });
    add(Op::BroadcastInDim, "from rank 0", [](const Instruction& i) { return rank0(i) == 0; });
    add(Op::BroadcastInDim, "adds dims", [](const Instruction& i) { return i.result_type.shape.size() > rank0(i); });
    add(Op::BroadcastInDim, "dims not increasing", [](const Instruction& i) { return !increasing(i.attributes.dimensions); });
    add(Op::BroadcastInDim, "size-1 expansion", [](const Instruction& i) {
      for (std::size_t d = 0; d < i.attributes.dimensions.size(); ++d)
        if (i.operand_types[0].shape[d] == 1 && i.result_type.shape[static_cast<std::size_t>(i.attributes.dimensions[d])] > 1) return true;
      return false;
    });
    add(Op::Reshape, "rank changes", [](const Instruction& i) { return rank0(i) != i.result_type.shape.size(); });
    for (const char* body : {"add", "maximum", "minimum"}) {
      add(Op::Reduce, std::string("body ") + body, [body](const Instruction& i) { return op_name(*i.attributes.reduce_body) == std::string(body); });
      add(Op::ReduceWindow, std::string("body ") + body, [body](const Instruction& i) {
        return !i.regions.empty() && !i.regions[0].body.empty() && op_name(i.regions[0].body[0].op) == std::string(body);
      });
    }
    add(Op::Reduce, "several dims", [](const Instruction& i) { return i.attributes.dimensions.size() > 1; });
    add(Op::Reduce, "all dims (to rank 0)", [](const Instruction& i) { return i.result_type.shape.empty(); });
    add(Op::DotGeneral, "batching dims", [](const Instruction& i) { return !i.attributes.lhs_batching_dimensions.empty(); });
    add(Op::DotGeneral, "no contracting dim", [](const Instruction& i) { return i.attributes.lhs_contracting_dimensions.empty(); });
    add(Op::DotGeneral, "several contracting dims", [](const Instruction& i) { return i.attributes.lhs_contracting_dimensions.size() > 1; });
    add(Op::DotGeneral, "dims listed out of order", [](const Instruction& i) {
      const auto& a = i.attributes;
      return !increasing(a.lhs_contracting_dimensions) || !increasing(a.rhs_contracting_dimensions) ||
             !increasing(a.lhs_batching_dimensions) || !increasing(a.rhs_batching_dimensions);
    });
    for (std::size_t s = 1; s <= 2; ++s)
      add(Op::Convolution, std::to_string(s) + " spatial dims", [s](const Instruction& i) { return i.attributes.conv.input_spatial.size() == s; });
    add(Op::Convolution, "stride > 1", [](const Instruction& i) { return any_of(i.attributes.window_strides, [](auto v) { return v > 1; }); });
    add(Op::Convolution, "asymmetric padding", [](const Instruction& i) {
      for (const auto& p : i.attributes.padding)
        if (p.first != p.second) return true;
      return false;
    });
    add(Op::Convolution, "negative padding", [](const Instruction& i) {
      for (const auto& p : i.attributes.padding)
        if (p.first < 0 || p.second < 0) return true;
      return false;
    });
    add(Op::Convolution, "lhs dilation", [](const Instruction& i) { return any_of(i.attributes.lhs_dilation, [](auto v) { return v > 1; }); });
    add(Op::Convolution, "rhs dilation", [](const Instruction& i) { return any_of(i.attributes.rhs_dilation, [](auto v) { return v > 1; }); });
    add(Op::Convolution, "feature_group_count > 1", [](const Instruction& i) { return i.attributes.feature_group_count > 1; });
    add(Op::Convolution, "batch_group_count > 1", [](const Instruction& i) { return i.attributes.batch_group_count > 1; });
    add(Op::Convolution, "non-canonical layout", [](const Instruction& i) {
      const auto& c = i.attributes.conv;
      return c.input_batch != 0 || c.input_feature != 1 || c.kernel_output_feature != 0 || c.kernel_input_feature != 1 ||
             c.output_batch != 0 || c.output_feature != 1;
    });
    for (Op op : {Op::ReduceWindow, Op::SelectAndScatter}) {
      add(op, "window > 1", [](const Instruction& i) { return any_of(i.attributes.window_dimensions, [](auto v) { return v > 1; }); });
      add(op, "stride > 1", [](const Instruction& i) { return any_of(i.attributes.window_strides, [](auto v) { return v > 1; }); });
      add(op, "padding", [](const Instruction& i) {
        for (const auto& p : i.attributes.padding)
          if (p.first || p.second) return true;
        return false;
      });
      add(op, "asymmetric padding", [](const Instruction& i) {
        for (const auto& p : i.attributes.padding)
          if (p.first != p.second) return true;
        return false;
      });
    }
    add(Op::ReduceWindow, "base dilation", [](const Instruction& i) { return any_of(i.attributes.base_dilations, [](auto v) { return v > 1; }); });
    add(Op::ReduceWindow, "window dilation", [](const Instruction& i) { return any_of(i.attributes.window_dilations, [](auto v) { return v > 1; }); });
    for (const char* d : {"GE", "GT", "LE", "LT"})
      add(Op::SelectAndScatter, std::string("select ") + d, [d](const Instruction& i) {
        return !i.regions.empty() && !i.regions[0].body.empty() && i.regions[0].body[0].attributes.comparison_direction == d;
      });
    for (std::int64_t d = 0; d < 3; ++d)
      add(Op::Iota, "dim " + std::to_string(d), [d](const Instruction& i) { return i.attributes.dimension == d; });
    for (const char* d : {"EQ", "NE", "LT", "LE", "GT", "GE"})
      add(Op::Compare, d, [d](const Instruction& i) { return i.attributes.comparison_direction == d; });
    add(Op::Constant, "dense list", [](const Instruction& i) { return !i.attributes.literal.splat; });
    auto literal_has = [](const Instruction& i, const std::function<bool(const std::string&)>& f) {
      return std::any_of(i.attributes.literal.elements.begin(), i.attributes.literal.elements.end(), f);
    };
    add(Op::Constant, "hex literal", [literal_has](const Instruction& i) { return literal_has(i, [](const std::string& s) { return s.rfind("0x", 0) == 0; }); });
    add(Op::Constant, "exponent", [literal_has](const Instruction& i) {
      return literal_has(i, [](const std::string& s) { return s.rfind("0x", 0) != 0 && s.find_first_of("eE") != std::string::npos; });
    });
    add(Op::Constant, "non-dyadic decimal", [literal_has](const Instruction& i) {
      // A decimal with a factor 5 left in its denominator: 0.1, 0.3, 0.00078125 = 1/1280.
      return literal_has(i, [](const std::string& s) {
        if (s.rfind("0x", 0) == 0) return false;
        const Literal l = parse_literal(s);
        if (l.kind != Literal::Kind::Finite) return false;
        Integer den = boost::multiprecision::denominator(l.value);
        while (den % 2 == 0) den /= 2;
        return den != 1;
      });
    });
    return t;
  }();
  return table;
}

}  // namespace

std::vector<std::string> drawn_attributes(const Instruction& inst) {
  std::vector<std::string> out;
  for (const auto& r : rules())
    if (r.op == inst.op && r.drawn(inst)) out.push_back(r.name);
  return out;
}

std::vector<std::pair<std::string, std::string>> attribute_table() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : rules()) out.emplace_back(op_name(r.op), r.name);
  return out;
}

}  // namespace shlo::fuzz
