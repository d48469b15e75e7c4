// touch_heap_in_parallel, in a process of its own (a test binary's heap carries the state of
// earlier tests): after it, new tensors take pages already in the heap instead of faulting
// each one in. And a float tensor's storage for writing touches no page before the op writes
// it (no zero-fill on the program's thread). Exit 0 when so, 1 with the figures otherwise, 77
// (skipped) where huge pages back the heap and a fresh tensor takes few faults anyway.
#include <sys/resource.h>

#include <cstdio>
#include <vector>

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

// Faults taken while one op's output storage of `bytes` of S is allocated, before any write.
template <class S>
long faults_of_storage_for_writing(std::size_t bytes) {
  const long before = minor_faults();
  const auto storage = shlo::storage_for_writing<S>(static_cast<std::int64_t>(bytes / sizeof(S)));
  asm volatile("" : : "g"(storage.data()) : "memory");  // the allocation is not optimised away
  return minor_faults() - before;
}

}  // namespace

int main() {
#ifdef __GLIBC__
  shlo::keep_freed_memory_for_reuse();  // as the shlo command does
  constexpr std::size_t kTensor = std::size_t{16} << 20;
  constexpr long kPages = static_cast<long>(kTensor / 4096);
  // Output storage of doubles and floats: allocated, not zero-filled (the heap is fresh, so a
  // zero-fill would fault in every page, as the control below does).
  const long storage_f64 = faults_of_storage_for_writing<double>(kTensor);
  const long storage_f32 = faults_of_storage_for_writing<float>(kTensor);
  // Control: in a fresh heap one tensor faults in (nearly) every page; it stays in the heap.
  const long first = faults_of_tensors(1, kTensor);
  // Three at once need two tensors' pages more: touched in advance, they fault no more.
  shlo::touch_heap_in_parallel(4 * kTensor);
  const long after_touch = faults_of_tensors(3, kTensor);
  std::printf("faults: one 16 MiB tensor in a fresh heap %ld; three after touching 64 MiB %ld; "
              "16 MiB of output storage, f64 %ld, f32 %ld\n", first, after_touch, storage_f64, storage_f32);
  if (first < kPages / 2) {  // the heap on huge pages (THP "always", glibc.malloc.hugetlb): nothing to measure
    std::printf("skipped: a fresh tensor faulted in %ld pages, not about %ld (huge pages back the heap)\n", first, kPages);
    return 77;
  }
  if (storage_f64 > kPages / 8 || storage_f32 > kPages / 8) {
    std::printf("output storage was zero-filled: %ld and %ld faults (at most %ld expected)\n", storage_f64, storage_f32, kPages / 8);
    return 1;
  }
  if (after_touch > kPages / 8) {
    std::printf("the touched heap was not reused: %ld faults (at most %ld expected)\n", after_touch, kPages / 8);
    return 1;
  }
#endif
  return 0;
}
