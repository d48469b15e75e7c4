// touch_heap_in_parallel, in a process of its own (a test binary's heap carries the state of
// earlier tests): after it, new tensors take pages already in the heap instead of faulting
// each one in. A float tensor's storage for writing touches no page before the op writes it
// (no zero-fill on the program's thread), and where the kernel offers transparent huge pages
// on request, writing it faults them in 2 MiB at a time (the storage pool, whose reuse and
// merging are checked first). So do an interval tensor's headers (its limbs are small heap
// blocks). Exit 0 when so,
// 1 with the figures otherwise, 77 (skipped) where huge pages back the whole heap anyway and a
// fresh tensor takes few faults.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "interp/domain/big_interval.hpp"
#include "interp/memory.hpp"
#include "interp/ops/common.hpp"

namespace {

long minor_faults() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

// Faults taken while `count` zero-filled vectors of `bytes` (as tensors are) live at once.
long faults_of_tensors(int count, std::size_t bytes) {
  const long before = minor_faults();
  std::vector<std::vector<char>> tensors;
  for (int i = 0; i < count; ++i) tensors.emplace_back(bytes);
  return minor_faults() - before;
}

// The same for tensors' own storage (shlo::Storage, as the interpreter allocates it), every
// page written.
long faults_of_storage(int count, std::size_t bytes) {
  const long before = minor_faults();
  std::vector<shlo::Storage<double>> tensors;
  for (int i = 0; i < count; ++i) tensors.emplace_back(bytes / sizeof(double), 1.0);
  return minor_faults() - before;
}

// Faults taken while one op's output storage of `bytes` of S is allocated, before any write.
template <class S>
long faults_of_storage_for_writing(std::size_t bytes) {
  const long before = minor_faults();
  const auto storage = shlo::storage_for_writing<S>(static_cast<std::int64_t>(bytes / sizeof(S)));
  asm volatile("" : : "g"(storage.data()) : "memory");  // the allocation is not optimised away
  return minor_faults() - before;
}

// Whether the kernel backs memory with transparent huge pages when asked (mode "always" or
// "madvise"), read here independently of the library.
bool huge_pages_on_request() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(enabled, modes) && modes.find("[never]") == std::string::npos;
}

}  // namespace

int main() {
#ifdef __GLIBC__
  shlo::keep_freed_memory_for_reuse();  // as the shlo command does
  // The storage pool (empty here): large blocks are whole huge pages, a freed block is taken
  // again first, and freed neighbours merge into one block.
  {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    char* a = static_cast<char*>(shlo::allocate_storage_bytes(4 * kMiB));
    char* b = static_cast<char*>(shlo::allocate_storage_bytes(3 * kMiB));  // rounded up to 4 MiB
    const bool aligned = reinterpret_cast<std::uintptr_t>(a) % shlo::kHugePageBytes == 0;
    shlo::free_storage_bytes(a, 4 * kMiB);
    char* c = static_cast<char*>(shlo::allocate_storage_bytes(3 * kMiB));
    shlo::free_storage_bytes(c, 3 * kMiB);
    shlo::free_storage_bytes(b, 3 * kMiB);
    char* d = static_cast<char*>(shlo::allocate_storage_bytes(8 * kMiB));
    shlo::free_storage_bytes(d, 8 * kMiB);
    if (!aligned || b != a + 4 * kMiB || c != a || d != a) {
      std::printf("storage pool: blocks at %p and %p (aligned: %d), taken again at %p, merged at %p (expected %p, %p, %p, %p)\n",
                  static_cast<void*>(a), static_cast<void*>(b), aligned, static_cast<void*>(c), static_cast<void*>(d),
                  static_cast<void*>(a), static_cast<void*>(a + 4 * kMiB), static_cast<void*>(a), static_cast<void*>(a));
      return 1;
    }
  }
  constexpr std::size_t kTensor = std::size_t{16} << 20;
  constexpr long kPages = static_cast<long>(kTensor / 4096);
  // Output storage of doubles and floats: allocated, not zero-filled (the heap is fresh, so a
  // zero-fill would fault in every page, as the control below does).
  const long storage_f64 = faults_of_storage_for_writing<double>(kTensor);
  const long storage_f32 = faults_of_storage_for_writing<float>(kTensor);
  // 16 MiB of interval headers, every one written as a placeholder (no limbs): on huge pages
  // from the pool. Control: the same headers in a plain vector (glibc's heap, 4 KiB pages), kept
  // alive so that no later tensor reuses its pages.
  const long storage_interval = faults_of_storage_for_writing<shlo::BigInterval>(kTensor);
  long start = minor_faults();
  const std::vector<shlo::BigInterval> plain(kTensor / sizeof(shlo::BigInterval), shlo::BigInterval::placeholder());
  const long plain_interval = minor_faults() - start;
  // 16 MiB of doubles written whole, as an op writes its output: kept alive, so that the
  // control below takes fresh pages of its own.
  start = minor_faults();
  shlo::Storage<double> written(kTensor / sizeof(double));
  for (std::size_t i = 0; i < written.size(); ++i) written[i] = static_cast<double>(i);
  const long written_f64 = minor_faults() - start;
  // Control: in a fresh heap one tensor faults in (nearly) every page; it stays in the heap.
  const long first = faults_of_tensors(1, kTensor);
  // Three at once need two tensors' pages more: touched in advance, they fault no more.
  shlo::touch_heap_in_parallel(4 * kTensor);
  const long after_touch = faults_of_storage(3, kTensor);
  std::printf("faults: one 16 MiB tensor in a fresh heap %ld; three after touching 64 MiB %ld; "
              "16 MiB of output storage, f64 %ld, f32 %ld; 16 MiB of doubles written %ld; 16 MiB of interval headers "
              "from the pool %ld, in a plain vector %ld (huge pages on request: %s)\n",
              first, after_touch, storage_f64, storage_f32, written_f64, storage_interval, plain_interval,
              huge_pages_on_request() ? "yes" : "no");
  if (first < kPages / 2) {  // the heap on huge pages (THP "always", glibc.malloc.hugetlb): nothing to measure
    std::printf("skipped: a fresh tensor faulted in %ld pages, not about %ld (huge pages back the heap)\n", first, kPages);
    return 77;
  }
  if (storage_f64 > kPages / 8 || storage_f32 > kPages / 8) {
    std::printf("output storage was zero-filled: %ld and %ld faults (at most %ld expected)\n", storage_f64, storage_f32, kPages / 8);
    return 1;
  }
  if (huge_pages_on_request() && written_f64 > kPages / 8) {
    std::printf("written storage took %ld faults, as on 4 KiB pages (at most %ld expected on huge pages)\n", written_f64, kPages / 8);
    return 1;
  }
  if (huge_pages_on_request() && (storage_interval > kPages / 8 || plain_interval < kPages / 2)) {
    std::printf("interval headers took %ld faults from the pool (at most %ld expected on huge pages), %ld in a plain "
                "vector (at least %ld expected)\n", storage_interval, kPages / 8, plain_interval, kPages / 2);
    return 1;
  }
  if (after_touch > kPages / 8) {
    std::printf("the touched heap was not reused: %ld faults (at most %ld expected)\n", after_touch, kPages / 8);
    return 1;
  }
#endif
  return 0;
}
