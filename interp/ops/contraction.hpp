// dot_general and convolution: the kernels where the time goes.
//
// Accumulation order (what makes f32/f64 results reproducible bit for bit, and equal to the
// StableHLO reference interpreter's): per result element, acc starts at +0 and
// acc = acc + lhs*rhs (product rounded, then the sum, never fused) over
//   dot_general: the contracting indices in lexicographic order of the lhs contracting
//                dimensions as listed (the last one fastest);
//   convolution: the window positions in lexicographic order of the spatial dimensions
//                (0, 1, ...), and within each position the input features (fastest). The
//                padding and lhs-dilation zeros take part in the products.
// The loops vectorise across result elements (never across the reduction), so the order
// above is kept in every lane.
// Spec: https://github.com/openxla/stablehlo/blob/main/docs/spec.md#dot_general, #convolution
#pragma once

#include <algorithm>
#include <exception>
#include <type_traits>

#include "ast/op_attributes.hpp"
#include "ast/program.hpp"
#include "interp/ops/common.hpp"
#include "interp/ops/matmul_ieee.hpp"
#include "interp/ops/movement.hpp"

namespace shlo::ops {

namespace detail {

inline std::vector<std::int64_t> remaining_dims(std::size_t rank, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(rank); ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) out.push_back(d);
  return out;
}

// Packs in[outer][middle][inner] (offset tables) into a dense row-major buffer.
template <class S>
std::vector<S> pack(const Tensor<S>& in, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                    const std::vector<std::int64_t>& c) {
  std::vector<S> out;
  out.reserve(a.size() * b.size() * c.size());
  for (auto x : a)
    for (auto y : b)
      for (auto z : c) out.push_back(in.data[static_cast<std::size_t>(x + y + z)]);
  return out;
}

// C[m][n] = C[m][n] + sum_k A[m][k] * B[k][n], per element in increasing k, for M x K
// times K x N row-major blocks: the vectorised IEEE kernel, or the same loop with the
// domain's in-place multiply-accumulate.
template <class D>
void matmul_block(const D& d, const typename D::Scalar* A, const typename D::Scalar* B, typename D::Scalar* C,
                  std::int64_t M, std::int64_t K, std::int64_t N) {
  // (Not for the ieee domain's element-typed arithmetic, which rounds after every operation.)
  if constexpr (std::is_floating_point_v<typename D::Scalar> && !requires { d.element(); }) {
    (void)d;
    matmul_accumulate(A, B, C, M, K, N);
  } else if constexpr (requires { d.matmul_accumulate(A, B, C, M, K, N); }) {
    d.matmul_accumulate(A, B, C, M, K, N);  // the same sums; the bound domain tiles them
  } else {
    // Tiles of B (kTile x kTile) stay in cache across every row of C: an untiled loop would
    // read all of B once per row, and B can be a whole activation (a weight gradient's), of
    // multiple-precision values. Each C element still sums over k in increasing order: the
    // k tiles of one column tile run one after another.
    constexpr std::int64_t kTile = 64;
    for (std::int64_t n0 = 0; n0 < N; n0 += kTile) {
      const std::int64_t n1 = std::min(N, n0 + kTile);
      for (std::int64_t k0 = 0; k0 < K; k0 += kTile) {
        const std::int64_t k1 = std::min(K, k0 + kTile);
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t k = k0; k < k1; ++k)
            for (std::int64_t n = n0; n < n1; ++n) d.mac(C[m * N + n], A[m * K + k], B[k * N + n]);
      }
    }
  }
}

// The same, its rows split over the threads when the product is large: one contiguous block
// per thread, the blocks as even as they can be with their bounds at multiples of 4 rows (the
// IEEE kernel's step; 9 rows on 2 threads are 4 + 5, not 8 + 1). Each element's sum is untouched.
template <class D>
void matmul_rows(const D& d, const typename D::Scalar* A, const typename D::Scalar* B, typename D::Scalar* C,
                 std::int64_t M, std::int64_t K, std::int64_t N) {
  const std::int64_t threads = thread_count();
  const double work = static_cast<double>(M) * static_cast<double>(K) * static_cast<double>(N);
  const double enough = std::is_floating_point_v<typename D::Scalar> ? 1 << 18 : 1 << 10;
  const SplitWork meter(M >= 8 && work >= enough);
  if (threads == 1 || M < 8 || work < enough) return matmul_block(d, A, B, C, M, K, N);
  const std::int64_t blocks = std::min<std::int64_t>(threads, M / 4);
  auto block_start = [&](std::int64_t b) { return b == blocks ? M : (M * b / blocks + 2) / 4 * 4; };  // nearest multiple of 4
  std::exception_ptr error;
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t m0 = block_start(b), m1 = block_start(b + 1);
    try {
      matmul_block(d, A + m0 * K, B, C + m0 * N, m1 - m0, K, N);
    } catch (...) {
#pragma omp critical(shlo_matmul_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace detail

// #dot_general: result dims are the batch dims, then lhs free dims, then rhs free dims.
template <class D>
Tensor<typename D::Scalar> dot_general(const D& d, const Tensor<typename D::Scalar>& lhs, const Tensor<typename D::Scalar>& rhs,
                                       const DotDimensions& a) {
  using S = typename D::Scalar;
  const auto lhs_free = detail::remaining_dims(lhs.shape.size(), a.lhs_batching, a.lhs_contracting);
  const auto rhs_free = detail::remaining_dims(rhs.shape.size(), a.rhs_batching, a.rhs_contracting);
  const auto lb = offsets_over(lhs.shape, a.lhs_batching);
  const auto lm = offsets_over(lhs.shape, lhs_free);
  const auto lk = offsets_over(lhs.shape, a.lhs_contracting);
  const auto rb = offsets_over(rhs.shape, a.rhs_batching);
  const auto rk = offsets_over(rhs.shape, a.rhs_contracting);
  const auto rn = offsets_over(rhs.shape, rhs_free);
  const auto B = static_cast<std::int64_t>(lb.size()), M = static_cast<std::int64_t>(lm.size()),
             K = static_cast<std::int64_t>(lk.size()), N = static_cast<std::int64_t>(rn.size());
  Shape shape;
  for (auto x : a.lhs_batching) shape.push_back(lhs.shape[static_cast<std::size_t>(x)]);
  for (auto x : lhs_free) shape.push_back(lhs.shape[static_cast<std::size_t>(x)]);
  for (auto x : rhs_free) shape.push_back(rhs.shape[static_cast<std::size_t>(x)]);
  const std::vector<S> A = detail::pack(lhs, lb, lm, lk);  // [B][M][K]
  const std::vector<S> Bm = detail::pack(rhs, rb, rk, rn); // [B][K][N]
  Tensor<S> out(shape, filled(num_elements(shape), d.from_rational(0)));
  try {
    for (std::int64_t b = 0; b < B; ++b)
      detail::matmul_rows(d, A.data() + b * M * K, Bm.data() + b * K * N, out.data.data() + b * M * N, M, K, N);
  } catch (const DomainError& e) {
    throw OpError(std::string(e.what()) + " (in the accumulation of a result element)");
  }
  return out;
}

// #convolution
template <class D>
Tensor<typename D::Scalar> convolution(const D& d, const Tensor<typename D::Scalar>& lhs, const Tensor<typename D::Scalar>& rhs,
                                       const ConvolutionAttributes& a, const Shape& result_shape) {
  using S = typename D::Scalar;
  const auto& c = a.dims;
  const std::size_t spatial = c.input_spatial.size();
  const S zero = d.from_rational(0);

  // 1. Canonical layouts: input [N][C][spatial...], kernel [O][I][spatial...].
  std::vector<std::int64_t> in_perm = {c.input_batch, c.input_feature};
  in_perm.insert(in_perm.end(), c.input_spatial.begin(), c.input_spatial.end());
  std::vector<std::int64_t> k_perm = {c.kernel_output_feature, c.kernel_input_feature};
  k_perm.insert(k_perm.end(), c.kernel_spatial.begin(), c.kernel_spatial.end());
  auto is_identity = [](const std::vector<std::int64_t>& p) {
    for (std::size_t i = 0; i < p.size(); ++i)
      if (p[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  };
  Tensor<S> in_t, k_t;  // transposed copies, only when the layout is not canonical already
  if (!is_identity(in_perm)) in_t = transpose(lhs, in_perm);
  if (!is_identity(k_perm)) k_t = transpose(rhs, k_perm);
  const Tensor<S>& in_c = is_identity(in_perm) ? lhs : in_t;
  const Tensor<S>& kernel = is_identity(k_perm) ? rhs : k_t;

  // 2. Pad with zeros and dilate the input (lhs_dilation): the spec's padded_lhs.
  std::vector<std::int64_t> low = {0, 0}, high = {0, 0}, interior = {0, 0};
  for (std::size_t s = 0; s < spatial; ++s) {
    low.push_back(a.padding[s].first);
    high.push_back(a.padding[s].second);
    interior.push_back(a.lhs_dilation[s] - 1);
  }
  Tensor<S> in_p = pad(in_c, zero, low, high, interior);

  // 3. Per image and group, an im2col matrix product: C[o][x] = sum_k W[o][k] * P[k][x], with
  //    k = (window position, input feature) in lexicographic order (the feature fastest) and
  //    x the flat output position. The product runs with its inner loop over the longer of
  //    the two result dimensions; either way each result element sums over k in order.
  const std::int64_t N_in = in_p.shape[0], O = kernel.shape[0], Cg = kernel.shape[1];
  const std::int64_t fg = a.feature_group_count, bg = a.batch_group_count, groups = fg * bg;
  const std::int64_t N_out = N_in / bg, Og = O / groups;
  Shape out_spatial, k_spatial;
  for (std::size_t s = 0; s < spatial; ++s) {
    out_spatial.push_back(result_shape[static_cast<std::size_t>(c.output_spatial[s])]);
    k_spatial.push_back(kernel.shape[2 + s]);
  }
  Shape canon = {N_out, O};
  canon.insert(canon.end(), out_spatial.begin(), out_spatial.end());
  Tensor<S> out(canon, filled(num_elements(canon), zero));  // zeroed by the threads: the products accumulate into it
  const std::int64_t X = num_elements(out_spatial), window = num_elements(k_spatial), K = window * Cg;
  const auto in_strides = row_major_strides(in_p.shape);
  const std::int64_t in_channel = in_strides[1], in_image = in_strides[0];
  std::vector<std::int64_t> x_offset(static_cast<std::size_t>(X)), k_offset(static_cast<std::size_t>(window));
  for (std::int64_t x = 0; x < X; ++x) {
    const auto idx = unravel(out_spatial, x);
    for (std::size_t s = 0; s < spatial; ++s) x_offset[static_cast<std::size_t>(x)] += idx[s] * a.window_strides[s] * in_strides[2 + s];
  }
  for (std::int64_t kp = 0; kp < window; ++kp) {
    const auto idx = unravel(k_spatial, kp);
    for (std::size_t s = 0; s < spatial; ++s) k_offset[static_cast<std::size_t>(kp)] += idx[s] * a.rhs_dilation[s] * in_strides[2 + s];
  }
  const bool lanes_over_x = X >= Og;
  const std::int64_t W = spatial ? out_spatial.back() : 1;  // outputs along the last spatial dimension
  const std::int64_t stride_last = spatial ? a.window_strides.back() * in_strides.back() : 0;
  Scratch<S> weights(static_cast<std::size_t>(Og * K), zero);  // every element packed below before use
  // The images of a group split over the threads (each with its own patch buffers) when there
  // are enough of them; otherwise each image's patches and product split over the threads.
  const bool images_in_parallel = N_out >= 2 * thread_count() && thread_count() > 1;
  // One image of one group: its patches (P[k][x] or, transposed, P[x][k]) times the weights.
  auto image = [&](std::int64_t g, std::int64_t n, Scratch<S>& patches, Scratch<S>& transposed) {
    const std::int64_t c0 = fg > 1 ? g * Cg : 0, o0 = g * Og;
    const std::int64_t n_in = bg > 1 ? n + g * N_out : n;
    const S* img = in_p.data.data() + n_in * in_image + c0 * in_channel;
    // Each k (a window position and input feature) fills its own patch row or column; the
    // threads split the k unless they are splitting the images (then one range: this image's).
    const std::int64_t k_grain = images_in_parallel ? K + 1 : std::max<std::int64_t>(1, kCopyGrain<S> / std::max<std::int64_t>(1, X));
    parallel_for_ranges(K, [&](std::int64_t k_begin, std::int64_t k_end) {
      for (std::int64_t k = k_begin; k < k_end; ++k) {
        const std::int64_t kp = k / Cg, ci = k % Cg;
        const S* src = img + ci * in_channel + k_offset[static_cast<std::size_t>(kp)];
        if (lanes_over_x) {
          S* dst = patches.data() + k * X;
          for (std::int64_t row = 0; row < X; row += W) {  // a row of outputs reads a strided run
            const S* run = src + x_offset[static_cast<std::size_t>(row)];
            for (std::int64_t j = 0; j < W; ++j) dst[row + j] = run[j * stride_last];
          }
        } else {
          for (std::int64_t x = 0; x < X; ++x) patches[static_cast<std::size_t>(x * K + k)] = src[x_offset[static_cast<std::size_t>(x)]];
        }
      }
    }, k_grain);
    S* result = out.data.data() + (n * O + o0) * X;
    if (lanes_over_x) {
      detail::matmul_rows(d, weights.data(), patches.data(), result, Og, K, X);
    } else {
      std::fill(transposed.begin(), transposed.end(), zero);
      detail::matmul_rows(d, patches.data(), weights.data(), transposed.data(), X, K, Og);
      for (std::int64_t x = 0; x < X; ++x)
        for (std::int64_t o = 0; o < Og; ++o) result[o * X + x] = std::move(transposed[static_cast<std::size_t>(x * Og + o)]);
    }
  };
  try {
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t o0 = g * Og;
      // W[o][k] or, transposed, W[k][o]: the threads pack their own rows (a weight gradient's
      // kernel is a whole activation, megabytes).
      auto weight = [&](std::int64_t o, std::int64_t k) -> const S& {
        return kernel.data[static_cast<std::size_t>(((o0 + o) * Cg + k % Cg) * window + k / Cg)];
      };
      if (lanes_over_x)
        parallel_for_ranges(Og, [&](std::int64_t o_begin, std::int64_t o_end) {
          for (std::int64_t o = o_begin; o < o_end; ++o)
            for (std::int64_t k = 0; k < K; ++k) weights[static_cast<std::size_t>(o * K + k)] = weight(o, k);
        }, std::max<std::int64_t>(1, kCopyGrain<S> / K));
      else
        parallel_for_ranges(K, [&](std::int64_t k_begin, std::int64_t k_end) {
          for (std::int64_t k = k_begin; k < k_end; ++k)
            for (std::int64_t o = 0; o < Og; ++o) weights[static_cast<std::size_t>(k * Og + o)] = weight(o, k);
        }, std::max<std::int64_t>(1, kCopyGrain<S> / Og));
      std::int64_t first_failing = N_out;
      std::exception_ptr error;
      const SplitWork meter(N_out >= 2 * std::max(2, thread_count()));  // the images split with 2 threads or more
#pragma omp parallel if (images_in_parallel)
      {
        Scratch<S> patches(static_cast<std::size_t>(K * X), zero);  // every (k, x) gathered before the product
        Scratch<S> transposed(lanes_over_x ? 0 : static_cast<std::size_t>(X * Og), zero);  // zeroed per image
#pragma omp for schedule(static)
        for (std::int64_t n = 0; n < N_out; ++n) {
          try {
            image(g, n, patches, transposed);
          } catch (...) {
#pragma omp critical(shlo_conv_error)
            if (n < first_failing) {
              first_failing = n;
              error = std::current_exception();
            }
          }
        }
      }
      if (error) std::rethrow_exception(error);
    }
  } catch (const DomainError& e) {
    throw OpError(std::string(e.what()) + " (in the accumulation of a result element)");
  }

  // The temporaries' limbs (multiple precision) are freed by the threads.
  release_in_parallel(in_p.data);
  release_in_parallel(in_t.data);
  release_in_parallel(k_t.data);

  // 4. Back to the printed output layout.
  std::vector<std::int64_t> out_perm(result_shape.size());
  out_perm[static_cast<std::size_t>(c.output_batch)] = 0;
  out_perm[static_cast<std::size_t>(c.output_feature)] = 1;
  for (std::size_t s = 0; s < spatial; ++s) out_perm[static_cast<std::size_t>(c.output_spatial[s])] = static_cast<std::int64_t>(2 + s);
  if (is_identity(out_perm)) return out;
  Tensor<S> printed = transpose(out, out_perm);
  release_in_parallel(out.data);
  return printed;
}

}  // namespace shlo::ops
