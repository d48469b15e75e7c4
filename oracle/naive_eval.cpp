#include "oracle/naive_eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "interp/domain/rational.hpp"

namespace shlo {

namespace {

using Index = std::vector<std::int64_t>;

// A value: row-major data; an i1 value keeps 0 and 1 in the same storage.
template <class T>
struct Naive {
  Index shape;
  std::vector<T> data;
};

std::int64_t elements(const Index& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Index unravel_index(const Index& shape, std::int64_t flat) {
  Index idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::int64_t ravel_index(const Index& shape, const Index& idx) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

// Every multi-index of `shape`, in row-major order (the last dimension fastest), or reversed.
std::vector<Index> all_indices(const Index& shape, NaiveSumOrder order = NaiveSumOrder::Documented) {
  std::vector<Index> out;
  for (std::int64_t k = 0; k < elements(shape); ++k) out.push_back(unravel_index(shape, k));
  if (order == NaiveSumOrder::Reversed) std::reverse(out.begin(), out.end());
  return out;
}

// --- scalars, as interp/domain/ieee.hpp documents them ---------------------------------------

template <class T>
T ieee_maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;  // +0 is above -0
  return a > b ? a : b;
}
template <class T>
T ieee_minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// exp, log, tanh, sqrt, rsqrt and logistic in double, then rounded once to T.
template <class T>
T unary(Op op, T x) {
  const double v = x;
  switch (op) {
    case Op::Negate: return -x;
    case Op::Abs: return std::fabs(x);
    case Op::Exponential: return static_cast<T>(std::exp(v));
    case Op::Log: return static_cast<T>(std::log(v));
    case Op::Tanh: return static_cast<T>(std::tanh(v));
    case Op::Sqrt: return static_cast<T>(std::sqrt(v));
    case Op::Rsqrt: return static_cast<T>(1.0 / std::sqrt(v));
    case Op::Logistic: return static_cast<T>(1.0 / (1.0 + std::exp(-v)));
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: SHLO_CASES_INTEGER_AND_MATH_OPS:
      break;
  }
  throw NaiveError(std::string("naive: no unary op ") + op_name(op));
}

template <class T>
T binary(Op op, T a, T b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Subtract: return a - b;
    case Op::Multiply: return a * b;
    case Op::Divide: return a / b;
    case Op::Maximum: return ieee_maximum(a, b);
    case Op::Minimum: return ieee_minimum(a, b);
    case Op::And: return static_cast<T>(a != 0 && b != 0);
    case Op::Or: return static_cast<T>(a != 0 || b != 0);
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt:
    case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: SHLO_CASES_INTEGER_AND_MATH_OPS:
      break;
  }
  throw NaiveError(std::string("naive: no binary op ") + op_name(op));
}

template <class T>
bool compare(const std::string& direction, T a, T b) {  // IEEE quiet comparisons
  if (direction == "EQ") return a == b;
  if (direction == "NE") return a != b;
  if (direction == "LT") return a < b;
  if (direction == "LE") return a <= b;
  if (direction == "GT") return a > b;
  if (direction == "GE") return a >= b;
  throw NaiveError("naive: comparison " + direction);
}

// One literal of a dense constant: a hex bit pattern of the declared type, or a decimal read
// exactly and rounded once to T.
template <class T>
T literal(const std::string& text, ElementType element) {
  if (text == "true") return 1;
  if (text == "false") return 0;
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    const std::uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
    if (element == ElementType::F64) {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return static_cast<T>(d);
    }
    const auto b32 = static_cast<std::uint32_t>(element == ElementType::BF16 ? bits << 16 : bits);
    float f;
    std::memcpy(&f, &b32, sizeof f);
    return static_cast<T>(f);
  }
  const Literal l = parse_literal(text);
  switch (l.kind) {
    case Literal::Kind::PosInf: return std::numeric_limits<T>::infinity();
    case Literal::Kind::NegInf: return -std::numeric_limits<T>::infinity();
    case Literal::Kind::NaN: return std::numeric_limits<T>::quiet_NaN();
    case Literal::Kind::Finite: break;
  }
  const T v = round_rational<T>(l.value);
  return v == 0 && l.negative ? -v : v;
}

// The scalar op of a region `^bb0(%a, %b): %r = OP %a, %b; return %r`.
const Instruction& region_op(const Region& r) {
  if (r.body.size() != 1 || r.arguments.size() != 2 || r.results.size() != 1 || r.body[0].result != r.results[0] ||
      r.body[0].operands != std::vector<std::string>{r.arguments[0].first, r.arguments[1].first})
    throw NaiveError("naive: a region that is not one binary op of its arguments");
  return r.body[0];
}

template <class T>
class Evaluator {
 public:
  explicit Evaluator(NaiveSumOrder order) : order_(order) {}

  Naive<T> run(const Instruction& inst, const std::vector<const Naive<T>*>& in) {
    const Index& shape = inst.result_type.shape;
    const auto& a = inst.attributes;
    Naive<T> out{shape, std::vector<T>(static_cast<std::size_t>(elements(shape)))};
    // out[idx] = f(idx) for every result element.
    auto each = [&](auto&& f) {
      for (std::int64_t k = 0; k < elements(shape); ++k) out.data[static_cast<std::size_t>(k)] = f(unravel_index(shape, k));
    };
    auto at = [](const Naive<T>& t, const Index& idx) { return t.data[static_cast<std::size_t>(ravel_index(t.shape, idx))]; };
    if (is_unary_elementwise(inst.op)) {
      each([&](const Index& i) { return unary(inst.op, at(*in[0], i)); });
      return out;
    }
    if (is_binary_elementwise(inst.op)) {
      each([&](const Index& i) { return binary(inst.op, at(*in[0], i), at(*in[1], i)); });
      return out;
    }
    switch (inst.op) {
      case Op::Constant:
        for (std::size_t k = 0; k < out.data.size(); ++k)
          out.data[k] = literal<T>(a.literal.elements[a.literal.splat ? 0 : k], inst.result_type.element);
        return out;
      case Op::Compare:
        each([&](const Index& i) { return static_cast<T>(compare(a.comparison_direction, at(*in[0], i), at(*in[1], i))); });
        return out;
      case Op::Select:
        each([&](const Index& i) { return at(*in[0], in[0]->shape.empty() ? Index{} : i) != 0 ? at(*in[1], i) : at(*in[2], i); });
        return out;
      case Op::Reshape:
        out.data = in[0]->data;
        return out;
      case Op::Iota:
        each([&](const Index& i) { return static_cast<T>(i[static_cast<std::size_t>(a.dimension)]); });
        return out;
      case Op::AllReduce:  // one replica: its own value
        if (a.replica_groups != std::vector<std::vector<std::int64_t>>{{0}}) throw NaiveError("naive: all_reduce over more than one replica");
        out.data = in[0]->data;
        return out;
      case Op::BroadcastInDim:
        each([&](const Index& i) {
          Index src(in[0]->shape.size());
          for (std::size_t d = 0; d < src.size(); ++d) src[d] = in[0]->shape[d] == 1 ? 0 : i[static_cast<std::size_t>(a.dimensions[d])];
          return at(*in[0], src);
        });
        return out;
      case Op::Transpose:  // result dimension d is operand dimension dims[d]
        each([&](const Index& i) {
          Index src(i.size());
          for (std::size_t d = 0; d < i.size(); ++d) src[static_cast<std::size_t>(a.dimensions[d])] = i[d];
          return at(*in[0], src);
        });
        return out;
      case Op::Reverse:
        each([&](const Index& i) {
          Index src = i;
          for (auto d : a.dimensions) src[static_cast<std::size_t>(d)] = shape[static_cast<std::size_t>(d)] - 1 - i[static_cast<std::size_t>(d)];
          return at(*in[0], src);
        });
        return out;
      case Op::Slice:
        each([&](const Index& i) {
          Index src(i.size());
          for (std::size_t d = 0; d < i.size(); ++d) src[d] = a.start_indices[d] + i[d] * a.strides[d];
          return at(*in[0], src);
        });
        return out;
      case Op::Pad:
        each([&](const Index& i) {
          Index src(i.size());
          for (std::size_t d = 0; d < i.size(); ++d) {
            const std::int64_t p = i[d] - a.edge_padding_low[d], step = a.interior_padding[d] + 1;
            if (p < 0 || p % step != 0 || p / step >= in[0]->shape[d]) return in[1]->data[0];
            src[d] = p / step;
          }
          return at(*in[0], src);
        });
        return out;
      case Op::Concatenate:
        each([&](const Index& i) {
          Index src = i;
          const auto dim = static_cast<std::size_t>(a.dimension);
          for (const auto* part : in) {
            if (src[dim] < part->shape[dim]) return at(*part, src);
            src[dim] -= part->shape[dim];
          }
          throw NaiveError("naive: concatenate index out of range");
        });
        return out;
      case Op::Reduce:
        return reduce(inst, *in[0], in[1]->data[0]);
      case Op::DotGeneral:
        return dot_general(inst, *in[0], *in[1]);
      case Op::Convolution:
        return convolution(inst, *in[0], *in[1]);
      case Op::ReduceWindow:
        return reduce_window(inst, *in[0], in[1]->data[0]);
      case Op::SelectAndScatter:
        return select_and_scatter(inst, *in[0], *in[1], in[2]->data[0]);
      // The elementwise ops are done above; convert is not one of the documented orders' ops.
      case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
      case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
      case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Convert: SHLO_CASES_INTEGER_AND_MATH_OPS:
        break;
    }
    throw NaiveError(std::string("naive: no op ") + op_name(inst.op));
  }

 private:
  NaiveSumOrder order_;

  // reduce: per result element, a left fold from init over the reduced dimensions in
  // row-major order.
  Naive<T> reduce(const Instruction& inst, const Naive<T>& x, T init) {
    const auto& dims = inst.attributes.dimensions;
    Index reduced_shape, kept;
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
      if (std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) != dims.end()) reduced_shape.push_back(x.shape[d]);
      else kept.push_back(static_cast<std::int64_t>(d));
    }
    Naive<T> out{inst.result_type.shape, {}};
    const auto terms = all_indices(reduced_shape, order_);
    for (const Index& o : all_indices(out.shape)) {
      T acc = init;
      for (const Index& r : terms) {
        Index src(x.shape.size());
        std::size_t next_kept = 0, next_reduced = 0;
        for (std::size_t d = 0; d < x.shape.size(); ++d)
          src[d] = next_kept < kept.size() && kept[next_kept] == static_cast<std::int64_t>(d) ? o[next_kept++] : r[next_reduced++];
        if (!inst.attributes.reduce_body) throw NaiveError("naive: no reduce with a region body");
        acc = binary(*inst.attributes.reduce_body, acc, x.data[static_cast<std::size_t>(ravel_index(x.shape, src))]);
      }
      out.data.push_back(acc);
    }
    return out;
  }

  // dot_general: per result element (batch, lhs free, rhs free), acc = +0 then acc + l * r
  // over the contracting indices in the order of the lhs contracting dimensions as listed.
  Naive<T> dot_general(const Instruction& inst, const Naive<T>& lhs, const Naive<T>& rhs) {
    const auto& a = inst.attributes;
    auto free_dims = [](std::size_t rank, const Index& batch, const Index& contract) {
      Index f;
      for (std::int64_t d = 0; d < static_cast<std::int64_t>(rank); ++d)
        if (std::find(batch.begin(), batch.end(), d) == batch.end() && std::find(contract.begin(), contract.end(), d) == contract.end())
          f.push_back(d);
      return f;
    };
    const Index lhs_free = free_dims(lhs.shape.size(), a.lhs_batching_dimensions, a.lhs_contracting_dimensions);
    const Index rhs_free = free_dims(rhs.shape.size(), a.rhs_batching_dimensions, a.rhs_contracting_dimensions);
    Index contract_shape;
    for (auto d : a.lhs_contracting_dimensions) contract_shape.push_back(lhs.shape[static_cast<std::size_t>(d)]);
    const auto terms = all_indices(contract_shape, order_);
    Naive<T> out{inst.result_type.shape, {}};
    for (const Index& o : all_indices(out.shape)) {
      Index l(lhs.shape.size()), r(rhs.shape.size());
      std::size_t k = 0;
      for (std::size_t b = 0; b < a.lhs_batching_dimensions.size(); ++b, ++k) {
        l[static_cast<std::size_t>(a.lhs_batching_dimensions[b])] = o[k];
        r[static_cast<std::size_t>(a.rhs_batching_dimensions[b])] = o[k];
      }
      for (auto d : lhs_free) l[static_cast<std::size_t>(d)] = o[k++];
      for (auto d : rhs_free) r[static_cast<std::size_t>(d)] = o[k++];
      T acc = 0;
      for (const Index& c : terms) {
        for (std::size_t j = 0; j < c.size(); ++j) {
          l[static_cast<std::size_t>(a.lhs_contracting_dimensions[j])] = c[j];
          r[static_cast<std::size_t>(a.rhs_contracting_dimensions[j])] = c[j];
        }
        const T product = lhs.data[static_cast<std::size_t>(ravel_index(lhs.shape, l))] * rhs.data[static_cast<std::size_t>(ravel_index(rhs.shape, r))];
        acc = acc + product;
      }
      out.data.push_back(acc);
    }
    return out;
  }

  // convolution: per result element, acc = +0 then acc + x * w over the window positions in
  // lexicographic order of the spatial dimensions, the group's input features fastest; the
  // padding and lhs-dilation zeros take part in the products.
  Naive<T> convolution(const Instruction& inst, const Naive<T>& lhs, const Naive<T>& rhs) {
    const auto& a = inst.attributes;
    const auto& c = a.conv;
    const std::size_t spatial = c.input_spatial.size();
    const std::int64_t fg = a.feature_group_count, bg = a.batch_group_count;
    const std::int64_t out_features = rhs.shape[static_cast<std::size_t>(c.kernel_output_feature)];
    const std::int64_t group_features = rhs.shape[static_cast<std::size_t>(c.kernel_input_feature)];
    const std::int64_t out_per_group = out_features / (fg * bg);
    const std::int64_t out_batch = lhs.shape[static_cast<std::size_t>(c.input_batch)] / bg;
    Index window_shape;  // kernel spatial sizes, then the input feature (fastest)
    for (auto d : c.kernel_spatial) window_shape.push_back(rhs.shape[static_cast<std::size_t>(d)]);
    window_shape.push_back(group_features);
    const auto terms = all_indices(window_shape, order_);
    Naive<T> out{inst.result_type.shape, {}};
    for (const Index& o : all_indices(out.shape)) {
      const std::int64_t n = o[static_cast<std::size_t>(c.output_batch)], f = o[static_cast<std::size_t>(c.output_feature)];
      const std::int64_t group = f / out_per_group;
      const std::int64_t image = bg > 1 ? n + group * out_batch : n, first_feature = fg > 1 ? group * group_features : 0;
      T acc = 0;
      for (const Index& t : terms) {
        Index x(lhs.shape.size()), w(rhs.shape.size());
        x[static_cast<std::size_t>(c.input_batch)] = image;
        x[static_cast<std::size_t>(c.input_feature)] = first_feature + t[spatial];
        w[static_cast<std::size_t>(c.kernel_output_feature)] = f;
        w[static_cast<std::size_t>(c.kernel_input_feature)] = t[spatial];
        bool zero = false;  // a padding or lhs-dilation position
        for (std::size_t s = 0; s < spatial; ++s) {
          w[static_cast<std::size_t>(c.kernel_spatial[s])] = t[s];
          const std::int64_t size = lhs.shape[static_cast<std::size_t>(c.input_spatial[s])];
          const std::int64_t p = o[static_cast<std::size_t>(c.output_spatial[s])] * a.window_strides[s] + t[s] * a.rhs_dilation[s] -
                                 a.padding[s].first;
          if (p < 0 || p % a.lhs_dilation[s] != 0 || p / a.lhs_dilation[s] >= size) zero = true;
          else x[static_cast<std::size_t>(c.input_spatial[s])] = p / a.lhs_dilation[s];
        }
        const T value = zero ? T(0) : lhs.data[static_cast<std::size_t>(ravel_index(lhs.shape, x))];
        const T product = value * rhs.data[static_cast<std::size_t>(ravel_index(rhs.shape, w))];
        acc = acc + product;
      }
      out.data.push_back(acc);
    }
    return out;
  }

  // The padded, base-dilated input position of window `w`, element `k` along dimension d,
  // as an input index, or -1 for padding (reduce_window pads with init).
  static std::int64_t window_source(const Attributes& a, std::size_t d, std::int64_t w, std::int64_t k, std::int64_t size) {
    const std::int64_t stride = a.window_strides.empty() ? 1 : a.window_strides[d];
    const std::int64_t dilation = a.window_dilations.empty() ? 1 : a.window_dilations[d];
    const std::int64_t base = a.base_dilations.empty() ? 1 : a.base_dilations[d];
    const std::int64_t low = a.padding.empty() ? 0 : a.padding[d].first;
    const std::int64_t p = w * stride + k * dilation - low;
    return p < 0 || p % base != 0 || p / base >= size ? -1 : p / base;
  }

  // reduce_window: per window, a fold from init over the window in row-major order.
  Naive<T> reduce_window(const Instruction& inst, const Naive<T>& x, T init) {
    const Op body = region_op(inst.regions.at(0)).op;
    const auto terms = all_indices(inst.attributes.window_dimensions, order_);
    Naive<T> out{inst.result_type.shape, {}};
    for (const Index& w : all_indices(out.shape)) {
      T acc = init;
      for (const Index& k : terms) {
        Index src(x.shape.size());
        bool padding = false;
        for (std::size_t d = 0; d < src.size(); ++d) {
          src[d] = window_source(inst.attributes, d, w[d], k[d], x.shape[d]);
          padding = padding || src[d] < 0;
        }
        acc = binary(body, acc, padding ? init : x.data[static_cast<std::size_t>(ravel_index(x.shape, src))]);
      }
      out.data.push_back(acc);
    }
    return out;
  }

  // select_and_scatter: for each source element in row-major order, the window's positions
  // in row-major order (padding never selected) keep the current choice while
  // select(current, candidate) holds; the source value is added into the chosen position.
  Naive<T> select_and_scatter(const Instruction& inst, const Naive<T>& x, const Naive<T>& source, T init) {
    const std::string direction = region_op(inst.regions.at(0)).attributes.comparison_direction;
    const Op scatter = region_op(inst.regions.at(1)).op;
    Naive<T> out{x.shape, std::vector<T>(x.data.size(), init)};
    for (const Index& s : all_indices(source.shape, order_)) {
      std::int64_t chosen = -1;
      for (const Index& k : all_indices(inst.attributes.window_dimensions)) {
        Index src(x.shape.size());
        bool padding = false;
        for (std::size_t d = 0; d < src.size(); ++d) {
          src[d] = window_source(inst.attributes, d, s[d], k[d], x.shape[d]);
          padding = padding || src[d] < 0;
        }
        if (padding) continue;
        const std::int64_t flat = ravel_index(x.shape, src);
        if (chosen < 0 || !compare(direction, x.data[static_cast<std::size_t>(chosen)], x.data[static_cast<std::size_t>(flat)]))
          chosen = flat;
      }
      if (chosen >= 0)
        out.data[static_cast<std::size_t>(chosen)] =
            binary(scatter, out.data[static_cast<std::size_t>(chosen)], source.data[static_cast<std::size_t>(ravel_index(source.shape, s))]);
    }
    return out;
  }
};

}  // namespace

template <class T>
std::vector<T> naive_run(const Module& m, const std::vector<std::vector<T>>& inputs, NaiveSumOrder order) {
  const Function& f = m.function();
  if (inputs.size() != f.arguments.size()) throw NaiveError("naive: " + std::to_string(inputs.size()) + " inputs for " +
                                                            std::to_string(f.arguments.size()) + " arguments");
  std::map<std::string, Naive<T>> values;
  for (std::size_t k = 0; k < inputs.size(); ++k) values[f.arguments[k].name] = {f.arguments[k].type.shape, inputs[k]};
  Evaluator<T> eval(order);
  for (const Instruction* inst : instructions(f)) {
    std::vector<const Naive<T>*> operands;
    for (const auto& name : inst->operands) operands.push_back(&values.at(name));
    values[inst->result] = eval.run(*inst, operands);
  }
  return values.at(f.return_values.at(0)).data;
}

template std::vector<float> naive_run(const Module&, const std::vector<std::vector<float>>&, NaiveSumOrder);
template std::vector<double> naive_run(const Module&, const std::vector<std::vector<double>>&, NaiveSumOrder);

}  // namespace shlo
