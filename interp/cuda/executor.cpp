#include "interp/cuda/executor.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_map>

#include "interp/ops/movement.hpp"
#include "interp/ops/reduction.hpp"
#include "interp/replica_loop.hpp"

namespace shlo::cuda {

namespace {

// A tensor in backend memory; reshape shares the storage.
struct Storage {
  Storage(Backend* b, void* p) : backend(b), ptr(p) {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() { backend->release(ptr); }
  Backend* backend;
  void* ptr;
};
struct DValue {
  std::shared_ptr<Storage> storage;
  Shape shape;
  bool pred = false;
  float* f() const { return static_cast<float*>(storage->ptr); }
  std::uint8_t* p() const { return static_cast<std::uint8_t*>(storage->ptr); }
};

class Executor {
 public:
  Executor(Backend& b) : b_(b) {}

  DValue make(const Shape& shape, bool pred) {
    const std::size_t bytes = static_cast<std::size_t>(num_elements(shape)) * (pred ? 1 : 4);
    return {std::make_shared<Storage>(&b_, b_.allocate(bytes)), shape, pred};
  }
  DValue upload(const Value<F32Domain>& v) {
    if (const auto* p = std::get_if<PredTensor>(&v)) {
      DValue d = make(p->shape, true);
      b_.upload(d.p(), p->data.data(), p->data.size());
      return d;
    }
    const auto& t = std::get<Tensor<float>>(v);
    DValue d = make(t.shape, false);
    b_.upload(d.f(), t.data.data(), t.data.size() * 4);
    return d;
  }
  Value<F32Domain> download(const DValue& d) {
    const auto n = static_cast<std::size_t>(num_elements(d.shape));
    if (d.pred) {
      PredTensor t(d.shape, Pred{0});
      b_.download(t.data.data(), d.p(), n);
      return t;
    }
    Tensor<float> t(d.shape, 0.0f);
    b_.download(t.data.data(), d.f(), n * 4);
    return t;
  }
  float scalar(const DValue& d) {
    float x = 0;
    b_.download(&x, d.f(), 4);
    return x;
  }

  // A GatherK over `in` (of shape in_shape) to out_shape, starting as the identity map on
  // matching dims; the caller adjusts strides, lows, steps and extents.
  template <class T>
  GatherK<T> gather_base(const Shape& in_shape, const Shape& out_shape) {
    GatherK<T> k{};
    k.rank = static_cast<int>(out_shape.size());
    check_rank(k.rank);
    const auto in_strides = row_major_strides(in_shape);
    for (int d = 0; d < k.rank; ++d) {
      k.shape[d] = out_shape[static_cast<std::size_t>(d)];
      k.stride[d] = d < static_cast<int>(in_strides.size()) ? in_strides[static_cast<std::size_t>(d)] : 0;
      k.low[d] = 0;
      k.step[d] = 1;
      k.extent[d] = INT64_MAX;
    }
    return k;
  }
  DValue run_gather(const DValue& in, const Shape& out_shape, auto&& adjust, float pad = 0) {
    DValue out = make(out_shape, in.pred);
    const auto n = num_elements(out_shape);
    if (in.pred) {
      auto k = gather_base<std::uint8_t>(in.shape, out_shape);
      adjust(k);
      k.pad = static_cast<std::uint8_t>(pad != 0);
      k.in = in.p();
      k.out = out.p();
      b_.run(k, n);
    } else {
      auto k = gather_base<float>(in.shape, out_shape);
      adjust(k);
      k.pad = pad;
      k.in = in.f();
      k.out = out.f();
      b_.run(k, n);
    }
    return out;
  }
  // result dim d = operand dim perm[d]
  DValue transpose(const DValue& in, const std::vector<std::int64_t>& perm) {
    Shape out_shape;
    for (auto p : perm) out_shape.push_back(in.shape[static_cast<std::size_t>(p)]);
    const auto s = row_major_strides(in.shape);
    return run_gather(in, out_shape, [&](auto& k) {
      for (std::size_t d = 0; d < perm.size(); ++d) k.stride[d] = s[static_cast<std::size_t>(perm[d])];
    });
  }
  DValue pad(const DValue& in, float value, const Shape& out_shape, const std::vector<std::int64_t>& low,
             const std::vector<std::int64_t>& interior) {
    return run_gather(in, out_shape, [&](auto& k) {
      for (std::size_t d = 0; d < out_shape.size(); ++d) {
        k.low[d] = low[d];
        k.step[d] = interior[d] + 1;
        k.extent[d] = in.shape[d];
      }
    }, value);
  }

  DValue run_fold(FoldK k, const DValue& in, const Shape& out_shape) {
    DValue out = make(out_shape, false);
    k.in = in.f();
    k.out = out.f();
    b_.run(k, num_elements(out_shape));
    return out;
  }

  static void check_rank(int rank) {
    if (rank > kMaxRank) throw OpError("rank " + std::to_string(rank) + " is above the kernels' limit of " + std::to_string(kMaxRank));
  }

  // The replica loop's backend (interp/replica_loop.hpp).
  DValue execute(const Instruction& inst, const std::vector<const DValue*>& args);
  DValue reshape(DValue&& v, const Shape& shape) const {
    v.shape = shape;  // the storage is shared
    return std::move(v);
  }
  DValue fold(Op body, ElementType element, const std::vector<const DValue*>& in_order);
  std::size_t bytes(const DValue& v) const { return static_cast<std::size_t>(num_elements(v.shape)) * (v.pred ? 1 : 4); }

 private:
  Backend& b_;
};

UnaryOp unary_of(Op op) {
  switch (op) {
    case Op::Negate: return UnaryOp::Negate;
    case Op::Abs: return UnaryOp::Abs;
    case Op::Exponential: return UnaryOp::Exp;
    case Op::Log: return UnaryOp::Log;
    case Op::Sqrt: return UnaryOp::Sqrt;
    case Op::Rsqrt: return UnaryOp::Rsqrt;
    case Op::Tanh: return UnaryOp::Tanh;
    case Op::Logistic: return UnaryOp::Logistic;
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: SHLO_CASES_INTEGER_AND_MATH_OPS: break;
  }
  throw OpError(std::string("stablehlo.") + op_name(op) + " is not a unary elementwise op");
}
BinaryOp binary_of(Op op) {
  switch (op) {
    case Op::Add: return BinaryOp::Add;
    case Op::Subtract: return BinaryOp::Sub;
    case Op::Multiply: return BinaryOp::Mul;
    case Op::Divide: return BinaryOp::Div;
    case Op::Maximum: return BinaryOp::Max;
    case Op::Minimum: return BinaryOp::Min;
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select:
    case Op::Convert: case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape:
    case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
    case Op::DotGeneral: case Op::Convolution: case Op::Reduce: case Op::ReduceWindow:
    case Op::SelectAndScatter: case Op::AllReduce: SHLO_CASES_INTEGER_AND_MATH_OPS:
      throw OpError(std::string("unsupported combiner stablehlo.") + op_name(op));
  }
  throw OpError("not an op");
}
CmpOp cmp_of(CompareDirection d) { return static_cast<CmpOp>(static_cast<int>(d)); }

DValue Executor::execute(const Instruction& inst, const std::vector<const DValue*>& args) {
  const auto& a = inst.attributes;
  const Shape& rshape = inst.result_type.shape;
  const std::int64_t n = num_elements(rshape);
  const bool pred = inst.result_type.element == ElementType::I1;
  auto arg = [&](std::size_t i) -> const DValue& { return *args[i]; };
  check_rank(static_cast<int>(rshape.size()));
  // The kernels hold floats and i1 (movement, and/or, predicates): no integer types yet, and
  // no arithmetic on i1 values.
  bool integer_values = is_integer(inst.result_type.element);
  for (const auto& t : inst.operand_types) integer_values = integer_values || is_integer(t.element);
  const std::size_t data_operand = inst.op == Op::Select ? 1 : 0;
  const bool movement = inst.op == Op::BroadcastInDim || inst.op == Op::Reshape || inst.op == Op::Transpose || inst.op == Op::Reverse ||
                        inst.op == Op::Slice || inst.op == Op::Pad || inst.op == Op::Concatenate || inst.op == Op::And || inst.op == Op::Or;
  const bool i1_arithmetic = !movement && inst.operand_types.size() > data_operand && inst.operand_types[data_operand].element == ElementType::I1;
  if (integer_values || i1_arithmetic)
    throw OpError(std::string("stablehlo.") + op_name(inst.op) + " on " + (integer_values ? "integer" : "i1") +
                  " values is not supported by the CUDA backend");
  switch (inst.op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum: {
      DValue out = make(rshape, false);
      b_.run(BinaryK{binary_of(inst.op), arg(0).f(), arg(1).f(), out.f()}, n);
      return out;
    }
    case Op::And: case Op::Or: {
      DValue out = make(rshape, true);
      b_.run(LogicK{inst.op == Op::And, arg(0).p(), arg(1).p(), out.p()}, n);
      return out;
    }
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: {
      DValue out = make(rshape, false);
      b_.run(UnaryK{unary_of(inst.op), arg(0).f(), out.f()}, n);
      return out;
    }
    case Op::Compare: {
      DValue out = make(rshape, true);
      b_.run(CompareK{cmp_of(parse_compare_direction(a.comparison_direction)), arg(0).f(), arg(1).f(), out.p()}, n);
      return out;
    }
    case Op::Select: {
      DValue out = make(rshape, false);
      b_.run(SelectK{arg(0).p(), arg(0).shape.empty(), arg(1).f(), arg(2).f(), out.f()}, n);
      return out;
    }
    case Op::Convert: {
      if (inst.result_type.element == ElementType::BF16 && inst.operand_types[0].element != ElementType::BF16) {
        DValue out = make(rshape, false);
        b_.run(UnaryK{UnaryOp::ToBf16, arg(0).f(), out.f()}, n);
        return out;
      }
      if (is_float(inst.result_type.element) && is_float(inst.operand_types[0].element)) return arg(0);
      throw OpError(std::string("convert to ") + to_string(inst.result_type.element) + " is not supported");
    }
    case Op::Constant: {
      const F32Domain f32;
      if (pred) return upload(ops::pred_constant(a.literal, inst.result_type));
      return upload(ops::constant(f32, a.literal, inst.result_type));
    }
    case Op::Iota: {
      DValue out = make(rshape, false);
      IotaK k{};
      k.rank = static_cast<int>(rshape.size());
      k.dim = static_cast<int>(a.dimension);
      for (int d = 0; d < k.rank; ++d) k.shape[d] = rshape[static_cast<std::size_t>(d)];
      k.out = out.f();
      b_.run(k, n);
      return out;
    }
    case Op::Reshape: {
      DValue out = arg(0);
      out.shape = rshape;
      return out;
    }
    case Op::BroadcastInDim: {
      const auto s = row_major_strides(arg(0).shape);
      return run_gather(arg(0), rshape, [&](auto& k) {
        for (std::size_t d = 0; d < rshape.size(); ++d) k.stride[d] = 0;
        for (std::size_t i = 0; i < a.dimensions.size(); ++i) {
          const auto od = static_cast<std::size_t>(a.dimensions[i]);
          k.stride[od] = arg(0).shape[i] == rshape[od] ? s[i] : 0;
        }
      });
    }
    case Op::Transpose: return transpose(arg(0), a.dimensions);
    case Op::Reverse: {
      const auto s = row_major_strides(arg(0).shape);
      return run_gather(arg(0), rshape, [&](auto& k) {
        for (auto d : a.dimensions) {
          const auto du = static_cast<std::size_t>(d);
          k.base += (arg(0).shape[du] - 1) * s[du];
          k.stride[du] = -s[du];
        }
      });
    }
    case Op::Slice: {
      const auto s = row_major_strides(arg(0).shape);
      return run_gather(arg(0), rshape, [&](auto& k) {
        for (std::size_t d = 0; d < rshape.size(); ++d) {
          const std::int64_t step = a.strides.empty() ? 1 : a.strides[d];
          k.base += a.start_indices[d] * s[d];
          k.stride[d] = s[d] * step;
        }
      });
    }
    case Op::Pad: {
      float value = 0;
      if (!pred) value = scalar(arg(1));
      else {
        std::uint8_t v = 0;
        b_.download(&v, arg(1).p(), 1);
        value = v;
      }
      return pad(arg(0), value, rshape, a.edge_padding_low, a.interior_padding);
    }
    case Op::Concatenate: {
      DValue out = make(rshape, pred);
      const auto os = row_major_strides(rshape);
      std::int64_t offset = 0;
      for (const DValue* x : args) {
        auto place = [&](auto k, const auto* in, auto* to) {
          k.rank = static_cast<int>(rshape.size());
          for (int d = 0; d < k.rank; ++d) {
            k.shape[d] = x->shape[static_cast<std::size_t>(d)];
            k.out_stride[d] = os[static_cast<std::size_t>(d)];
          }
          k.base = offset * os[static_cast<std::size_t>(a.dimension)];
          k.in = in;
          k.out = to;
          b_.run(k, num_elements(x->shape));
        };
        if (pred) place(PlaceK<std::uint8_t>{}, x->p(), out.p());
        else place(PlaceK<float>{}, x->f(), out.f());
        offset += x->shape[static_cast<std::size_t>(a.dimension)];
      }
      return out;
    }
    case Op::DotGeneral: {
      auto free_dims = [](std::size_t rank, const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y) {
        std::vector<std::int64_t> out;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(rank); ++d)
          if (std::find(x.begin(), x.end(), d) == x.end() && std::find(y.begin(), y.end(), d) == y.end()) out.push_back(d);
        return out;
      };
      const auto lf = free_dims(arg(0).shape.size(), a.lhs_batching_dimensions, a.lhs_contracting_dimensions);
      const auto rf = free_dims(arg(1).shape.size(), a.rhs_batching_dimensions, a.rhs_contracting_dimensions);
      auto cat = [](std::vector<std::int64_t> x, const std::vector<std::int64_t>& y, const std::vector<std::int64_t>& z) {
        x.insert(x.end(), y.begin(), y.end());
        x.insert(x.end(), z.begin(), z.end());
        return x;
      };
      auto extent = [](const Shape& s, const std::vector<std::int64_t>& dims) {
        std::int64_t e = 1;
        for (auto d : dims) e *= s[static_cast<std::size_t>(d)];
        return e;
      };
      const DValue A = transpose(arg(0), cat(a.lhs_batching_dimensions, lf, a.lhs_contracting_dimensions));  // [B][M][K]
      const DValue B = transpose(arg(1), cat(a.rhs_batching_dimensions, a.rhs_contracting_dimensions, rf));  // [B][K][N]
      DValue out = make(rshape, false);
      b_.run(MatmulK{extent(arg(0).shape, lf), extent(arg(0).shape, a.lhs_contracting_dimensions), extent(arg(1).shape, rf), A.f(), B.f(), out.f()}, n);
      return out;
    }
    case Op::Convolution: {
      const auto& c = a.conv;
      const std::size_t spatial = c.input_spatial.size();
      if (spatial > 3) throw OpError("convolution with more than 3 spatial dimensions is not supported by the kernels");
      std::vector<std::int64_t> in_perm = {c.input_batch, c.input_feature}, k_perm = {c.kernel_output_feature, c.kernel_input_feature};
      in_perm.insert(in_perm.end(), c.input_spatial.begin(), c.input_spatial.end());
      k_perm.insert(k_perm.end(), c.kernel_spatial.begin(), c.kernel_spatial.end());
      const DValue in_c = transpose(arg(0), in_perm), kernel = transpose(arg(1), k_perm);
      Shape padded = {in_c.shape[0], in_c.shape[1]};
      std::vector<std::int64_t> low = {0, 0}, interior = {0, 0};
      for (std::size_t s = 0; s < spatial; ++s) {
        const std::int64_t dil = a.lhs_dilation[s];
        padded.push_back(a.padding[s].first + (in_c.shape[2 + s] - 1) * dil + 1 + a.padding[s].second);
        low.push_back(a.padding[s].first);
        interior.push_back(dil - 1);
      }
      const DValue in_p = pad(in_c, 0, padded, low, interior);
      ConvK k{};
      k.spatial = static_cast<int>(spatial);
      k.bg = a.batch_group_count;
      k.fg = a.feature_group_count;
      k.in_images = padded[0];
      k.n_out = padded[0] / k.bg;
      k.O = kernel.shape[0];
      k.Cg = kernel.shape[1];
      k.C = padded[1];
      Shape canon = {k.n_out, k.O};
      for (std::size_t s = 0; s < spatial; ++s) {
        k.in_sp[s] = padded[2 + s];
        k.win[s] = kernel.shape[2 + s];
        k.out_sp[s] = rshape[static_cast<std::size_t>(c.output_spatial[s])];
        k.stride[s] = a.window_strides[s];
        k.dilation[s] = a.rhs_dilation[s];
        canon.push_back(k.out_sp[s]);
      }
      DValue out = make(canon, false);
      k.in = in_p.f();
      k.kernel = kernel.f();
      k.out = out.f();
      b_.run(k, n);
      std::vector<std::int64_t> out_perm(rshape.size());
      out_perm[static_cast<std::size_t>(c.output_batch)] = 0;
      out_perm[static_cast<std::size_t>(c.output_feature)] = 1;
      for (std::size_t s = 0; s < spatial; ++s) out_perm[static_cast<std::size_t>(c.output_spatial[s])] = static_cast<std::int64_t>(2 + s);
      return transpose(out, out_perm);
    }
    case Op::Reduce: {
      if (!a.reduce_body) throw OpError("stablehlo.reduce with a region body is not supported on the GPU");
      const DValue& in = arg(0);
      const auto s = row_major_strides(in.shape);
      FoldK k{};
      k.op = binary_of(*a.reduce_body);
      k.init = scalar(arg(1));
      std::vector<std::int64_t> reduced = a.dimensions;
      std::sort(reduced.begin(), reduced.end());
      for (std::size_t d = 0; d < in.shape.size(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(d)) != reduced.end()) continue;
        k.out_shape[k.out_rank] = in.shape[d];
        k.out_stride[k.out_rank++] = s[d];
      }
      for (auto d : reduced) {
        k.inner_shape[k.inner_rank] = in.shape[static_cast<std::size_t>(d)];
        k.inner_stride[k.inner_rank++] = s[static_cast<std::size_t>(d)];
      }
      return run_fold(k, in, rshape);
    }
    case Op::ReduceWindow: {
      const DValue& in = arg(0);
      const auto g = ops::window_geometry(in.shape, window_attributes(a));
      const std::size_t r = in.shape.size();
      std::vector<std::int64_t> low(r, 0), interior(r, 0);
      for (std::size_t i = 0; i < r; ++i) {
        if (!a.padding.empty()) low[i] = a.padding[i].first;
        if (!a.base_dilations.empty()) interior[i] = a.base_dilations[i] - 1;
      }
      const float init = scalar(arg(1));
      const DValue padded = pad(in, init, g.padded, low, interior);
      const auto s = row_major_strides(g.padded);
      FoldK k{};
      k.op = binary_of(region_binary_op(inst.regions[0], "reduce_window body"));
      k.init = init;
      k.out_rank = k.inner_rank = static_cast<int>(r);
      for (std::size_t d = 0; d < r; ++d) {
        k.out_shape[d] = g.windows[d];
        k.out_stride[d] = g.strides[d] * s[d];
        k.inner_shape[d] = g.window[d];
        k.inner_stride[d] = g.window_dilations[d] * s[d];
      }
      return run_fold(k, padded, rshape);
    }
    case Op::SelectAndScatter: {
      const DValue &operand = arg(0), &source = arg(1);
      const auto g = ops::window_geometry(operand.shape, window_attributes(a));
      const int r = static_cast<int>(operand.shape.size());
      const auto os = row_major_strides(operand.shape);
      SelectWindowK sel{};
      ScatterK sc{};
      sel.select = cmp_of(region_compare(inst.regions[0]));
      sc.op = binary_of(region_binary_op(inst.regions[1], "scatter"));
      sc.init = scalar(arg(2));
      sel.rank = sc.rank = r;
      for (int d = 0; d < r; ++d) {
        const auto du = static_cast<std::size_t>(d);
        sel.source_shape[d] = sc.source_shape[d] = source.shape[du];
        sel.operand_shape[d] = sc.operand_shape[d] = operand.shape[du];
        sel.operand_stride[d] = os[du];
        sel.window[d] = sc.window[d] = g.window[du];
        sel.stride[d] = sc.stride[d] = g.strides[du];
        sel.pad_low[d] = sc.pad_low[d] = a.padding.empty() ? 0 : a.padding[du].first;
      }
      void* selected = b_.allocate(static_cast<std::size_t>(num_elements(source.shape)) * 8);
      const Storage hold(&b_, selected);
      sel.operand = operand.f();
      sel.selected = static_cast<std::int64_t*>(selected);
      b_.run(sel, num_elements(source.shape));
      DValue out = make(rshape, false);
      sc.source = source.f();
      sc.selected = sel.selected;
      sc.out = out.f();
      b_.run(sc, n);
      b_.synchronize();  // `selected` is released on return
      return out;
    }
    case Op::AllReduce: break;
    SHLO_CASES_INTEGER_AND_MATH_OPS:
      throw OpError(std::string("stablehlo.") + op_name(inst.op) + " is not supported by the CUDA backend");
  }
  throw OpError(std::string("stablehlo.") + op_name(inst.op) + " has no kernel");
}

// #all_reduce: one group's values combined in increasing replica id.
DValue Executor::fold(Op body, ElementType element, const std::vector<const DValue*>& in_order) {
  if (!is_float(element))
    throw OpError(std::string("stablehlo.all_reduce on ") + to_string(element) + " values is not supported by the CUDA backend");
  const BinaryOp op = binary_of(body);
  const DValue& first = *in_order[0];
  const auto n = num_elements(first.shape);
  DValue acc = make(first.shape, false);
  b_.run(UnaryK{UnaryOp::Copy, first.f(), acc.f()}, n);
  for (std::size_t j = 1; j < in_order.size(); ++j) b_.run(BinaryK{op, acc.f(), in_order[j]->f(), acc.f()}, n);
  return acc;
}

}  // namespace

BackendRun run_on_backend(const Module& m, Backend& backend, const std::vector<std::vector<Value<F32Domain>>>& inputs, int replicas) {
  using Clock = std::chrono::steady_clock;
  const Function& f = m.function();
  if (static_cast<int>(inputs.size()) != replicas)
    throw RunError("expected inputs for " + std::to_string(replicas) + " replica(s), got " + std::to_string(inputs.size()));
  Executor ex(backend);
  BackendRun result;
  const auto t0 = Clock::now();
  std::vector<std::unordered_map<std::string, DValue>> env(static_cast<std::size_t>(replicas));
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.arguments.size(); ++i)
      env[static_cast<std::size_t>(r)][f.arguments[i].name] = ex.upload(inputs[static_cast<std::size_t>(r)].at(i));
  InProcessExchange<DValue> exchange(replicas);
  run_replica_loop(m, ex, exchange, env, RunOptions{});
  backend.synchronize();
  result.outputs.resize(static_cast<std::size_t>(replicas));
  for (int r = 0; r < replicas; ++r)
    for (const auto& name : f.return_values) result.outputs[static_cast<std::size_t>(r)].push_back(ex.download(env[static_cast<std::size_t>(r)].at(name)));
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace shlo::cuda
