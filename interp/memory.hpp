// Resources before a run: the peak memory a program needs in a domain, estimated from its
// types alone (live tensors x bytes per scalar, counting the limbs of multiple-precision
// values), checked against a limit before anything is allocated; and an allocator for GMP and
// MPFR that throws std::bad_alloc instead of aborting the process.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gmp.h>

#include "ast/program.hpp"
#include "interp/domain/exact.hpp"
#include "interp/domain/interval.hpp"
#include "interp/domain/mpfr.hpp"

namespace shlo {

/// A program that needs more memory than allowed: names the instruction, the tensor and the
/// estimate.
class MemoryLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bytes one heap block of `payload` bytes takes (glibc: 8 bytes of header, 16-byte granules).
constexpr std::uint64_t heap_block_bytes(std::uint64_t payload) { return (payload + 8 + 15) / 16 * 16; }

/// The block the shlo command's limb caches give a request of `bytes` (interp/limb_cache.cpp):
/// 16 or 32 bytes, else a multiple of 64 (whole cache lines, so that blocks that two threads use
/// never share one); 0 above 256 bytes, which go to the C library.
constexpr std::uint64_t limb_cache_block_bytes(std::uint64_t bytes) {
  if (bytes <= 32) return bytes <= 16 ? 16 : 32;
  return bytes <= 256 ? (bytes + 63) / 64 * 64 : 0;
}

/// Bytes an MPFR value's limb array of `limbs` limbs takes on the heap (MPFR asks for the limbs
/// and a size word): the larger of glibc's block and the limb caches' block, so that the memory
/// estimate holds for the shlo command and for a library's host process alike.
constexpr std::uint64_t mpfr_limb_block_bytes(std::uint64_t limbs) {
  const std::uint64_t request = limbs * sizeof(mp_limb_t) + sizeof(mp_size_t);
  const std::uint64_t glibc = heap_block_bytes(request), cached = limb_cache_block_bytes(request);
  return cached > glibc ? cached : glibc;
}

/// Bytes one scalar of domain D takes in a tensor, with its limbs. Exact rationals grow with
/// their values: this counts one limb each for numerator and denominator (a lower bound).
template <class D>
std::uint64_t scalar_bytes(const D& d) {
  using S = typename D::Scalar;
  if constexpr (std::is_same_v<D, MpfrDomain> || std::is_same_v<D, IntervalDomain>) {
    const auto limbs = (static_cast<std::uint64_t>(d.precision()) + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS;
    const std::uint64_t endpoints = std::is_same_v<D, IntervalDomain> ? 2 : 1;
    return sizeof(S) + endpoints * mpfr_limb_block_bytes(limbs);
  } else if constexpr (std::is_same_v<D, ExactDomain>) {
    return sizeof(S) + 2 * heap_block_bytes(sizeof(mp_limb_t));
  } else {
    (void)d;
    return sizeof(S);
  }
}

struct MemoryEstimate {
  std::uint64_t peak_bytes = 0;
  const Instruction* peak_at = nullptr;  // the instruction whose result makes the peak; null: the inputs, or a call's results
  const Call* peak_call = nullptr;       // the entry function's call during which (peak_at inside the callee) or at whose results the peak is reached
  std::string largest_tensor;            // the largest value live at the peak ("%v3 : tensor<...>")
  std::uint64_t largest_tensor_bytes = 0;
};

/// The most memory the run holds at once: inputs, then after each instruction the values still
/// needed (freed after their last use, as run_program does), on `replicas` replicas. A call
/// adds its callee's own peak (its arguments, copies of the operands, and its live values) to
/// the caller's live values, then its results. Saturates at UINT64_MAX instead of wrapping.
MemoryEstimate estimate_peak_memory(const Module& m, std::uint64_t bytes_per_scalar, int replicas);

/// Throws MemoryLimitError when the estimate exceeds `limit_bytes`: "FILE:L:C: %v = stablehlo.op:
/// ...". `domain` names the arithmetic in the message; `limit_source` says where the limit came from.
void check_memory(const Module& m, const std::string& domain, std::uint64_t bytes_per_scalar, int replicas,
                  std::uint64_t limit_bytes, const std::string& limit_source);

/// MemAvailable from /proc/meminfo, in bytes (0 when it cannot be read).
std::uint64_t available_memory();
/// "4G", "512M", "64K", "1000" (bytes); binary multiples. Throws std::invalid_argument otherwise.
std::uint64_t parse_memory_size(const std::string& text);
/// "1.5 GiB", "12.0 MiB", "512 B".
std::string format_bytes(std::uint64_t bytes);

/// Routes GMP's (and so MPFR's and MPFI's) allocations through functions that throw
/// std::bad_alloc on failure, so that running out of memory is a clean error, not an abort.
void install_throwing_gmp_allocator();

/// The same, with GMP's and MPFR's blocks of up to 256 bytes (every limb array of a value up to
/// about 1,984 bits) from free lists kept per thread (interp/limb_cache.cpp): a freed block is
/// taken again by the next allocation of its size on the thread that freed it, without a lock.
/// Freed blocks stay in the process. Call it before any GMP or MPFR value exists and before any
/// thread uses MPFR (MPFR keeps the functions it first saw per thread): for the shlo command, not
/// for a library's host process. Under AddressSanitizer it installs the plain throwing allocator
/// instead, so that the sanitizer sees every block.
void install_thread_limb_caches();
/// Whether `block` lies in the limb caches' memory (for tests).
bool limb_cache_holds(const void* block);

/// Keeps freed memory in the process for the next tensor instead of returning it to the
/// system: large tensors from the storage pool (enable_storage_pool: whole huge pages), smaller
/// blocks from glibc's heap, which no longer trims. A run frees and allocates tensors of the
/// same sizes op after op: returned memory comes back as fresh pages, each one a page fault and
/// zeroed by the kernel on one thread, which was a tenth of a short f64 run. The process keeps
/// its peak size until it exits: for the shlo command, not for a library's host process.
void keep_freed_memory_for_reuse();

/// Allocates about `bytes` of tensor storage (with keep_freed_memory_for_reuse, one block from
/// the storage pool; otherwise heap blocks under glibc's mmap threshold), touches every page of
/// it on all the threads at once, and frees it: the tensors allocated next take those pages
/// without a page fault each (on a virtual machine a fault can cost microseconds). Use before a
/// run whose peak is known; it changes no result. `alongside`, when given, runs on the calling
/// thread first (drawing or reading a run's inputs), while the other threads touch; then that
/// thread touches too. Its exception, if any, is rethrown once every page is touched.
void touch_heap_in_parallel(std::uint64_t bytes, const std::function<void()>& alongside = {});

}  // namespace shlo
