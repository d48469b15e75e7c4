// The float32 kernels of the CUDA path: one functor per op kind, `operator()(i)` computing
// output element i. The same code runs in a CUDA kernel (one thread per element) and in the
// host backend's loop, so the tests exercise every kernel body on a CPU.
//
// Arithmetic: + - * / sqrt through the _rn intrinsics on the device (never contracted to
// FMA) and plain operators on the host (built with -ffp-contract=off): bit-identical.
// exp, log, tanh: expf, logf, tanhf of each side's library (CUDA's within 2, 1, 2 ulps;
// glibc's within 1, 1, 2); rsqrt: rsqrtf on the device (2 ulps), 1/sqrtf on the host;
// logistic = 1/(1 + expf(-x)). Sums run in the interpreter's documented order.
//
// Plain C++17 with fixed-size arrays: nvcc compiles this header for both sides.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define SHLO_HD __host__ __device__
#else
#define SHLO_HD
#endif

namespace shlo::cuda {

constexpr int kMaxRank = 8;

enum class UnaryOp : std::uint8_t { Negate, Abs, Exp, Log, Sqrt, Rsqrt, Tanh, Logistic, ToBf16, Copy };
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Max, Min };
enum class CmpOp : std::uint8_t { EQ, NE, LT, LE, GT, GE };

SHLO_HD inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SHLO_HD inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SHLO_HD inline float div_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
SHLO_HD inline float sqrt_rn(float a) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
SHLO_HD inline float rsqrt_f(float a) {
#ifdef __CUDA_ARCH__
  return rsqrtf(a);
#else
  return 1.0f / std::sqrt(a);
#endif
}
SHLO_HD inline bool sign_bit(float x) {
  std::uint32_t b;
  memcpy(&b, &x, 4);
  return (b >> 31) != 0;
}
// IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0 (as the f32 domain).
SHLO_HD inline float max_ieee(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == 0 && b == 0) return sign_bit(a) ? b : a;
  return a >= b ? a : b;
}
SHLO_HD inline float min_ieee(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == 0 && b == 0) return sign_bit(a) ? a : b;
  return a <= b ? a : b;
}
// Round to nearest even into bfloat16 (8 significand bits), kept as a float.
SHLO_HD inline float to_bf16(float x) {
  if (x != x) return x;
  std::uint32_t b;
  memcpy(&b, &x, 4);
  b += 0x7FFFu + ((b >> 16) & 1u);
  b &= 0xFFFF0000u;
  float r;
  memcpy(&r, &b, 4);
  return r;
}

SHLO_HD inline float unary(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::Negate: return -x;
    case UnaryOp::Abs: return fabsf(x);
    case UnaryOp::Exp: return expf(x);
    case UnaryOp::Log: return logf(x);
    case UnaryOp::Sqrt: return sqrt_rn(x);
    case UnaryOp::Rsqrt: return rsqrt_f(x);
    case UnaryOp::Tanh: return tanhf(x);
    case UnaryOp::Logistic: return div_rn(1.0f, add_rn(1.0f, expf(-x)));
    case UnaryOp::ToBf16: return to_bf16(x);
    case UnaryOp::Copy: return x;
  }
  return x;
}

SHLO_HD inline float binary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return add_rn(a, b);
    case BinaryOp::Sub: return add_rn(a, -b);
    case BinaryOp::Mul: return mul_rn(a, b);
    case BinaryOp::Div: return div_rn(a, b);
    case BinaryOp::Max: return max_ieee(a, b);
    case BinaryOp::Min: return min_ieee(a, b);
  }
  return a;
}

SHLO_HD inline bool compare(CmpOp op, float a, float b) {
  switch (op) {
    case CmpOp::EQ: return a == b;
    case CmpOp::NE: return a != b;
    case CmpOp::LT: return a < b;
    case CmpOp::LE: return a <= b;
    case CmpOp::GT: return a > b;
    case CmpOp::GE: return a >= b;
  }
  return false;
}

// Row-major multi-index of flat i over shape[0..rank).
SHLO_HD inline void unravel_index(std::int64_t i, int rank, const std::int64_t* shape, std::int64_t* idx) {
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = shape[d] > 0 ? i % shape[d] : 0;
    if (shape[d] > 0) i /= shape[d];
  }
}

// --- the kernels ----------------------------------------------------------------------------

struct UnaryK {
  UnaryOp op;
  const float* in;
  float* out;
  SHLO_HD void operator()(std::int64_t i) const { out[i] = unary(op, in[i]); }
};

struct BinaryK {
  BinaryOp op;
  const float *a, *b;
  float* out;
  SHLO_HD void operator()(std::int64_t i) const { out[i] = binary(op, a[i], b[i]); }
};

struct CompareK {
  CmpOp op;
  const float *a, *b;
  std::uint8_t* out;
  SHLO_HD void operator()(std::int64_t i) const { out[i] = compare(op, a[i], b[i]) ? 1 : 0; }
};

struct LogicK {  // and / or on i1
  bool is_and;
  const std::uint8_t *a, *b;
  std::uint8_t* out;
  SHLO_HD void operator()(std::int64_t i) const { out[i] = is_and ? (a[i] & b[i]) : (a[i] | b[i]); }
};

struct SelectK {
  const std::uint8_t* pred;
  bool scalar_pred;
  const float *on_true, *on_false;
  float* out;
  SHLO_HD void operator()(std::int64_t i) const { out[i] = pred[scalar_pred ? 0 : i] ? on_true[i] : on_false[i]; }
};

// out[c] = in[base + sum_d q_d stride_d] with q_d = (c_d - low_d) / step_d when that divides
// and 0 <= q_d < extent_d, else the pad value: broadcast (stride 0), transpose (permuted
// strides), reverse (negative strides), slice (scaled strides), pad (low, interior steps),
// reshape (one dimension). Element type T: float or i1.
template <class T>
struct GatherK {
  int rank;
  std::int64_t shape[kMaxRank], stride[kMaxRank], low[kMaxRank], step[kMaxRank], extent[kMaxRank];
  std::int64_t base;
  T pad;
  const T* in;
  T* out;
  SHLO_HD void operator()(std::int64_t i) const {
    std::int64_t idx[kMaxRank];
    unravel_index(i, rank, shape, idx);
    std::int64_t src = base;
    for (int d = 0; d < rank; ++d) {
      const std::int64_t p = idx[d] - low[d];
      if (p < 0 || p % step[d] != 0 || p / step[d] >= extent[d]) {
        out[i] = pad;
        return;
      }
      src += (p / step[d]) * stride[d];
    }
    out[i] = in[src];
  }
};

// out[base + sum_d c_d out_stride_d] = in[i]: one operand of a concatenate.
template <class T>
struct PlaceK {
  int rank;
  std::int64_t shape[kMaxRank], out_stride[kMaxRank];
  std::int64_t base;
  const T* in;
  T* out;
  SHLO_HD void operator()(std::int64_t i) const {
    std::int64_t idx[kMaxRank];
    unravel_index(i, rank, shape, idx);
    std::int64_t dst = base;
    for (int d = 0; d < rank; ++d) dst += idx[d] * out_stride[d];
    out[dst] = in[i];
  }
};

struct IotaK {
  int rank, dim;
  std::int64_t shape[kMaxRank];
  float* out;
  SHLO_HD void operator()(std::int64_t i) const {
    std::int64_t idx[kMaxRank];
    unravel_index(i, rank, shape, idx);
    out[i] = static_cast<float>(idx[dim]);
  }
};

// C[b][m][n] = sum over k in increasing order of A[b][m][k] * B[b][k][n], from +0.
struct MatmulK {
  std::int64_t M, K, N;
  const float *A, *B;
  float* C;
  SHLO_HD void operator()(std::int64_t i) const {
    const std::int64_t n = i % N, m = (i / N) % M, b = i / (M * N);
    const float* a = A + (b * M + m) * K;
    const float* bb = B + b * K * N + n;
    float acc = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) acc = add_rn(acc, mul_rn(a[k], bb[k * N]));
    C[i] = acc;
  }
};

// Convolution on canonical layouts: input [N_in][C][spatial...] already padded and
// lhs-dilated, kernel [O][Cg][window...], output [N_out][O][out...]. Per output element the
// sum runs over window positions (lexicographic) and, within each, the input features: the
// interpreter's order.
struct ConvK {
  int spatial;
  std::int64_t n_out, O, Cg, C, in_images, fg, bg;
  std::int64_t in_sp[3], win[3], out_sp[3], stride[3], dilation[3];
  const float *in, *kernel;
  float* out;
  SHLO_HD void operator()(std::int64_t i) const {
    std::int64_t pos[3] = {0, 0, 0};
    std::int64_t rest = i, X = 1, W = 1, Xin = 1;
    for (int s = spatial - 1; s >= 0; --s) {
      pos[s] = rest % out_sp[s];
      rest /= out_sp[s];
    }
    for (int s = 0; s < spatial; ++s) {
      X *= out_sp[s];
      W *= win[s];
      Xin *= in_sp[s];
    }
    const std::int64_t o = rest % O, n = rest / O;
    const std::int64_t groups = fg * bg, Og = O / groups, g = o / Og;
    const std::int64_t c0 = fg > 1 ? g * Cg : 0, n_in = bg > 1 ? n + g * n_out : n;
    float acc = 0.0f;
    for (std::int64_t kp = 0; kp < W; ++kp) {
      std::int64_t kidx[3] = {0, 0, 0}, r = kp;
      for (int s = spatial - 1; s >= 0; --s) {
        kidx[s] = r % win[s];
        r /= win[s];
      }
      std::int64_t off = 0;
      for (int s = 0; s < spatial; ++s) off = off * in_sp[s] + pos[s] * stride[s] + kidx[s] * dilation[s];
      for (std::int64_t ci = 0; ci < Cg; ++ci) {
        const float x = in[(n_in * C + c0 + ci) * Xin + off];
        const float w = kernel[(o * Cg + ci) * W + kp];
        acc = add_rn(acc, mul_rn(x, w));
      }
    }
    out[i] = acc;
  }
};

// out[o] = fold from init over the reduced elements in row-major order (reduce), or over a
// window of an input already padded (reduce_window).
struct FoldK {
  BinaryOp op;
  float init;
  int out_rank, inner_rank;
  std::int64_t out_shape[kMaxRank], out_stride[kMaxRank];      // input offset per output index step
  std::int64_t inner_shape[kMaxRank], inner_stride[kMaxRank];  // the reduced dims / window dims
  const float* in;
  float* out;
  SHLO_HD void operator()(std::int64_t i) const {
    std::int64_t idx[kMaxRank];
    unravel_index(i, out_rank, out_shape, idx);
    std::int64_t base = 0, count = 1;
    for (int d = 0; d < out_rank; ++d) base += idx[d] * out_stride[d];
    for (int d = 0; d < inner_rank; ++d) count *= inner_shape[d];
    float acc = init;
    for (std::int64_t k = 0; k < count; ++k) {
      std::int64_t kidx[kMaxRank];
      unravel_index(k, inner_rank, inner_shape, kidx);
      std::int64_t off = base;
      for (int d = 0; d < inner_rank; ++d) off += kidx[d] * inner_stride[d];
      acc = binary(op, acc, in[off]);
    }
    out[i] = acc;
  }
};

// select_and_scatter, step 1: per source element, the operand offset its window selects
// (select(current, candidate) keeps current when true; -1 if the window is all padding).
struct SelectWindowK {
  CmpOp select;
  int rank;
  std::int64_t source_shape[kMaxRank], operand_shape[kMaxRank], operand_stride[kMaxRank], window[kMaxRank], stride[kMaxRank],
      pad_low[kMaxRank];
  const float* operand;
  std::int64_t* selected;
  SHLO_HD void operator()(std::int64_t s) const {
    std::int64_t widx[kMaxRank], kidx[kMaxRank];
    unravel_index(s, rank, source_shape, widx);
    std::int64_t n = 1, best = -1;
    for (int d = 0; d < rank; ++d) n *= window[d];
    for (std::int64_t k = 0; k < n; ++k) {
      unravel_index(k, rank, window, kidx);
      std::int64_t off = 0;
      bool inside = true;
      for (int d = 0; d < rank; ++d) {
        const std::int64_t p = widx[d] * stride[d] + kidx[d] - pad_low[d];
        inside = inside && p >= 0 && p < operand_shape[d];
        off += p * operand_stride[d];
      }
      if (inside && (best < 0 || !compare(select, operand[best], operand[off]))) best = off;
    }
    selected[s] = best;
  }
};

// Step 2: per operand element, init then every source selecting it, in row-major source order.
struct ScatterK {
  BinaryOp op;
  float init;
  int rank;
  std::int64_t source_shape[kMaxRank], operand_shape[kMaxRank], window[kMaxRank], stride[kMaxRank], pad_low[kMaxRank];
  const float* source;
  const std::int64_t* selected;
  float* out;
  SHLO_HD void operator()(std::int64_t p) const {
    std::int64_t pidx[kMaxRank], lo[kMaxRank], hi[kMaxRank], cur[kMaxRank];
    unravel_index(p, rank, operand_shape, pidx);
    for (int d = 0; d < rank; ++d) {  // windows w with w*stride <= p + pad_low < w*stride + window
      const std::int64_t q = pidx[d] + pad_low[d];
      lo[d] = q - window[d] + 1 <= 0 ? 0 : (q - window[d] + 1 + stride[d] - 1) / stride[d];
      hi[d] = q / stride[d];
      if (hi[d] >= source_shape[d]) hi[d] = source_shape[d] - 1;
      if (lo[d] > hi[d]) {
        out[p] = init;
        return;
      }
      cur[d] = lo[d];
    }
    float acc = init;
    for (;;) {
      std::int64_t s = 0;
      for (int d = 0; d < rank; ++d) s = s * source_shape[d] + cur[d];
      if (selected[s] == p) acc = binary(op, acc, source[s]);
      int d = rank - 1;
      for (; d >= 0; --d) {
        if (++cur[d] <= hi[d]) break;
        cur[d] = lo[d];
      }
      if (d < 0) break;
    }
    out[p] = acc;
  }
};

#define SHLO_CUDA_KERNELS(X) \
  X(UnaryK) X(BinaryK) X(CompareK) X(LogicK) X(SelectK) X(GatherK<float>) X(GatherK<std::uint8_t>) X(PlaceK<float>) \
  X(PlaceK<std::uint8_t>) X(IotaK) X(MatmulK) X(ConvK) X(FoldK) X(SelectWindowK) X(ScatterK)

}  // namespace shlo::cuda
