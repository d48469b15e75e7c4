// Shared by the statistical tier's tests (test_stat_tier.cpp, test_stat_conv.cpp): random
// inputs, float32 values reduced to TF32 or bf16, and the two routes that compute a program's
// outputs with every matmul's and convolution's operands so reduced, independently of the
// bound analysis: a plain loop for the small convolutional program below, and for any program
// the f32 run of its text with the rounding written into the text.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ast/program.hpp"
#include "interp/bound/bound.hpp"
#include "interp/npy.hpp"
#include "oracle/float_check.hpp"

namespace shlo::test {

using Arrays = std::vector<NpyArray>;

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

inline NpyArray f32_array(const Shape& shape, std::vector<float> v) { return NpyArray{shape, std::move(v)}; }
inline const std::vector<float>& data(const NpyArray& a) { return std::get<std::vector<float>>(a.data); }

/// One array per argument of m, uniform in [lo, hi) from seed.
inline Arrays random_inputs(const Module& m, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Arrays in;
  for (const auto& a : m.function().arguments) {
    std::vector<float> v(static_cast<std::size_t>(num_elements(a.type.shape)));
    for (auto& x : v) x = u(gen);
    in.push_back(f32_array(a.type.shape, std::move(v)));
  }
  return in;
}

/// x rounded to nearest (ties to even) with `bits` stored mantissa bits: TF32 10, bf16 7.
inline float reduced(float x, int bits) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  const int drop = 23 - bits;
  const std::uint32_t half = 1u << (drop - 1), low = b & ((1u << drop) - 1);
  b -= low;
  if (low > half || (low == half && (b >> drop) & 1)) b += 1u << drop;
  float y;
  std::memcpy(&y, &b, 4);
  return y;
}

/// A verdict that says the outputs are wrong: IMPROBABLE or FAIL.
inline bool caught(Verdict v) { return v == Verdict::Improbable || v == Verdict::Fail; }

/// The hidden diagnostics' settings: an environment variable, or `fallback` when unset or empty.
inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
/// "LO,HI" read as two floats.
inline std::pair<float, float> range_of(const std::string& text) {
  return {std::stof(text.substr(0, text.find(','))), std::stof(text.substr(text.find(',') + 1))};
}

inline std::string artifact(const char* name) { return std::string(SHLO_ARTIFACTS_DIR) + "/" + name + ".mlir"; }

/// One sum of 4096 inputs (%x: tensor<4096xf32>), the result a scalar.
inline constexpr const char* kSumOf4096 = R"(module @m {
  func.func @f(%x: tensor<4096xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    return %t : tensor<f32>
  }
})";

struct Range {
  float lo, hi;
};
inline const Range kRanges[] = {{-1, 1}, {-0.1f, 0.1f}, {0, 0.01f}};

/// A small convolutional network: a 3x3 convolution (pad 1) of a 4 x 3 x 8 x 8 batch to 8
/// features, its bias, relu, and a dense layer to 10 classes with its bias. Sums of 27 terms
/// in the convolution, 512 in the dense layer: it runs in well under a second in every domain.
inline const char* const kSmallConv = R"(module @m {
  func.func @small_conv(%x: tensor<4x3x8x8xf32>, %W1: tensor<8x3x3x3xf32>, %b1: tensor<8xf32>, %W2: tensor<512x10xf32>, %b2: tensor<10xf32>) -> tensor<4x10xf32> {
    %v1 = stablehlo.convolution(%x, %W1)
      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
      window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32>
    %v2 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<8xf32>) -> tensor<4x8x8x8xf32>
    %v3 = stablehlo.add %v1, %v2 : tensor<4x8x8x8xf32>
    %v4 = stablehlo.constant dense<0.0> : tensor<4x8x8x8xf32>
    %v5 = stablehlo.maximum %v3, %v4 : tensor<4x8x8x8xf32>
    %v6 = stablehlo.reshape %v5 : (tensor<4x8x8x8xf32>) -> tensor<4x512xf32>
    %v7 = stablehlo.dot_general %v6, %W2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x512xf32>, tensor<512x10xf32>) -> tensor<4x10xf32>
    %v8 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<4x10xf32>
    %v9 = stablehlo.add %v7, %v8 : tensor<4x10xf32>
    return %v9 : tensor<4x10xf32>
  }
})";

// cnn_train_step and cnn_fwd at a test's scale: a batch of 4, 8 x 8 images, 8 features, 16
// hidden units (the flattened sizes follow: 784 = 28 x 28, 25088 = 32 x 784, 6272 = 32 x 196).
inline const std::map<std::int64_t, std::int64_t> kSmallCnn = {{128, 4}, {784, 64}, {28, 8}, {14, 4}, {32, 8}, {25088, 512}, {6272, 128}, {512, 16}};
// mlp_train_step's at a test's scale: a batch of 8, 64 inputs, 32 hidden units.
inline const std::map<std::int64_t, std::int64_t> kSmallMlp = {{128, 8}, {784, 64}, {512, 32}};

/// The plain loop: kSmallConv on `in` with the convolution's and the dot's operands reduced to
/// `bits` (23: float32 itself), each sum of products taken in double and rounded once, the
/// biases added and relu applied in float32.
std::vector<float> small_conv_forward(const Arrays& in, int bits);

/// The text route: `text` with both operands of every dot_general and convolution rounded to
/// `bits` stored mantissa bits before the op, by Veltkamp's splitting written as ops
/// (c = x * (2^(23-bits) + 1), x' = c - (c - x): in float32, x rounded to nearest even on
/// bits + 1 significant bits). Throws std::invalid_argument when an op's operands or types
/// are not where the printer writes them.
std::string with_rounded_operands(const std::string& text, int bits);

/// Every dimension size of every tensor type in `text` replaced through `sizes` (the others
/// kept): the printer's programs at a test's scale (a batch of 128 made 4, 28 x 28 images
/// 8 x 8, ...). The caller keeps the sizes consistent (flattened sizes are products).
std::string with_sizes(const std::string& text, const std::map<std::int64_t, std::int64_t>& sizes);

/// cifar8_bn_fwd's text at a batch of 8, as `shlo rebatch` makes it (ast/rebatch.hpp; test_rebatch.cpp compares the two): every leading 128 is
/// the batch but the first dense layer's weight %W9 (128 features, 32 x 2 x 2, to 64).
std::string cifar8_bn_fwd_at_8(std::string text);

/// The f32 outputs of `text` (one replica) on `in`.
Arrays f32_outputs(const std::string& text, const Arrays& in);
/// The f32 outputs of `text` on in.size() replicas, replica r's inputs in[r].
std::vector<Arrays> f32_outputs(const std::string& text, const std::vector<Arrays>& in);
/// The three output sets issue 17's tests judge, each one replica's: float32, then float32 with
/// every dot_general's and convolution's operands rounded to TF32, then to bf16.
std::vector<std::vector<Arrays>> float32_tf32_bf16_outputs(const std::string& text, const Arrays& in);

/// A closed bound-domain value built by hand: exact value x, sound bound err, plain part pdet
/// and random part sigma.
inline BoundScalar closed_scalar(double x, double err, float pdet, double sigma) {
  BoundScalar s;
  s.lo = s.hi = x;
  s.err = err;
  s.pdet = pdet;
  s.st.sigma = sigma;
  return s;
}

/// `shlo check` of one replica's float32 outputs under the ieee profile, default options.
CheckReport check_ieee(const Module& m, const Arrays& inputs, const Arrays& outputs);

/// Each output of m on `in` in the bound domain, closed.
std::vector<std::vector<BoundScalar>> bound_outputs(const BoundDomain& d, const Module& m, const Arrays& in);

// A relu's backward select: element 0's gradient is NaN in every evaluation (exp(100) overflows:
// inf - inf), element 1's a number; h = 1 - a * b is exactly -3e-8 for a = 3 and b = float(1/3),
// below 0, while the float product may round either way, so the float comparison may flip.
inline constexpr const char* kReluBackward = R"(module {
  func.func @main(%x: tensor<2xf32>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
    %e = stablehlo.exponential %x : tensor<2xf32>
    %g = stablehlo.subtract %e, %e : tensor<2xf32>
    %one = stablehlo.constant dense<1.0> : tensor<2xf32>
    %p = stablehlo.multiply %a, %b : tensor<2xf32>
    %h = stablehlo.subtract %one, %p : tensor<2xf32>
    %zeros = stablehlo.constant dense<0.0> : tensor<2xf32>
    %on = stablehlo.compare GT, %h, %zeros : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %d = stablehlo.select %on, %g, %zeros : tensor<2xi1>, tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    return %d, %s : tensor<2xf32>, tensor<f32>
  }
})";

}  // namespace shlo::test
