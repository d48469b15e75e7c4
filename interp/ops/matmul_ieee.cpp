#include "interp/ops/matmul_ieee.hpp"

#include <algorithm>

namespace shlo::ops {

namespace {

// Rows of C four at a time (each row of B is loaded once per four rows), columns in blocks
// that keep four accumulator rows in L1; the inner loop runs over n and vectorises.
template <class S>
inline void blocked(const S* A, const S* B, S* C, std::int64_t M, std::int64_t K, std::int64_t N) {
  constexpr std::int64_t kCols = 512;
  for (std::int64_t n0 = 0; n0 < N; n0 += kCols) {
    const std::int64_t n1 = std::min(N, n0 + kCols);
    std::int64_t m = 0;
    for (; m + 4 <= M; m += 4) {
      S* __restrict c0 = C + (m + 0) * N;
      S* __restrict c1 = C + (m + 1) * N;
      S* __restrict c2 = C + (m + 2) * N;
      S* __restrict c3 = C + (m + 3) * N;
      for (std::int64_t k = 0; k < K; ++k) {
        const S a0 = A[(m + 0) * K + k], a1 = A[(m + 1) * K + k], a2 = A[(m + 2) * K + k], a3 = A[(m + 3) * K + k];
        const S* __restrict b = B + k * N;
        for (std::int64_t n = n0; n < n1; ++n) {
          const S bn = b[n];
          c0[n] = c0[n] + a0 * bn;
          c1[n] = c1[n] + a1 * bn;
          c2[n] = c2[n] + a2 * bn;
          c3[n] = c3[n] + a3 * bn;
        }
      }
    }
    for (; m < M; ++m) {
      S* __restrict c = C + m * N;
      for (std::int64_t k = 0; k < K; ++k) {
        const S a = A[m * K + k];
        const S* __restrict b = B + k * N;
        for (std::int64_t n = n0; n < n1; ++n) c[n] = c[n] + a * b[n];
      }
    }
  }
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
