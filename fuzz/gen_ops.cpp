#include "fuzz/gen_ops.hpp"

#include <string>
#include <vector>

namespace shlo::fuzz {

namespace {

struct Val {
  std::string name;
  std::vector<std::int64_t> shape;
};

std::string type_of(const std::vector<std::int64_t>& s, const char* element) {
  std::string t = "tensor<";
  for (auto d : s) t += std::to_string(d) + "x";
  return t + element + ">";
}
std::string type(const std::vector<std::int64_t>& s) { return type_of(s, "f32"); }

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

struct Builder {
  std::vector<Val> vals;
  std::string body;
  int next = 0;
  std::string fresh() { return "%t" + std::to_string(next++); }
  const Val& add(std::string line, std::vector<std::int64_t> shape, const std::string& name) {
    body += "    " + name + " = " + line + "\n";
    vals.push_back({name, std::move(shape)});
    return vals.back();
  }
  // A value of this shape, drawn from those defined.
  Val pick_shape(const std::vector<std::int64_t>& shape) {
    std::vector<Val> same;
    for (const auto& v : vals)
      if (v.shape == shape) same.push_back(v);
    return *rc::gen::elementOf(same);
  }
  // A value of rank 2 (any), drawn from those defined.
  Val pick2() {
    std::vector<Val> twos;
    for (const auto& v : vals)
      if (v.shape.size() == 2) twos.push_back(v);
    return *rc::gen::elementOf(twos);
  }
};

}  // namespace

rc::Gen<TextCase> gen_op_program(bool transcendental, bool float_ops) {
  return rc::gen::exec([transcendental, float_ops] {
    Builder b;
    const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 4), cols = *rc::gen::inRange<std::int64_t>(1, 4);
    TextCase tc;
    tc.inputs.resize(1);
    std::string sig;
    const int args = *rc::gen::inRange(1, 4);
    for (int a = 0; a < args; ++a) {
      const std::string name = "%in" + std::to_string(a);
      sig += (a ? ", " : "") + name + ": " + type({rows, cols});
      b.vals.push_back({name, {rows, cols}});
      tc.argument_order.push_back(name);
      std::vector<Rational> v;
      for (std::int64_t i = 0; i < rows * cols; ++i) v.push_back(Rational(*rc::gen::inRange(-9, 10)) / Rational(*rc::gen::element(1, 2, 3, 5)));
      tc.inputs[0][name] = v;
    }
    std::vector<std::string> ops = {"add", "subtract", "multiply", "maximum", "minimum", "negate", "abs", "transpose",
                                    "reverse", "slice", "pad", "concatenate", "reduce_bcast", "dot_general"};
    if (transcendental) ops.insert(ops.end(), {"exponential", "logistic", "tanh", "sqrt"});
    if (float_ops)
      ops.insert(ops.end(), {"divide", "log", "rsqrt", "relu_select", "reduce_max", "max_pool", "select_and_scatter", "convolution",
                             "reduce_bcast", "dot_general"});
    const int steps = *rc::gen::inRange(1, 8);
    for (int s = 0; s < steps; ++s) {
      const std::string op = *rc::gen::elementOf(ops);
      const Val x = b.pick2();
      const std::string r = b.fresh();
      const auto& sh = x.shape;
      if (op == "add" || op == "subtract" || op == "multiply" || op == "maximum" || op == "minimum") {
        std::vector<Val> same;
        for (const auto& v : b.vals)
          if (v.shape == sh) same.push_back(v);
        const Val y = *rc::gen::elementOf(same);
        b.add("stablehlo." + op + " " + x.name + ", " + y.name + " : " + type(sh), sh, r);
      } else if (op == "negate" || op == "abs" || op == "exponential" || op == "logistic" || op == "tanh") {
        b.add("stablehlo." + op + " " + x.name + " : " + type(sh), sh, r);
      } else if (op == "sqrt" || op == "log" || op == "rsqrt" || op == "divide") {  // of (by) |x| + 1
        const std::string a = b.fresh(), one = b.fresh(), p = b.fresh();
        b.add("stablehlo.abs " + x.name + " : " + type(sh), sh, a);
        b.add("stablehlo.constant dense<1.0> : " + type(sh), sh, one);
        b.add("stablehlo.add " + a + ", " + one + " : " + type(sh), sh, p);
        if (op == "divide") {
          const Val y = b.pick_shape(sh);
          b.add("stablehlo.divide " + y.name + ", " + p + " : " + type(sh), sh, r);
        } else {
          b.add("stablehlo." + op + " " + p + " : " + type(sh), sh, r);
        }
      } else if (op == "relu_select") {  // select(x > y, x, y)
        const Val y = b.pick_shape(sh);
        const std::string c = b.fresh();
        b.body += "    " + c + " = stablehlo.compare GT, " + x.name + ", " + y.name + " : (" + type(sh) + ", " + type(sh) + ") -> " +
                  type_of(sh, "i1") + "\n";
        b.add("stablehlo.select " + c + ", " + x.name + ", " + y.name + " : " + type_of(sh, "i1") + ", " + type(sh), sh, r);
      } else if (op == "reduce_max") {  // a row maximum broadcast back
        const std::string z = b.fresh(), s1 = b.fresh();
        b.add("stablehlo.constant dense<0xFF800000> : tensor<f32>", {}, z);
        b.add("stablehlo.reduce(" + x.name + " init: " + z + ") applies stablehlo.maximum across dimensions = [1] : (" + type(sh) +
                  ", tensor<f32>) -> " + type({sh[0]}),
              {sh[0]}, s1);
        b.add("stablehlo.broadcast_in_dim " + s1 + ", dims = [0] : (" + type({sh[0]}) + ") -> " + type(sh), sh, r);
      } else if (op == "max_pool") {  // 2x2 windows, stride 1, padded at the end with -inf
        const std::string z = b.fresh();
        b.add("stablehlo.constant dense<0xFF800000> : tensor<f32>", {}, z);
        b.add("\"stablehlo.reduce_window\"(" + x.name + ", " + z +
                  ") ({\n      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):\n        %pm = stablehlo.maximum %pa, %pb : tensor<f32>\n"
                  "        stablehlo.return %pm : tensor<f32>\n    }) {padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, "
                  "window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>} : (" +
                  type(sh) + ", tensor<f32>) -> " + type(sh),
              sh, r);
      } else if (op == "select_and_scatter") {  // max-pool backward: 2x1 windows, stride 1, padded
        const Val src = b.pick_shape(sh);
        const std::string z = b.fresh();
        b.add("stablehlo.constant dense<0.0> : tensor<f32>", {}, z);
        b.add("\"stablehlo.select_and_scatter\"(" + x.name + ", " + src.name + ", " + z +
                  ") ({\n      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):\n        %sge = stablehlo.compare GE, %sa, %sb : "
                  "(tensor<f32>, tensor<f32>) -> tensor<i1>\n        stablehlo.return %sge : tensor<i1>\n    }, {\n"
                  "      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):\n        %ss = stablehlo.add %sc, %sd : tensor<f32>\n"
                  "        stablehlo.return %ss : tensor<f32>\n    }) {padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>, "
                  "window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>} : (" +
                  type(sh) + ", " + type(sh) + ", tensor<f32>) -> " + type(sh),
              sh, r);
      } else if (op == "convolution") {  // rows as a batch, one feature, a 3-tap kernel, same padding
        const std::string in = b.fresh(), k = b.fresh(), c = b.fresh();
        const std::vector<std::int64_t> s3 = {sh[0], 1, sh[1]};
        b.add("stablehlo.reshape " + x.name + " : (" + type(sh) + ") -> " + type(s3), s3, in);
        std::string taps;
        for (int t = 0; t < 3; ++t) taps += std::string(t ? ", " : "") + *rc::gen::element("0.5", "-1.25", "2.0", "0.1", "-3.0");
        b.add("stablehlo.constant dense<[[[" + taps + "]]]> : tensor<1x1x3xf32>", {1, 1, 3}, k);
        b.add("stablehlo.convolution(" + in + ", " + k +
                  ")\n      dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],\n      window = {stride = [1], pad = [[1, 1]], "
                  "lhs_dilate = [1], rhs_dilate = [1]}\n      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (" +
                  type(s3) + ", tensor<1x1x3xf32>) -> " + type(s3),
              s3, c);
        b.add("stablehlo.reshape " + c + " : (" + type(s3) + ") -> " + type(sh), sh, r);
      } else if (op == "transpose") {
        b.add("stablehlo.transpose " + x.name + ", dims = [1, 0] : (" + type(sh) + ") -> " + type({sh[1], sh[0]}), {sh[1], sh[0]}, r);
      } else if (op == "reverse") {
        b.add("stablehlo.reverse " + x.name + ", dims = " + list({*rc::gen::inRange<std::int64_t>(0, 2)}) + " : " + type(sh), sh, r);
      } else if (op == "slice") {
        const std::int64_t s0 = *rc::gen::inRange<std::int64_t>(0, sh[0]), s1 = *rc::gen::inRange<std::int64_t>(0, sh[1]);
        const std::int64_t l0 = *rc::gen::inRange<std::int64_t>(s0 + 1, sh[0] + 1), l1 = *rc::gen::inRange<std::int64_t>(s1 + 1, sh[1] + 1);
        const std::int64_t st = *rc::gen::inRange<std::int64_t>(1, 3);
        const std::vector<std::int64_t> out = {(l0 - s0 + st - 1) / st, l1 - s1};
        b.add("stablehlo.slice " + x.name + " [" + std::to_string(s0) + ":" + std::to_string(l0) + (st > 1 ? ":" + std::to_string(st) : "") +
                  ", " + std::to_string(s1) + ":" + std::to_string(l1) + "] : (" + type(sh) + ") -> " + type(out),
              out, r);
      } else if (op == "pad") {
        const std::string z = b.fresh();
        b.add("stablehlo.constant dense<" + std::string(*rc::gen::element("0.0", "-1.5", "2.0")) + "> : tensor<f32>", {}, z);
        const std::int64_t lo = *rc::gen::inRange<std::int64_t>(0, 2), hi = *rc::gen::inRange<std::int64_t>(0, 2),
                           in = *rc::gen::inRange<std::int64_t>(0, 2);
        const std::vector<std::int64_t> out = {lo + (sh[0] - 1) * (in + 1) + 1 + hi, sh[1]};
        b.add("stablehlo.pad " + x.name + ", " + z + ", low = [" + std::to_string(lo) + ", 0], high = [" + std::to_string(hi) +
                  ", 0], interior = [" + std::to_string(in) + ", 0] : (" + type(sh) + ", tensor<f32>) -> " + type(out),
              out, r);
      } else if (op == "concatenate") {
        const std::vector<std::int64_t> out = {2 * sh[0], sh[1]};
        b.add("stablehlo.concatenate " + x.name + ", " + x.name + ", dim = 0 : (" + type(sh) + ", " + type(sh) + ") -> " + type(out), out, r);
      } else if (op == "reduce_bcast") {  // a row sum broadcast back
        const std::string z = b.fresh(), s1 = b.fresh();
        b.add("stablehlo.constant dense<0.0> : tensor<f32>", {}, z);
        b.add("stablehlo.reduce(" + x.name + " init: " + z + ") applies stablehlo.add across dimensions = [1] : (" + type(sh) +
                  ", tensor<f32>) -> " + type({sh[0]}),
              {sh[0]}, s1);
        b.add("stablehlo.broadcast_in_dim " + s1 + ", dims = [0] : (" + type({sh[0]}) + ") -> " + type(sh), sh, r);
      } else {  // dot_general x^T x: [c, r] x [r, c]
        b.add("stablehlo.dot_general " + x.name + ", " + x.name + ", contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (" +
                  type(sh) + ", " + type(sh) + ") -> " + type({sh[1], sh[1]}),
              {sh[1], sh[1]}, r);
      }
    }
    const Val& last = b.vals.back();
    tc.text = "module @m {\n  func.func @ops(" + sig + ") -> " + type(last.shape) + " {\n" + b.body + "    return " + last.name + " : " +
              type(last.shape) + "\n  }\n}\n";
    return tc;
  });
}

}  // namespace shlo::fuzz
