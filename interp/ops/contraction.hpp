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

// Whether a product's k may be split over consecutive matmul calls without changing any
// result: so for every domain whose result element accumulates in place, in order; not for
// one with its own matmul_accumulate (the bound analysis, whose sums decide per call what
// they admit).
template <class D>
inline constexpr bool splits_k_freely =
    !requires(const D& d, const typename D::Scalar* a, typename D::Scalar* c, std::int64_t n) { d.matmul_accumulate(a, a, c, n, n, n); };

// A convolution takes its k (window positions and input features) in slabs whose patches
// (`width` entries per k) and packed weights (Og per k) stay in a core's cache, about 2 MB and
// 512 KB: a weight gradient sums 131,072 products per element, and without slabs its product
// streams megabytes of weights from memory once per four rows.
template <class S>
std::int64_t slab_length(std::int64_t K, std::int64_t width, std::int64_t Og) {
  const auto bytes = static_cast<std::int64_t>(sizeof(S));
  const std::int64_t by_patches = (std::int64_t{2} << 20) / (bytes * std::max<std::int64_t>(1, width));
  const std::int64_t by_weights = (std::int64_t{512} << 10) / (bytes * std::max<std::int64_t>(1, Og));
  return std::min(K, std::max<std::int64_t>(64, std::min(by_patches, by_weights)));
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
// per thread, as even as can be (27 rows on 2 threads are 13 + 14: the IEEE kernel keeps rows
// left over from its 4-row step in registers too, so a row costs about the same wherever it
// falls). Each element's sum is untouched.
template <class D>
void matmul_rows(const D& d, const typename D::Scalar* A, const typename D::Scalar* B, typename D::Scalar* C,
                 std::int64_t M, std::int64_t K, std::int64_t N) {
  const std::int64_t threads = thread_count();
  const double work = static_cast<double>(M) * static_cast<double>(K) * static_cast<double>(N);
  const double enough = std::is_floating_point_v<typename D::Scalar> ? 1 << 18 : 1 << 10;
  const SplitWork meter(M >= 8 && work >= enough);
  if (threads == 1 || M < 8 || work < enough) return matmul_block(d, A, B, C, M, K, N);
  const std::int64_t blocks = std::min<std::int64_t>(threads, M / 4);
  auto block_start = [&](std::int64_t b) { return M * b / blocks; };
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
  //    the two result dimensions, and over k in consecutive slabs (each accumulating into the
  //    same result); either way each result element sums over k in order.
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
  const bool lanes_over_x = X >= Og;
  // The patches read the padded input as it is, [N][C][spatial...], when their rows are k
  // (P[k][x]: a row of outputs reads a run along the last spatial dimension), and channels
  // last, [N][spatial...][C], when their rows are x (P[x][k]: consecutive k are consecutive
  // input features, so a row copies runs of them).
  Tensor<S> in_last;
  if (!lanes_over_x) {
    std::vector<std::int64_t> channels_last = {0};
    for (std::size_t s = 0; s < spatial; ++s) channels_last.push_back(static_cast<std::int64_t>(2 + s));
    channels_last.push_back(1);
    in_last = transpose(in_p, channels_last);
    release_in_parallel(in_p.data);
    in_p = Tensor<S>();
  }
  const Tensor<S>& source = lanes_over_x ? in_p : in_last;
  const auto source_strides = row_major_strides(source.shape);
  const std::int64_t in_image = source_strides[0], in_channel = lanes_over_x ? source_strides[1] : 1;
  auto spatial_stride = [&](std::size_t s) { return source_strides[lanes_over_x ? 2 + s : 1 + s]; };
  std::vector<std::int64_t> x_offset(static_cast<std::size_t>(X)), k_offset(static_cast<std::size_t>(window));
  for (std::int64_t x = 0; x < X; ++x) {
    const auto idx = unravel(out_spatial, x);
    for (std::size_t s = 0; s < spatial; ++s) x_offset[static_cast<std::size_t>(x)] += idx[s] * a.window_strides[s] * spatial_stride(s);
  }
  for (std::int64_t kp = 0; kp < window; ++kp) {
    const auto idx = unravel(k_spatial, kp);
    for (std::size_t s = 0; s < spatial; ++s) k_offset[static_cast<std::size_t>(kp)] += idx[s] * a.rhs_dilation[s] * spatial_stride(s);
  }
  const std::int64_t W = spatial ? out_spatial.back() : 1;  // outputs along the last spatial dimension
  const std::int64_t stride_last = spatial ? a.window_strides.back() * spatial_stride(spatial - 1) : 0;
  // With X < Og (a weight gradient: few output positions, many products each) the images of a
  // group are stacked into one product, row n * X + x for image n's position x, so that each
  // slab of weights is read once for all of them. The bound domain takes each image alone and
  // all of k at once (detail::splits_k_freely).
  const bool stacked = !lanes_over_x && detail::splits_k_freely<D>;
  const std::int64_t ks = detail::splits_k_freely<D> ? detail::slab_length<S>(K, stacked ? N_out * X : X, Og) : K;
  // Packed weights, slab by slab: slab [k0, k0 + length) holds W[o][k] row-major (Og x length)
  // or, transposed, W[k][o] (length x Og); either way it starts at k0 * Og.
  Scratch<S> weights(static_cast<std::size_t>(Og * K), zero);  // every element packed below before use
  auto image_input = [&](std::int64_t g, std::int64_t n) -> const S* {
    const std::int64_t c0 = fg > 1 ? g * Cg : 0;
    const std::int64_t n_in = bg > 1 ? n + g * N_out : n;
    return source.data.data() + n_in * in_image + c0 * in_channel;
  };
  // Patch entry (k, x) of an image (k: a window position and an input feature) is
  // patch_source(image, k)[x_offset[x]].
  auto patch_source = [&](const S* img, std::int64_t k) {
    return img + (k % Cg) * in_channel + k_offset[static_cast<std::size_t>(k / Cg)];
  };
  // P[k][x] for k in [k_begin, k_end) of the slab that starts at k0: row-major, X columns.
  auto gather_rows_of_k = [&](const S* img, std::int64_t k0, std::int64_t k_begin, std::int64_t k_end, S* slab) {
    for (std::int64_t k = k_begin; k < k_end; ++k) {
      const S* src = patch_source(img, k);
      S* dst = slab + (k - k0) * X;
      for (std::int64_t row = 0; row < X; row += W) {  // a row of outputs reads a strided run
        const S* run = src + x_offset[static_cast<std::size_t>(row)];
        for (std::int64_t j = 0; j < W; ++j) dst[row + j] = run[j * stride_last];
      }
    }
  };
  // P[x][k] for k in [k_begin, k_end) of the slab that starts at k0, into `row` (entry k - k0):
  // channels last, so runs of consecutive input features.
  auto gather_row_of_x = [&](const S* img, std::int64_t x, std::int64_t k0, std::int64_t k_begin, std::int64_t k_end, S* row) {
    const S* at = img + x_offset[static_cast<std::size_t>(x)];
    for (std::int64_t k = k_begin; k < k_end;) {
      const std::int64_t ci = k % Cg, run = std::min(Cg - ci, k_end - k);
      std::copy_n(at + k_offset[static_cast<std::size_t>(k / Cg)] + ci, run, row + (k - k0));
      k += run;
    }
  };
  // acc[n * X + x][o] (rows of Og) into the result's [n][o0 + o][x], for images [n_begin, n_end).
  auto scatter_transposed = [&](std::int64_t o0, std::int64_t n_begin, std::int64_t n_end, S* acc) {
    for (std::int64_t n = n_begin; n < n_end; ++n) {
      S* result = out.data.data() + (n * O + o0) * X;
      S* rows = acc + (n - n_begin) * X * Og;
      for (std::int64_t x = 0; x < X; ++x)
        for (std::int64_t o = 0; o < Og; ++o) result[o * X + x] = std::move(rows[x * Og + o]);
    }
  };
  // The images of a group split over the threads (each with its own patch buffers) when there
  // are enough of them; otherwise each image's patches and product split over the threads.
  const bool images_in_parallel = N_out >= 2 * thread_count() && thread_count() > 1;
  // One image of one group, slab by slab: its patches (P[k][x] or, transposed, P[x][k]) times
  // the weights, into the result or, transposed, into `transposed`.
  auto image = [&](std::int64_t g, std::int64_t n, Scratch<S>& patches, Scratch<S>& transposed) {
    const S* img = image_input(g, n);
    S* result = out.data.data() + (n * O + g * Og) * X;
    if (!lanes_over_x) std::fill(transposed.begin(), transposed.end(), zero);
    for (std::int64_t k0 = 0; k0 < K; k0 += ks) {
      const std::int64_t length = std::min(ks, K - k0);
      // The threads split the rows unless they are splitting the images (then one range).
      if (lanes_over_x)
        parallel_for_ranges(length, [&](std::int64_t k_begin, std::int64_t k_end) {
          gather_rows_of_k(img, k0, k0 + k_begin, k0 + k_end, patches.data());
        }, images_in_parallel ? length + 1 : std::max<std::int64_t>(1, kCopyGrain<S> / std::max<std::int64_t>(1, X)));
      else
        parallel_for_ranges(X, [&](std::int64_t x_begin, std::int64_t x_end) {
          for (std::int64_t x = x_begin; x < x_end; ++x) gather_row_of_x(img, x, k0, k0, k0 + length, patches.data() + x * length);
        }, images_in_parallel ? X + 1 : std::max<std::int64_t>(1, kCopyGrain<S> / length));
      if (lanes_over_x) detail::matmul_rows(d, weights.data() + k0 * Og, patches.data(), result, Og, length, X);
      else detail::matmul_rows(d, patches.data(), weights.data() + k0 * Og, transposed.data(), X, length, Og);
    }
    if (!lanes_over_x) scatter_transposed(g * Og, n, n + 1, transposed.data());
  };
  // Every image of a group in one product (`stacked`): the threads split each slab's gather and
  // its product by rows.
  auto stacked_images = [&](std::int64_t g) {
    const std::int64_t R = N_out * X;
    Storage<S> acc = filled(R * Og, zero);
    Scratch<S> patches(static_cast<std::size_t>(R * ks), zero);  // every entry gathered before the product
    for (std::int64_t k0 = 0; k0 < K; k0 += ks) {
      const std::int64_t length = std::min(ks, K - k0);
      parallel_for_ranges(R, [&](std::int64_t r_begin, std::int64_t r_end) {
        for (std::int64_t r = r_begin; r < r_end; ++r)
          gather_row_of_x(image_input(g, r / X), r % X, k0, k0, k0 + length, patches.data() + r * length);
      }, std::max<std::int64_t>(1, kCopyGrain<S> / length));
      detail::matmul_rows(d, patches.data(), weights.data() + k0 * Og, acc.data(), R, length, Og);
    }
    parallel_for_ranges(N_out, [&](std::int64_t n_begin, std::int64_t n_end) {
      scatter_transposed(g * Og, n_begin, n_end, acc.data() + n_begin * X * Og);
    }, std::max<std::int64_t>(1, kCopyGrain<S> / std::max<std::int64_t>(1, X * Og)));
    release_in_parallel(acc);
  };
  try {
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t o0 = g * Og;
      // The threads pack their own rows (a weight gradient's kernel is a whole activation,
      // megabytes), walking k = (kp, ci) with running indices: a division per element (k / Cg,
      // k % Cg) cost more than the copy. The kernel of group g is [o][ci][kp] from row o0.
      const S* kernel_group = kernel.data.data() + o0 * Cg * window;
      if (lanes_over_x)  // slab by slab, W[o][k] row-major (Og x length) from k0 * Og
        parallel_for_ranges(Og, [&](std::int64_t o_begin, std::int64_t o_end) {
          for (std::int64_t o = o_begin; o < o_end; ++o)
            for (std::int64_t k0 = 0; k0 < K; k0 += ks) {
              const std::int64_t length = std::min(ks, K - k0);
              const S* row = kernel_group + o * Cg * window;
              S* packed = weights.data() + k0 * Og + o * length;
              std::int64_t kp = k0 / Cg, ci = k0 % Cg;
              for (std::int64_t j = 0; j < length; ++j) {
                packed[j] = row[ci * window + kp];
                if (++ci == Cg) ci = 0, ++kp;
              }
            }
        }, std::max<std::int64_t>(1, kCopyGrain<S> / K));
      else  // W[k][o] (k * Og + o), eight window positions at a time: each line of the kernel
            // read is used whole (a weight gradient's kernel has 1,024 positions, and k-major
            // reads would touch one line per element)
        parallel_for_ranges((window + 7) / 8, [&](std::int64_t b_begin, std::int64_t b_end) {
          for (std::int64_t kp0 = b_begin * 8; kp0 < std::min(window, b_end * 8); kp0 += 8) {
            const std::int64_t kp1 = std::min(window, kp0 + 8);
            for (std::int64_t ci = 0; ci < Cg; ++ci)
              for (std::int64_t o = 0; o < Og; ++o) {
                const S* positions = kernel_group + (o * Cg + ci) * window;
                S* packed = weights.data() + ci * Og + o;  // k = kp * Cg + ci
                for (std::int64_t kp = kp0; kp < kp1; ++kp) packed[kp * Cg * Og] = positions[kp];
              }
          }
        }, std::max<std::int64_t>(1, kCopyGrain<S> / (8 * K / window * Og)));
      if (stacked) {
        stacked_images(g);
        continue;
      }
      std::int64_t first_failing = N_out;
      std::exception_ptr error;
      const SplitWork meter(N_out >= 2 * std::max(2, thread_count()));  // the images split with 2 threads or more
#pragma omp parallel if (images_in_parallel)
      {
        Scratch<S> patches(static_cast<std::size_t>(ks * X), zero);  // every (k, x) of a slab gathered before its product
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
  release_in_parallel(in_last.data);
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
