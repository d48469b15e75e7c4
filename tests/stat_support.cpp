// The routes of tests/stat_support.hpp that compute outputs with reduced matmul operands.
#include "tests/stat_support.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "ast/mlir_parse.hpp"
#include "interp/bound/bound.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/run.hpp"

namespace shlo::test {

std::vector<float> small_conv_forward(const Arrays& in, int bits) {
  const auto rd = [&](float v) { return bits < 23 ? reduced(v, bits) : v; };
  const auto &x = data(in[0]), &W1 = data(in[1]), &b1 = data(in[2]), &W2 = data(in[3]), &b2 = data(in[4]);
  constexpr int kBatch = 4, kIn = 3, kOut = 8, kSide = 8, kKernel = 3, kClasses = 10, kFlat = kOut * kSide * kSide;
  // hidden[b][o * 64 + i * 8 + j] = relu(b1[o] + sum over c, ki, kj of x[b][c][i + ki - 1][j + kj - 1] W1[o][c][ki][kj]),
  // the zero padding left out of the sum.
  std::vector<float> hidden(kBatch * kFlat);
  for (int b = 0; b < kBatch; ++b)
    for (int o = 0; o < kOut; ++o)
      for (int i = 0; i < kSide; ++i)
        for (int j = 0; j < kSide; ++j) {
          double s = 0;
          for (int c = 0; c < kIn; ++c)
            for (int ki = 0; ki < kKernel; ++ki)
              for (int kj = 0; kj < kKernel; ++kj) {
                const int r = i + ki - 1, q = j + kj - 1;
                if (r < 0 || r >= kSide || q < 0 || q >= kSide) continue;
                s += static_cast<double>(rd(x[static_cast<std::size_t>(((b * kIn + c) * kSide + r) * kSide + q)])) *
                     rd(W1[static_cast<std::size_t>(((o * kIn + c) * kKernel + ki) * kKernel + kj)]);
              }
          const float v = static_cast<float>(s) + b1[static_cast<std::size_t>(o)];
          hidden[static_cast<std::size_t>(b * kFlat + (o * kSide + i) * kSide + j)] = std::max(v, 0.0f);
        }
  std::vector<float> out(kBatch * kClasses);
  for (int b = 0; b < kBatch; ++b)
    for (int k = 0; k < kClasses; ++k) {
      double s = 0;
      for (int f = 0; f < kFlat; ++f)
        s += static_cast<double>(rd(hidden[static_cast<std::size_t>(b * kFlat + f)])) * rd(W2[static_cast<std::size_t>(f * kClasses + k)]);
      out[static_cast<std::size_t>(b * kClasses + k)] = static_cast<float>(s) + b2[static_cast<std::size_t>(k)];
    }
  return out;
}

namespace {

// The two operand types of an op whose signature ends "... : (T1, T2) -> T3" on `line`.
std::pair<std::string, std::string> operand_types(const std::string& line) {
  const std::size_t open = line.rfind(" : ("), arrow = line.rfind(") -> ");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open) throw std::invalid_argument("no operand types in: " + line);
  const std::string both = line.substr(open + 4, arrow - open - 4);
  const std::size_t comma = both.find(", tensor<");
  if (comma == std::string::npos) throw std::invalid_argument("not two operand types in: " + line);
  return {both.substr(0, comma), both.substr(comma + 2)};
}

}  // namespace

std::string with_rounded_operands(const std::string& text, int bits) {
  if (bits >= 23) return text;
  char factor[32];
  std::snprintf(factor, sizeof factor, "%u.0", (1u << (23 - bits)) + 1);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  int rounded = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    const bool dot = line.find("stablehlo.dot_general %") != std::string::npos;
    const bool conv = line.find("stablehlo.convolution(%") != std::string::npos;
    if (!dot && !conv) {
      out += line + "\n";
      continue;
    }
    // The operands "%a, %b": after the op's name, up to ", contracting_dims" or ")".
    const std::size_t begin = line.find('%', line.find(dot ? "stablehlo.dot_general" : "stablehlo.convolution("));
    const std::size_t end = dot ? line.find(", contracting_dims", begin) : line.find(')', begin);
    const std::size_t comma = line.find(", ", begin);
    if (end == std::string::npos || comma == std::string::npos || comma > end) throw std::invalid_argument("operands not found in: " + line);
    // A convolution's signature is on its last line (the first holding " : (").
    std::size_t last = i;
    while (last < lines.size() && lines[last].find(" : (") == std::string::npos) ++last;
    if (last == lines.size()) throw std::invalid_argument("no signature after: " + line);
    const auto [lhs_type, rhs_type] = operand_types(lines[last]);
    const std::string indent = line.substr(0, line.find_first_not_of(' '));
    const std::string operands[2] = {line.substr(begin, comma - begin), line.substr(comma + 2, end - comma - 2)};
    const std::string types[2] = {lhs_type, rhs_type};
    std::string names[2];
    for (int k = 0; k < 2; ++k) {
      const std::string r = "%rounded" + std::to_string(rounded++), x = operands[k], t = types[k];
      out += indent + r + "_k = stablehlo.constant dense<" + factor + "> : " + t + "\n";
      out += indent + r + "_c = stablehlo.multiply " + x + ", " + r + "_k : " + t + "\n";
      out += indent + r + "_d = stablehlo.subtract " + r + "_c, " + x + " : " + t + "\n";
      out += indent + r + " = stablehlo.subtract " + r + "_c, " + r + "_d : " + t + "\n";
      names[k] = r;
    }
    out += line.substr(0, begin) + names[0] + ", " + names[1] + line.substr(end) + "\n";
  }
  if (rounded == 0) throw std::invalid_argument("no dot_general or convolution to round");
  if (!text.empty() && text.back() != '\n') out.pop_back();
  return out;
}

std::string cifar8_bn_fwd_at_8(std::string text) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  };
  replace_all("tensor<128x", "tensor<8x");
  replace_all("%W9: tensor<8x64xf32>", "%W9: tensor<128x64xf32>");
  replace_all("(tensor<8x128xf32>, tensor<8x64xf32>)", "(tensor<8x128xf32>, tensor<128x64xf32>)");
  return text;
}

std::string with_sizes(const std::string& text, const std::map<std::int64_t, std::int64_t>& sizes) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t t; (t = text.find("tensor<", at)) != std::string::npos;) {
    std::size_t p = t + 7;
    out += text.substr(at, p - at);
    // Sizes: digits followed by 'x', up to the element type.
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) {
      std::size_t q = p;
      while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) ++q;
      if (q >= text.size() || text[q] != 'x') break;
      const std::int64_t size = std::stoll(text.substr(p, q - p));
      const auto found = sizes.find(size);
      out += std::to_string(found == sizes.end() ? size : found->second) + "x";
      p = q + 1;
    }
    at = p;
  }
  return out + text.substr(at);
}

std::vector<Arrays> f32_outputs(const std::string& text, const std::vector<Arrays>& in) {
  const Module m = parse_module(text, "rounded.mlir");
  std::vector<std::vector<Value<F32Domain>>> args(in.size());
  for (std::size_t r = 0; r < in.size(); ++r)
    for (const auto& a : in[r]) args[r].push_back(Tensor<float>(a.shape, data(a)));
  RunOptions options;
  options.replicas = static_cast<int>(in.size());
  const auto result = run_program(m, F32Domain{}, std::move(args), options);
  std::vector<Arrays> out(in.size());
  for (std::size_t r = 0; r < in.size(); ++r)
    for (const auto& v : result.outputs[r]) {
      const auto& t = std::get<Tensor<float>>(v);
      out[r].push_back(f32_array(t.shape, t.to_vector()));
    }
  return out;
}

Arrays f32_outputs(const std::string& text, const Arrays& in) { return f32_outputs(text, std::vector<Arrays>{in})[0]; }

std::vector<std::vector<Arrays>> float32_tf32_bf16_outputs(const std::string& text, const Arrays& in) {
  return {{f32_outputs(text, in)}, {f32_outputs(with_rounded_operands(text, 10), in)}, {f32_outputs(with_rounded_operands(text, 7), in)}};
}

std::vector<std::vector<BoundScalar>> bound_outputs(const BoundDomain& d, const Module& m, const Arrays& in) {
  std::vector<std::vector<Value<BoundDomain>>> args(1);
  for (const NpyArray& a : in) {
    std::vector<BoundScalar> v;
    for (float x : data(a)) v.push_back(d.from_double(x));
    args[0].push_back(Tensor<BoundScalar>(a.shape, std::move(v)));
  }
  std::vector<std::vector<BoundScalar>> out;
  const auto run = run_program(m, d, std::move(args), RunOptions{});
  for (const auto& o : run.outputs[0]) {
    std::vector<BoundScalar> v;
    for (const auto& s : std::get<Tensor<BoundScalar>>(o).data) v.push_back(d.closed(s));
    out.push_back(std::move(v));
  }
  return out;
}

CheckReport check_ieee(const Module& m, const Arrays& inputs, const Arrays& outputs) {
  return check_float_outputs(m, float_profile("ieee"), {inputs}, {outputs}, 1, {}, CheckOptions{});
}

}  // namespace shlo::test
