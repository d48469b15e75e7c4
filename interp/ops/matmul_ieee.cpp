#include "interp/ops/matmul_ieee.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace shlo::ops {

namespace {

// Two 256-bit vectors of S (GCC's vector extension: elementwise + and *, each rounded as the
// scalar operation is; -ffp-contract=off keeps them unfused). The baseline clone splits them.
template <class S>
struct VectorOf;
template <>
struct VectorOf<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct VectorOf<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <class S>
using Vec = typename VectorOf<S>::type;

// (Through references: a vector returned by value would change the baseline clone's ABI.)
template <class S>
__attribute__((always_inline)) inline void load(Vec<S>& v, const S* p) {
  std::memcpy(&v, p, sizeof v);
}

template <class S>
__attribute__((always_inline)) inline void store(S* p, const Vec<S>& v) {
  std::memcpy(p, &v, sizeof v);
}

// A block of C, kRows rows (4, or the 1 to 3 left at the bottom) x 2 vectors, held in
// registers across all of k: each k loads kRows values of A and 2 vectors of B and does
// 2 kRows vector multiplies and adds, with no load or store of C. Every element still sums
// acc = acc + a * b over k in increasing order.
template <int kRows, class S>
__attribute__((always_inline)) inline void register_block(const S* A, const S* B, S* C, std::int64_t K, std::int64_t N,
                                                          std::int64_t B_stride) {
  constexpr int kLanes = 32 / sizeof(S);
  Vec<S> acc[kRows][2];
  for (int i = 0; i < kRows; ++i) {
    load(acc[i][0], C + i * N);
    load(acc[i][1], C + i * N + kLanes);
  }
  for (std::int64_t k = 0; k < K; ++k) {
    Vec<S> b0, b1;
    load(b0, B + k * B_stride);
    load(b1, B + k * B_stride + kLanes);
    for (int i = 0; i < kRows; ++i) {
      const S a = A[i * K + k];
      acc[i][0] = acc[i][0] + a * b0;
      acc[i][1] = acc[i][1] + a * b1;
    }
  }
  for (int i = 0; i < kRows; ++i) {
    store(C + i * N, acc[i][0]);
    store(C + i * N + kLanes, acc[i][1]);
  }
}

// Rows m0 .. m1 of C, columns n0 .. n1, one row at a time: the loop over n vectorises, C is
// loaded and stored once per k (the edges the register blocks leave).
template <class S>
__attribute__((always_inline)) inline void row_by_row(const S* A, const S* B, S* C, std::int64_t m0, std::int64_t m1, std::int64_t K,
                                                      std::int64_t N, std::int64_t n0, std::int64_t n1) {
  for (std::int64_t m = m0; m < m1; ++m) {
    S* __restrict c = C + m * N;
    for (std::int64_t k = 0; k < K; ++k) {
      const S a = A[m * K + k];
      const S* __restrict b = B + k * N;
      for (std::int64_t n = n0; n < n1; ++n) c[n] = c[n] + a * b[n];
    }
  }
}

// Columns in strips of two 256-bit vectors (8 doubles, 16 floats); each strip of B is first
// copied into a contiguous K x strip buffer (rows of B a power-of-two apart would all fall in
// one cache set), then every four rows of C run in registers against it, and the 1 to 3 rows
// left at the bottom in a smaller register block (row by row they would load and store C once
// per k: a weight gradient's product of 27 rows spent a fifth of its time on its last 3).
template <class S>
__attribute__((always_inline)) inline void blocked(const S* A, const S* B, S* C, std::int64_t M, std::int64_t K, std::int64_t N) {
  constexpr int kRows = 4, kCols = 64 / static_cast<int>(sizeof(S));  // two vectors
  const std::int64_t full_rows = M / kRows * kRows, full_cols = N / kCols * kCols;
  if (full_cols > 0) {
    thread_local std::vector<S> strip;
    strip.resize(static_cast<std::size_t>(K * kCols));
    for (std::int64_t n0 = 0; n0 < full_cols; n0 += kCols) {
      for (std::int64_t k = 0; k < K; ++k) std::memcpy(strip.data() + k * kCols, B + k * N + n0, sizeof(S) * kCols);
      for (std::int64_t m = 0; m < full_rows; m += kRows) register_block<kRows>(A + m * K, strip.data(), C + m * N + n0, K, N, kCols);
      const S* A_left = A + full_rows * K;
      S* C_left = C + full_rows * N + n0;
      switch (M - full_rows) {
        case 3: register_block<3>(A_left, strip.data(), C_left, K, N, kCols); break;
        case 2: register_block<2>(A_left, strip.data(), C_left, K, N, kCols); break;
        case 1: register_block<1>(A_left, strip.data(), C_left, K, N, kCols); break;
        default: break;
      }
    }
  }
  if (full_cols < N) row_by_row(A, B, C, 0, M, K, N, full_cols, N);
}

}  // namespace

__attribute__((target_clones("avx2", "default")))
void matmul_accumulate(const double* A, const double* B, double* C, std::int64_t M, std::int64_t K, std::int64_t N) {
  blocked(A, B, C, M, K, N);
}

__attribute__((target_clones("avx2", "default")))
void matmul_accumulate(const float* A, const float* B, float* C, std::int64_t M, std::int64_t K, std::int64_t N) {
  blocked(A, B, C, M, K, N);
}

}  // namespace shlo::ops
