// The IEEE inner kernel of dot_general and convolution: C[m][n] = C[m][n] + A[m][k] * B[k][n]
// for k = 0, 1, ... in order, each product rounded and then added (never fused). Compiled
// for AVX2 and for baseline x86-64, chosen at load time: the vector width changes, the
// arithmetic per element does not, so results are bit-identical on every machine.
#pragma once

#include <cstdint>

namespace shlo::ops {

void matmul_accumulate(const double* A, const double* B, double* C, std::int64_t M, std::int64_t K, std::int64_t N);
void matmul_accumulate(const float* A, const float* B, float* C, std::int64_t M, std::int64_t K, std::int64_t N);

}  // namespace shlo::ops
